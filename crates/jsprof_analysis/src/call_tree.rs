//! DevTools' Call tree (top-down) and Bottom-up views, as flat node arrays.
//!
//! Top-down: the stack tree with same-function siblings merged; a node's self is the weight with
//! it on top, its total the weight of its subtree. Bottom-up: each function as a root (its self,
//! and its total counting recursion once — the `top` table), with the functions that called it
//! beneath, each caller path carrying the weight that reached the function through it. A sample
//! counts once per node even when a recursive stack passes the same caller path twice.

use std::collections::HashMap;

use jsprof_profile::{FrameId, Profile, Thread};

use crate::function_table::{FunctionKey, StackChildren, StackFunctions, StackWeights};

/// Which view a [`CallTree`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallTreeKind {
    TopDown,
    BottomUp,
}

/// One node: a function at a position of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallTreeNode {
    pub function: FunctionKey,
    /// A frame of the function (the first seen), for its kind and original position.
    pub frame: FrameId,
    /// `None` for a root.
    pub parent: Option<u32>,
    pub depth: u32,
    pub self_weight: i64,
    pub total_weight: i64,
    /// Samples counted in `total_weight`.
    pub samples: u64,
    /// Heaviest first (total, then self, then name and position).
    pub children: Vec<u32>,
}

/// A call tree of one thread. `nodes` are in no particular order; walk from `roots`.
#[derive(Clone, Debug)]
pub struct CallTree {
    pub kind: CallTreeKind,
    pub nodes: Vec<CallTreeNode>,
    /// Heaviest first.
    pub roots: Vec<u32>,
    /// Every sample's weight, those on the bare root (gaps) included.
    pub total_weight: i64,
    /// Weight of samples on the bare root, which no node shows.
    pub root_weight: i64,
}

const NO_PARENT: u32 = u32::MAX;

#[derive(Default)]
struct Builder {
    nodes: Vec<CallTreeNode>,
    index: HashMap<(u32, u32), u32>,
}

impl Builder {
    /// Counts stack `i`'s self weight into node `n`, and its total and samples unless a stack
    /// nearer the root on the same path already counted them (`count_total` false).
    #[inline]
    fn credit(
        &mut self,
        n: u32,
        i: usize,
        weights: &StackWeights,
        total: &[i64],
        samples: &[u64],
        count_total: bool,
    ) {
        let node = &mut self.nodes[n as usize];
        node.self_weight += weights.self_weight[i];
        if count_total {
            node.total_weight += total[i];
            node.samples += samples[i];
        }
    }

    fn node(&mut self, parent: u32, function: u32, functions: &StackFunctions) -> u32 {
        let next = self.nodes.len() as u32;
        let id = *self.index.entry((parent, function)).or_insert(next);
        if id == next {
            let (key, frame) = functions.keys[function as usize];
            let (parent, depth) = if parent == NO_PARENT {
                (None, 0)
            } else {
                (Some(parent), self.nodes[parent as usize].depth + 1)
            };
            self.nodes.push(CallTreeNode {
                function: key,
                frame,
                parent,
                depth,
                self_weight: 0,
                total_weight: 0,
                samples: 0,
                children: Vec::new(),
            });
            if let Some(p) = parent {
                self.nodes[p as usize].children.push(id);
            }
        }
        id
    }

    fn finish(
        mut self,
        profile: &Profile,
        kind: CallTreeKind,
        weights: &StackWeights,
        total_weight: i64,
    ) -> CallTree {
        let order = |nodes: &[CallTreeNode], a: &u32, b: &u32| {
            let (x, y) = (&nodes[*a as usize], &nodes[*b as usize]);
            (y.total_weight, y.self_weight)
                .cmp(&(x.total_weight, x.self_weight))
                .then_with(|| x.function.cmp_in(&y.function, profile))
        };
        for i in 0..self.nodes.len() {
            let mut children = std::mem::take(&mut self.nodes[i].children);
            children.sort_by(|a, b| order(&self.nodes, a, b));
            self.nodes[i].children = children;
        }
        let mut roots: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&n| self.nodes[n as usize].parent.is_none())
            .collect();
        roots.sort_by(|a, b| order(&self.nodes, a, b));
        CallTree {
            kind,
            nodes: self.nodes,
            roots,
            total_weight,
            root_weight: weights.root_weight,
        }
    }
}

