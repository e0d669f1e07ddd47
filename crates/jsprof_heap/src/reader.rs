//! Reading a `.heapsnapshot`/`.heaptimeline` from any `Read` in one streaming pass.
//!
//! The `snapshot` header comes first (V8 always writes it first, and the other sections cannot be
//! interpreted without its field names); the other sections may come in any order. Numeric arrays go
//! straight into columns and strings into one arena, so memory stays close to the size of the tables.

use std::io::Read;

use crate::error::{HeapError, Result};
use crate::snapshot::{
    HeapSnapshot, Location, Meta, NodeOrdinal, Sample, TraceFunctionInfo, TraceNode, Warning,
    NO_TYPE,
};
use crate::tokenizer::{Tokenizer, Value};

/// Options for [`read_snapshot_with`].
#[derive(Default)]
pub struct ReadOptions<'a> {
    /// Called as input is consumed, with the number of (decompressed) bytes read so far.
    pub progress: Option<&'a mut dyn FnMut(u64)>,
}

/// Reads a snapshot from `reader` (already decompressed).
pub fn read_snapshot(reader: impl Read) -> Result<HeapSnapshot> {
    read_snapshot_with(reader, ReadOptions::default())
}

/// Reads a snapshot, reporting progress.
pub fn read_snapshot_with(reader: impl Read, options: ReadOptions<'_>) -> Result<HeapSnapshot> {
    let mut t = Tokenizer::new(reader, options.progress);
    let mut s = HeapSnapshot::default();
    t.expect(b'{', "the top-level object")?;
    if t.peek_token()? != Some(b'"') || t.read_key("the top-level object")? != b"snapshot" {
        return Err(t.syntax("expected the \"snapshot\" header as the first section"));
    }
    let header_offset = t.offset();
    let header = t.read_value("the snapshot header")?;
    let layout = Layout::from_header(&header, header_offset, &mut s)?;

    let mut edge_counts: Vec<u32> = Vec::new();
    let mut raw_locations: Vec<u32> = Vec::new();
    let mut raw_samples: Vec<u64> = Vec::new();
    let mut raw_infos: Vec<u32> = Vec::new();
    let mut seen = Seen::default();
    let mut edges_offset = 0;
    while t.next_or_close(b'}', "the top-level object")? {
        let key = t.read_key("a section name")?;
        match &key[..] {
            b"nodes" => {
                seen.nodes = true;
                read_nodes(&mut t, &layout, &mut s, &mut edge_counts)?;
            }
            b"edges" => {
                seen.edges = true;
                edges_offset = t.offset();
                read_edges(&mut t, &layout, &mut s)?;
            }
            b"strings" => {
                seen.strings = true;
                read_strings(&mut t, &mut s)?;
            }
            b"locations" => t.read_uint_array("locations", |v| {
                raw_locations.push(v as u32);
                Ok(())
            })?,
            b"samples" => t.read_uint_array("samples", |v| {
                raw_samples.push(v);
                Ok(())
            })?,
            b"trace_function_infos" => t.read_uint_array("trace_function_infos", |v| {
                raw_infos.push(v as u32);
                Ok(())
            })?,
            b"trace_tree" => s.trace_tree = read_trace_tree(&mut t)?,
            _ => t.skip_value("an unknown section")?,
        }
    }
    if !t.at_end()? {
        return Err(t.syntax("unexpected data after the top-level object"));
    }
    let end = t.offset();
    for (present, name) in [
        (seen.nodes, "nodes"),
        (seen.edges, "edges"),
        (seen.strings, "strings"),
    ] {
        if !present {
            return Err(HeapError::Invalid {
                offset: end,
                message: format!("required section \"{name}\" is missing"),
            });
        }
    }
    finish_edges(&mut s, edge_counts, edges_offset)?;
    validate_strings(&s, end)?;
    s.locations = build_locations(&layout, &raw_locations, s.nodes.len());
    s.samples = build_samples(&layout, &raw_samples);
    s.trace_function_infos = build_infos(&layout, &raw_infos);
    check_header_counts(&layout, &mut s);
    s.strings.shrink_to_fit();
    Ok(s)
}

