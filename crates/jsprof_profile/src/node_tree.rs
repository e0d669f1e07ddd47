//! The call tree as CDP-style inputs store it (`.cpuprofile` nodes, legacy `head` trees,
//! `.heapprofile` heads), and its lowering into the stack table.
//!
//! Files in the wild break their own trees: ids that repeat, children that do not exist, cycles,
//! nodes nobody points at. Lowering walks from the root once, never visits a node twice, and
//! reports each kind of damage as one warning with a count and a first example.

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

use crate::model::{FrameId, Profile, StackId, StringId, Thread};

/// One node as read, before lowering.
pub(crate) struct RawNode {
    pub id: u64,
    pub frame: FrameId,
    pub parent: Option<u64>,
    /// `None` when the node had no `children` field at all.
    pub children: Option<Range<u32>>,
    pub ticks: Range<u32>,
    pub deopt_reason: Option<StringId>,
    pub self_size: u64,
    /// `hitCount`, when the node has one.
    pub hit_count: Option<u64>,
}

/// Nodes plus shared pools for their children and position ticks.
#[derive(Default)]
pub(crate) struct RawTree {
    pub nodes: Vec<RawNode>,
    pub children: Vec<u64>,
    /// (line 1-based, ticks)
    pub ticks: Vec<(u32, u32)>,
    /// Index of the root in `nodes`; the first node when not set.
    pub root: Option<usize>,
}

/// Where a node id ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeTarget {
    Root,
    Stack(StackId),
}

/// Node id → lowered stack.
pub(crate) struct NodeMap(IdTable);

const UNMAPPED: u32 = u32::MAX;
const ROOT_SLOT: u32 = u32::MAX - 1;

impl NodeMap {
    fn set(&mut self, id: u64, target: NodeTarget) {
        let slot = match target {
            NodeTarget::Root => ROOT_SLOT,
            NodeTarget::Stack(s) => s.index() as u32,
        };
        self.0.set(id, slot);
    }

    pub fn get(&self, id: u64) -> Option<NodeTarget> {
        match self.0.get(id)? {
            ROOT_SLOT => Some(NodeTarget::Root),
            s => Some(NodeTarget::Stack(StackId::from_index(s as usize))),
        }
    }
}

/// Node id → a `u32` (a position in the node list, a lowered stack): a plain array when ids are
/// dense (V8 numbers nodes from 1), a hash map otherwise.
struct IdTable {
    dense: Vec<u32>,
    sparse: HashMap<u64, u32>,
}

impl IdTable {
    fn new(max_id: u64, count: usize) -> IdTable {
        let dense_len = if max_id < (count as u64).saturating_mul(8).max(1 << 16) {
            max_id as usize + 1
        } else {
            0
        };
        IdTable {
            dense: vec![UNMAPPED; dense_len],
            sparse: HashMap::default(),
        }
    }

    fn set(&mut self, id: u64, value: u32) {
        if (id as usize) < self.dense.len() {
            self.dense[id as usize] = value;
        } else {
            self.sparse.insert(id, value);
        }
    }

    /// Records `id → value` unless `id` is already known; false when it was.
    fn insert_first(&mut self, id: u64, value: u32) -> bool {
        if (id as usize) < self.dense.len() {
            let slot = &mut self.dense[id as usize];
            if *slot != UNMAPPED {
                return false;
            }
            *slot = value;
            true
        } else {
            match self.sparse.entry(id) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(value);
                    true
                }
            }
        }
    }

    fn get(&self, id: u64) -> Option<u32> {
        if (id as usize) < self.dense.len() {
            Some(self.dense[id as usize]).filter(|&i| i != UNMAPPED)
        } else {
            self.sparse.get(&id).copied()
        }
    }
}

/// Counts one kind of damage and remembers its first example.
#[derive(Default)]
struct Damage {
    count: usize,
    first: Option<String>,
}

impl Damage {
    fn hit(&mut self, example: impl FnOnce() -> String) {
        if self.count == 0 {
            self.first = Some(example());
        }
        self.count += 1;
    }

    fn report(self, profile: &mut Profile, at: &str, what: &str) {
        if self.count > 0 {
            let first = self.first.unwrap_or_default();
            profile.warn(at, format!("{} {what} (first: {first})", self.count));
        }
    }
}

/// The result of lowering: where each id went, and each new stack's `self_size`.
pub(crate) struct Lowered {
    pub map: NodeMap,
    pub self_size: Vec<(StackId, u64)>,
}

