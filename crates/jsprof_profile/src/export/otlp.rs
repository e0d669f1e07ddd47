//! The OpenTelemetry profiles signal: an `ExportProfilesServiceRequest`, the body an OTLP/HTTP
//! exporter POSTs to `/v1development/profiles` (binary protobuf).
//!
//! The messages follow `opentelemetry/proto/profiles/v1development/profiles.proto` and
//! `collector/profiles/v1development/profiles_service.proto` of **opentelemetry-proto v1.10.0**
//! ([`PROTO_VERSION`]), the release the Python package `opentelemetry-proto` 1.45.2 is generated
//! from. The signal is Alpha: its shape changed between releases (v1.10.0 keeps strings,
//! functions, locations and stacks in one dictionary shared by every profile of the request,
//! and gives each profile a single sample type), so other releases may not read this one.
//! Declared here by hand, like [`super::pprof`]'s (no protoc at build time); only the fields
//! written are declared.
//!
//! One `ResourceProfiles` (its resource has `service.name` when one is given), one
//! `ScopeProfiles` (scope `jsprof` and its version), and per thread two profiles sharing the
//! dictionary's stacks: the weight — `cpu`/`nanoseconds`, or `space`/`bytes` for a heap
//! profile — first (viewers show `profiles[0]` by default), then `samples`/`count`. A trace's
//! threads' profiles carry their `thread.id` and `thread.name`. One sample per distinct stack,
//! its locations leaf first, with the summed value; samples on the bare root are charged to a
//! `(root)` function, as pprof's writer does, so that the totals stay whole.
//! `time_unix_nano` stays 0: the inputs' clocks are monotonic, not wall-clock time.

use std::io::{self, Write};

use prost::Message;

use super::dictionary::Dictionary;
use super::StackSums;
use crate::model::{Profile, Thread, WeightUnit};

/// The opentelemetry-proto release whose profiles messages these are.
pub const PROTO_VERSION: &str = "1.10.0";

#[derive(Clone, PartialEq, Message)]
pub struct ExportProfilesServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_profiles: Vec<ResourceProfiles>,
    #[prost(message, optional, tag = "2")]
    pub dictionary: Option<ProfilesDictionary>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ProfilesDictionary {
    #[prost(message, repeated, tag = "1")]
    pub mapping_table: Vec<Mapping>,
    #[prost(message, repeated, tag = "2")]
    pub location_table: Vec<Location>,
    #[prost(message, repeated, tag = "3")]
    pub function_table: Vec<Function>,
    #[prost(message, repeated, tag = "4")]
    pub link_table: Vec<Link>,
    #[prost(string, repeated, tag = "5")]
    pub string_table: Vec<String>,
    #[prost(message, repeated, tag = "6")]
    pub attribute_table: Vec<KeyValueAndUnit>,
    #[prost(message, repeated, tag = "7")]
    pub stack_table: Vec<Stack>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ResourceProfiles {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_profiles: Vec<ScopeProfiles>,
}

/// `opentelemetry.proto.resource.v1.Resource`.
#[derive(Clone, PartialEq, Message)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `opentelemetry.proto.common.v1.KeyValue`.
#[derive(Clone, PartialEq, Message)]
pub struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `opentelemetry.proto.common.v1.AnyValue` (the kinds written here).
#[derive(Clone, PartialEq, Message)]
pub struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 3")]
    pub value: Option<Value>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    #[prost(string, tag = "1")]
    String(String),
    #[prost(int64, tag = "3")]
    Int(i64),
}

/// `opentelemetry.proto.common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, Message)]
pub struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct ScopeProfiles {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub profiles: Vec<OtlpProfile>,
}

#[derive(Clone, PartialEq, Message)]
pub struct OtlpProfile {
    #[prost(message, optional, tag = "1")]
    pub sample_type: Option<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    #[prost(uint64, tag = "4")]
    pub duration_nano: u64,
    #[prost(message, optional, tag = "5")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "6")]
    pub period: i64,
    #[prost(int32, repeated, tag = "11")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int32, tag = "1")]
    pub type_strindex: i32,
    #[prost(int32, tag = "2")]
    pub unit_strindex: i32,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    #[prost(int64, repeated, tag = "4")]
    pub values: Vec<i64>,
}

/// No fields written: the table's zero entry only (JavaScript frames have no mappings).
#[derive(Clone, PartialEq, Message)]
pub struct Mapping {}

/// No fields written: the table's zero entry only.
#[derive(Clone, PartialEq, Message)]
pub struct Link {}

