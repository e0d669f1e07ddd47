//! External memory in a snapshot: the typed-array backing stores (`system / JSArrayBufferData`
//! nodes, DevTools' Statistics "Typed arrays"), grouped by the object that owns them.
//!
//! A backing store's bytes live outside V8's heap, which is why `process.memoryUsage()` counts
//! them apart (`arrayBuffers`) and why a heap that looks small can hold a large RSS. Naming the
//! owner means climbing the dominator tree past the buffer plumbing — the `ArrayBuffer`, the
//! `Buffer` or typed array viewing it, V8's internal arrays — to the first object the program
//! made: a `Buffer` that a `Session` alone keeps is the `Session`'s.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::distances::BASE_SYSTEM_DISTANCE;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// The backing stores one class of owner holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalOwner {
    /// The owner's class as the Summary names it; `(GC roots)` when only the roots hold the
    /// buffers, `(unreachable)` for stores no root reaches (kept until the next GC).
    pub class: String,
    /// How many backing stores.
    pub count: u64,
    /// Their bytes together.
    pub bytes: u64,
    /// The largest store's owner (for its retainers); `None` for the synthetic classes.
    pub sample: Option<NodeOrdinal>,
}

/// Classes that carry a buffer rather than own it.
const PLUMBING: [&str; 17] = [
    "ArrayBuffer",
    "SharedArrayBuffer",
    "DataView",
    "Buffer",
    "FastBuffer",
    "Uint8Array",
    "Int8Array",
    "Uint8ClampedArray",
    "Int16Array",
    "Uint16Array",
    "Int32Array",
    "Uint32Array",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
];

fn is_plumbing(class: &str) -> bool {
    PLUMBING.contains(&class) || class.starts_with("system / ") || class.starts_with('(')
}

/// Every backing store's owner, largest total first (ties by class). The bytes sum to
/// [`crate::Statistics::native_typed_arrays`].
pub fn external_owners(s: &HeapSnapshot, a: &Analysis) -> Vec<ExternalOwner> {
    let root = s.root;
    let native = s.types().native;
    // Per owner class: its stores, and the owner of the largest one.
    let mut owners: HashMap<String, (ExternalOwner, u64)> = HashMap::new();
    for n in s.nodes.ordinals() {
        if s.nodes.kind(n) != native
            || s.strings.bytes(s.nodes.name(n)) != b"system / JSArrayBufferData"
        {
            continue;
        }
        let size = s.nodes.self_size(n) as u64;
        let (class, sample) = if !(0..BASE_SYSTEM_DISTANCE).contains(&a.distances[n.index()]) {
            ("(unreachable)".to_string(), None)
        } else {
            owner(s, a, n, root)
        };
        let (o, largest) = owners.entry(class.clone()).or_insert_with(|| {
            let empty = ExternalOwner {
                class,
                count: 0,
                bytes: 0,
                sample: None,
            };
            (empty, 0)
        });
        o.count += 1;
        o.bytes += size;
        if sample.is_some() && (o.sample.is_none() || size > *largest) {
            o.sample = sample;
            *largest = size;
        }
    }
    let mut out: Vec<ExternalOwner> = owners.into_values().map(|(o, _)| o).collect();
    out.sort_by(|x, y| y.bytes.cmp(&x.bytes).then_with(|| x.class.cmp(&y.class)));
    out
}

/// The first dominator of `store` that is not buffer plumbing, by class.
fn owner(
    s: &HeapSnapshot,
    a: &Analysis,
    store: NodeOrdinal,
    root: NodeOrdinal,
) -> (String, Option<NodeOrdinal>) {
    let mut n = store;
    // The dominator tree is a tree: the climb ends at the root; the bound guards a bad index.
    for _ in 0..s.nodes.len() {
        let up = a.idom[n.index()];
        if up == n || up == root {
            break;
        }
        n = up;
        let class = a.class_name(s, n);
        if !is_plumbing(&class) {
            return (class, Some(n));
        }
    }
    ("(GC roots)".to_string(), None)
}
