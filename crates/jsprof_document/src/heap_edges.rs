//! `jsprof heap edges FILE ID [--retainers] --json` and the UI's Containment and Retainers trees:
//! one object's outgoing edges or direct retainers, a page at a time, in DevTools' order.

use jsprof_heap::{
    containment_edges, edge_label, edge_name, edge_type_name, from_root, retainer_edges, Analysis,
    EdgeOrdinal, HeapSnapshot, NodeOrdinal, RetainerIndex,
};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{object_json, warnings, ObjectJson};
use crate::JsonWarning;

/// Which edges of the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EdgeDirection {
    /// Its outgoing edges (DevTools' Containment view), largest retained target first.
    Containment,
    /// The edges that point at it (DevTools' Retainers view), closest retainer first.
    Retainers,
}

/// One edge and the object at its other end.
#[derive(Serialize, JsonSchema)]
pub struct EdgeJson {
    pub edge_type: String,
    pub edge_name: String,
    /// The edge as DevTools labels it (`.name`, `[0]`, `->var`, `{internal}`).
    pub edge: String,
    /// The target (containment) or the retainer (retainers).
    pub object: ObjectJson,
    /// How many edges the object has in this direction (what expanding it lists).
    pub edge_count: usize,
}

/// `heap edges`: a page of one object's edges.
#[derive(Serialize, JsonSchema)]
pub struct EdgesReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub direction: EdgeDirection,
    /// The object whose edges these are.
    pub object: ObjectJson,
    /// How many edges in all (after DevTools' filter: no invisible edges; for retainers also no
    /// weak edges and none from the snapshot's root).
    pub total: usize,
    pub offset: usize,
    pub edges: Vec<EdgeJson>,
}

/// What the edges are listed from.
struct EdgeSource<'a> {
    snapshot: &'a HeapSnapshot,
    analysis: &'a Analysis,
    retainers: &'a RetainerIndex,
}

impl EdgeSource<'_> {
    fn list(&self, direction: EdgeDirection, node: NodeOrdinal) -> Vec<EdgeOrdinal> {
        match direction {
            EdgeDirection::Containment => containment_edges(self.snapshot, self.analysis, node),
            EdgeDirection::Retainers => {
                retainer_edges(self.snapshot, self.analysis, self.retainers, node)
            }
        }
    }

    /// How many edges expanding `node` would list (counted, not sorted).
    fn count(&self, direction: EdgeDirection, node: NodeOrdinal) -> usize {
        let (s, types) = (self.snapshot, self.snapshot.types());
        match direction {
            EdgeDirection::Containment => s
                .nodes
                .edges(node)
                .filter(|&e| s.edges.kind(e) != types.edge_invisible)
                .count(),
            EdgeDirection::Retainers => self
                .retainers
                .edges_of(node)
                .iter()
                .filter(|&&e| {
                    let kind = s.edges.kind(e);
                    kind != types.edge_weak && kind != types.edge_invisible && !from_root(s, e)
                })
                .count(),
        }
    }
}

/// A page of `node`'s edges in `direction`, in DevTools' order. Retainers read the reverse graph:
/// pass one built once for many questions (the service), or `None` to build it here.
pub fn edges_report(
    s: &HeapSnapshot,
    a: &Analysis,
    retainers: Option<&RetainerIndex>,
    direction: EdgeDirection,
    node: NodeOrdinal,
    offset: usize,
    limit: usize,
) -> EdgesReport {
    let built;
    let retainers = match (retainers, direction) {
        (Some(index), _) => index,
        (None, EdgeDirection::Retainers) => {
            built = RetainerIndex::new(s);
            &built
        }
        // Containment reads no retainers: an index of no edges.
        (None, EdgeDirection::Containment) => {
            built = RetainerIndex::default();
            &built
        }
    };
    let source = EdgeSource {
        snapshot: s,
        analysis: a,
        retainers,
    };
    let all = source.list(direction, node);
    let edges = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|&e| {
            let other = match direction {
                EdgeDirection::Containment => s.edges.to_node(e),
                EdgeDirection::Retainers => retainers.source(s, e),
            };
            EdgeJson {
                edge_type: edge_type_name(s, e).to_owned(),
                edge_name: edge_name(s, e),
                edge: edge_label(s, e),
                object: object_json(s, a, other),
                edge_count: source.count(direction, other),
            }
        })
        .collect();
    EdgesReport {
        kind: s.kind(),
        warnings: warnings(s),
        direction,
        object: object_json(s, a, node),
        total: all.len(),
        offset,
        edges,
    }
}