#[derive(Clone, PartialEq, Message)]
pub struct Stack {
    #[prost(int32, repeated, tag = "1")]
    pub location_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<Line>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(int32, tag = "1")]
    pub function_index: i32,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(int32, tag = "1")]
    pub name_strindex: i32,
    #[prost(int32, tag = "2")]
    pub system_name_strindex: i32,
    #[prost(int32, tag = "3")]
    pub filename_strindex: i32,
    #[prost(int64, tag = "4")]
    pub start_line: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct KeyValueAndUnit {
    #[prost(int32, tag = "1")]
    pub key_strindex: i32,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// What goes beside the samples.
#[derive(Clone, Debug, Default)]
pub struct OtlpOptions {
    /// The resource's `service.name`, when known.
    pub service: Option<String>,
}

/// The proto's indices are `int32`; the model's tables are `u32`-indexed and a dictionary past
/// 2^31 entries would not fit in memory, so the narrowing never wraps in practice.
fn index(i: impl TryInto<i32>) -> i32 {
    i.try_into().unwrap_or(i32::MAX)
}

fn value_type(dict: &mut Dictionary, r#type: &str, unit: &str) -> ValueType {
    ValueType {
        type_strindex: index(dict.string(r#type)),
        unit_strindex: index(dict.string(unit)),
    }
}

/// Builds the request for `threads` of `profile`.
pub fn otlp_request(
    profile: &Profile,
    threads: &[&Thread],
    options: &OtlpOptions,
) -> ExportProfilesServiceRequest {
    let mut dict = Dictionary::new(profile);
    // Tables: entry 0 is the zero value, as the proto requires of each.
    let mut attributes = vec![KeyValueAndUnit::default()];
    let mut stacks = vec![Stack::default()];
    // Per model stack: its stack_table index, 0 until first used; the bare root's apart.
    let mut stack_index = vec![0i32; profile.stacks.len()];
    let mut root_stack = 0i32;
    let mut profiles = Vec::new();
    for thread in threads {
        let bytes = thread.weight_unit() == WeightUnit::Bytes;
        let sums = StackSums::new(profile, thread);
        let mut weights = Vec::new();
        let mut counts = Vec::new();
        for (stack, count, weight) in sums.sampled() {
            let slot = match stack {
                Some(s) => &mut stack_index[s.index()],
                None => &mut root_stack,
            };
            if *slot == 0 {
                let location_indices = dict.stack(stack).into_iter().map(index).collect();
                stacks.push(Stack { location_indices });
                *slot = index(stacks.len() - 1);
            }
            weights.push(Sample {
                stack_index: *slot,
                values: vec![weight],
            });
            counts.push(Sample {
                stack_index: *slot,
                values: vec![count as i64],
            });
        }
        let mut attribute_indices = Vec::new();
        let mut attribute = |dict: &mut Dictionary, key: &str, value: Value| {
            attributes.push(KeyValueAndUnit {
                key_strindex: index(dict.string(key)),
                value: Some(AnyValue { value: Some(value) }),
            });
            attribute_indices.push(index(attributes.len() - 1));
        };
        // Only a trace names its threads; the other inputs' `main` is our label, not theirs.
        if let Some(tid) = thread.tid() {
            attribute(&mut dict, "thread.id", Value::Int(tid as i64));
            if !thread.name().is_empty() {
                attribute(&mut dict, "thread.name", Value::String(thread.name().into()));
            }
        }
        let count_type = value_type(&mut dict, "samples", "count");
        let (weight_type, period_type, duration, period) = if bytes {
            (value_type(&mut dict, "space", "bytes"), None, 0, 0)
        } else {
            let cpu = value_type(&mut dict, "cpu", "nanoseconds");
            let duration = thread.end_time() - thread.start_time();
            let n = thread.samples.len() as i64;
            let period = if n > 0 { duration / n } else { 0 };
            (cpu.clone(), Some(cpu), duration.max(0) as u64, period)
        };
        for (sample_type, samples) in [(weight_type, weights), (count_type, counts)] {
            profiles.push(OtlpProfile {
                sample_type: Some(sample_type),
                samples,
                time_unix_nano: 0,
                duration_nano: duration,
                period_type: period_type.clone(),
                period,
                attribute_indices: attribute_indices.clone(),
            });
        }
    }
    let mut functions = vec![Function::default()];
    let mut locations = vec![Location::default()];
    for e in dict.entries() {
        functions.push(Function {
            name_strindex: index(e.name),
            system_name_strindex: index(e.name),
            filename_strindex: index(e.filename),
            start_line: e.line,
        });
        locations.push(Location {
            lines: vec![Line {
                function_index: index(functions.len() - 1),
                line: e.line,
                column: e.column,
            }],
        });
    }
    let resource = Resource {
        attributes: options
            .service
            .iter()
            .map(|name| KeyValue {
                key: "service.name".into(),
                value: Some(AnyValue {
                    value: Some(Value::String(name.clone())),
                }),
            })
            .collect(),
    };
    ExportProfilesServiceRequest {
        resource_profiles: vec![ResourceProfiles {
            resource: Some(resource),
            scope_profiles: vec![ScopeProfiles {
                scope: Some(InstrumentationScope {
                    name: "jsprof".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                }),
                profiles,
            }],
        }],
        dictionary: Some(ProfilesDictionary {
            mapping_table: vec![Mapping::default()],
            location_table: locations,
            function_table: functions,
            link_table: vec![Link::default()],
            string_table: dict.into_strings(),
            attribute_table: attributes,
            stack_table: stacks,
        }),
    }
}

/// Writes `threads` of `profile` as a binary `ExportProfilesServiceRequest`.
pub fn write_otlp(
    mut out: impl Write,
    profile: &Profile,
    threads: &[&Thread],
    options: &OtlpOptions,
) -> io::Result<()> {
    out.write_all(&otlp_request(profile, threads, options).encode_to_vec())?;
    out.flush()
}
