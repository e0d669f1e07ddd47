//! Native-context (realm) attribution: which JavaScript context — a page's main frame, an iframe,
//! a `vm.createContext()` realm, an extension's world — each object belongs to, as DevTools'
//! Summary filter "JavaScript context" and its per-context sizes compute it
//! (`HeapSnapshot.calculateNativeContextAttribution` and `calculateNativeContextSizes`).
//!
//! A native context is a node named `system / NativeContext` (optionally `/ <url>`, optionally
//! `Detached `). Some nodes have a fixed owner: the native contexts themselves, and every object
//! whose map's map (its meta-map, one per native context) has an internal `native_context` edge
//! to one. The others inherit their owner over every edge but shortcut, weak and self edges, in
//! a FIFO walk from the fixed nodes that never overwrites a fixed node: a node reached from two
//! contexts is shared, a node reached from none has no context. The result does not depend on the
//! walk's order (the owners only grow, none → one context → shared), so re-queueing a node whose
//! owner changed reaches DevTools' fixed point.
//!
//! Memory: 4 bytes a node for the owners and 1 bit for the fixed flag, plus, while it runs, 4
//! bytes a node for the `map` targets (freed before the walk) and the walk's queue.

use std::collections::VecDeque;

use crate::analysis::Analysis;
use crate::bits::BitVec;
use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};

/// No context reaches the node (DevTools' `NO_NATIVE_CONTEXT`).
pub const NO_CONTEXT: i32 = -1;
/// Two or more contexts reach the node (DevTools' `SHARED_NATIVE_CONTEXT`).
pub const SHARED_CONTEXT: i32 = -2;

const NONE: u32 = u32::MAX;

/// Every node's owning native context.
#[derive(Clone, Debug, Default)]
pub struct NativeContexts {
    /// Per node: the owning native context's ordinal (≥ 0), [`NO_CONTEXT`] or [`SHARED_CONTEXT`].
    pub owner: Vec<i32>,
    /// The native contexts, in node order.
    pub contexts: Vec<NodeOrdinal>,
}

/// Whose objects a context-filtered Summary shows: DevTools' named filters `nativeContext_<n>`,
/// `sharedNativeContext` and `noNativeContext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextFilter {
    /// The objects this native context owns alone.
    Context(NodeOrdinal),
    /// The objects reached from several contexts.
    Shared,
    /// The objects no context reaches.
    None,
}

impl ContextFilter {
    /// The owner value ([`NativeContexts::owner`]) of the objects the filter keeps.
    pub fn owner(self) -> i32 {
        match self {
            ContextFilter::Context(n) => n.raw() as i32,
            ContextFilter::Shared => SHARED_CONTEXT,
            ContextFilter::None => NO_CONTEXT,
        }
    }
}

/// One native context's sizes (DevTools' `NativeContextSize`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeContextSize {
    pub node: NodeOrdinal,
    pub id: u32,
    /// As DevTools shows it (`system / NativeContext / https://…`).
    pub name: String,
    pub self_size: u64,
    pub retained_size: u64,
    /// The self sizes of the objects this context owns alone, its own included.
    pub attributed_size: u64,
}

/// Every context's sizes, and the shared and unattributed totals (`getNativeContextSizes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeContextSizes {
    pub contexts: Vec<NativeContextSize>,
    /// The self sizes of the objects several contexts reach.
    pub shared_size: u64,
    /// The self sizes of the objects no context reaches.
    pub unattributed_size: u64,
}

/// Whether `n` is a native context, by its name (after `Detached ` renaming), as DevTools'
/// `isNativeContext` tells.
pub fn is_native_context(s: &HeapSnapshot, n: NodeOrdinal) -> bool {
    let name = s.strings.bytes(s.nodes.name(n));
    let name = name.strip_prefix(b"Detached ").unwrap_or(name);
    name.strip_prefix(b"system / NativeContext")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(b" / "))
}

impl NativeContexts {
    /// Every node's owner. Reads only the snapshot's nodes, names and edges: run it on an
    /// analysed snapshot (after `Detached ` renaming), as DevTools does.
    pub fn of(s: &HeapSnapshot) -> NativeContexts {
        let types = s.types();
        let n = s.nodes.len();
        let mut owner = vec![NO_CONTEXT; n];
        let mut fixed = BitVec::new(n);
        let mut contexts = Vec::new();
        let mut queue = VecDeque::new();
        {
            let names = EdgeNames::of(s);
            let map = map_targets(s, &types, names.map);
            // One meta-map serves many maps in a row: remember the last one looked up.
            let mut last_meta: (u32, i32) = (NONE, NO_CONTEXT);
            for node in s.nodes.ordinals() {
                let i = node.index();
                let fixed_owner = if is_native_context(s, node) {
                    contexts.push(node);
                    node.raw() as i32
                } else {
                    let meta = match map[i] {
                        NONE => NONE,
                        m => map[m as usize],
                    };
                    if meta == NONE {
                        NO_CONTEXT
                    } else {
                        if last_meta.0 != meta {
                            last_meta = (meta, native_context_of(s, &types, &names, meta));
                        }
                        last_meta.1
                    }
                };
                if fixed_owner != NO_CONTEXT {
                    owner[i] = fixed_owner;
                    fixed.set(i);
                    queue.push_back(node.raw());
                }
            }
        }
        propagate(s, &types, &mut owner, &fixed, queue);
        NativeContexts { owner, contexts }
    }

