//! Class names, as the Summary groups objects.
//!
//! Most types have a fixed class (`(system)` for hidden, `Function` for closures, `(array)`, …); objects
//! and native nodes use their name, with HTML-like names cut to the tag (`<div id=a>` → `<div>`). Plain
//! `Object`s are named after the most common property sets ("interface definitions", `{a, b}`): DevTools
//! infers them from the objects' first properties in edge order, keeps those shared by at least
//! max(2, objects/1000) objects, and gives each object the definition with the most properties that its
//! own (sorted) property set contains.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::snapshot::{HeapSnapshot, NodeOrdinal, Types};
use crate::strings::{cmp_utf16, push_wtf8, utf16_len, utf16_units, StringIndex};

const MAX_INTERFACE_NAME_LENGTH: usize = 120;
const MIN_OBJECT_COUNT_PER_INTERFACE: f64 = 2.0;
const MIN_OBJECT_PROPORTION_PER_INTERFACE: f64 = 1000.0;

/// An inferred interface: its display name and its properties (WTF-8, in edge order). The text, not
/// string indexes, so that one snapshot's definitions can classify another's objects (Comparison).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceDefinition {
    pub name: Vec<u8>,
    pub properties: Vec<Vec<u8>>,
}

/// Each node's class name (a string index), appending the names it needs to the string table.
pub(crate) fn class_names(s: &mut HeapSnapshot, types: &Types) -> Vec<StringIndex> {
    let mut added: HashMap<Vec<u8>, StringIndex> = HashMap::new();
    let mut index_for = |s: &mut HeapSnapshot, name: &[u8]| -> StringIndex {
        if let Some(&i) = added.get(name) {
            return i;
        }
        let i = s.strings.push(name);
        added.insert(name.to_vec(), i);
        i
    };
    let hidden = index_for(s, b"(system)");
    let code = index_for(s, b"(compiled code)");
    let function = index_for(s, b"Function");
    let regexp = index_for(s, b"RegExp");
    let n = s.nodes.len();
    let mut classes = Vec::with_capacity(n);
    let mut by_type: HashMap<u8, StringIndex> = HashMap::new();
    for i in 0..n {
        let kind = s.nodes.kind[i];
        let class = if kind == types.hidden {
            hidden
        } else if kind == types.object || kind == types.native {
            let raw = s.nodes.name[i];
            let name = s.strings.bytes(raw);
            let cut_from = if name.starts_with(b"<") {
                Some(0)
            } else if name.starts_with(b"Detached <") {
                Some(10)
            } else {
                None
            };
            match cut_from {
                None => raw,
                Some(from) => {
                    let short = match name[from..].iter().position(|&b| b == b' ') {
                        Some(space) => {
                            let mut v = name[..from + space].to_vec();
                            v.push(b'>');
                            v
                        }
                        None => name.to_vec(),
                    };
                    index_for(s, &short)
                }
            }
        } else if kind == types.code {
            code
        } else if kind == types.closure {
            function
        } else if kind == types.regexp {
            regexp
        } else {
            match by_type.get(&kind) {
                Some(&i) => i,
                None => {
                    let name = format!("({})", s.node_type_name(NodeOrdinal::from_index(i)));
                    let i = index_for(s, name.as_bytes());
                    by_type.insert(kind, i);
                    i
                }
            }
        };
        classes.push(class);
    }
    classes
}

fn is_plain_object(s: &HeapSnapshot, types: &Types, n: usize) -> bool {
    s.nodes.kind[n] == types.object && s.strings.bytes(s.nodes.name[n]) == b"Object"
}

