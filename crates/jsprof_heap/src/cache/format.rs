//! The index file's bytes: a header, then the analysed snapshot's arrays as sections.
//!
//! ```text
//! header   magic "JSPHEAPX" · format version u32 · header length u32 · engine (u32 length +
//!          bytes) · key: canonical path (u32 length + bytes), size u64, mtime seconds i64 and
//!          nanoseconds u32, device u64, inode u64, ctime seconds i64 and nanoseconds u32,
//!          SHA-256 of the first and last MiB · section count u32 · per section:
//!          tag u32, element size u32, element count u64, length in bytes u64, CRC-32 u32 ·
//!          CRC-32 of all the above u32
//! sections in the order of `SECTIONS`, each padded with zeros to a multiple of 8 bytes
//! ```
//!
//! The header's key and the misc and overview sections are records and lists, each described once
//! by its fields (`wire!`, `misc!`; the encoding is [`super::wire`]'s), from which both the
//! encoder and the decoder are derived; the other sections are columns of the engine's tables
//! and of the locations, listed once (`columns!`, which gives `SECTIONS` and the writer's and
//! the reader's walks), each packed in the fewest bits that hold it ([`super::packed`]). A
//! column's element count is its values'; the misc and overview sections count their bytes.
//!
//! The last section, the overview, holds what `heap summary` and `heap stats` print
//! ([`Overview`]); [`read_overview`] reads the header and that section alone, its offset the sum of
//! the padded lengths before it, so those commands never load the graph's columns.
//!
//! Everything is little-endian. A reader trusts nothing it has not checked: the header's length
//! and every section's length are checked against the file's size before anything is allocated,
//! the file must be exactly as long as the header says, every section's CRC-32 is checked as it is
//! read, and the decoded tables are checked for the invariants the engine indexes by (edge targets,
//! string indices, dominators within the node table), so a damaged or forged index is refused,
//! never a panic.

use std::io::{self, Read, Seek, SeekFrom, Write};

use super::column::{Column, LocationField, Stored};
use super::packed::{unpack, Packable, Packer};
pub(crate) use super::wire::Reject;
use super::wire::{corrupt, put_bytes, wire, Dec, Item, Wire};

use crate::analysis::Analysis;
use crate::classes::InterfaceDefinition;
use crate::overview::Overview;
use crate::scripts::Script;
use crate::snapshot::{
    Edges, HeapSnapshot, Location, Meta, NodeOrdinal, Nodes, Sample, TraceFunctionInfo, TraceNode,
    Warning,
};
use crate::spill::SpilledEdges;
use crate::statistics::Statistics;
use crate::strings::Strings;
use crate::summary::ClassRow;

pub(crate) const MAGIC: [u8; 8] = *b"JSPHEAPX";
/// Bumped when the layout below changes (the engine fingerprint catches changes of the analysis).
pub(crate) const FORMAT_VERSION: u32 = 5;

include!(concat!(env!("OUT_DIR"), "/engine.rs"));

/// The bytes of a section's entry in the header.
pub(crate) const ENTRY: usize = 28;

/// The largest header accepted: a path is at most a few KB.
const MAX_HEADER: u32 = 1 << 20;
/// Sections are read and written through a buffer this size (a multiple of every element size).
const CHUNK: usize = 1 << 20;

/// What an index is valid for: the snapshot file as it was when the index was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub path: Vec<u8>,
    pub size: u64,
    pub mtime_secs: i64,
    pub mtime_nanos: u32,
    /// The file's identity and its change time: what a user cannot set back. Rewriting the
    /// middle of a snapshot and restoring its size and mtime (`touch -d`, `utimes`) still moves
    /// its ctime; replacing it by another file changes its inode. Zero where the system has none.
    pub dev: u64,
    pub ino: u64,
    pub ctime_secs: i64,
    pub ctime_nanos: u32,
    /// SHA-256 of the file's first and last MiB (the whole file when it is smaller than 2 MiB).
    pub content: [u8; 32],
}

/// The overview's place in [`SECTIONS`].
const OVERVIEW: usize = SECTIONS.len() - 1;

/// A little-endian integer of the header's fields.
pub(super) fn le32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
}

fn padded(bytes: u64) -> u64 {
    bytes.next_multiple_of(8)
}

