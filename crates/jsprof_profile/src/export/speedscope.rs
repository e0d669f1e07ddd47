//! speedscope's file format (<https://www.speedscope.app/file-format-schema.json>): shared
//! frames, one `sampled` profile per thread, each sample a root-first list of frame indices with
//! its weight (nanoseconds, or bytes for heap profiles). Samples keep their time order, so
//! speedscope's "Time Order" view is the timeline.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::{Profile, Thread, WeightUnit};

pub const SCHEMA_URL: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Serialize)]
struct FrameOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    col: Option<u32>,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<FrameOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SampledOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    unit: &'static str,
    start_value: i64,
    end_value: i64,
    samples: Vec<Vec<u32>>,
    weights: Vec<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileOut<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    shared: Shared<'a>,
    profiles: Vec<SampledOut<'a>>,
    name: &'a str,
    active_profile_index: u32,
    exporter: String,
}

/// Writes `threads` of `profile` as one speedscope file called `name`, `threads[active]` the
/// one speedscope opens on.
pub fn write_speedscope(
    out: impl Write,
    profile: &Profile,
    threads: &[&Thread],
    active: usize,
    name: &str,
) -> io::Result<()> {
    let frames = profile
        .frames
        .iter()
        .map(|(_, f)| {
            let name = profile.strings.get(f.name);
            let url = profile.strings.get(f.url);
            FrameOut {
                name: crate::display::display_name(name),
                file: (!url.is_empty()).then_some(url),
                line: f.line,
                col: f.column,
            }
        })
        .collect();
    let profiles = threads
        .iter()
        .map(|thread| {
            let bytes = thread.weight_unit() == WeightUnit::Bytes;
            let weights: Vec<i64> = thread.weights().collect();
            let samples = thread
                .samples
                .stack
                .iter()
                .map(|&s| {
                    let mut stack: Vec<u32> = profile
                        .stacks
                        .frames_leaf_first(s)
                        .map(|f| f.index() as u32)
                        .collect();
                    stack.reverse();
                    stack
                })
                .collect();
            let (start, end) = if bytes {
                (0, weights.iter().sum())
            } else {
                (thread.start_time(), thread.end_time())
            };
            SampledOut {
                kind: "sampled",
                name: &thread.name,
                unit: if bytes { "bytes" } else { "nanoseconds" },
                start_value: start,
                end_value: end.max(start),
                samples,
                weights,
            }
        })
        .collect();
    let doc = FileOut {
        schema: SCHEMA_URL,
        shared: Shared { frames },
        profiles,
        name,
        active_profile_index: active.min(threads.len().saturating_sub(1)) as u32,
        exporter: format!("jsprof {}", env!("CARGO_PKG_VERSION")),
    };
    let mut out = io::BufWriter::new(out);
    serde_json::to_writer(&mut out, &doc)?;
    out.write_all(b"\n")?;
    out.flush()
}
