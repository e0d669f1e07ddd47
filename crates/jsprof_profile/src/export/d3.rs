//! d3-flame-graph's JSON: nested `{"name", "value", "children"}`, `value` a node's total (µs for
//! time, bytes for heap profiles), same-named children of a node merged. The root is `(root)`.
//! Written without recursion: stacks nest as deep as the program did.

use std::collections::HashMap;
use std::io::{self, Write};

use super::{frame_label, StackSums};
use crate::model::{Profile, Thread, WeightUnit};

struct Node {
    label: u32,
    total: i64,
    children: Vec<u32>,
}

/// Writes `thread` as a d3-flame-graph tree.
pub fn write_d3(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    let sums = StackSums::new(profile, thread);
    let (totals, counts) = sums.totals(profile);
    let mut labels: Vec<String> = vec!["(root)".to_string()];
    let mut label_of: HashMap<String, u32> = HashMap::new();
    let mut frame_label_id: Vec<Option<u32>> = vec![None; profile.frames.len()];
    let mut nodes = vec![Node {
        label: 0,
        total: sums.root_weight,
        children: Vec::new(),
    }];
    let mut index: HashMap<(u32, u32), u32> = HashMap::new();
    let mut node_of = vec![0u32; profile.stacks.len()];
    for s in profile.stacks.ids() {
        let i = s.index();
        if counts[i] == 0 {
            continue;
        }
        let frame = profile.stacks.frame(s);
        let label = *frame_label_id[frame.index()].get_or_insert_with(|| {
            let text = frame_label(profile, frame);
            *label_of.entry(text.clone()).or_insert_with(|| {
                labels.push(text);
                labels.len() as u32 - 1
            })
        });
        let parent = profile.stacks.parent(s).map_or(0, |p| node_of[p.index()]);
        let next = nodes.len() as u32;
        let n = *index.entry((parent, label)).or_insert(next);
        if n == next {
            nodes.push(Node {
                label,
                total: 0,
                children: Vec::new(),
            });
            nodes[parent as usize].children.push(n);
        }
        nodes[n as usize].total += totals[i];
        if profile.stacks.parent(s).is_none() {
            nodes[0].total += totals[i];
        }
        node_of[i] = n;
    }
    let micros = thread.weight_unit() == WeightUnit::Nanoseconds;
    let value = |w: i64| -> serde_json::Value {
        if micros {
            if w % 1000 == 0 {
                (w / 1000).into()
            } else {
                (w as f64 / 1000.0).into()
            }
        } else {
            w.into()
        }
    };
    let mut out = io::BufWriter::new(out);
    let mut todo: Vec<(u32, usize)> = vec![(0, 0)];
    let open = |out: &mut io::BufWriter<_>, n: &Node| -> io::Result<()> {
        out.write_all(b"{\"name\":")?;
        serde_json::to_writer(&mut *out, &labels[n.label as usize])?;
        out.write_all(b",\"value\":")?;
        serde_json::to_writer(&mut *out, &value(n.total))?;
        out.write_all(b",\"children\":[")
    };
    open(&mut out, &nodes[0])?;
    while let Some((n, next)) = todo.pop() {
        let node = &nodes[n as usize];
        if next < node.children.len() {
            if next > 0 {
                out.write_all(b",")?;
            }
            todo.push((n, next + 1));
            let c = node.children[next];
            open(&mut out, &nodes[c as usize])?;
            todo.push((c, 0));
        } else {
            out.write_all(b"]}")?;
        }
    }
    out.write_all(b"\n")?;
    out.flush()
}
