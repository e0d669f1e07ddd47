//! Why an object is alive: its retaining paths up to the roots, as DevTools' Retainers view walks them.
//!
//! Retainers are followed over every edge except weak ones and the root's own edges
//! (`retainingEdgesFilter`), closest to the roots first by DevTools' distance. A path ends at a node
//! the root holds directly: a user root (distance 1, e.g. `Window` or Node's global) or `(GC roots)`.
//! The search is best-first on path length plus the retainer's distance to its root, so the shortest
//! paths come out first, and paths through user roots before paths through `(GC roots)` (DevTools'
//! `getRetainingPaths` follows retainers by ascending distance and never into the GC roots). Each node
//! is expanded at most as many times as paths are wanted, which bounds the work on graphs with many
//! routes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::analysis::Analysis;
use crate::distances::BASE_SYSTEM_DISTANCE;
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal};

/// Every edge by its target: the full reverse graph (DevTools' `retainingEdges`), in DevTools' order
/// (sources in reverse order, as `buildRetainers` fills it). The default index has no edges and
/// answers no question: for callers that need none.
#[derive(Default)]
pub struct RetainerIndex {
    first: Vec<u32>,
    edges: Vec<EdgeOrdinal>,
    /// `sources[b]`: the source of edge `b * SOURCE_BUCKET`, so [`RetainerIndex::source`]
    /// searches only the few nodes between two of them (4 bytes per 256 edges).
    sources: Vec<u32>,
}

/// Edges per entry of [`RetainerIndex`]'s `sources`.
const SOURCE_BUCKET: usize = 256;

impl RetainerIndex {
    /// 4 bytes a node and 4 an edge, and no other array: `first[t]` first counts the edges into
    /// `t`, then (summed) marks the end of its list, and filling the lists edge by edge moves it
    /// back to the list's start, each list's edges from the last source to the first.
    pub fn new(s: &HeapSnapshot) -> RetainerIndex {
        let n = s.nodes.len();
        let mut first = vec![0u32; n + 1];
        for &to in &s.edges.to_node {
            first[to as usize] += 1;
        }
        let mut end = 0u32;
        for f in &mut first[..n] {
            end += *f;
            *f = end;
        }
        first[n] = end;
        let mut edges = vec![EdgeOrdinal::new(0); s.edges.len()];
        for (e, &to) in s.edges.to_node.iter().enumerate() {
            let f = &mut first[to as usize];
            *f -= 1;
            edges[*f as usize] = EdgeOrdinal::from_index(e);
        }
        let sources = (0..s.edges.len())
            .step_by(SOURCE_BUCKET)
            .map(|e| edge_source(s, EdgeOrdinal::from_index(e)).index() as u32)
            .collect();
        RetainerIndex {
            first,
            edges,
            sources,
        }
    }

    /// [`edge_source`], searching only the nodes whose edges share `e`'s bucket: on the 440 MB
    /// bench snapshot a search over every node was most of the time of `heap advisors`, whose
    /// findings each ask for a retaining path.
    pub fn source(&self, s: &HeapSnapshot, e: EdgeOrdinal) -> NodeOrdinal {
        let b = e.index() / SOURCE_BUCKET;
        let Some(&lo) = self.sources.get(b) else {
            return edge_source(s, e);
        };
        let lo = lo as usize;
        let hi = self
            .sources
            .get(b + 1)
            .map_or(s.nodes.len() - 1, |&h| h as usize);
        // The source is the last node in lo..=hi whose first edge is at or before `e`; lo's is.
        let within = s.nodes.first_edge[lo..=hi].partition_point(|&f| f <= e.raw());
        NodeOrdinal::from_index(lo + within - 1)
    }

    /// The edges that point at `n`.
    pub fn edges_of(&self, n: NodeOrdinal) -> &[EdgeOrdinal] {
        &self.edges[self.first[n.index()] as usize..self.first[n.index() + 1] as usize]
    }
}

/// The node an edge comes from: the last node whose first edge is at or before it (a binary search).
pub fn edge_source(s: &HeapSnapshot, e: EdgeOrdinal) -> NodeOrdinal {
    NodeOrdinal::from_index(s.nodes.first_edge.partition_point(|&f| f <= e.raw()) - 1)
}

/// Whether the root holds edge `e`: the root's edges are one range of ordinals, so this needs
/// no search for the edge's source.
pub fn from_root(s: &HeapSnapshot, e: EdgeOrdinal) -> bool {
    s.nodes.edge_range(s.root).contains(&e.index())
}

