//! Snapshots safe to share: every string value replaced by a placeholder of the same length, the
//! graph untouched, so DevTools shows the same Summary, Statistics, dominators and retainers.
//!
//! What DevTools computes those views from survives: the nodes and edges arrays (types, ids, sizes,
//! edge counts, targets), the names of every node that is not a string value (class and
//! constructor names, closures, code, native and synthetic nodes: the Summary groups by them and
//! the Statistics sort by them), edge names (property and context variable names: retainers), the
//! allocation traces and locations. What goes is the text of `string`, `concatenated string` and
//! `sliced string` nodes and the source of `regexp` nodes; with [`RedactOptions::numbers`] also the
//! digits of number values (V8 writes them as strings behind a number's internal `value` edge when
//! snapshots expose numeric values).
//!
//! A placeholder has as many UTF-16 code units as the original (JavaScript's `length`: what any size
//! DevTools derives from a name would see) and is ASCII. V8 writes each distinct text once, so
//! placeholders stay distinct where their length allows (they end in the string's index in hex):
//! values equal before are equal after, values that differed mostly still differ.
//!
//! When one text is both a kept name and a string value (a string `"Point"` and a class `Point`),
//! the string nodes are pointed at a new entry appended to the string table, so neither use changes.
//!
//! The input is read twice, each time as a stream: the first pass learns which strings are names
//! that must be kept (nodes and edges come before the strings in V8's layout), the second writes.
//! Memory is a byte per string and a few bytes per number node, never the file.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use crate::error::{HeapError, Result};
use crate::reader::Layout;
use crate::snapshot::HeapSnapshot;
use crate::strings::{push_wtf8, utf16_len, utf16_units};
use crate::tokenizer::{Tokenizer, Value};

/// Options for [`redact`].
#[derive(Clone, Debug, Default)]
pub struct RedactOptions {
    /// Also zero number values (every digit becomes `0`; sign, point and exponent stay).
    pub numbers: bool,
}

/// What [`redact`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedactStats {
    /// Strings in the input's table.
    pub strings: u64,
    /// Of those, replaced by placeholders.
    pub redacted: u64,
    /// Entries appended for texts that are both a kept name and a value.
    pub appended: u64,
    /// Nodes whose text was replaced (string values, regexps, and numbers with `numbers`).
    pub nodes_redacted: u64,
    /// Number values zeroed.
    pub numbers_zeroed: u64,
}

