//! DevTools' Comparison view: what changed per class between two snapshots of one process, plus the
//! change of each class's retained size, which DevTools does not show.
//!
//! Objects are matched by id within a class key. The base is first re-classified with the target's
//! interface definitions, so plain objects named `{a, b}` line up (`aggregatesForDiff`). Only nodes with
//! a non-zero adjusted self size take part, and classes where nothing was added or deleted are left
//! out, as in DevTools.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::classes::{reclassify, InterfaceDefinition};
use crate::snapshot::HeapSnapshot;
use crate::snapshot_order::Identities;
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

/// What the comparison needs of one snapshot, without its graph: each class's members (ids and
/// self sizes), its Summary retained size, and the objects' [`Identities`]. `heap diff` holds the
/// earlier snapshot as this while it reads the other, never two graphs at once.
#[derive(Clone, Debug, Default)]
pub struct CompareSide {
    /// The Summary's retained size per class key, the snapshot classified by its own interface
    /// definitions (as its Summary is).
    retained: HashMap<String, u64>,
    /// Per class key as classified for the comparison: its name and its members (id, self size),
    /// sorted by id; in the Summary's order of first appearance.
    classes: Vec<SideClass>,
    identities: Identities,
}

#[derive(Clone, Debug, Default)]
struct SideClass {
    key: String,
    name: String,
    members: Vec<(u32, u32)>,
}

impl CompareSide {
    /// The later snapshot, classified by its own interface definitions.
    pub fn target(s: &HeapSnapshot, a: &Analysis) -> CompareSide {
        let retained = retained_by_key(s, a);
        CompareSide {
            retained,
            classes: side_classes(s, a),
            identities: Identities::of(s),
        }
    }

    /// The earlier snapshot, re-classified with the target's interface definitions (its
    /// `classes` and string table change) so that plain objects named `{a, b}` line up.
    pub fn base(
        s: &mut HeapSnapshot,
        a: &mut Analysis,
        target_interfaces: &[InterfaceDefinition],
    ) -> CompareSide {
        let retained = retained_by_key(s, a);
        let types = s.types();
        reclassify(s, &types, target_interfaces, &mut a.classes);
        CompareSide {
            retained,
            classes: side_classes(s, a),
            identities: Identities::of(s),
        }
    }

    pub fn identities(&self) -> &Identities {
        &self.identities
    }
}

fn retained_by_key(s: &HeapSnapshot, a: &Analysis) -> HashMap<String, u64> {
    summary(s, a, SortBy::Retained)
        .into_iter()
        .map(|r| (r.key, r.retained_size))
        .collect()
}

fn side_classes(s: &HeapSnapshot, a: &Analysis) -> Vec<SideClass> {
    class_members(s, a)
        .into_iter()
        .map(|(row, members)| {
            let mut members: Vec<(u32, u32)> = (members.into_iter())
                .map(|n| (s.nodes.id(n), s.nodes.self_size(n)))
                .collect();
            members.sort_by_key(|&(id, _)| id);
            SideClass {
                key: row.key,
                name: row.name,
                members,
            }
        })
        .collect()
}

/// Compares `target` against `base`. `base` is re-classified with the target's interface
/// definitions (its `classes` and string table change).
pub fn compare(
    base: &mut HeapSnapshot,
    base_analysis: &mut Analysis,
    target: &HeapSnapshot,
    target_analysis: &Analysis,
) -> Comparison {
    let target_side = CompareSide::target(target, target_analysis);
    let base_side = CompareSide::base(base, base_analysis, &target_analysis.interfaces);
    compare_sides(base_side, &target_side)
}

/// [`compare`] of two snapshots known by their [`CompareSide`]s.
pub fn compare_sides(base: CompareSide, target: &CompareSide) -> Comparison {
    let CompareSide {
        retained: base_retained,
        classes: base_list,
        identities: base_identities,
    } = base;
    let mut base_classes: HashMap<String, (String, Vec<(u32, u32)>)> = HashMap::new();
    for c in base_list {
        base_classes.insert(c.key, (c.name, c.members));
    }

    let mut classes = Vec::new();
    let mut diff_class = |key: String, name: String, old: &[(u32, u32)], new: &[(u32, u32)]| {
        let mut d = ClassDiff {
            retained_delta: target.retained.get(&key).copied().unwrap_or(0) as i64
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
        let deleted = |k: usize, d: &mut ClassDiff| {
            d.deleted_count += 1;
            d.freed_size += old[k].1 as u64;
        };
        let added = |k: usize, d: &mut ClassDiff| {
            d.new_count += 1;
            d.alloc_size += new[k].1 as u64;
        };
        while i < old.len() && j < new.len() {
            match old[i].0.cmp(&new[j].0) {
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
    for c in &target.classes {
        match base_classes.remove(&c.key) {
            // DevTools names a class after the target's aggregate when both have it.
            Some((_, old)) => diff_class(c.key.clone(), c.name.clone(), &old, &c.members),
            None => diff_class(c.key.clone(), c.name.clone(), &[], &c.members),
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
    let (shared_ids, same_object_ids) = base_identities.shared(&target.identities);
    Comparison {
        classes,
        shared_ids,
        same_object_ids,
    }
}