/// Limits of [`retaining_paths`].
#[derive(Clone, Copy, Debug)]
pub struct PathOptions {
    /// How many distinct paths to return.
    pub max_paths: usize,
    /// The most steps a path may have.
    pub max_depth: usize,
    /// How many partial paths the search may hold before it gives up.
    pub max_states: usize,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions {
            max_paths: 5,
            max_depth: 100,
            max_states: 1_000_000,
        }
    }
}

/// One retaining path: `edges[0]` points at the object, each next edge at the previous edge's source,
/// and the last edge's source is held directly by the root. Empty when the root holds the object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetainingPath {
    pub edges: Vec<EdgeOrdinal>,
}

/// Added to the estimate of nodes that only the GC roots reach, so that a path through user roots
/// (distance < 100 000 000) always comes before one through `(GC roots)`, as in DevTools, which sorts
/// retainers by distance.
const SYSTEM_PENALTY: u64 = 1 << 20;

/// Estimated steps from a node to one the root holds, from its distance, plus [`SYSTEM_PENALTY`] for
/// nodes only the GC roots reach; `None` for nodes that no root reaches.
fn remaining(distance: i32) -> Option<u64> {
    if distance >= BASE_SYSTEM_DISTANCE {
        Some(SYSTEM_PENALTY + (distance - BASE_SYSTEM_DISTANCE - 1).max(0) as u64)
    } else if distance >= 1 {
        Some(distance as u64 - 1)
    } else if distance == 0 {
        Some(0)
    } else {
        None
    }
}

/// The shortest retaining paths of `node`, shortest first.
pub fn retaining_paths(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    node: NodeOrdinal,
    options: PathOptions,
) -> Vec<RetainingPath> {
    struct State {
        node: NodeOrdinal,
        /// The edge from `node` towards the object; `None` for the object itself.
        edge: Option<EdgeOrdinal>,
        parent: u32,
        depth: u32,
    }
    let types = s.types();
    let root = s.root;
    // "Does the root hold it" without a search for each edge's source (a binary search over
    // every node was 80 % of `heap advisors --limit 0` on a 440 MB snapshot).
    let held_by_root = |n: NodeOrdinal| index.edges_of(n).iter().any(|&e| from_root(s, e));
    let mut paths = Vec::new();
    if options.max_paths == 0 || node == root || remaining(a.distances[node.index()]).is_none() {
        return paths;
    }
    let mut states = vec![State {
        node,
        edge: None,
        parent: u32::MAX,
        depth: 0,
    }];
    // Ordered by estimated total length, then the retainer's distance, then insertion.
    let mut queue: BinaryHeap<Reverse<(u64, i32, u32)>> = BinaryHeap::new();
    queue.push(Reverse((0, a.distances[node.index()], 0)));
    let mut expanded: HashMap<NodeOrdinal, usize> = HashMap::new();
    while let Some(Reverse((_, _, at))) = queue.pop() {
        let state = &states[at as usize];
        let (current, depth) = (state.node, state.depth);
        if held_by_root(current) {
            let mut edges = Vec::with_capacity(depth as usize);
            let mut k = at;
            while let Some(edge) = states[k as usize].edge {
                edges.push(edge);
                k = states[k as usize].parent;
            }
            edges.reverse();
            paths.push(RetainingPath { edges });
            if paths.len() >= options.max_paths {
                break;
            }
            continue;
        }
        let times = expanded.entry(current).or_insert(0);
        if *times >= options.max_paths || depth as usize >= options.max_depth {
            continue;
        }
        *times += 1;
        for &e in index.edges_of(current) {
            let kind = s.edges.kind(e);
            if kind == types.edge_weak || kind == types.edge_invisible {
                continue;
            }
            if from_root(s, e) {
                continue;
            }
            let source = index.source(s, e);
            let distance = a.distances[source.index()];
            let Some(left) = remaining(distance) else {
                continue;
            };
            if depth as usize + 1 + (left % SYSTEM_PENALTY) as usize > options.max_depth {
                continue;
            }
            // Simple paths only: skip retainers already on this path.
            let mut k = at;
            let mut on_path = false;
            while k != u32::MAX {
                if states[k as usize].node == source {
                    on_path = true;
                    break;
                }
                k = states[k as usize].parent;
            }
            if on_path {
                continue;
            }
            if states.len() >= options.max_states {
                return paths;
            }
            let id = states.len() as u32;
            states.push(State {
                node: source,
                edge: Some(e),
                parent: at,
                depth: depth + 1,
            });
            queue.push(Reverse((depth as u64 + 1 + left, distance, id)));
        }
    }
    paths
}
