//! Page-owned nodes: what the page itself holds, as opposed to the debugger or the embedder.
//!
//! Seeds are the root's shortcut edges (the page's globals) and its element edges to `(Document DOM
//! trees)`; everything reachable from them over non-weak edges is page-owned. Dominators ignore edges
//! from non-page-owned nodes into page-owned ones, so that e.g. a console reference does not become an
//! object's dominator.

use crate::bits::BitVec;
use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};

pub(crate) fn is_document_dom_trees_root(s: &HeapSnapshot, types: &Types, n: NodeOrdinal) -> bool {
    s.nodes.kind(n) == types.synthetic
        && s.strings.bytes(s.nodes.name(n)) == b"(Document DOM trees)"
}

/// DevTools' `isUserRoot` for the JS snapshot: a non-synthetic node or the DOM trees root.
pub(crate) fn is_user_root(s: &HeapSnapshot, types: &Types, n: NodeOrdinal) -> bool {
    s.nodes.kind(n) != types.synthetic || is_document_dom_trees_root(s, types, n)
}

pub(crate) fn mark_page_owned(s: &HeapSnapshot, types: &Types) -> BitVec {
    let mut flags = BitVec::new(s.nodes.len());
    let mut stack: Vec<NodeOrdinal> = Vec::new();
    for e in s.nodes.edges(s.root) {
        let kind = s.edges.kind(e);
        let to = s.edges.to_node(e);
        let seed = if kind == types.edge_element {
            is_document_dom_trees_root(s, types, to)
        } else {
            kind == types.edge_shortcut
        };
        if seed {
            stack.push(to);
            flags.set(to.index());
        }
    }
    while let Some(n) = stack.pop() {
        for e in s.nodes.edges(n) {
            let to = s.edges.to_node(e);
            if flags.get(to.index()) || s.edges.kind(e) == types.edge_weak {
                continue;
            }
            stack.push(to);
            flags.set(to.index());
        }
    }
    flags
}
