//! Duplicated strings: string values held more than once, as DevTools' "Duplicated strings" filter
//! and `getDuplicateStrings` find them.
//!
//! Sequential and concatenated strings with a non-zero self size count; cons strings already flattened
//! (one part empty) do not. Strings are grouped by their displayed text; V8 truncates long values in
//! snapshots and then records `truncated`, `length` and `hash`, which split such groups.

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::names::display_name;
use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};

/// One duplicated value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateString {
    pub value: String,
    pub count: u64,
    /// The copies' self sizes together.
    pub total_size: u64,
    /// What keeping only the smallest copy would save: total minus the smallest copy.
    pub wasted_size: u64,
    pub retained_size: u64,
    /// V8 cut the value short in the snapshot (`length` is then the full length, in UTF-16 units).
    pub truncated: bool,
    pub length: Option<i64>,
    /// One copy (its ordinal).
    pub sample: NodeOrdinal,
}

fn internal_target(
    s: &HeapSnapshot,
    types: &Types,
    n: NodeOrdinal,
    name: &[u8],
) -> Option<NodeOrdinal> {
    s.nodes.edges(n).find_map(|e| {
        (s.edges.kind(e) == types.edge_internal
            && s.strings.bytes(s.edges.name_or_index(e)) == name)
            .then(|| s.edges.to_node(e))
    })
}

/// The text behind a `number` node's `value` edge, when the node is named `kind` (`int`, `bool`).
fn number_value<'a>(
    s: &'a HeapSnapshot,
    types: &Types,
    n: NodeOrdinal,
    kind: &[u8],
) -> Option<&'a [u8]> {
    let number = s.meta.node_types.iter().position(|t| t == "number")?;
    if s.nodes.kind(n) as usize != number || s.strings.bytes(s.nodes.name(n)) != kind {
        return None;
    }
    let value = internal_target(s, types, n, b"value")?;
    Some(s.strings.bytes(s.nodes.name(value)))
}

fn int_field(s: &HeapSnapshot, types: &Types, n: NodeOrdinal, field: &[u8]) -> Option<i64> {
    let target = internal_target(s, types, n, field)?;
    let text = number_value(s, types, target, b"int")?;
    crate::distances::js_parse_int(text)
}

fn is_flat_cons(s: &HeapSnapshot, types: &Types, n: NodeOrdinal) -> bool {
    s.nodes.kind(n) == types.cons_string
        && s.nodes.edges(n).any(|e| {
            s.edges.kind(e) == types.edge_internal
                && matches!(
                    s.strings.bytes(s.edges.name_or_index(e)),
                    b"first" | b"second"
                )
                && s.strings.bytes(s.nodes.name(s.edges.to_node(e))).is_empty()
        })
}

/// Duplicated strings, largest waste first.
pub fn duplicate_strings(s: &HeapSnapshot, a: &Analysis) -> Vec<DuplicateString> {
    let types = s.types();
    let mut groups: Vec<DuplicateString> = Vec::new();
    let mut group_of: HashMap<(String, bool, Option<i64>, Option<i64>), usize> = HashMap::new();
    let mut smallest: Vec<u64> = Vec::new();
    for n in s.nodes.ordinals() {
        let kind = s.nodes.kind(n);
        if kind != types.string && kind != types.cons_string {
            continue;
        }
        let size = s.nodes.self_size(n) as u64;
        if size == 0 || is_flat_cons(s, &types, n) {
            continue;
        }
        let truncated = internal_target(s, &types, n, b"truncated")
            .and_then(|t| number_value(s, &types, t, b"bool"))
            == Some(b"true".as_slice());
        let (length, hash) = if truncated {
            (
                int_field(s, &types, n, b"length"),
                int_field(s, &types, n, b"hash"),
            )
        } else {
            (None, None)
        };
        let value = display_name(s, n);
        let slot = *group_of
            .entry((value.clone(), truncated, length, hash))
            .or_insert_with(|| {
                groups.push(DuplicateString {
                    value,
                    count: 0,
                    total_size: 0,
                    wasted_size: 0,
                    retained_size: 0,
                    truncated,
                    length,
                    sample: n,
                });
                smallest.push(u64::MAX);
                groups.len() - 1
            });
        let g = &mut groups[slot];
        g.count += 1;
        g.total_size += size;
        g.retained_size += a.retained[n.index()];
        smallest[slot] = smallest[slot].min(size);
    }
    let mut duplicated: Vec<DuplicateString> = groups
        .into_iter()
        .zip(smallest)
        .filter(|(g, _)| g.count > 1)
        .map(|(mut g, min)| {
            g.wasted_size = g.total_size - min;
            g
        })
        .collect();
    // The most wasted first, then the most copies, then by value.
    duplicated.sort_by(|x, y| {
        (Reverse(x.wasted_size), Reverse(x.count), &x.value).cmp(&(
            Reverse(y.wasted_size),
            Reverse(y.count),
            &y.value,
        ))
    });
    duplicated
}
