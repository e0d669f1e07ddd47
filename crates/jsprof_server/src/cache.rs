//! Loaded artifacts kept in memory: parsing a 50 MB profile takes a good part of a second, so
//! each artifact is parsed once (concurrent requests wait for the same load) and the most
//! recently used few are kept. A CPU artifact is read through the one load pipeline
//! (`jsprof_document::load`: timing, source maps, filters); a filtered view (`focus=…`,
//! `hide_idle=1`, …) is an entry of its own, and ranges and threads are views of an entry.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use jsprof_document::heap_class::ObjectOrder;
use jsprof_document::load::{CpuInput, Pipeline};
use jsprof_heap::{
    Analysis, DominatorTree, HeapSnapshot, NativeContexts, NodeOrdinal, RetainerIndex,
};
use tokio::sync::OnceCell;

use crate::error::{ApiError, ApiResult};

/// How an artifact is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// A CPU profile, self-profiling trace, Chrome trace or sampling heap profile.
    Cpu,
    Snapshot,
}

/// A loaded artifact.
pub enum Loaded {
    Cpu(Box<CpuInput>),
    Snapshot {
        snapshot: Box<HeapSnapshot>,
        analysis: Box<Analysis>,
        derived: Box<Derived>,
    },
}

impl Loaded {
    /// A heap snapshot's parts; an internal error for any other artifact (the handlers check
    /// the artifact's kind before loading it).
    pub fn snapshot(&self) -> ApiResult<(&HeapSnapshot, &Analysis, &Derived)> {
        match self {
            Loaded::Snapshot {
                snapshot,
                analysis,
                derived,
            } => Ok((snapshot, analysis, derived)),
            _ => Err(ApiError::internal("not a snapshot")),
        }
    }

    /// A CPU input; an internal error for a snapshot (the handlers check the kind first).
    pub fn cpu(&self) -> ApiResult<&CpuInput> {
        match self {
            Loaded::Cpu(input) => Ok(input),
            _ => Err(ApiError::internal("not a CPU input")),
        }
    }
}

/// What the heap pages need beyond the analysis, kept with the snapshot. Each is a pass over
/// every node or edge — seconds on a 5 GB snapshot —, so each is built once: on a background
/// thread as soon as the snapshot is loaded ([`prepare`]), in the order a user reaches them, or
/// by the first request that needs it, whichever comes first. A request that needs one while it
/// is being built waits for that build (a `OnceLock` per structure, and one per sorted class),
/// never starts a second.
///
/// Memory, beside the analysed graph: the dominator tree 8 bytes a node, the retainer index 4
/// bytes a node and 4 an edge, the classes' members 4 bytes a node (every node with a self size),
/// and each sorted class 4 bytes a member per order asked for (transiently 16 while it sorts),
/// the native contexts' owners 4 bytes a node (only once a context is asked for).
#[derive(Default)]
pub struct Derived {
    /// The Summary's rows, totals and statistics (what the heap index keeps as its overview),
    /// made once: each Summary request of a big snapshot would otherwise group every node again.
    overview: OnceLock<jsprof_heap::Overview>,
    retainers: OnceLock<RetainerIndex>,
    dominators: OnceLock<DominatorTree>,
    /// Each node's JavaScript context: built by the first request that filters by context or
    /// lists the contexts, never by [`prepare`] (most snapshots are never asked).
    native_contexts: OnceLock<NativeContexts>,
    /// Every class's objects by Summary key, in node order.
    classes: OnceLock<HashMap<String, Vec<NodeOrdinal>>>,
    /// The classes sorted so far (or being sorted), in each order asked for.
    sorted: Mutex<HashMap<(String, ObjectOrder), SortedSlot>>,
    /// Called at the start of every build (tests pause a build with it).
    #[cfg(test)]
    on_build: Option<Box<dyn Fn(Build) + Send + Sync>>,
}

/// What [`Derived`] builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    Overview,
    Dominators,
    Retainers,
    Classes,
    /// One class in one order.
    Sorted,
}

impl Derived {
    /// Notes the start of a build (the tests' hook).
    fn building(&self, _what: Build) {
        #[cfg(test)]
        if let Some(hook) = &self.on_build {
            hook(_what);
        }
    }

