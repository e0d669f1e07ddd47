//! Edge names and labels as DevTools shows them in the Containment and Retainers views
//! (`JSHeapSnapshotEdge.toString`): `.prop`, `["a b"]`, `[3]`, `->var`, `{internal}`, `[[weak]]`.

use crate::snapshot::{EdgeOrdinal, HeapSnapshot};
use crate::strings::wtf8_to_string;

/// The edge's type name (`property`, `element`, …; `invisible` for DevTools' local type).
pub fn edge_type_name(s: &HeapSnapshot, e: EdgeOrdinal) -> &str {
    let kind = s.edges.kind(e) as usize;
    s.meta
        .edge_types
        .get(kind)
        .map_or("invisible", |t| t.as_str())
}

/// The edge's name: its string, or its index for `element` and `hidden` edges.
pub fn edge_name(s: &HeapSnapshot, e: EdgeOrdinal) -> String {
    let types = s.types();
    let kind = s.edges.kind(e);
    let value = s.edges.name_or_index(e);
    if types.edge_has_string_name(kind) {
        wtf8_to_string(s.strings.bytes(value))
    } else {
        value.to_string()
    }
}

/// The edge as DevTools labels it.
pub fn edge_label(s: &HeapSnapshot, e: EdgeOrdinal) -> String {
    let types = s.types();
    let kind = s.edges.kind(e);
    let name = edge_name(s, e);
    if kind == types.edge_context {
        format!("->{name}")
    } else if kind == types.edge_element {
        format!("[{name}]")
    } else if kind == types.edge_weak {
        format!("[[{name}]]")
    } else if kind == types.edge_property {
        if is_identifier(&name) {
            format!(".{name}")
        } else {
            format!("[{}]", serde_like_quote(&name))
        }
    } else if kind == types.edge_shortcut {
        name
    } else {
        format!("{{{name}}}")
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || c == '$' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c == '$' || c.is_alphanumeric())
}

fn serde_like_quote(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::is_identifier;

    #[test]
    fn identifiers() {
        assert!(is_identifier("sessionsLeak"));
        assert!(is_identifier("$x_1"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a b"));
        assert!(!is_identifier(""));
    }
}
