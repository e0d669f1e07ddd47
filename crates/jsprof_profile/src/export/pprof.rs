//! pprof (`profile.proto`, gzipped): what `go tool pprof`, Pyroscope and many viewers read.
//!
//! Two sample types: `samples`/`count` and `wall`/`nanoseconds` (`space`/`bytes` for heap
//! profiles), the second the default; a merged profile (a lake selection, its samples sums per
//! stack) has the second only, and no duration or period. One sample per distinct stack, its locations leaf first;
//! one location per frame, one function per frame with its file and start line. Samples on the
//! bare root are charged to a `(root)` function so that the totals stay whole. The messages are
//! declared here by hand (no protoc at build time).

use std::io::{self, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use prost::Message;

use super::dictionary::Dictionary;
use super::StackSums;
use crate::model::{Profile, Thread, WeightUnit};

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

/// Builds the pprof message for `thread`; `merged`: its samples are per-stack sums over many
/// profiles, which have no sample count, duration or period.
pub fn pprof_profile(profile: &Profile, thread: &Thread, merged: bool) -> PprofProfile {
    let bytes = thread.weight_unit() == WeightUnit::Bytes;
    let sums = StackSums::new(profile, thread);
    let mut dict = Dictionary::new(profile);
    let count = ValueType {
        r#type: dict.string("samples"),
        unit: dict.string("count"),
    };
    let value = if bytes {
        ValueType {
            r#type: dict.string("space"),
            unit: dict.string("bytes"),
        }
    } else {
        ValueType {
            r#type: dict.string("wall"),
            unit: dict.string("nanoseconds"),
        }
    };
    let mut p = PprofProfile {
        sample_type: if merged {
            vec![value.clone()]
        } else {
            vec![count, value.clone()]
        },
        default_sample_type: value.r#type,
        period_type: Some(value),
        ..Default::default()
    };
    let mut samples = Vec::new();
    for (stack, count, weight) in sums.sampled() {
        samples.push((dict.stack(stack), count, weight));
    }
    // Location and function ids: frame index + 1 (pprof ids are non-zero), the root's after
    // every frame's.
    let ids: Vec<u64> = dict
        .entries()
        .iter()
        .map(|e| e.frame.map_or(profile.frames.len(), |f| f.index()) as u64 + 1)
        .collect();
    for (e, &id) in dict.entries().iter().zip(&ids) {
        p.function.push(Function {
            id,
            name: e.name,
            system_name: e.name,
            filename: e.filename,
            start_line: e.line,
        });
        p.location.push(Location {
            id,
            line: vec![Line {
                function_id: id,
                line: e.line,
                column: e.column,
            }],
        });
    }
    p.sample = samples
        .into_iter()
        .map(|(entries, count, weight)| Sample {
            location_id: entries.iter().map(|&e| ids[e as usize - 1]).collect(),
            value: if merged {
                vec![weight]
            } else {
                vec![count as i64, weight]
            },
        })
        .collect();
    if !bytes && !merged {
        let n = thread.samples.len() as i64;
        p.duration_nanos = thread.end_time() - thread.start_time();
        p.period = if n > 0 { p.duration_nanos / n } else { 0 };
    }
    p.string_table = dict.into_strings();
    p
}

/// Writes `thread` as a gzipped `profile.proto` (`merged`: see [`pprof_profile`]).
pub fn write_pprof(
    out: impl Write,
    profile: &Profile,
    thread: &Thread,
    merged: bool,
) -> io::Result<()> {
    let message = pprof_profile(profile, thread, merged);
    let mut gz = GzEncoder::new(out, Compression::default());
    gz.write_all(&message.encode_to_vec())?;
    gz.finish()?.flush()
}
