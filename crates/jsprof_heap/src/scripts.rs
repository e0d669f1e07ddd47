//! The scripts a snapshot's functions come from, read from the snapshot itself: what a source
//! map needs to be found and applied to the Summary's located classes and to closures (the
//! `locations` section gives a script *id*, the graph gives its URL and text).
//!
//! V8 writes a closure's location (script id, line, column) in `locations`, and the closure
//! reaches its script through internal edges: `shared` (its `SharedFunctionInfo`) →
//! `script_or_debug_info` (`script` in older V8) → a `code` node named by the script's URL,
//! whose `source` edge leads to the script's text. V8 truncates every string it writes to 1,024
//! UTF-16 units (`--heap-snapshot-string-limit`), so `source` is the text's start, not the
//! whole script: enough to tell whether a file on disk is the script that ran.

use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};
use crate::strings::wtf8_to_string;

/// One script, by the id `locations` and the Summary's located keys name it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub id: u32,
    /// Its URL or path, as V8 names it (empty for an eval'd script without `//# sourceURL`).
    pub url: String,
    /// The start of its text as the snapshot holds it (at most 1,024 UTF-16 units).
    pub source: String,
}

/// How many UTF-16 units of a string V8 writes into a snapshot (`heap_snapshot_string_limit`).
pub const SNAPSHOT_STRING_LIMIT: usize = 1024;

/// Every script a located closure names, by id (the first closure found for an id wins: all of
/// them point at one script).
pub fn scripts(s: &HeapSnapshot, types: &Types) -> Vec<Script> {
    let mut out: Vec<Script> = Vec::new();
    // Ids already found: millions of closures share a few thousand scripts.
    let mut found = std::collections::HashSet::new();
    for l in &s.locations {
        if s.nodes.kind(l.node) != types.closure || found.contains(&l.script_id) {
            continue;
        }
        let Some(script) = closure_script(s, types, l.node) else {
            continue;
        };
        found.insert(l.script_id);
        let text = |n: NodeOrdinal| wtf8_to_string(s.strings.bytes(s.nodes.name(n)));
        let source = child(s, types, script, &[b"source"]).map_or_else(String::new, text);
        // A script without a URL is a `code` node named like any other internal object.
        let url = Some(text(script)).filter(|u| !u.starts_with("system /") && !u.starts_with('('));
        out.push(Script {
            id: l.script_id,
            url: url.unwrap_or_default(),
            source,
        });
    }
    out.sort_by_key(|x| x.id);
    out
}

/// The script node of a closure: `shared` → `script_or_debug_info` (or `script`).
pub(crate) fn closure_script(
    s: &HeapSnapshot,
    types: &Types,
    closure: NodeOrdinal,
) -> Option<NodeOrdinal> {
    let shared = child(s, types, closure, &[b"shared"])?;
    child(s, types, shared, &[b"script_or_debug_info", b"script"])
}

/// The target of `n`'s first internal edge named one of `names`.
fn child(s: &HeapSnapshot, types: &Types, n: NodeOrdinal, names: &[&[u8]]) -> Option<NodeOrdinal> {
    s.nodes.edges(n).find_map(|e| {
        (s.edges.kind(e) == types.edge_internal
            && names.contains(&s.strings.bytes(s.edges.name_or_index(e))))
        .then_some(s.edges.to_node(e))
    })
}
