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
    pub to_node: &'a [u32],
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
    // `ancestor` doubles as the DFS tree's parent array: a vertex's link in the eval/link forest is
    // its DFS parent, set once the vertex is linked (`linked`). Until then the slot holds the
    // parent the DFS found, which is what linking needs; one array instead of two, 4 bytes a node
    // at the dominators' peak for one bit.
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

    // The DFS from `start` over the arrays above (a macro, not a closure capturing them: they are
    // read between the walks).
    macro_rules! dfs_from {
        ($start:expr) => {
            dfs(
                $start,
                &mut visited,
                &mut ancestor,
                &mut vertex,
                &mut label,
                &mut semi,
                &mut dom,
                &mut n,
            )
        };
    }
    let r = root.raw() + 1;
    dfs_from!(r);
    if (n as usize) < node_count {
        for v in 1..=node_count as u32 {
            if semi[v as usize] == 0 && g.retainers.of(v - 1).is_empty() {
                ancestor[v as usize] = r;
                dfs_from!(v);
            }
        }
    }
    if (n as usize) < node_count {
        for v in 1..=node_count as u32 {
            if semi[v as usize] == 0 {
                ancestor[v as usize] = r;
                n += 1;
                semi[v as usize] = n;
                vertex[n as usize] = v;
                label[v as usize] = v;
            }
        }
    }
    dom.iter_mut().for_each(|d| *d = 0);
    drop(visited);
    // Whether a vertex is linked into the eval/link forest (its `ancestor` slot is then a forest
    // link; before, its DFS parent).
    let mut linked = BitVec::new(len);

    // Buckets as linked lists: `bucket_head[b]` is the last vertex put in `b`'s bucket and `dom[v]`
    // the next one after `v` (`dom[v]` has no other use until `v` leaves its bucket, when its value
    // is set). The order inside a bucket does not matter: `eval` answers the same whatever paths
    // earlier calls compressed. This takes 4 bytes a node where a FIFO list took 12.
    let mut bucket_head = vec![0u32; len];
    // The path `compress` walks: usually short, so it grows as needed rather than taking 4 bytes
    // a node at the dominators' peak.
    let mut stack: Vec<u32> = Vec::new();

    let compress = |v: u32,
                    ancestor: &mut [u32],
                    linked: &BitVec,
                    label: &mut [u32],
                    semi: &[u32],
                    stack: &mut Vec<u32>| {
        let mut v = v;
        while linked.get(ancestor[v as usize] as usize) {
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
                linked: &BitVec,
                label: &mut [u32],
                semi: &[u32],
                stack: &mut Vec<u32>|
     -> u32 {
        if !linked.get(v as usize) {
            return v;
        }
        compress(v, ancestor, linked, label, semi, stack);
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
            let u = eval(
                pred + 1,
                &mut ancestor,
                &linked,
                &mut label,
                &semi,
                &mut stack,
            );
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        let b = vertex[semi[w as usize] as usize] as usize;
        dom[w as usize] = bucket_head[b];
        bucket_head[b] = w;
        // Link w to its DFS parent, which its `ancestor` slot already holds.
        let p = ancestor[w as usize];
        linked.set(w as usize);
        let mut v = std::mem::take(&mut bucket_head[p as usize]);
        while v != 0 {
            let next = dom[v as usize];
            let u = eval(v, &mut ancestor, &linked, &mut label, &semi, &mut stack);
            dom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                p
            };
            v = next;
        }
    }
    // A vertex numbered without a DFS (phase 3) can have a semidominator that is not its tree
    // ancestor, whose bucket no link ever empties. It keeps `dom` 0, which the pass below reads as
    // the root (`dom[0]`), as DevTools' arrays do; clear the list pointers to say so.
    for head in &mut bucket_head {
        let mut v = std::mem::take(head);
        while v != 0 {
            v = std::mem::take(&mut dom[v as usize]);
        }
    }
    drop((bucket_head, stack, ancestor, linked, label));

    dom[0] = r;
    dom[r as usize] = r;
    for i in 2..=n as usize {
        let w = vertex[i] as usize;
        if dom[w] != vertex[semi[w] as usize] {
            dom[w] = dom[dom[w] as usize];
        }
    }
    drop(semi);

    let idom: Vec<NodeOrdinal> = dom[1..]
        .iter()
        .map(|&d| NodeOrdinal::new(d.wrapping_sub(1)))
        .collect();
    drop(dom);
    let mut retained: Vec<u64> = self_sizes.iter().map(|&s| s as u64).collect();
    for i in (2..=n as usize).rev() {
        let node = (vertex[i] - 1) as usize;
        retained[idom[node].index()] += retained[node];
    }
    Dominators { idom, retained }
}