/// Why a redaction failed: the input (with its offset) or the output.
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    #[error(transparent)]
    Input(#[from] HeapError),
    #[error("cannot write the redacted snapshot: {0}")]
    Output(#[from] io::Error),
}

/// Redacts the snapshot that `first` and `second` both read (the same bytes, decompressed; the
/// input is read twice), writing the result to `out`.
pub fn redact(
    first: impl Read,
    second: impl Read,
    out: impl Write,
    options: &RedactOptions,
) -> std::result::Result<RedactStats, RedactError> {
    redact_with(first, second, out, options, &mut |_, _| {})
}

/// [`redact`], calling `progress(pass, bytes)` as each pass (1, then 2) reads its input.
pub fn redact_with(
    first: impl Read,
    second: impl Read,
    out: impl Write,
    options: &RedactOptions,
    progress: &mut dyn FnMut(u8, u64),
) -> std::result::Result<RedactStats, RedactError> {
    let plan = Plan::learn(first, &mut |bytes| progress(1, bytes))?;
    let mut w = Writer {
        out: io::BufWriter::with_capacity(1 << 16, out),
        stats: RedactStats {
            strings: plan.string_count,
            ..RedactStats::default()
        },
        copies: HashMap::new(),
        appended: Vec::new(),
    };
    rewrite(second, &plan, options, &mut w, &mut |bytes| {
        progress(2, bytes)
    })?;
    w.out.flush()?;
    Ok(w.stats)
}

/// String indexes past this are refused (the reader's are `u32`), before any table grows to them.
const MAX_STRING_INDEX: u64 = u32::MAX as u64;

/// What the first pass learns.
struct Plan {
    /// A bit per string index: the string is a name some view needs.
    keep: Vec<u64>,
    string_count: u64,
    /// Ordinals of the nodes behind a number's `value` edge, sorted.
    number_values: Vec<u32>,
    node_count: u64,
}

impl Plan {
    fn keeps(&self, index: u64) -> bool {
        self.keep
            .get((index / 64) as usize)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    fn learn(reader: impl Read, progress: &mut dyn FnMut(u64)) -> Result<Plan> {
        let mut t = Tokenizer::new(reader, Some(progress));
        let (layout, scratch) = read_header(&mut t)?;
        let types = Kinds::of(&scratch);
        let mut bits: Vec<u64> = Vec::new();
        // Indexes past the limit are left to the check against the string count below.
        let mut keep = |index: u64| {
            if index <= MAX_STRING_INDEX {
                let word = (index / 64) as usize;
                if word >= bits.len() {
                    bits.resize(word + 1, 0);
                }
                bits[word] |= 1 << (index % 64);
            }
        };
        // Number nodes as (first edge, edge count), in node order; then their edges' (name, target).
        let mut numbers: Vec<(u64, u64)> = Vec::new();
        let mut number_edges: Vec<(u64, u32)> = Vec::new();
        let mut node_count = 0u64;
        let mut string_count = 0u64;
        let mut value_names: Vec<u64> = Vec::new();
        let mut max_index: Option<(u64, u64)> = None;
        while t.next_or_close(b'}', "the top-level object")? {
            let key = t.read_key("a section name")?;
            match &key[..] {
                b"nodes" => {
                    let offset = t.offset();
                    let mut edge = 0u64;
                    rows(&mut t, layout.node_field_count, "nodes", |row| {
                        let kind = row[layout.node_type];
                        let name = row[layout.node_name];
                        let count = row[layout.node_edge_count];
                        if !types.redacted(kind) {
                            keep(name);
                        }
                        max_index = max_index.max(Some((name, offset)));
                        if Some(kind) == types.number {
                            numbers.push((edge, count));
                        }
                        edge = edge.saturating_add(count);
                        node_count += 1;
                    })?;
                }
                b"edges" => {
                    let offset = t.offset();
                    let mut edge = 0u64;
                    let mut next_number = 0usize;
                    rows(&mut t, layout.edge_field_count, "edges", |row| {
                        let kind = row[layout.edge_type];
                        let name = row[layout.edge_name];
                        if !types.indexed_edge(kind) {
                            keep(name);
                            max_index = max_index.max(Some((name, offset)));
                        }
                        while numbers
                            .get(next_number)
                            .is_some_and(|&(first, count)| first.saturating_add(count) <= edge)
                        {
                            next_number += 1;
                        }
                        if let Some(&(first, _)) = numbers.get(next_number) {
                            if first <= edge && Some(kind) == types.edge_internal {
                                let to = row[layout.edge_to] / layout.node_field_count as u64;
                                number_edges.push((name, to as u32));
                            }
                        }
                        edge += 1;
                    })?;
                }
                b"trace_function_infos" => {
                    let fields = &layout.info_fields;
                    let named: Vec<usize> = ["name", "script_name"]
                        .iter()
                        .filter_map(|f| fields.iter().position(|x| x == f))
                        .collect();
                    rows(&mut t, fields.len().max(1), "trace_function_infos", |row| {
                        named.iter().for_each(|&i| keep(row[i]));
                    })?;
                }
                b"strings" => {
                    t.expect(b'[', "strings")?;
                    let mut text = Vec::new();
                    if t.peek_token()? == Some(b']') {
                        t.expect(b']', "strings")?;
                    } else {
                        loop {
                            text.clear();
                            t.read_string_into(&mut text, "strings")?;
                            if text == b"value" {
                                value_names.push(string_count);
                            }
                            string_count += 1;
                            if !t.next_or_close(b']', "strings")? {
                                break;
                            }
                        }
                    }
                }
                _ => t.skip_value("a section")?,
            }
        }
        if !t.at_end()? {
            return Err(t.syntax("unexpected data after the top-level object"));
        }
        if let Some((index, offset)) = max_index.filter(|&(index, _)| index >= string_count) {
            return Err(HeapError::Invalid {
                offset,
                message: format!(
                    "string index {index} in the section starting here, but \"strings\" has {string_count}"
                ),
            });
        }
        let mut number_values: Vec<u32> = number_edges
            .into_iter()
            .filter(|(name, _)| value_names.contains(name))
            .map(|(_, to)| to)
            .collect();
        number_values.sort_unstable();
        number_values.dedup();
        Ok(Plan {
            keep: bits,
            string_count,
            number_values,
            node_count,
        })
    }
}

/// The node and edge type indexes redaction looks at.
struct Kinds {
    redacted: Vec<u64>,
    number: Option<u64>,
    indexed_edges: Vec<u64>,
    edge_internal: Option<u64>,
}

impl Kinds {
    fn of(s: &HeapSnapshot) -> Kinds {
        let index =
            |list: &[String], name: &str| list.iter().position(|t| t == name).map(|i| i as u64);
        let node = |name: &str| index(&s.meta.node_types, name);
        let edge = |name: &str| index(&s.meta.edge_types, name);
        Kinds {
            redacted: ["string", "concatenated string", "sliced string", "regexp"]
                .iter()
                .filter_map(|n| node(n))
                .collect(),
            number: node("number"),
            indexed_edges: ["element", "hidden"]
                .iter()
                .filter_map(|n| edge(n))
                .collect(),
            edge_internal: edge("internal"),
        }
    }

    fn redacted(&self, kind: u64) -> bool {
        self.redacted.contains(&kind)
    }

    fn indexed_edge(&self, kind: u64) -> bool {
        self.indexed_edges.contains(&kind)
    }
}

fn read_header<R: Read>(t: &mut Tokenizer<'_, R>) -> Result<(Layout, HeapSnapshot)> {
    t.expect(b'{', "the top-level object")?;
    if t.peek_token()? != Some(b'"') || t.read_key("the top-level object")? != b"snapshot" {
        return Err(t.syntax("expected the \"snapshot\" header as the first section"));
    }
    let offset = t.offset();
    let header = t.read_value("the snapshot header")?;
    let mut scratch = HeapSnapshot::default();
    let layout = Layout::from_header(&header, offset, &mut scratch)?;
    Ok((layout, scratch))
}

/// Reads a numeric array `width` values a row, handing each whole row to `row`.
fn rows<R: Read>(
    t: &mut Tokenizer<'_, R>,
    width: usize,
    context: &'static str,
    mut row: impl FnMut(&[u64]),
) -> Result<()> {
    let mut batch: Vec<u64> = Vec::new();
    let mut pending: Vec<u64> = Vec::with_capacity(width);
    let mut open = t.open_uint_array(context)?;
    while open {
        batch.clear();
        open = t.read_uints(context, &mut batch, 4096)?;
        for &v in &batch {
            pending.push(v);
            if pending.len() == width {
                row(&pending);
                pending.clear();
            }
        }
    }
    if !pending.is_empty() {
        return Err(t.syntax(format!(
            "{context} has {} values left over after its last whole row of {width}",
            pending.len()
        )));
    }
    Ok(())
}

/// How an appended string entry is derived from the original text at an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Copy {
    Placeholder,
    Verbatim,
    Zeroed,
}

struct Writer<W: Write> {
    out: io::BufWriter<W>,
    stats: RedactStats,
    /// (original index, how) → appended index.
    copies: HashMap<(u64, Copy), u64>,
    /// In appended order: (original index, how).
    appended: Vec<(u64, Copy)>,
}

impl<W: Write> Writer<W> {
    fn copy_of(&mut self, index: u64, how: Copy, string_count: u64) -> u64 {
        let next = string_count + self.appended.len() as u64;
        *self.copies.entry((index, how)).or_insert_with(|| {
            self.appended.push((index, how));
            next
        })
    }
}

fn rewrite<W: Write>(
    reader: impl Read,
    plan: &Plan,
    options: &RedactOptions,
    w: &mut Writer<W>,
    progress: &mut dyn FnMut(u64),
) -> std::result::Result<(), RedactError> {
    let mut t = Tokenizer::new(reader, Some(progress));
    t.expect(b'{', "the top-level object")?;
    t.read_key("the top-level object")?;
    let offset = t.offset();
    let header = t.read_value("the snapshot header")?;
    let mut scratch = HeapSnapshot::default();
    let layout = Layout::from_header(&header, offset, &mut scratch)?;
    let types = Kinds::of(&scratch);
    w.out.write_all(b"{\"snapshot\":")?;
    write_value(&mut w.out, &header)?;
    let mut number_values = plan.number_values.iter().peekable();
    let mut line = Vec::with_capacity(256);
    let mut failure: Option<io::Error> = None;
    while t.next_or_close(b'}', "the top-level object")? {
        let key = t.read_key("a section name")?;
        w.out.write_all(b",\n")?;
        write_string(&mut w.out, &key)?;
        w.out.write_all(b":")?;
        match &key[..] {
            b"nodes" => {
                let mut ordinal = 0u32;
                let mut first = true;
                w.out.write_all(b"[")?;
                rows(&mut t, layout.node_field_count, "nodes", |row| {
                    let kind = row[layout.node_type];
                    let name = row[layout.node_name];
                    while number_values.next_if(|&&n| n < ordinal).is_some() {}
                    let is_number = number_values.next_if(|&&n| n == ordinal).is_some();
                    let new_name = if is_number && options.numbers {
                        w.stats.numbers_zeroed += 1;
                        w.stats.nodes_redacted += 1;
                        w.copy_of(name, Copy::Zeroed, plan.string_count)
                    } else if is_number {
                        if plan.keeps(name) {
                            name
                        } else {
                            w.copy_of(name, Copy::Verbatim, plan.string_count)
                        }
                    } else if types.redacted(kind) {
                        w.stats.nodes_redacted += 1;
                        if plan.keeps(name) {
                            w.copy_of(name, Copy::Placeholder, plan.string_count)
                        } else {
                            name
                        }
                    } else {
                        name
                    };
                    line.clear();
                    if !first {
                        line.extend_from_slice(b"\n,");
                    }
                    first = false;
                    for (i, &v) in row.iter().enumerate() {
                        if i > 0 {
                            line.push(b',');
                        }
                        push_uint(&mut line, if i == layout.node_name { new_name } else { v });
                    }
                    if failure.is_none() {
                        failure = w.out.write_all(&line).err();
                    }
                    ordinal += 1;
                })?;
                w.out.write_all(b"]")?;
                if ordinal as u64 != plan.node_count {
                    return Err(changed(&t));
                }
            }
            b"strings" => {
                write_strings(&mut t, plan, w)?;
            }
            b"trace_tree" => {
                let value = t.read_value("trace_tree")?;
                write_value(&mut w.out, &value)?;
            }
            _ => {
                if t.peek_token()? == Some(b'[') {
                    // edges, trace_function_infos, samples, locations: numbers, copied as they are.
                    let mut batch: Vec<u64> = Vec::new();
                    let mut first = true;
                    w.out.write_all(b"[")?;
                    let mut open = t.open_uint_array("a numeric section")?;
                    while open {
                        batch.clear();
                        open = t.read_uints("a numeric section", &mut batch, 4096)?;
                        line.clear();
                        for &v in &batch {
                            if !first {
                                line.push(b',');
                            }
                            first = false;
                            push_uint(&mut line, v);
                        }
                        w.out.write_all(&line)?;
                    }
                    w.out.write_all(b"]")?;
                } else {
                    let value = t.read_value("a section")?;
                    write_value(&mut w.out, &value)?;
                }
            }
        }
        if let Some(e) = failure.take() {
            return Err(e.into());
        }
    }
    if !t.at_end()? {
        return Err(t
            .syntax("unexpected data after the top-level object")
            .into());
    }
    w.out.write_all(b"}\n")?;
    Ok(())
}

fn changed<R: Read>(t: &Tokenizer<'_, R>) -> RedactError {
    RedactError::Input(HeapError::Invalid {
        offset: t.offset(),
        message: "the input changed between the two readings".into(),
    })
}

fn write_strings<R: Read, W: Write>(
    t: &mut Tokenizer<'_, R>,
    plan: &Plan,
    w: &mut Writer<W>,
) -> std::result::Result<(), RedactError> {
    // Original index → the appended entries derived from it.
    let mut wanted: HashMap<u64, Vec<(usize, Copy)>> = HashMap::new();
    for (k, &(index, how)) in w.appended.iter().enumerate() {
        wanted.entry(index).or_default().push((k, how));
    }
    let mut derived: Vec<Vec<u8>> = vec![Vec::new(); w.appended.len()];
    let mut text = Vec::new();
    let mut replaced = Vec::new();
    let mut index = 0u64;
    w.out.write_all(b"[")?;
    t.expect(b'[', "strings")?;
    let mut open = t.peek_token()? != Some(b']');
    if !open {
        t.expect(b']', "strings")?;
    }
    while open {
        text.clear();
        t.read_string_into(&mut text, "strings")?;
        if let Some(copies) = wanted.get(&index) {
            for &(k, how) in copies {
                derived[k] = derive(&text, how, plan.string_count + k as u64);
            }
        }
        if index > 0 {
            w.out.write_all(b",\n")?;
        }
        if plan.keeps(index) {
            write_string(&mut w.out, &text)?;
        } else {
            w.stats.redacted += 1;
            replaced.clear();
            placeholder(&mut replaced, utf16_len(&text), index);
            write_string(&mut w.out, &replaced)?;
        }
        index += 1;
        open = t.next_or_close(b']', "strings")?;
    }
    if index != plan.string_count {
        return Err(changed(t));
    }
    for text in &derived {
        if index > 0 {
            w.out.write_all(b",\n")?;
        }
        write_string(&mut w.out, text)?;
        index += 1;
    }
    w.stats.appended = derived.len() as u64;
    w.out.write_all(b"]")?;
    Ok(())
}

/// The text of an appended entry made from `text`, at index `at`.
fn derive(text: &[u8], how: Copy, at: u64) -> Vec<u8> {
    let mut out = Vec::new();
    match how {
        Copy::Verbatim => out.extend_from_slice(text),
        Copy::Zeroed => out.extend(
            text.iter()
                .map(|&b| if b.is_ascii_digit() { b'0' } else { b }),
        ),
        Copy::Placeholder => placeholder(&mut out, utf16_len(text), at),
    }
    out
}

/// `len` ASCII characters: `x`s ending in `index` in hex when it fits with at least one `x`.
fn placeholder(out: &mut Vec<u8>, len: usize, index: u64) {
    let tag = format!("{index:x}");
    if len > tag.len() {
        out.resize(out.len() + len - tag.len(), b'x');
        out.extend_from_slice(tag.as_bytes());
    } else {
        out.resize(out.len() + len, b'x');
    }
}

fn push_uint(out: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// A JSON string from WTF-8: lone surrogates and control characters as `\u` escapes.
fn write_string(out: &mut impl Write, text: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(text.len() + 2);
    buf.push(b'"');
    if text.is_ascii() {
        for &b in text {
            push_escaped(&mut buf, b as u32);
        }
    } else {
        let units: Vec<u16> = utf16_units(text).collect();
        for c in char::decode_utf16(units.iter().copied()) {
            match c {
                Ok(c) => push_escaped(&mut buf, c as u32),
                Err(e) => {
                    let unit = e.unpaired_surrogate();
                    buf.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                }
            }
        }
    }
    buf.push(b'"');
    out.write_all(&buf)
}

fn push_escaped(buf: &mut Vec<u8>, cp: u32) {
    match cp {
        0x22 => buf.extend_from_slice(b"\\\""),
        0x5C => buf.extend_from_slice(b"\\\\"),
        0x0A => buf.extend_from_slice(b"\\n"),
        0x0D => buf.extend_from_slice(b"\\r"),
        0x09 => buf.extend_from_slice(b"\\t"),
        0..=0x1F => buf.extend_from_slice(format!("\\u{cp:04x}").as_bytes()),
        _ => push_wtf8(buf, cp),
    }
}

/// A header value back as JSON.
fn write_value(out: &mut impl Write, v: &Value) -> io::Result<()> {
    match v {
        Value::Null => out.write_all(b"null"),
        Value::Bool(b) => out.write_all(if *b { b"true" } else { b"false" }),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => write!(out, "{}", *n as i64),
        Value::Number(n) if n.is_finite() => write!(out, "{n}"),
        Value::Number(_) => out.write_all(b"null"),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_value(out, item)?;
            }
            out.write_all(b"]")
        }
        Value::Object(fields) => {
            out.write_all(b"{")?;
            for (i, (key, value)) in fields.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_string(out, key)?;
                out.write_all(b":")?;
                write_value(out, value)?;
            }
            out.write_all(b"}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],
"node_types":[["hidden","object","string","number","concatenated string"]],
"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property","internal"]]},
"node_count":5,"edge_count":4},
"nodes":[0,0,1,0,3, 2,1,3,24,0, 2,2,5,16,0, 3,4,7,16,1, 2,5,9,16,0],
"edges":[1,2,5, 0,0,10, 0,1,15, 2,6,20],
"strings":["Root","secret \u00e9\ud800","Point","unused","heap number","3.25","value"]}"#;

    fn run(numbers: bool) -> (String, RedactStats) {
        let mut out = Vec::new();
        let stats = redact(
            SNAPSHOT.as_bytes(),
            SNAPSHOT.as_bytes(),
            &mut out,
            &RedactOptions { numbers },
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), stats)
    }

    #[test]
    fn replaces_values_keeps_names_and_the_graph() {
        let (text, stats) = run(false);
        let redacted = crate::read_snapshot(text.as_bytes()).unwrap();
        let original = crate::read_snapshot(SNAPSHOT.as_bytes()).unwrap();
        assert_eq!(redacted.nodes.self_size, original.nodes.self_size);
        assert_eq!(redacted.edges.to_node, original.edges.to_node);
        assert!(!text.contains("secret") && !text.contains("unused"));
        // "Point" is a property name and a string value: the value moved to an appended entry.
        let names: Vec<String> = redacted
            .nodes
            .ordinals()
            .map(|n| redacted.strings.get(redacted.nodes.name(n)))
            .collect();
        assert_eq!(names[0], "Root");
        assert_eq!(names[1], "xxxxxxxx1");
        assert_eq!(names[2], "xxxx7");
        assert_eq!(names[4], "3.25");
        assert_eq!(redacted.strings.get(2), "Point");
        // The number's text is kept, in an entry of its own (its original one is redacted).
        assert_eq!(stats.appended, 2);
        assert_eq!(stats.redacted, 3);
        let (zeroed, stats) = run(true);
        assert!(zeroed.contains("\"0.00\"") && !zeroed.contains("3.25"));
        assert_eq!(stats.numbers_zeroed, 1);
    }

    #[test]
    fn refuses_string_indexes_past_the_table_without_allocating_for_them() {
        let hostile = SNAPSHOT.replacen("[0,0,1,0,3,", "[0,4000000000000,1,0,3,", 1);
        let err = redact(
            hostile.as_bytes(),
            hostile.as_bytes(),
            Vec::new(),
            &RedactOptions::default(),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("string index 4000000000000"),
            "{err}"
        );
    }

    #[test]
    fn placeholders_keep_utf16_length() {
        let mut out = Vec::new();
        placeholder(&mut out, 3, 0x1ff);
        assert_eq!(out, b"xxx");
        out.clear();
        placeholder(&mut out, 5, 0x1ff);
        assert_eq!(out, b"xx1ff");
        let mut json = Vec::new();
        write_string(&mut json, "a\"\n\u{1F600}".as_bytes()).unwrap();
        assert_eq!(json, "\"a\\\"\\n\u{1F600}\"".as_bytes());
    }
}
