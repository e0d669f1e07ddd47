//! Inputs the `heap_snapshot` and `heap_cache` fuzz targets once hung or crashed on
//! (`fuzz/regressions/<target>/`), replayed through the same calls as the target, each under a
//! deadline so a hang fails the test instead of stalling the suite.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// The targets' own calls (`fuzz/common/heap.rs`).
#[path = "../../../../fuzz/common/heap.rs"]
mod target;

/// What `fuzz/fuzz_targets/heap_cache.rs` does with its bytes: patches on the index of the same
/// seed snapshot.
fn run_cache_target(data: &[u8]) {
    let text = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/seeds/heap_snapshot/tiny.heapsnapshot"),
    )
    .expect("the seed snapshot");
    target::cache(data, &target::seed_index(&text));
}

#[test]
fn heap_snapshot_regressions_finish() {
    replay("heap_snapshot", target::snapshot);
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
