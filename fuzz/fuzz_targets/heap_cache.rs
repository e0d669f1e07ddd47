//! Forged heap indexes into the index reader (and, when one is taken, the analyses that trust its
//! tables): refusals are fine, panics are not. The first byte picks the input's shape: odd, the
//! rest are patches (a 4-byte position and a byte each) on a good index of a small snapshot, so
//! the fuzzer starts deep inside a valid file; even, the rest is an index of its own. Each shape
//! is read as it is and with its checksums recomputed, which lets forged content past them to the
//! decoders and the table checks.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let text = include_bytes!("../seeds/heap_snapshot/tiny.heapsnapshot");
        let mut snapshot = jsprof_heap::read_snapshot(&text[..]).expect("the seed snapshot loads");
        let analysis = jsprof_heap::analyze(&mut snapshot);
        jsprof_heap::cache::index_bytes(&snapshot, &analysis)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let bytes = if shape % 2 == 1 {
        let mut bytes = seed().to_vec();
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
            for n in 0..snapshot.node_count().min(16) {
                let _ = analysis.node_info(&snapshot, n as u32);
            }
            let tree = jsprof_heap::DominatorTree::new(&snapshot, &analysis);
            let _ = jsprof_heap::detached_trees(&snapshot, &analysis, &tree);
        }
    }
});