    pub fn overview(&self, s: &HeapSnapshot, a: &Analysis) -> &jsprof_heap::Overview {
        self.overview.get_or_init(|| {
            self.building(Build::Overview);
            jsprof_heap::Overview::of(s, a)
        })
    }

    pub fn retainers(&self, s: &HeapSnapshot) -> &RetainerIndex {
        self.retainers.get_or_init(|| {
            self.building(Build::Retainers);
            RetainerIndex::new(s)
        })
    }

    pub fn native_contexts(&self, s: &HeapSnapshot) -> &NativeContexts {
        self.native_contexts.get_or_init(|| NativeContexts::of(s))
    }

    pub fn dominators(&self, s: &HeapSnapshot, a: &Analysis) -> &DominatorTree {
        self.dominators.get_or_init(|| {
            self.building(Build::Dominators);
            DominatorTree::new(s, a)
        })
    }

    fn classes(&self, s: &HeapSnapshot, a: &Analysis) -> &HashMap<String, Vec<NodeOrdinal>> {
        self.classes.get_or_init(|| {
            self.building(Build::Classes);
            jsprof_document::heap_pages::classes_by_key(s, a)
        })
    }

    /// The objects of the Summary class `key` in `order` (largest first, as `jsprof heap class`
    /// lists them); `None` when no class has that key. Each order is sorted once: a class of
    /// millions scrolled in the UI asks for many pages of it.
    pub fn class(
        &self,
        s: &HeapSnapshot,
        a: &Analysis,
        key: &str,
        order: ObjectOrder,
    ) -> Option<SortedClass> {
        let members = self.classes(s, a).get(key)?;
        // Only keys of real classes get a slot, so requests for made-up keys keep nothing.
        let slot = self
            .sorted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((key.to_string(), order))
            .or_default()
            .clone();
        let sorted = slot.get_or_init(|| {
            self.building(Build::Sorted);
            let mut members = members.clone();
            jsprof_document::heap_class::sort_objects(s, a, &mut members, order);
            Arc::new(members)
        });
        Some(sorted.clone())
    }
}

/// Classes with fewer members than this are sorted when first expanded (in well under 200 ms);
/// larger ones in their default order in the background.
pub const PREPARE_MIN_MEMBERS: u64 = 1 << 16;

/// How many snapshots the service has loaded: a background build ([`prepare`]) goes on only while
/// its snapshot is the latest loaded.
static LATEST_LOAD: AtomicU64 = AtomicU64::new(0);