/// Writes the index of `s` and `a` for `key`, with `overview` (what [`Overview::of`] gave for
/// them), and returns its length. `progress` gets (bytes written, total). With `edges_aside`,
/// the edge names and types are copied from there (`s` holds none).
/// Refuses, before writing anything, an index longer than `max_len`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_index<W: Write + Seek>(
    w: &mut W,
    key: &Key,
    s: &HeapSnapshot,
    a: &Analysis,
    overview: &Overview,
    mut edges_aside: Option<&mut SpilledEdges>,
    max_len: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> io::Result<u64> {
    // `column_sections` and `misc!` name every field of the engine's types, so a field added to
    // them fails to compile until the index stores it here too (a cached answer missing a field
    // would differ from a fresh one).
    let misc = encode_misc(&Misc {
        meta: &s.meta,
        samples: &s.samples,
        trace_function_infos: &s.trace_function_infos,
        trace_tree: &s.trace_tree,
        root: &s.root,
        extra_native_bytes: &s.extra_native_bytes,
        header_trace_function_count: &s.header_trace_function_count,
        warnings: &s.warnings,
        total_size: &a.total_size,
        statistics: &a.statistics,
        interfaces: &a.interfaces,
        scripts: &a.scripts,
    });
    let overview = encode_overview(overview);
    let mut columns = vec![Column::Bytes(&misc)];
    columns.extend(column_sections(&s.nodes, &s.edges, &s.strings, a));
    columns.extend(
        [
            LocationField::Node,
            LocationField::Script,
            LocationField::Line,
            LocationField::Column,
        ]
        .map(|field| Column::Locations(&s.locations, field)),
    );
    columns.push(Column::Bytes(&overview));
    if edges_aside.is_some() {
        columns[section("edge kind")] = Column::Aside(true);
        columns[section("edge name")] = Column::Aside(false);
    }
    // The first pass: each column's census, which gives its layout and so every length. The
    // columns in memory are shared with a second thread (they are only read); the ones aside are
    // read from their file here.
    // (A small index's census is one thread's: a thread costs more than it would save.)
    let parallel = s.nodes.len() >= PARALLEL_NODES;
    let theirs: Vec<usize> = (0..columns.len())
        .filter(|&i| parallel && !matches!(columns[i], Column::Aside(_)))
        .skip(1)
        .step_by(2)
        .collect();
    let mut stored = vec![Stored::Bytes(0); columns.len()];
    std::thread::scope(|scope| -> io::Result<()> {
        let worker = (!theirs.is_empty()).then(|| {
            scope.spawn(|| {
                (theirs.iter())
                    .map(|&i| Ok((i, Stored::of(&columns[i], None)?)))
                    .collect::<io::Result<Vec<_>>>()
            })
        });
        for (i, column) in columns.iter().enumerate() {
            if !theirs.contains(&i) {
                stored[i] = Stored::of(column, edges_aside.as_deref_mut())?;
            }
        }
        if let Some(worker) = worker {
            for (i, how) in worker.join().expect("the census thread does not panic")? {
                stored[i] = how;
            }
        }
        Ok(())
    })?;
    let mut crcs = [0u32; SECTIONS.len()];
    let header_len = encode_header(key, &stored, &crcs).len() as u64;
    let total = header_len + stored.iter().map(|s| padded(s.len())).sum::<u64>();
    if total > max_len {
        return Err(io::Error::other(format!(
            "its {total} bytes would pass JSPROF_CACHE_MAX_BYTES ({max_len})"
        )));
    }
    // The header goes last, once the checksums are known: until then the file starts with
    // zeros, which no reader takes for an index.
    w.write_all(&vec![0; header_len as usize])?;
    let mut written = header_len;
    for (i, (column, how)) in columns.iter().zip(&stored).enumerate() {
        let mut hasher = crc32fast::Hasher::new();
        let mut emit = |bytes: &[u8]| -> io::Result<()> {
            hasher.update(bytes);
            w.write_all(bytes)?;
            written += bytes.len() as u64;
            progress(written, total);
            Ok(())
        };
        match (column, how) {
            (Column::Bytes(bytes), _) => {
                for chunk in bytes.chunks(CHUNK) {
                    emit(chunk)?;
                }
            }
            (column, &Stored::Packed(plan)) => {
                let mut packer = Packer::new(plan, column.bits());
                column.each(edges_aside.as_deref_mut(), |values| {
                    packer.push(values);
                    if packer.out.len() >= CHUNK {
                        emit(&packer.out)?;
                        packer.out.clear();
                    }
                    Ok(())
                })?;
                packer.finish()?;
                emit(&packer.out)?;
            }
            (_, Stored::Bytes(_)) => unreachable!("only bytes are stored as bytes"),
        }
        crcs[i] = hasher.finalize();
        let len = how.len();
        let pad = (padded(len) - len) as usize;
        w.write_all(&[0u8; 8][..pad])?;
        written += pad as u64;
    }
    w.seek(SeekFrom::Start(0))?;
    w.write_all(&encode_header(key, &stored, &crcs))?;
    w.flush()?;
    Ok(total)
}

