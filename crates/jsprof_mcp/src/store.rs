//! Opened artifacts behind handles (`h1`, `h2`, …). Opening a file twice gives the same handle,
//! and each artifact is read and analysed once, by a background task, whatever the number of
//! calls waiting for it: a 450 MB snapshot takes seconds to index and an agent asks it many
//! questions. A call that gives up on its time cap leaves the load running, so the next call
//! finds it done. Answers already computed are kept too (a few, most recent first), so that
//! paging through a large document does not rebuild it per page; an answer is computed once
//! however many calls ask for it, and one whose caller gave up is kept for the next call.
//!
//! Memory is bounded: per file, the unfiltered input and the [`FILTERED_KEPT`] most recently used
//! filter sets (each filter set is its own copy of the input), and [`DOCUMENTS_KEPT`] answers.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use jsprof_document::filters::FilterSpec;
use jsprof_document::load::{CpuInput, Pipeline};
use jsprof_document::local_file::PointedError;
use jsprof_document::source_maps::SourceMaps;
use jsprof_heap::{
    Analysis, DominatorTree, HeapSnapshot, NativeContexts, NodeOrdinal, RetainerIndex,
};
use jsprof_profile::Format;
use tokio::sync::OnceCell;

use crate::error::{ToolError, ToolResult};
use crate::Config;

/// A heap snapshot with its analysis and the indexes built on first use (each a pass over every
/// node or edge, which a second question must not pay again).
pub struct Heap {
    pub name: String,
    pub snapshot: HeapSnapshot,
    pub analysis: Analysis,
    retainers: OnceLock<RetainerIndex>,
    dominators: OnceLock<DominatorTree>,
    classes: OnceLock<HashMap<String, Vec<NodeOrdinal>>>,
    native_contexts: OnceLock<NativeContexts>,
}

impl Heap {
    /// Each node's JavaScript context, worked out by the first question that needs it.
    pub fn native_contexts(&self) -> &NativeContexts {
        self.native_contexts
            .get_or_init(|| NativeContexts::of(&self.snapshot))
    }

    pub fn retainers(&self) -> &RetainerIndex {
        self.retainers
            .get_or_init(|| RetainerIndex::new(&self.snapshot))
    }

    pub fn dominators(&self) -> &DominatorTree {
        self.dominators
            .get_or_init(|| DominatorTree::new(&self.snapshot, &self.analysis))
    }

    /// The objects of the Summary class `key`, largest retained first.
    pub fn class(&self, key: &str) -> Option<Vec<NodeOrdinal>> {
        let classes = self.classes.get_or_init(|| {
            jsprof_document::heap_pages::classes_by_key(&self.snapshot, &self.analysis)
        });
        let mut members = classes.get(key)?.clone();
        jsprof_document::heap_pages::by_retained(&self.analysis, &mut members);
        Some(members)
    }
}

/// A CPU input being loaded or loaded: every call waiting on it gets the one load.
type CpuSlot = Arc<OnceCell<Arc<CpuInput>>>;

/// One opened file.
pub struct Entry {
    pub handle: String,
    pub path: PathBuf,
    /// How messages name it: the path as the agent gave it.
    pub name: String,
    pub format: Format,
    pub size: u64,
    /// The file `open` checked; every later load must find the same one at `path`.
    identity: Identity,
    /// The CPU input per filter set, most recently used first: the unfiltered one and at most
    /// [`FILTERED_KEPT`] others.
    cpu: Mutex<VecDeque<(FilterSpec, CpuSlot)>>,
    heap: Arc<OnceCell<Arc<Heap>>>,
}

impl Entry {
    pub fn is_heap(&self) -> bool {
        self.format == Format::HeapSnapshot
    }

    pub fn kind(&self) -> &'static str {
        match self.format {
            Format::CpuProfile => "cpuprofile",
            Format::SelfProfile => "selfprofile",
            Format::Trace => "trace",
            Format::HeapProfile => "heapprofile",
            Format::HeapSnapshot => "heapsnapshot",
        }
    }
}

/// Answers kept, most recently used first.
pub const DOCUMENTS_KEPT: usize = 16;

/// Filtered copies of one file's input kept besides the unfiltered one, most recently used first:
/// an agent trying 40 filter sets must not hold 40 copies of a large profile.
pub const FILTERED_KEPT: usize = 4;

