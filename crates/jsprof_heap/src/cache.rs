//! The heap index cache: the analysed snapshot kept on disk, so that the next command, `view` or
//! service open of the same file reads a few arrays instead of parsing and analysing the JSON again.
//!
//! After the first analysis of a snapshot its columns (as the analysis left them: detached nodes
//! renamed, sizes moved to owners, class names appended to the strings), the dominators, retained
//! sizes, distances, classes, retainer counts, statistics and interface definitions are written to
//! one file per snapshot path in the cache directory ([`format`] describes the bytes), with an
//! [`Overview`]: the Summary's rows and the totals, as [`Overview::of`] computed them. Most
//! commands read the whole index back ([`open_analysed`]); the Summary and the Statistics read the
//! header and the overview alone ([`open_overview`]). An index is
//! used only for the same canonical path with the same size, modification time and SHA-256 of the
//! file's first and last MiB, written by the same build of this crate; anything else (a changed
//! snapshot, another jsprof, a truncated or damaged index) is reported in one line and the snapshot
//! is analysed again, its index rewritten.
//!
//! The directory is `$JSPROF_CACHE_DIR`, else `$XDG_CACHE_HOME/jsprof/heap`, else
//! `~/.cache/jsprof/heap`; `JSPROF_CACHE=0` (or [`disable`], the CLI's `--no-cache`) turns it off.
//! Entries are evicted least recently used first (a hit refreshes an entry's modification time)
//! once the directory holds more than `JSPROF_CACHE_MAX_BYTES` (default 20 GiB). Snapshots smaller
//! than `JSPROF_CACHE_MIN_BYTES` on disk (default 8 MiB) are not indexed: they are analysed in
//! well under a second, and their indexes would only fill the directory.
//!
//! Writes go to a temporary name that is renamed once complete, so an interrupted command leaves no
//! partial index (only a temporary file, removed by a later eviction pass once it is stale).

mod column;
mod format;
mod invariants;
mod packed;
mod wire;

pub use crate::overview::Overview;

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::analysis::{analyze, analyze_staged, Analysis, AnalyzeOptions};
use crate::snapshot::HeapSnapshot;
use crate::spill::SpilledEdges;
use format::{Key, Reject};

/// Default for `JSPROF_CACHE_MAX_BYTES`.
pub const DEFAULT_MAX_BYTES: u64 = 20 << 30;
/// Default for `JSPROF_CACHE_MIN_BYTES`.
pub const DEFAULT_MIN_BYTES: u64 = 8 << 20;
/// The index files' extension.
const EXTENSION: &str = "jsheap";
/// A temporary file untouched this long belongs to a process that died while writing it.
const STALE_TEMP: Duration = Duration::from_secs(600);
/// How much of the snapshot's head and tail the key hashes.
const HASHED: u64 = 1 << 20;

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Turns the cache off for this process (the CLI's `--no-cache`): [`HeapCache::from_env`] then
/// gives `None`, so every front door analyses afresh and writes nothing.
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// A cache directory and its limits.
#[derive(Clone, Debug)]
pub struct HeapCache {
    pub dir: PathBuf,
    /// Eviction keeps the directory's index files under this many bytes.
    pub max_bytes: u64,
    /// Snapshot files smaller than this are not indexed.
    pub min_bytes: u64,
}

/// The index cache's failures; none of them stops a command, which analyses the snapshot instead.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{var}: expected a number of bytes, found {value:?}")]
    Setting { var: &'static str, value: String },
}

impl HeapCache {
    /// A cache in `dir` with the default limits.
    pub fn new(dir: impl Into<PathBuf>) -> HeapCache {
        HeapCache {
            dir: dir.into(),
            max_bytes: DEFAULT_MAX_BYTES,
            min_bytes: DEFAULT_MIN_BYTES,
        }
    }

    /// The cache the environment describes, or `None` when it is turned off (`JSPROF_CACHE=0`,
    /// [`disable`]) or no directory can be named (no `HOME`).
    pub fn from_env() -> Result<Option<HeapCache>, CacheError> {
        if DISABLED.load(Ordering::Relaxed)
            || std::env::var_os("JSPROF_CACHE").is_some_and(|v| v == "0")
        {
            return Ok(None);
        }
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let dir = if let Some(dir) = var("JSPROF_CACHE_DIR") {
            PathBuf::from(dir)
        } else if let Some(xdg) = var("XDG_CACHE_HOME") {
            PathBuf::from(xdg).join("jsprof/heap")
        } else if let Some(home) = var("HOME") {
            PathBuf::from(home).join(".cache/jsprof/heap")
        } else {
            return Ok(None);
        };
        let bytes = |name: &'static str, default: u64| -> Result<u64, CacheError> {
            match std::env::var(name) {
                Ok(v) if !v.is_empty() => v.trim().parse().map_err(|_| CacheError::Setting {
                    var: name,
                    value: v,
                }),
                _ => Ok(default),
            }
        };
        Ok(Some(HeapCache {
            dir,
            max_bytes: bytes("JSPROF_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES)?,
            min_bytes: bytes("JSPROF_CACHE_MIN_BYTES", DEFAULT_MIN_BYTES)?,
        }))
    }

    /// Where the index of the snapshot at `canonical` lives: one entry per path, so a rewritten
    /// snapshot replaces its old index instead of adding one.
    fn entry(&self, canonical: &[u8]) -> PathBuf {
        let digest = Sha256::digest(canonical);
        let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{name}.{EXTENSION}"))
    }
}

/// What [`open_analysed`] reports as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The snapshot was read; the analysis starts.
    Analysing,
    /// Bytes of the index read so far, of `total`.
    ReadingIndex { done: u64, total: u64 },
    /// Bytes of the index written so far, of `total`.
    WritingIndex { done: u64, total: u64 },
}

