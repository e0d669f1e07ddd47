//! The invariants the engine indexes by, checked on every table read from an index (and on
//! every analysis before its index is written), so that a forged index whose checksums match
//! still cannot make the engine index out of bounds or walk a cycle.

use super::wire::{corrupt, Reject};
use crate::analysis::Analysis;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// The invariants the engine indexes by, so that a forged index with matching checksums still
/// cannot make it panic. The reader and the analysis guarantee each of them; an index is written
/// only when they hold, so a valid index is never refused by them.
pub(crate) fn check_tables(s: &HeapSnapshot, a: &Analysis) -> Result<(), Reject> {
    check_tables_aside(s, a, None)
}

/// [`check_tables`] of a snapshot whose edge names and types are set aside (`aside`: their
/// lengths). Their values are not checked then: the reader checked every edge name of a snapshot
/// it read against the string table, and the analysis only adds strings.
pub(crate) fn check_tables_aside(
    s: &HeapSnapshot,
    a: &Analysis,
    aside: Option<(usize, usize)>,
) -> Result<(), Reject> {
    let n = s.nodes.len();
    // Not `s.edges.len()`, the types' length: they may be aside.
    let m = s.edges.to_node.len();
    let (edge_names, edge_kinds) =
        aside.unwrap_or((s.edges.name_or_index.len(), s.edges.kind.len()));
    let nodes = &s.nodes;
    let same = |len: usize| len == n;
    if !(same(nodes.name.len())
        && same(nodes.id.len())
        && same(nodes.self_size.len())
        && nodes.first_edge.len() == n + 1
        && (nodes.trace_node_id.is_empty() || same(nodes.trace_node_id.len()))
        && (nodes.detachedness.is_empty() || same(nodes.detachedness.len()))
        && edge_names == m
        && edge_kinds == m
        && s.edges.to_node.len() == m
        && same(a.idom.len())
        && same(a.retained.len())
        && same(a.distances.len())
        && same(a.classes.len())
        && same(a.retainer_counts.len()))
    {
        return corrupt("its tables disagree on the number of nodes or edges");
    }
    let edges_ok = nodes.first_edge.first() == Some(&0)
        && nodes.first_edge.windows(2).all(|w| w[0] <= w[1])
        && nodes.first_edge.last().map(|&e| e as usize) == Some(m);
    if !edges_ok || (n > 0 && s.root.index() >= n) || (n == 0 && m > 0) {
        return corrupt("its node table does not describe its edges");
    }
    let below = |values: &[u32], limit: usize| values.iter().all(|&v| (v as usize) < limit);
    let strings = s.strings.len();
    if !below(&s.edges.to_node, n) || !a.idom.iter().all(|d| d.index() < n) {
        return corrupt("an edge or a dominator points past the last node");
    }
    // The dominators' walk on a thread of its own, beside the other checks (every dominator is
    // known to be a node now); a refusal names the first failed check in this order.
    let tree = || n == 0 || dominators_form_a_tree(&a.idom, s.root.index());
    let (tree_ok, names_ok, locations_ok) = std::thread::scope(|scope| {
        let tree = if n >= super::format::PARALLEL_NODES {
            Ok(scope.spawn(tree))
        } else {
            Err(tree())
        };
        let types = s.types();
        let edge_names_ok = (s.edges.kind.iter().zip(&s.edges.name_or_index))
            .all(|(&k, &name)| !types.edge_has_string_name(k) || (name as usize) < strings);
        let names_ok = below(&nodes.name, strings) && below(&a.classes, strings) && edge_names_ok;
        let locations_ok = s.locations.windows(2).all(|w| w[0].node < w[1].node)
            && s.locations.last().is_none_or(|l| l.node.index() < n);
        let tree_ok = match tree {
            Ok(thread) => thread.join().expect("the dominators' walk does not panic"),
            Err(ok) => ok,
        };
        (tree_ok, names_ok, locations_ok)
    });
    if !tree_ok {
        return corrupt("its dominators do not form a tree under the root");
    }
    if !names_ok {
        return corrupt("a name is not an index into the string table");
    }
    if !locations_ok {
        return corrupt("its locations are out of order");
    }
    Ok(())
}

/// Whether every node's chain of immediate dominators reaches `root` without a cycle: the
/// dominator tree's walks (detached trees, leaks, the UI's dominated lists) trust that it does.
/// One pass, each node settled once (`idom` values are already known to be below its length).
fn dominators_form_a_tree(idom: &[NodeOrdinal], root: usize) -> bool {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const SETTLED: u8 = 2;
    let mut state = vec![NEW; idom.len()];
    state[root] = SETTLED;
    let mut path = Vec::new();
    for start in 0..idom.len() {
        let mut at = start;
        while state[at] == NEW {
            state[at] = ON_PATH;
            path.push(at);
            at = idom[at].index();
        }
        if state[at] == ON_PATH {
            return false;
        }
        for &p in &path {
            state[p] = SETTLED;
        }
        path.clear();
    }
    true
}