#[derive(Default)]
struct Seen {
    nodes: bool,
    edges: bool,
    strings: bool,
}

/// Field offsets and header numbers, resolved by name.
struct Layout {
    node_field_count: usize,
    node_type: usize,
    node_name: usize,
    node_id: usize,
    node_self_size: usize,
    node_edge_count: usize,
    node_trace: Option<usize>,
    node_detachedness: Option<usize>,
    edge_field_count: usize,
    edge_type: usize,
    edge_name: usize,
    edge_to: usize,
    header_node_count: Option<f64>,
    header_edge_count: Option<f64>,
    root_index: u64,
    location_fields: Vec<String>,
    sample_fields: Vec<String>,
    info_fields: Vec<String>,
}

impl Layout {
    fn from_header(header: &Value, offset: u64, s: &mut HeapSnapshot) -> Result<Layout> {
        let invalid = |message: String| HeapError::Invalid { offset, message };
        let meta = header
            .get("meta")
            .ok_or_else(|| invalid("snapshot.meta is missing".into()))?;
        let list = |key: &str| {
            meta.get(key)
                .and_then(Value::as_string_list)
                .unwrap_or_default()
        };
        let node_fields = list("node_fields");
        let edge_fields = list("edge_fields");
        let field = |fields: &[String], name: &str, what: &str| {
            fields
                .iter()
                .position(|f| f == name)
                .ok_or_else(|| invalid(format!("snapshot.meta.{what} has no \"{name}\"")))
        };
        let node_type = field(&node_fields, "type", "node_fields")?;
        let edge_type = field(&edge_fields, "type", "edge_fields")?;
        let types_at = |key: &str, at: usize| match meta.get(key) {
            Some(Value::Array(items)) => items.get(at).and_then(Value::as_string_list),
            _ => None,
        };
        s.meta = Meta {
            node_types: types_at("node_types", node_type).ok_or_else(|| {
                invalid("snapshot.meta.node_types has no list of type names".into())
            })?,
            edge_types: types_at("edge_types", edge_type).ok_or_else(|| {
                invalid("snapshot.meta.edge_types has no list of type names".into())
            })?,
            location_fields: list("location_fields"),
            sample_fields: list("sample_fields"),
            trace_function_info_fields: list("trace_function_info_fields"),
            node_fields: node_fields.clone(),
            edge_fields: edge_fields.clone(),
        };
        let number = |key: &str| header.get(key).and_then(Value::as_f64);
        s.extra_native_bytes = number("extra_native_bytes").map(|v| v.max(0.0) as u64);
        s.header_trace_function_count =
            number("trace_function_count").map_or(0, |v| v.max(0.0) as u64);
        Ok(Layout {
            node_field_count: node_fields.len(),
            node_type,
            node_name: field(&node_fields, "name", "node_fields")?,
            node_id: field(&node_fields, "id", "node_fields")?,
            node_self_size: field(&node_fields, "self_size", "node_fields")?,
            node_edge_count: field(&node_fields, "edge_count", "node_fields")?,
            node_trace: node_fields.iter().position(|f| f == "trace_node_id"),
            node_detachedness: node_fields.iter().position(|f| f == "detachedness"),
            edge_field_count: edge_fields.len(),
            edge_type,
            edge_name: field(&edge_fields, "name_or_index", "edge_fields")?,
            edge_to: field(&edge_fields, "to_node", "edge_fields")?,
            header_node_count: number("node_count"),
            header_edge_count: number("edge_count"),
            root_index: number("root_index").map_or(0, |v| v.max(0.0) as u64),
            location_fields: s.meta.location_fields.clone(),
            sample_fields: s.meta.sample_fields.clone(),
            info_fields: s.meta.trace_function_info_fields.clone(),
        })
    }
}

