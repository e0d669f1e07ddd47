//! DevTools' initialisation pipeline, in its order: DOM state and `Detached` names, page-owned flags,
//! essential edges, the shallow-size transfer, dominators and retained sizes, distances, class names
//! and interface definitions, and statistics.

use crate::classes::{apply_interfaces, class_names, infer_interfaces, InterfaceDefinition};
use crate::detachedness::propagate_dom_state;
use crate::dominators::{self, Graph};
use crate::essential::{essential_edges, WeakMapNames};
use crate::flags::mark_page_owned;
use crate::retainers::{essential_retainers, retainer_counts};
use crate::scripts::Script;
use crate::shallow::transfer_shallow_sizes;
use crate::snapshot::{HeapSnapshot, NodeOrdinal};
use crate::spill::{Results, SpilledEdges};
use crate::statistics::{self, Statistics};
use crate::{distances, names};

/// Per-node results of [`analyze`], indexed by node ordinal.
#[derive(Default)]
pub struct Analysis {
    /// Immediate dominator of each node (the root's is itself).
    pub idom: Vec<NodeOrdinal>,
    pub retained: Vec<u64>,
    /// Distance from the roots; -5 when unreachable, ≥ 100 000 000 when only system roots reach it.
    pub distances: Vec<i32>,
    /// Class name (a string index) of each node.
    pub classes: Vec<u32>,
    /// Number of edges of any kind pointing at each node.
    pub retainer_counts: Vec<u32>,
    /// The root's retained size plus `extra_native_bytes`.
    pub total_size: u64,
    pub statistics: Statistics,
    pub interfaces: Vec<InterfaceDefinition>,
    /// The scripts located closures come from ([`crate::scripts`]), read before any column is
    /// set aside: the Summary's source maps need them without the edges.
    pub scripts: Vec<Script>,
}

/// How [`analyze_with`] may use the disk.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Set the columns the dominators do not read aside in a scratch file in this directory
    /// while they run (`crate::spill`), when the graph's columns take at least
    /// `spill_min_bytes`: a lower peak for a few sequential writes and reads. `None` keeps
    /// everything in memory, and lets the dominators and the distances run side by side.
    pub spill_dir: Option<std::path::PathBuf>,
    /// [`SPILL_MIN_BYTES`] unless a test wants small graphs spilled.
    pub spill_min_bytes: u64,
}

impl Default for AnalyzeOptions {
    fn default() -> AnalyzeOptions {
        AnalyzeOptions {
            spill_dir: None,
            spill_min_bytes: SPILL_MIN_BYTES,
        }
    }
}

/// Below this much memory in node and edge columns (about a 250 MB snapshot), spilling saves too
/// little to be worth a file. On a recorded 454 MB snapshot (242 MB of columns), on a quiet box,
/// spilling took the peak from 555 MB to 412 MB (1.22× to 0.91× the file) for 0.2–0.25 s more
/// (2.20–2.32 s against 1.96–2.26 s): the dominators no longer run beside the distances
/// (docs/heap.md).
pub const SPILL_MIN_BYTES: u64 = 64 << 20;

/// Runs DevTools' analysis. It changes the snapshot as DevTools does: detached nodes are renamed,
/// array and hidden sizes move into their single owners (`nodes.self_size`), and class names are
/// appended to the string table. Everything stays in memory.
pub fn analyze(s: &mut HeapSnapshot) -> Analysis {
    analyze_with(s, &AnalyzeOptions::default())
        .expect("an analysis that spills nothing does no I/O")
}

/// [`analyze`], with the options. Fails only when spilled columns cannot be read back.
pub fn analyze_with(s: &mut HeapSnapshot, options: &AnalyzeOptions) -> std::io::Result<Analysis> {
    let staged = analyze_staged::<()>(s, options, None)?;
    if let Some(edges) = staged.edges_aside {
        edges.restore(s)?;
    }
    Ok(staged.analysis)
}

/// What [`analyze_staged`] gives.
pub(crate) struct Staged<T> {
    pub analysis: Analysis,
    /// What `summarize` made of the analysed snapshot (the cache's `Overview`), when asked for.
    pub overview: Option<T>,
    /// The edge names and types, when they are still set aside on disk: the snapshot's edge
    /// columns are empty until [`SpilledEdges::restore`] brings them back.
    pub edges_aside: Option<SpilledEdges>,
}

