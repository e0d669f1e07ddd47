//! The index file's bytes: a header, then the analysed snapshot's arrays as sections.
//!
//! ```text
//! header   magic "JSPHEAPX" · format version u32 · header length u32 · engine (u32 length +
//!          bytes) · key: canonical path (u32 length + bytes), size u64, mtime seconds i64 and
//!          nanoseconds u32, device u64, inode u64, ctime seconds i64 and nanoseconds u32,
//!          SHA-256 of the first and last MiB · section count u32 · per section:
//!          tag u32, element size u32, element count u64, CRC-32 u32 · CRC-32 of all the above u32
//! sections in the order of `SECTIONS`, each padded with zeros to a multiple of 8 bytes
//! ```
//!
//! The header's key and the misc and overview sections are records and lists, each described once
//! by its fields (`wire!`, `misc!`; the encoding is [`super::wire`]'s), from which both the
//! encoder and the decoder are derived; the other sections are columns of the engine's tables,
//! listed once (`columns!`, which gives `SECTIONS` and the writer's and the reader's walks) and
//! written and read as their little-endian bytes.
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
pub(crate) const FORMAT_VERSION: u32 = 4;

include!(concat!(env!("OUT_DIR"), "/engine.rs"));

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

/// A fixed-size little-endian element of a section.
///
/// # Safety
///
/// Only for types with no padding for which every bit pattern is a valid value (the integers,
/// and [`NodeOrdinal`], a `#[repr(transparent)]` `u32`): [`Scalar::bytes`] and
/// [`Scalar::bytes_mut`] view their values' memory as bytes.
unsafe trait Scalar: Wire + Copy {
    const SIZE: usize;
    const ZERO: Self;
    fn read_le(bytes: &[u8]) -> Self;

    /// The values' bytes as they lie in memory: the section's bytes on a little-endian machine.
    fn bytes(values: &[Self]) -> &[u8] {
        // SAFETY: the type has no padding (the trait's contract) and a byte's alignment is 1;
        // the slice covers exactly the values' memory, borrowed for as long as they are.
        unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        }
    }

    fn bytes_mut(values: &mut [Self]) -> &mut [u8] {
        // SAFETY: as in `bytes`; and every bit pattern is a valid value (the trait's contract),
        // so any bytes written through the slice leave valid values.
        unsafe {
            std::slice::from_raw_parts_mut(
                values.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(values),
            )
        }
    }
}

/// Sections hold little-endian values: on such a machine a column is written and read as its
/// bytes in memory, with no copy through a buffer and no decoding.
const LITTLE_ENDIAN: bool = cfg!(target_endian = "little");

macro_rules! scalar {
    ($($t:ty),*) => {$(
        // SAFETY: an integer has no padding, and every bit pattern is one.
        unsafe impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ZERO: $t = 0;
            #[inline]
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("chunks_exact gives SIZE bytes"))
            }
        }
    )*};
}
scalar!(u8, u32, u64, i32, i64);

/// A column of node ordinals (the dominators) is its raw `u32`s; the loader checks each against
/// the node table (`invariants::check_tables_aside`) before anything uses it.
// SAFETY: `NodeOrdinal` is `#[repr(transparent)]` over a `u32`: no padding, and every bit
// pattern is a value (whether it names a node is checked after loading).
unsafe impl Scalar for NodeOrdinal {
    const SIZE: usize = <u32 as Scalar>::SIZE;
    const ZERO: NodeOrdinal = NodeOrdinal::new(0);
    #[inline]
    fn read_le(bytes: &[u8]) -> Self {
        NodeOrdinal::new(<u32 as Scalar>::read_le(bytes))
    }
}

