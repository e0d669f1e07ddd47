//! Loaded artifacts kept in memory: parsing a 50 MB profile takes a good part of a second, so
//! each artifact is parsed once (concurrent requests wait for the same load) and the most
//! recently used few are kept.

use std::path::Path;
use std::sync::{Arc, Mutex};

use jsprof_heap::{Analysis, HeapSnapshot};
use jsprof_profile::Profile;
use jsprof_report::load::LoadedTimelines;
use tokio::sync::OnceCell;

use crate::error::{ApiError, ApiResult};

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
    },
}

type Key = (String, u32, View);
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
        entries.retain(|((s, _, _), _)| s != session);
    }

    /// The artifact `(session, artifact)` loaded as `view` from `path` (named `name` in
    /// messages), loading it on a blocking thread the first time.
    pub async fn get(
        &self,
        session: &str,
        artifact: u32,
        view: View,
        path: &Path,
        name: &str,
    ) -> ApiResult<Arc<Loaded>> {
        let key = (session.to_string(), artifact, view);
        let slot = self.slot(&key);
        let loaded = slot
            .get_or_try_init(|| {
                let path = path.to_path_buf();
                let name = name.to_string();
                async move {
                    let what = name.clone();
                    tokio::task::spawn_blocking(move || load(&path, &name, view))
                        .await
                        .map_err(|e| ApiError::internal(format!("loading {what}: {e}")))?
                        .map(Arc::new)
                }
            })
            .await?;
        Ok(loaded.clone())
    }
}

/// Loads a file as `view` (blocking).
pub fn load(path: &Path, name: &str, view: View) -> ApiResult<Loaded> {
    let cannot = |e: std::io::Error| ApiError::internal(format!("{name}: cannot read: {e}"));
    match view {
        View::Timelines => {
            let text = jsprof_report::text::read_file(path).map_err(cannot)?;
            Ok(Loaded::Timelines(jsprof_report::load::timelines(
                name.to_string(),
                text,
            )?))
        }
        View::Profile => {
            let text = jsprof_report::text::read_file(path).map_err(cannot)?;
            Ok(Loaded::Profile(jsprof_report::load::profile(name, text)?))
        }
        View::Snapshot => {
            let (snapshot, analysis) = load_snapshot(path, name)?;
            Ok(Loaded::Snapshot {
                snapshot: Box::new(snapshot),
                analysis: Box::new(analysis),
            })
        }
    }
}

/// Reads and analyses a heap snapshot (blocking).
pub fn load_snapshot(path: &Path, name: &str) -> ApiResult<(HeapSnapshot, Analysis)> {
    let reader = jsprof_report::text::open_reader(path)
        .map_err(|e| ApiError::internal(format!("{name}: cannot read: {e}")))?;
    let mut snapshot = jsprof_heap::read_snapshot_with(reader, jsprof_heap::ReadOptions::default())
        .map_err(|e| ApiError::bad_request(format!("{name}: {e}")))?;
    let analysis = jsprof_heap::analyze(&mut snapshot);
    Ok((snapshot, analysis))
}
