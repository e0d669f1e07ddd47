//! One input's bytes → the lake's rows: its profiles (one per thread with samples for a trace),
//! their aggregated samples, the function and stack dictionaries they use, a heap snapshot's
//! Summary classes.
//!
//! The weights are those of `jsprof top` on the same file: the input goes through
//! `jsprof_document::load` (DevTools' timing, source maps), a trace thread through the
//! Performance panel's entries. Time weights are summed per stack in nanoseconds and stored in
//! nanoseconds, as the engine counts them: the inputs record whole microseconds, but DevTools
//! gives a `.cpuprofile`'s last sample the profile's mean interval (a fraction of a µs), so only
//! the engine's own unit keeps the lake's sums equal to the per-file tables.

use std::collections::BTreeMap;
#[cfg(feature = "load")]
use std::collections::{HashMap, HashSet};
#[cfg(feature = "load")]
use std::io::Read;

#[cfg(feature = "load")]
use jsprof_analysis::FunctionKey;
#[cfg(feature = "load")]
use jsprof_document::load::{Pipeline, ViewSpec, Weighted};
#[cfg(feature = "load")]
use jsprof_document::source_maps::SourceMaps;
#[cfg(feature = "load")]
use jsprof_profile::{Format, Profile, WeightUnit};
use sha2::Digest;
use xxhash_rust::xxh3::xxh3_64;

#[cfg(feature = "load")]
use crate::{LakeError, Result};

/// How inputs are read.
#[cfg(feature = "load")]
#[derive(Clone, Debug, Default)]
pub struct PrepareOptions {
    /// Where source maps may come from (the CLI's default discovers them; the service's ingest
    /// passes `SourceMaps::off()` so that posted traces cannot make it read local files).
    pub source_maps: SourceMaps,
    /// The profile's wall-clock start (µs since the epoch, UTC) when the caller knows it and the
    /// format does not say.
    pub start_time_us: Option<i64>,
    /// Inputs larger than this (after gunzip) are refused; 0 for no limit.
    pub max_bytes: u64,
}

/// A function of the dictionary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionRow {
    pub function_id: u64,
    pub name: String,
    pub url: String,
    pub line: Option<i32>,
    pub column: Option<i32>,
}

/// A stack of the dictionary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackRow {
    pub stack_id: u64,
    pub parent_id: Option<u64>,
    pub function_id: u64,
    pub depth: i32,
    /// Distinct function ids from the root to this stack, in path order.
    pub functions: Vec<u64>,
}

/// One Summary class of a heap snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRow {
    pub class_name: String,
    pub count: i64,
    pub shallow_size: i64,
    pub retained_size: i64,
}

/// One row of `profiles` with its samples and classes.
#[derive(Clone, Debug)]
pub struct PreparedProfile {
    pub profile_id: String,
    pub kind: &'static str,
    pub thread: Option<String>,
    pub start_time_us: Option<i64>,
    pub duration_us: f64,
    pub sample_interval_us: Option<f64>,
    pub sample_count: i64,
    /// `us` or `bytes`.
    pub weight_unit: &'static str,
    /// (stack_id, self_weight, sample_count); stack 0 is the bare root (samples with nothing
    /// on the stack), which counts in the total but in no function.
    pub samples: Vec<(u64, i64, i64)>,
    pub classes: Vec<ClassRow>,
}

/// Everything one input adds.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub source_name: String,
    pub source_hash: String,
    pub labels: BTreeMap<String, String>,
    pub profiles: Vec<PreparedProfile>,
    pub functions: Vec<FunctionRow>,
    pub stacks: Vec<StackRow>,
    /// Notes for the user (threads without samples skipped, the loader's warnings).
    pub warnings: Vec<String>,
}

/// xxh3-64 of a function, as documented: `name \0 url \0 line \0 column`, numbers in decimal,
/// empty when unknown.
pub fn function_id(name: &str, url: &str, line: Option<u32>, column: Option<u32>) -> u64 {
    let num = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
    let text = format!("{name}\0{url}\0{}\0{}", num(line), num(column));
    xxh3_64(text.as_bytes())
}

/// xxh3-64 of a stack: its parent's id (0 for a root) and its function's id, 8 bytes LE each.
pub fn stack_id(parent: Option<u64>, function: u64) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&parent.unwrap_or(0).to_le_bytes());
    bytes[8..].copy_from_slice(&function.to_le_bytes());
    xxh3_64(&bytes)
}

/// Hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(feature = "load")]
/// The bytes, gunzipped when they are gzip, at most `max` (0: unbounded).
fn gunzip(name: &str, bytes: Vec<u8>, max: u64) -> Result<Vec<u8>> {
    let too_big = || LakeError::Input(format!("{name}: larger than the limit of {max} bytes"));
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let decoder = flate2::read::MultiGzDecoder::new(&bytes[..]);
        let limit = if max == 0 { u64::MAX } else { max + 1 };
        decoder
            .take(limit)
            .read_to_end(&mut out)
            .map_err(|e| LakeError::Input(format!("{name}: not valid gzip: {e}")))?;
        if max > 0 && out.len() as u64 > max {
            return Err(too_big());
        }
        return Ok(out);
    }
    if max > 0 && bytes.len() as u64 > max {
        return Err(too_big());
    }
    Ok(bytes)
}

#[cfg(feature = "load")]
/// Reads one input. `labels` are the user's; `source` is added when absent (`cli`, `ingest`: how
/// the profile came in).
pub fn prepare(
    name: &str,
    bytes: Vec<u8>,
    labels: &BTreeMap<String, String>,
    source: &str,
    options: &PrepareOptions,
) -> Result<Prepared> {
    let bytes = gunzip(name, bytes, options.max_bytes)?;
    let source_hash = sha256_hex(&bytes);
    let mut labels = labels.clone();
    labels
        .entry("source".to_string())
        .or_insert_with(|| source.to_string());
    let mut out = Prepared {
        source_name: name.to_string(),
        source_hash,
        labels,
        profiles: Vec::new(),
        functions: Vec::new(),
        stacks: Vec::new(),
        warnings: Vec::new(),
    };
    let format =
        jsprof_document::load::detect(name, &bytes).map_err(|e| LakeError::Input(e.to_string()))?;
    if format == Format::HeapSnapshot {
        prepare_snapshot(name, &bytes, options, &mut out)?;
        return Ok(out);
    }
    let pipeline = Pipeline {
        source_maps: options.source_maps.clone(),
        ..Pipeline::default()
    };
    let loaded = jsprof_document::load::read_cpu(name.to_string(), bytes, &pipeline)
        .map_err(|e| LakeError::Input(e.to_string()))?;
    for w in loaded.warnings() {
        out.warnings
            .push(format!("{name}: {}: {}", w.at, w.message));
    }
    let mut dict = Dictionaries::default();
    let prefix = out.source_hash[..16].to_string();
    let id_of = |thread: usize| format!("{prefix}-{thread}");
    if loaded.is_trace() {
        // One profile per thread with samples, each weighed as `jsprof top --thread ID` does:
        // the Performance panel's entries of that thread.
        let threads: Vec<(u32, String, usize)> = loaded
            .timelines()
            .iter()
            .map(|t| (t.id, t.name.clone(), t.samples))
            .collect();
        for (id, thread_name, samples) in threads {
            if samples == 0 {
                continue;
            }
            let spec = ViewSpec {
                thread: Some(id.to_string()),
                ..ViewSpec::default()
            };
            let weighted = loaded
                .weighted(&spec)
                .map_err(|e| LakeError::Input(e.to_string()))?;
            let mut p = profile_rows(&weighted, &mut dict, id_of(id as usize - 1), "trace");
            p.thread = Some(thread_name);
            p.start_time_us = options.start_time_us;
            out.profiles.push(p);
        }
        if out.profiles.is_empty() {
            out.warnings
                .push(format!("{name}: no thread has CPU samples; nothing added"));
        }
    } else {
        let weighted = loaded
            .weighted(&ViewSpec::default())
            .map_err(|e| LakeError::Input(e.to_string()))?;
        let kind = weighted.profile.kind.as_str();
        let mut p = profile_rows(&weighted, &mut dict, id_of(0), kind);
        p.start_time_us = options.start_time_us;
        out.profiles.push(p);
    }
    out.functions = dict.functions;
    out.stacks = dict.stacks;
    Ok(out)
}

#[cfg(feature = "load")]
fn prepare_snapshot(
    name: &str,
    bytes: &[u8],
    options: &PrepareOptions,
    out: &mut Prepared,
) -> Result<()> {
    let mut snapshot =
        jsprof_heap::read_snapshot(bytes).map_err(|e| LakeError::Input(format!("{name}: {e}")))?;
    let analysis = jsprof_heap::analyze(&mut snapshot);
    for w in &snapshot.warnings {
        out.warnings
            .push(format!("{name}: {}: {}", w.at, w.message));
    }
    let rows = jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained);
    let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    out.profiles.push(PreparedProfile {
        profile_id: format!("{}-0", &out.source_hash[..16]),
        kind: "heapsnapshot",
        thread: None,
        start_time_us: options.start_time_us,
        duration_us: 0.0,
        sample_interval_us: None,
        sample_count: 0,
        weight_unit: "bytes",
        samples: Vec::new(),
        classes: rows
            .into_iter()
            .map(|r| ClassRow {
                class_name: r.name,
                count: clamp(r.count),
                shallow_size: clamp(r.self_size),
                retained_size: clamp(r.retained_size),
            })
            .collect(),
    });
    Ok(())
}