fn encode_header(key: &Key, stored: &[Stored], crcs: &[u32]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&MAGIC);
    FORMAT_VERSION.put(&mut h);
    0u32.put(&mut h); // the header's length, filled in below
    put_bytes(&mut h, ENGINE.as_bytes());
    key.put(&mut h);
    (stored.len() as u32).put(&mut h);
    for (i, (how, &crc)) in stored.iter().zip(crcs).enumerate() {
        (i as u32).put(&mut h);
        SECTIONS[i].1.put(&mut h);
        how.count().put(&mut h);
        how.len().put(&mut h);
        crc.put(&mut h);
    }
    let len = (h.len() + 4) as u32;
    h[12..16].copy_from_slice(&len.to_le_bytes());
    crc32fast::hash(&h).put(&mut h);
    h
}

/// Reads and checks an index's header: its version, its engine, its key (made for `key`), and
/// that its sections' lengths add up to `file_len`, so that every section's bytes exist.
fn read_layout<R: Read>(r: &mut R, file_len: u64, key: &Key) -> Result<Layout, Reject> {
    let mut start = [0u8; 16];
    if file_len < start.len() as u64 {
        return corrupt(format!("{file_len} bytes is shorter than a header"));
    }
    r.read_exact(&mut start)?;
    if start[..8] != MAGIC {
        return corrupt("it does not start with the index's magic bytes");
    }
    let version = le32(&start[8..12]);
    if version != FORMAT_VERSION {
        return Err(Reject::Stale(format!(
            "format version {version}, this jsprof reads {FORMAT_VERSION}"
        )));
    }
    let header_len = le32(&start[12..16]);
    if header_len > MAX_HEADER || header_len as u64 > file_len || header_len < 20 {
        return corrupt(format!(
            "a header of {header_len} bytes in a file of {file_len}"
        ));
    }
    let mut header = start.to_vec();
    header.resize(header_len as usize, 0);
    r.read_exact(&mut header[16..])?;
    let (body, stored_crc) = header.split_at(header.len() - 4);
    if crc32fast::hash(body) != le32(stored_crc) {
        return corrupt("the header's checksum does not match");
    }
    let mut d = Dec::new(&body[16..], 16);
    let engine = d.bytes()?;
    if engine != ENGINE.as_bytes() {
        return Err(Reject::Stale(format!(
            "made by jsprof {}, this is {ENGINE}",
            String::from_utf8_lossy(engine)
        )));
    }
    let found = Key::get(&mut d)?;
    if found.path != key.path {
        return Err(Reject::Stale("it was made for another file".into()));
    }
    if found.size != key.size {
        return Err(Reject::Stale(format!(
            "the snapshot is {} bytes now, {} when indexed",
            key.size, found.size
        )));
    }
    if (found.mtime_secs, found.mtime_nanos) != (key.mtime_secs, key.mtime_nanos) {
        return Err(Reject::Stale(
            "the snapshot was modified since it was indexed".into(),
        ));
    }
    if found.content != key.content {
        return Err(Reject::Stale(
            "the snapshot's content changed since it was indexed".into(),
        ));
    }
    // What the user cannot set back: a middle rewritten under the same size and mtime.
    if (found.dev, found.ino) != (key.dev, key.ino) {
        return Err(Reject::Stale(
            "the snapshot was replaced by another file since it was indexed".into(),
        ));
    }
    if (found.ctime_secs, found.ctime_nanos) != (key.ctime_secs, key.ctime_nanos) {
        return Err(Reject::Stale(
            "the snapshot was changed since it was indexed (its change time moved)".into(),
        ));
    }
    let sections = u32::get(&mut d)? as usize;
    if sections != SECTIONS.len() {
        return corrupt(format!("{sections} sections, expected {}", SECTIONS.len()));
    }
    let mut sections = Vec::with_capacity(SECTIONS.len());
    let mut expected_len = header_len as u64;
    for (i, &(name, size)) in SECTIONS.iter().enumerate() {
        let (tag, elem) = (u32::get(&mut d)?, u32::get(&mut d)?);
        let (count, len, crc) = (u64::get(&mut d)?, u64::get(&mut d)?, u32::get(&mut d)?);
        if tag != i as u32 || elem != size {
            return corrupt(format!("section {i} ({name}) is described wrongly"));
        }
        if len > file_len {
            return corrupt(format!(
                "section {name} claims {len} bytes, more than the file holds"
            ));
        }
        // A section of bytes counts its bytes; a column's count is checked against its bytes
        // when it is unpacked, before anything is allocated for it.
        if ((i == 0 || i == OVERVIEW) && count != len) || count > usize::MAX as u64 {
            return corrupt(format!(
                "section {name} claims {count} elements in {len} bytes"
            ));
        }
        expected_len = expected_len.saturating_add(padded(len));
        sections.push(Section {
            count: count as usize,
            len: len as usize,
            crc,
        });
    }
    if expected_len != file_len {
        return corrupt(format!(
            "the header describes {expected_len} bytes, the file holds {file_len} (truncated?)"
        ));
    }
    Ok(Layout {
        header_len: header_len as u64,
        sections,
    })
}