/// An analysed snapshot, and how it was obtained.
pub struct Opened {
    pub snapshot: HeapSnapshot,
    pub analysis: Analysis,
    /// Its Summary and Statistics ([`Overview::of`]) when they came with it: from the index, or
    /// computed by the analysis for the index it wrote. `None` is not an error: compute them.
    pub overview: Option<Overview>,
    /// True when it came from the index rather than from reading and analysing the file.
    pub from_index: bool,
    /// The index this open wrote, for the next open to read: a note for the user.
    pub index_kept: Option<IndexKept>,
    /// One line each, for stderr: an index that was refused, or could not be written.
    pub notes: Vec<String>,
}

/// An index written and kept in the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexKept {
    /// Its size in bytes.
    pub bytes: u64,
    /// The cache folder it is in, and the most that folder keeps.
    pub dir: PathBuf,
    pub max_bytes: u64,
}

/// The one way every front door opens a snapshot for analysis: from the index of `path` when one
/// is valid, else `read()` and DevTools' analysis, keeping an index for next time. `path` is
/// `None` for input that is not a file (stdin); `cache` `None` bypasses the index.
pub fn open_analysed<E>(
    path: Option<&Path>,
    cache: Option<&HeapCache>,
    read: impl FnMut() -> Result<HeapSnapshot, E>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, E> {
    let how = Through {
        load: |slot: &Slot<'_>, progress: &mut dyn FnMut(Progress)| slot.load(progress),
        overview: false,
        edges_back: true,
        done: |a: Analysed| (a.snapshot, a.analysis, a.overview),
    };
    let (opened, from_index, index_kept, notes) =
        open_through(path, cache, read, progress, how, &mut |_| Ok(()))?;
    let (snapshot, analysis, overview) = opened;
    Ok(Opened {
        snapshot,
        analysis,
        overview,
        from_index,
        index_kept,
        notes,
    })
}

/// A snapshot's [`Overview`], and how it was obtained.
pub struct OpenedOverview {
    pub overview: Overview,
    /// True when it came from the index rather than from reading and analysing the file.
    pub from_index: bool,
    /// The index this open wrote, for the next open to read.
    pub index_kept: Option<IndexKept>,
    /// One line each, for stderr: an index that was refused, or could not be written.
    pub notes: Vec<String>,
}

/// As [`open_analysed`], for what the Summary and the Statistics print: from a valid index that
/// is its header and overview section alone (the graph's columns are not read); else the snapshot
/// is read and analysed, its index kept, and the overview computed from the graph.
pub fn open_overview<E>(
    path: Option<&Path>,
    cache: Option<&HeapCache>,
    read: impl FnMut() -> Result<HeapSnapshot, E>,
    progress: &mut dyn FnMut(Progress),
) -> Result<OpenedOverview, E> {
    open_overview_answering(path, cache, read, progress, &mut |_| Ok(()))
}

/// As [`open_overview`], calling `answer` with the overview once it is known: when the snapshot
/// is read and analysed, before its index is written (a command prints its Summary first, and
/// the index, seconds on a large snapshot, is written after); from a valid index, once read.
/// An error from `answer` is returned, and no index written.
pub fn open_overview_answering<E>(
    path: Option<&Path>,
    cache: Option<&HeapCache>,
    read: impl FnMut() -> Result<HeapSnapshot, E>,
    progress: &mut dyn FnMut(Progress),
    answer: &mut dyn FnMut(&Overview) -> Result<(), E>,
) -> Result<OpenedOverview, E> {
    let mut answered = false;
    let mut before_index = |a: &Analysed| {
        answered = true;
        answer(
            a.overview
                .as_ref()
                .expect("analyse gives the overview it was asked for"),
        )
    };
    let how = Through {
        load: |slot: &Slot<'_>, _: &mut dyn FnMut(Progress)| slot.load_overview(),
        overview: true,
        // The graph itself is not needed: the edge columns set aside stay on disk, and the index
        // copies them from there.
        edges_back: false,
        done: |mut a: Analysed| {
            a.overview
                .take()
                .expect("analyse gives the overview it was asked for")
        },
    };
    let (overview, from_index, index_kept, notes) =
        open_through(path, cache, read, progress, how, &mut before_index)?;
    if !answered {
        answer(&overview)?;
    }
    Ok(OpenedOverview {
        overview,
        from_index,
        index_kept,
        notes,
    })
}

/// What one kind of open takes from the cache and from an analysis: `load` reads it from a slot's
/// index (`Ok(None)`: no index), else `done` takes it from the snapshot read and analysed (with
/// the overview when `overview`, the edge columns back in memory when `edges_back`).
struct Through<L, D> {
    load: L,
    overview: bool,
    edges_back: bool,
    done: D,
}

/// The head [`open_analysed`] and [`open_overview`] share: the index when it is valid, else the
/// analysis, `analysed` called, and a new index. Gives what was opened, whether it came from the
/// index, the index written and the notes for stderr.
fn open_through<T, E, L, D>(
    path: Option<&Path>,
    cache: Option<&HeapCache>,
    read: impl FnMut() -> Result<HeapSnapshot, E>,
    progress: &mut dyn FnMut(Progress),
    how: Through<L, D>,
    analysed: &mut dyn FnMut(&Analysed) -> Result<(), E>,
) -> Result<(T, bool, Option<IndexKept>, Vec<String>), E>
where
    L: FnOnce(&Slot<'_>, &mut dyn FnMut(Progress)) -> Result<Option<T>, String>,
    D: FnOnce(Analysed) -> T,
{
    let mut notes = Vec::new();
    let slot = slot_of(path, cache, &mut notes);
    if let Some(slot) = &slot {
        match (how.load)(slot, progress) {
            Ok(Some(opened)) => return Ok((opened, true, None, notes)),
            Ok(None) => {}
            Err(note) => notes.push(note),
        }
    }
    let overview = how.overview || slot.is_some();
    let mut opened = analyse(read, progress, &mut notes, overview, how.edges_back)?;
    analysed(&opened)?;
    let mut index_kept = None;
    if let Some(slot) = &slot {
        match slot.store(&mut opened, progress) {
            Ok(kept) => index_kept = kept,
            Err(note) => notes.push(note),
        }
    }
    Ok(((how.done)(opened), false, index_kept, notes))
}

/// The cache's place for the snapshot at `path`, when there is one; why not goes to `notes`.
/// An existing cache directory is checked before anything in it is read ([`check_private_dir`]).
fn slot_of<'a>(
    path: Option<&Path>,
    cache: Option<&'a HeapCache>,
    notes: &mut Vec<String>,
) -> Option<Slot<'a>> {
    let (Some(path), Some(cache)) = (path, cache) else {
        return None;
    };
    let slot = Slot::of(cache, path).unwrap_or_else(|e| {
        notes.push(format!("heap index not used: {e}"));
        None
    })?;
    if fs::symlink_metadata(&cache.dir).is_ok() {
        if let Err(e) = check_private_dir(&cache.dir) {
            notes.push(format!(
                "heap index cache {} not used: {e}; analysing without it",
                cache.dir.display()
            ));
            return None;
        }
    }
    Some(slot)
}