fn read_nodes<R: Read>(
    t: &mut Tokenizer<'_, R>,
    layout: &Layout,
    s: &mut HeapSnapshot,
    edge_counts: &mut Vec<u32>,
) -> Result<()> {
    if !s.nodes.kind.is_empty() {
        return Err(t.syntax("the \"nodes\" section appears twice"));
    }
    let hint = layout
        .header_node_count
        .map_or(0, |n| n.clamp(0.0, 1e8) as usize);
    let n = &mut s.nodes;
    for v in [&mut n.name, &mut n.id, &mut n.self_size, edge_counts] {
        v.reserve(hint);
    }
    n.kind.reserve(hint);
    let mut field = 0;
    let fc = layout.node_field_count;
    let start = t.offset();
    let mut bad_type = false;
    // Values gather into a row; each full row goes to the columns at once (cheaper than
    // deciding per value which column it belongs to).
    let mut row = vec![0u64; fc];
    t.read_uint_array("nodes", |v| {
        row[field] = v;
        field += 1;
        if field == fc {
            field = 0;
            let kind = row[layout.node_type];
            bad_type |= kind >= NO_TYPE as u64;
            n.kind.push(kind as u8);
            n.name.push(row[layout.node_name] as u32);
            n.id.push(row[layout.node_id] as u32);
            n.self_size.push(row[layout.node_self_size] as u32);
            edge_counts.push(row[layout.node_edge_count] as u32);
            if let Some(f) = layout.node_trace {
                n.trace_node_id.push(row[f] as u32);
            }
            if let Some(f) = layout.node_detachedness {
                n.detachedness.push((row[f] & 3) as u8);
            }
        }
        Ok(())
    })?;
    if field != 0 {
        return Err(HeapError::Invalid {
            offset: start,
            message: format!("\"nodes\" length is not a multiple of the {fc} node fields"),
        });
    }
    if bad_type {
        return Err(HeapError::Invalid {
            offset: start,
            message: "a node type index is out of range".into(),
        });
    }
    Ok(())
}

fn read_edges<R: Read>(
    t: &mut Tokenizer<'_, R>,
    layout: &Layout,
    s: &mut HeapSnapshot,
) -> Result<()> {
    if !s.edges.kind.is_empty() {
        return Err(t.syntax("the \"edges\" section appears twice"));
    }
    let hint = layout
        .header_edge_count
        .map_or(0, |n| n.clamp(0.0, 1e9) as usize);
    let e = &mut s.edges;
    e.kind.reserve(hint);
    e.name_or_index.reserve(hint);
    e.to_node.reserve(hint);
    let fc = layout.edge_field_count;
    let nfc = layout.node_field_count as u64;
    let start = t.offset();
    let mut field = 0;
    let mut problem: Option<&'static str> = None;
    let mut row = vec![0u64; fc];
    t.read_uint_array("edges", |v| {
        row[field] = v;
        field += 1;
        if field == fc {
            field = 0;
            let kind = row[layout.edge_type];
            if kind >= NO_TYPE as u64 {
                problem = Some("an edge type index is out of range");
            }
            e.kind.push(kind as u8);
            e.name_or_index.push(row[layout.edge_name] as u32);
            let to = row[layout.edge_to];
            // V8 writes 6 or 7 node fields: constant divisors compile to multiplications.
            let index = match nfc {
                6 => to / 6,
                7 => to / 7,
                _ => to / nfc,
            };
            if index * nfc != to || index > u32::MAX as u64 {
                problem = Some(
                    "an edge's to_node is not a node index (a multiple of the node field count)",
                );
            }
            e.to_node.push(index as u32);
        }
        Ok(())
    })?;
    if field != 0 {
        return Err(HeapError::Invalid {
            offset: start,
            message: format!("\"edges\" length is not a multiple of the {fc} edge fields"),
        });
    }
    if let Some(message) = problem {
        return Err(HeapError::Invalid {
            offset: start,
            message: message.into(),
        });
    }
    Ok(())
}

fn read_strings<R: Read>(t: &mut Tokenizer<'_, R>, s: &mut HeapSnapshot) -> Result<()> {
    if !s.strings.is_empty() {
        return Err(t.syntax("the \"strings\" section appears twice"));
    }
    t.expect(b'[', "strings")?;
    if t.peek_token()? == Some(b']') {
        return t.expect(b']', "strings");
    }
    loop {
        t.read_string_into(s.strings.buffer(), "strings")?;
        s.strings.finish();
        if !t.next_or_close(b']', "strings")? {
            return Ok(());
        }
    }
}