/// Reads only the overview of an index of `file_len` bytes made for `key`: the header, then a
/// seek to the last section, its checksum checked.
pub(crate) fn read_overview<R: Read + Seek>(
    r: &mut R,
    file_len: u64,
    key: &Key,
) -> Result<Overview, Reject> {
    let layout = read_layout(r, file_len, key)?;
    let Section { len, crc, .. } = layout.sections[OVERVIEW];
    r.seek(SeekFrom::Start(layout.offset(OVERVIEW)))?;
    // `len` was checked against the file's length (the section's bytes exist).
    let mut bytes = vec![0; len];
    r.read_exact(&mut bytes)?;
    if crc32fast::hash(&bytes) != crc {
        return corrupt("the checksum of section overview does not match");
    }
    let node_count = layout.sections[section("node kind")].count;
    decode_overview(&bytes, layout.offset(OVERVIEW) as usize, node_count)
}

/// A section as the header describes it.
#[derive(Clone, Copy)]
struct Section {
    /// Its elements: its bytes, or a column's values.
    count: usize,
    /// Its length in bytes (before the padding).
    len: usize,
    crc: u32,
}

/// Where an index's sections lie, from its checked header.
pub(crate) struct Layout {
    header_len: u64,
    sections: Vec<Section>,
}

impl Layout {
    /// Section `i`'s offset in the file: the header, then the padded sections before it.
    fn offset(&self, i: usize) -> u64 {
        let before = (self.sections[..i].iter())
            .map(|s| padded(s.len as u64))
            .sum::<u64>();
        self.header_len + before
    }
}

/// Reads an index of `file_len` bytes made for `key`, and its overview when that section is
/// sound (`None` otherwise: the graph's commands do not need it, and a damaged overview does not
/// make the graph unusable). `progress` gets (bytes read, total).
pub(crate) fn read_index<R: Read>(
    r: &mut R,
    file_len: u64,
    key: &Key,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(HeapSnapshot, Analysis, Option<Overview>), Reject> {
    let Layout {
        header_len,
        sections: table,
    } = read_layout(r, file_len, key)?;
    let mut reader = SectionReader {
        r,
        read: header_len,
        total: file_len,
        progress,
        next: 0,
        table,
        at: header_len,
    };
    let misc = reader.bytes()?;
    let misc = decode_misc(&misc)?;
    let (mut nodes, mut edges, mut strings) = (Nodes::default(), Edges::default(), Strings::new());
    let mut columns = Analysis::default();
    read_column_sections(
        &mut reader,
        &mut nodes,
        &mut edges,
        &mut strings,
        &mut columns,
    )?;
    let locations = read_locations(&mut reader)?;
    let analysis = Analysis {
        total_size: misc.total_size,
        statistics: misc.statistics,
        interfaces: misc.interfaces,
        scripts: misc.scripts,
        ..columns
    };
    check_strings(&strings.bytes, &strings.ends)?;
    let snapshot = HeapSnapshot {
        meta: misc.meta,
        nodes,
        edges,
        strings,
        locations,
        samples: misc.samples,
        trace_function_infos: misc.trace_function_infos,
        trace_tree: misc.trace_tree,
        root: misc.root,
        extra_native_bytes: misc.extra_native_bytes,
        header_trace_function_count: misc.header_trace_function_count,
        warnings: misc.warnings,
    };
    super::invariants::check_tables(&snapshot, &analysis)?;
    let overview = reader
        .bytes()
        .ok()
        .and_then(|bytes| decode_overview(&bytes, reader.at as usize, snapshot.nodes.len()).ok());
    Ok((snapshot, analysis, overview))
}

/// Graphs smaller than this have their index's census taken on one thread, and their tables
/// checked on one (`invariants`): a thread costs more than it would save, and a test or fuzz input
/// of a few nodes starts none (libFuzzer's leak check can catch a finished thread's last bytes
/// not yet freed).
/// (The unit tests take the threads' paths with their small fixtures.)
#[cfg(not(test))]
pub(crate) const PARALLEL_NODES: usize = 1 << 16;
#[cfg(test)]
pub(crate) const PARALLEL_NODES: usize = 16;

/// Sections smaller than this are unpacked on the reading thread: a thread costs more than they
/// take (and a test or fuzz input of a few nodes starts none).
#[cfg(not(test))]
const PARALLEL_BYTES: usize = 1 << 20;
#[cfg(test)]
const PARALLEL_BYTES: usize = 64;

/// A column read: unpacked, or being unpacked on a thread.
enum Unpacked<'scope, T> {
    Ready(Result<Vec<T>, Reject>),
    Unpacking(std::thread::ScopedJoinHandle<'scope, Result<Vec<T>, Reject>>),
}

impl<T> Unpacked<'_, T> {
    fn join(self) -> Result<Vec<T>, Reject> {
        match self {
            Unpacked::Ready(column) => column,
            Unpacked::Unpacking(thread) => thread.join().expect("unpacking does not panic"),
        }
    }
}

