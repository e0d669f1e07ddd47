//! `.cpuprofile` (CDP `Profiler.Profile`, modern `nodes` form): the file DevTools' Performance
//! panel and VS Code open. A timed thread is written with its samples and times as they are
//! after DevTools' timing rules (sorted, `(program)` patched, GC on its stack), which DevTools
//! reading the file again leaves as they are, so the numbers survive the round trip.
//! The one exception: `(garbage collector)` samples go back onto the root's GC node, where V8
//! puts them, because DevTools moves them onto the running stack itself when it reads the file
//! (and judges its `(program)` patch by them being GC samples).
//! A byte-weighted thread (a sampling heap profile) is written as a `.heapprofile`, the file
//! DevTools' Memory panel opens for it.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use super::{stack_children, StackSums};
use crate::model::{Profile, StackId, Thread, WeightUnit, GC_NAME};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallFrameOut<'a> {
    function_name: &'a str,
    script_id: &'a str,
    url: &'a str,
    line_number: i64,
    column_number: i64,
}

#[derive(Serialize)]
struct TickOut {
    line: u32,
    ticks: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeOut<'a> {
    id: u64,
    call_frame: CallFrameOut<'a>,
    hit_count: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    position_ticks: Vec<TickOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deopt_reason: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProfileOut<'a> {
    nodes: Vec<NodeOut<'a>>,
    start_time: Value,
    end_time: Value,
    samples: Vec<u64>,
    time_deltas: Vec<Value>,
}

const ROOT_FRAME: CallFrameOut<'static> = CallFrameOut {
    function_name: "(root)",
    script_id: "0",
    url: "",
    line_number: -1,
    column_number: -1,
};

/// Microseconds as JSON: an integer when whole, else a fraction.
fn micros(ns: i64) -> Value {
    if ns % 1000 == 0 {
        Value::from(ns / 1000)
    } else {
        Value::from(ns as f64 / 1000.0)
    }
}

/// Node ids: the input's own when they are usable (distinct, not 0), fresh ones otherwise; the
/// root takes 1 when free.
fn node_ids(profile: &Profile) -> (u64, Vec<u64>) {
    let ids: Vec<u64> = profile
        .stacks
        .ids()
        .map(|s| profile.stacks.node_id(s))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    let distinct = sorted.windows(2).all(|w| w[0] != w[1]) && sorted.first() != Some(&0);
    if distinct {
        let root = if sorted.binary_search(&1).is_err() {
            1
        } else {
            sorted.last().copied().unwrap_or(0) + 1
        };
        (root, ids)
    } else {
        (1, (0..ids.len() as u64).map(|i| i + 2).collect())
    }
}

fn call_frame<'a>(profile: &'a Profile, s: StackId) -> CallFrameOut<'a> {
    let f = profile.frames.get(profile.stacks.frame(s));
    let script_id = profile.strings.get(f.script_id);
    CallFrameOut {
        function_name: profile.strings.get(f.name),
        script_id: if script_id.is_empty() { "0" } else { script_id },
        url: profile.strings.get(f.url),
        line_number: f.line.map_or(-1, |l| l as i64 - 1),
        column_number: f.column.map_or(-1, |c| c as i64 - 1),
    }
}