/// The analysis, and with `summarize` (the cache's `Overview::of`) the Summary computed before the
/// edge columns come back from disk (the Summary reads no edge): what the cache needs to answer
/// `heap summary` and write the index without ever holding the whole graph and the Summary's
/// arrays at once. The caller names the summary, so the analysis does not depend on the cache.
pub(crate) fn analyze_staged<T>(
    s: &mut HeapSnapshot,
    options: &AnalyzeOptions,
    summarize: Option<fn(&HeapSnapshot, &Analysis) -> T>,
) -> std::io::Result<Staged<T>> {
    let steps = Steps(PhaseClock::from_env());
    let types = s.types();
    let scripts = crate::scripts::scripts(s, &types);
    propagate_dom_state(s);
    // The shallow-size transfer only changes self sizes, which the page-owned flags and the
    // essential edges do not read: run it beside them.
    let mut weak_map_names = WeakMapNames::new(s.strings.len());
    let mut self_size = std::mem::take(&mut s.nodes.self_size);
    let snapshot: &HeapSnapshot = s;
    let essential = std::thread::scope(|scope| {
        let transfer = scope.spawn(|| transfer_shallow_sizes(snapshot, &types, &mut self_size));
        let page_owned = mark_page_owned(snapshot, &types);
        let essential = essential_edges(snapshot, &types, &page_owned, &mut weak_map_names);
        transfer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        essential
    });
    s.nodes.self_size = self_size;
    steps.report("DOM state, page-owned flags, essential edges, size transfer");
    let column_bytes = s.nodes.len() as u64 * 18 + s.edges.len() as u64 * 9;
    let spill_dir = options
        .spill_dir
        .as_deref()
        .filter(|_| column_bytes >= options.spill_min_bytes);
    if let Some(dir) = spill_dir {
        // Everything that reads the edge names and types or the node columns first (the
        // distances beside the interfaces, retainer counts and statistics); then those columns
        // and the results go to disk, and the reverse graph and the dominators run without them.
        let snapshot: &HeapSnapshot = s;
        let (distances, (interfaces, retainer_counts, statistics)) = std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let interfaces = infer_interfaces(snapshot, &types);
                let counts = retainer_counts(snapshot);
                // The total comes with the dominators.
                let statistics = statistics::compute(snapshot, &types, &counts, 0);
                (interfaces, counts, statistics)
            });
            let distances = distances::compute(snapshot, &types, &mut weak_map_names);
            let other = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (distances, other)
        });
        drop(weak_map_names);
        let mut classes = class_names(s, &types);
        apply_interfaces(s, &types, &interfaces, &mut classes);
        steps.report("distances beside interfaces, retainer counts, statistics; class names");
        let mut results = Results {
            distances,
            retainer_counts,
            classes,
        };
        let spilled = crate::spill::spill(s, &mut results, Some(dir)).ok();
        if spilled.is_some() {
            steps.report("columns and results set aside on disk");
        }
        let dominators = {
            let retainers = essential_retainers(s, &essential);
            steps.report("essential retainers");
            let graph = Graph::of(s, &essential, &retainers);
            dominators::compute(&graph, s.root, &s.nodes.self_size)
        };
        drop(essential);
        steps.report("dominators and retained sizes");
        let edges_aside = match spilled {
            Some(spilled) => {
                let edges = spilled.restore_nodes(s, &mut results)?;
                steps.report("node columns and results read back");
                Some(edges)
            }
            None => None,
        };
        let total_size = dominators.retained[s.root.index()] + s.extra_native_bytes.unwrap_or(0);
        let analysis = Analysis {
            idom: dominators.idom,
            retained: dominators.retained,
            distances: results.distances,
            classes: results.classes,
            retainer_counts: results.retainer_counts,
            total_size,
            statistics: statistics.with_total(total_size),
            interfaces,
            scripts,
        };
        let overview = summarize.map(|summarize| summarize(s, &analysis));
        if overview.is_some() {
            steps.report("Summary (the edge columns still aside)");
        }
        return Ok(Staged {
            analysis,
            overview,
            edges_aside,
        });
    }
    // The dominator tree and the distances (with the retainer counts) read the graph only and
    // depend on nothing of each other: compute them side by side.
    let snapshot: &HeapSnapshot = s;
    let (dominators, (distances, retainer_counts, interfaces)) = std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            let distances = distances::compute(snapshot, &types, &mut weak_map_names);
            let interfaces = infer_interfaces(snapshot, &types);
            let counts = retainer_counts(snapshot);
            steps.report("distances, interfaces, retainer counts (beside the dominators)");
            (distances, counts, interfaces)
        });
        let dominators = {
            let retainers = essential_retainers(snapshot, &essential);
            steps.report("essential retainers");
            let graph = Graph::of(snapshot, &essential, &retainers);
            let dominators = dominators::compute(&graph, snapshot.root, &snapshot.nodes.self_size);
            steps.report("dominators and retained sizes");
            dominators
        };
        let other = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (dominators, other)
    });
    drop(essential);
    drop(weak_map_names);
    let mut classes = class_names(s, &types);
    apply_interfaces(s, &types, &interfaces, &mut classes);
    let total_size = dominators.retained[s.root.index()] + s.extra_native_bytes.unwrap_or(0);
    let statistics = statistics::compute(s, &types, &retainer_counts, total_size);
    steps.report("class names, interfaces applied, statistics");
    let analysis = Analysis {
        idom: dominators.idom,
        retained: dominators.retained,
        distances,
        classes,
        retainer_counts,
        total_size,
        statistics,
        interfaces,
        scripts,
    };
    let overview = summarize.map(|summarize| summarize(s, &analysis));
    Ok(Staged {
        analysis,
        overview,
        edges_aside: None,
    })
}