    /// The owner of `n`: a context's ordinal (≥ 0), [`NO_CONTEXT`] or [`SHARED_CONTEXT`].
    pub fn owner(&self, n: NodeOrdinal) -> i32 {
        self.owner[n.index()]
    }

    /// Whether `filter` keeps `n`.
    pub fn keeps(&self, filter: ContextFilter, n: NodeOrdinal) -> bool {
        self.owner[n.index()] == filter.owner()
    }

    /// Each context's sizes and the shared and unattributed totals, with the analysis's
    /// (adjusted) self sizes and retained sizes, as DevTools computes them after its own.
    pub fn sizes(&self, s: &HeapSnapshot, a: &Analysis) -> NativeContextSizes {
        let mut contexts: Vec<NativeContextSize> = self
            .contexts
            .iter()
            .map(|&node| NativeContextSize {
                node,
                id: s.nodes.id(node),
                name: crate::names::display_name(s, node),
                self_size: s.nodes.self_size(node) as u64,
                retained_size: a.retained[node.index()],
                attributed_size: 0,
            })
            .collect();
        // Contexts are few: find a context's row by a search among their sorted ordinals.
        let mut sizes = NativeContextSizes::default();
        for (i, &owner) in self.owner.iter().enumerate() {
            let size = s.nodes.self_size[i] as u64;
            match owner {
                SHARED_CONTEXT => sizes.shared_size += size,
                NO_CONTEXT => sizes.unattributed_size += size,
                o => {
                    let row = self
                        .contexts
                        .binary_search(&NodeOrdinal::from_raw(o as u32))
                        .expect("an owner is a native context");
                    contexts[row].attributed_size += size;
                }
            }
        }
        sizes.contexts = contexts;
        sizes
    }

    /// The filter for the native context whose object id is `id`; `None` when no native context
    /// has that id.
    pub fn context_with_id(&self, s: &HeapSnapshot, id: u32) -> Option<ContextFilter> {
        self.contexts
            .iter()
            .find(|&&n| s.nodes.id(n) == id)
            .map(|&n| ContextFilter::Context(n))
    }
}

/// The string indexes of the edge names the fixed owners follow: the first `map` and
/// `native_context` in the table, as DevTools' `strings.indexOf` finds them.
struct EdgeNames {
    map: Option<u32>,
    native_context: Option<u32>,
}

impl EdgeNames {
    fn of(s: &HeapSnapshot) -> EdgeNames {
        let find = |text: &[u8]| (0..s.strings.len() as u32).find(|&i| s.strings.bytes(i) == text);
        EdgeNames {
            map: find(b"map"),
            native_context: find(b"native_context"),
        }
    }
}

/// Per node, the target of its first internal `map` edge ([`NONE`] for none).
fn map_targets(s: &HeapSnapshot, types: &Types, map_name: Option<u32>) -> Vec<u32> {
    let mut map = vec![NONE; s.nodes.len()];
    let Some(map_name) = map_name else {
        return map;
    };
    for node in s.nodes.ordinals() {
        let found = s.nodes.edges(node).find(|&e| {
            s.edges.kind(e) == types.edge_internal && s.edges.name_or_index(e) == map_name
        });
        if let Some(e) = found {
            map[node.index()] = s.edges.to_node(e).raw();
        }
    }
    map
}

/// The native context of a meta-map: the target of its first internal `native_context` edge
/// that is a native context, as an owner value.
fn native_context_of(s: &HeapSnapshot, types: &Types, names: &EdgeNames, meta: u32) -> i32 {
    let Some(name) = names.native_context else {
        return NO_CONTEXT;
    };
    s.nodes
        .edges(NodeOrdinal::from_raw(meta))
        .filter(|&e| s.edges.kind(e) == types.edge_internal && s.edges.name_or_index(e) == name)
        .map(|e| s.edges.to_node(e))
        .find(|&child| is_native_context(s, child))
        .map_or(NO_CONTEXT, |child| child.raw() as i32)
}

/// DevTools' `mergeNativeContextOwner`: none takes the incoming owner, a different one makes it
/// shared.
fn merge(current: i32, incoming: i32) -> i32 {
    if current == NO_CONTEXT || current == incoming {
        incoming
    } else {
        SHARED_CONTEXT
    }
}

