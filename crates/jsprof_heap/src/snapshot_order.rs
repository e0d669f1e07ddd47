//! The order in which one process took its snapshots, and whether snapshots are of one process.
//!
//! V8 numbers a heap object the first time a snapshot (or allocation tracking) sees it, from one
//! counter that only grows over the process's life, so a later snapshot holds higher ids than an
//! earlier one: the largest such id orders snapshots of one process. Those ids are odd; the even
//! ones are synthetic nodes and the embedder's native nodes, which Node numbers from their
//! addresses (`Node / std::basic_string` at 2 184 535 616), so they order nothing. The files carry
//! no wall-clock time of their own (a `.heaptimeline`'s sample times count from the start of its
//! own recording).
//!
//! Across processes the counters restart, so the same id names unrelated objects: two snapshots are
//! of one process when most of the ids they share name an object of the same type and name in both.

use crate::comparison::shared_ids;
use crate::snapshot::HeapSnapshot;

/// The largest heap-object (odd) id of the snapshot; 0 when it has none.
pub fn max_node_id(s: &HeapSnapshot) -> u32 {
    s.nodes
        .id
        .iter()
        .copied()
        .filter(|id| id % 2 == 1)
        .max()
        .unwrap_or(0)
}

/// Indexes of `snapshots` in the order the process took them: by largest id, ties kept as given.
pub fn process_order(snapshots: &[&HeapSnapshot]) -> Vec<usize> {
    let max: Vec<u32> = snapshots.iter().map(|s| max_node_id(s)).collect();
    let mut order: Vec<usize> = (0..snapshots.len()).collect();
    order.sort_by_key(|&i| max[i]);
    order
}

/// Whether two snapshots are of one process: they share ids, and at least half of the shared ids
/// name an object of the same type and name in both.
pub fn same_process(a: &HeapSnapshot, b: &HeapSnapshot) -> bool {
    let (shared, same) = shared_ids(a, b);
    shared > 0 && same * 2 >= shared
}
