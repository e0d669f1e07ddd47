//! Node names as DevTools displays them: a concatenated string shows its text (flattened, capped near
//! 1024 UTF-16 units), a plain object shows its properties, taken alternately from the front and the
//! back and capped near 100 units (`{a, b, …, z}`). Everything else shows its raw name.

use crate::classes::format_property_name;
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal, Types};
use crate::strings::{utf16_len, wtf8_to_string};

pub fn display_name(s: &HeapSnapshot, n: NodeOrdinal) -> String {
    let types = s.types();
    let kind = s.nodes.kind(n);
    let raw = s.strings.bytes(s.nodes.name(n));
    if kind == types.cons_string {
        return wtf8_to_string(&cons_string_text(s, &types, n));
    }
    if kind == types.object && raw == b"Object" {
        return wtf8_to_string(&plain_object_name(s, &types, n));
    }
    wtf8_to_string(raw)
}

fn cons_string_text(s: &HeapSnapshot, types: &Types, n: NodeOrdinal) -> Vec<u8> {
    let mut text = Vec::new();
    let mut text_len = 0;
    let mut stack = vec![n];
    // Parts that lead back to cons strings (a cycle; node 0 typed as one) add no text, so the
    // length cap alone never stops the walk (DevTools hangs there). Real strings reach the cap
    // long before this many parts.
    let mut parts_left = 1 << 16;
    while let Some(node) = stack.pop() {
        if text_len >= 1024 || parts_left == 0 {
            break;
        }
        parts_left -= 1;
        if s.nodes.kind(node) != types.cons_string {
            let part = s.strings.bytes(s.nodes.name(node));
            text.extend_from_slice(part);
            text_len += utf16_len(part);
            continue;
        }
        let none = NodeOrdinal::new(0);
        let (mut first, mut second) = (none, none);
        for e in s.nodes.edges(node) {
            if first != none && second != none {
                break;
            }
            if s.edges.kind(e) == types.edge_internal {
                match s.strings.bytes(s.edges.name_or_index(e)) {
                    b"first" => first = s.edges.to_node(e),
                    b"second" => second = s.edges.to_node(e),
                    _ => {}
                }
            }
        }
        // As in DevTools, a missing part reads as node 0 (the root, whose name is usually empty).
        stack.push(second);
        stack.push(first);
    }
    text
}

fn plain_object_name(s: &HeapSnapshot, types: &Types, n: NodeOrdinal) -> Vec<u8> {
    let edges = s.nodes.edge_range(n);
    let (mut from_start, mut from_end) = (edges.start as i64, edges.end as i64 - 1);
    let mut start = b"{".to_vec();
    let mut start_len = 1;
    let mut end: Vec<u8> = b"}".to_vec();
    let mut end_len = 1;
    let mut next_from_end = false;
    while from_start <= from_end {
        let e = EdgeOrdinal::from_index(if next_from_end { from_end } else { from_start } as usize);
        let name = s.strings.bytes(s.edges.name_or_index(e));
        if s.edges.kind(e) != types.edge_property || name == b"__proto__" {
            if next_from_end {
                from_end -= 1;
            } else {
                from_start += 1;
            }
            continue;
        }
        let formatted = format_property_name(name);
        let formatted_len = utf16_len(&formatted);
        if start_len > 1 && start_len + end_len + formatted_len > 100 {
            break;
        }
        if next_from_end {
            from_end -= 1;
            if end_len > 1 {
                end.splice(0..0, b", ".iter().copied());
                end_len += 2;
            }
            end.splice(0..0, formatted.iter().copied());
            end_len += formatted_len;
        } else {
            from_start += 1;
            if start_len > 1 {
                start.extend_from_slice(b", ");
                start_len += 2;
            }
            start.extend_from_slice(&formatted);
            start_len += formatted_len;
        }
        next_from_end = !next_from_end;
    }
    if from_start <= from_end {
        start.extend_from_slice(", …".as_bytes());
    }
    if end_len > 1 {
        start.extend_from_slice(b", ");
    }
    start.extend_from_slice(&end);
    start
}
