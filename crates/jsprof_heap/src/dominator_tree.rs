//! The dominator tree as a parent → children index, for walking it from any node downwards.

use crate::analysis::Analysis;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// Children of each node in the dominator tree, largest retained size first.
pub struct DominatorTree {
    first: Vec<u32>,
    children: Vec<NodeOrdinal>,
}

/// The dominator tree as child lists (CSR), in node order: `children[first[n]..first[n + 1]]`
/// are the nodes `n` immediately dominates. 8 bytes a node, and no other array: `first[d]`
/// first counts `d`'s children, then (summed) marks the end of its list, and filling the lists
/// from the last node back leaves it at the list's start, each list in node order.
pub(crate) fn child_lists(s: &HeapSnapshot, a: &Analysis) -> (Vec<u32>, Vec<NodeOrdinal>) {
    let n = s.nodes.len();
    let root = s.root.index();
    let mut first = vec![0u32; n + 1];
    for (i, &d) in a.idom.iter().enumerate() {
        if i != root {
            first[d.index()] += 1;
        }
    }
    let mut end = 0u32;
    for f in &mut first[..n] {
        end += *f;
        *f = end;
    }
    first[n] = end;
    let mut children = vec![NodeOrdinal::new(0); end as usize];
    for (i, &d) in a.idom.iter().enumerate().rev() {
        if i != root {
            let f = &mut first[d.index()];
            *f -= 1;
            children[*f as usize] = NodeOrdinal::from_index(i);
        }
    }
    (first, children)
}

impl DominatorTree {
    pub fn new(s: &HeapSnapshot, a: &Analysis) -> DominatorTree {
        let (first, mut children) = child_lists(s, a);
        // Each list is sorted on its own, so the nodes split in two halves sort on two cores
        // (small graphs on one: a thread costs more than their sort).
        let n = s.nodes.len();
        if n < crate::PARALLEL_MIN_NODES {
            sort_lists(a, &first, &mut children, 0);
            return DominatorTree { first, children };
        }
        let mid = n / 2;
        let (low, high) = children.split_at_mut(first[mid] as usize);
        std::thread::scope(|scope| {
            scope.spawn(|| sort_lists(a, &first[..=mid], low, 0));
            sort_lists(a, &first[mid..], high, first[mid]);
        });
        DominatorTree { first, children }
    }

    /// The nodes `n` immediately dominates, largest retained size first (ties in node order).
    pub fn children(&self, n: NodeOrdinal) -> &[NodeOrdinal] {
        &self.children[self.first[n.index()] as usize..self.first[n.index() + 1] as usize]
    }
}

/// Sorts the lists `children[first[i] - base..first[i + 1] - base]` largest retained size first,
/// ties in node order (the order they are in: a stable sort keeps it).
fn sort_lists(a: &Analysis, first: &[u32], children: &mut [NodeOrdinal], base: u32) {
    for w in first.windows(2) {
        let list = &mut children[(w[0] - base) as usize..(w[1] - base) as usize];
        if list.len() > 1 {
            list.sort_by_key(|&x| std::cmp::Reverse(a.retained[x.index()]));
        }
    }
}
