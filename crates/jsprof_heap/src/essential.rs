//! Which edges count for dominators ("essential" edges, in DevTools' words).
//!
//! Not essential: weak edges; self edges; the WeakMap table's edge to a value (the key's edge is kept,
//! which DevTools found more useful); and, for sources other than the root, shortcut edges and edges
//! from non-page-owned into page-owned nodes. Every other root edge is essential.

use crate::bits::BitVec;
use crate::snapshot::{HeapSnapshot, Types};
use crate::weak_map::{parse_weak_map_edge_name, WeakMapEdgeName};

/// Memoises the WeakMap name match per string: the same names repeat over many edges.
pub(crate) struct WeakMapNames {
    /// 0 not checked yet, 1 no match, 2 match.
    state: Vec<u8>,
}

impl WeakMapNames {
    pub(crate) fn new(string_count: usize) -> WeakMapNames {
        WeakMapNames {
            state: vec![0; string_count],
        }
    }

    pub(crate) fn get(&mut self, s: &HeapSnapshot, name: u32) -> Option<WeakMapEdgeName> {
        let slot = self.state.get_mut(name as usize)?;
        if *slot == 1 {
            return None;
        }
        let parsed = parse_weak_map_edge_name(s.strings.bytes(name));
        *slot = if parsed.is_some() { 2 } else { 1 };
        parsed
    }
}

pub(crate) fn essential_edges(
    s: &HeapSnapshot,
    types: &Types,
    page_owned: &BitVec,
    names: &mut WeakMapNames,
) -> BitVec {
    let mut bits = BitVec::new(s.edges.len());
    let root = s.root;
    for node in s.nodes.ordinals() {
        let node_page_owned = page_owned.get(node.index());
        let id = s.nodes.id(node) as u64;
        for e in s.nodes.edges(node) {
            let kind = s.edges.kind(e);
            if kind == types.edge_internal {
                if let Some(m) = names.get(s, s.edges.name_or_index(e)) {
                    if m.table_id == id {
                        continue;
                    }
                }
            }
            if kind == types.edge_weak {
                continue;
            }
            let to = s.edges.to_node(e);
            if to == node {
                continue;
            }
            if node != root {
                if kind == types.edge_shortcut {
                    continue;
                }
                if page_owned.get(to.index()) && !node_page_owned {
                    continue;
                }
            }
            bits.set(e.index());
        }
    }
    bits
}