/// Whether loading a snapshot starts [`prepare`], and for which classes:
/// `JSPROF_HEAP_PREPARE=0` leaves every structure to the first request that needs it;
/// `JSPROF_HEAP_PREPARE_MIN_MEMBERS` replaces [`PREPARE_MIN_MEMBERS`] (tests prepare the small
/// fixtures' classes as the big ones are).
fn prepare_min_members() -> Option<u64> {
    if std::env::var_os("JSPROF_HEAP_PREPARE").is_some_and(|v| v == "0") {
        return None;
    }
    Some(
        std::env::var("JSPROF_HEAP_PREPARE_MIN_MEMBERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(PREPARE_MIN_MEMBERS),
    )
}

/// Builds what the heap views need, in the order a user reaches them: the Summary (which a
/// request may already be building: it is waited for, not built twice), the dominator tree
/// (Dominators), the retainer index (an object's retainers), the classes' members, and the
/// default order of every class of at least `min_members` objects ([`PREPARE_MIN_MEMBERS`]), in
/// the Summary's order. Stops between steps once the snapshot has left the cache and no request holds it.
/// With `JSPROF_HEAP_PHASES=1`, each step's end on stderr (seconds, peak RSS).
///
/// `keep_going` is asked before each step: the service stops the build of a snapshot once
/// another has loaded since ([`LATEST_LOAD`]), so the three snapshots of a Leaks view do not each
/// hold ~45 % of their graph in views nobody opened, nor compete for the cores.
pub fn prepare(loaded: &Weak<Loaded>, min_members: u64, keep_going: &dyn Fn() -> bool) {
    let started = std::time::Instant::now();
    let phases = std::env::var_os("JSPROF_HEAP_PHASES").is_some_and(|v| v != "0");
    let done = |what: &str| {
        if phases {
            eprintln!(
                "jsprof serve: heap views: {what} ready at {:.2} s (peak RSS {})",
                started.elapsed().as_secs_f64(),
                jsprof_heap::peak_rss()
            );
        }
    };
    if !keep_going() {
        return;
    }
    let Some(large) = with(loaded, |s, a, d| {
        d.overview(s, a)
            .classes
            .iter()
            .filter(|row| row.count >= min_members)
            .map(|row| row.key.clone())
            .collect::<Vec<String>>()
    }) else {
        return;
    };
    done("Summary");
    if !keep_going() || with(loaded, |s, a, d| d.dominators(s, a).children(s.root).len()).is_none()
    {
        return;
    }
    done("dominator tree");
    if !keep_going() || with(loaded, |s, _, d| d.retainers(s).edges_of(s.root).len()).is_none() {
        return;
    }
    done("retainer index");
    if !keep_going() || with(loaded, |s, a, d| d.classes(s, a).len()).is_none() {
        return;
    }
    done("classes' members");
    for key in &large {
        if !keep_going()
            || with(loaded, |s, a, d| d.class(s, a, key, ObjectOrder::default())).is_none()
        {
            return;
        }
        done(&format!("class {key} by retained size"));
    }
    done("everything");
}

/// `f` over the snapshot, unless it has been dropped.
fn with<T>(
    loaded: &Weak<Loaded>,
    f: impl FnOnce(&HeapSnapshot, &Analysis, &Derived) -> T,
) -> Option<T> {
    let loaded = loaded.upgrade()?;
    let (s, a, d) = loaded.snapshot().ok()?;
    Some(f(s, a, d))
}

/// A class's objects in one order (a `Vec`, not a slice: `Arc<[T]>` from a `Vec` copies it).
pub type SortedClass = Arc<Vec<NodeOrdinal>>;

/// A class in one order, sorted or being sorted.
type SortedSlot = Arc<OnceLock<SortedClass>>;

type Key = (String, u32, View, Pipeline);
type Slot = Arc<OnceCell<Arc<Loaded>>>;

/// The cache. Entries are dropped least recently used first beyond `capacity`.
pub struct Cache {
    capacity: usize,
    entries: Mutex<Vec<(Key, Slot)>>,
}

impl Cache {
    pub fn new(capacity: usize) -> Cache {
        Cache {
            capacity: capacity.max(1),
            entries: Mutex::new(Vec::new()),
        }
    }

    fn slot(&self, key: &Key) -> Slot {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = entries.iter().position(|(k, _)| k == key) {
            let entry = entries.remove(i);
            let slot = entry.1.clone();
            entries.push(entry);
            return slot;
        }
        let slot: Slot = Arc::new(OnceCell::new());
        entries.push((key.clone(), slot.clone()));
        if entries.len() > self.capacity {
            entries.remove(0);
        }
        slot
    }

    /// Forgets every artifact of a session (when it is released).
    pub fn forget_session(&self, session: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|((s, _, _, _), _)| s != session);
    }

    /// The artifact `(session, artifact)` loaded as `view` from `path` (named `name` in
    /// messages) through `pipeline`, loading it on a blocking thread the first time.
    pub async fn get(
        &self,
        session: &str,
        artifact: u32,
        view: View,
        pipeline: &Pipeline,
        path: &Path,
        name: &str,
    ) -> ApiResult<Arc<Loaded>> {
        let key = (session.to_string(), artifact, view, pipeline.clone());
        let slot = self.slot(&key);
        let loaded = slot
            .get_or_try_init(|| {
                let path = path.to_path_buf();
                let name = name.to_string();
                let pipeline = pipeline.clone();
                async move {
                    let what = name.clone();
                    let loaded = crate::work::spawn(move || load(&path, &name, view, &pipeline))
                        .await
                        .map_err(|e| ApiError::internal(format!("loading {what}: {e}")))??;
                    let loaded = Arc::new(loaded);
                    if let (Loaded::Snapshot { .. }, Some(min_members)) =
                        (&*loaded, prepare_min_members())
                    {
                        let weak = Arc::downgrade(&loaded);
                        let this_load = LATEST_LOAD.fetch_add(1, Ordering::SeqCst) + 1;
                        let latest = move || LATEST_LOAD.load(Ordering::SeqCst) == this_load;
                        // Without the thread, each structure is built by its first request.
                        let _ = std::thread::Builder::new()
                            .name("jsprof-heap-views".to_string())
                            .spawn(move || prepare(&weak, min_members, &latest));
                    }
                    Ok::<_, ApiError>(loaded)
                }
            })
            .await?;
        Ok(loaded.clone())
    }
}

