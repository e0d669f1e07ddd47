//! Leak groups on the leak fixtures (`node-leak.js`: three `Session`s pushed into `sessionsLeak`
//! between the baseline and the target), checked against the retaining-path search.

use std::path::PathBuf;

use jsprof_heap::{
    analyze, leaks, read_snapshot, retaining_paths, HeapSnapshot, PathOptions, RetainerIndex,
};

fn read(name: &str) -> HeapSnapshot {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/heap")
        .join(format!("{name}.heapsnapshot.gz"));
    let file = std::fs::File::open(path).unwrap();
    read_snapshot(std::io::BufReader::new(flate2::read::GzDecoder::new(file))).expect("loads")
}

#[test]
fn every_group_path_is_as_short_as_the_shortest_retaining_path() {
    let base = read("leak-1-baseline");
    let target = read("leak-2-target");
    let mut last = read("leak-3-final");
    let a = analyze(&mut last);
    let groups = leaks(&base, &target, &last, &a);
    let sessions: Vec<_> = groups.iter().filter(|g| g.class == "Session").collect();
    assert_eq!(sessions.len(), 1, "{groups:?}");
    assert_eq!(sessions[0].count, 3);
    let index = RetainerIndex::new(&last);
    let one = PathOptions {
        max_paths: 1,
        ..PathOptions::default()
    };
    for g in &groups {
        let searched = retaining_paths(&last, &a, &index, g.sample, one);
        let shortest = searched.first().map_or(0, |p| p.edges.len());
        assert_eq!(g.path.len(), shortest, "{g:?}");
    }
    // Swapping BASE and TARGET leaves nothing made between them.
    assert!(leaks(&target, &base, &last, &a).is_empty());
}
