//! Detached DOM trees: DOM nodes no document holds any more, kept alive by something else.
//!
//! A node is detached when DevTools names it so (`Detached <div>`: native nodes the embedder marked
//! detached, and native nodes reached from them; see `detachedness.rs`), Node.js's own embedder
//! objects (`Detached Node / BindingData`) excepted: they are not DOM. A tree is a detached node
//! whose immediate dominator is not detached, with the detached nodes it dominates: its retained size
//! is what freeing it would give back, and the trees' retained sizes add up without overlap.

use crate::analysis::Analysis;
use crate::dominator_tree::DominatorTree;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// One detached tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetachedTree {
    pub root: NodeOrdinal,
    /// Detached nodes in the tree, the root included.
    pub node_count: u64,
    pub retained_size: u64,
}

/// Node.js names its embedder objects `Node / <class>` (`Node / BindingData`, …). V8 marks them
/// detached like DOM nodes when no context holds them, so DevTools' Summary calls them
/// `Detached Node / BindingData`; they are not DOM, and no detached DOM tree is made of them.
const NODE_EMBEDDER: &[u8] = b"Detached Node / ";

pub(crate) fn is_detached(s: &HeapSnapshot, native: u8, n: NodeOrdinal) -> bool {
    if s.nodes.kind(n) != native {
        return false;
    }
    let name = s.strings.bytes(s.nodes.name(n));
    name.starts_with(b"Detached ") && !name.starts_with(NODE_EMBEDDER)
}

/// The detached trees, largest retained size first.
pub fn detached_trees(s: &HeapSnapshot, a: &Analysis, tree: &DominatorTree) -> Vec<DetachedTree> {
    let native = s.types().native;
    let mut trees = Vec::new();
    for n in s.nodes.ordinals() {
        if n == s.root || !is_detached(s, native, n) || is_detached(s, native, a.idom[n.index()]) {
            continue;
        }
        let mut count = 0;
        let mut stack = vec![n];
        while let Some(m) = stack.pop() {
            if is_detached(s, native, m) {
                count += 1;
            }
            stack.extend_from_slice(tree.children(m));
        }
        trees.push(DetachedTree {
            root: n,
            node_count: count,
            retained_size: a.retained[n.index()],
        });
    }
    trees.sort_by(|x, y| {
        y.retained_size
            .cmp(&x.retained_size)
            .then(x.root.cmp(&y.root))
    });
    trees
}