/// Columns being unpacked, each on a thread of its own, and what puts each one in its table once
/// unpacked. At most [`Unpacking::AT_ONCE`] are unpacked at once: the packed bytes read ahead
/// stay few, and the two cores this is made for are both busy.
#[derive(Default)]
struct Unpacking<'a> {
    pending: std::collections::VecDeque<Box<dyn FnOnce() -> Result<(), Reject> + 'a>>,
}

impl<'a> Unpacking<'a> {
    const AT_ONCE: usize = 2;

    /// One more column being unpacked; the oldest is put in place first when too many are.
    fn push(&mut self, put: Box<dyn FnOnce() -> Result<(), Reject> + 'a>) -> Result<(), Reject> {
        self.pending.push_back(put);
        if self.pending.len() > Self::AT_ONCE {
            (self.pending.pop_front().expect("one is pending"))()?;
        }
        Ok(())
    }

    fn finish(self) -> Result<(), Reject> {
        self.pending.into_iter().try_for_each(|put| put())
    }
}

/// The locations, from their four columns.
fn read_locations<R: Read>(reader: &mut SectionReader<'_, R>) -> Result<Vec<Location>, Reject> {
    let (mut nodes, mut scripts, mut lines, mut columns) = Default::default();
    std::thread::scope(|scope| {
        let mut unpacking = Unpacking::default();
        let node = reader.spawn_column::<NodeOrdinal>(scope)?;
        unpacking.push(Box::new(|| {
            nodes = node.join()?;
            Ok(())
        }))?;
        for slot in [&mut scripts, &mut lines, &mut columns] {
            let column = reader.spawn_column::<u32>(scope)?;
            unpacking.push(Box::new(move || {
                *slot = column.join()?;
                Ok(())
            }))?;
        }
        unpacking.finish()
    })?;
    let (nodes, scripts, lines, columns): (Vec<NodeOrdinal>, Vec<u32>, Vec<u32>, Vec<u32>) =
        (nodes, scripts, lines, columns);
    let n = nodes.len();
    if scripts.len() != n || lines.len() != n || columns.len() != n {
        return corrupt("the locations' columns disagree on their length");
    }
    Ok((nodes.into_iter().zip(scripts).zip(lines).zip(columns))
        .map(|(((node, script_id), line), column)| Location {
            node,
            script_id,
            line,
            column,
        })
        .collect())
}

/// Reads the sections in order, checking each one's checksum.
struct SectionReader<'a, R> {
    r: &'a mut R,
    read: u64,
    total: u64,
    progress: &'a mut dyn FnMut(u64, u64),
    next: usize,
    table: Vec<Section>,
    /// Where the last section read starts.
    at: u64,
}