/// Infers interface definitions from the plain objects' first properties.
pub(crate) fn infer_interfaces(s: &HeapSnapshot, types: &Types) -> Vec<InterfaceDefinition> {
    struct Candidate {
        name: Vec<u8>,
        properties: Vec<StringIndex>,
        count: u64,
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut by_name: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut total = 0u64;
    let mut name = Vec::new();
    let mut properties = Vec::new();
    for n in 0..s.nodes.len() {
        if !is_plain_object(s, types, n) {
            continue;
        }
        total += 1;
        name.clear();
        name.push(b'{');
        let mut name_len = 1;
        properties.clear();
        for e in s.nodes.edges(NodeOrdinal::from_index(n)) {
            if s.edges.kind(e) != types.edge_property {
                continue;
            }
            let edge_name = s.edges.name_or_index(e);
            let text = s.strings.bytes(edge_name);
            if text == b"__proto__" {
                continue;
            }
            let formatted = format_property_name(text);
            let formatted_len = utf16_len(&formatted);
            if name_len > 1 && name_len + formatted_len > MAX_INTERFACE_NAME_LENGTH {
                break;
            }
            if name_len != 1 {
                name.extend_from_slice(b", ");
                name_len += 2;
            }
            name.extend_from_slice(&formatted);
            name_len += formatted_len;
            properties.push(edge_name);
        }
        if properties.is_empty() {
            continue;
        }
        name.push(b'}');
        match by_name.get(&name) {
            Some(&i) => candidates[i].count += 1,
            None => {
                by_name.insert(name.clone(), candidates.len());
                candidates.push(Candidate {
                    name: name.clone(),
                    properties: properties.clone(),
                    count: 1,
                });
            }
        }
    }
    // Stable, like JavaScript's sort: among equal counts the first seen comes first.
    candidates.sort_by_key(|c| std::cmp::Reverse(c.count));
    let min_count =
        MIN_OBJECT_COUNT_PER_INTERFACE.max(total as f64 / MIN_OBJECT_PROPORTION_PER_INTERFACE);
    candidates
        .into_iter()
        .take_while(|c| c.count as f64 >= min_count)
        .map(|c| InterfaceDefinition {
            name: c.name,
            properties: c
                .properties
                .iter()
                .map(|&p| s.strings.bytes(p).to_vec())
                .collect(),
        })
        .collect()
}

/// A state of the property tree: adding properties in sorted order walks down from the empty object.
struct TreeNode<'a> {
    next: HashMap<&'a [u8], usize>,
    /// `(property count, definition index)` of the first definition ending here.
    matched: Option<(usize, usize)>,
    greatest_next: Option<&'a [u8]>,
}

/// Renames plain objects after the best matching definition; returns each node's class name index.
pub(crate) fn apply_interfaces(
    s: &mut HeapSnapshot,
    types: &Types,
    definitions: &[InterfaceDefinition],
    classes: &mut [StringIndex],
) {
    let mut matches: Vec<(NodeOrdinal, usize)> = Vec::new();
    {
        let strings = &s.strings;
        let mut tree: Vec<TreeNode<'_>> = vec![TreeNode {
            next: HashMap::new(),
            matched: None,
            greatest_next: None,
        }];
        for (index, definition) in definitions.iter().enumerate() {
            let mut props: Vec<&[u8]> = definition.properties.iter().map(|p| &p[..]).collect();
            props.sort_by(|a, b| cmp_utf16(a, b));
            let mut current = 0;
            for property in &props {
                current = match tree[current].next.get(property) {
                    Some(&next) => next,
                    None => {
                        let next = tree.len();
                        tree.push(TreeNode {
                            next: HashMap::new(),
                            matched: None,
                            greatest_next: None,
                        });
                        let node = &mut tree[current];
                        node.next.insert(property, next);
                        if node
                            .greatest_next
                            .is_none_or(|g| cmp_utf16(g, property) == Ordering::Less)
                        {
                            node.greatest_next = Some(property);
                        }
                        next
                    }
                };
            }
            if tree[current].matched.is_none() {
                tree[current].matched = Some((props.len(), index));
            }
        }
        let better = |a: Option<(usize, usize)>, b: Option<(usize, usize)>| match (a, b) {
            (a, None) => a,
            (None, b) => b,
            (Some(x), Some(y)) => {
                if x.0 > y.0 || (x.0 == y.0 && x.1 <= y.1) {
                    Some(x)
                } else {
                    Some(y)
                }
            }
        };
        let mut props: Vec<&[u8]> = Vec::new();
        let mut states: Vec<usize> = Vec::new();
        let mut next_states: Vec<usize> = Vec::new();
        for n in 0..s.nodes.len() {
            if !is_plain_object(s, types, n) {
                continue;
            }
            props.clear();
            for e in s.nodes.edges(NodeOrdinal::from_index(n)) {
                if s.edges.kind(e) == types.edge_property {
                    props.push(strings.bytes(s.edges.name_or_index(e)));
                }
            }
            props.sort_by(|a, b| cmp_utf16(a, b));
            states.clear();
            states.push(0);
            let mut best = tree[0].matched;
            for property in &props {
                next_states.clear();
                for &state in &states {
                    let node = &tree[state];
                    let exhausted = node
                        .greatest_next
                        .is_none_or(|g| cmp_utf16(property, g) != Ordering::Less);
                    if !exhausted {
                        next_states.push(state);
                    }
                    if let Some(&next) = node.next.get(property) {
                        next_states.push(next);
                        best = better(best, tree[next].matched);
                    }
                }
                next_states.sort_unstable();
                next_states.dedup();
                std::mem::swap(&mut states, &mut next_states);
                if states.is_empty() {
                    break;
                }
            }
            if let Some((_, index)) = best {
                matches.push((NodeOrdinal::from_index(n), index));
            }
        }
    }
    let mut interface_names: Vec<Option<StringIndex>> = vec![None; definitions.len()];
    for (n, index) in matches {
        let class =
            *interface_names[index].get_or_insert_with(|| s.strings.push(&definitions[index].name));
        classes[n.index()] = class;
    }
}

