//! Arbitrary bytes into the heap reader (and, when they load, the whole DevTools analysis): errors are
//! fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut snapshot) = jsprof_heap::read_snapshot(data) {
        let analysis = jsprof_heap::analyze(&mut snapshot);
        let _ = jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained);
        for n in 0..snapshot.node_count().min(16) {
            let _ = analysis.node_info(&snapshot, n as u32);
        }
    }
});
