//! The reverse graph, for dominators: who retains each node through an essential edge.
//!
//! DevTools fills each node's retainer slice from its end while walking sources in order, so retainers
//! come in reverse source order. Lengauer–Tarjan's result for unreachable nodes depends on that order,
//! so it is kept here. Only essential edges are stored: the dominator code reads no others, and this
//! halves the memory of the reverse graph.

use crate::bits::BitVec;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

pub(crate) struct Retainers {
    /// `first[n]..first[n + 1]` index `sources` for node `n`; one entry more than nodes.
    pub first: Vec<u32>,
    /// Raw node ordinals: the dominators' loop adds one to each (its vertices are 1-based).
    pub sources: Vec<u32>,
}

impl Retainers {
    /// The essential retainers of the node whose raw ordinal is `n`.
    #[inline]
    pub fn of(&self, n: u32) -> &[u32] {
        &self.sources[self.first[n as usize] as usize..self.first[n as usize + 1] as usize]
    }
}

/// Reads only `first_edge` and `to_node` (the analysis builds it with the other columns set
/// aside, `crate::spill`).
pub(crate) fn essential_retainers(s: &HeapSnapshot, essential: &BitVec) -> Retainers {
    let n = s.nodes.first_edge.len().saturating_sub(1);
    let mut first = vec![0u32; n + 1];
    for (e, &to) in s.edges.to_node.iter().enumerate() {
        if essential.get(e) {
            first[to as usize + 1] += 1;
        }
    }
    for i in 0..n {
        first[i + 1] += first[i];
    }
    // `next[t]` is one past the slot to fill next for target `t`, walking down from the slice's end.
    let mut next: Vec<u32> = first[1..].to_vec();
    let mut sources = vec![0u32; first[n] as usize];
    for src in (0..n as u32).map(NodeOrdinal::new) {
        for e in s.nodes.edge_range(src) {
            if essential.get(e) {
                let to = s.edges.to_node[e] as usize;
                next[to] -= 1;
                sources[next[to] as usize] = src.raw();
            }
        }
    }
    Retainers { first, sources }
}

/// How many edges of any type point at each node (DevTools' `retainersCount`).
pub(crate) fn retainer_counts(s: &HeapSnapshot) -> Vec<u32> {
    let mut counts = vec![0u32; s.nodes.len()];
    for &to in &s.edges.to_node {
        counts[to as usize] += 1;
    }
    counts
}