impl<R: Read> SectionReader<'_, R> {
    /// The next section's bytes, its checksum checked.
    fn bytes(&mut self) -> Result<Vec<u8>, Reject> {
        let i = self.next;
        let Section { len, crc, .. } = *self
            .table
            .get(i)
            .ok_or_else(|| Reject::Corrupt("it has fewer sections than it should".into()))?;
        self.next += 1;
        self.at = self.read;
        // `len` was checked against the file's length (the section's bytes exist).
        let mut bytes = vec![0; len];
        for chunk in bytes.chunks_mut(CHUNK) {
            self.r.read_exact(chunk)?;
            self.read += chunk.len() as u64;
            (self.progress)(self.read, self.total);
        }
        if crc32fast::hash(&bytes) != crc {
            return corrupt(format!(
                "the checksum of section {} does not match",
                SECTIONS[i].0
            ));
        }
        let pad = (padded(len as u64) - len as u64) as usize;
        self.r.read_exact(&mut [0u8; 8][..pad])?;
        self.read += pad as u64;
        Ok(bytes)
    }

    /// The next section's column, unpacked on a thread of `scope` when it is big enough for a
    /// thread to pay (a small one is unpacked here).
    fn spawn_column<'scope, T: Packable + Send + 'scope>(
        &mut self,
        scope: &'scope std::thread::Scope<'scope, '_>,
    ) -> Result<Unpacked<'scope, T>, Reject> {
        let i = self.next;
        let bytes = self.bytes()?;
        let (count, name) = (self.table[i].count, SECTIONS[i].0);
        Ok(if bytes.len() < PARALLEL_BYTES {
            Unpacked::Ready(unpack(&bytes, count, name))
        } else {
            Unpacked::Unpacking(scope.spawn(move || unpack(&bytes, count, name)))
        })
    }
}

/// The column sections, between misc (first) and the overview (last): each a column of one of
/// the engine's tables, named by its tag and stored as its element type's little-endian bytes.
/// Gives [`SECTIONS`], the writer's [`column_sections`] and the reader's [`read_column_sections`],
/// so the two walk the one list. Each table's other fields are named after `+ misc` (they are in
/// the misc section): the writer destructures every table in full, so a field added to one fails
/// to compile until the index stores it.
macro_rules! columns {
    ($($table:ident: $ty:ident {
        $($field:ident: $t:ty = $tag:literal),* $(,)?
    } $(+ misc { $($other:ident),* })?)*) => {
        /// The sections, in file order: (tag, element size in bytes).
        pub(crate) const SECTIONS: &[(&str, u32)] = &[
            ("misc", 1),
            $($(($tag, <$t as Packable>::BITS / 8),)*)*
            ("location node", 4),
            ("location script", 4),
            ("location line", 4),
            ("location column", 4),
            ("overview", 1),
        ];

        /// The column sections of the tables, in file order.
        fn column_sections<'a>($($table: &'a $ty),*) -> Vec<Column<'a>> {
            let mut columns = Vec::with_capacity(SECTIONS.len());
            $({
                let $ty { $($field,)* $($($other: _,)*)? } = $table;
                $(columns.push(Column::from(&$field[..]));)*
            })*
            columns
        }

        /// Reads the column sections, in file order, into the tables: each one is unpacked on
        /// a thread of its own while the next is read ([`Unpacking`]).
        fn read_column_sections<R: Read>(
            reader: &mut SectionReader<'_, R>,
            $($table: &mut $ty),*
        ) -> Result<(), Reject> {
            std::thread::scope(|scope| {
                let mut unpacking = Unpacking::default();
                $($(
                    let column = reader.spawn_column::<$t>(scope)?;
                    let slot = &mut $table.$field;
                    unpacking.push(Box::new(move || {
                        *slot = column.join()?;
                        Ok(())
                    }))?;
                )*)*
                unpacking.finish()
            })
        }
    };
}

columns! {
    nodes: Nodes {
        kind: u8 = "node kind",
        name: u32 = "node name",
        id: u32 = "node id",
        self_size: u32 = "node self size",
        first_edge: u32 = "node first edge",
        trace_node_id: u32 = "node trace id",
        detachedness: u8 = "node detachedness",
    }
    edges: Edges {
        kind: u8 = "edge kind",
        name_or_index: u32 = "edge name",
        to_node: u32 = "edge target",
    }
    strings: Strings {
        bytes: u8 = "string bytes",
        ends: u64 = "string ends",
    }
    analysis: Analysis {
        idom: NodeOrdinal = "dominator",
        retained: u64 = "retained size",
        distances: i32 = "distance",
        classes: u32 = "class",
        retainer_counts: u32 = "retainer count",
    } + misc { total_size, statistics, interfaces, scripts }
}