/// A computed answer, or the one computation every caller waits on.
/// A kept document, of the type its tool built (`TopReport`, `TreeReport`, a JSON value …).
type Kept = Arc<dyn std::any::Any + Send + Sync>;
type DocSlot = Arc<OnceCell<Kept>>;

/// `key`'s slot in a most-recently-used list, made first (created when missing); the list then
/// keeps `keep(key)` entries besides those `pinned` says to keep whatever their age.
fn slot_in<K: PartialEq + Clone, S: Default + Clone>(
    list: &mut VecDeque<(K, S)>,
    key: &K,
    kept: usize,
    pinned: impl Fn(&K) -> bool,
) -> S {
    let entry = match list.iter().position(|(k, _)| k == key) {
        Some(at) => list.remove(at).expect("found"),
        None => (key.clone(), S::default()),
    };
    let slot = entry.1.clone();
    list.push_front(entry);
    let mut unpinned = 0;
    list.retain(|(k, _)| {
        if pinned(k) {
            return true;
        }
        unpinned += 1;
        unpinned <= kept
    });
    slot
}

/// The handles of one server (shared by every MCP session of `jsprof serve`).
pub struct Store {
    pub config: Config,
    entries: Mutex<Vec<Arc<Entry>>>,
    documents: Mutex<VecDeque<(String, DocSlot)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Store {
    pub fn new(config: Config) -> Store {
        Store {
            config,
            entries: Mutex::new(Vec::new()),
            documents: Mutex::new(VecDeque::new()),
        }
    }

    /// Opens `path` (relative paths from the first root) if it is a regular file inside a root:
    /// judged on the path as written before the file system is asked (so a path outside gets
    /// the same refusal whether or not it exists), then on where its links lead and on the file
    /// actually opened (`jsprof_document::local_file`, the one reader of pointed-at files).
    pub fn open_file(&self, path: &str) -> ToolResult<Checked> {
        self.open_path(Path::new(path), path)
    }

    /// [`Store::open_file`] of `given`, named `path` in messages.
    fn open_path(&self, given: &Path, path: &str) -> ToolResult<Checked> {
        let joined = match (given.is_absolute(), self.config.roots.first()) {
            (false, Some(root)) => root.join(given),
            _ => given.to_path_buf(),
        };
        if self.config.roots.is_empty() {
            return Err(self.outside(path));
        }
        match jsprof_document::local_file::open_regular(&joined, &self.config.roots) {
            Ok(pointed) => Ok(Checked::new(pointed)),
            Err(PointedError::Outside(_)) => Err(self.outside(path)),
            Err(PointedError::Unreadable(m)) => Err(ToolError::NotFound(format!(
                "cannot open {}",
                m.escape_debug()
            ))),
        }
    }

    /// `path` (relative paths from the first root) if it is a directory inside a root, judged
    /// as [`Store::open_file`] judges a file: as written first, then where its links lead.
    pub fn confine_dir(&self, path: &str) -> ToolResult<PathBuf> {
        let joined = match self.config.roots.first() {
            Some(root) => root.join(path),
            None => PathBuf::from(path),
        };
        let written = std::path::absolute(&joined)
            .map_err(|e| ToolError::BadRequest(format!("{}: {e}", path.escape_debug())))?;
        if !jsprof_document::local_file::lexically_under(&written, &self.config.roots) {
            return Err(self.outside(path));
        }
        let canon = std::fs::canonicalize(&written)
            .map_err(|e| ToolError::NotFound(format!("cannot use {}: {e}", path.escape_debug())))?;
        if !self.config.roots.iter().any(|r| canon.starts_with(r)) {
            return Err(self.outside(path));
        }
        if !canon.is_dir() {
            return Err(ToolError::BadRequest(format!(
                "{} is not a directory",
                path.escape_debug()
            )));
        }
        Ok(canon)
    }

    fn outside(&self, path: &str) -> ToolError {
        ToolError::Forbidden(format!(
            "{} is outside the directories this server may read ({}); start `jsprof mcp` with \
             --root for its directory",
            path.escape_debug(),
            self.roots_text()
        ))
    }

    /// The file `entry` names, opened again and checked to be the one `open` checked: inside
    /// the roots as [`Store::open_file`] judges (so a directory swapped for a link that leads out
    /// is refused) and the same device and inode (so a file put in its place is refused). Loads
    /// read through the returned handle, never through the path again.
    pub fn reopen(&self, entry: &Entry) -> ToolResult<Checked> {
        let checked = self.open_path(&entry.path, &entry.name).map_err(|e| {
            ToolError::Forbidden(format!(
                "{} ({}) can no longer be read: {e}",
                entry.handle, entry.name
            ))
        })?;
        if checked.identity != entry.identity {
            return Err(ToolError::NotFound(format!(
                "{} ({}) was replaced since it was opened (another file is at its path now); \
                 `open` it again for a new handle",
                entry.handle, entry.name
            )));
        }
        Ok(checked)
    }

    pub fn roots_text(&self) -> String {
        self.config
            .roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Opens `path` (checked against the roots), or returns the handle it already has: the same
    /// file at the same path. A different file now at an opened path gets a new handle.
    pub fn open(&self, path: &str) -> ToolResult<Arc<Entry>> {
        let checked = self.open_file(path)?;
        let same = |e: &&Arc<Entry>| e.path == checked.canonical && e.identity == checked.identity;
        if let Some(e) = lock(&self.entries).iter().find(same) {
            return Ok(e.clone());
        }
        let input = jsprof_document::input::open_streaming(checked.path(), &Default::default())
            .map_err(|e| ToolError::Input(format!("{path}: {}", e.kind)))?;
        let format = input
            .format()
            .map_err(|e| ToolError::Input(format!("{path}: {}", e.kind)))?;
        let mut entries = lock(&self.entries);
        // Another call may have opened it meanwhile.
        if let Some(e) = entries.iter().find(same) {
            return Ok(e.clone());
        }
        let entry = Arc::new(Entry {
            handle: format!("h{}", entries.len() + 1),
            path: checked.canonical.clone(),
            name: path.to_string(),
            format,
            size: checked.len,
            identity: checked.identity,
            cpu: Mutex::new(VecDeque::new()),
            heap: Arc::new(OnceCell::new()),
        });
        entries.push(entry.clone());
        Ok(entry)
    }

    pub fn entries(&self) -> Vec<Arc<Entry>> {
        lock(&self.entries).clone()
    }

    pub fn get(&self, handle: &str) -> ToolResult<Arc<Entry>> {
        let entries = lock(&self.entries);
        entries
            .iter()
            .find(|e| e.handle == handle)
            .cloned()
            .ok_or_else(|| {
                let known: Vec<String> = entries.iter().map(|e| e.handle.clone()).collect();
                ToolError::NotFound(format!(
                    "no handle `{}`: open a file first with the `open` tool (open handles: {})",
                    handle.escape_debug(),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })
    }

    /// The CPU input of `entry` read through the pipeline with `filters`.
    pub async fn cpu(&self, entry: &Arc<Entry>, filters: &FilterSpec) -> ToolResult<Arc<CpuInput>> {
        if entry.is_heap() {
            return Err(ToolError::BadRequest(format!(
                "{} ({}) is a heap snapshot: use the heap_* tools",
                entry.handle, entry.name
            )));
        }
        filters.compile().map_err(ToolError::from)?;
        let slot: CpuSlot = slot_in(&mut lock(&entry.cpu), filters, FILTERED_KEPT, |f| {
            *f == FilterSpec::default()
        });
        let (name, filters) = (entry.name.clone(), filters.clone());
        let source_maps = self.source_maps();
        self.load_once(entry, slot, move |file| {
            let text = jsprof_document::text::read_file(file.path())
                .map_err(|e| ToolError::Input(format!("{name}: cannot read: {e}")))?;
            let pipeline = Pipeline {
                filters,
                source_maps,
            };
            Ok(Arc::new(jsprof_document::load::read_cpu(
                name, text, &pipeline,
            )?))
        })
        .await
    }

    /// The source maps this server applies, to CPU profiles and to heap snapshots' Summaries:
    /// discovery reads only below the roots, like every other read of this server.
    pub fn source_maps(&self) -> SourceMaps {
        SourceMaps {
            roots: self.config.roots.clone(),
            ..SourceMaps::default()
        }
    }

    /// The heap snapshot of `entry`, analysed.
    pub async fn heap(&self, entry: &Arc<Entry>) -> ToolResult<Arc<Heap>> {
        if !entry.is_heap() {
            return Err(ToolError::BadRequest(format!(
                "{} ({}) is a {}, not a heap snapshot",
                entry.handle,
                entry.name,
                entry.kind()
            )));
        }
        let slot = entry.heap.clone();
        let name = entry.name.clone();
        self.load_once(entry, slot, move |file| {
            let (snapshot, analysis) = read_snapshot(&file, &name)?;
            Ok(Arc::new(Heap {
                name,
                snapshot,
                analysis,
                retainers: OnceLock::new(),
                dominators: OnceLock::new(),
                classes: OnceLock::new(),
                native_contexts: OnceLock::new(),
            }))
        })
        .await
    }

    /// `slot`'s value, made the first time it is asked for by `make` on a blocking thread, from
    /// the entry's file reopened (and checked to be the one `open` saw) here, before the work
    /// starts. Calls at once share one load, which outlives a caller's time cap ([`finish`]).
    ///
    /// [`finish`]: Store::finish
    async fn load_once<T: Send + Sync + 'static>(
        &self,
        entry: &Entry,
        slot: Arc<OnceCell<Arc<T>>>,
        make: impl FnOnce(Checked) -> ToolResult<Arc<T>> + Send + 'static,
    ) -> ToolResult<Arc<T>> {
        let file = if slot.initialized() {
            None
        } else {
            Some(self.reopen(entry)?)
        };
        self.finish(async move {
            slot.get_or_try_init(|| async move {
                let file = file.ok_or_else(|| {
                    ToolError::Internal("a finished load was asked to load again".into())
                })?;
                blocking(move || make(file)).await
            })
            .await
            .cloned()
        })
        .await
    }

    /// Runs `work` as its own task and waits for it at most the call's time cap: the task goes
    /// on when the caller gives up, so a load finishes for the next call.
    pub async fn finish<T: Send + 'static>(
        &self,
        work: impl std::future::Future<Output = ToolResult<T>> + Send + 'static,
    ) -> ToolResult<T> {
        let task = tokio::spawn(work);
        match tokio::time::timeout(self.config.call_timeout, task).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => Err(ToolError::Internal(format!("the work failed: {e}"))),
            Err(_) => Err(ToolError::Timeout(format!(
                "this call took longer than {} s; a file being read goes on loading in the \
                 background: call again in a while",
                self.config.call_timeout.as_secs_f64()
            ))),
        }
    }

    /// A computed document kept under `key` (tool + handle + arguments), or `make`'s. Calls
    /// asking for one key at once share one computation; one that outlives its caller's time cap
    /// finishes into the cache, so the next call gets it instead of starting again. A failure is
    /// not kept.
    ///
    /// Documents stay typed, so that a tool's text reads their fields, not JSON lookups.
    pub async fn document<T: Send + Sync + 'static>(
        &self,
        key: String,
        make: impl FnOnce() -> ToolResult<T> + Send + 'static,
    ) -> ToolResult<Arc<T>> {
        let slot: DocSlot = slot_in(&mut lock(&self.documents), &key, DOCUMENTS_KEPT, |_| false);
        let kept = match slot.get() {
            Some(doc) => doc.clone(),
            None => {
                self.finish(async move {
                    slot.get_or_try_init(|| async move {
                        blocking(make).await.map(|doc| Arc::new(doc) as Kept)
                    })
                    .await
                    .cloned()
                })
                .await?
            }
        };
        kept.downcast().map_err(|_| {
            ToolError::Internal(format!(
                "the document kept as `{}` is of another type",
                key.escape_debug()
            ))
        })
    }

