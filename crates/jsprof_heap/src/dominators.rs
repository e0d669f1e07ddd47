//! Immediate dominators (Lengauer–Tarjan, the simple eval/link variant) and retained sizes.
//!
//! For nodes reachable from the root any correct algorithm gives the same tree. Nodes that are not
//! reachable through essential edges get DevTools' treatment, which decides their numbers bit for bit:
//! after the DFS from the root, every unvisited node with no essential retainer starts a DFS of its own
//! (in ascending order) hanging off the root; whatever is still unvisited (cycles retained only by each
//! other) is numbered one by one, parented to the root, with no DFS. The DFS takes successors in edge
//! order and the main loop scans predecessors in DevTools' retainer order, so the same quirks follow.

use crate::bits::BitVec;
use crate::retainers::Retainers;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// The dominator tree as a parent array, and each node's retained size.
pub struct Dominators {
    /// `idom[n]` is node `n`'s immediate dominator; the root is its own.
    pub idom: Vec<NodeOrdinal>,
    /// Retained sizes in bytes: the node's (adjusted) self size plus those of the nodes it dominates.
    pub retained: Vec<u64>,
}

/// The graph the algorithm needs: forward edges (with an essential bit) and essential predecessors.
pub(crate) struct Graph<'a> {
    pub first_edge: &'a [u32],
    pub to_node: &'a [NodeOrdinal],
    pub essential: &'a BitVec,
    pub retainers: &'a Retainers,
}

impl<'a> Graph<'a> {
    pub(crate) fn of(
        s: &'a HeapSnapshot,
        essential: &'a BitVec,
        retainers: &'a Retainers,
    ) -> Graph<'a> {
        Graph {
            first_edge: &s.nodes.first_edge,
            to_node: &s.edges.to_node,
            essential,
            retainers,
        }
    }
}

