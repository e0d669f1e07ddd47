//! Loaded artifacts kept in memory: parsing a 50 MB profile takes a good part of a second, so
//! each artifact is parsed once (concurrent requests wait for the same load) and the most
//! recently used few are kept. A CPU artifact is read through the one load pipeline
//! (`jsprof_document::load`: timing, source maps, filters); a filtered view (`focus=…`,
//! `hide_idle=1`, …) is an entry of its own, and ranges and threads are views of an entry.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use jsprof_document::heap_class::ObjectOrder;
use jsprof_document::load::{CpuInput, Pipeline};
use jsprof_heap::{Analysis, DominatorTree, HeapSnapshot, NodeOrdinal, RetainerIndex};
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

/// What the heap pages need beyond the analysis, built on first use and kept with the snapshot:
/// each is a pass over every node or edge (a few hundred ms on millions of nodes), which a
/// click on an object or a class must not pay again.
#[derive(Default)]
pub struct Derived {
    /// The Summary's rows, totals and statistics (what the heap index keeps as its overview),
    /// made once: each Summary request of a big snapshot would otherwise group every node again.
    pub overview: OnceLock<jsprof_heap::Overview>,
    pub retainers: OnceLock<RetainerIndex>,
    pub dominators: OnceLock<DominatorTree>,
    /// Every class's objects by Summary key, in node order.
    pub classes: OnceLock<HashMap<String, Vec<NodeOrdinal>>>,
    /// The classes asked for so far, in each order asked for.
    pub sorted: Mutex<HashMap<(String, ObjectOrder), SortedClass>>,
}

impl Derived {
    pub fn overview(&self, s: &HeapSnapshot, a: &Analysis) -> &jsprof_heap::Overview {
        self.overview
            .get_or_init(|| jsprof_heap::Overview::of(s, a))
    }

    pub fn retainers(&self, s: &HeapSnapshot) -> &RetainerIndex {
        self.retainers.get_or_init(|| RetainerIndex::new(s))
    }

    pub fn dominators(&self, s: &HeapSnapshot, a: &Analysis) -> &DominatorTree {
        self.dominators.get_or_init(|| DominatorTree::new(s, a))
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
    ) -> Option<Arc<[NodeOrdinal]>> {
        let cached = (key.to_string(), order);
        if let Some(v) = self
            .sorted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&cached)
        {
            return Some(v.clone());
        }
        let classes = self
            .classes
            .get_or_init(|| jsprof_document::heap_pages::classes_by_key(s, a));
        let mut members = classes.get(key)?.clone();
        jsprof_document::heap_class::sort_objects(s, a, &mut members, order);
        let members: Arc<[NodeOrdinal]> = members.into();
        self.sorted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(cached, members.clone());
        Some(members)
    }
}

/// A class's objects in one order.
pub type SortedClass = Arc<[NodeOrdinal]>;

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
                    crate::work::spawn(move || load(&path, &name, view, &pipeline))
                        .await
                        .map_err(|e| ApiError::internal(format!("loading {what}: {e}")))?
                        .map(Arc::new)
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
            let (snapshot, analysis) = load_snapshot(path, name)?;
            Ok(Loaded::Snapshot {
                snapshot: Box::new(snapshot),
                analysis: Box::new(analysis),
                derived: Box::default(),
            })
        }
    }
}

/// Reads and analyses a heap snapshot (blocking), through the heap index cache when the
/// environment enables it (the CLI's, see `jsprof_heap::cache`).
pub fn load_snapshot(path: &Path, name: &str) -> ApiResult<(HeapSnapshot, Analysis)> {
    let cache = jsprof_heap::HeapCache::from_env().unwrap_or_else(|e| {
        eprintln!("jsprof serve: heap index cache off: {e}");
        None
    });
    let read = || {
        let reader = jsprof_document::text::open_reader(path)
            .map_err(|e| ApiError::internal(format!("{name}: cannot read: {e}")))?;
        jsprof_heap::read_snapshot_with(reader, jsprof_heap::ReadOptions::default())
            .map_err(|e| ApiError::bad_request(format!("{name}: {e}")))
    };
    let opened = jsprof_heap::open_analysed(Some(path), cache.as_ref(), read, &mut |_| {})?;
    for note in &opened.notes {
        eprintln!("jsprof serve: {note}");
    }
    Ok((opened.snapshot, opened.analysis))
}
