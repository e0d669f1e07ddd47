//! Inputs the `heap_snapshot` and `heap_cache` fuzz targets once hung or crashed on
//! (`fuzz/regressions/<target>/`), replayed through the same calls as the target, each under a
//! deadline so a hang fails the test instead of stalling the suite.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// What `fuzz/fuzz_targets/heap_snapshot.rs` does with its bytes.
fn run_target(data: &[u8]) {
    if let Ok(mut snapshot) = jsprof_heap::read_snapshot(data) {
        let analysis = jsprof_heap::analyze(&mut snapshot);
        let _ = jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained);
        for n in 0..snapshot.node_count().min(16) {
            let _ = analysis.node_info(&snapshot, n as u32);
        }
    }
}

/// What `fuzz/fuzz_targets/heap_cache.rs` does with its bytes.
fn run_cache_target(data: &[u8]) {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let bytes = if shape % 2 == 1 {
        let text = std::fs::read(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../fuzz/seeds/heap_snapshot/tiny.heapsnapshot"),
        )
        .expect("the seed snapshot");
        let mut snapshot = jsprof_heap::read_snapshot(&text[..]).expect("the seed snapshot loads");
        let analysis = jsprof_heap::analyze(&mut snapshot);
        let mut bytes = jsprof_heap::cache::index_bytes(&snapshot, &analysis);
        for patch in rest.chunks_exact(5) {
            let at = u32::from_le_bytes(patch[..4].try_into().unwrap()) as usize % bytes.len();
            bytes[at] = patch[4];
        }
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
}

#[test]
fn heap_snapshot_regressions_finish() {
    replay("heap_snapshot", run_target);
}

#[test]
fn heap_cache_regressions_finish() {
    replay("heap_cache", run_cache_target);
}

fn replay(target: &str, run: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reproducers in {}", dir.display());
    for file in files {
        let data = std::fs::read(&file).expect("reproducer readable");
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            run(&data);
            let _ = done.send(());
        });
        // Seconds in a debug build; the hang it guards against never returns.
        finished
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{} did not finish in 20 s", file.display()));
    }
}