/// Computes immediate dominators and retained sizes. `self_sizes` are the sizes after the transfer.
pub(crate) fn compute(g: &Graph<'_>, root: NodeOrdinal, self_sizes: &[u32]) -> Dominators {
    let node_count = g.first_edge.len() - 1;
    // Vertices are 1-based (ordinal + 1) so that 0 can mean "none", as in the paper.
    let len = node_count + 1;
    let mut parent = vec![0u32; len];
    let mut ancestor = vec![0u32; len];
    let mut vertex = vec![0u32; len];
    let mut label = vec![0u32; len];
    let mut semi = vec![0u32; len];
    // Before the main loop this holds each vertex's next edge to look at in the DFS.
    let mut dom = vec![0u32; len];
    let mut n: u32 = 0;

    // Whether a vertex has its DFS number, as a bit: the DFS tests one per essential edge, at random,
    // and a bit vector stays in cache where `semi` (4 bytes a vertex) does not.
    let mut visited = BitVec::new(len);
    let dfs = |start: u32,
               visited: &mut BitVec,
               parent: &mut [u32],
               vertex: &mut [u32],
               label: &mut [u32],
               semi: &mut [u32],
               next_edge: &mut [u32],
               n: &mut u32| {
        next_edge[start as usize] = g.first_edge[start as usize - 1];
        let mut v = start;
        while v != 0 {
            let vi = v as usize;
            if semi[vi] == 0 {
                *n += 1;
                semi[vi] = *n;
                visited.set(vi);
                vertex[*n as usize] = v;
                label[vi] = v;
            }
            let mut v_next = parent[vi];
            let end = g.first_edge[vi];
            while next_edge[vi] < end {
                let e = next_edge[vi] as usize;
                next_edge[vi] += 1;
                if !g.essential.get(e) {
                    continue;
                }
                let w = g.to_node[e] + 1;
                if !visited.get(w as usize) {
                    parent[w as usize] = v;
                    next_edge[w as usize] = g.first_edge[w as usize - 1];
                    v_next = w;
                    // DevTools leaves the cursor on this edge; it is skipped next time as w is visited.
                    break;
                }
            }
            v = v_next;
        }
    };

    let r = root + 1;
    dfs(
        r,
        &mut visited,
        &mut parent,
        &mut vertex,
        &mut label,
        &mut semi,
        &mut dom,
        &mut n,
    );
    if (n as usize) < node_count {
        for v in 1..=node_count as u32 {
            if semi[v as usize] == 0 && g.retainers.of(v - 1).is_empty() {
                parent[v as usize] = r;
                dfs(
                    v,
                    &mut visited,
                    &mut parent,
                    &mut vertex,
                    &mut label,
                    &mut semi,
                    &mut dom,
                    &mut n,
                );
            }
        }
    }
    if (n as usize) < node_count {
        for v in 1..=node_count as u32 {
            if semi[v as usize] == 0 {
                parent[v as usize] = r;
                n += 1;
                semi[v as usize] = n;
                vertex[n as usize] = v;
                label[v as usize] = v;
            }
        }
    }
    dom.iter_mut().for_each(|d| *d = 0);

    // Buckets as FIFO linked lists (DevTools iterates a Set, i.e. in insertion order).
    let mut bucket_head = vec![0u32; len];
    let mut bucket_tail = vec![0u32; len];
    let mut bucket_next = vec![0u32; len];
    // The path `compress` walks: usually short, so it grows as needed rather than taking 4 bytes
    // a node at the dominators' peak.
    let mut stack: Vec<u32> = Vec::new();

    let compress =
        |v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], stack: &mut Vec<u32>| {
            let mut v = v;
            while ancestor[ancestor[v as usize] as usize] != 0 {
                stack.push(v);
                v = ancestor[v as usize];
            }
            while let Some(w) = stack.pop() {
                let w = w as usize;
                let a = ancestor[w] as usize;
                if semi[label[a] as usize] < semi[label[w] as usize] {
                    label[w] = label[a];
                }
                ancestor[w] = ancestor[a];
            }
        };
    let eval = |v: u32,
                ancestor: &mut [u32],
                label: &mut [u32],
                semi: &[u32],
                stack: &mut Vec<u32>|
     -> u32 {
        if ancestor[v as usize] == 0 {
            return v;
        }
        compress(v, ancestor, label, semi, stack);
        label[v as usize]
    };

    for i in (2..=n).rev() {
        let w = vertex[i as usize];
        let preds = g.retainers.of(w - 1);
        if preds.is_empty() {
            // An orphan: treated as having the root as its only predecessor.
            semi[w as usize] = semi[r as usize];
        }
        for &pred in preds {
            let u = eval(pred + 1, &mut ancestor, &mut label, &semi, &mut stack);
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        let b = vertex[semi[w as usize] as usize] as usize;
        if bucket_head[b] == 0 {
            bucket_head[b] = w;
        } else {
            bucket_next[bucket_tail[b] as usize] = w;
        }
        bucket_tail[b] = w;
        let p = parent[w as usize];
        ancestor[w as usize] = p;
        let mut v = bucket_head[p as usize];
        while v != 0 {
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut stack);
            dom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                p
            };
            let next = bucket_next[v as usize];
            bucket_next[v as usize] = 0;
            v = next;
        }
        bucket_head[p as usize] = 0;
        bucket_tail[p as usize] = 0;
    }
    drop((
        bucket_head,
        bucket_tail,
        bucket_next,
        stack,
        ancestor,
        label,
        parent,
    ));

    dom[0] = r;
    dom[r as usize] = r;
    for i in 2..=n as usize {
        let w = vertex[i] as usize;
        if dom[w] != vertex[semi[w] as usize] {
            dom[w] = dom[dom[w] as usize];
        }
    }
    drop(semi);

    let idom: Vec<NodeOrdinal> = dom[1..].iter().map(|&d| d.wrapping_sub(1)).collect();
    drop(dom);
    let mut retained: Vec<u64> = self_sizes.iter().map(|&s| s as u64).collect();
    for i in (2..=n as usize).rev() {
        let node = (vertex[i] - 1) as usize;
        retained[idom[node] as usize] += retained[node];
    }
    Dominators { idom, retained }
}
