//! Heap snapshots: a streaming reader for V8's `.heapsnapshot`/`.heaptimeline` and the analyses Chrome
//! DevTools' Memory panel runs on them, reproduced number for number (pinned to
//! `chrome-devtools-frontend` 1.0.1705227): dominators, retained sizes, distances, the Summary's class
//! rows and the Statistics.
//!
//! ```no_run
//! let file = std::fs::File::open("app.heapsnapshot")?;
//! let mut snapshot = jsprof_heap::read_snapshot(std::io::BufReader::new(file))?;
//! let analysis = jsprof_heap::analyze(&mut snapshot);
//! for row in jsprof_heap::summary(&snapshot, &analysis, jsprof_heap::SortBy::Retained).iter().take(10) {
//!     println!("{} {} {}", row.name, row.count, row.retained_size);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod advisors;
mod allocation_profile;
mod analysis;
mod bits;
pub mod cache;
mod classes;
mod comparison;
mod comparison_objects;
mod detached_dom;
mod detachedness;
pub mod distances;
mod dominator_tree;
mod dominators;
mod duplicate_strings;
mod edge_names;
mod edges;
mod error;
mod essential;
mod external;
mod flags;
mod js_text;
mod kept_alive;
mod leaks;
mod names;
mod native_contexts;
mod overview;
mod reader;
mod redact;
mod retainers;
mod retaining_paths;
pub mod scripts;
mod shallow;
mod snapshot;
mod snapshot_order;
mod spill;
pub use spill::random_u64;
mod statistics;
pub mod strings;
mod summary;
mod tokenizer;
mod weak_map;

pub use advisors::{advise, Advice, AdviceKind, AdviseOptions};
pub use allocation_profile::{AllocationProfile, BottomUpNode, StackNode};
pub use analysis::{
    analyze, analyze_with, peak_rss, Analysis, AnalyzeOptions, NodeInfo, PhaseClock,
    SPILL_MIN_BYTES,
};
pub use cache::{
    open_analysed, open_overview, open_overview_answering, HeapCache, IndexKept, Opened,
    OpenedOverview,
};
pub use classes::InterfaceDefinition;
pub use comparison::{compare, compare_sides, ClassDiff, CompareSide, Comparison};
pub use comparison_objects::{class_changes, ClassChanges};
pub use detached_dom::{detached_trees, DetachedTree};
pub use dominator_tree::DominatorTree;
pub use duplicate_strings::{duplicate_strings, DuplicateString};
pub use edge_names::{edge_label, edge_name, edge_type_name};
pub use edges::{containment_edges, retainer_edges};
pub use error::{HeapError, Result};
pub use external::{external_owners, ExternalOwner};
pub use kept_alive::{ScriptSources, SnapshotTextOnly};
pub use leaks::{leaks, leaks_since, new_object_groups, LeakGroup, LeakStep, Place};
pub use names::display_name;
pub use native_contexts::{
    is_native_context, ContextFilter, NativeContextSize, NativeContextSizes, NativeContexts,
    NO_CONTEXT, SHARED_CONTEXT,
};
pub use overview::Overview;
pub use reader::{read_snapshot, read_snapshot_with, ReadOptions};
pub use redact::{redact, redact_with, RedactError, RedactOptions, RedactStats};
pub use retaining_paths::{
    edge_source, from_root, retaining_paths, PathOptions, RetainerIndex, RetainingPath,
};
pub use snapshot::{
    EdgeOrdinal, Edges, HeapSnapshot, Location, Meta, NodeOrdinal, Nodes, Sample,
    TraceFunctionInfo, TraceNode, Types, Warning,
};
pub use snapshot_order::{max_node_id, process_order, process_order_of, same_process, Identities};
pub use statistics::Statistics;
pub use strings::Strings;
pub use summary::{
    class_members, sort_rows, summary, summary_between, summary_in_context, ClassRow, SortBy,
};
pub use weak_map::{parse_weak_map_edge_name, WeakMapEdgeName};

/// Test-only access to internals (the dominator reference test drives the algorithm directly).
#[doc(hidden)]
pub mod internals {
    pub use crate::bits::BitVec;
    pub use crate::dominators::Dominators;

    /// How many analyses of this process have set columns aside on disk so far.
    pub fn spills() -> usize {
        crate::spill::SPILLS.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Dominators over a plain graph: `edges[n]` lists `(target, essential)` in order.
    pub fn dominators_of(edges: &[Vec<(u32, bool)>], root: u32, self_sizes: &[u32]) -> Dominators {
        let mut s = crate::HeapSnapshot::default();
        let mut first_edge = vec![0u32];
        let mut essential_list = Vec::new();
        for out in edges {
            for &(to, essential) in out {
                s.edges.to_node.push(to);
                s.edges.kind.push(0);
                essential_list.push(essential);
            }
            first_edge.push(s.edges.to_node.len() as u32);
        }
        s.nodes.first_edge = first_edge;
        s.nodes.kind = vec![0; edges.len()];
        let mut bits = BitVec::new(essential_list.len());
        for (i, &e) in essential_list.iter().enumerate() {
            if e {
                bits.set(i);
            }
        }
        let retainers = crate::retainers::essential_retainers(&s, &bits);
        let graph = crate::dominators::Graph::of(&s, &bits, &retainers);
        crate::dominators::compute(&graph, crate::NodeOrdinal::new(root), self_sizes)
    }
}

/// Below this many nodes a pass that could split across two threads runs on one: spawning costs
/// more than the work, and a fuzzer's leak check can catch a thread still exiting (its
/// thread-local destructors' list is freed after `join` returns).
pub(crate) const PARALLEL_MIN_NODES: usize = 1 << 16;