/// The FIFO walk from the fixed nodes (`propagateNativeContextAttribution`).
fn propagate(
    s: &HeapSnapshot,
    types: &Types,
    owner: &mut [i32],
    fixed: &BitVec,
    mut queue: VecDeque<u32>,
) {
    while let Some(node) = queue.pop_front() {
        let current = owner[node as usize];
        for e in s.nodes.edge_range(NodeOrdinal::from_raw(node)) {
            let kind = s.edges.kind[e];
            if kind == types.edge_shortcut || kind == types.edge_weak {
                continue;
            }
            let child = s.edges.to_node[e];
            if child == node || fixed.get(child as usize) {
                continue;
            }
            let merged = merge(owner[child as usize], current);
            if merged != owner[child as usize] {
                owner[child as usize] = merged;
                queue.push_back(child);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An edge: its type, its name and its target's ordinal.
    type Edge<'a> = (&'a str, &'a str, u32);

    /// A snapshot of `nodes` (each a name and its edges), each an `object` but the root, as V8
    /// writes one.
    fn snapshot(nodes: &[(&str, &[Edge])]) -> HeapSnapshot {
        let mut strings: Vec<String> = vec![String::new()];
        let mut string = |s: &str| match strings.iter().position(|x| x == s) {
            Some(i) => i,
            None => {
                strings.push(s.to_string());
                strings.len() - 1
            }
        };
        let edge_types = [
            "context", "element", "property", "internal", "hidden", "shortcut", "weak",
        ];
        let (mut node_values, mut edge_values) = (Vec::new(), Vec::new());
        for (i, (name, edges)) in nodes.iter().enumerate() {
            let kind = if i == 0 { 9 } else { 3 };
            node_values.extend([kind, string(name), i * 2 + 1, 10, edges.len(), 0]);
            for (kind, name, to) in edges.iter() {
                let kind = edge_types.iter().position(|t| t == kind).unwrap();
                edge_values.extend([kind, string(name), *to as usize * 6]);
            }
        }
        let header = serde_json::json!({"meta": {
            "node_fields": ["type", "name", "id", "self_size", "edge_count", "trace_node_id"],
            "node_types": [["hidden", "array", "string", "object", "code", "closure", "regexp",
                "number", "native", "synthetic"], "string", "number", "number", "number", "number"],
            "edge_fields": ["type", "name_or_index", "to_node"],
            "edge_types": [edge_types, "string_or_number", "node"],
        }, "node_count": nodes.len(), "edge_count": edge_values.len() / 3});
        // The sections in V8's order (the reader wants the header first).
        let text = format!(
            r#"{{"snapshot":{header},"nodes":{},"edges":{},"strings":{}}}"#,
            serde_json::json!(node_values),
            serde_json::json!(edge_values),
            serde_json::json!(strings)
        );
        crate::read_snapshot(text.as_bytes()).unwrap()
    }

    #[test]
    fn owners_follow_devtools_rule() {
        const CONTEXT: &str = "system / NativeContext";
        let s = snapshot(&[
            ("", &[("element", "1", 1), ("element", "2", 2)]),
            // 1: context A, 2: context B (with a URL, as Chrome names a frame's).
            (CONTEXT, &[("property", "a", 5), ("property", "b", 7)]),
            (
                "system / NativeContext / https://example.com/",
                &[("property", "a", 7), ("weak", "w", 8), ("shortcut", "s", 9)],
            ),
            // 3: B's meta-map (its own map), 4: a map whose map it is.
            (
                "system / Map",
                &[("internal", "native_context", 2), ("internal", "map", 3)],
            ),
            ("system / Map", &[("internal", "map", 3)]),
            // 5: A's, pointing at 6, whose map says B: a fixed owner A does not change.
            ("Obj", &[("property", "a", 6), ("property", "self", 5)]),
            ("Obj", &[("internal", "map", 4), ("property", "b", 10)]),
            // 7: reached from A and from B; 11 below it, shared too.
            ("Obj", &[("property", "a", 11)]),
            // 8, 9: reached only by a weak and a shortcut edge.
            ("Obj", &[]),
            ("Obj", &[]),
            ("Obj", &[]),
            ("Obj", &[]),
        ]);
        let c = NativeContexts::of(&s);
        let (a, b, shared, none) = (1, 2, SHARED_CONTEXT, NO_CONTEXT);
        assert_eq!(
            c.owner,
            [none, a, b, b, b, a, b, shared, none, none, b, shared]
        );
        assert_eq!(c.contexts, [NodeOrdinal::new(1), NodeOrdinal::new(2)]);
        assert_eq!(
            c.context_with_id(&s, 5),
            Some(ContextFilter::Context(NodeOrdinal::new(2)))
        );
        assert_eq!(c.context_with_id(&s, 7), None);
        assert!(c.keeps(ContextFilter::Shared, NodeOrdinal::new(11)));
        assert!(c.keeps(ContextFilter::None, NodeOrdinal::new(9)));
    }

    #[test]
    fn native_contexts_are_told_by_name() {
        let s = snapshot(&[
            ("", &[]),
            ("system / NativeContext", &[]),
            ("Detached system / NativeContext / https://a/", &[]),
            ("system / NativeContextual", &[]),
            ("system / Context", &[]),
        ]);
        let found: Vec<bool> = s
            .nodes
            .ordinals()
            .map(|n| is_native_context(&s, n))
            .collect();
        assert_eq!(found, [false, true, true, false, false]);
    }
}