    /// How many inputs `entry` holds (the unfiltered one and filtered copies).
    pub fn inputs_held(&self, entry: &Entry) -> usize {
        lock(&entry.cpu).len()
    }
}

/// Which file an open handle is: its device and inode (elsewhere than Unix, nothing: the path's
/// checks are all there is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity(u64, u64);

impl Identity {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity(meta.dev(), meta.ino())
    }

    #[cfg(not(unix))]
    fn of(_meta: &std::fs::Metadata) -> Identity {
        Identity(0, 0)
    }
}

/// A file opened and checked against the roots, held open while it is read.
pub struct Checked {
    file: std::fs::File,
    /// Where it was found, links resolved.
    pub canonical: PathBuf,
    pub len: u64,
    identity: Identity,
    /// How readers that take a path reach this very file: `/proc/self/fd/N` on Linux (a new
    /// open of the same inode, whatever the path names by then); elsewhere the checked path.
    through: PathBuf,
}

impl Checked {
    fn new(pointed: jsprof_document::local_file::Pointed) -> Checked {
        let identity = pointed
            .file
            .metadata()
            .map_or(Identity(0, 0), |m| Identity::of(&m));
        let through = fd_path(&pointed.file).unwrap_or_else(|| pointed.path.clone());
        Checked {
            file: pointed.file,
            canonical: pointed.path,
            len: pointed.len,
            identity,
            through,
        }
    }

