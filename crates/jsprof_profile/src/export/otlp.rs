//! The OpenTelemetry profiles signal: an `ExportProfilesServiceRequest`, the body an OTLP/HTTP
//! exporter POSTs to `/v1development/profiles`, as binary protobuf or OTLP/JSON.
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
//! threads' profiles carry their `process.pid`, `thread.id` and `thread.name`. One sample per distinct stack,
//! its locations leaf first, with the summed value; samples on the bare root are charged to a
//! `(root)` function, as pprof's writer does, so that the totals stay whole.
//!
//! `time_unix_nano` is each thread's first sample on the wall clock when [`OtlpOptions::wall_clock`]
//! says where the profile's own (monotonic) clock lies on it, else 0, which the proto reads as
//! unknown: the files jsprof reads carry monotonic clocks only; the lake keeps each profile's
//! wall-clock start. A merged profile ([`OtlpOptions::merged`], a lake selection summed per
//! stack) has no count profile, `duration_nano` or `period`: its samples are sums, not samples.

use std::io::{self, Write};

use prost::Message;
use serde::{Serialize, Serializer};

use super::dictionary::Dictionary;
use super::StackSums;
use crate::model::{Profile, Thread, WeightUnit};

/// The opentelemetry-proto release whose profiles messages these are.
pub const PROTO_VERSION: &str = "1.10.0";

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportProfilesServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_profiles: Vec<ResourceProfiles>,
    #[prost(message, optional, tag = "2")]
    pub dictionary: Option<ProfilesDictionary>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
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

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceProfiles {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_profiles: Vec<ScopeProfiles>,
}

/// `opentelemetry.proto.resource.v1.Resource`.
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `opentelemetry.proto.common.v1.KeyValue`.
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `opentelemetry.proto.common.v1.AnyValue` (the kinds written here).
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 3")]
    #[serde(flatten)]
    pub value: Option<Value>,
}

#[derive(Clone, PartialEq, prost::Oneof, Serialize)]
pub enum Value {
    #[prost(string, tag = "1")]
    #[serde(rename = "stringValue")]
    String(String),
    #[prost(int64, tag = "3")]
    #[serde(rename = "intValue", serialize_with = "int64")]
    Int(i64),
}

/// `opentelemetry.proto.common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeProfiles {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub profiles: Vec<OtlpProfile>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtlpProfile {
    #[prost(message, optional, tag = "1")]
    pub sample_type: Option<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
    #[prost(fixed64, tag = "3")]
    #[serde(serialize_with = "int64")]
    pub time_unix_nano: u64,
    #[prost(uint64, tag = "4")]
    #[serde(serialize_with = "int64")]
    pub duration_nano: u64,
    #[prost(message, optional, tag = "5")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "6")]
    #[serde(serialize_with = "int64")]
    pub period: i64,
    #[prost(int32, repeated, tag = "11")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueType {
    #[prost(int32, tag = "1")]
    pub type_strindex: i32,
    #[prost(int32, tag = "2")]
    pub unit_strindex: i32,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    #[prost(int64, repeated, tag = "4")]
    #[serde(serialize_with = "int64s")]
    pub values: Vec<i64>,
}

/// No fields written: the table's zero entry only (JavaScript frames have no mappings).
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mapping {}

