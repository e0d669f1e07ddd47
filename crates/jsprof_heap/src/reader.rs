//! Reading a `.heapsnapshot`/`.heaptimeline` from any `Read` in one streaming pass.
//!
//! The `snapshot` header comes first (V8 always writes it first, and the other sections cannot be
//! interpreted without its field names); the other sections may come in any order. Numeric arrays go
//! straight into columns and strings into one arena, so memory stays close to the size of the tables.

use std::io::Read;
use std::sync::mpsc;

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

    let mut edge_total: u64 = 0;
    let mut bounds = Bounds::default();
    let mut locations: Vec<Location> = Vec::new();
    let mut raw_samples: Vec<u64> = Vec::new();
    let mut raw_infos: Vec<u32> = Vec::new();
    let mut seen = Seen::default();
    let mut edges_offset = 0;
    while t.next_or_close(b'}', "the top-level object")? {
        let key = t.read_key("a section name")?;
        match &key[..] {
            b"nodes" => {
                seen.nodes = true;
                edge_total = read_nodes(&mut t, &layout, &mut s, &mut bounds)?;
            }
            b"edges" => {
                seen.edges = true;
                edges_offset = t.offset();
                read_edges(&mut t, &layout, &mut s, &mut bounds)?;
            }
            b"strings" => {
                seen.strings = true;
                read_strings(&mut t, &mut s)?;
            }
            b"locations" => locations = read_locations(&mut t, &layout)?,
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
    finish_edges(&mut s, edge_total, &bounds, edges_offset)?;
    validate_strings(&s, &bounds, end)?;
    s.locations = finish_locations(locations, s.nodes.len());
    s.samples = build_samples(&layout, &raw_samples);
    s.trace_function_infos = build_infos(&layout, &raw_infos);
    check_header_counts(&layout, &mut s);
    s.strings.shrink_to_fit();
    if s.trace_tree.is_empty() {
        // Only the allocation profile reads trace ids, and without a trace tree there is none: a
        // plain snapshot's column of zeros (4 bytes a node) would only raise the analysis' peak.
        s.nodes.trace_node_id = Vec::new();
    }
    Ok(s)
}

#[derive(Default)]
struct Seen {
    nodes: bool,
    edges: bool,
    strings: bool,
}

/// Field offsets and header numbers, resolved by name.
pub(crate) struct Layout {
    pub(crate) node_field_count: usize,
    pub(crate) node_type: usize,
    pub(crate) node_name: usize,
    pub(crate) node_id: usize,
    pub(crate) node_self_size: usize,
    pub(crate) node_edge_count: usize,
    pub(crate) node_trace: Option<usize>,
    pub(crate) node_detachedness: Option<usize>,
    pub(crate) edge_field_count: usize,
    pub(crate) edge_type: usize,
    pub(crate) edge_name: usize,
    pub(crate) edge_to: usize,
    pub(crate) header_node_count: Option<f64>,
    pub(crate) header_edge_count: Option<f64>,
    pub(crate) root_index: u64,
    pub(crate) location_fields: Vec<String>,
    pub(crate) sample_fields: Vec<String>,
    pub(crate) info_fields: Vec<String>,
}

impl Layout {
    pub(crate) fn from_header(header: &Value, offset: u64, s: &mut HeapSnapshot) -> Result<Layout> {
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

/// Largest indexes seen while reading, checked once the arrays they index are known.
#[derive(Default)]
struct Bounds {
    node_name: u32,
    /// Among edges whose `name_or_index` is a string index.
    edge_name: u32,
    to_node: u32,
}

/// Values per batch handed from the tokenizer to the thread that fills the columns.
const BATCH: usize = 1 << 15;

/// Reads a numeric array as rows of `width` values: this thread tokenizes while a second one hands
/// each full row to `sink`. Batches of values go through a bounded channel (and come back to be
/// reused), so parsing and filling the columns overlap while memory stays bounded. Returns the number
/// of values left over in an incomplete last row.
fn read_rows<R: Read>(
    t: &mut Tokenizer<'_, R>,
    context: &'static str,
    width: usize,
    mut sink: impl FnMut(&[u64]) + Send,
) -> Result<usize> {
    assert!(width > 0, "rows have at least one field");
    let (full_tx, full_rx) = mpsc::sync_channel::<Vec<u64>>(4);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u64>>();
    std::thread::scope(|scope| {
        let filler = scope.spawn(move || {
            let mut row: Vec<u64> = Vec::with_capacity(width);
            for batch in full_rx {
                let mut values = &batch[..];
                if !row.is_empty() {
                    let take = (width - row.len()).min(values.len());
                    row.extend_from_slice(&values[..take]);
                    values = &values[take..];
                    if row.len() == width {
                        sink(&row);
                        row.clear();
                    }
                }
                let mut rows = values.chunks_exact(width);
                for r in &mut rows {
                    sink(r);
                }
                row.extend_from_slice(rows.remainder());
                // The reader may have finished already: then the batch is simply dropped.
                let _ = empty_tx.send(batch);
            }
            row.len()
        });
        let read = (|| {
            let mut open = t.open_uint_array(context)?;
            while open {
                let mut batch = empty_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH + 64));
                batch.clear();
                open = t.read_uints(context, &mut batch, BATCH)?;
                // Fails only if the filler panicked, which its join below passes on.
                let _ = full_tx.send(batch);
            }
            Ok(())
        })();
        drop(full_tx);
        let leftover = filler
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        read.map(|()| leftover)
    })
}

/// Rows a growing column makes room for at least, so that small inputs reallocate only a few times.
const MIN_GROWTH: usize = 1 << 14;

/// A header's row count (`node_count`, `edge_count`) as a growth limit; 0 when absent or absurd.
fn claimed_rows(header: Option<f64>) -> usize {
    header.map_or(0, |n| n.clamp(0.0, u32::MAX as f64) as usize)
}

/// How many more rows full columns of `len` rows make room for. A header's count is a claim, not
/// a fact: reserving it up front let a 2 KB file claiming 2^31 nodes ask for gigabytes at once,
/// which aborts the process where address space is limited. So columns grow with the data, by
/// doubling, but never past the claim while the data has not exceeded it: an honest header still
/// ends with columns of exactly its size (with glibc, large reallocations remap pages, not copy),
/// and a lying one costs only what the data proves.
fn room_for_more(len: usize, claimed: usize) -> usize {
    let doubled = len.max(MIN_GROWTH);
    if claimed > len {
        doubled.min(claimed - len)
    } else {
        doubled
    }
}

/// Reads `nodes` into the columns, with `first_edge` as the running sum of the edge counts (its last
/// entry is added by [`finish_edges`]); returns the sum.
fn read_nodes<R: Read>(
    t: &mut Tokenizer<'_, R>,
    layout: &Layout,
    s: &mut HeapSnapshot,
    bounds: &mut Bounds,
) -> Result<u64> {
    if !s.nodes.kind.is_empty() {
        return Err(t.syntax("the \"nodes\" section appears twice"));
    }
    let claimed = claimed_rows(layout.header_node_count);
    let n = &mut s.nodes;
    let fc = layout.node_field_count;
    let start = t.offset();
    let mut bad_type = false;
    let mut edge_sum: u64 = 0;
    let mut max_name = 0u32;
    let leftover = read_rows(t, "nodes", fc, |row| {
        if n.kind.len() == n.kind.capacity() {
            let extra = room_for_more(n.kind.len(), claimed);
            for v in [&mut n.name, &mut n.id, &mut n.self_size, &mut n.first_edge] {
                v.reserve_exact(extra);
            }
            n.kind.reserve_exact(extra);
            if layout.node_trace.is_some() {
                n.trace_node_id.reserve_exact(extra);
            }
            if layout.node_detachedness.is_some() {
                n.detachedness.reserve_exact(extra);
            }
        }
        let kind = row[layout.node_type];
        bad_type |= kind >= NO_TYPE as u64;
        n.kind.push(kind as u8);
        let name = row[layout.node_name] as u32;
        max_name = max_name.max(name);
        n.name.push(name);
        n.id.push(row[layout.node_id] as u32);
        n.self_size.push(row[layout.node_self_size] as u32);
        n.first_edge.push(edge_sum.min(u32::MAX as u64) as u32);
        edge_sum += row[layout.node_edge_count] as u32 as u64;
        if let Some(f) = layout.node_trace {
            n.trace_node_id.push(row[f] as u32);
        }
        if let Some(f) = layout.node_detachedness {
            n.detachedness.push((row[f] & 3) as u8);
        }
    })?;
    if leftover != 0 {
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
    bounds.node_name = max_name;
    Ok(edge_sum)
}

fn read_edges<R: Read>(
    t: &mut Tokenizer<'_, R>,
    layout: &Layout,
    s: &mut HeapSnapshot,
    bounds: &mut Bounds,
) -> Result<()> {
    if !s.edges.kind.is_empty() {
        return Err(t.syntax("the \"edges\" section appears twice"));
    }
    let claimed = claimed_rows(layout.header_edge_count);
    let types = s.types();
    let e = &mut s.edges;
    let fc = layout.edge_field_count;
    let nfc = layout.node_field_count as u64;
    let start = t.offset();
    let mut problem: Option<&'static str> = None;
    let (mut max_name, mut max_to) = (0u32, 0u32);
    let leftover = read_rows(t, "edges", fc, |row| {
        if e.kind.len() == e.kind.capacity() {
            let extra = room_for_more(e.kind.len(), claimed);
            e.kind.reserve_exact(extra);
            e.name_or_index.reserve_exact(extra);
            e.to_node.reserve_exact(extra);
        }
        let kind = row[layout.edge_type];
        if kind >= NO_TYPE as u64 {
            problem = Some("an edge type index is out of range");
        }
        e.kind.push(kind as u8);
        let name = row[layout.edge_name] as u32;
        if types.edge_has_string_name(kind as u8) {
            max_name = max_name.max(name);
        }
        e.name_or_index.push(name);
        let to = row[layout.edge_to];
        let index = to / nfc;
        if index * nfc != to || index > u32::MAX as u64 {
            problem =
                Some("an edge's to_node is not a node index (a multiple of the node field count)");
        }
        max_to = max_to.max(index as u32);
        e.to_node.push(index as u32);
    })?;
    if leftover != 0 {
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
    bounds.edge_name = max_name;
    bounds.to_node = max_to;
    Ok(())
}

/// Reads `locations` as [`Location`]s, dropping rows whose object index is not a node index (their
/// node need not be known yet: [`finish_locations`] checks that).
fn read_locations<R: Read>(t: &mut Tokenizer<'_, R>, layout: &Layout) -> Result<Vec<Location>> {
    let f = &layout.location_fields;
    let pos = |name: &str| f.iter().position(|x| x == name);
    let (Some(index), Some(script), Some(line), Some(column)) = (
        pos("object_index"),
        pos("script_id"),
        pos("line"),
        pos("column"),
    ) else {
        t.read_uint_array("locations", |_| Ok(()))?;
        return Ok(Vec::new());
    };
    let nfc = layout.node_field_count as u32;
    let mut out = Vec::new();
    // An incomplete last row is ignored, as DevTools does.
    read_rows(t, "locations", f.len(), |r| {
        let object = r[index] as u32;
        if object.is_multiple_of(nfc) {
            out.push(Location {
                node: NodeOrdinal::new(object / nfc),
                script_id: r[script] as u32,
                line: r[line] as u32,
                column: r[column] as u32,
            });
        }
    })?;
    Ok(out)
}

fn read_strings<R: Read>(t: &mut Tokenizer<'_, R>, s: &mut HeapSnapshot) -> Result<()> {
    if !s.strings.is_empty() {
        return Err(t.syntax("the \"strings\" section appears twice"));
    }
    t.expect(b'[', "strings")?;
    t.read_items(b']', "strings", |t| {
        t.read_string_into(s.strings.buffer(), "strings")?;
        s.strings.finish();
        Ok(())
    })
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

/// Closes `first_edge` (the running sum of the nodes' edge counts) and checks edge targets.
fn finish_edges(s: &mut HeapSnapshot, sum: u64, bounds: &Bounds, edges_offset: u64) -> Result<()> {
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
    if sum != edge_count as u64 {
        return Err(invalid(format!(
            "the nodes' edge counts add up to {sum}, but \"edges\" holds {edge_count} edges"
        )));
    }
    s.nodes.first_edge.push(edge_count as u32);
    if edge_count > 0 && bounds.to_node as usize >= node_count {
        let bad = s
            .edges
            .to_node
            .iter()
            .position(|&to| to as usize >= node_count)
            .unwrap_or_default();
        return Err(invalid(format!("edge {bad} points past the last node")));
    }
    Ok(())
}

/// Names must refer to existing strings; DevTools would fail on them later with no position.
fn validate_strings(s: &HeapSnapshot, bounds: &Bounds, offset: u64) -> Result<()> {
    let count = s.strings.len() as u64;
    if !s.nodes.is_empty() && bounds.node_name as u64 >= count {
        return Err(HeapError::Invalid {
            offset,
            message: "a node name is not an index into \"strings\"".into(),
        });
    }
    let types = s.types();
    let any_string_named = s.edges.kind.iter().any(|&k| types.edge_has_string_name(k));
    if any_string_named && bounds.edge_name as u64 >= count {
        return Err(HeapError::Invalid {
            offset,
            message: "an edge name is not an index into \"strings\"".into(),
        });
    }
    Ok(())
}

/// Keeps the locations of existing nodes, sorted by node, the last one per node (DevTools' Map keeps
/// the last `set`). V8 does not write them in node order, so rather than sort them, each node's last
/// row is found with one pass over a per-node slot.
fn finish_locations(mut rows: Vec<Location>, node_count: usize) -> Vec<Location> {
    rows.retain(|l| l.node.index() < node_count);
    if rows.windows(2).all(|w| w[0].node < w[1].node) {
        return rows;
    }
    if rows.len() >= u32::MAX as usize {
        rows.sort_by_key(|l| l.node);
        rows.reverse();
        rows.dedup_by_key(|l| l.node);
        rows.reverse();
        return rows;
    }
    let mut last = vec![u32::MAX; node_count];
    for (i, l) in rows.iter().enumerate() {
        last[l.node.index()] = i as u32;
    }
    last.iter()
        .filter(|&&i| i != u32::MAX)
        .map(|&i| rows[i as usize])
        .collect()
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
    if !layout
        .root_index
        .is_multiple_of(layout.node_field_count.max(1) as u64)
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
        s.root = NodeOrdinal::new(root as u32);
    }
}
