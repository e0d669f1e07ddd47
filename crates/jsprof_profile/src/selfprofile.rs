//! JS Self-Profiling API traces (`ProfilerTrace`: `frames`, `resources`, `stacks`, `samples`).
//!
//! Read as the reference conversion does (`tools/oracle/selfprofile-to-cpuprofile.py`): each
//! stack entry is a node, a sample without `stackId` is an `(idle)` sample, timestamps (ms) are
//! rounded to whole microseconds, positions are already 1-based.

use std::io::Read;

use serde::Deserialize;

use crate::error::ReadError;
use crate::json::{self, seed_visitor, Float, JsonPath, Keys, Source};
use crate::model::{clamp_time, Profile, ProfileKind, StackId, Thread, WeightUnit, IDLE_NAME};

#[derive(Default)]
struct TraceIn {
    frames: Vec<FrameIn>,
    resources: Vec<Option<String>>,
    stacks: Vec<StackIn>,
    samples: Vec<SampleIn>,
    keys: Keys,
}

#[derive(Clone, Copy, Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopField {
    Frames,
    Resources,
    Stacks,
    Samples,
    #[serde(other)]
    Other,
}

impl TopField {
    /// The key as written; `None` for the keys not read.
    fn key(self) -> Option<&'static str> {
        Some(match self {
            TopField::Frames => "frames",
            TopField::Resources => "resources",
            TopField::Stacks => "stacks",
            TopField::Samples => "samples",
            TopField::Other => return None,
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameIn {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    resource_id: Option<Float>,
    #[serde(default)]
    line: Option<Float>,
    #[serde(default)]
    column: Option<Float>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StackIn {
    frame_id: Float,
    #[serde(default)]
    parent_id: Option<Float>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SampleIn {
    timestamp: Float,
    #[serde(default)]
    stack_id: Option<Float>,
}

struct TraceSeed;

seed_visitor! {
    /// The top-level object by hand rather than derived: a repeated key is read again and the last
    /// value wins (a derived struct refuses it), as in the other readers.
    TraceSeed => TraceIn, deserialize_map, "a JS Self-Profiling trace object";
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TraceIn, A::Error> {
        let mut t = TraceIn::default();
        while let Some(field) = map.next_key::<TopField>()? {
            if let Some(key) = field.key() {
                t.keys.first(key);
            }
            match field {
                TopField::Frames => t.frames = json::next_list(&mut map)?,
                TopField::Resources => t.resources = json::next_list(&mut map)?,
                TopField::Stacks => t.stacks = json::next_list(&mut map)?,
                TopField::Samples => t.samples = json::next_list(&mut map)?,
                TopField::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(t)
    }
}

fn index(f: &Float, len: usize) -> Option<usize> {
    (f.0 >= 0.0 && f.0.fract() == 0.0 && (f.0 as usize) < len).then_some(f.0 as usize)
}

fn position(f: &Option<Float>) -> Option<u32> {
    f.as_ref()
        .and_then(|f| (f.0 >= 1.0 && f.0 < u32::MAX as f64).then_some(f.0 as u32))
}

/// Reads a JS Self-Profiling trace from decompressed JSON text.
pub fn read_selfprofile<R: Read>(reader: R) -> Result<Profile, ReadError> {
    read_selfprofile_from(Source::Reader(reader))
}

/// Like [`read_selfprofile`], over text already in memory (faster).
pub fn read_selfprofile_from<R: Read>(source: Source<'_, R>) -> Result<Profile, ReadError> {
    let path = JsonPath::default();
    let (trace, trailing) = json::deserialize(source, TraceSeed, &path)?;
    let mut profile = Profile::new(ProfileKind::SelfProfile);
    json::warn_trailing(&mut profile, trailing);
    trace.keys.warn(&mut profile, "");
    let mut thread = Thread {
        name: "main".to_string(),
        weight_unit: Some(WeightUnit::Samples),
        ..Default::default()
    };

    // `(idle)` first, as the reference conversion always creates it.
    let idle_frame = profile.intern_frame(IDLE_NAME, "", None, None, "0");
    let idle = profile.stacks.push(None, idle_frame, 2);
    let mut stack_of: Vec<Option<StackId>> = vec![None; trace.stacks.len()];
    let mut bad_stacks = 0usize;

    // Stacks become nodes lazily, parents first, in order of first use (as the reference does).
    let mut next_node_id = 3u64;
    let mut resolve = |profile: &mut Profile, start: usize, bad: &mut usize| -> Option<StackId> {
        if let Some(s) = stack_of[start] {
            return Some(s);
        }
        // Walk up to the first resolved ancestor, guarding against cycles.
        let mut chain = vec![start];
        let mut on_chain = std::collections::HashSet::from([start]);
        let mut base: Option<StackId> = None;
        loop {
            let top = *chain.last()?;
            match trace.stacks[top].parent_id.as_ref() {
                None => break,
                Some(p) => match index(p, trace.stacks.len()) {
                    Some(p) if stack_of[p].is_some() => {
                        base = stack_of[p];
                        break;
                    }
                    Some(p) if !on_chain.contains(&p) => {
                        chain.push(p);
                        on_chain.insert(p);
                    }
                    _ => {
                        *bad += 1;
                        return None;
                    }
                },
            }
        }
        let mut parent = base;
        for &si in chain.iter().rev() {
            let st = &trace.stacks[si];
            let Some(fi) = index(&st.frame_id, trace.frames.len()) else {
                *bad += 1;
                return None;
            };
            let f = &trace.frames[fi];
            let rid = f
                .resource_id
                .as_ref()
                .and_then(|r| index(r, trace.resources.len()));
            let url = rid
                .and_then(|r| trace.resources[r].as_deref())
                .unwrap_or("");
            let script_id = match &f.resource_id {
                // `as` saturates a huge or fractional id; the add must not overflow past it
                // (a fuzzed resourceId of 7.8e44 did).
                Some(r) => format!("{}", (r.0 as i64).saturating_add(1)),
                None => "0".to_string(),
            };
            let frame = profile.intern_frame(
                f.name.as_deref().unwrap_or(""),
                url,
                position(&f.line),
                position(&f.column),
                &script_id,
            );
            let s = profile.stacks.push(parent, frame, next_node_id);
            next_node_id += 1;
            stack_of[si] = Some(s);
            parent = Some(s);
        }
        parent
    };

    let mut dropped = 0usize;
    for sample in &trace.samples {
        if !sample.timestamp.0.is_finite() {
            dropped += 1;
            continue;
        }
        let time = clamp_time(
            ((sample.timestamp.0 * 1000.0).round_ties_even() as i64).saturating_mul(1000),
        );
        let stack = match &sample.stack_id {
            None => Some(idle),
            Some(id) => match index(id, trace.stacks.len()) {
                Some(si) => match resolve(&mut profile, si, &mut bad_stacks) {
                    Some(s) => Some(s),
                    None => {
                        dropped += 1;
                        continue;
                    }
                },
                None => {
                    dropped += 1;
                    continue;
                }
            },
        };
        thread.samples.push(time, stack);
    }
    if bad_stacks > 0 {
        profile.warn(
            "stacks",
            format!("{bad_stacks} stacks name a missing frame or parent, or form a cycle"),
        );
    }
    if dropped > 0 {
        profile.warn(
            "samples",
            format!("{dropped} samples with an unknown stackId or timestamp were dropped"),
        );
    }
    thread.declared_start = thread.samples.time.first().copied();
    thread.declared_end = thread.samples.time.last().copied();
    profile.threads.push(thread);
    json::warn_clamped(&mut profile, "samples", []);
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `selfprofile` fuzz target: a resource id past `i64` overflowed the script id.
    #[test]
    fn a_huge_resource_id_is_read_not_a_panic() {
        let text = r#"{"frames": [{"name": "f", "line": 1, "column": 1,
            "resourceId": 777777777777777777777777777777777777777777770}],
            "resources": ["http://localhost/a.js"],
            "samples": [{"stackId": 0, "timestamp": 1.0}, {"stackId": 0, "timestamp": 2.0}],
            "stacks": [{"frameId": 0}]}"#;
        let profile = read_selfprofile(text.as_bytes()).expect("reads");
        assert_eq!(profile.threads.len(), 1);
    }
}