/// Re-classifies the plain objects with another snapshot's interface definitions, as DevTools'
/// `aggregatesForDiff` does with the base snapshot: objects that match none get their raw name back.
pub(crate) fn reclassify(
    s: &mut HeapSnapshot,
    types: &Types,
    definitions: &[InterfaceDefinition],
    classes: &mut [StringIndex],
) {
    for (n, class) in classes.iter_mut().enumerate() {
        if is_plain_object(s, types, n) {
            *class = s.nodes.name[n];
        }
    }
    apply_interfaces(s, types, definitions, classes);
}

/// DevTools' `formatPropertyName`: names with `,'"{}` are shown as JSON strings.
pub(crate) fn format_property_name(name: &[u8]) -> Vec<u8> {
    if !name
        .iter()
        .any(|b| matches!(b, b',' | b'\'' | b'"' | b'{' | b'}'))
    {
        return name.to_vec();
    }
    json_quote(name)
}

/// `JSON.stringify` of a string (lone surrogates escaped as `\udxxx`).
pub(crate) fn json_quote(name: &[u8]) -> Vec<u8> {
    let mut out = vec![b'"'];
    let units: Vec<u16> = utf16_units(name).collect();
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        match u {
            0x22 => out.extend_from_slice(b"\\\""),
            0x5C => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x0A => out.extend_from_slice(b"\\n"),
            0x0D => out.extend_from_slice(b"\\r"),
            0x09 => out.extend_from_slice(b"\\t"),
            0..=0x1F => out.extend_from_slice(format!("\\u{u:04x}").as_bytes()),
            0xD800..=0xDBFF if i + 1 < units.len() && (0xDC00..=0xDFFF).contains(&units[i + 1]) => {
                let cp = 0x10000 + (((u as u32) - 0xD800) << 10) + (units[i + 1] as u32 - 0xDC00);
                push_wtf8(&mut out, cp);
                i += 1;
            }
            0xD800..=0xDFFF => out.extend_from_slice(format!("\\u{u:04x}").as_bytes()),
            _ => push_wtf8(&mut out, u as u32),
        }
        i += 1;
    }
    out.push(b'"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_names_with_punctuation_are_quoted() {
        assert_eq!(format_property_name(b"plain"), b"plain");
        assert_eq!(format_property_name(b"a,b"), b"\"a,b\"");
        assert_eq!(format_property_name(b"say \"hi\""), b"\"say \\\"hi\\\"\"");
    }
}
