//! Folded stacks (`root;caller;callee weight`), the input of inferno and flamegraph.pl.
//!
//! Time is written in whole microseconds, rounded cumulatively so that the lines add up to the
//! thread's total time rounded once (no drift from rounding each line); bytes stay bytes.
//! Samples on the bare root are the line `(root)`. Lines are in the order their stack first
//! appears in the stack table; identical paths are merged.

use std::collections::HashMap;
use std::io::{self, Write};

use super::{frame_label, StackSums};
use crate::model::{Profile, Thread, WeightUnit};

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

/// Writes `thread` as folded stacks.
pub fn write_folded(out: impl Write, profile: &Profile, thread: &Thread) -> io::Result<()> {
    let sums = StackSums::new(profile, thread);
    let mut labels: Vec<Option<String>> = vec![None; profile.frames.len()];
    let mut path: Vec<String> = Vec::with_capacity(profile.stacks.len());
    let mut lines: Vec<(String, i64)> = Vec::new();
    let mut line_of: HashMap<String, usize> = HashMap::new();
    let mut add = |key: &str, w: i64, lines: &mut Vec<(String, i64)>| match line_of.get(key) {
        Some(&i) => lines[i].1 += w,
        None => {
            line_of.insert(key.to_string(), lines.len());
            lines.push((key.to_string(), w));
        }
    };
    if sums.root_count > 0 {
        add("(root)", sums.root_weight, &mut lines);
    }
    for s in profile.stacks.ids() {
        let frame = profile.stacks.frame(s);
        let label = labels[frame.index()]
            .get_or_insert_with(|| clean(&frame_label(profile, frame)))
            .clone();
        let full = match profile.stacks.parent(s) {
            Some(p) => format!("{};{label}", path[p.index()]),
            None => label,
        };
        if sums.count[s.index()] > 0 {
            add(&full, sums.weight[s.index()], &mut lines);
        }
        path.push(full);
    }
    let micros = thread.weight_unit() == WeightUnit::Nanoseconds;
    let mut out = io::BufWriter::new(out);
    let (mut acc, mut written) = (0i128, 0i128);
    for (line, w) in lines {
        let value = if micros {
            acc += w as i128;
            let upto = (acc + 500).div_euclid(1000);
            let v = upto - written;
            written = upto;
            v
        } else {
            w as i128
        };
        writeln!(out, "{line} {value}")?;
    }
    out.flush()
}
