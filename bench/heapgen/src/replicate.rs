//! `heapgen --replicate IN.heapsnapshot --times K OUT.heapsnapshot`: a big snapshot with real
//! object shapes — K copies of a recorded snapshot's graph under one root.
//!
//! A generated graph flatters the reader and the dominators (few strings, regular shapes); a
//! recorded heap copied K times keeps its strings, edge kinds, fan-outs and path depths, and its
//! DevTools numbers follow from the original's, which the oracle can compute on the original
//! file where it would never load the copy:
//! - the new root is the original's, with its edges repeated once per copy, each into that copy;
//!   each copy is every other node and edge of the original, ids shifted by an even stride
//!   (V8's ids keep their parity: odd for JS objects);
//! - so each copy's nodes keep their distance, dominator (inside the copy; the root for what the
//!   root dominated) and retained size; the Summary's count, self and retained size of every
//!   class are K times the original's and its distance the same; the total is K times the
//!   original's total less the root's self size, plus it once;
//! - allocation-trace locations are repeated per copy; the strings, the trace tree and the
//!   samples are the original's (samples refer to ids; they only date objects).
//!
//! The original is read whole (its numbers as `u64`s: 8 bytes each); the copies are written as
//! they are made.

use std::io::Write;

/// One numeric array of the snapshot, and where its text sits.
struct Section<'a> {
    values: Vec<u64>,
    text: &'a [u8],
}

/// The byte range of the JSON array after `"key":` (brackets included).
fn array_at<'a>(text: &'a [u8], key: &str) -> Result<(usize, &'a [u8]), String> {
    let needle = format!("\"{key}\":");
    let at = find(text, needle.as_bytes()).ok_or(format!("no \"{key}\" section"))?;
    let start = at + needle.len();
    let start = start
        + text[start..]
            .iter()
            .position(|&b| b == b'[')
            .ok_or(format!("\"{key}\" is not an array"))?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text[start..].iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((start, &text[start..start + i + 1]));
                }
            }
            _ => {}
        }
    }
    Err(format!("\"{key}\" never ends"))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn numbers<'a>(text: &'a [u8], key: &str) -> Result<Section<'a>, String> {
    let (_, array) = array_at(text, key)?;
    let mut values = Vec::with_capacity(array.len() / 3);
    let mut current: Option<u64> = None;
    for &b in &array[1..array.len() - 1] {
        if b.is_ascii_digit() {
            current = Some(current.unwrap_or(0) * 10 + u64::from(b - b'0'));
        } else if let Some(v) = current.take() {
            values.push(v);
        }
        if b == b'-' || b == b'.' {
            return Err(format!("\"{key}\" holds a number that is not a whole one"));
        }
    }
    values.extend(current);
    Ok(Section {
        values,
        text: array,
    })
}

/// The quoted names of the list `"key":[…]` in the meta object.
fn names(meta: &[u8], key: &str) -> Result<Vec<String>, String> {
    let (_, array) = array_at(meta, key)?;
    let text = std::str::from_utf8(array).map_err(|e| e.to_string())?;
    // The first level only: node_types' first entry is itself a list.
    let mut out = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    let mut in_string = false;
    for c in text.chars() {
        match c {
            '"' if depth == 1 => {
                if in_string {
                    out.push(std::mem::take(&mut current));
                }
                in_string = !in_string;
            }
            '[' if !in_string => depth += 1,
            ']' if !in_string => depth -= 1,
            _ if in_string => current.push(c),
            _ => {}
        }
    }
    Ok(out)
}

fn field(fields: &[String], name: &str) -> Result<usize, String> {
    fields
        .iter()
        .position(|f| f == name)
        .ok_or(format!("no \"{name}\" field"))
}

/// Writes numbers comma-separated, `first` saying whether one was written before.
fn put(w: &mut impl Write, first: &mut bool, v: u64) -> std::io::Result<()> {
    if !std::mem::take(first) {
        w.write_all(b",")?;
    }
    let mut buf = itoa_buf(v);
    w.write_all(buf.as_mut())
}

struct Digits([u8; 20], usize);

impl AsMut<[u8]> for Digits {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.0[self.1..]
    }
}

fn itoa_buf(mut v: u64) -> Digits {
    let mut d = Digits([0; 20], 20);
    loop {
        d.1 -= 1;
        d.0[d.1] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            return d;
        }
    }
}