/// `[id, function_info_index, count, size, [children…], id, …]`, nested to any depth.
fn read_trace_tree<R: Read>(t: &mut Tokenizer<'_, R>) -> Result<Vec<TraceNode>> {
    const CONTEXT: &str = "trace_tree";
    let mut nodes = Vec::new();
    // The parent of each open child list.
    let mut parents: Vec<u32> = vec![u32::MAX];
    t.expect(b'[', CONTEXT)?;
    loop {
        if t.peek_token()? == Some(b']') {
            t.expect(b']', CONTEXT)?;
        } else {
            let mut fields = [0u64; 4];
            for f in &mut fields {
                let mut value = None;
                t.read_uint_array_element(CONTEXT, &mut value)?;
                *f = value.unwrap_or(0);
                t.expect(b',', CONTEXT)?;
            }
            nodes.push(TraceNode {
                id: fields[0] as u32,
                function_info_index: fields[1] as u32,
                count: fields[2] as u32,
                size: fields[3],
                parent: *parents.last().unwrap_or(&u32::MAX),
            });
            parents.push((nodes.len() - 1) as u32);
            t.expect(b'[', CONTEXT)?;
            continue;
        }
        // A list just closed: continue with its parent's siblings.
        loop {
            parents.pop();
            if parents.is_empty() {
                return Ok(nodes);
            }
            if t.next_or_close(b']', CONTEXT)? {
                break;
            }
        }
    }
}

impl<R: Read> Tokenizer<'_, R> {
    /// One non-negative integer (a single array element).
    fn read_uint_array_element(
        &mut self,
        context: &'static str,
        out: &mut Option<u64>,
    ) -> Result<()> {
        match self.read_value(context)? {
            Value::Number(n) if n >= 0.0 && n.fract() == 0.0 => {
                *out = Some(n as u64);
                Ok(())
            }
            _ => Err(self.syntax(format!("expected a non-negative integer in {context}"))),
        }
    }
}

/// Turns per-node edge counts into the `first_edge` prefix sum and checks edge targets.
fn finish_edges(s: &mut HeapSnapshot, edge_counts: Vec<u32>, edges_offset: u64) -> Result<()> {
    let node_count = s.nodes.len();
    let edge_count = s.edges.len();
    let invalid = |message: String| HeapError::Invalid {
        offset: edges_offset,
        message,
    };
    if edge_count >= u32::MAX as usize {
        return Err(invalid(format!(
            "{edge_count} edges are more than this reader supports (2^32 - 1)"
        )));
    }
    let mut first_edge = Vec::with_capacity(node_count + 1);
    let mut sum: u64 = 0;
    for &c in &edge_counts {
        first_edge.push(sum.min(u32::MAX as u64) as u32);
        sum += c as u64;
    }
    if sum != edge_count as u64 {
        return Err(invalid(format!(
            "the nodes' edge counts add up to {sum}, but \"edges\" holds {edge_count} edges"
        )));
    }
    first_edge.push(edge_count as u32);
    s.nodes.first_edge = first_edge;
    if let Some(bad) = s
        .edges
        .to_node
        .iter()
        .position(|&to| to as usize >= node_count)
    {
        return Err(invalid(format!("edge {bad} points past the last node")));
    }
    Ok(())
}

/// Names must refer to existing strings; DevTools would fail on them later with no position.
fn validate_strings(s: &HeapSnapshot, offset: u64) -> Result<()> {
    let count = s.strings.len() as u32;
    if s.nodes.name.iter().any(|&n| n >= count) {
        return Err(HeapError::Invalid {
            offset,
            message: "a node name is not an index into \"strings\"".into(),
        });
    }
    let types = s.types();
    let bad_edge = s
        .edges
        .kind
        .iter()
        .zip(&s.edges.name_or_index)
        .any(|(&k, &name)| types.edge_has_string_name(k) && name >= count);
    if bad_edge {
        return Err(HeapError::Invalid {
            offset,
            message: "an edge name is not an index into \"strings\"".into(),
        });
    }
    Ok(())
}