    /// A path that opens this file (see `through`).
    pub fn path(&self) -> &Path {
        &self.through
    }

    pub fn file(&self) -> &std::fs::File {
        &self.file
    }
}

#[cfg(target_os = "linux")]
fn fd_path(file: &std::fs::File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    path.exists().then_some(path)
}

#[cfg(not(target_os = "linux"))]
fn fd_path(_file: &std::fs::File) -> Option<PathBuf> {
    None
}

/// Runs CPU-bound work off the async threads.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> ToolResult<T> + Send + 'static,
) -> ToolResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::Internal(format!("the work failed: {e}")))?
}

/// Reads and analyses a heap snapshot (blocking). The heap comparison re-classifies its base, so
/// it reads its own copy with this.
/// Through the heap index cache when the environment enables it (see `jsprof_heap::cache`).
pub fn read_snapshot(file: &Checked, name: &str) -> ToolResult<(HeapSnapshot, Analysis)> {
    use jsprof_document::heap::{open_snapshot_file, OpenError};
    // stdout carries the protocol; notes go to stderr, as the CLI's do.
    let opened = open_snapshot_file(file.path(), name, "jsprof mcp").map_err(|e| match e {
        OpenError::Read(message) | OpenError::Snapshot(message) => ToolError::Input(message),
    })?;
    Ok((opened.snapshot, opened.analysis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
    }

    fn store(call_timeout: Duration) -> Store {
        let mut config = Config {
            roots: vec![fixtures()],
            call_timeout,
            ..Config::default()
        };
        config.roots = vec![std::fs::canonicalize(fixtures()).unwrap()];
        Store::new(config)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn forty_filter_sets_keep_at_most_the_unfiltered_input_and_four_copies() {
        let store = store(Duration::from_secs(120));
        let entry = store.open("cpu/node-mix.cpuprofile.gz").unwrap();
        let plain = store.cpu(&entry, &FilterSpec::default()).await.unwrap();
        for i in 0..40 {
            let filters = FilterSpec {
                exclude: vec![format!("^no-such-function-{i}$")],
                ..FilterSpec::default()
            };
            store.cpu(&entry, &filters).await.unwrap();
            assert!(store.inputs_held(&entry) <= 1 + FILTERED_KEPT);
        }
        assert_eq!(store.inputs_held(&entry), 1 + FILTERED_KEPT);
        // The unfiltered input was never evicted: the same one comes back.
        let again = store.cpu(&entry, &FilterSpec::default()).await.unwrap();
        assert!(Arc::ptr_eq(&plain, &again));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_that_outlives_its_call_is_kept_for_the_next_and_computed_once() {
        let store = store(Duration::from_millis(50));
        let runs = Arc::new(AtomicUsize::new(0));
        let make = |runs: Arc<AtomicUsize>| {
            move || {
                runs.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(400));
                Ok(serde_json::json!({"answer": 42}))
            }
        };
        let first = store.document("slow".into(), make(runs.clone())).await;
        assert!(
            matches!(first, Err(ToolError::Timeout(_))),
            "{:?}",
            first.err()
        );
        // Retries while it runs wait on the same computation instead of starting another.
        let retry = store.document("slow".into(), make(runs.clone())).await;
        assert!(matches!(retry, Err(ToolError::Timeout(_))));
        tokio::time::sleep(Duration::from_millis(600)).await;
        let answered = store
            .document("slow".into(), make(runs.clone()))
            .await
            .unwrap();
        assert_eq!(answered["answer"], 42);
        assert_eq!(
            runs.load(Ordering::SeqCst),
            1,
            "computed once for three calls"
        );
    }

    #[test]
    fn the_answers_kept_are_the_most_recently_used() {
        let mut list: VecDeque<(u32, u32)> = VecDeque::new();
        for k in 0..10 {
            slot_in(&mut list, &k, 3, |k| *k == 0);
        }
        // 0 is pinned; of the rest the three most recent stay, newest first.
        let keys: Vec<u32> = list.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [9, 8, 7, 0]);
        slot_in(&mut list, &7, 3, |k| *k == 0);
        let keys: Vec<u32> = list.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [7, 9, 8, 0]);
    }
}
