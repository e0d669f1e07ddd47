//! Columns set aside while the dominators run: the node and edge columns the Lengauer–Tarjan
//! pass does not read (edge names and types, node names, ids, types, detachedness, trace ids) and
//! the per-node results already computed (distances, retainer counts, class names) go to an
//! unlinked temporary file and come back in two steps: the node columns and the results once the
//! dominator tree is built, the edge columns when something needs them. The Summary reads no edge,
//! so it runs with them still on disk, and an index can be written with them streamed from the
//! file ([`SpilledEdges::copy`]) without ever bringing them back: `heap summary`'s peak is then
//! the dominators', well under the analysed graph's size.
//!
//! The file has no name (Linux's `O_TMPFILE`) or is unlinked as soon as it is created under a
//! random name, mode 0600 ([`scratch_file`]), so an interrupted command leaves nothing behind and
//! no other user can read or redirect it. Everything is written before any column is dropped: a failed write (a full
//! disk) leaves the snapshot as it was and the analysis goes on in memory. A failed read back is
//! an error of the analysis (the columns are gone).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::snapshot::HeapSnapshot;

/// How many analyses of this process have set columns aside (read by tests, which must know a
/// spill happened rather than silently fell back to memory).
pub(crate) static SPILLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Per-node results of the analysis that the dominators do not read, set aside with the columns.
#[derive(Default)]
pub(crate) struct Results {
    pub distances: Vec<i32>,
    pub retainer_counts: Vec<u32>,
    pub classes: Vec<u32>,
}

/// The node columns and [`Results`], then the edge columns, in the file in this order.
pub(crate) struct Spilled {
    file: File,
    /// Node names, ids, types, detachedness, trace ids; distances, retainer counts, classes.
    node_lens: [usize; 8],
    edges: EdgeLens,
}

#[derive(Clone, Copy)]
struct EdgeLens {
    /// Where the edge names start in the file.
    at: u64,
    names: usize,
    kinds: usize,
}

/// The edge columns (names and types) still on disk once [`Spilled::restore_nodes`] has brought
/// the rest back.
pub(crate) struct SpilledEdges {
    file: File,
    lens: EdgeLens,
}

const CHUNK: usize = 1 << 20;