/// The top-down call tree of `thread`.
pub fn top_down(profile: &Profile, thread: &Thread) -> CallTree {
    top_down_from(profile, thread, &StackFunctions::new(profile), |_| true)
}

/// The top-down tree of the stacks whose path from the root reaches a function `starts` accepts,
/// each cut at its outermost such frame, merged.
fn top_down_from(
    profile: &Profile,
    thread: &Thread,
    functions: &StackFunctions,
    starts: impl Fn(u32) -> bool,
) -> CallTree {
    let weights = StackWeights::new(profile, thread);
    let (total, samples) = weights.totals(profile);
    let mut b = Builder::default();
    // `node_of[s]`: the node of stack s, NO_PARENT while the path from the root has not reached
    // a function `starts` accepts. Parents precede children, so one forward pass places every
    // stack under its parent's node.
    let mut node_of = vec![NO_PARENT; profile.stacks.len()];
    for s in profile.stacks.ids() {
        let i = s.index();
        if samples[i] == 0 {
            continue;
        }
        let parent = profile
            .stacks
            .parent(s)
            .map_or(NO_PARENT, |p| node_of[p.index()]);
        let f = functions.of_stack[i];
        if parent == NO_PARENT && !starts(f) {
            continue;
        }
        let n = b.node(parent, f, functions);
        node_of[i] = n;
        b.credit(n, i, &weights, &total, &samples, true);
    }
    let total_weight = weights.root_weight + roots_total(profile, &total);
    b.finish(profile, CallTreeKind::TopDown, &weights, total_weight)
}

/// The bottom-up tree of `thread`: functions as roots, their callers beneath.
pub fn bottom_up(profile: &Profile, thread: &Thread) -> CallTree {
    bottom_up_within(profile, thread, None)
}

/// How many node visits a bottom-up tree may take before its callers are cut at a depth: a
/// profile whose stacks are thousands of frames deep has a bottom-up tree that grows with the
/// square of that depth (every function on a stack is a root with its whole caller chain).
pub const BOTTOM_UP_BUDGET: u64 = 2_000_000;

/// The depth (levels, 1 = the roots only) at which a bottom-up tree of `thread` must stop for its
/// construction to visit at most `budget` nodes; `None` when the whole tree fits. The cut is the
/// same for every root, so what is shown is exact, and deeper callers are left out.
pub fn bottom_up_depth_limit(profile: &Profile, thread: &Thread, budget: u64) -> Option<u32> {
    let weights = StackWeights::new(profile, thread);
    let (_, samples) = weights.totals(profile);
    // Stacks that make a chain, by length (depth + 1).
    let mut by_length: Vec<u64> = Vec::new();
    for s in profile.stacks.ids() {
        if samples[s.index()] == 0 {
            continue;
        }
        let len = profile.stacks.depth(s) as usize + 1;
        if by_length.len() <= len {
            by_length.resize(len + 1, 0);
        }
        by_length[len] += 1;
    }
    let visits = |cut: u64| -> u64 {
        by_length
            .iter()
            .enumerate()
            .map(|(len, &n)| n * (len as u64).min(cut))
            .sum()
    };
    if visits(u64::MAX) <= budget {
        return None;
    }
    // The largest cut within the budget (visits grow with the cut).
    let (mut lo, mut hi) = (1u64, by_length.len() as u64);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if visits(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo as u32)
}