fn build_locations(layout: &Layout, raw: &[u32], node_count: usize) -> Vec<Location> {
    let f = &layout.location_fields;
    let pos = |name: &str| f.iter().position(|x| x == name);
    let (Some(index), Some(script), Some(line), Some(column)) = (
        pos("object_index"),
        pos("script_id"),
        pos("line"),
        pos("column"),
    ) else {
        return Vec::new();
    };
    let nfc = layout.node_field_count as u32;
    let mut out: Vec<Location> = raw
        .chunks_exact(f.len())
        .filter(|r| r[index] % nfc == 0 && ((r[index] / nfc) as usize) < node_count)
        .map(|r| Location {
            node: r[index] / nfc,
            script_id: r[script],
            line: r[line],
            column: r[column],
        })
        .collect();
    // Stable sort, then keep the last entry per node: DevTools' Map keeps the last `set`.
    out.sort_by_key(|l| l.node);
    let mut deduped: Vec<Location> = Vec::with_capacity(out.len());
    for l in out {
        match deduped.last_mut() {
            Some(last) if last.node == l.node => *last = l,
            _ => deduped.push(l),
        }
    }
    deduped
}

fn build_samples(layout: &Layout, raw: &[u64]) -> Vec<Sample> {
    let f = &layout.sample_fields;
    let (Some(ts), Some(id)) = (
        f.iter().position(|x| x == "timestamp_us"),
        f.iter().position(|x| x == "last_assigned_id"),
    ) else {
        return Vec::new();
    };
    raw.chunks_exact(f.len())
        .map(|r| Sample {
            timestamp_us: r[ts],
            last_assigned_id: r[id],
        })
        .collect()
}

fn build_infos(layout: &Layout, raw: &[u32]) -> Vec<TraceFunctionInfo> {
    let f = &layout.info_fields;
    if f.is_empty() {
        return Vec::new();
    }
    let pos = |name: &str| f.iter().position(|x| x == name);
    let at = |r: &[u32], p: Option<usize>| p.map_or(0, |p| r[p]);
    let (fid, name, script_name, script_id, line, column) = (
        pos("function_id"),
        pos("name"),
        pos("script_name"),
        pos("script_id"),
        pos("line"),
        pos("column"),
    );
    raw.chunks_exact(f.len())
        .map(|r| TraceFunctionInfo {
            function_id: at(r, fid),
            name: at(r, name),
            script_name: at(r, script_name),
            script_id: at(r, script_id),
            line: at(r, line),
            column: at(r, column),
        })
        .collect()
}

/// Header counts that disagree with the arrays: the arrays win, with a warning.
fn check_header_counts(layout: &Layout, s: &mut HeapSnapshot) {
    let mut warn = |at: &str, message: String| {
        s.warnings.push(Warning {
            at: at.into(),
            message,
        })
    };
    let nodes = s.nodes.len();
    if let Some(h) = layout.header_node_count.filter(|&h| h != nodes as f64) {
        warn(
            "snapshot.node_count",
            format!("header says {h} nodes, the \"nodes\" array holds {nodes}; using the array"),
        );
    }
    let edges = s.edges.len();
    if let Some(h) = layout.header_edge_count.filter(|&h| h != edges as f64) {
        warn(
            "snapshot.edge_count",
            format!("header says {h} edges, the \"edges\" array holds {edges}; using the array"),
        );
    }
    let infos = s.trace_function_infos.len() as u64;
    if s.header_trace_function_count != infos && (infos > 0 || s.header_trace_function_count > 0) {
        warn(
            "snapshot.trace_function_count",
            format!(
                "header says {} trace functions, \"trace_function_infos\" holds {infos}; using the array",
                s.header_trace_function_count
            ),
        );
    }
    let root = layout.root_index / layout.node_field_count.max(1) as u64;
    if layout.root_index % layout.node_field_count.max(1) as u64 != 0
        || root as usize >= nodes.max(1)
    {
        warn(
            "snapshot.root_index",
            format!(
                "root_index {} is not a node; using node 0",
                layout.root_index
            ),
        );
    } else {
        s.root = root as NodeOrdinal;
    }
}
