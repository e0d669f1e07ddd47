//! One object's edges as DevTools' Containment and Retainers views list them, in their order, so
//! that a view can be walked one object at a time (`HeapSnapshotEdgesProvider` and the grids'
//! default sort in `HeapSnapshotDataGrids.ts`).
//!
//! - **Containment** (`createEdgesProvider`): every outgoing edge but DevTools' local `invisible`
//!   ones, largest retained size of the target first, then by edge name (`__proto__` last), then
//!   in edge order.
//! - **Retainers** (`createRetainingEdgesProvider`, `retainingEdgesFilter`): every edge pointing
//!   at the object except weak and invisible ones and the root's own, closest retainer first by
//!   distance, then by the retainer's name, then in DevTools' retainer order (sources in reverse,
//!   as [`RetainerIndex`] keeps them).

use std::cmp::Ordering;

use crate::analysis::Analysis;
use crate::retaining_paths::{from_root, RetainerIndex};
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal, Types};
use crate::strings::wtf8_to_string;

/// `node`'s outgoing edges in the Containment view's order.
pub fn containment_edges(s: &HeapSnapshot, a: &Analysis, node: NodeOrdinal) -> Vec<EdgeOrdinal> {
    let types = s.types();
    let edges: Vec<EdgeOrdinal> = s
        .nodes
        .edges(node)
        .filter(|&e| s.edges.kind(e) != types.edge_invisible)
        .collect();
    let names: Vec<SortName> = edges.iter().map(|&e| sort_name(s, &types, e)).collect();
    let mut order: Vec<usize> = (0..edges.len()).collect();
    // ComparatorConfig('retainedSize', descending, '!edgeName', ascending), then the edge index.
    order.sort_by(|&x, &y| {
        let retained = |i: usize| a.retained[s.edges.to_node(edges[i]).index()];
        retained(y)
            .cmp(&retained(x))
            .then_with(|| compare_edge_names(&names[x], &names[y]))
            .then(edges[x].cmp(&edges[y]))
    });
    order.into_iter().map(|i| edges[i]).collect()
}

/// The edges that retain `node`, in the Retainers view's order.
pub fn retainer_edges(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    node: NodeOrdinal,
) -> Vec<EdgeOrdinal> {
    let types = s.types();
    // (position in DevTools' retainer list, edge, its source)
    let edges: Vec<(usize, EdgeOrdinal, NodeOrdinal)> = index
        .edges_of(node)
        .iter()
        .enumerate()
        .filter_map(|(i, &e)| {
            let kind = s.edges.kind(e);
            if kind == types.edge_weak || kind == types.edge_invisible {
                return None;
            }
            (!from_root(s, e)).then(|| (i, e, index.source(s, e)))
        })
        .collect();
    let names: Vec<Vec<u16>> = edges
        .iter()
        .map(|&(_, _, source)| {
            crate::names::display_name(s, source)
                .encode_utf16()
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..edges.len()).collect();
    // ComparatorConfig('!edgeDistance', ascending, 'name', ascending), then the retainer index.
    order.sort_by(|&x, &y| {
        let distance = |i: usize| a.distances[edges[i].2.index()];
        distance(x)
            .cmp(&distance(y))
            .then_with(|| names[x].cmp(&names[y]))
            .then(edges[x].0.cmp(&edges[y].0))
    });
    order.into_iter().map(|i| edges[i].1).collect()
}

/// An edge's name as DevTools' `!edgeName` comparator sees it: the name as UTF-16 (JavaScript
/// compares strings by code units) and whether it counts as a string name.
struct SortName {
    units: Vec<u16>,
    string: bool,
    proto: bool,
}

fn sort_name(s: &HeapSnapshot, types: &Types, e: EdgeOrdinal) -> SortName {
    let kind = s.edges.kind(e);
    let value = s.edges.name_or_index(e);
    let (name, string) = if !types.edge_has_string_name(kind) {
        (value.to_string(), false)
    } else {
        let name = wtf8_to_string(s.strings.bytes(value));
        if kind == types.edge_shortcut {
            // `JSHeapSnapshotEdge.name()` and `hasStringName()` of a shortcut: a name that
            // `parseInt` reads as a number is that number.
            match parse_int(&name) {
                Some(n) => (n, false),
                None => (name, true),
            }
        } else {
            (name, true)
        }
    };
    SortName {
        proto: name == "__proto__",
        units: name.encode_utf16().collect(),
        string,
    }
}

/// JavaScript's `String(parseInt(text, 10))` when it is a number: leading white space, a sign,
/// then the leading decimal digits.
fn parse_int(text: &str) -> Option<String> {
    let t = text.trim_start();
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => ("-", &t[1..]),
        Some(b'+') => ("", &t[1..]),
        _ => ("", t),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let value: f64 = rest[..digits].parse().ok()?;
    // `String()` of a JavaScript number: integers print without a fraction (-0 as "0").
    if value == 0.0 {
        return Some("0".to_string());
    }
    Some(format!("{sign}{value}"))
}

/// DevTools' `!edgeName` comparison, ascending: `__proto__` last, string names before numbers,
/// then by code units.
fn compare_edge_names(a: &SortName, b: &SortName) -> Ordering {
    if b.proto {
        return Ordering::Less;
    }
    if a.proto {
        return Ordering::Greater;
    }
    if a.string != b.string {
        return if a.string {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    a.units.cmp(&b.units)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str, string: bool) -> SortName {
        SortName {
            units: text.encode_utf16().collect(),
            string,
            proto: text == "__proto__",
        }
    }

    #[test]
    fn edge_names_sort_as_devtools_compares_them() {
        // Numbers compare as strings ("10" < "9"), after every string name; `__proto__` last.
        let mut names = [
            name("9", false),
            name("__proto__", true),
            name("b", true),
            name("10", false),
            name("a", true),
        ];
        names.sort_by(compare_edge_names);
        let order: Vec<String> = names
            .iter()
            .map(|n| String::from_utf16_lossy(&n.units))
            .collect();
        assert_eq!(order, ["a", "b", "10", "9", "__proto__"]);
    }

    #[test]
    fn shortcut_names_that_parse_as_numbers_are_numbers() {
        assert_eq!(parse_int("12abc").as_deref(), Some("12"));
        assert_eq!(parse_int("  -7").as_deref(), Some("-7"));
        assert_eq!(parse_int("007").as_deref(), Some("7"));
        assert_eq!(parse_int("-0").as_deref(), Some("0"));
        assert_eq!(parse_int("global"), None);
        assert_eq!(parse_int(""), None);
    }
}