/// No fields written: the table's zero entry only.
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stack {
    #[prost(int32, repeated, tag = "1")]
    pub location_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<Line>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    #[prost(int32, tag = "1")]
    pub function_index: i32,
    #[prost(int64, tag = "2")]
    #[serde(serialize_with = "int64")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    #[serde(serialize_with = "int64")]
    pub column: i64,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Function {
    #[prost(int32, tag = "1")]
    pub name_strindex: i32,
    #[prost(int32, tag = "2")]
    pub system_name_strindex: i32,
    #[prost(int32, tag = "3")]
    pub filename_strindex: i32,
    #[prost(int64, tag = "4")]
    #[serde(serialize_with = "int64")]
    pub start_line: i64,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyValueAndUnit {
    #[prost(int32, tag = "1")]
    pub key_strindex: i32,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// The protobuf JSON mapping writes 64-bit integers as decimal strings.
fn int64<S: Serializer>(v: &impl std::fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

fn int64s<S: Serializer>(v: &[i64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(i64::to_string))
}

/// What goes beside the samples.
#[derive(Clone, Debug, Default)]
pub struct OtlpOptions {
    /// The resource's `service.name`, when known.
    pub service: Option<String>,
    /// Where the profile's clock lies on the wall clock, when known: each profile's
    /// `time_unix_nano` is its thread's first sample moved by it; without it, 0 (unknown).
    pub wall_clock: Option<WallClock>,
    /// The threads' samples are per-stack sums over many profiles (a lake selection), not
    /// samples: no `samples`/`count` profile, and no `duration_nano` or `period` (both unknown).
    pub merged: bool,
}

/// One instant on both clocks: the profile's time `at` (ns, its own monotonic clock) was
/// `unix_nano` ns after the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WallClock {
    pub at: i64,
    pub unix_nano: i64,
}

impl WallClock {
    /// The wall-clock time of the profile's time `t`, in ns since the epoch (0 before it).
    pub fn unix_nano_of(self, t: i64) -> u64 {
        let ns = self.unix_nano.saturating_add(t.saturating_sub(self.at));
        u64::try_from(ns).unwrap_or(0)
    }
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
        if let Some(pid) = thread.pid() {
            attribute(&mut dict, "process.pid", Value::Int(pid as i64));
        }
        if let Some(tid) = thread.tid() {
            attribute(&mut dict, "thread.id", Value::Int(tid as i64));
            if !thread.name().is_empty() {
                attribute(
                    &mut dict,
                    "thread.name",
                    Value::String(thread.name().into()),
                );
            }
        }
        let (weight_type, period_type, duration, period) = if bytes {
            (value_type(&mut dict, "space", "bytes"), None, 0, 0)
        } else if options.merged {
            (value_type(&mut dict, "cpu", "nanoseconds"), None, 0, 0)
        } else {
            let cpu = value_type(&mut dict, "cpu", "nanoseconds");
            let duration = thread.end_time() - thread.start_time();
            let n = thread.samples.len() as i64;
            let period = if n > 0 { duration / n } else { 0 };
            (cpu.clone(), Some(cpu), duration.max(0) as u64, period)
        };
        let time_unix_nano = options
            .wall_clock
            .map_or(0, |c| c.unix_nano_of(thread.start_time()));
        let mut kinds = vec![(weight_type, weights)];
        if !options.merged {
            kinds.push((value_type(&mut dict, "samples", "count"), counts));
        }
        for (sample_type, samples) in kinds {
            profiles.push(OtlpProfile {
                sample_type: Some(sample_type),
                samples,
                time_unix_nano,
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

/// How the request is written: binary protobuf, or OTLP/JSON (the protobuf JSON mapping: field
/// names in lowerCamelCase, 64-bit integers as strings), which OTLP/HTTP also accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

/// Writes `threads` of `profile` as an `ExportProfilesServiceRequest`.
pub fn write_otlp(
    mut out: impl Write,
    profile: &Profile,
    threads: &[&Thread],
    options: &OtlpOptions,
    encoding: Encoding,
) -> io::Result<()> {
    let request = otlp_request(profile, threads, options);
    match encoding {
        Encoding::Protobuf => out.write_all(&request.encode_to_vec())?,
        Encoding::Json => serde_json::to_writer(&mut out, &request)?,
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpuprofile::read_cpuprofile;

    /// f, then the bare root, then g called by f, then f.
    const CPUPROFILE: &str = r#"{"nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1,
            "columnNumber": -1, "scriptId": "0"}, "children": [2]},
        {"id": 2, "callFrame": {"functionName": "f", "url": "http://localhost/a.js",
            "lineNumber": 0, "columnNumber": 0, "scriptId": "1"}, "children": [3]},
        {"id": 3, "callFrame": {"functionName": "g", "url": "http://localhost/a.js",
            "lineNumber": 4, "columnNumber": 2, "scriptId": "1"}}],
        "startTime": 0, "endTime": 6000, "samples": [2, 1, 3, 2],
        "timeDeltas": [1000, 2000, 1500, 1500]}"#;

    fn profile() -> Profile {
        read_cpuprofile(CPUPROFILE.as_bytes()).unwrap()
    }

    #[test]
    fn decodes_with_whole_totals_and_the_root_charged() {
        let profile = profile();
        let thread = &profile.threads[0];
        let mut bytes = Vec::new();
        let options = OtlpOptions::default();
        write_otlp(
            &mut bytes,
            &profile,
            &[thread],
            &options,
            Encoding::Protobuf,
        )
        .unwrap();
        let request = ExportProfilesServiceRequest::decode(&bytes[..]).unwrap();
        let d = request.dictionary.unwrap();
        assert_eq!(d.string_table[0], "");
        assert_eq!(d.mapping_table, [Mapping::default()]);
        assert_eq!(d.link_table, [Link::default()]);
        assert_eq!(d.stack_table[0], Stack::default());
        assert_eq!(d.location_table[0], Location::default());
        assert_eq!(d.function_table[0], Function::default());
        let scope = &request.resource_profiles[0].scope_profiles[0];
        let [weight, count] = &scope.profiles[..] else {
            panic!("two profiles for one thread")
        };
        let name = |t: &Option<ValueType>| {
            let t = t.as_ref().unwrap();
            let s = |i: i32| d.string_table[i as usize].as_str();
            (s(t.type_strindex), s(t.unit_strindex))
        };
        assert_eq!(name(&weight.sample_type), ("cpu", "nanoseconds"));
        assert_eq!(name(&count.sample_type), ("samples", "count"));
        let sum = |p: &OtlpProfile| p.samples.iter().map(|s| s.values[0]).sum::<i64>();
        assert_eq!(sum(weight), thread.weights().sum::<i64>());
        assert_eq!(sum(count), 4);
        // The bare root's sample: a stack of one location, the `(root)` function's.
        let leaf_name = |s: &Sample| {
            let stack = &d.stack_table[s.stack_index as usize];
            let location = &d.location_table[stack.location_indices[0] as usize];
            let function = &d.function_table[location.lines[0].function_index as usize];
            d.string_table[function.name_strindex as usize].as_str()
        };
        let root = weight.samples.iter().find(|s| leaf_name(s) == "(root)");
        assert_eq!(root.unwrap().values, [thread.weights().nth(1).unwrap()]);
        // g's stack is leaf first: g, then f.
        let g = weight.samples.iter().find(|s| leaf_name(s) == "g").unwrap();
        assert_eq!(
            d.stack_table[g.stack_index as usize].location_indices.len(),
            2
        );
    }

    #[test]
    fn json_uses_the_protobuf_mapping() {
        let profile = profile();
        let options = OtlpOptions {
            service: Some("shop".into()),
            ..OtlpOptions::default()
        };
        let mut out = Vec::new();
        let threads = [&profile.threads[0]];
        write_otlp(&mut out, &profile, &threads, &options, Encoding::Json).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let resource = &v["resourceProfiles"][0]["resource"]["attributes"][0];
        assert_eq!(resource["key"], "service.name");
        assert_eq!(resource["value"]["stringValue"], "shop");
        let p = &v["resourceProfiles"][0]["scopeProfiles"][0]["profiles"][0];
        assert!(
            p["samples"][0]["values"][0].is_string(),
            "int64 as a string"
        );
        assert!(p["durationNano"].is_string());
        assert_eq!(v["dictionary"]["stringTable"][0], "");
    }

    #[test]
    fn wall_clock_sets_the_start_and_merged_leaves_out_what_sums_lack() {
        let profile = profile();
        let thread = &profile.threads[0];
        let request = |options: &OtlpOptions| {
            let r = otlp_request(&profile, &[thread], options);
            r.resource_profiles[0].scope_profiles[0].profiles.clone()
        };
        // Without a wall clock: unknown (0).
        let plain = request(&OtlpOptions::default());
        assert!(plain.iter().all(|p| p.time_unix_nano == 0));
        // The profile's time 0 was at 1_700_000_000_000 ms: its first sample 1 ms later.
        let first = thread.start_time();
        let wall_clock = Some(WallClock {
            at: 0,
            unix_nano: 1_700_000_000_000_000_000,
        });
        let timed = request(&OtlpOptions {
            wall_clock,
            ..OtlpOptions::default()
        });
        assert_eq!(timed.len(), 2);
        for p in &timed {
            assert_eq!(p.time_unix_nano, 1_700_000_000_000_000_000 + first as u64);
            assert_eq!(p.duration_nano, plain[0].duration_nano);
        }
        let merged = request(&OtlpOptions {
            merged: true,
            ..OtlpOptions::default()
        });
        let [weight] = &merged[..] else {
            panic!("a merged thread has only its weight profile")
        };
        assert_eq!((weight.duration_nano, weight.period), (0, 0));
        assert_eq!(weight.period_type, None);
        assert_eq!(weight.samples, plain[0].samples);
        // Before the epoch is not a time: 0.
        let early = WallClock {
            at: 10,
            unix_nano: 5,
        };
        assert_eq!(early.unix_nano_of(0), 0);
    }
}