/// How the front doors analyse: big graphs set the columns the dominators do not read aside in
/// the system's temporary directory (`$TMPDIR`) while they run, unless `JSPROF_HEAP_SPILL=0`;
/// `JSPROF_HEAP_SPILL_MIN_BYTES` moves the size from which they do (tests spill small graphs).
fn analyze_options() -> AnalyzeOptions {
    let off = std::env::var_os("JSPROF_HEAP_SPILL").is_some_and(|v| v == "0");
    let min = std::env::var("JSPROF_HEAP_SPILL_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok());
    AnalyzeOptions {
        spill_dir: (!off).then(std::env::temp_dir),
        spill_min_bytes: min.unwrap_or(crate::analysis::SPILL_MIN_BYTES),
    }
}

/// A snapshot read and analysed, before it is stored.
struct Analysed {
    snapshot: HeapSnapshot,
    analysis: Analysis,
    /// The Summary and Statistics, when asked for.
    overview: Option<Overview>,
    /// The edge names and types when they are still on disk (the snapshot's are empty).
    edges_aside: Option<SpilledEdges>,
}

/// `read()` and DevTools' analysis; with `overview`, the Summary and Statistics; with
/// `edges_back`, the edge columns back in memory (else they may still be set aside).
fn analyse<E>(
    mut read: impl FnMut() -> Result<HeapSnapshot, E>,
    progress: &mut dyn FnMut(Progress),
    notes: &mut Vec<String>,
    overview: bool,
    edges_back: bool,
) -> Result<Analysed, E> {
    let mut snapshot = read()?;
    progress(Progress::Analysing);
    let staged = match analyze_staged(
        &mut snapshot,
        &analyze_options(),
        overview.then_some(Overview::of as fn(&HeapSnapshot, &Analysis) -> Overview),
    ) {
        Ok(mut staged) => match staged.edges_aside.take() {
            Some(edges) if edges_back => edges.restore(&mut snapshot).map(|()| staged),
            edges => {
                staged.edges_aside = edges;
                Ok(staged)
            }
        },
        Err(e) => Err(e),
    };
    match staged {
        Ok(staged) => Ok(Analysed {
            snapshot,
            analysis: staged.analysis,
            overview: staged.overview,
            edges_aside: staged.edges_aside,
        }),
        Err(e) => {
            // The columns set aside could not be read back: read the snapshot again and keep
            // everything in memory this time.
            notes.push(format!(
                "the analysis' scratch file in {} could not be read back ({e}); analysed again in memory",
                std::env::temp_dir().display()
            ));
            let mut snapshot = read()?;
            progress(Progress::Analysing);
            let analysis = analyze(&mut snapshot);
            let overview = overview.then(|| Overview::of(&snapshot, &analysis));
            Ok(Analysed {
                snapshot,
                analysis,
                overview,
                edges_aside: None,
            })
        }
    }
}

/// One snapshot's place in the cache.
struct Slot<'a> {
    cache: &'a HeapCache,
    key: Key,
    entry: PathBuf,
    /// The snapshot's path as given, for messages.
    shown: String,
}

