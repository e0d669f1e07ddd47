//! `jsprof heap class FILE KEY --json` and the UI's expanded Summary row: one class's objects in
//! one order, a page at a time. The UI scrolls a class of millions by asking for the page at the
//! row it scrolled to, so the order must be total and the same for every front door: each order
//! breaks ties by node ordinal, and an ascending order is the descending one read backwards.

use jsprof_heap::{Analysis, HeapSnapshot, NodeOrdinal};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{object_json, warnings, ObjectJson};
use crate::{JsonWarning, ReportError, Result};

/// What a class's objects are ordered by (largest first; the UI's sortable columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ObjectOrder {
    /// Retained size (the Summary's default).
    #[default]
    Retained,
    /// Shallow (self) size.
    #[serde(rename = "self")]
    SelfSize,
    /// Distance from the roots (unreachable objects, -5 in V8's terms, last).
    Distance,
    /// Object id (the Constructor column: a class's objects share its name).
    Id,
}

impl ObjectOrder {
    /// The CLI's and the service's spelling: `retained`, `self`, `distance`, `id`.
    pub fn parse(text: &str) -> Option<ObjectOrder> {
        Some(match text {
            "retained" => ObjectOrder::Retained,
            "self" => ObjectOrder::SelfSize,
            "distance" => ObjectOrder::Distance,
            "id" => ObjectOrder::Id,
            _ => return None,
        })
    }
}

/// Sorts `nodes` by `order`, largest first, ties by ordinal (so the order is total).
///
/// A class of tens of millions is sorted when the UI first expands it, so this is a radix sort:
/// when the keys span less than 2^32 (always for self sizes, ids and distances; for retained
/// sizes unless one member retains gigabytes more than another) each object becomes one `u64`,
/// its key's distance below the largest above its ordinal, and ascending `u64`s are the order.
/// Only the bytes that differ between objects are passed over, and none of the ordinal's when
/// `nodes` comes in node order (as a class's members do), because each pass is stable.
pub fn sort_objects(s: &HeapSnapshot, a: &Analysis, nodes: &mut [NodeOrdinal], order: ObjectOrder) {
    let key = |n: NodeOrdinal| -> i64 {
        match order {
            ObjectOrder::Retained => a.retained[n.index()] as i64,
            ObjectOrder::SelfSize => s.nodes.self_size(n) as i64,
            ObjectOrder::Distance => a.distances[n.index()] as i64,
            ObjectOrder::Id => s.nodes.id(n) as i64,
        }
    };
    sort_by_key_descending(nodes, key);
}

/// [`sort_objects`] by any key: largest `key` first, ties by ordinal.
fn sort_by_key_descending(nodes: &mut [NodeOrdinal], key: impl Fn(NodeOrdinal) -> i64) {
    let Some(&head) = nodes.first() else {
        return;
    };
    // One pass for the keys' span and whether the order is already there, or its reverse (ids
    // that grow with the ordinal; one distance for the whole class).
    let (mut min, mut max) = (key(head), key(head));
    let (mut in_order, mut reversed) = (true, true);
    let mut previous = (key(head), head);
    for &n in &nodes[1..] {
        let k = key(n);
        min = min.min(k);
        max = max.max(k);
        let (pk, pn) = previous;
        in_order &= k < pk || (k == pk && n > pn);
        reversed &= k > pk || (k == pk && n < pn);
        previous = (k, n);
    }
    if in_order {
        return;
    }
    if reversed {
        nodes.reverse();
        return;
    }
    if max.abs_diff(min) <= u64::from(u32::MAX) {
        let mut packed: Vec<u64> = nodes
            .iter()
            .map(|&n| (max.abs_diff(key(n)) << 32) | u64::from(n.raw()))
            .collect();
        let from_byte = if nodes.is_sorted() { 4 } else { 0 };
        radix_sort(&mut packed, from_byte);
        for (slot, p) in nodes.iter_mut().zip(packed) {
            *slot = NodeOrdinal::from_raw(p as u32);
        }
        return;
    }
    // Keys read once, beside their node: a million objects sort without a column lookup per
    // comparison.
    let mut keyed: Vec<(i64, NodeOrdinal)> = nodes.iter().map(|&n| (key(n), n)).collect();
    keyed.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    for (slot, (_, n)) in nodes.iter_mut().zip(keyed) {
        *slot = n;
    }
}

/// Sorts `v` ascending when it is already sorted by its bytes below `from_byte`: a stable LSD
/// radix sort, one counting pass for the bytes from `from_byte` up, then one scatter pass per
/// byte that is not the same in every value. Values must be distinct.
fn radix_sort(v: &mut Vec<u64>, from_byte: usize) {
    let mut counts = vec![[0usize; 256]; 8];
    for &x in v.iter() {
        for (byte, c) in counts.iter_mut().enumerate().skip(from_byte) {
            c[((x >> (8 * byte)) & 0xff) as usize] += 1;
        }
    }
    let mut other = vec![0u64; v.len()];
    for (byte, c) in counts.iter().enumerate().skip(from_byte) {
        if c.contains(&v.len()) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (slot, &k) in at.iter_mut().zip(c) {
            *slot = sum;
            sum += k;
        }
        for &x in v.iter() {
            let d = ((x >> (8 * byte)) & 0xff) as usize;
            other[at[d]] = x;
            at[d] += 1;
        }
        std::mem::swap(v, &mut other);
    }
}

