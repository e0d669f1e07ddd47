//! The objects behind each Comparison row: as many new and deleted objects as the row counts,
//! their self sizes adding up to its allocated and freed sizes (the row's numbers are DevTools'
//! own, held by the golden tests), every new id absent from the base's class and every deleted id
//! absent from the target's.

use std::collections::HashSet;

use jsprof_heap::{class_changes, compare, HeapSnapshot, NodeOrdinal};

use crate::fixture::load;

#[test]
fn each_rows_objects_are_its_counts_and_sizes() {
    let (target, ta) = load("leak-2-target.heapsnapshot");
    let (mut base, mut ba) = load("leak-1-baseline.heapsnapshot");
    let rows = compare(&mut base, &mut ba, &target, &ta).classes;
    assert!(rows.len() > 10, "{} changed classes", rows.len());
    let ids = |s: &HeapSnapshot, list: &[NodeOrdinal]| -> HashSet<u32> {
        list.iter().map(|&n| s.nodes.id(n)).collect()
    };
    // The base stays re-classified by `compare`; `class_changes` does it again, to the same classes.
    for row in &rows {
        let c = class_changes(&mut base, &mut ba, &target, &ta, &row.key).expect("the row's class");
        assert_eq!(c.name, row.name);
        assert_eq!(c.new.len() as u64, row.new_count, "{}: new", row.key);
        assert_eq!(
            c.deleted.len() as u64,
            row.deleted_count,
            "{}: deleted",
            row.key
        );
        let size = |s: &HeapSnapshot, list: &[NodeOrdinal]| -> u64 {
            list.iter().map(|&n| s.nodes.self_size(n) as u64).sum()
        };
        assert_eq!(
            size(&target, &c.new),
            row.alloc_size,
            "{}: allocated",
            row.key
        );
        assert_eq!(
            size(&base, &c.deleted),
            row.freed_size,
            "{}: freed",
            row.key
        );
        assert!(ids(&target, &c.new).is_disjoint(&ids(&base, &c.deleted)));
        // Largest first.
        assert!(c
            .new
            .windows(2)
            .all(|w| target.nodes.self_size(w[0]) >= target.nodes.self_size(w[1])));
    }
    assert!(class_changes(&mut base, &mut ba, &target, &ta, ",NoSuchClass").is_none());
}
