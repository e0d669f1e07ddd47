//! Folded stacks (`root;caller;callee weight`), the input of inferno and flamegraph.pl.
//!
//! Time is written in whole microseconds, rounded cumulatively so that the lines add up to the
//! thread's total time rounded once (no drift from rounding each line); bytes stay bytes.
//! Samples on the bare root are the line `(root)`. Lines are in the order their stack first
//! appears (with samples) in the stack table; identical paths are merged.
//!
//! Paths are never built as strings: a deep profile has as many paths as stacks, and their total
//! length grows with the square of the depth (30,000 frames deep: gigabytes). Stacks are mapped
//! onto a trie of labels instead (identical paths share a node), and each line is written by
//! walking its node's parents, so memory stays proportional to the stacks and the work to the
//! output.

use std::collections::HashMap;
use std::io::{self, Write};

use super::{frame_label, StackSums};
use crate::model::{Profile, Thread, WeightUnit};

/// A frame as a folded line writes it: [`frame_label`] with `;` (the separator) written `:` and
/// line breaks as spaces. A line of folded output, less its count, is these joined with `;` —
/// the path `--focus-stack` takes.
pub fn folded_label(profile: &Profile, frame: crate::model::FrameId) -> String {
    clean(&frame_label(profile, frame))
}

/// A folded-format frame: no `;` (the separator) and no line breaks.
fn clean(label: &str) -> String {
    label
        .chars()
        .map(|c| match c {
            ';' => ':',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

const NONE: u32 = u32::MAX;

/// Writes `thread` as folded stacks.
pub fn write_folded(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    let sums = StackSums::new(profile, thread);

    // Labels, interned: different frames may print the same, and then their paths merge.
    let mut label_ids: HashMap<String, u32> = HashMap::new();
    let mut labels: Vec<String> = Vec::new();
    let mut label_of_frame: Vec<u32> = vec![NONE; profile.frames.len()];

    // The trie of label paths: per node its parent node and label; per stack its node.
    let mut trie_parent: Vec<u32> = Vec::new();
    let mut trie_label: Vec<u32> = Vec::new();
    let mut trie_of: HashMap<(u32, u32), u32> = HashMap::new();
    let mut node_of_stack: Vec<u32> = Vec::with_capacity(profile.stacks.len());
    // Per node with samples: its line's position in the output; the lines as (node, weight).
    let mut line_of_node: HashMap<u32, usize> = HashMap::new();
    let mut lines: Vec<(u32, i64)> = Vec::new();

    for s in profile.stacks.ids() {
        let frame = profile.stacks.frame(s);
        let slot = &mut label_of_frame[frame.index()];
        if *slot == NONE {
            let label = folded_label(profile, frame);
            *slot = *label_ids.entry(label).or_insert_with_key(|label| {
                labels.push(label.clone());
                (labels.len() - 1) as u32
            });
        }
        let label = *slot;
        let parent = profile
            .stacks
            .parent(s)
            .map_or(NONE, |p| node_of_stack[p.index()]);
        let node = *trie_of.entry((parent, label)).or_insert_with(|| {
            trie_parent.push(parent);
            trie_label.push(label);
            (trie_parent.len() - 1) as u32
        });
        node_of_stack.push(node);
        if sums.count[s.index()] > 0 {
            let w = sums.weight[s.index()];
            match line_of_node.get(&node) {
                Some(&i) => lines[i].1 += w,
                None => {
                    line_of_node.insert(node, lines.len());
                    lines.push((node, w));
                }
            }
        }
    }
    // A top frame printed `(root)` has the bare root's path: one line, first, as before.
    let mut root_weight = sums.root_weight;
    let root_node = (sums.root_count > 0)
        .then(|| label_ids.get("(root)"))
        .flatten()
        .and_then(|l| trie_of.get(&(NONE, *l)).copied());
    if let Some(i) = root_node.and_then(|n| line_of_node.get(&n)) {
        root_weight += lines[*i].1;
    }
    drop((trie_of, line_of_node, node_of_stack));

    let micros = thread.weight_unit() == WeightUnit::Nanoseconds;
    let mut out = io::BufWriter::new(out);
    let (mut acc, mut written) = (0i128, 0i128);
    let mut value = |w: i64| -> i128 {
        if micros {
            acc += w as i128;
            let upto = (acc + 500).div_euclid(1000);
            let v = upto - written;
            written = upto;
            v
        } else {
            w as i128
        }
    };
    if sums.root_count > 0 {
        writeln!(out, "(root) {}", value(root_weight))?;
    }
    let mut chain: Vec<u32> = Vec::new();
    for (node, w) in lines {
        if Some(node) == root_node {
            continue;
        }
        chain.clear();
        let mut n = node;
        while n != NONE {
            chain.push(trie_label[n as usize]);
            n = trie_parent[n as usize];
        }
        for (i, &label) in chain.iter().rev().enumerate() {
            if i > 0 {
                out.write_all(b";")?;
            }
            out.write_all(labels[label as usize].as_bytes())?;
        }
        writeln!(out, " {}", value(w))?;
    }
    out.flush()
}
