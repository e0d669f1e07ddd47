//! Columns set aside while the dominators run: the node and edge columns the Lengauer–Tarjan
//! pass does not read (edge names and types, node names, ids, types, detachedness, trace ids) go
//! to an unlinked temporary file and come back once the dominator tree is built. The dominators'
//! own arrays and the reverse graph are the analysis' peak; these columns are about a third of
//! the graph's memory, so a multi-GB snapshot's peak drops by that much, for one sequential write
//! and read the page cache usually serves.
//!
//! The file is unlinked as soon as it is created (on Unix), so an interrupted command leaves
//! nothing behind. Everything is written before any column is dropped: a failed write (a full
//! disk) leaves the snapshot as it was and the analysis goes on in memory. A failed read back is
//! an error of the analysis (the columns are gone).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::snapshot::HeapSnapshot;

/// How many analyses of this process have set columns aside (read by tests, which must know a
/// spill happened rather than silently fell back to memory).
pub(crate) static SPILLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The columns in the file, in this order.
pub(crate) struct Spilled {
    file: File,
    lens: [usize; 7],
}

const CHUNK: usize = 1 << 20;

fn write_u32s(out: &mut impl Write, v: &[u32]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK);
    for chunk in v.chunks(CHUNK / 4) {
        buf.clear();
        for x in chunk {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        out.write_all(&buf)?;
    }
    Ok(())
}

fn read_u32s(input: &mut impl Read, len: usize) -> io::Result<Vec<u32>> {
    let mut v = Vec::with_capacity(len);
    let mut buf = vec![0u8; CHUNK];
    let mut left = len;
    while left > 0 {
        let n = left.min(CHUNK / 4);
        input.read_exact(&mut buf[..n * 4])?;
        v.extend(
            buf[..n * 4]
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
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

/// An unlinked file in `dir` (or the system's temporary directory).
fn scratch_file(dir: Option<&Path>) -> io::Result<File> {
    let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    for attempt in 0..100u32 {
        let path = dir.join(format!(
            ".jsprof-heap-spill-{}-{attempt}",
            std::process::id()
        ));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
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

/// Writes the columns out and, only once all are written, empties them in `s`. `Err` leaves `s`
/// untouched.
pub(crate) fn spill(s: &mut HeapSnapshot, dir: Option<&Path>) -> io::Result<Spilled> {
    let mut file = scratch_file(dir)?;
    {
        let mut out = BufWriter::with_capacity(CHUNK, &mut file);
        write_u32s(&mut out, &s.edges.name_or_index)?;
        out.write_all(&s.edges.kind)?;
        write_u32s(&mut out, &s.nodes.name)?;
        write_u32s(&mut out, &s.nodes.id)?;
        out.write_all(&s.nodes.kind)?;
        out.write_all(&s.nodes.detachedness)?;
        write_u32s(&mut out, &s.nodes.trace_node_id)?;
        out.flush()?;
    }
    let lens = [
        s.edges.name_or_index.len(),
        s.edges.kind.len(),
        s.nodes.name.len(),
        s.nodes.id.len(),
        s.nodes.kind.len(),
        s.nodes.detachedness.len(),
        s.nodes.trace_node_id.len(),
    ];
    s.edges.name_or_index = Vec::new();
    s.edges.kind = Vec::new();
    s.nodes.name = Vec::new();
    s.nodes.id = Vec::new();
    s.nodes.kind = Vec::new();
    s.nodes.detachedness = Vec::new();
    s.nodes.trace_node_id = Vec::new();
    SPILLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Spilled { file, lens })
}

impl Spilled {
    /// Reads the columns back into `s`.
    pub(crate) fn restore(mut self, s: &mut HeapSnapshot) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        let mut input = BufReader::with_capacity(CHUNK, &mut self.file);
        let [edge_names, edge_kinds, names, ids, kinds, detachedness, trace_ids] = self.lens;
        s.edges.name_or_index = read_u32s(&mut input, edge_names)?;
        s.edges.kind = read_u8s(&mut input, edge_kinds)?;
        s.nodes.name = read_u32s(&mut input, names)?;
        s.nodes.id = read_u32s(&mut input, ids)?;
        s.nodes.kind = read_u8s(&mut input, kinds)?;
        s.nodes.detachedness = read_u8s(&mut input, detachedness)?;
        s.nodes.trace_node_id = read_u32s(&mut input, trace_ids)?;
        Ok(())
    }
}
