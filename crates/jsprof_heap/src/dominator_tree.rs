//! The dominator tree as a parent → children index, for walking it from any node downwards.

use crate::analysis::Analysis;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// Children of each node in the dominator tree, largest retained size first.
pub struct DominatorTree {
    first: Vec<u32>,
    children: Vec<NodeOrdinal>,
}

/// The dominator tree as child lists (CSR), in node order: `children[first[n]..first[n + 1]]`
/// are the nodes `n` immediately dominates.
pub(crate) fn child_lists(s: &HeapSnapshot, a: &Analysis) -> (Vec<u32>, Vec<NodeOrdinal>) {
    let n = s.nodes.len();
    let root = s.root as usize;
    let mut first = vec![0u32; n + 1];
    for (i, &d) in a.idom.iter().enumerate() {
        if i != root {
            first[d as usize + 1] += 1;
        }
    }
    for i in 0..n {
        first[i + 1] += first[i];
    }
    let mut fill = first.clone();
    let mut children = vec![0 as NodeOrdinal; n.saturating_sub(1)];
    for (i, &d) in a.idom.iter().enumerate() {
        if i != root {
            children[fill[d as usize] as usize] = i as NodeOrdinal;
            fill[d as usize] += 1;
        }
    }
    (first, children)
}

impl DominatorTree {
    pub fn new(s: &HeapSnapshot, a: &Analysis) -> DominatorTree {
        let n = s.nodes.len();
        let (first, mut children) = child_lists(s, a);
        for node in 0..n {
            let slice = &mut children[first[node] as usize..first[node + 1] as usize];
            slice.sort_by(|&x, &y| {
                a.retained[y as usize]
                    .cmp(&a.retained[x as usize])
                    .then(x.cmp(&y))
            });
        }
        DominatorTree { first, children }
    }

    /// The nodes `n` immediately dominates, largest retained size first (ties in node order).
    pub fn children(&self, n: NodeOrdinal) -> &[NodeOrdinal] {
        &self.children[self.first[n as usize] as usize..self.first[n as usize + 1] as usize]
    }
}