impl<'a> Slot<'a> {
    /// `None` when the snapshot is too small to index.
    fn of(cache: &'a HeapCache, path: &Path) -> Result<Option<Slot<'a>>, CacheError> {
        let io = |source| CacheError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Only regular files have a stable identity; a pipe (`<(zcat …)`) or a device is read
        // once and never indexed, and must not be opened here (opening a FIFO blocks).
        match fs::metadata(path) {
            Ok(meta) if meta.is_file() && meta.len() >= cache.min_bytes => {}
            _ => return Ok(None),
        }
        let canonical = fs::canonicalize(path).map_err(io)?;
        let mut file = File::open(&canonical).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let key = key_of(&canonical, &mut file, &meta).map_err(io)?;
        let entry = cache.entry(&key.path);
        Ok(Some(Slot {
            cache,
            key,
            entry,
            shown: path.display().to_string(),
        }))
    }

    /// The index's tables when it is valid; `Ok(None)` when there is none; `Err(note)` when one
    /// was refused.
    fn load(
        &self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Option<(HeapSnapshot, Analysis, Option<Overview>)>, String> {
        let Some((file, len)) = self.open()? else {
            return Ok(None);
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut report = |done, total| progress(Progress::ReadingIndex { done, total });
        match format::read_index(&mut reader, len, &self.key, &mut report) {
            Ok(tables) => {
                // Least recently used goes first: a hit makes the entry young again.
                let _ = reader.get_ref().set_modified(SystemTime::now());
                Ok(Some(tables))
            }
            Err(reject) => Err(self.note_read(&reject)),
        }
    }

    /// The index's overview when it is valid, as [`Slot::load`] says; only the header and the
    /// overview section are read.
    fn load_overview(&self) -> Result<Option<Overview>, String> {
        let Some((file, len)) = self.open()? else {
            return Ok(None);
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        match format::read_overview(&mut reader, len, &self.key) {
            Ok(overview) => {
                let _ = reader.get_ref().set_modified(SystemTime::now());
                Ok(Some(overview))
            }
            Err(reject) => Err(self.note_read(&reject)),
        }
    }

    /// The index file and its length; `Ok(None)` when there is none.
    fn open(&self) -> Result<Option<(File, u64)>, String> {
        let file = match File::open(&self.entry) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.note_read(&Reject::Io(e))),
        };
        let len = file
            .metadata()
            .map_err(|e| self.note_read(&Reject::Io(e)))?
            .len();
        Ok(Some((file, len)))
    }

    fn note_read(&self, reject: &Reject) -> String {
        let entry = self.entry.display();
        match reject {
            Reject::Stale(why) => format!(
                "{}: its heap index {entry} is out of date ({why}); analysing again",
                self.shown
            ),
            Reject::Corrupt(why) => format!(
                "{}: its heap index {entry} is damaged ({why}); analysing again",
                self.shown
            ),
            Reject::Io(e) => format!(
                "{}: cannot read its heap index {entry} ({e}); analysing again",
                self.shown
            ),
        }
    }

    /// Writes the index under a temporary name and renames it; then evicts. `Err(note)` when it
    /// could not.
    fn store(
        &self,
        x: &mut Analysed,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Option<IndexKept>, String> {
        let Analysed {
            snapshot: s,
            analysis: a,
            overview,
            edges_aside,
        } = x;
        let aside = edges_aside.as_ref().map(SpilledEdges::lens);
        if invariants::check_tables_aside(s, a, aside).is_err() {
            // An index the reader would refuse would be rewritten on every open.
            return Ok(None);
        }
        let computed;
        let overview = match overview {
            Some(overview) => overview,
            None => {
                computed = Overview::of(s, a);
                &computed
            }
        };
        let dir = &self.cache.dir;
        let note = |e: io::Error| {
            format!(
                "{}: could not keep its heap index in {}: {e}",
                self.shown,
                dir.display()
            )
        };
        create_private_dir(dir).map_err(note)?;
        let name = self.entry.file_name().unwrap_or_default().to_string_lossy();
        let temp = dir.join(temp_name(&name, std::process::id()));
        let written = (|| -> io::Result<u64> {
            // Unnamed until complete where the system allows (Linux's `O_TMPFILE`): an
            // interrupted or killed command leaves not even a temporary file of gigabytes behind.
            let (file, unnamed) = match create_unnamed_file(dir) {
                Ok(file) => (file, true),
                Err(_) => (create_private_file(&temp)?, false),
            };
            let mut w = BufWriter::with_capacity(1 << 20, file);
            let mut report = |done, total| progress(Progress::WritingIndex { done, total });
            let max = self.cache.max_bytes;
            let len = format::write_index(
                &mut w,
                &self.key,
                s,
                a,
                overview,
                edges_aside.as_mut(),
                max,
                &mut report,
            )?;
            let file = w.into_inner().map_err(|e| e.into_error())?;
            if unnamed {
                name_unnamed_file(&file, &temp)?;
            }
            // Not synced: an interrupted command never renames (so leaves no partial index), and
            // what a power cut could leave behind fails the length and checksum checks and is
            // rebuilt. A sync would cost the first run more than its analysis (74 MB/s measured
            // on the development box: 6.5 s for the index of a 450 MB snapshot).
            fs::rename(&temp, &self.entry)?;
            Ok(len)
        })();
        let bytes = match written {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = fs::remove_file(&temp);
                return Err(note(e));
            }
        };
        evict(self.cache, &self.entry);
        Ok(Some(IndexKept {
            bytes,
            dir: dir.clone(),
            max_bytes: self.cache.max_bytes,
        }))
    }
}

/// The key of the snapshot at `canonical`.
fn key_of(canonical: &Path, file: &mut File, meta: &fs::Metadata) -> io::Result<Key> {
    let mtime = meta.modified()?;
    let (mtime_secs, mtime_nanos) = match mtime.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(before) => (
            -(before.duration().as_secs() as i64),
            before.duration().subsec_nanos(),
        ),
    };
    let size = meta.len();
    let (dev, ino, ctime_secs, ctime_nanos) = identity(meta);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; HASHED.min(size) as usize];
    file.read_exact(&mut buf)?;
    hasher.update(&buf);
    if size > HASHED {
        let tail = HASHED.min(size - HASHED);
        file.seek(SeekFrom::Start(size - tail))?;
        buf.resize(tail as usize, 0);
        file.read_exact(&mut buf)?;
        hasher.update(&buf);
    }
    Ok(Key {
        path: canonical.as_os_str().as_encoded_bytes().to_vec(),
        size,
        mtime_secs,
        mtime_nanos,
        dev,
        ino,
        ctime_secs,
        ctime_nanos,
        content: hasher.finalize().into(),
    })
}