fn write_words<T: Copy>(
    out: &mut impl Write,
    v: &[T],
    le: impl Fn(T) -> [u8; 4],
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK);
    for chunk in v.chunks(CHUNK / 4) {
        buf.clear();
        for &x in chunk {
            buf.extend_from_slice(&le(x));
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

fn read_words<T>(
    input: &mut impl Read,
    len: usize,
    from: impl Fn([u8; 4]) -> T,
) -> io::Result<Vec<T>> {
    let mut v = Vec::with_capacity(len);
    let mut buf = vec![0u8; CHUNK];
    let mut left = len;
    while left > 0 {
        let n = left.min(CHUNK / 4);
        input.read_exact(&mut buf[..n * 4])?;
        v.extend(
            buf[..n * 4]
                .chunks_exact(4)
                .map(|b| from([b[0], b[1], b[2], b[3]])),
        );
        left -= n;
    }
    Ok(v)
}

fn read_u8s(input: &mut impl Read, len: usize) -> io::Result<Vec<u8>> {
    let mut v = vec![0u8; len];
    input.read_exact(&mut v)?;
    Ok(v)
}

/// An unlinked file in `dir` (or the system's temporary directory), readable by its owner alone.
/// On Linux it never has a name (`O_TMPFILE`); elsewhere, or on a file system without such
/// files, it is created under a random name with `O_CREAT | O_EXCL` (which never follows a
/// symbolic link, dangling or not: a name planted in a shared `/tmp` is skipped, never written
/// through) and mode 0600, and unlinked at once. The columns are heap contents: strings can be
/// secrets.
fn scratch_file(dir: Option<&Path>) -> io::Result<File> {
    let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    if let Ok(file) = crate::cache::create_unnamed_file(&dir) {
        return Ok(file);
    }
    named_scratch_file(&dir, || {
        format!(
            ".jsprof-heap-spill-{}-{:016x}",
            std::process::id(),
            random_u64()
        )
    })
}

/// [`scratch_file`] under a name from `name`, the next one when a name is taken.
fn named_scratch_file(dir: &Path, mut name: impl FnMut() -> String) -> io::Result<File> {
    for _ in 0..100u32 {
        let path = dir.join(name());
        let mut options = File::options();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&path) {
            Ok(file) => {
                // Unlinked at once: the open file stays usable and nothing outlives the process.
                let _ = std::fs::remove_file(&path);
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("no free name for a scratch file"))
}

/// 64 bits no other user can guess: std's hasher keys are drawn from the system's random source
/// once per process, and each new `RandomState` moves them on. The scratch files' names here, and
/// the CLI's temporary names beside the files it writes (`jsprof`'s `output_file.rs`).
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// Writes the columns and `results` out and, only once all are written, empties them. `Err`
/// leaves both untouched.
pub(crate) fn spill(
    s: &mut HeapSnapshot,
    results: &mut Results,
    dir: Option<&Path>,
) -> io::Result<Spilled> {
    let mut file = scratch_file(dir)?;
    {
        let mut out = BufWriter::with_capacity(CHUNK, &mut file);
        write_words(&mut out, &s.nodes.name, u32::to_le_bytes)?;
        write_words(&mut out, &s.nodes.id, u32::to_le_bytes)?;
        out.write_all(&s.nodes.kind)?;
        out.write_all(&s.nodes.detachedness)?;
        write_words(&mut out, &s.nodes.trace_node_id, u32::to_le_bytes)?;
        write_words(&mut out, &results.distances, i32::to_le_bytes)?;
        write_words(&mut out, &results.retainer_counts, u32::to_le_bytes)?;
        write_words(&mut out, &results.classes, u32::to_le_bytes)?;
        write_words(&mut out, &s.edges.name_or_index, u32::to_le_bytes)?;
        out.write_all(&s.edges.kind)?;
        out.flush()?;
    }
    let node_lens = [
        s.nodes.name.len(),
        s.nodes.id.len(),
        s.nodes.kind.len(),
        s.nodes.detachedness.len(),
        s.nodes.trace_node_id.len(),
        results.distances.len(),
        results.retainer_counts.len(),
        results.classes.len(),
    ];
    let [names, ids, kinds, detachedness, trace_ids, distances, counts, classes] = node_lens;
    let node_bytes =
        4 * (names + ids + trace_ids + distances + counts + classes) + kinds + detachedness;
    let edges = EdgeLens {
        at: node_bytes as u64,
        names: s.edges.name_or_index.len(),
        kinds: s.edges.kind.len(),
    };
    s.nodes.name = Vec::new();
    s.nodes.id = Vec::new();
    s.nodes.kind = Vec::new();
    s.nodes.detachedness = Vec::new();
    s.nodes.trace_node_id = Vec::new();
    *results = Results::default();
    s.edges.name_or_index = Vec::new();
    s.edges.kind = Vec::new();
    SPILLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Spilled {
        file,
        node_lens,
        edges,
    })
}

impl Spilled {
    /// Reads the node columns and the results back; the edge columns stay on disk.
    pub(crate) fn restore_nodes(
        mut self,
        s: &mut HeapSnapshot,
        results: &mut Results,
    ) -> io::Result<SpilledEdges> {
        self.file.seek(SeekFrom::Start(0))?;
        {
            let mut input = BufReader::with_capacity(CHUNK, &mut self.file);
            let [names, ids, kinds, detachedness, trace_ids, distances, counts, classes] =
                self.node_lens;
            s.nodes.name = read_words(&mut input, names, u32::from_le_bytes)?;
            s.nodes.id = read_words(&mut input, ids, u32::from_le_bytes)?;
            s.nodes.kind = read_u8s(&mut input, kinds)?;
            s.nodes.detachedness = read_u8s(&mut input, detachedness)?;
            s.nodes.trace_node_id = read_words(&mut input, trace_ids, u32::from_le_bytes)?;
            results.distances = read_words(&mut input, distances, i32::from_le_bytes)?;
            results.retainer_counts = read_words(&mut input, counts, u32::from_le_bytes)?;
            results.classes = read_words(&mut input, classes, u32::from_le_bytes)?;
        }
        Ok(SpilledEdges {
            file: self.file,
            lens: self.edges,
        })
    }
}

impl SpilledEdges {
    /// Reads the edge columns back into `s`.
    pub(crate) fn restore(mut self, s: &mut HeapSnapshot) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(self.lens.at))?;
        let mut input = BufReader::with_capacity(CHUNK, &mut self.file);
        s.edges.name_or_index = read_words(&mut input, self.lens.names, u32::from_le_bytes)?;
        s.edges.kind = read_u8s(&mut input, self.lens.kinds)?;
        Ok(())
    }

    /// How many edges the columns hold (names, types).
    pub(crate) fn lens(&self) -> (usize, usize) {
        (self.lens.names, self.lens.kinds)
    }

    /// Streams the edge names (`kinds` false: little-endian `u32`s) or types (one byte each) to
    /// `out`, in chunks, as they are in the file — the bytes an index section holds.
    pub(crate) fn copy(
        &mut self,
        kinds: bool,
        out: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let (at, mut left) = if kinds {
            (self.lens.at + 4 * self.lens.names as u64, self.lens.kinds)
        } else {
            (self.lens.at, 4 * self.lens.names)
        };
        self.file.seek(SeekFrom::Start(at))?;
        let mut buf = vec![0u8; CHUNK];
        while left > 0 {
            let n = left.min(CHUNK);
            self.file.read_exact(&mut buf[..n])?;
            out(&buf[..n])?;
            left -= n;
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Issue 33: the scratch file was created 0644 under a name made of the pid and a counter.
    #[test]
    fn the_scratch_file_is_private_and_never_follows_a_planted_link() {
        let dir = std::env::temp_dir().join(format!("jsprof-spill-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let planted = ".jsprof-heap-spill-planted";
        std::os::unix::fs::symlink(&victim, dir.join(planted)).unwrap();

        // The name an attacker guessed is skipped, never written through.
        let mut names = [planted, ".jsprof-heap-spill-free"].into_iter();
        let mut file = named_scratch_file(&dir, || names.next().unwrap().to_string()).unwrap();
        file.write_all(b"heap contents").unwrap();
        assert_eq!(file.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(dir.join(planted))
            .unwrap()
            .is_symlink());
        assert!(
            !dir.join(".jsprof-heap-spill-free").exists(),
            "unlinked at once"
        );

        // The file every analysis gets: private, and nothing of it in the directory.
        let mut file = scratch_file(Some(&dir)).unwrap();
        file.write_all(b"heap contents").unwrap();
        assert_eq!(file.metadata().unwrap().permissions().mode() & 0o777, 0o600);
        let mut left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [planted, "victim"]);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
