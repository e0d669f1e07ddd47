//! The objects behind one row of the Comparison ([`crate::compare`]): the class's new objects (in
//! the target, with ids the base does not have in that class) and its deleted ones (in the base),
//! found by the same merge of id-sorted members after the same re-classification of the base, so
//! that their numbers are the row's `new_count` and `deleted_count`.

use crate::analysis::Analysis;
use crate::classes::reclassify;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};
use crate::summary::class_members;

/// One class's changes between two snapshots, each list largest self size first (then by id).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassChanges {
    pub name: String,
    /// Ordinals in the target.
    pub new: Vec<NodeOrdinal>,
    /// Ordinals in the base.
    pub deleted: Vec<NodeOrdinal>,
}

/// The new and deleted objects of the class with Summary key `key`; `None` when neither snapshot
/// has the class. The base is re-classified with the target's interfaces, as [`crate::compare`]
/// does (hence `&mut`).
pub fn class_changes(
    base: &mut HeapSnapshot,
    base_analysis: &mut Analysis,
    target: &HeapSnapshot,
    target_analysis: &Analysis,
    key: &str,
) -> Option<ClassChanges> {
    let types = base.types();
    reclassify(
        base,
        &types,
        &target_analysis.interfaces,
        &mut base_analysis.classes,
    );
    let members_of = |s: &HeapSnapshot, a: &Analysis| {
        class_members(s, a)
            .into_iter()
            .find(|(row, _)| row.key == key)
            .map(|(row, mut members)| {
                members.sort_by_key(|&n| s.nodes.id(n));
                (row.name, members)
            })
    };
    let old = members_of(base, base_analysis);
    let new = members_of(target, target_analysis);
    let name = match (&old, &new) {
        (_, Some((name, _))) | (Some((name, _)), None) => name.clone(),
        (None, None) => return None,
    };
    let old = old.map(|(_, m)| m).unwrap_or_default();
    let new = new.map(|(_, m)| m).unwrap_or_default();
    let mut changes = ClassChanges {
        name,
        ..ClassChanges::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        let (b, t) = (base.nodes.id(old[i]), target.nodes.id(new[j]));
        match b.cmp(&t) {
            std::cmp::Ordering::Less => {
                changes.deleted.push(old[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                changes.new.push(new[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    changes.deleted.extend_from_slice(&old[i..]);
    changes.new.extend_from_slice(&new[j..]);
    let largest_first = |s: &HeapSnapshot, list: &mut Vec<NodeOrdinal>| {
        list.sort_by(|&x, &y| {
            s.nodes
                .self_size(y)
                .cmp(&s.nodes.self_size(x))
                .then(s.nodes.id(x).cmp(&s.nodes.id(y)))
        })
    };
    largest_first(target, &mut changes.new);
    largest_first(base, &mut changes.deleted);
    Some(changes)
}
