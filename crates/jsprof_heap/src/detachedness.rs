//! DOM attachment state: propagated from the embedder's native nodes, and `Detached ` names.
//!
//! Chromium marks some native nodes attached or detached. DevTools spreads attached state first, then
//! detached state into nodes not reached yet, through all edges but hidden, invisible and weak ones, and
//! only into native nodes. Every node that ends up detached is renamed `Detached <name>`, which changes
//! its class in the Summary, so this runs before names are computed.

use std::collections::HashMap;

use crate::bits::BitVec;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

const ATTACHED: u8 = 1;
const DETACHED: u8 = 2;

pub(crate) fn propagate_dom_state(s: &mut HeapSnapshot) {
    if s.nodes.detachedness.is_empty() {
        return;
    }
    let types = s.types();
    let n = s.nodes.len();
    let mut visited = BitVec::new(n);
    let mut attached: Vec<NodeOrdinal> = Vec::new();
    let mut detached: Vec<NodeOrdinal> = Vec::new();
    let mut renamed: HashMap<u32, u32> = HashMap::new();

    let mut process = |s: &mut HeapSnapshot,
                       node: NodeOrdinal,
                       state: u8,
                       attached: &mut Vec<NodeOrdinal>,
                       detached: &mut Vec<NodeOrdinal>| {
        let i = node.index();
        if visited.get(i) {
            return;
        }
        visited.set(i);
        if s.nodes.kind[i] != types.native {
            return;
        }
        s.nodes.detachedness[i] = state;
        if state == ATTACHED {
            attached.push(node);
        } else if state == DETACHED {
            let old = s.nodes.name[i];
            let new = *renamed.entry(old).or_insert_with(|| {
                let mut name = b"Detached ".to_vec();
                name.extend_from_slice(s.strings.bytes(old));
                s.strings.push(&name)
            });
            s.nodes.name[i] = new;
            detached.push(node);
        }
    };

    for node in (0..n).map(NodeOrdinal::from_index) {
        let state = s.nodes.detachedness(node);
        if state != 0 {
            process(s, node, state, &mut attached, &mut detached);
        }
    }
    let follows = |kind: u8| {
        kind != types.edge_hidden && kind != types.edge_invisible && kind != types.edge_weak
    };
    while let Some(parent) = attached.pop() {
        for e in s.nodes.edges(parent) {
            if follows(s.edges.kind(e)) {
                let child = s.edges.to_node(e);
                process(s, child, ATTACHED, &mut attached, &mut detached);
            }
        }
    }
    while let Some(parent) = detached.pop() {
        if s.nodes.detachedness(parent) == ATTACHED {
            continue;
        }
        for e in s.nodes.edges(parent) {
            if follows(s.edges.kind(e)) {
                let child = s.edges.to_node(e);
                process(s, child, DETACHED, &mut attached, &mut detached);
            }
        }
    }
}