/// How copies' ids are made: shifted by a stride, or renumbered by rank (see [`replicate`]).
enum Ids<'a> {
    Stride(u64),
    Rank(std::borrow::Cow<'a, [u64]>),
}

/// What the copy holds, for the caller's message.
pub struct Replicated {
    pub nodes: u64,
    pub edges: u64,
}

/// How the copies' ids are made.
pub enum IdPlan<'a> {
    /// Shifted by the smallest even stride when that fits in 32 bits, else renumbered by rank.
    Auto,
    /// Shifted by this stride (even; at least the largest id + 2).
    Stride(u64),
    /// Renumbered by rank among these ids (sorted, distinct): the union of a series' ids, so
    /// that an object keeps its ids — and their order — from one replicated snapshot to the next.
    Ranks(&'a [u64]),
}

/// Every node's id of a snapshot (the root's included), in node order.
pub fn node_ids(text: &[u8]) -> Result<Vec<u64>, String> {
    let meta_end = find(text, b"\"nodes\":").ok_or("no \"nodes\" section")?;
    let node_fields = names(&text[..meta_end], "node_fields")?;
    let (nf, id_f) = (node_fields.len(), field(&node_fields, "id")?);
    let nodes = numbers(text, "nodes")?;
    Ok(nodes.values.chunks_exact(nf).map(|row| row[id_f]).collect())
}