/// `JSPROF_HEAP_PHASES=1`: the seconds since a start and the process's peak RSS so far (`VmHWM`),
/// at the end of each step of the analysis and of each phase of the CLI's commands around it, for
/// docs/heap.md's account of where the time and the bytes go.
pub struct PhaseClock(Option<std::time::Instant>);

impl PhaseClock {
    /// Started now when `JSPROF_HEAP_PHASES=1`; otherwise a clock that never reads.
    pub fn from_env() -> PhaseClock {
        PhaseClock(
            std::env::var_os("JSPROF_HEAP_PHASES")
                .filter(|v| v == "1")
                .map(|_| std::time::Instant::now()),
        )
    }

    /// The seconds since the start and the peak RSS ([`peak_rss`]), when the clock runs.
    pub fn read(&self) -> Option<(f64, String)> {
        self.0
            .map(|start| (start.elapsed().as_secs_f64(), peak_rss()))
    }
}

/// The end of each step of the analysis on stderr ([`PhaseClock`]).
struct Steps(PhaseClock);

impl Steps {
    fn report(&self, step: &str) {
        if let Some((seconds, rss)) = self.0.read() {
            eprintln!("  analysis step {step}: +{seconds:.2} s, peak RSS {rss}");
        }
    }
}

/// The process's peak resident set so far (`VmHWM`, in MiB), as `JSPROF_HEAP_PHASES=1` prints it;
/// `?` where `/proc` does not say.
pub fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or_else(|| "?".to_string(), |kb| format!("{} MB", kb / 1024))
}

/// One node's figures, as `jsprof heap node` prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    pub ordinal: NodeOrdinal,
    pub id: u32,
    pub name: String,
    pub node_type: String,
    pub self_size: u64,
    pub retained_size: u64,
    pub distance: i32,
    pub dominator_id: u32,
    pub edge_count: u64,
    pub retainer_count: u64,
}

impl Analysis {
    /// The node's class name, as the Summary groups it.
    pub fn class_name(&self, s: &HeapSnapshot, n: NodeOrdinal) -> String {
        crate::strings::wtf8_to_string(s.strings.bytes(self.classes[n.index()]))
    }

    pub fn node_info(&self, s: &HeapSnapshot, n: NodeOrdinal) -> NodeInfo {
        let i = n.index();
        NodeInfo {
            ordinal: n,
            id: s.nodes.id(n),
            name: names::display_name(s, n),
            node_type: s.node_type_name(n).to_owned(),
            self_size: s.nodes.self_size(n) as u64,
            retained_size: self.retained[i],
            distance: self.distances[i],
            dominator_id: s.nodes.id(self.idom[i]),
            edge_count: s.nodes.edges(n).len() as u64,
            retainer_count: self.retainer_counts[i] as u64,
        }
    }
}