/// `heap class`: a page of one class's objects.
#[derive(Serialize, JsonSchema)]
pub struct ClassObjectsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// The Summary key of the class (a Summary row's `key`).
    pub key: String,
    pub name: String,
    pub order: ObjectOrder,
    /// Smallest first: the `order` read backwards.
    pub ascending: bool,
    /// How many objects the class has.
    pub total: usize,
    /// The position of the first object listed, in this order.
    pub offset: usize,
    pub objects: Vec<ObjectJson>,
}

/// Which page of a class's objects, in which order (the CLI's `--sort --ascending --offset
/// --limit`, the service's `sort`, `ascending`, `offset`, `limit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjectsQuery {
    pub order: ObjectOrder,
    pub ascending: bool,
    pub offset: usize,
    pub limit: usize,
}

/// The page `q.offset..q.offset + q.limit` of `sorted` (a class's objects as [`sort_objects`]
/// left them in `q.order`), read backwards when `q.ascending`. `class` is (key, name).
pub fn class_objects_report(
    s: &HeapSnapshot,
    a: &Analysis,
    class: (&str, &str),
    sorted: &[NodeOrdinal],
    q: ObjectsQuery,
) -> ClassObjectsReport {
    let ObjectsQuery {
        order,
        ascending,
        offset,
        limit,
    } = q;
    let total = sorted.len();
    let start = offset.min(total);
    let end = start.saturating_add(limit).min(total);
    let objects = if ascending {
        sorted[total - end..total - start]
            .iter()
            .rev()
            .map(|&n| object_json(s, a, n))
            .collect()
    } else {
        sorted[start..end]
            .iter()
            .map(|&n| object_json(s, a, n))
            .collect()
    };
    ClassObjectsReport {
        kind: s.kind(),
        warnings: warnings(s),
        key: class.0.to_string(),
        name: class.1.to_string(),
        order,
        ascending,
        total,
        offset,
        objects,
    }
}

/// The Summary class a user named: its key exactly, else the one class with that name; the
/// error names the file and, for an ambiguous name, the keys to choose from.
pub fn find_class<'a, T>(
    file: &str,
    classes: &'a [(jsprof_heap::ClassRow, T)],
    wanted: &str,
) -> Result<&'a (jsprof_heap::ClassRow, T)> {
    if let Some(c) = classes.iter().find(|(row, _)| row.key == wanted) {
        return Ok(c);
    }
    let named: Vec<_> = classes
        .iter()
        .filter(|(row, _)| row.name == wanted)
        .collect();
    match named.as_slice() {
        [one] => Ok(one),
        [] => Err(ReportError::NotFound(format!(
            "{file}: no class with key or name `{wanted}` (`jsprof heap summary {file} --json` lists the keys)"
        ))),
        several => Err(ReportError::NotFound(format!(
            "{file}: {} classes are named `{wanted}`; give one of their keys: {}",
            several.len(),
            several
                .iter()
                .map(|(row, _)| format!("`{}`", row.key))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_parse_as_the_cli_spells_them() {
        for (text, order) in [
            ("retained", ObjectOrder::Retained),
            ("self", ObjectOrder::SelfSize),
            ("distance", ObjectOrder::Distance),
            ("id", ObjectOrder::Id),
        ] {
            assert_eq!(ObjectOrder::parse(text), Some(order));
            assert_eq!(
                serde_json::to_value(order).unwrap(),
                serde_json::Value::from(text)
            );
        }
        assert_eq!(ObjectOrder::parse("count"), None);
    }

    /// The radix sort and its shortcuts give the comparison sort's order: keys with ties, few
    /// or many distinct bytes, a span past 2^32 (the comparison sort's path), members in node
    /// order or not, keys growing or shrinking with the ordinal.
    #[test]
    fn sorting_by_key_is_descending_then_by_ordinal() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..400 {
            let len = (next() % 3000) as usize;
            let keys: Vec<i64> = (0..4000u64)
                .map(|i| match case % 7 {
                    0 => (next() % 4) as i64,
                    1 => (next() % (1 << 20)) as i64 - (1 << 19),
                    2 => (next() >> 1) as i64,
                    3 => i as i64 * 2 + 1,
                    4 => -(i as i64),
                    5 => 5,
                    _ => (next() % (1 << 40)) as i64,
                })
                .collect();
            let mut nodes: Vec<NodeOrdinal> = (0..len)
                .map(|_| NodeOrdinal::from_raw((next() % 4000) as u32))
                .collect();
            nodes.sort_unstable();
            nodes.dedup();
            if case % 2 == 1 {
                nodes.reverse();
                let n = nodes.len();
                if n > 2 {
                    nodes.swap(0, n / 2);
                }
            }
            let mut expected = nodes.clone();
            expected.sort_by(|&x, &y| keys[y.index()].cmp(&keys[x.index()]).then(x.cmp(&y)));
            sort_by_key_descending(&mut nodes, |n| keys[n.index()]);
            assert_eq!(nodes, expected, "case {case}");
        }
    }
}
