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
pub fn sort_objects(s: &HeapSnapshot, a: &Analysis, nodes: &mut [NodeOrdinal], order: ObjectOrder) {
    let key = |n: NodeOrdinal| -> i64 {
        let n = n as usize;
        match order {
            ObjectOrder::Retained => a.retained[n] as i64,
            ObjectOrder::SelfSize => s.nodes.self_size[n] as i64,
            ObjectOrder::Distance => a.distances[n] as i64,
            ObjectOrder::Id => s.nodes.id[n] as i64,
        }
    };
    // Keys read once, beside their node: a million objects sort without a column lookup per
    // comparison.
    let mut keyed: Vec<(i64, NodeOrdinal)> = nodes.iter().map(|&n| (key(n), n)).collect();
    keyed.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    for (slot, (_, n)) in nodes.iter_mut().zip(keyed) {
        *slot = n;
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
}
