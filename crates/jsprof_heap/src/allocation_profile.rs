//! Allocation stacks of a `.heaptimeline` (DevTools' `AllocationProfile`): the `trace_tree` with what
//! each stack allocated while tracking was on, and what of it is still alive in the snapshot (objects
//! whose `trace_node_id` points at the stack; live sizes are self sizes after DevTools' transfer).

use std::collections::HashMap;

use crate::snapshot::HeapSnapshot;

/// One stack of the top-down tree (a `trace_tree` node), with its own allocations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackNode {
    /// Index into `trace_function_infos`.
    pub function: u32,
    pub count: u64,
    pub size: u64,
    pub live_count: u64,
    pub live_size: u64,
    /// Indexes into [`AllocationProfile::nodes`].
    pub children: Vec<usize>,
    pub parent: Option<usize>,
}

/// A function's allocations as the bottom-up view shows them: totals over the stacks it tops, and
/// those stacks' callers merged by function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BottomUpNode {
    pub function: u32,
    pub count: u64,
    pub size: u64,
    pub live_count: u64,
    pub live_size: u64,
    pub callers: Vec<BottomUpNode>,
}

impl BottomUpNode {
    /// The function's entry before any stack is added to it.
    fn empty(function: u32) -> BottomUpNode {
        BottomUpNode {
            function,
            count: 0,
            size: 0,
            live_count: 0,
            live_size: 0,
            callers: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct AllocationProfile {
    /// Pre-order; roots have no parent.
    pub nodes: Vec<StackNode>,
}

impl AllocationProfile {
    /// Builds the tree; `None` when the file has no allocation traces.
    pub fn new(s: &HeapSnapshot) -> Option<AllocationProfile> {
        if s.trace_tree.is_empty() {
            return None;
        }
        let mut live: HashMap<u32, (u64, u64)> = HashMap::new();
        for (n, &trace) in s.nodes.trace_node_id.iter().enumerate() {
            let entry = live.entry(trace).or_default();
            entry.0 += 1;
            entry.1 += s.nodes.self_size[n] as u64;
        }
        let mut nodes: Vec<StackNode> = s
            .trace_tree
            .iter()
            .map(|t| {
                let (live_count, live_size) = live.get(&t.id).copied().unwrap_or_default();
                StackNode {
                    function: t.function_info_index,
                    count: t.count as u64,
                    size: t.size,
                    live_count,
                    live_size,
                    children: Vec::new(),
                    parent: (t.parent != u32::MAX).then_some(t.parent as usize),
                }
            })
            .collect();
        for i in 0..nodes.len() {
            if let Some(p) = nodes[i].parent {
                nodes[p].children.push(i);
            }
        }
        Some(AllocationProfile { nodes })
    }

    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(|&i| self.nodes[i].parent.is_none())
    }

    /// Count and size allocated in a stack and all stacks below it.
    pub fn subtree_totals(&self, i: usize) -> (u64, u64) {
        let node = &self.nodes[i];
        node.children
            .iter()
            .map(|&c| self.subtree_totals(c))
            .fold((node.count, node.size), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// The bottom-up view: one entry per function that allocated (DevTools' trace tops), largest
    /// allocated size first, each with its callers.
    pub fn bottom_up(&self) -> Vec<BottomUpNode> {
        let mut tops: Vec<BottomUpNode> = Vec::new();
        let mut top_of: HashMap<u32, usize> = HashMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if node.count == 0 {
                continue;
            }
            let slot = *top_of.entry(node.function).or_insert_with(|| {
                tops.push(BottomUpNode::empty(node.function));
                tops.len() - 1
            });
            // Walk up the stack, adding this stack's figures to each caller level.
            let mut level = &mut tops[slot];
            let mut at = Some(i);
            loop {
                level.count += node.count;
                level.size += node.size;
                level.live_count += node.live_count;
                level.live_size += node.live_size;
                at = at.and_then(|k| self.nodes[k].parent);
                let Some(caller) = at else { break };
                let function = self.nodes[caller].function;
                let pos = match level.callers.iter().position(|c| c.function == function) {
                    Some(p) => p,
                    None => {
                        level.callers.push(BottomUpNode::empty(function));
                        level.callers.len() - 1
                    }
                };
                level = &mut level.callers[pos];
            }
        }
        tops.sort_by(|x, y| y.size.cmp(&x.size).then(x.function.cmp(&y.function)));
        tops
    }
}
