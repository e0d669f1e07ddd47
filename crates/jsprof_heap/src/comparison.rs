//! DevTools' Comparison view: what changed per class between two snapshots of one process, plus the
//! change of each class's retained size, which DevTools does not show.
//!
//! Objects are matched by id within a class key. The base is first re-classified with the target's
//! interface definitions, so plain objects named `{a, b}` line up (`aggregatesForDiff`). Only nodes with
//! a non-zero adjusted self size take part, and classes where nothing was added or deleted are left
//! out, as in DevTools.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::classes::reclassify;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};
use crate::summary::{class_members, summary, SortBy};

/// One class of the Comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassDiff {
    /// The public class key (`,Name` or `script,line,column,Name`), as in the Summary.
    pub key: String,
    pub name: String,
    pub new_count: u64,
    pub deleted_count: u64,
    pub count_delta: i64,
    /// Self sizes of the new objects.
    pub alloc_size: u64,
    /// Self sizes of the deleted objects.
    pub freed_size: u64,
    pub size_delta: i64,
    /// The class's Summary retained size in the target minus in the base (each snapshot classified
    /// by its own interface definitions, as its Summary is); 0 for a side without the class.
    pub retained_delta: i64,
}

/// The result of [`compare`].
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// Sorted by size delta, largest first, then by key.
    pub classes: Vec<ClassDiff>,
    /// How many object ids the two snapshots share.
    pub shared_ids: u64,
    /// How many of the shared ids name an object of the same type and name in both.
    pub same_object_ids: u64,
}

impl Comparison {
    /// False when the ids do not identify the same objects in both snapshots (no shared ids, or
    /// fewer than half of them naming the same object): snapshots of different processes.
    pub fn ids_match(&self) -> bool {
        self.shared_ids > 0 && self.same_object_ids * 2 >= self.shared_ids
    }
}

/// Compares `target` against `base`. `base` is re-classified with the target's interface
/// definitions (its `classes` and string table change).
pub fn compare(
    base: &mut HeapSnapshot,
    base_analysis: &mut Analysis,
    target: &HeapSnapshot,
    target_analysis: &Analysis,
) -> Comparison {
    let retained_of = |s: &HeapSnapshot, a: &Analysis| -> HashMap<String, u64> {
        summary(s, a, SortBy::Retained)
            .into_iter()
            .map(|r| (r.key, r.retained_size))
            .collect()
    };
    let base_retained = retained_of(base, base_analysis);
    let target_retained = retained_of(target, target_analysis);

    let types = base.types();
    reclassify(
        base,
        &types,
        &target_analysis.interfaces,
        &mut base_analysis.classes,
    );
    let sorted_by_id = |s: &HeapSnapshot, mut members: Vec<NodeOrdinal>| {
        members.sort_by_key(|&n| s.nodes.id[n as usize]);
        members
    };
    let mut base_classes: HashMap<String, (String, Vec<NodeOrdinal>)> = HashMap::new();
    for (row, members) in class_members(base, base_analysis) {
        base_classes.insert(row.key, (row.name, sorted_by_id(base, members)));
    }

    let mut classes = Vec::new();
    let mut diff_class = |key: String, name: String, old: &[NodeOrdinal], new: &[NodeOrdinal]| {
        let mut d = ClassDiff {
            retained_delta: target_retained.get(&key).copied().unwrap_or(0) as i64
                - base_retained.get(&key).copied().unwrap_or(0) as i64,
            key,
            name,
            new_count: 0,
            deleted_count: 0,
            count_delta: 0,
            alloc_size: 0,
            freed_size: 0,
            size_delta: 0,
        };
        let (mut i, mut j) = (0, 0);
        let base_id = |k: usize| base.nodes.id[old[k] as usize];
        let target_id = |k: usize| target.nodes.id[new[k] as usize];
        let deleted = |k: usize, d: &mut ClassDiff| {
            d.deleted_count += 1;
            d.freed_size += base.nodes.self_size[old[k] as usize] as u64;
        };
        let added = |k: usize, d: &mut ClassDiff| {
            d.new_count += 1;
            d.alloc_size += target.nodes.self_size[new[k] as usize] as u64;
        };
        while i < old.len() && j < new.len() {
            match base_id(i).cmp(&target_id(j)) {
                std::cmp::Ordering::Less => {
                    deleted(i, &mut d);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    added(j, &mut d);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
            }
        }
        for k in i..old.len() {
            deleted(k, &mut d);
        }
        for k in j..new.len() {
            added(k, &mut d);
        }
        if d.new_count == 0 && d.deleted_count == 0 {
            return;
        }
        d.count_delta = d.new_count as i64 - d.deleted_count as i64;
        d.size_delta = d.alloc_size as i64 - d.freed_size as i64;
        classes.push(d);
    };
    for (row, members) in class_members(target, target_analysis) {
        let members = sorted_by_id(target, members);
        match base_classes.remove(&row.key) {
            // DevTools names a class after the target's aggregate when both have it.
            Some((_, old)) => diff_class(row.key, row.name, &old, &members),
            None => diff_class(row.key, row.name, &[], &members),
        }
    }
    for (key, (name, old)) in base_classes {
        diff_class(key, name, &old, &[]);
    }
    classes.sort_by(|x, y| {
        y.size_delta
            .cmp(&x.size_delta)
            .then_with(|| x.key.cmp(&y.key))
    });
    let (shared_ids, same_object_ids) = shared_ids(base, target);
    Comparison {
        classes,
        shared_ids,
        same_object_ids,
    }
}

/// How many ids occur in both snapshots, and how many of those name an object of the same type and
/// name in both (in snapshots of one process, nearly all do; across processes, ids are reused for
/// unrelated objects).
pub(crate) fn shared_ids(base: &HeapSnapshot, target: &HeapSnapshot) -> (u64, u64) {
    let by_id = |s: &HeapSnapshot| {
        let mut v: Vec<(u32, NodeOrdinal)> = s
            .nodes
            .id
            .iter()
            .enumerate()
            .map(|(n, &id)| (id, n as NodeOrdinal))
            .collect();
        v.sort_unstable();
        v.dedup_by_key(|x| x.0);
        v
    };
    let (a, b) = (by_id(base), by_id(target));
    let (mut i, mut j, mut shared, mut same) = (0, 0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                let (x, y) = (a[i].1, b[j].1);
                if base.node_type_name(x) == target.node_type_name(y)
                    && base.strings.bytes(base.nodes.name[x as usize])
                        == target.strings.bytes(target.nodes.name[y as usize])
                {
                    same += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    (shared, same)
}
