//! Loaded artifacts kept in memory: parsing a 50 MB profile takes a good part of a second, so
//! each artifact is parsed once (concurrent requests wait for the same load) and the most
//! recently used few are kept. A filtered view (`focus=…`, `hide_idle=1`, …) is an entry of its
//! own: the filters rewrite the samples before the timelines are built, as in the CLI.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use jsprof_document::load::LoadedTimelines;
use jsprof_heap::{Analysis, DominatorTree, HeapSnapshot, NodeOrdinal, RetainerIndex};
use jsprof_profile::Profile;
use tokio::sync::OnceCell;

use crate::error::{ApiError, ApiResult};
use crate::filters::FilterSpec;

/// How an artifact is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    Timelines,
    Profile,
    Snapshot,
}

/// A loaded artifact.
pub enum Loaded {
    Timelines(LoadedTimelines),
    Profile(Profile),
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
}

/// What the heap pages need beyond the analysis, built on first use and kept with the snapshot:
/// each is a pass over every node or edge (a few hundred ms on millions of nodes), which a
/// click on an object or a class must not pay again.
#[derive(Default)]
pub struct Derived {
    pub retainers: OnceLock<RetainerIndex>,
    pub dominators: OnceLock<DominatorTree>,
    /// Every class's objects by Summary key, in node order.
    pub classes: OnceLock<HashMap<String, Vec<NodeOrdinal>>>,
    /// The classes asked for so far, largest retained first.
    pub sorted: Mutex<HashMap<String, Arc<[NodeOrdinal]>>>,
}

impl Derived {
    pub fn retainers(&self, s: &HeapSnapshot) -> &RetainerIndex {
        self.retainers.get_or_init(|| RetainerIndex::new(s))
    }

    pub fn dominators(&self, s: &HeapSnapshot, a: &Analysis) -> &DominatorTree {
        self.dominators.get_or_init(|| DominatorTree::new(s, a))
    }

    /// The objects of the Summary class `key`, largest retained first; `None` when no class has
    /// that key.
    pub fn class(&self, s: &HeapSnapshot, a: &Analysis, key: &str) -> Option<Arc<[NodeOrdinal]>> {
        if let Some(v) = self
            .sorted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
        {
            return Some(v.clone());
        }
        let classes = self
            .classes
            .get_or_init(|| crate::ui_heap::classes_by_key(s, a));
        let mut members = classes.get(key)?.clone();
        crate::ui_heap::by_retained(a, &mut members);
        let members: Arc<[NodeOrdinal]> = members.into();
        self.sorted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_string(), members.clone());
        Some(members)
    }
}

type Key = (String, u32, View, FilterSpec);
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
    /// messages) with `filters` applied, loading it on a blocking thread the first time.
    pub async fn get(
        &self,
        session: &str,
        artifact: u32,
        view: View,
        filters: &FilterSpec,
        path: &Path,
        name: &str,
    ) -> ApiResult<Arc<Loaded>> {
        let key = (session.to_string(), artifact, view, filters.clone());
        let slot = self.slot(&key);
        let loaded = slot
            .get_or_try_init(|| {
                let path = path.to_path_buf();
                let name = name.to_string();
                let filters = filters.clone();
                async move {
                    let what = name.clone();
                    crate::work::spawn(move || load(&path, &name, view, &filters))
                        .await
                        .map_err(|e| ApiError::internal(format!("loading {what}: {e}")))?
                        .map(Arc::new)
                }
            })
            .await?;
        Ok(loaded.clone())
    }
}

/// Loads a file as `view` with `filters` applied (blocking).
pub fn load(path: &Path, name: &str, view: View, filters: &FilterSpec) -> ApiResult<Loaded> {
    let cannot = |e: std::io::Error| ApiError::internal(format!("{name}: cannot read: {e}"));
    let filter = |profile: Profile| -> Result<Profile, ApiError> {
        if filters.is_empty() {
            return Ok(profile);
        }
        Ok(jsprof_analysis::filter(&profile, &filters.filters()))
    };
    match view {
        View::Timelines => {
            let text = jsprof_document::text::read_file(path).map_err(cannot)?;
            let parsed = jsprof_document::load::parse_timelines(name, text)?.map_profile(filter)?;
            Ok(Loaded::Timelines(jsprof_document::load::build_timelines(
                name.to_string(),
                parsed,
            )))
        }
        View::Profile => {
            let text = jsprof_document::text::read_file(path).map_err(cannot)?;
            Ok(Loaded::Profile(filter(jsprof_document::load::profile(
                name, text,
            )?)?))
        }
        View::Snapshot if !filters.is_empty() => Err(ApiError::bad_request(format!(
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

/// Reads and analyses a heap snapshot (blocking).
pub fn load_snapshot(path: &Path, name: &str) -> ApiResult<(HeapSnapshot, Analysis)> {
    let reader = jsprof_document::text::open_reader(path)
        .map_err(|e| ApiError::internal(format!("{name}: cannot read: {e}")))?;
    let mut snapshot = jsprof_heap::read_snapshot_with(reader, jsprof_heap::ReadOptions::default())
        .map_err(|e| ApiError::bad_request(format!("{name}: {e}")))?;
    let analysis = jsprof_heap::analyze(&mut snapshot);
    Ok((snapshot, analysis))
}
