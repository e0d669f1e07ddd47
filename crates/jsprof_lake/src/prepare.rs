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

/// A stack of the dictionary: a node of the prefix tree, by its parent. Only stacks that were
/// sampled, and their ancestors, are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackRow {
    pub stack_id: u64,
    pub parent_id: Option<u64>,
    pub function_id: u64,
    pub depth: i32,
}

/// One function's weights in one profile (a `profile_functions` row).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionWeights {
    pub function_id: u64,
    /// Weight and samples of the stacks it tops.
    pub self_weight: i64,
    pub self_samples: i64,
    /// Weight and samples of the stacks it is on, each counted once however often the function
    /// recurses on it (DevTools' rule).
    pub total_weight: i64,
    pub total_samples: i64,
}

/// How a [`climb`] from a stack towards the root ended.
pub(crate) enum Climb<K> {
    /// At a stack `known` answers for, with its answer.
    Known(K),
    /// Past the root.
    Root,
    /// At a stack the dictionary does not hold.
    Missing(u64),
    /// At this stack, with more climbed than the dictionary holds: the parents form a loop.
    Loop(u64),
}

/// Climbs the stack dictionary (`row` of a stack, its `parent`; `size` stacks) from stack
/// `from` towards the root until a stack `known` answers for, pushing each stack passed (id and
/// row) on `path`, nearest first: the walk behind a profile's function weights and a trend's
/// stacks that hold a function, each answering a stack once.
pub(crate) fn climb<R: Copy, K>(
    from: u64,
    path: &mut Vec<(u64, R)>,
    known: impl Fn(u64) -> Option<K>,
    row: impl Fn(u64) -> Option<R>,
    parent: impl Fn(&R) -> Option<u64>,
    size: usize,
) -> Climb<K> {
    path.clear();
    let mut cur = Some(from);
    while let Some(id) = cur {
        if let Some(answer) = known(id) {
            return Climb::Known(answer);
        }
        let Some(r) = row(id) else {
            return Climb::Missing(id);
        };
        if path.len() > size {
            return Climb::Loop(id);
        }
        path.push((id, r));
        cur = parent(&r);
    }
    Climb::Root
}