/// One section to write: a column, or the small tables encoded by [`encode_misc`].
enum Column<'a> {
    U8(&'a [u8]),
    U32(&'a [u32]),
    Nodes(&'a [NodeOrdinal]),
    U64(&'a [u64]),
    I32(&'a [i32]),
    /// An edge column still set aside on disk ([`SpilledEdges`]): its element count, and whether
    /// it is the types (else the names).
    Aside(usize, bool),
}

impl Column<'_> {
    fn count(&self) -> usize {
        match self {
            Column::U8(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Nodes(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::Aside(count, _) => *count,
        }
    }
}

macro_rules! column_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl<'a> From<&'a [$t]> for Column<'a> {
            fn from(values: &'a [$t]) -> Column<'a> {
                Column::$variant(values)
            }
        }
    )*};
}
column_from!(u8 => U8, u32 => U32, NodeOrdinal => Nodes, u64 => U64, i32 => I32);

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
        locations: &s.locations,
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
    let mut columns = vec![Column::U8(&misc)];
    columns.extend(column_sections(&s.nodes, &s.edges, &s.strings, a));
    columns.push(Column::U8(&overview));
    if let Some((names, kinds)) = edges_aside.as_ref().map(|aside| aside.lens()) {
        columns[section("edge kind")] = Column::Aside(kinds, true);
        columns[section("edge name")] = Column::Aside(names, false);
    }
    let mut crcs = [0u32; SECTIONS.len()];
    let header_len = encode_header(key, &columns, &crcs).len() as u64;
    let total = header_len
        + (columns.iter().zip(SECTIONS))
            .map(|(c, &(_, size))| padded(c.count() as u64 * size as u64))
            .sum::<u64>();
    if total > max_len {
        return Err(io::Error::other(format!(
            "its {total} bytes would pass JSPROF_CACHE_MAX_BYTES ({max_len})"
        )));
    }
    // The header goes last, once the checksums are known: until then the file starts with
    // zeros, which no reader takes for an index.
    w.write_all(&vec![0; header_len as usize])?;
    let mut written = header_len;
    let mut buf = Vec::with_capacity(CHUNK);
    for (i, column) in columns.iter().enumerate() {
        let mut hasher = crc32fast::Hasher::new();
        let mut emit = |bytes: &[u8], w: &mut W| -> io::Result<()> {
            hasher.update(bytes);
            w.write_all(bytes)?;
            written += bytes.len() as u64;
            progress(written, total);
            Ok(())
        };
        fn put_all<T: Scalar, W>(
            values: &[T],
            buf: &mut Vec<u8>,
            w: &mut W,
            emit: &mut dyn FnMut(&[u8], &mut W) -> io::Result<()>,
        ) -> io::Result<()> {
            if LITTLE_ENDIAN {
                for chunk in T::bytes(values).chunks(CHUNK) {
                    emit(chunk, w)?;
                }
                return Ok(());
            }
            for chunk in values.chunks(CHUNK / T::SIZE) {
                buf.clear();
                for &v in chunk {
                    v.put(buf);
                }
                emit(buf, w)?;
            }
            Ok(())
        }
        match column {
            Column::U8(v) => put_all(v, &mut buf, w, &mut emit)?,
            Column::U32(v) => put_all(v, &mut buf, w, &mut emit)?,
            Column::Nodes(v) => put_all(v, &mut buf, w, &mut emit)?,
            Column::U64(v) => put_all(v, &mut buf, w, &mut emit)?,
            Column::I32(v) => put_all(v, &mut buf, w, &mut emit)?,
            Column::Aside(_, kinds) => {
                let aside = edges_aside
                    .as_deref_mut()
                    .expect("an aside column comes with the file it is in");
                // The scratch file holds them as the section does (little-endian).
                aside.copy(*kinds, &mut |bytes| emit(bytes, w))?;
            }
        }
        crcs[i] = hasher.finalize();
        let bytes = column.count() as u64 * SECTIONS[i].1 as u64;
        let pad = (padded(bytes) - bytes) as usize;
        w.write_all(&[0u8; 8][..pad])?;
        written += pad as u64;
    }
    w.seek(SeekFrom::Start(0))?;
    w.write_all(&encode_header(key, &columns, &crcs))?;
    w.flush()?;
    Ok(total)
}

fn encode_header(key: &Key, columns: &[Column<'_>], crcs: &[u32]) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&MAGIC);
    FORMAT_VERSION.put(&mut h);
    0u32.put(&mut h); // the header's length, filled in below
    put_bytes(&mut h, ENGINE.as_bytes());
    key.put(&mut h);
    (columns.len() as u32).put(&mut h);
    for (i, (column, &crc)) in columns.iter().zip(crcs).enumerate() {
        (i as u32).put(&mut h);
        SECTIONS[i].1.put(&mut h);
        (column.count() as u64).put(&mut h);
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
    let version = u32::read_le(&start[8..12]);
    if version != FORMAT_VERSION {
        return Err(Reject::Stale(format!(
            "format version {version}, this jsprof reads {FORMAT_VERSION}"
        )));
    }
    let header_len = u32::read_le(&start[12..16]);
    if header_len > MAX_HEADER || header_len as u64 > file_len || header_len < 20 {
        return corrupt(format!(
            "a header of {header_len} bytes in a file of {file_len}"
        ));
    }
    let mut header = start.to_vec();
    header.resize(header_len as usize, 0);
    r.read_exact(&mut header[16..])?;
    let (body, stored_crc) = header.split_at(header.len() - 4);
    if crc32fast::hash(body) != u32::read_le(stored_crc) {
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
        let (count, crc) = (u64::get(&mut d)?, u32::get(&mut d)?);
        if tag != i as u32 || elem != size {
            return corrupt(format!("section {i} ({name}) is described wrongly"));
        }
        let bytes = count
            .checked_mul(size as u64)
            .filter(|&b| b <= file_len)
            .ok_or_else(|| {
                Reject::Corrupt(format!(
                    "section {name} claims {count} elements, more than the file holds"
                ))
            })?;
        expected_len = expected_len.saturating_add(padded(bytes));
        sections.push((count as usize, crc));
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
    let (count, crc) = layout.sections[OVERVIEW];
    r.seek(SeekFrom::Start(layout.offset(OVERVIEW)))?;
    // `count` was checked against the file's length (the section's bytes exist).
    let mut bytes = vec![0; count];
    r.read_exact(&mut bytes)?;
    if crc32fast::hash(&bytes) != crc {
        return corrupt("the checksum of section overview does not match");
    }
    let node_count = layout.sections[3].0;
    decode_overview(&bytes, layout.offset(OVERVIEW) as usize, node_count)
}

/// Where an index's sections lie, from its checked header.
pub(crate) struct Layout {
    header_len: u64,
    /// Per section: element count and CRC-32.
    sections: Vec<(usize, u32)>,
}

impl Layout {
    /// Section `i`'s offset in the file: the header, then the padded sections before it.
    fn offset(&self, i: usize) -> u64 {
        let before = (self.sections[..i].iter().zip(SECTIONS))
            .map(|(&(count, _), &(_, size))| padded(count as u64 * size as u64))
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
        buf: vec![0; CHUNK],
        next: 0,
        table,
    };
    let misc = reader.column::<u8>()?;
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
        locations: misc.locations,
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
        .last_section()
        .ok()
        .and_then(|(at, bytes)| decode_overview(&bytes, at as usize, snapshot.nodes.len()).ok());
    Ok((snapshot, analysis, overview))
}

/// Reads the sections in order, checking each one's checksum.
struct SectionReader<'a, R> {
    r: &'a mut R,
    read: u64,
    total: u64,
    progress: &'a mut dyn FnMut(u64, u64),
    buf: Vec<u8>,
    next: usize,
    table: Vec<(usize, u32)>,
}

impl<R: Read> SectionReader<'_, R> {
    /// The next section's bytes (the overview, last) and its offset, its checksum checked.
    fn last_section(&mut self) -> Result<(u64, Vec<u8>), Reject> {
        let at = self.read;
        let i = self.next;
        let (count, crc) = *self
            .table
            .get(i)
            .ok_or_else(|| Reject::Corrupt("no overview".into()))?;
        self.next += 1;
        // `count` was checked against the file's length (the section's bytes exist).
        let mut bytes = vec![0; count];
        self.r.read_exact(&mut bytes)?;
        self.read += count as u64;
        if crc32fast::hash(&bytes) != crc {
            return corrupt("the checksum of section overview does not match");
        }
        Ok((at, bytes))
    }

    fn column<T: Scalar>(&mut self) -> Result<Vec<T>, Reject> {
        let i = self.next;
        self.next += 1;
        let (count, crc) = self.table[i];
        // `count × size` was checked against the file's length, so this allocation is bounded by
        // bytes that exist.
        let mut hasher = crc32fast::Hasher::new();
        let values = if LITTLE_ENDIAN {
            // Read straight into the column: zeroed pages the kernel maps on first touch, no
            // buffer between, nothing to decode.
            let mut values = vec![T::ZERO; count];
            for chunk in T::bytes_mut(&mut values).chunks_mut(CHUNK) {
                self.r.read_exact(chunk)?;
                hasher.update(chunk);
                self.read += chunk.len() as u64;
                (self.progress)(self.read, self.total);
            }
            values
        } else {
            let mut values = Vec::with_capacity(count);
            let mut left = count * T::SIZE;
            while left > 0 {
                let n = left.min(self.buf.len());
                let chunk = &mut self.buf[..n];
                self.r.read_exact(chunk)?;
                hasher.update(chunk);
                values.extend(chunk.chunks_exact(T::SIZE).map(T::read_le));
                left -= n;
                self.read += n as u64;
                (self.progress)(self.read, self.total);
            }
            values
        };
        let bytes = (count * T::SIZE) as u64;
        let pad = (padded(bytes) - bytes) as usize;
        self.r.read_exact(&mut self.buf[..pad])?;
        self.read += pad as u64;
        if hasher.finalize() != crc {
            return corrupt(format!(
                "the checksum of section {} does not match",
                SECTIONS[i].0
            ));
        }
        Ok(values)
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
            $($(($tag, <$t as Scalar>::SIZE as u32),)*)*
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

        /// Reads the column sections, in file order, into the tables.
        fn read_column_sections<R: Read>(
            reader: &mut SectionReader<'_, R>,
            $($table: &mut $ty),*
        ) -> Result<(), Reject> {
            $($($table.$field = reader.column::<$t>()?;)*)*
            Ok(())
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
    locations: Vec<Location>,
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
    for &(_, size) in SECTIONS {
        // Each entry: tag u32, element size u32, count u64, CRC-32 u32.
        let Some(fields) = bytes.get(entry..entry + 20) else {
            return;
        };
        let count = u64::read_le(&fields[8..16]);
        let Some((len, padded_len)) = count
            .checked_mul(size as u64)
            .and_then(|len| Some((len, len.checked_next_multiple_of(8)?)))
        else {
            return;
        };
        let end = at.saturating_add(len).min(bytes.len() as u64);
        let crc = crc32fast::hash(&bytes[(at.min(end)) as usize..end as usize]);
        bytes[entry + 16..entry + 20].copy_from_slice(&crc.to_le_bytes());
        at = at.saturating_add(padded_len);
        entry += 20;
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
    let header_len = u32::read_le(bytes.get(12..16)?) as usize;
    if header_len < 20 || header_len > bytes.len() {
        return None;
    }
    Some((Dec::new(&bytes[16..header_len - 4], 16), header_len))
}