/// K copies of `text` to `w`, their ids made as `plan` says.
pub fn replicate(
    text: &[u8],
    times: u64,
    plan: IdPlan<'_>,
    w: &mut impl Write,
) -> Result<Replicated, String> {
    if times == 0 {
        return Err("--times needs at least 1".into());
    }
    let meta_end = find(text, b"\"nodes\":").ok_or("no \"nodes\" section")?;
    let node_fields = names(&text[..meta_end], "node_fields")?;
    let edge_fields = names(&text[..meta_end], "edge_fields")?;
    let nf = node_fields.len();
    let ef = edge_fields.len();
    let (id_f, count_f) = (
        field(&node_fields, "id")?,
        field(&node_fields, "edge_count")?,
    );
    let to_f = field(&edge_fields, "to_node")?;
    let nodes = numbers(text, "nodes")?;
    let edges = numbers(text, "edges")?;
    if nodes.values.len() % nf != 0 || edges.values.len() % ef != 0 {
        return Err("the nodes or edges array is not a whole number of rows".into());
    }
    let n = (nodes.values.len() / nf) as u64;
    let e = (edges.values.len() / ef) as u64;
    if n < 2 {
        return Err("a snapshot of one node has nothing to copy".into());
    }
    let root_edges = nodes.values[count_f];
    let max_id = (0..n as usize)
        .map(|i| nodes.values[i * nf + id_f])
        .max()
        .unwrap_or(0);
    // Copy k's ids: shifted by an even stride (parity kept) when that stays within V8's 32
    // bits; otherwise, as a big heap's ids run into the billions, renumbered by rank — copy k's
    // object of rank r gets 2(rK + k) + parity — which keeps each copy's ids in their order and
    // their parity, and every id distinct.
    let least = (max_id + 2) & !1;
    let fits = |stride: u64| {
        (times - 1)
            .checked_mul(stride)
            .and_then(|v| v.checked_add(max_id))
            .is_some_and(|v| v <= u64::from(u32::MAX))
    };
    let ranked = |sorted: &[u64]| {
        if 2 * (sorted.len() as u64 * times + times) + 3 > u64::from(u32::MAX) {
            return Err(format!(
                "{times} copies of {} ids pass V8's 32-bit ids",
                sorted.len()
            ));
        }
        Ok(())
    };
    let ids = match plan {
        IdPlan::Stride(s) if s % 2 != 0 || s < least => {
            return Err(format!(
                "--id-stride {s}: an even number of at least {least} (the largest id + 2)"
            ))
        }
        IdPlan::Stride(s) if !fits(s) => {
            return Err(format!(
                "{times} copies with an id stride of {s} pass V8's 32-bit ids"
            ))
        }
        IdPlan::Stride(s) => Ids::Stride(s),
        IdPlan::Auto if fits(least) => Ids::Stride(least),
        IdPlan::Auto => {
            let mut sorted: Vec<u64> = (1..n as usize)
                .map(|i| nodes.values[i * nf + id_f])
                .collect();
            sorted.sort_unstable();
            sorted.dedup();
            ranked(&sorted)?;
            Ids::Rank(std::borrow::Cow::Owned(sorted))
        }
        IdPlan::Ranks(union) => {
            ranked(union)?;
            Ids::Rank(std::borrow::Cow::Borrowed(union))
        }
    };
    let new_id = |id: u64, k: u64| match &ids {
        Ids::Stride(s) => id + k * s,
        Ids::Rank(sorted) => {
            let r = sorted.partition_point(|&x| x < id) as u64;
            2 * (r * times + k) + 2 + (id & 1)
        }
    };
    let new_nodes = 1 + times * (n - 1);
    let new_edges = times * e;
    // The index a copy gives original node `i` (the root stays the root).
    let map = |i: u64, k: u64| if i == 0 { 0 } else { 1 + k * (n - 1) + (i - 1) };

    // The head, with the counts changed.
    let head = std::str::from_utf8(&text[..meta_end]).map_err(|e| e.to_string())?;
    let head = replace_count(head, "node_count", new_nodes)?;
    let head = replace_count(&head, "edge_count", new_edges)?;
    w.write_all(head.as_bytes()).map_err(io)?;
    w.write_all(b"\"nodes\":[").map_err(io)?;
    let mut first = true;
    for (f, &v) in nodes.values[..nf].iter().enumerate() {
        put(w, &mut first, if f == count_f { v * times } else { v }).map_err(io)?;
    }
    for k in 0..times {
        for row in nodes.values[nf..].chunks_exact(nf) {
            for (f, &v) in row.iter().enumerate() {
                put(w, &mut first, if f == id_f { new_id(v, k) } else { v }).map_err(io)?;
            }
        }
    }
    w.write_all(b"],\n\"edges\":[").map_err(io)?;
    let mut first = true;
    let root_span = (root_edges as usize) * ef;
    let edge_row = |w: &mut _, first: &mut bool, row: &[u64], k: u64| -> std::io::Result<()> {
        for (f, &v) in row.iter().enumerate() {
            let v = if f == to_f {
                map(v / nf as u64, k) * nf as u64
            } else {
                v
            };
            put(w, first, v)?;
        }
        Ok(())
    };
    for k in 0..times {
        for row in edges.values[..root_span].chunks_exact(ef) {
            edge_row(w, &mut first, row, k).map_err(io)?;
        }
    }
    for k in 0..times {
        for row in edges.values[root_span..].chunks_exact(ef) {
            edge_row(w, &mut first, row, k).map_err(io)?;
        }
    }
    w.write_all(b"]").map_err(io)?;
    // Every later section as it is, but the locations, repeated per copy.
    let (edges_at, _) = array_at(text, "edges")?;
    let rest = &text[edges_at + edges.text.len()..];
    match array_at(rest, "locations") {
        Ok((at, array)) => {
            let fields = names(&text[..meta_end], "location_fields")?;
            let object = field(&fields, "object_index")?;
            let locations = numbers(rest, "locations")?;
            w.write_all(&rest[..at]).map_err(io)?;
            w.write_all(b"[").map_err(io)?;
            let mut first = true;
            for k in 0..times {
                for row in locations.values.chunks_exact(fields.len()) {
                    for (f, &v) in row.iter().enumerate() {
                        let v = if f == object {
                            map(v / nf as u64, k) * nf as u64
                        } else {
                            v
                        };
                        put(w, &mut first, v).map_err(io)?;
                    }
                }
            }
            w.write_all(b"]").map_err(io)?;
            w.write_all(&rest[at + array.len()..]).map_err(io)?;
        }
        Err(_) => w.write_all(rest).map_err(io)?,
    }
    Ok(Replicated {
        nodes: new_nodes,
        edges: new_edges,
    })
}

fn io(e: std::io::Error) -> String {
    e.to_string()
}

/// `"key":N` in the head, with N replaced.
fn replace_count(head: &str, key: &str, value: u64) -> Result<String, String> {
    let needle = format!("\"{key}\":");
    let at = head
        .find(&needle)
        .ok_or(format!("no \"{key}\" in the head"))?
        + needle.len();
    let end = at
        + head[at..]
            .find(|c: char| !c.is_ascii_digit())
            .ok_or(format!("\"{key}\" never ends"))?;
    Ok(format!("{}{value}{}", &head[..at], &head[end..]))
}
