//! One object's edges in DevTools' Containment and Retainers order, against DevTools' own
//! `createEdgesProvider` / `createRetainingEdgesProvider` sorted as the grids sort them by default
//! (`fixtures/heap/NAME.edges.devtools.json.gz`, written by `fixtures/heap/explore-goldens.sh`):
//! the root's and every sampled node's first 60 edges and their totals.

use jsprof_heap::{
    containment_edges, edge_name, edge_source, edge_type_name, retainer_edges, EdgeOrdinal,
    HeapSnapshot, NodeOrdinal, RetainerIndex,
};
use serde_json::{json, Value};

use crate::fixture::{devtools_result, load};

/// `[type, name, id of the node at the other end]` per edge, and the total, as the golden has them.
fn listed(
    s: &HeapSnapshot,
    index: &RetainerIndex,
    edges: &[EdgeOrdinal],
    retainers: bool,
) -> Value {
    let items: Vec<Value> = edges
        .iter()
        .take(60)
        .map(|&e| {
            let other = if retainers {
                index.source(s, e)
            } else {
                s.edges.to_node(e)
            };
            json!([edge_type_name(s, e), edge_name(s, e), s.nodes.id(other)])
        })
        .collect();
    json!({"total": edges.len(), "items": items})
}

fn check(name: &str) {
    let (s, a) = load(name);
    let index = RetainerIndex::new(&s);
    // The index's bucketed search for an edge's source is the search over every node.
    for e in (0..s.edges.len() as u32).map(EdgeOrdinal::from_raw) {
        assert_eq!(
            index.source(&s, e),
            edge_source(&s, e),
            "{name}: edge {e:?}"
        );
    }
    let want = devtools_result(&format!("{name}.edges"));
    let views = |n: NodeOrdinal| {
        json!({
            "containment": listed(&s, &index, &containment_edges(&s, &a, n), false),
            "retainers": listed(&s, &index, &retainer_edges(&s, &a, &index, n), true),
        })
    };
    // The shortcut edges' names are compared as the file has them; DevTools' `name()` reads a
    // numeric one as a number, which only changes how it prints ("2" either way here).
    assert_eq!(views(s.root), want["root"], "{name}: the root");
    let nodes = want["nodes"].as_object().unwrap();
    assert!(nodes.len() > 100, "{name}: {} sampled nodes", nodes.len());
    let mut by_id = std::collections::HashMap::new();
    for (n, id) in s.nodes.ids() {
        by_id.entry(id).or_insert(n);
    }
    for (id, expected) in nodes {
        let n = by_id[&id.parse::<u32>().unwrap()];
        assert_eq!(&views(n), expected, "{name}: node @{id}");
    }
}

#[test]
fn node_small_edges_are_devtools() {
    check("node-small.heapsnapshot");
}

#[test]
fn leak_final_edges_are_devtools() {
    check("leak-3-final.heapsnapshot");
}

#[test]
fn detached_edges_are_devtools() {
    check("detached.heapsnapshot");
}
