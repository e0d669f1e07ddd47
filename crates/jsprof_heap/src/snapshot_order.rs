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

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::snapshot::{HeapSnapshot, NodeOrdinal};

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
    Identities::of(a).same_process(&Identities::of(b))
}

/// What comparisons across snapshots need of a snapshot's objects, without its graph: its ids,
/// sorted, and for each a digest of the object's type and name. About 12 bytes a node, against
/// the tens of bytes of the graph and analysis, so that `heap leaks` and `heap diff` hold the
/// earlier snapshots as these and only one full graph at a time.
#[derive(Clone, Debug, Default)]
pub struct Identities {
    /// Distinct ids, ascending.
    ids: Vec<u32>,
    /// For each id (of its first node when several share it): a hash of its type and name.
    objects: Vec<u64>,
    max_node_id: u32,
}

/// A digest of a node's type and name: the same in every snapshot of one process.
fn object_digest(s: &HeapSnapshot, n: NodeOrdinal) -> u64 {
    let mut h = DefaultHasher::new();
    s.node_type_name(n).hash(&mut h);
    s.strings.bytes(s.nodes.name(n)).hash(&mut h);
    h.finish()
}

/// How many shared ids [`Identities::same_process_as`] compares at most.
const SAMPLE: usize = 4096;

impl Identities {
    pub fn of(s: &HeapSnapshot) -> Identities {
        let mut by_id: Vec<(u32, NodeOrdinal)> = s.nodes.ids().map(|(n, id)| (id, n)).collect();
        by_id.sort_unstable();
        by_id.dedup_by_key(|x| x.0);
        let objects = by_id.iter().map(|&(_, n)| object_digest(s, n)).collect();
        Identities {
            ids: by_id.into_iter().map(|(id, _)| id).collect(),
            objects,
            max_node_id: max_node_id(s),
        }
    }

    /// Distinct ids, ascending.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    pub fn contains(&self, id: u32) -> bool {
        self.ids.binary_search(&id).is_ok()
    }

    /// See [`max_node_id`].
    pub fn max_node_id(&self) -> u32 {
        self.max_node_id
    }

    /// How many ids occur in both, and how many of those name an object of the same type and
    /// name in both (in snapshots of one process, nearly all do; across processes, ids are reused
    /// for unrelated objects).
    pub fn shared(&self, other: &Identities) -> (u64, u64) {
        let (a, b) = (&self.ids, &other.ids);
        let (mut i, mut j, mut shared, mut same) = (0, 0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    if self.objects[i] == other.objects[j] {
                        same += 1;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        (shared, same)
    }

    /// [`Identities::same_process`] against a snapshot itself, without making its
    /// [`Identities`] (a sort of all its ids): its nodes are compared, evenly spaced, until
    /// [`SAMPLE`] shared ids are seen, each a binary search here. For a series, which compares
    /// every snapshot with the first.
    pub fn same_process_as(&self, s: &HeapSnapshot) -> bool {
        let n = s.nodes.len();
        let step = (n / (4 * SAMPLE)).max(1);
        let (mut shared, mut same) = (0usize, 0usize);
        for i in (0..n).step_by(step) {
            let node = NodeOrdinal::from_index(i);
            let Ok(k) = self.ids.binary_search(&s.nodes.id(node)) else {
                continue;
            };
            shared += 1;
            if self.objects[k] == object_digest(s, node) {
                same += 1;
            }
            if shared == SAMPLE {
                break;
            }
        }
        shared > 0 && same * 2 >= shared
    }

    /// See [`same_process`].
    pub fn same_process(&self, other: &Identities) -> bool {
        let (shared, same) = self.shared(other);
        shared > 0 && same * 2 >= shared
    }
}

/// [`process_order`] of snapshots known by their [`Identities`].
pub fn process_order_of(snapshots: &[&Identities]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..snapshots.len()).collect();
    order.sort_by_key(|&i| snapshots[i].max_node_id);
    order
}