/// The bottom-up tree with at most `levels` levels (1 = the roots only; `None`: all). Nodes
/// within the levels have their exact weights.
pub fn bottom_up_within(profile: &Profile, thread: &Thread, levels: Option<u32>) -> CallTree {
    let levels = levels.map_or(usize::MAX, |l| l.max(1) as usize);
    let functions = StackFunctions::new(profile);
    let children = StackChildren::new(profile);
    let weights = StackWeights::new(profile, thread);
    let (total, samples) = weights.totals(profile);
    let mut b = Builder::default();
    // `active[n]`: how many stacks on the current DFS path already counted their total into n.
    let mut active: Vec<u32> = Vec::new();
    // The bottom-up nodes of each stack on the DFS path, concatenated; `marks` delimits them.
    let mut chain: Vec<u32> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut todo: Vec<(u32, bool)> = children.roots.iter().rev().map(|&r| (r, true)).collect();
    while let Some((s, enter)) = todo.pop() {
        let i = s as usize;
        if !enter {
            let from = marks.pop().unwrap_or(0);
            for &n in &chain[from..] {
                active[n as usize] -= 1;
            }
            chain.truncate(from);
            continue;
        }
        if samples[i] == 0 {
            continue;
        }
        marks.push(chain.len());
        // The caller path of this stack: itself, its parent, ... down to depth 0.
        let mut parent = NO_PARENT;
        let mut at = Some(jsprof_profile::StackId::from_index(i));
        let mut level = 0;
        while let Some(x) = at.filter(|_| level < levels) {
            level += 1;
            let n = b.node(parent, functions.of_stack[x.index()], &functions);
            if active.len() <= n as usize {
                active.resize(n as usize + 1, 0);
            }
            b.credit(n, i, &weights, &total, &samples, active[n as usize] == 0);
            active[n as usize] += 1;
            chain.push(n);
            parent = n;
            at = profile.stacks.parent(x);
        }
        todo.push((s, false));
        todo.extend(children.of(i).iter().rev().map(|&c| (c, true)));
    }
    let total_weight = weights.root_weight + roots_total(profile, &total);
    b.finish(profile, CallTreeKind::BottomUp, &weights, total_weight)
}

/// The callees half of speedscope's sandwich: the top-down tree of every stack from `function`'s
/// outermost frame down, merged, so its one root is the function with its total (recursion
/// counted once, the `top` table's total) and everything it calls beneath. Empty when the
/// function has no samples on `thread`.
pub fn callees(profile: &Profile, thread: &Thread, function: &FunctionKey) -> CallTree {
    let functions = StackFunctions::new(profile);
    let target = functions
        .keys
        .iter()
        .position(|(k, _)| k == function)
        .map(|t| t as u32);
    top_down_from(profile, thread, &functions, |f| Some(f) == target)
}

fn roots_total(profile: &Profile, total: &[i64]) -> i64 {
    profile
        .stacks
        .ids()
        .filter(|s| profile.stacks.parent(*s).is_none())
        .map(|s| total[s.index()])
        .sum()
}

