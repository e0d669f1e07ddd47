//! The flat function table: self and total weight per function, DevTools' Bottom-up roots.
//!
//! A function is `(name, url, line, column)`. Self weight is weight with the function on top of
//! the stack; total weight counts each sample once however often the function recurses in it
//! (DevTools charges only the outermost frame).

use std::collections::HashMap;

use jsprof_profile::{FrameId, Profile, StringId, Thread};

/// The identity of a function across frames (frames may differ in script id or kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunctionKey {
    pub name: StringId,
    pub url: StringId,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl FunctionKey {
    /// The order ties between equal weights are broken in, everywhere functions are listed:
    /// name, then URL, then position.
    pub fn cmp_in(&self, other: &FunctionKey, profile: &Profile) -> std::cmp::Ordering {
        let s = &profile.strings;
        s.get(self.name)
            .cmp(s.get(other.name))
            .then_with(|| s.get(self.url).cmp(s.get(other.url)))
            .then_with(|| self.line.cmp(&other.line))
            .then_with(|| self.column.cmp(&other.column))
    }

    pub fn of(profile: &Profile, frame: FrameId) -> FunctionKey {
        let f = profile.frames.get(frame);
        FunctionKey {
            name: f.name,
            url: f.url,
            line: f.line,
            column: f.column,
        }
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionRow {
    pub key: FunctionKey,
    /// A frame of this function (the first seen), for its kind and original position.
    pub frame: FrameId,
    pub self_weight: i64,
    pub total_weight: i64,
    /// Samples with this function anywhere on the stack.
    pub samples: u64,
}

/// Functions of one thread, in no particular order.
#[derive(Clone, Debug, Default)]
pub struct FunctionTable {
    pub rows: Vec<FunctionRow>,
    /// The sum of all sample weights, samples on the bare root included.
    pub total_weight: i64,
}

/// Function index of every stack, and the functions themselves.
pub(crate) struct StackFunctions {
    pub of_stack: Vec<u32>,
    pub keys: Vec<(FunctionKey, FrameId)>,
}

impl StackFunctions {
    pub fn new(profile: &Profile) -> StackFunctions {
        let mut index: HashMap<FunctionKey, u32> = HashMap::new();
        let mut keys = Vec::new();
        let mut of_frame: Vec<u32> = Vec::with_capacity(profile.frames.len());
        for (id, _) in profile.frames.iter() {
            let key = FunctionKey::of(profile, id);
            let f = *index.entry(key).or_insert_with(|| {
                keys.push((key, id));
                keys.len() as u32 - 1
            });
            of_frame.push(f);
        }
        let of_stack = profile
            .stacks
            .ids()
            .map(|s| of_frame[profile.stacks.frame(s).index()])
            .collect();
        StackFunctions { of_stack, keys }
    }
}

/// Children of each stack in compressed form (parents precede children in the table).
pub(crate) struct StackChildren {
    offsets: Vec<u32>,
    children: Vec<u32>,
    pub roots: Vec<u32>,
}

impl StackChildren {
    pub fn new(profile: &Profile) -> StackChildren {
        let n = profile.stacks.len();
        let mut counts = vec![0u32; n + 1];
        let mut roots = Vec::new();
        for s in profile.stacks.ids() {
            match profile.stacks.parent(s) {
                Some(p) => counts[p.index() + 1] += 1,
                None => roots.push(s.index() as u32),
            }
        }
        for i in 1..=n {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        let mut children = vec![0u32; counts[n] as usize];
        for s in profile.stacks.ids() {
            if let Some(p) = profile.stacks.parent(s) {
                children[fill[p.index()] as usize] = s.index() as u32;
                fill[p.index()] += 1;
            }
        }
        StackChildren {
            offsets: counts,
            children,
            roots,
        }
    }

    pub fn of(&self, s: usize) -> &[u32] {
        &self.children[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }
}

/// Per-stack sums of one thread's samples.
pub(crate) struct StackWeights {
    pub self_weight: Vec<i64>,
    pub self_samples: Vec<u64>,
    /// Weight of samples on the bare root.
    pub root_weight: i64,
}

impl StackWeights {
    pub fn new(profile: &Profile, thread: &Thread) -> StackWeights {
        let n = profile.stacks.len();
        let mut w = StackWeights {
            self_weight: vec![0; n],
            self_samples: vec![0; n],
            root_weight: 0,
        };
        for (stack, weight) in thread.samples().stack().iter().zip(thread.weights()) {
            match stack {
                Some(s) => {
                    w.self_weight[s.index()] += weight;
                    w.self_samples[s.index()] += 1;
                }
                None => w.root_weight += weight,
            }
        }
        w
    }

    /// Subtree sums (weight, samples), relying on parents preceding children.
    pub fn totals(&self, profile: &Profile) -> (Vec<i64>, Vec<u64>) {
        let mut total = self.self_weight.clone();
        let mut samples = self.self_samples.clone();
        for s in profile.stacks.ids().rev() {
            if let Some(p) = profile.stacks.parent(s) {
                total[p.index()] += total[s.index()];
                samples[p.index()] += samples[s.index()];
            }
        }
        (total, samples)
    }
}

/// Which stacks are the outermost frame of their function (no ancestor runs the same function).
pub(crate) fn outermost(
    profile: &Profile,
    functions: &StackFunctions,
    children: &StackChildren,
) -> Vec<bool> {
    let n = profile.stacks.len();
    let mut result = vec![false; n];
    let mut active = vec![0u32; functions.keys.len()];
    // Iterative DFS: (stack, entering?)
    let mut todo: Vec<(u32, bool)> = children.roots.iter().rev().map(|&r| (r, true)).collect();
    while let Some((s, enter)) = todo.pop() {
        let f = functions.of_stack[s as usize] as usize;
        if enter {
            result[s as usize] = active[f] == 0;
            active[f] += 1;
            todo.push((s, false));
            todo.extend(children.of(s as usize).iter().rev().map(|&c| (c, true)));
        } else {
            active[f] -= 1;
        }
    }
    result
}

/// Computes the function table of `thread`.
pub fn function_table(profile: &Profile, thread: &Thread) -> FunctionTable {
    let functions = StackFunctions::new(profile);
    let children = StackChildren::new(profile);
    let weights = StackWeights::new(profile, thread);
    let (total, samples) = weights.totals(profile);
    let outer = outermost(profile, &functions, &children);

    let mut rows: Vec<Option<FunctionRow>> = vec![None; functions.keys.len()];
    for s in profile.stacks.ids() {
        let i = s.index();
        if samples[i] == 0 {
            continue;
        }
        let f = functions.of_stack[i] as usize;
        let (key, frame) = functions.keys[f];
        let row = rows[f].get_or_insert(FunctionRow {
            key,
            frame,
            self_weight: 0,
            total_weight: 0,
            samples: 0,
        });
        row.self_weight += weights.self_weight[i];
        if outer[i] {
            row.total_weight += total[i];
            row.samples += samples[i];
        }
    }
    let total_weight = weights.root_weight
        + profile
            .stacks
            .ids()
            .filter(|s| profile.stacks.parent(*s).is_none())
            .map(|s| total[s.index()])
            .sum::<i64>();
    FunctionTable {
        rows: rows.into_iter().flatten().collect(),
        total_weight,
    }
}

/// Self and total weight of every frame `matches` accepts, taken together: self is the weight
/// of samples with such a frame on top, total the weight of samples with one anywhere on the
/// stack (each sample once, however many match). For budgets on a function by name, which may
/// be several functions (`render` in two files) or recursive.
pub fn weight_where(
    profile: &Profile,
    thread: &Thread,
    matches: impl Fn(&jsprof_profile::Frame) -> bool,
) -> (i64, i64) {
    let frame_matches: Vec<bool> = profile.frames.iter().map(|(_, f)| matches(f)).collect();
    // Parents come first, so one pass marks the stacks with a match at or below their top.
    let mut on_stack = vec![false; profile.stacks.len()];
    for s in profile.stacks.ids() {
        let own = frame_matches[profile.stacks.frame(s).index()];
        let below = profile
            .stacks
            .parent(s)
            .is_some_and(|p| on_stack[p.index()]);
        on_stack[s.index()] = own || below;
    }
    let (mut self_w, mut total_w) = (0, 0);
    for (stack, w) in thread.samples().stack().iter().zip(thread.weights()) {
        if let Some(s) = stack {
            if frame_matches[profile.stacks.frame(*s).index()] {
                self_w += w;
            }
            if on_stack[s.index()] {
                total_w += w;
            }
        }
    }
    (self_w, total_w)
}