/// The place in [`SECTIONS`] of the section tagged `tag`.
fn section(tag: &str) -> usize {
    SECTIONS
        .iter()
        .position(|&(t, _)| t == tag)
        .expect("a section's tag")
}

wire! {
    Key {
        path: Vec<u8>,
        size: u64,
        mtime_secs: i64,
        mtime_nanos: u32,
        dev: u64,
        ino: u64,
        ctime_secs: i64,
        ctime_nanos: u32,
        content: [u8; 32],
    }
    Meta {
        node_fields: Vec<String>,
        node_types: Vec<String>,
        edge_fields: Vec<String>,
        edge_types: Vec<String>,
        location_fields: Vec<String>,
        sample_fields: Vec<String>,
        trace_function_info_fields: Vec<String>,
    }
    Location { node: NodeOrdinal, script_id: u32, line: u32, column: u32 }
    Sample { timestamp_us: u64, last_assigned_id: u64 }
    TraceFunctionInfo {
        function_id: u32,
        name: u32,
        script_name: u32,
        script_id: u32,
        line: u32,
        column: u32,
    }
    TraceNode { id: u32, function_info_index: u32, count: u32, size: u64, parent: u32 }
    Warning { at: String, message: String }
    Statistics {
        total: u64,
        native_total: u64,
        native_typed_arrays: u64,
        v8heap_total: i64,
        code: u64,
        js_arrays: u64,
        strings: u64,
        system: u64,
    }
    InterfaceDefinition { name: Vec<u8>, properties: Vec<Vec<u8>> }
    Script { id: u32, url: String, source: String }
    ClassRow {
        key: String,
        name: String,
        count: u64,
        self_size: u64,
        retained_size: u64,
        distance: i32,
    }
}

/// The misc section: the tables too small or too irregular for columns of their own, in the order
/// they are stored. Gives `Misc` (borrowed, to write), `MiscOwned` (read back) and both codecs.
macro_rules! misc {
    ($($field:ident: $t:ty),* $(,)?) => {
        struct Misc<'a> {
            $($field: &'a $t,)*
        }

        struct MiscOwned {
            $($field: $t,)*
        }

        fn encode_misc(m: &Misc<'_>) -> Vec<u8> {
            let mut o = Vec::new();
            $(m.$field.put(&mut o);)*
            o
        }

        fn decode_misc(bytes: &[u8]) -> Result<MiscOwned, Reject> {
            let mut d = Dec::new(bytes, 0);
            let misc = MiscOwned { $($field: <$t as Wire>::get(&mut d)?,)* };
            if d.rest() != 0 {
                return corrupt("the misc section has bytes left over");
            }
            Ok(misc)
        }
    };
}

misc! {
    meta: Meta,
    samples: Vec<Sample>,
    trace_function_infos: Vec<TraceFunctionInfo>,
    trace_tree: Vec<TraceNode>,
    root: NodeOrdinal,
    extra_native_bytes: Option<u64>,
    header_trace_function_count: u64,
    warnings: Vec<Warning>,
    total_size: u64,
    statistics: Statistics,
    interfaces: Vec<InterfaceDefinition>,
    scripts: Vec<Script>,
}

/// The kinds [`HeapSnapshot::kind`] names, by their code in the overview.
const KINDS: [&str; 2] = ["heapsnapshot", "heaptimeline"];

/// The overview section: the kind's code u8, node count u64, total size u64, the statistics, the
/// warnings, then the Summary's rows (key, name, count, self size, retained size, distance), then
/// the scripts (id, URL, the start of the text).
fn encode_overview(overview: &Overview) -> Vec<u8> {
    // Destructured in full, as in `write_index`: a new field must be stored or fail to compile.
    let Overview {
        kind,
        node_count,
        total_size,
        statistics,
        warnings,
        classes,
        scripts,
    } = overview;
    let mut o = Vec::new();
    // `kind` comes from `HeapSnapshot::kind`, which names one of `KINDS`.
    let code = KINDS.iter().position(|k| k == kind).unwrap_or(0) as u8;
    code.put(&mut o);
    (*node_count as u64).put(&mut o);
    total_size.put(&mut o);
    statistics.put(&mut o);
    warnings.put(&mut o);
    classes.put(&mut o);
    scripts.put(&mut o);
    o
}