impl CallTree {
    /// Nodes in depth-first pre-order, heaviest child first.
    pub fn preorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut todo: Vec<u32> = self.roots.iter().rev().copied().collect();
        while let Some(n) = todo.pop() {
            out.push(n);
            todo.extend(self.nodes[n as usize].children.iter().rev());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::{ProfileKind, WeightUnit};

    /// main > a > b, main > b > a > b (recursion through b), weights 1, 2, 4 on the leaves.
    fn sample_profile() -> Profile {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let main = p.intern_frame("main", "m.js", Some(1), Some(1), "1");
        let a = p.intern_frame("a", "m.js", Some(2), Some(1), "1");
        let b = p.intern_frame("b", "m.js", Some(3), Some(1), "1");
        let s_main = p.stacks.push(None, main, 2);
        let s_a = p.stacks.push(Some(s_main), a, 3);
        let s_ab = p.stacks.push(Some(s_a), b, 4);
        let s_b = p.stacks.push(Some(s_main), b, 5);
        let s_ba = p.stacks.push(Some(s_b), a, 6);
        let s_bab = p.stacks.push(Some(s_ba), b, 7);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        for (s, w) in [(Some(s_ab), 1), (Some(s_b), 2), (Some(s_bab), 4), (None, 8)] {
            t.samples_mut().push_weighted(0, s, w);
        }
        p.threads.push(t);
        p
    }

    fn name(p: &Profile, t: &CallTree, n: u32) -> String {
        p.strings.get(t.nodes[n as usize].function.name).to_string()
    }

    #[test]
    fn top_down_merges_and_sums() {
        let p = sample_profile();
        let t = top_down(&p, &p.threads[0]);
        assert_eq!(t.total_weight, 15);
        assert_eq!(t.root_weight, 8);
        assert_eq!(t.roots.len(), 1);
        let main = &t.nodes[t.roots[0] as usize];
        assert_eq!((main.self_weight, main.total_weight), (0, 7));
        let kids: Vec<(String, i64)> = main
            .children
            .iter()
            .map(|&c| (name(&p, &t, c), t.nodes[c as usize].total_weight))
            .collect();
        assert_eq!(kids, vec![("b".into(), 6), ("a".into(), 1)]);
    }

    #[test]
    fn callees_merge_every_outermost_call_of_the_function() {
        let p = sample_profile();
        let table = crate::function_table(&p, &p.threads[0]);
        let b = table
            .rows
            .iter()
            .find(|r| p.strings.get(r.key.name) == "b")
            .unwrap();
        let t = callees(&p, &p.threads[0], &b.key);
        // One root, b, with the table's total (main>a>b 1, main>b 2, main>b>a>b 4 once).
        assert_eq!(t.roots.len(), 1);
        let root = &t.nodes[t.roots[0] as usize];
        assert_eq!(root.function, b.key);
        assert_eq!((root.self_weight, root.total_weight), (3, 7));
        assert_eq!(root.total_weight, b.total_weight);
        // Beneath it: a (4), and under a the recursive b (4).
        let a = root.children[0];
        assert_eq!(name(&p, &t, a), "a");
        assert_eq!(t.nodes[a as usize].total_weight, 4);
        let inner = t.nodes[a as usize].children[0];
        assert_eq!(name(&p, &t, inner), "b");
        assert_eq!(t.nodes[inner as usize].self_weight, 4);
        // A function that never ran has an empty sandwich.
        let mut q = sample_profile();
        let other = q.intern_frame("never", "m.js", Some(9), Some(1), "1");
        let never = FunctionKey::of(&q, other);
        assert!(callees(&q, &q.threads[0], &never).roots.is_empty());
    }

    #[test]
    fn bottom_up_roots_are_the_function_table() {
        let p = sample_profile();
        let t = bottom_up(&p, &p.threads[0]);
        let table = crate::function_table(&p, &p.threads[0]);
        assert_eq!(t.roots.len(), table.rows.len());
        for &r in &t.roots {
            let n = &t.nodes[r as usize];
            let row = table.rows.iter().find(|x| x.key == n.function).unwrap();
            assert_eq!(
                (n.self_weight, n.total_weight),
                (row.self_weight, row.total_weight)
            );
        }
        // b: self 1 + 2 + 4; called from a (1 via main>a>b, 4 via main>b>a>b) and main (2 + 4).
        let b = t
            .roots
            .iter()
            .copied()
            .find(|&r| name(&p, &t, r) == "b")
            .unwrap();
        let callers: Vec<(String, i64, i64)> = t.nodes[b as usize]
            .children
            .iter()
            .map(|&c| {
                let n = &t.nodes[c as usize];
                (name(&p, &t, c), n.self_weight, n.total_weight)
            })
            .collect();
        assert_eq!(callers, vec![("main".into(), 2, 6), ("a".into(), 5, 5)]);
    }
}
