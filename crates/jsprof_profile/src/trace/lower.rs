//! Lowering a trace's profiles into the model: a chunk's sample positions, chunks' trees
//! appended into one, and one profile's nodes and samples into a [`Thread`] whose stacks are
//! shared by all profiles of the trace.

use rustc_hash::FxHashMap as HashMap;

use super::state::ProfileAcc;
use crate::model::{clamp_time, Profile, SamplePosition, StackId, Thread, WeightUnit};
use crate::node_tree::RawTree;

/// A chunk's positions from its `lines` and `columns` (`args.data`, beside `timeDeltas`), one
/// per sample; a missing array reads as zeros, as DevTools fills it. `Ok(None)` when the chunk
/// has neither; `Err((field, why))` when one is not a list of `n` numbers.
pub(super) type PositionsOf = Result<Option<Vec<SamplePosition>>, (&'static str, String)>;

pub(super) fn chunk_positions(
    n: usize,
    lines: Option<Result<Vec<u32>, String>>,
    columns: Option<Result<Vec<u32>, String>>,
) -> PositionsOf {
    if lines.is_none() && columns.is_none() {
        return Ok(None);
    }
    let check = |field: &'static str, list: Option<Result<Vec<u32>, String>>| match list {
        None => Ok(None),
        Some(Err(why)) => Err((field, why)),
        Some(Ok(v)) if v.len() != n => Err((field, format!("{} values for {n} samples", v.len()))),
        Some(Ok(v)) => Ok(Some(v)),
    };
    let lines = check("lines", lines)?;
    let columns = check("columns", columns)?;
    let at = |v: &Option<Vec<u32>>, i: usize| v.as_ref().map_or(0, |v| v[i]);
    Ok(Some(
        (0..n)
            .map(|i| SamplePosition {
                line: at(&lines, i),
                column: at(&columns, i),
            })
            .collect(),
    ))
}

pub(super) fn append_tree(dst: &mut RawTree, mut src: RawTree) {
    let child_offset = dst.children.len() as u32;
    let tick_offset = dst.ticks.len() as u32;
    for node in &mut src.nodes {
        if let Some(r) = &mut node.children {
            *r = r.start + child_offset..r.end + child_offset;
        }
        node.ticks = node.ticks.start + tick_offset..node.ticks.end + tick_offset;
    }
    dst.children.extend(src.children);
    dst.ticks.extend(src.ticks);
    dst.nodes.extend(src.nodes);
}

/// Stacks shared by all profiles of a trace: the same frame on the same parent is one stack, so
/// that the meta nodes of every thread are the same stacks.
#[derive(Default)]
pub(super) struct StackIndex {
    pub(super) stacks: HashMap<(Option<StackId>, crate::model::FrameId), StackId>,
}