#[cfg(feature = "load")]
/// The functions and stacks one input uses, each once.
#[derive(Default)]
struct Dictionaries {
    functions: Vec<FunctionRow>,
    stacks: Vec<StackRow>,
    function_seen: HashSet<u64>,
    stack_seen: HashMap<u64, usize>,
}

#[cfg(feature = "load")]
/// The profile row and its samples from one weighted thread.
fn profile_rows(
    weighted: &Weighted,
    dict: &mut Dictionaries,
    profile_id: String,
    kind: &'static str,
) -> PreparedProfile {
    let profile: &Profile = &weighted.profile;
    let thread = weighted.thread();
    let unit = thread.weight_unit();
    // Lake ids of the profile's frames and stacks; parents precede children in the table.
    let frame_ids: Vec<u64> = profile
        .frames
        .iter()
        .map(|(id, _)| {
            let key = FunctionKey::of(profile, id);
            let name = profile.strings.get(key.name);
            let url = profile.strings.get(key.url);
            let fid = function_id(name, url, key.line, key.column);
            if dict.function_seen.insert(fid) {
                let to_i32 = |v: Option<u32>| v.map(|v| i32::try_from(v).unwrap_or(i32::MAX));
                dict.functions.push(FunctionRow {
                    function_id: fid,
                    name: name.to_string(),
                    url: url.to_string(),
                    line: to_i32(key.line),
                    column: to_i32(key.column),
                });
            }
            fid
        })
        .collect();
    let n = profile.stacks.len();
    let mut stack_ids: Vec<u64> = Vec::with_capacity(n);
    for s in profile.stacks.ids() {
        let fid = frame_ids[profile.stacks.frame(s).index()];
        let parent = profile.stacks.parent(s).map(|p| stack_ids[p.index()]);
        let sid = stack_id(parent, fid);
        if !dict.stack_seen.contains_key(&sid) {
            let (depth, mut functions) = match parent {
                Some(p) => {
                    let row = &dict.stacks[dict.stack_seen[&p]];
                    (row.depth + 1, row.functions.clone())
                }
                None => (0, Vec::new()),
            };
            if !functions.contains(&fid) {
                functions.push(fid);
            }
            dict.stack_seen.insert(sid, dict.stacks.len());
            dict.stacks.push(StackRow {
                stack_id: sid,
                parent_id: parent,
                function_id: fid,
                depth,
                functions,
            });
        }
        stack_ids.push(sid);
    }
    // Per lake stack: weight (ns or bytes) and samples; several frames of one function (other
    // script ids) make one lake stack.
    let mut sums: HashMap<u64, (i64, i64)> = HashMap::new();
    let mut count = 0i64;
    for (stack, weight) in thread.samples().stack().iter().zip(thread.weights()) {
        let sid = stack.map_or(0, |s| stack_ids[s.index()]);
        let e = sums.entry(sid).or_default();
        e.0 += weight;
        e.1 += 1;
        count += 1;
    }
    let bytes = unit == WeightUnit::Bytes;
    let mut samples: Vec<(u64, i64, i64)> =
        sums.into_iter().map(|(sid, (w, c))| (sid, w, c)).collect();
    samples.sort_unstable();
    let base = thread.percent_base();
    let duration_us = if bytes { 0.0 } else { base as f64 / 1000.0 };
    let timed = !bytes && thread.samples().explicit_weights().is_none();
    PreparedProfile {
        profile_id,
        kind,
        thread: None,
        start_time_us: None,
        duration_us,
        sample_interval_us: (timed && count > 0).then(|| duration_us / count as f64),
        sample_count: count,
        weight_unit: if bytes { "bytes" } else { "ns" },
        samples,
        classes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_documented_encoding() {
        // The encoding is the contract with other engines: pin it against xxh3 of literal bytes.
        assert_eq!(
            function_id("f", "u.js", Some(3), None),
            xxh3_64(b"f\0u.js\x003\0")
        );
        let mut bytes = [0u8; 16];
        bytes[8] = 7;
        assert_eq!(stack_id(None, 7), xxh3_64(&bytes));
        assert_ne!(stack_id(Some(1), 7), stack_id(None, 7));
    }
}
