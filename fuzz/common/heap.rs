//! What the `heap_snapshot` and `heap_cache` targets do with their bytes, shared with the replay
//! of their reproducers (`crates/jsprof_heap/tests/it/fuzz_regressions.rs`), so that the test
//! runs the very calls the fuzzer ran. Errors and refusals are fine; panics and hangs are not.

/// Arbitrary bytes into the heap reader and, when they load, the whole DevTools analysis.
pub fn snapshot(data: &[u8]) {
    if let Ok(mut snapshot) = jsprof_heap::read_snapshot(data) {
        let analysis = jsprof_heap::analyze(&mut snapshot);
        let _ = jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained);
        for n in snapshot.nodes.ordinals().take(16) {
            let _ = analysis.node_info(&snapshot, n);
        }
    }
}

/// The index of the seed snapshot `text` (`fuzz/seeds/heap_snapshot/tiny.heapsnapshot`): the
/// good file [`cache`] patches.
pub fn seed_index(text: &[u8]) -> Vec<u8> {
    let mut snapshot = jsprof_heap::read_snapshot(text).expect("the seed snapshot loads");
    let analysis = jsprof_heap::analyze(&mut snapshot);
    jsprof_heap::cache::index_bytes(&snapshot, &analysis)
}

/// Forged heap indexes into the index reader and, when one is taken, the analyses that trust its
/// tables. The first byte picks the input's shape: odd, the rest are patches (a 4-byte position
/// and a byte each) on `seed` (a good index, [`seed_index`]); even, the rest is an index of its
/// own. Each shape is read as it is and with its checksums recomputed.
pub fn cache(data: &[u8], seed: &[u8]) {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let bytes = if shape % 2 == 1 {
        let mut bytes = seed.to_vec();
        for patch in rest.chunks_exact(5) {
            let at = u32::from_le_bytes(patch[..4].try_into().unwrap()) as usize;
            let at = at % bytes.len();
            bytes[at] = patch[4];
        }
        // A trailing partial patch cuts the file: its last byte says where, in 255ths.
        if let (true, Some(&cut)) = (rest.len() % 5 != 0, rest.last()) {
            bytes.truncate(cut as usize * bytes.len() / 255);
        }
        bytes
    } else {
        rest.to_vec()
    };
    for reseal in [false, true] {
        if let Some((snapshot, analysis)) = jsprof_heap::cache::read_index_bytes(&bytes, reseal) {
            let _ = jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained);
            for n in snapshot.nodes.ordinals().take(16) {
                let _ = analysis.node_info(&snapshot, n);
            }
            let tree = jsprof_heap::DominatorTree::new(&snapshot, &analysis);
            let _ = jsprof_heap::detached_trees(&snapshot, &analysis, &tree);
        }
    }
}