/// The file's device, inode and change time (seconds, nanoseconds): the kernel sets the change
/// time on every write or metadata change, and no call sets it back.
#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> (u64, u64, i64, u32) {
    use std::os::unix::fs::MetadataExt;
    (
        meta.dev(),
        meta.ino(),
        meta.ctime(),
        meta.ctime_nsec().clamp(0, 999_999_999) as u32,
    )
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> (u64, u64, i64, u32) {
    (0, 0, 0, 0)
}

/// Removes the least recently used indexes until the directory's fit `max_bytes` (never `keep`,
/// just written), and temporary files of writers that died.
fn evict(cache: &HeapCache, keep: &Path) {
    let Ok(entries) = fs::read_dir(&cache.dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut indexes = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        let modified = meta.modified().unwrap_or(now);
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if is_own_temp(&name) && meta.is_file() {
            if now.duration_since(modified).unwrap_or_default() > STALE_TEMP {
                let _ = fs::remove_file(&path);
            }
        } else if is_own_index(&name) && meta.is_file() {
            indexes.push((modified, meta.len(), path));
        }
    }
    let mut total: u64 = indexes.iter().map(|(_, len, _)| len).sum();
    indexes.sort();
    for (_, len, path) in indexes {
        if total <= cache.max_bytes {
            break;
        }
        if path != keep && fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

/// The temporary name of the index `entry` (`<32 hex>.jsheap`) while process `pid` writes it.
fn temp_name(entry: &str, pid: u32) -> String {
    format!(".{entry}.{pid}.tmp")
}

/// True for the name of an index ([`HeapCache::entry`]: 32 hex digits and the extension).
fn is_own_index(name: &str) -> bool {
    name.strip_suffix(&format!(".{EXTENSION}"))
        .is_some_and(|hex| {
            hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
}

/// True for a name [`temp_name`] makes, and no other: the directory may be shared with other
/// programs (`JSPROF_CACHE_DIR=~/.cache`), whose `.*.tmp` files are theirs.
fn is_own_temp(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((entry, pid)) = rest.rsplit_once('.') else {
        return false;
    };
    is_own_index(entry) && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
}

/// The directory holds copies of heap contents (strings can be secrets): owner only. Created
/// 0700 when missing; an existing one must be ours (see [`check_private_dir`]).
fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    check_private_dir(dir)
}

/// Whether the cache may use `dir`, which exists: it must be a directory (not a symbolic link to
/// one) owned by this process's effective user; its mode is then made 0700 if it was wider (a
/// directory made by hand, or by `mkdir -p` with the usual umask). Anything else is refused:
/// another user could read the indexes (heap contents) or plant forged ones.
#[cfg(unix)]
fn check_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::other(
            "it is a symbolic link; the cache needs a private directory of its own",
        ));
    }
    if !meta.is_dir() {
        return Err(io::Error::other("it is not a directory"));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if meta.uid() != uid {
        return Err(io::Error::other(format!(
            "it belongs to uid {}, not to this user (uid {uid}); the cache needs a private \
             directory of its own",
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// A file in `dir` without a name (`O_TMPFILE`, owner only): the heap spill file, and an index
/// given a name by [`name_unnamed_file`] once complete; it vanishes with the process otherwise. An error where the system or the file
/// system has no such files.
#[cfg(target_os = "linux")]
pub(crate) fn create_unnamed_file(dir: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o600)
        .open(dir)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn create_unnamed_file(_dir: &Path) -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Links the file [`create_unnamed_file`] made to `path` (through `/proc/self/fd`, as
/// `open(2)` describes for `O_TMPFILE`).
#[cfg(target_os = "linux")]
fn name_unnamed_file(file: &File, path: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = CString::new(path.as_os_str().as_bytes())?;
    let _ = fs::remove_file(path);
    // SAFETY: both are NUL-terminated strings that outlive the call.
    let done = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn name_unnamed_file(_file: &File, _path: &Path) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

fn create_private_file(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Test support: makes the index of `snapshot` in `cache` valid for the snapshot as it is now.
/// The integration tests spoil a snapshot's middle to show that an answer came from its index;
/// spoiling it moves its change time, which the key holds and nothing sets back, so they re-key
/// the index after. (Whoever can write the cache directory can forge an index anyway.)
#[doc(hidden)]
pub fn rekey_index(cache: &HeapCache, snapshot: &Path) -> io::Result<()> {
    let canonical = fs::canonicalize(snapshot)?;
    let mut file = File::open(&canonical)?;
    let meta = file.metadata()?;
    let key = key_of(&canonical, &mut file, &meta)?;
    let entry = cache.entry(&key.path);
    let mut bytes = fs::read(&entry)?;
    format::replace_key(&mut bytes, &key)
        .ok_or_else(|| io::Error::other("not an index of this format"))?;
    fs::write(&entry, bytes)
}

/// The index's readers on bytes alone, for the `heap_cache` fuzz target: `bytes` are read against
/// the key their header claims and, when `reseal`, with their checksums first recomputed, so that
/// forged content reaches the decoders and the table checks. Both readers run: the overview's
/// alone, then the whole index's, whose tables are given back. A refusal is `None`; a panic is a
/// bug.
#[doc(hidden)]
pub fn read_index_bytes(bytes: &[u8], reseal: bool) -> Option<(HeapSnapshot, Analysis)> {
    let mut bytes = bytes.to_vec();
    if reseal {
        format::reseal(&mut bytes);
    }
    let key = format::claimed_key(&bytes)?;
    let len = bytes.len() as u64;
    let _ = format::read_overview(&mut io::Cursor::new(&bytes[..]), len, &key);
    format::read_index(&mut &bytes[..], len, &key, &mut |_, _| {})
        .ok()
        .map(|(s, a, _)| (s, a))
}

/// An index of `s` and `a` as the cache writes it (under a made-up key): the fuzz target's seed.
#[doc(hidden)]
pub fn index_bytes(s: &HeapSnapshot, a: &Analysis) -> Vec<u8> {
    let key = Key {
        path: b"/fuzz/seed.heapsnapshot".to_vec(),
        size: 0,
        mtime_secs: 0,
        mtime_nanos: 0,
        dev: 0,
        ino: 0,
        ctime_secs: 0,
        ctime_nanos: 0,
        content: [0; 32],
    };
    let mut out = io::Cursor::new(Vec::new());
    // Writing to memory fails only past `max_len`, which is unbounded here.
    let overview = Overview::of(s, a);
    let _ = format::write_index(
        &mut out,
        &key,
        s,
        a,
        &overview,
        None,
        u64::MAX,
        &mut |_, _| {},
    );
    out.into_inner()
}

#[cfg(test)]
mod tests;
