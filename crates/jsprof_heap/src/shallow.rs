//! DevTools' shallow-size transfer: arrays and hidden (system) objects owned by exactly one other object
//! have their size moved into that owner, so that e.g. an object's backing store shows up in its own
//! size. Skipped for snapshots without user roots (taken with `exposeInternals`), as in DevTools.

use crate::flags::is_user_root;
use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};

const UNVISITED: u32 = u32::MAX;
const MULTIPLE_OWNERS: u32 = u32::MAX - 1;

/// `self_size` is the snapshot's `nodes.self_size`, passed apart so that other passes may read the
/// snapshot meanwhile.
pub(crate) fn transfer_shallow_sizes(s: &HeapSnapshot, types: &Types, self_size: &mut [u32]) {
    let has_user_roots = s
        .nodes
        .edges(s.root)
        .any(|e| is_user_root(s, types, s.edges.to_node(e)));
    if !has_user_roots || s.nodes.len() >= MULTIPLE_OWNERS as usize {
        return;
    }
    let n = s.nodes.len();
    // Raw ordinals, or the two markers above.
    let mut owners = vec![0u32; n];
    let mut worklist: Vec<u32> = Vec::new();
    for (i, owner) in owners.iter_mut().enumerate() {
        let kind = s.nodes.kind[i];
        let ownable = kind == types.hidden
            || kind == types.array
            || (kind == types.native
                && s.strings.bytes(s.nodes.name[i]) == b"system / ExternalStringData");
        if ownable {
            *owner = UNVISITED;
        } else {
            *owner = i as u32;
            worklist.push(i as u32);
        }
    }
    // The order matches DevTools' stack, though the fixpoint does not depend on it.
    while let Some(id) = worklist.pop() {
        let owner = owners[id as usize];
        for e in s.nodes.edges(NodeOrdinal::new(id)) {
            if s.edges.kind(e) == types.edge_weak {
                continue;
            }
            let target = s.edges.to_node(e).raw();
            let current = owners[target as usize];
            if current == UNVISITED {
                owners[target as usize] = owner;
                worklist.push(target);
            } else if current != target && current != owner && current != MULTIPLE_OWNERS {
                owners[target as usize] = MULTIPLE_OWNERS;
                worklist.push(target);
            }
        }
    }
    for (i, &owner) in owners.iter().enumerate() {
        if owner == UNVISITED || owner == MULTIPLE_OWNERS || owner == i as u32 {
            continue;
        }
        if s.nodes.kind[owner as usize] == types.synthetic || owner == s.root.raw() {
            continue;
        }
        let size = self_size[i];
        self_size[i] = 0;
        let o = &mut self_size[owner as usize];
        *o = o.wrapping_add(size);
    }
}