/// Decodes the overview section found at byte `base` of an index whose header counts
/// `node_count` nodes.
fn decode_overview(bytes: &[u8], base: usize, node_count: usize) -> Result<Overview, Reject> {
    let mut d = Dec::new(bytes, base);
    let kind = *KINDS
        .get(u8::get(&mut d)? as usize)
        .ok_or_else(|| Reject::Corrupt("the overview names no known kind of snapshot".into()))?;
    let claimed = u64::get(&mut d)?;
    if claimed != node_count as u64 {
        return corrupt(format!(
            "the overview counts {claimed} nodes, the node table {node_count}"
        ));
    }
    let overview = Overview {
        kind,
        node_count,
        total_size: Wire::get(&mut d)?,
        statistics: Wire::get(&mut d)?,
        warnings: Wire::get(&mut d)?,
        classes: Wire::get(&mut d)?,
        scripts: Wire::get(&mut d)?,
    };
    if d.rest() != 0 {
        return corrupt("the overview section has bytes left over");
    }
    Ok(overview)
}

fn check_strings(bytes: &[u8], ends: &[u64]) -> Result<(), Reject> {
    let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
    if !ordered
        || ends
            .last()
            .map_or(!bytes.is_empty(), |&e| e != bytes.len() as u64)
    {
        return corrupt("the string table's ends are out of order");
    }
    Ok(())
}

/// The key an index's header claims, for reading forged bytes (the fuzz target) past the key
/// checks; `None` when the header cannot be walked.
pub(crate) fn claimed_key(bytes: &[u8]) -> Option<Key> {
    let (mut d, _) = header_fields(bytes)?;
    d.bytes().ok()?; // the engine
    Key::get(&mut d).ok()
}

/// Recomputes the checksums of an index's header and sections over its bytes as they are, so
/// that forged content (the fuzz target's) reaches the decoders and the table checks instead of
/// stopping at a checksum. Leaves bytes it cannot walk as they are.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let Some((mut d, header_len)) = header_fields(bytes) else {
        return;
    };
    let walked = (|| -> Result<usize, Reject> {
        d.bytes()?; // the engine
        Key::get(&mut d)?;
        u32::get(&mut d)?; // the section count
        Ok(d.base + d.at)
    })();
    let Ok(mut entry) = walked else { return };
    let mut at = header_len as u64;
    for _ in SECTIONS {
        // Each entry: tag u32, element size u32, count u64, length u64, CRC-32 u32.
        let Some(fields) = bytes.get(entry..entry + ENTRY) else {
            return;
        };
        let len = u64::from_le_bytes(fields[16..24].try_into().expect("8 bytes"));
        let Some(padded_len) = len.checked_next_multiple_of(8) else {
            return;
        };
        let end = at.saturating_add(len).min(bytes.len() as u64);
        let crc = crc32fast::hash(&bytes[(at.min(end)) as usize..end as usize]);
        bytes[entry + 24..entry + ENTRY].copy_from_slice(&crc.to_le_bytes());
        at = at.saturating_add(padded_len);
        entry += ENTRY;
    }
    let crc = crc32fast::hash(&bytes[..header_len - 4]);
    bytes[header_len - 4..header_len].copy_from_slice(&crc.to_le_bytes());
}

/// `bytes` (an index) made for `key` instead of the key it holds, its header's checksum
/// recomputed; `None` when the header cannot be read or the new key is not the old one's length.
pub(crate) fn replace_key(bytes: &mut [u8], key: &Key) -> Option<()> {
    let (start, end) = {
        let (mut d, _) = header_fields(bytes)?;
        d.bytes().ok()?; // the engine
        let start = d.base + d.at;
        Key::get(&mut d).ok()?;
        (start, d.base + d.at)
    };
    let mut encoded = Vec::new();
    key.put(&mut encoded);
    if encoded.len() != end - start {
        return None;
    }
    bytes[start..end].copy_from_slice(&encoded);
    reseal(bytes);
    Some(())
}

/// A reader over the header's fields after its fixed start, and the header's length; `None` when
/// the bytes are too short for the header they announce.
fn header_fields(bytes: &[u8]) -> Option<(Dec<'_>, usize)> {
    let header_len = le32(bytes.get(12..16)?) as usize;
    if header_len < 20 || header_len > bytes.len() {
        return None;
    }
    Some((Dec::new(&bytes[16..header_len - 4], 16), header_len))
}
