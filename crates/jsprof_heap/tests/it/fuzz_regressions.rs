//! Inputs the `heap_snapshot` fuzz target once hung or crashed on (`fuzz/regressions/heap_snapshot/`),
//! replayed through the same calls as the target, each under a deadline so a hang fails the test
//! instead of stalling the suite.

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

#[test]
fn heap_snapshot_regressions_finish() {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/heap_snapshot");
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
            run_target(&data);
            let _ = done.send(());
        });
        // Seconds in a debug build; the hang it guards against never returns.
        finished
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{} did not finish in 20 s", file.display()));
    }
}