/// Each function's self and total weight in one profile, from its samples (stack id, weight,
/// samples) and the stack dictionary, in time and memory linear in the stacks involved: a
/// function's total is the sum, over the stacks where it occurs with no occurrence above, of
/// the weight sampled in their subtrees. Stack 0 (the bare root) is in no function. `Err`
/// names a stack that is not in `stacks` or whose parents loop. Rows are sorted by function id;
/// every function on a sampled stack has one, weight 0 included.
pub fn function_weights(
    samples: &[(u64, i64, i64)],
    stacks: &std::collections::HashMap<u64, &StackRow>,
) -> Result<Vec<FunctionWeights>, String> {
    use std::collections::HashMap;
    // The sampled stacks and their ancestors, parents before children.
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut parent: Vec<Option<usize>> = Vec::new();
    let mut function: Vec<u64> = Vec::new();
    let mut pending: Vec<(u64, &StackRow)> = Vec::new();
    for &(sid, _, _) in samples {
        if sid == 0 || index.contains_key(&sid) {
            continue;
        }
        let climbed = climb(
            sid,
            &mut pending,
            |id| index.get(&id).copied(),
            |id| stacks.get(&id).copied(),
            |row| row.parent_id,
            stacks.len(),
        );
        let mut above = match climbed {
            Climb::Known(i) => Some(i),
            Climb::Root => None,
            Climb::Missing(id) => {
                return Err(format!("stack {id:016x} is not in the stack dictionary"))
            }
            Climb::Loop(id) => {
                return Err(format!(
                    "stack {sid:016x}: its parents form a loop (through stack {id:016x})"
                ))
            }
        };
        for (_, row) in pending.iter().rev() {
            index.insert(row.stack_id, function.len());
            parent.push(above);
            function.push(row.function_id);
            above = Some(function.len() - 1);
        }
    }
    let n = function.len();
    let mut own = vec![(0i64, 0i64); n];
    for &(sid, w, c) in samples {
        if let Some(&i) = index.get(&sid) {
            own[i].0 = own[i].0.saturating_add(w);
            own[i].1 = own[i].1.saturating_add(c);
        }
    }
    // Subtree sums: children come after their parents.
    let mut sub = own.clone();
    for i in (0..n).rev() {
        if let Some(p) = parent[i] {
            sub[p].0 = sub[p].0.saturating_add(sub[i].0);
            sub[p].1 = sub[p].1.saturating_add(sub[i].1);
        }
    }
    // Whether a node's function occurs above it: a depth-first walk keeping a count of the
    // functions on the current path.
    let mut first_child = vec![usize::MAX; n];
    let mut next_sibling = vec![usize::MAX; n];
    let mut roots = Vec::new();
    for i in (0..n).rev() {
        match parent[i] {
            Some(p) => {
                next_sibling[i] = first_child[p];
                first_child[p] = i;
            }
            None => roots.push(i),
        }
    }
    let mut outermost = vec![false; n];
    let mut on_path: HashMap<u64, u32> = HashMap::new();
    let mut walk: Vec<(usize, bool)> = roots.into_iter().map(|r| (r, false)).collect();
    while let Some((i, leaving)) = walk.pop() {
        let count = on_path.entry(function[i]).or_default();
        if leaving {
            *count -= 1;
            continue;
        }
        outermost[i] = *count == 0;
        *count += 1;
        walk.push((i, true));
        let mut c = first_child[i];
        while c != usize::MAX {
            walk.push((c, false));
            c = next_sibling[c];
        }
    }
    let mut out: HashMap<u64, FunctionWeights> = HashMap::new();
    for i in 0..n {
        let f = out.entry(function[i]).or_insert_with(|| FunctionWeights {
            function_id: function[i],
            ..FunctionWeights::default()
        });
        f.self_weight = f.self_weight.saturating_add(own[i].0);
        f.self_samples = f.self_samples.saturating_add(own[i].1);
        if outermost[i] {
            f.total_weight = f.total_weight.saturating_add(sub[i].0);
            f.total_samples = f.total_samples.saturating_add(sub[i].1);
        }
    }
    let mut rows: Vec<FunctionWeights> = out.into_values().collect();
    rows.sort_unstable_by_key(|f| f.function_id);
    Ok(rows)
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
    /// A page-load trace's metrics (`page_metrics`): its first navigation's Web Vitals, long
    /// tasks and requests as `jsprof insights DIR` reads each run
    /// (`jsprof_document::page_runs::run_values`); empty for anything else.
    pub page_metrics: Vec<(String, f64)>,
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
    let too_big = || LakeError::TooLarge {
        name: name.to_string(),
        limit: max,
    };
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
        page_metrics: Vec::new(),
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
        out.page_metrics = page_metrics(name, &loaded, &mut out.warnings);
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
/// A trace's page-load metrics, when it records a navigation: the insights document's, so a
/// run's rows in the lake equal its row in `jsprof insights DIR`.
fn page_metrics(
    name: &str,
    loaded: &jsprof_document::load::CpuInput,
    warnings: &mut Vec<String>,
) -> Vec<(String, f64)> {
    match jsprof_document::page::insights_report(loaded) {
        Ok(report) if jsprof_document::page_runs::is_page_load(&report) => {
            jsprof_document::page_runs::run_values(&report)
                .into_iter()
                .collect()
        }
        Ok(_) => Vec::new(),
        Err(e) => {
            warnings.push(format!("{name}: page-load metrics not read: {e}"));
            Vec::new()
        }
    }
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
    // Lake ids of every stack (parents precede children in the profile's table), then only the
    // sampled ones and their ancestors enter the dictionary: a stack no sample ends on costs
    // nothing, and a row is an id, a parent, a function and a depth — linear in the input.
    let n = profile.stacks.len();
    let mut stack_ids: Vec<u64> = Vec::with_capacity(n);
    let mut depths: Vec<i32> = Vec::with_capacity(n);
    for s in profile.stacks.ids() {
        let fid = frame_ids[profile.stacks.frame(s).index()];
        let parent = profile.stacks.parent(s).map(|p| p.index());
        stack_ids.push(stack_id(parent.map(|p| stack_ids[p]), fid));
        depths.push(parent.map_or(0, |p| depths[p].saturating_add(1)));
    }
    let mut used = vec![false; n];
    for s in thread.samples().stack().iter().flatten() {
        used[s.index()] = true;
    }
    for s in profile.stacks.ids().collect::<Vec<_>>().into_iter().rev() {
        if used[s.index()] {
            if let Some(p) = profile.stacks.parent(s) {
                used[p.index()] = true;
            }
        }
    }
    for s in profile.stacks.ids() {
        let i = s.index();
        if !used[i] || dict.stack_seen.contains_key(&stack_ids[i]) {
            continue;
        }
        dict.stack_seen.insert(stack_ids[i], dict.stacks.len());
        dict.stacks.push(StackRow {
            stack_id: stack_ids[i],
            parent_id: profile.stacks.parent(s).map(|p| stack_ids[p.index()]),
            function_id: frame_ids[profile.stacks.frame(s).index()],
            depth: depths[i],
        });
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

    /// Random trees with recursion: the linear walk equals the definition (per sampled stack,
    /// the distinct functions from the root).
    #[test]
    fn function_weights_equal_the_distinct_functions_of_each_sampled_stack() {
        use std::collections::{BTreeMap, BTreeSet, HashMap};
        let mut rnd = crate::tests::numbers(11);
        for round in 0..50 {
            let mut rows: Vec<StackRow> = Vec::new();
            for i in 0..(5 + rnd(200)) {
                let f = rnd(1 + round % 7 + 2);
                let pick = rnd(rows.len().max(1) as u64) as usize;
                let parent = (i > 0 && rnd(5) > 0).then(|| rows[pick].clone());
                crate::tests::push_stack(&mut rows, parent.as_ref(), f);
            }
            let mut samples: Vec<(u64, i64, i64)> = Vec::new();
            for r in &rows {
                if rnd(3) == 0 {
                    samples.push((r.stack_id, rnd(1000) as i64, 1 + rnd(3) as i64));
                }
            }
            samples.push((0, 5, 1));
            let by_id: HashMap<u64, &StackRow> = rows.iter().map(|r| (r.stack_id, r)).collect();
            let got = function_weights(&samples, &by_id).unwrap();
            let mut want: BTreeMap<u64, (i64, i64, i64, i64)> = BTreeMap::new();
            for &(sid, w, c) in &samples {
                if sid == 0 {
                    continue;
                }
                let mut on = BTreeSet::new();
                let mut cur = Some(sid);
                while let Some(id) = cur {
                    on.insert(by_id[&id].function_id);
                    cur = by_id[&id].parent_id;
                }
                let e = want.entry(by_id[&sid].function_id).or_default();
                e.0 += w;
                e.2 += c;
                for f in on {
                    let e = want.entry(f).or_default();
                    e.1 += w;
                    e.3 += c;
                }
            }
            let got: BTreeMap<u64, (i64, i64, i64, i64)> = got
                .iter()
                .map(|f| {
                    (
                        f.function_id,
                        (
                            f.self_weight,
                            f.total_weight,
                            f.self_samples,
                            f.total_samples,
                        ),
                    )
                })
                .collect();
            assert_eq!(got, want, "round {round}");
        }
    }

    /// A chain of 100,000 distinct functions, every stack sampled: one row per function, and
    /// the root's function carries every sample in its total.
    #[test]
    fn a_deep_chain_costs_one_row_per_function() {
        let n = 100_000u64;
        let mut rows = Vec::with_capacity(n as usize);
        let mut parent = None;
        for f in 1..=n {
            let id = stack_id(parent, f);
            rows.push(StackRow {
                stack_id: id,
                parent_id: parent,
                function_id: f,
                depth: f as i32 - 1,
            });
            parent = Some(id);
        }
        let samples: Vec<(u64, i64, i64)> = rows.iter().map(|r| (r.stack_id, 2, 1)).collect();
        let by_id = rows.iter().map(|r| (r.stack_id, r)).collect();
        let got = function_weights(&samples, &by_id).unwrap();
        assert_eq!(got.len(), n as usize);
        assert_eq!((got[0].function_id, got[0].total_weight), (1, 2 * n as i64));
        assert_eq!(
            (
                got[n as usize - 1].self_weight,
                got[n as usize - 1].total_weight
            ),
            (2, 2)
        );
        let missing = function_weights(&[(12345, 1, 1)], &by_id).unwrap_err();
        assert!(missing.contains("not in the stack dictionary"), "{missing}");
    }
}