/// Lowers one profile's nodes and samples into a thread (without pid/tid/name).
pub(super) fn lower_profile(
    profile: &mut Profile,
    index: &mut StackIndex,
    acc: ProfileAcc,
    at: &str,
) -> Option<(Thread, HashMap<u64, Option<StackId>>)> {
    let tree = acc.tree;
    let n = tree.nodes.len();
    if n == 0 {
        return None;
    }
    let mut by_id: HashMap<u64, usize> = HashMap::default();
    for (i, node) in tree.nodes.iter().enumerate() {
        by_id.entry(node.id).or_insert(i);
    }
    let root = 0;
    let from_parents = tree.nodes[root].children.is_none();
    let mut built: Vec<Vec<u32>> = Vec::new();
    if from_parents {
        built = vec![Vec::new(); n];
        for (i, node) in tree.nodes.iter().enumerate().skip(1) {
            if let Some(&p) = node.parent.and_then(|p| by_id.get(&p)) {
                built[p].push(i as u32);
            }
        }
    }
    let mut stack_of: HashMap<u64, Option<StackId>> = HashMap::default();
    stack_of.insert(tree.nodes[root].id, None);
    let mut visited = vec![false; n];
    visited[root] = true;
    let mut todo: Vec<(usize, Option<StackId>)> = Vec::new();
    let children = |i: usize| -> Vec<usize> {
        if from_parents {
            built[i].iter().map(|&c| c as usize).collect()
        } else if let Some(r) = tree.nodes[i].children.clone() {
            tree.children[r.start as usize..r.end as usize]
                .iter()
                .filter_map(|id| by_id.get(id).copied())
                .collect()
        } else {
            Vec::new()
        }
    };
    todo.extend(children(root).into_iter().rev().map(|c| (c, None)));
    while let Some((i, parent)) = todo.pop() {
        if visited[i] {
            continue;
        }
        visited[i] = true;
        let node = &tree.nodes[i];
        let stack = *index
            .stacks
            .entry((parent, node.frame))
            .or_insert_with(|| profile.stacks.push(parent, node.frame, node.id));
        stack_of.entry(node.id).or_insert(Some(stack));
        todo.extend(children(i).into_iter().rev().map(|c| (c, Some(stack))));
    }
    let unreachable = visited.iter().filter(|v| !**v).count();
    if unreachable > 0 {
        profile.warn(
            at,
            format!("{unreachable} nodes are not reachable from the root; skipped"),
        );
    }

    let mut thread = Thread {
        weight_unit: Some(WeightUnit::Samples),
        ..Thread::default()
    };
    let start = acc.start.unwrap_or(acc.first_ts);
    if acc.samples.len() != acc.deltas.len() {
        profile.warn(
            at,
            format!(
                "{} samples but {} timeDeltas; the extra ones were skipped",
                acc.samples.len(),
                acc.deltas.len()
            ),
        );
    }
    if let Some((path, why)) = &acc.first_bad_positions {
        let others = match acc.bad_positions {
            1 => String::new(),
            n => format!(" (and {} more chunks)", n - 1),
        };
        profile.warn(
            path,
            format!("{why}{others}; that chunk's samples have no line"),
        );
    }
    let mut time = start;
    let mut unknown = 0usize;
    for (&id, &delta) in acc.samples.iter().zip(&acc.deltas) {
        time = clamp_time(time + delta);
        match stack_of.get(&(id as u64)) {
            Some(&stack) => thread.samples.push(time, stack),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        profile.warn(at, format!("{unknown} samples name no node; skipped"));
    }
    // Only positions that DevTools counts make the thread keep them; they stay with the
    // samples kept, in place (no second column as long as the samples).
    let positions = acc.positions.filter(|p| p.iter().any(|p| p.is_some()));
    thread.sample_positions = positions.map(|mut p| {
        p.truncate(acc.samples.len().min(acc.deltas.len()));
        if unknown > 0 {
            let mut ids = acc.samples.iter();
            p.retain(|_| {
                ids.next()
                    .is_some_and(|id| stack_of.contains_key(&(*id as u64)))
            });
        }
        p
    });
    thread.declared_start = Some(start);
    thread.declared_end = Some(acc.end.unwrap_or(time));
    let trace_ids = acc
        .trace_ids
        .iter()
        .filter_map(|&(trace, node)| stack_of.get(&node).map(|&stack| (trace, stack)))
        .collect();
    Some((thread, trace_ids))
}

#[cfg(test)]
mod tests {
    use crate::read_trace;

    fn trace(chunks: &[&str]) -> String {
        let mut events = vec![
            r#"{"name":"Profile","ph":"P","pid":1,"tid":1,"id":"0x1","ts":0,"args":{"data":{}}}"#
                .to_string(),
        ];
        for (i, data) in chunks.iter().enumerate() {
            let nodes = if i == 0 {
                r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":""}},{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":3,"url":"a.js","lineNumber":0,"columnNumber":0}}"#
            } else {
                ""
            };
            events.push(format!(
                r#"{{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"id":"0x1","ts":{i},"args":{{"data":{{"cpuProfile":{{"nodes":[{nodes}],"samples":[2,2]}},"timeDeltas":[10,10]{data}}}}}}}"#
            ));
        }
        format!("[{}]", events.join(","))
    }

    fn positions(text: &str) -> Option<Vec<(u32, u32)>> {
        let t = read_trace(text.as_bytes()).unwrap();
        t.profile.threads[0]
            .sample_positions()
            .map(|p| p.iter().map(|p| (p.line, p.column)).collect())
    }

    #[test]
    fn positions_line_up_with_the_samples_across_chunks() {
        // The first chunk has none: its samples get none, the later ones theirs.
        let text = trace(&["", r#","lines":[4,5],"columns":[2,0]"#, ""]);
        assert_eq!(
            positions(&text),
            Some(vec![(0, 0), (0, 0), (4, 2), (5, 0), (0, 0), (0, 0)])
        );
    }

    #[test]
    fn a_sample_naming_no_node_takes_its_position_along() {
        let text = trace(&[
            r#","lines":[4,5],"columns":[1,1]"#,
            r#","lines":[6,7],"columns":[1,1]"#,
        ])
        .replacen("\"samples\":[2,2]", "\"samples\":[2,9]", 1);
        // Sample 9 is skipped, and line 5 with it.
        assert_eq!(positions(&text), Some(vec![(4, 1), (6, 1), (7, 1)]));
    }

    #[test]
    fn no_positions_cost_nothing() {
        assert_eq!(positions(&trace(&["", ""])), None);
        // Lines without columns: DevTools counts none of them.
        assert_eq!(positions(&trace(&[r#","lines":[4,5]"#])), None);
    }

    #[test]
    fn bad_positions_are_a_warning() {
        let text = trace(&[
            r#","lines":[4,5,6],"columns":"x""#,
            r#","lines":[7,8],"columns":[1,1]"#,
        ]);
        let t = read_trace(text.as_bytes()).unwrap();
        assert_eq!(positions(&text), Some(vec![(0, 0), (0, 0), (7, 1), (8, 1)]));
        let w = &t.profile.warnings[0];
        assert_eq!(w.at, "traceEvents[1].args.data.lines");
        assert!(
            w.message.contains("3 values for 2 samples"),
            "{}",
            w.message
        );
    }
}