/// Writes `thread` as a `.cpuprofile` (or a `.heapprofile` when it weighs bytes).
pub fn write_cpuprofile(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    if thread.weight_unit() == WeightUnit::Bytes {
        return write_heapprofile(out, profile, thread);
    }
    let (root_id, ids) = node_ids(profile);
    let (mut children, mut roots) = stack_children(profile);
    let (samples_on, mut folded) = unstack_gc(profile, thread, &children);
    let mut hits = vec![0u64; profile.stacks.len()];
    let mut root_hits = 0;
    for s in &samples_on {
        match s {
            Some(s) => hits[s.index()] += 1,
            None => root_hits += 1,
        }
    }
    if profile.threads.len() > 1 {
        // Threads share one stack table; leave out the stacks only other threads use.
        let mut used = hits.iter().map(|&h| h > 0).collect::<Vec<_>>();
        for s in profile.stacks.ids().rev() {
            if let Some(p) = profile.stacks.parent(s) {
                used[p.index()] |= used[s.index()];
            }
        }
        for (f, u) in folded.iter_mut().zip(used) {
            *f |= !u;
        }
    }
    for kids in &mut children {
        kids.retain(|&c| !folded[c as usize]);
    }
    roots.retain(|&r| !folded[r as usize]);
    let mut ticks: Vec<Vec<TickOut>> = Vec::new();
    if !thread.position_ticks.is_empty() {
        ticks.resize_with(profile.stacks.len(), Vec::new);
        for &(s, line, n) in &thread.position_ticks {
            ticks[s.index()].push(TickOut { line, ticks: n });
        }
    }
    let mut deopt: Vec<Option<&str>> = vec![None; profile.stacks.len()];
    for &(s, reason) in &thread.deopt_reasons {
        deopt[s.index()] = Some(profile.strings.get(reason));
    }
    let mut nodes = Vec::with_capacity(profile.stacks.len() + 1);
    nodes.push(NodeOut {
        id: root_id,
        call_frame: ROOT_FRAME,
        hit_count: root_hits,
        children: roots.iter().map(|&r| ids[r as usize]).collect(),
        position_ticks: Vec::new(),
        deopt_reason: None,
    });
    for s in profile.stacks.ids() {
        let i = s.index();
        if folded[i] {
            continue;
        }
        nodes.push(NodeOut {
            id: ids[i],
            call_frame: call_frame(profile, s),
            hit_count: hits[i],
            children: children[i].iter().map(|&c| ids[c as usize]).collect(),
            position_ticks: ticks.get_mut(i).map(std::mem::take).unwrap_or_default(),
            deopt_reason: deopt[i],
        });
    }
    // In id order, as V8 writes them (our stack table may order them otherwise).
    nodes.sort_by_key(|n| n.id);
    let times = &thread.samples.time;
    let start = times
        .first()
        .copied()
        .unwrap_or_else(|| thread.start_time());
    let mut prev = start;
    let time_deltas = times
        .iter()
        .map(|&t| {
            let d = micros(t - prev);
            prev = t;
            d
        })
        .collect();
    let samples = samples_on
        .iter()
        .map(|s| s.map_or(root_id, |s| ids[s.index()]))
        .collect();
    let doc = ProfileOut {
        nodes,
        start_time: micros(start),
        end_time: micros(thread.end_time().max(start)),
        samples,
        time_deltas,
    };
    let mut out = io::BufWriter::new(out);
    serde_json::to_writer(&mut out, &doc)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Each sample's stack with GC samples moved back onto the root's `(garbage collector)` node
/// (the one DevTools finds: the last among the root's children), and which stacks that leaves
/// as unused GC leaves to leave out.
fn unstack_gc(
    profile: &Profile,
    thread: &Thread,
    children: &[Vec<u32>],
) -> (Vec<Option<StackId>>, Vec<bool>) {
    let mut folded = vec![false; profile.stacks.len()];
    let root_gc = profile.stacks.ids().rev().find(|&s| {
        profile.stacks.parent(s).is_none() && profile.frame_name(profile.stacks.frame(s)) == GC_NAME
    });
    let Some(root_gc) = root_gc else {
        return (thread.samples.stack.clone(), folded);
    };
    let gc_frame = profile.stacks.frame(root_gc);
    for s in profile.stacks.ids() {
        folded[s.index()] = profile.stacks.parent(s).is_some()
            && profile.stacks.frame(s) == gc_frame
            && children[s.index()].is_empty();
    }
    let samples = thread
        .samples
        .stack
        .iter()
        .map(|&s| match s {
            Some(x) if folded[x.index()] => Some(root_gc),
            other => other,
        })
        .collect();
    (samples, folded)
}

/// Writes a byte-weighted thread as a `.heapprofile` (`head` tree with `selfSize`, `samples`).
/// The tree nests as deep as the stacks; it is written without recursion.
pub fn write_heapprofile(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let (root_id, ids) = node_ids(profile);
    let (children, roots) = stack_children(profile);
    let sums = StackSums::new(profile, thread);
    let write_node = |out: &mut io::BufWriter<_>, id: u64, frame: &CallFrameOut, self_size: i64| {
        out.write_all(b"{\"callFrame\":")?;
        serde_json::to_writer(&mut *out, frame)?;
        write!(out, ",\"selfSize\":{self_size},\"id\":{id},\"children\":[")
    };
    out.write_all(b"{\"head\":")?;
    write_node(&mut out, root_id, &ROOT_FRAME, sums.root_weight)?;
    // (stack, next child to write); None = the root.
    let mut todo: Vec<(Option<usize>, usize)> = vec![(None, 0)];
    while let Some((node, next)) = todo.pop() {
        let kids = match node {
            None => &roots,
            Some(i) => &children[i],
        };
        if next < kids.len() {
            if next > 0 {
                out.write_all(b",")?;
            }
            todo.push((node, next + 1));
            let c = kids[next] as usize;
            let s = StackId::from_index(c);
            write_node(&mut out, ids[c], &call_frame(profile, s), sums.weight[c])?;
            todo.push((Some(c), 0));
        } else {
            out.write_all(b"]}")?;
        }
    }
    out.write_all(b",\"samples\":[")?;
    for (k, a) in thread.allocation_samples.iter().enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        write!(
            out,
            "{{\"size\":{},\"nodeId\":{},\"ordinal\":{}}}",
            a.size,
            ids[a.stack.index()],
            a.ordinal
        )?;
    }
    out.write_all(b"]}\n")?;
    out.flush()
}