/// Loads a file as `view` through `pipeline` (blocking).
pub fn load(path: &Path, name: &str, view: View, pipeline: &Pipeline) -> ApiResult<Loaded> {
    // InvalidData: the input broke a limit of jsprof_document::input (the client's fault).
    let cannot = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::InvalidData => ApiError::bad_request(format!("{name}: {e}")),
        _ => ApiError::internal(format!("{name}: cannot read: {e}")),
    };
    match view {
        View::Cpu => {
            let text = jsprof_document::text::read_file(path).map_err(cannot)?;
            Ok(Loaded::Cpu(Box::new(jsprof_document::load::read_cpu(
                name.to_string(),
                text,
                pipeline,
            )?)))
        }
        View::Snapshot if !pipeline.filters.is_empty() => Err(ApiError::bad_request(format!(
            "{name}: filters apply to CPU profiles and traces, not to a heap snapshot"
        ))),
        View::Snapshot => {
            let opened = open_snapshot(path, name)?;
            let derived = Derived::default();
            // The Summary the index holds, or the analysis just made for it: the first page
            // then waits for nothing.
            if let Some(overview) = opened.overview {
                let _ = derived.overview.set(overview);
            }
            Ok(Loaded::Snapshot {
                snapshot: Box::new(opened.snapshot),
                analysis: Box::new(opened.analysis),
                derived: Box::new(derived),
            })
        }
    }
}

/// Reads and analyses a heap snapshot (blocking), through the heap index cache when the
/// environment enables it (the CLI's, see `jsprof_heap::cache`).
pub fn load_snapshot(path: &Path, name: &str) -> ApiResult<(HeapSnapshot, Analysis)> {
    let opened = open_snapshot(path, name)?;
    Ok((opened.snapshot, opened.analysis))
}