impl RawTree {
    /// Lowers the tree into `profile.stacks`, attaching position ticks and deopt reasons to
    /// `thread`. `at` is the JSON path of the node list, for warnings.
    pub fn lower(self, profile: &mut Profile, thread: &mut Thread, at: &str) -> Lowered {
        let n = self.nodes.len();
        let mut index_of =
            IdTable::new(self.nodes.iter().map(|node| node.id).max().unwrap_or(0), n);
        let mut duplicate_ids = Damage::default();
        let mut max_id = 0;
        for (i, node) in self.nodes.iter().enumerate() {
            max_id = max_id.max(node.id);
            // The first node with an id wins, as lookups by id will.
            if !index_of.insert_first(node.id, i as u32) {
                duplicate_ids.hit(|| format!("{at}[{i}] id {}", node.id));
            }
        }
        let mut map = NodeMap(IdTable::new(max_id, n));
        let mut self_size = Vec::new();
        // DevTools' totalHitCount: the nodes' hitCounts when the first node has one.
        if self.nodes.first().is_some_and(|f| f.hit_count.is_some()) {
            thread.hit_count = Some(self.nodes.iter().filter_map(|n| n.hit_count).sum());
        }
        let Some(root) = (if n == 0 {
            None
        } else {
            Some(self.root.unwrap_or(0))
        }) else {
            return Lowered { map, self_size };
        };

        // Children lists: as given, or rebuilt from `parent` links when the root has none
        // (the trace format), exactly when DevTools rebuilds them.
        let from_parents = self.nodes[root].children.is_none();
        let mut built: Vec<Vec<u32>> = Vec::new();
        let mut missing_parents = Damage::default();
        if from_parents {
            built = vec![Vec::new(); n];
            for (i, node) in self.nodes.iter().enumerate() {
                if i == root {
                    continue;
                }
                match node.parent.and_then(|p| index_of.get(p)) {
                    Some(p) => built[p as usize].push(i as u32),
                    None => missing_parents.hit(|| format!("{at}[{i}] parent {:?}", node.parent)),
                }
            }
        }

        let mut missing_children = Damage::default();
        let mut revisits = Damage::default();
        let mut visited = vec![false; n];
        visited[root] = true;
        map.set(self.nodes[root].id, NodeTarget::Root);
        // Depth-first, children in file order, so parents always precede their children.
        let mut todo: Vec<(u32, Option<StackId>)> = Vec::new();
        let push_children = |todo: &mut Vec<(u32, Option<StackId>)>,
                             missing: &mut Damage,
                             node: usize,
                             stack: Option<StackId>| {
            if from_parents {
                todo.extend(built[node].iter().rev().map(|&c| (c, stack)));
            } else if let Some(range) = self.nodes[node].children.clone() {
                for &child in self.children[range.start as usize..range.end as usize]
                    .iter()
                    .rev()
                {
                    match index_of.get(child) {
                        Some(c) => todo.push((c, stack)),
                        None => missing.hit(|| format!("{at}[{node}] lists child {child}")),
                    }
                }
            }
        };
        push_children(&mut todo, &mut missing_children, root, None);
        while let Some((i, parent)) = todo.pop() {
            let i = i as usize;
            if visited[i] {
                revisits.hit(|| format!("{at}[{i}] id {}", self.nodes[i].id));
                continue;
            }
            visited[i] = true;
            let node = &self.nodes[i];
            let stack = profile.stacks.push(parent, node.frame, node.id);
            map.set(node.id, NodeTarget::Stack(stack));
            for &(line, ticks) in &self.ticks[node.ticks.start as usize..node.ticks.end as usize] {
                thread.position_ticks.push((stack, line, ticks));
            }
            if let Some(reason) = node.deopt_reason {
                thread.deopt_reasons.push((stack, reason));
            }
            if node.self_size > 0 {
                self_size.push((stack, node.self_size));
            }
            push_children(&mut todo, &mut missing_children, i, Some(stack));
        }

        let mut unreachable = Damage::default();
        for (i, seen) in visited.iter().enumerate() {
            if !seen {
                unreachable.hit(|| format!("{at}[{i}] id {}", self.nodes[i].id));
            }
        }
        duplicate_ids.report(
            profile,
            at,
            "nodes repeat an earlier node's id; the first one is used",
        );
        missing_parents.report(
            profile,
            at,
            "nodes name a parent that does not exist; skipped",
        );
        missing_children.report(profile, at, "child ids refer to no node; skipped");
        revisits.report(
            profile,
            at,
            "nodes are reached a second time (a cycle or a shared child); later visits skipped",
        );
        unreachable.report(
            profile,
            at,
            "nodes are not reachable from the root; skipped",
        );
        Lowered { map, self_size }
    }
}
