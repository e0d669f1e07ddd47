//! pprof (`profile.proto`, gzipped): what `go tool pprof`, Pyroscope and many viewers read.
//!
//! Two sample types: `samples`/`count` and `wall`/`nanoseconds` (`space`/`bytes` for heap
//! profiles), the second the default. One sample per distinct stack, its locations leaf first;
//! one location per frame, one function per frame with its file and start line. Samples on the
//! bare root are charged to a `(root)` function so that the totals stay whole. The messages are
//! declared here by hand (no protoc at build time).

use std::collections::HashMap;
use std::io::{self, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use super::StackSums;
use crate::model::{FrameId, Profile, Thread, WeightUnit, ROOT_NAME};

#[derive(Clone, PartialEq, Message)]
pub struct PprofProfile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings::default();
        s.id(""); // string_table[0] must be ""
        s
    }
    fn id(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// Builds the pprof message for `thread`.
pub fn pprof_profile(profile: &Profile, thread: &Thread) -> PprofProfile {
    let bytes = thread.weight_unit() == WeightUnit::Bytes;
    let sums = StackSums::new(profile, thread);
    let mut strings = Strings::new();
    let count = ValueType {
        r#type: strings.id("samples"),
        unit: strings.id("count"),
    };
    let value = if bytes {
        ValueType {
            r#type: strings.id("space"),
            unit: strings.id("bytes"),
        }
    } else {
        ValueType {
            r#type: strings.id("wall"),
            unit: strings.id("nanoseconds"),
        }
    };
    let mut p = PprofProfile {
        sample_type: vec![count, value.clone()],
        default_sample_type: value.r#type,
        period_type: Some(value),
        ..Default::default()
    };
    // Location and function ids: frame index + 1 (pprof ids are non-zero), made on first use.
    let mut location_of: Vec<u64> = vec![0; profile.frames.len()];
    let mut location = |p: &mut PprofProfile, strings: &mut Strings, id: FrameId| -> u64 {
        let frame = id.index();
        if location_of[frame] == 0 {
            let f = profile.frames.get(id);
            let name = profile.strings.get(f.name);
            let name = strings.id(crate::display::display_name(name));
            let id = frame as u64 + 1;
            p.function.push(Function {
                id,
                name,
                system_name: name,
                filename: strings.id(profile.strings.get(f.url)),
                start_line: f.line.map_or(0, i64::from),
            });
            p.location.push(Location {
                id,
                line: vec![Line {
                    function_id: id,
                    line: f.line.map_or(0, i64::from),
                    column: f.column.map_or(0, i64::from),
                }],
            });
            location_of[frame] = id;
        }
        location_of[frame]
    };
    if sums.root_count > 0 {
        let name = strings.id(ROOT_NAME);
        let id = profile.frames.len() as u64 + 1; // after every frame's id
        p.function.push(Function {
            id,
            name,
            system_name: name,
            ..Default::default()
        });
        p.location.push(Location {
            id,
            line: vec![Line {
                function_id: id,
                ..Default::default()
            }],
        });
        p.sample.push(Sample {
            location_id: vec![id],
            value: vec![sums.root_count as i64, sums.root_weight],
        });
    }
    for s in profile.stacks.ids() {
        let i = s.index();
        if sums.count[i] == 0 {
            continue;
        }
        let location_id = profile
            .stacks
            .frames_leaf_first(Some(s))
            .map(|f| location(&mut p, &mut strings, f))
            .collect();
        p.sample.push(Sample {
            location_id,
            value: vec![sums.count[i] as i64, sums.weight[i]],
        });
    }
    if !bytes {
        let n = thread.samples.len() as i64;
        p.duration_nanos = thread.end_time() - thread.start_time();
        p.period = if n > 0 { p.duration_nanos / n } else { 0 };
    }
    p.string_table = strings.table;
    p
}

/// Writes `thread` as a gzipped `profile.proto`.
pub fn write_pprof(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    let message = pprof_profile(profile, thread);
    let mut gz = GzEncoder::new(out, Compression::default());
    gz.write_all(&message.encode_to_vec())?;
    gz.finish()?.flush()
}