/// [`load_snapshot`], with the Summary when it came with the snapshot.
fn open_snapshot(path: &Path, name: &str) -> ApiResult<jsprof_heap::Opened> {
    use jsprof_document::heap::{open_snapshot_file, OpenError};
    open_snapshot_file(path, name, "jsprof serve").map_err(|e| match e {
        OpenError::Read(message) => ApiError::internal(message),
        OpenError::Snapshot(message) => ApiError::bad_request(message),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize};
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    fn fixture() -> (HeapSnapshot, Analysis) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/heap/leak-3-final.heapsnapshot.gz");
        let reader = jsprof_document::text::open_reader(&path).unwrap();
        let mut s = jsprof_heap::read_snapshot_with(reader, Default::default()).unwrap();
        let a = jsprof_heap::analyze(&mut s);
        (s, a)
    }

    /// The Summary key of the class with the most objects, and how many it has.
    fn largest_class(s: &HeapSnapshot, a: &Analysis) -> (String, u64) {
        let rows = jsprof_heap::summary(s, a, jsprof_heap::SortBy::Count);
        (rows[0].key.clone(), rows[0].count)
    }

    /// What a request that needs `what` answers (the handlers' calls), as plain numbers.
    fn answer(s: &HeapSnapshot, a: &Analysis, d: &Derived, what: Build, key: &str) -> Vec<u32> {
        match what {
            Build::Overview => d
                .overview(s, a)
                .classes
                .iter()
                .map(|r| r.count as u32)
                .collect(),
            Build::Dominators => (d.dominators(s, a).children(s.root).iter())
                .map(|n| n.raw())
                .collect(),
            Build::Retainers => (s.nodes.ordinals())
                .flat_map(|n| d.retainers(s).edges_of(n).iter().map(|e| e.raw()))
                .collect(),
            Build::Classes | Build::Sorted => (d.class(s, a, key, ObjectOrder::default()))
                .unwrap()
                .iter()
                .map(|n| n.raw())
                .collect(),
        }
    }

    /// A request that needs a structure while the background builds it waits for that build and
    /// answers what a fresh build gives; nothing is built twice.
    #[test]
    fn a_request_during_a_background_build_waits_for_it() {
        let (s, a) = fixture();
        let (key, count) = largest_class(&s, &a);
        let fresh = Derived::default();
        for paused in [
            Build::Overview,
            Build::Dominators,
            Build::Retainers,
            Build::Classes,
            Build::Sorted,
        ] {
            let expected = answer(&s, &a, &fresh, paused, &key);
            let builds: Arc<Mutex<Vec<Build>>> = Arc::default();
            let (entered, entered_rx) = mpsc::channel();
            let (release, release_rx) = mpsc::channel::<()>();
            let release_rx = Mutex::new(release_rx);
            let once = AtomicBool::new(false);
            let seen = builds.clone();
            let derived = Derived {
                on_build: Some(Box::new(move |b| {
                    seen.lock().unwrap().push(b);
                    if b == paused && !once.swap(true, Ordering::SeqCst) {
                        entered.send(()).unwrap();
                        release_rx.lock().unwrap().recv().unwrap();
                    }
                })),
                ..Derived::default()
            };
            let (snapshot, analysis) = fixture();
            let loaded = Arc::new(Loaded::Snapshot {
                snapshot: Box::new(snapshot),
                analysis: Box::new(analysis),
                derived: Box::new(derived),
            });
            let weak = Arc::downgrade(&loaded);
            // The largest class is sorted in the background like a class of millions.
            let background = std::thread::spawn(move || prepare(&weak, count, &|| true));
            entered_rx.recv().unwrap();
            let request = {
                let (loaded, key) = (loaded.clone(), key.clone());
                std::thread::spawn(move || {
                    let (s, a, d) = loaded.snapshot().unwrap();
                    answer(s, a, d, paused, &key)
                })
            };
            std::thread::sleep(Duration::from_millis(100));
            assert!(
                !request.is_finished(),
                "{paused:?}: answered while the build it needs was paused"
            );
            release.send(()).unwrap();
            assert_eq!(request.join().unwrap(), expected, "{paused:?}");
            background.join().unwrap();
            let builds = builds.lock().unwrap();
            assert_eq!(
                *builds,
                [
                    Build::Overview,
                    Build::Dominators,
                    Build::Retainers,
                    Build::Classes,
                    Build::Sorted,
                ],
                "{paused:?}: built in this order, each once"
            );
        }
    }

    /// A background build stops at the next step once its snapshot is no longer the latest
    /// loaded: what it built stays, nothing more is built.
    #[test]
    fn a_background_build_stops_once_another_snapshot_loads() {
        let (snapshot, analysis) = fixture();
        let (_, count) = largest_class(&snapshot, &analysis);
        let builds: Arc<Mutex<Vec<Build>>> = Arc::default();
        let seen = builds.clone();
        let loaded = Arc::new(Loaded::Snapshot {
            snapshot: Box::new(snapshot),
            analysis: Box::new(analysis),
            derived: Box::new(Derived {
                on_build: Some(Box::new(move |b| seen.lock().unwrap().push(b))),
                ..Derived::default()
            }),
        });
        // Still the latest for two steps, then another snapshot "loads".
        let asked = AtomicUsize::new(0);
        let latest = || asked.fetch_add(1, Ordering::SeqCst) < 2;
        prepare(&Arc::downgrade(&loaded), count, &latest);
        assert_eq!(
            *builds.lock().unwrap(),
            [Build::Overview, Build::Dominators]
        );
        let (_, _, derived) = loaded.snapshot().unwrap();
        assert!(derived.retainers.get().is_none() && derived.classes.get().is_none());
    }
}
