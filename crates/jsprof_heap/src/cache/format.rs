//! The index file's bytes: a header, then the analysed snapshot's arrays as sections.
//!
//! ```text
//! header   magic "JSPHEAPX" · format version u32 · header length u32 · engine (u32 length +
//!          bytes) · key: canonical path (u32 length + bytes), size u64, mtime seconds i64 and
//!          nanoseconds u32, SHA-256 of the first and last MiB · section count u32 · per section:
//!          tag u32, element size u32, element count u64, CRC-32 u32 · CRC-32 of all the above u32
//! sections in the order of `SECTIONS`, each padded with zeros to a multiple of 8 bytes
//! ```
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

use crate::analysis::Analysis;
use crate::classes::InterfaceDefinition;
use crate::overview::Overview;
use crate::snapshot::{
    Edges, HeapSnapshot, Location, Meta, Nodes, Sample, TraceFunctionInfo, TraceNode, Warning,
};
use crate::spill::SpilledEdges;
use crate::statistics::Statistics;
use crate::strings::Strings;
use crate::summary::ClassRow;

pub(crate) const MAGIC: [u8; 8] = *b"JSPHEAPX";
/// Bumped when the layout below changes (the engine fingerprint catches changes of the analysis).
pub(crate) const FORMAT_VERSION: u32 = 2;

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
    /// SHA-256 of the file's first and last MiB (the whole file when it is smaller than 2 MiB).
    pub content: [u8; 32],
}

/// Why an index was not used.
#[derive(Debug)]
pub(crate) enum Reject {
    /// Made for another file, another version of it, or another build of jsprof.
    Stale(String),
    /// Truncated, damaged or not an index at all.
    Corrupt(String),
    Io(io::Error),
}

impl From<io::Error> for Reject {
    fn from(e: io::Error) -> Reject {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            Reject::Corrupt("it ends early (truncated)".into())
        } else {
            Reject::Io(e)
        }
    }
}

fn corrupt<T>(message: impl Into<String>) -> Result<T, Reject> {
    Err(Reject::Corrupt(message.into()))
}

/// The sections, in file order: (tag, element size in bytes).
pub(crate) const SECTIONS: [(&str, u32); 19] = [
    ("misc", 1),
    ("node kind", 1),
    ("node name", 4),
    ("node id", 4),
    ("node self size", 4),
    ("node first edge", 4),
    ("node trace id", 4),
    ("node detachedness", 1),
    ("edge kind", 1),
    ("edge name", 4),
    ("edge target", 4),
    ("string bytes", 1),
    ("string ends", 8),
    ("dominator", 4),
    ("retained size", 8),
    ("distance", 4),
    ("class", 4),
    ("retainer count", 4),
    ("overview", 1),
];

/// The overview's place in [`SECTIONS`].
const OVERVIEW: usize = SECTIONS.len() - 1;

/// A fixed-size little-endian element of a section.
trait Scalar: Copy {
    const SIZE: usize;
    const ZERO: Self;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
    /// The values' bytes as they lie in memory: the section's bytes on a little-endian machine.
    fn bytes(values: &[Self]) -> &[u8];
    fn bytes_mut(values: &mut [Self]) -> &mut [u8];
}

/// Sections hold little-endian values: on such a machine a column is written and read as its
/// bytes in memory, with no copy through a buffer and no decoding.
const LITTLE_ENDIAN: bool = cfg!(target_endian = "little");

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ZERO: $t = 0;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("chunks_exact gives SIZE bytes"))
            }
            fn bytes(values: &[Self]) -> &[u8] {
                // SAFETY: an integer has no padding and an alignment of at least a byte's; the
                // slice covers exactly the values' memory, borrowed for as long as they are.
                unsafe {
                    std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
                }
            }
            fn bytes_mut(values: &mut [Self]) -> &mut [u8] {
                // SAFETY: as in `bytes`; and every bit pattern is a valid integer, so any bytes
                // written through the slice leave valid values.
                unsafe {
                    std::slice::from_raw_parts_mut(
                        values.as_mut_ptr().cast::<u8>(),
                        std::mem::size_of_val(values),
                    )
                }
            }
        }
    )*};
}
scalar!(u8, u32, u64, i32);

/// One section to write: a column, or the small tables encoded by [`encode_misc`].
enum Column<'a> {
    U8(&'a [u8]),
    U32(&'a [u32]),
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
            Column::U64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::Aside(count, _) => *count,
        }
    }
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
    // Destructured in full so that a field added to the engine's types fails to compile here
    // until the index stores it (a cached answer missing a field would differ from a fresh one).
    let HeapSnapshot {
        meta,
        nodes,
        edges,
        strings,
        locations,
        samples,
        trace_function_infos,
        trace_tree,
        root,
        extra_native_bytes,
        header_trace_function_count,
        warnings,
    } = s;
    let Nodes {
        kind,
        name,
        id,
        self_size,
        first_edge,
        trace_node_id,
        detachedness,
    } = nodes;
    let Edges {
        kind: edge_kind,
        name_or_index,
        to_node,
    } = edges;
    let Analysis {
        idom,
        retained,
        distances,
        classes,
        retainer_counts,
        total_size,
        statistics,
        interfaces,
    } = a;
    let misc = encode_misc(&Misc {
        meta,
        locations,
        samples,
        trace_function_infos,
        trace_tree,
        root: *root,
        extra_native_bytes: *extra_native_bytes,
        header_trace_function_count: *header_trace_function_count,
        warnings,
        total_size: *total_size,
        statistics,
        interfaces,
    });
    let overview = encode_overview(overview);
    let (string_bytes, string_ends) = strings.parts();
    let columns = [
        Column::U8(&misc),
        Column::U8(kind),
        Column::U32(name),
        Column::U32(id),
        Column::U32(self_size),
        Column::U32(first_edge),
        Column::U32(trace_node_id),
        Column::U8(detachedness),
        match &edges_aside {
            Some(aside) => Column::Aside(aside.lens().1, true),
            None => Column::U8(edge_kind),
        },
        match &edges_aside {
            Some(aside) => Column::Aside(aside.lens().0, false),
            None => Column::U32(name_or_index),
        },
        Column::U32(to_node),
        Column::U8(string_bytes),
        Column::U64(string_ends),
        Column::U32(idom),
        Column::U64(retained),
        Column::I32(distances),
        Column::U32(classes),
        Column::U32(retainer_counts),
        Column::U8(&overview),
    ];
    let mut crcs = [0u32; SECTIONS.len()];
    let header_len = encode_header(key, &columns, &crcs).len() as u64;
    let total = header_len
        + (columns.iter().zip(SECTIONS))
            .map(|(c, (_, size))| padded(c.count() as u64 * size as u64))
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
    put_bytes(&mut h, &key.path);
    key.size.put(&mut h);
    (key.mtime_secs as u64).put(&mut h);
    key.mtime_nanos.put(&mut h);
    h.extend_from_slice(&key.content);
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

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    (bytes.len() as u32).put(out);
    out.extend_from_slice(bytes);
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
    let version = u32::get(&start[8..12]);
    if version != FORMAT_VERSION {
        return Err(Reject::Stale(format!(
            "format version {version}, this jsprof reads {FORMAT_VERSION}"
        )));
    }
    let header_len = u32::get(&start[12..16]);
    if header_len > MAX_HEADER || header_len as u64 > file_len || header_len < 20 {
        return corrupt(format!(
            "a header of {header_len} bytes in a file of {file_len}"
        ));
    }
    let mut header = start.to_vec();
    header.resize(header_len as usize, 0);
    r.read_exact(&mut header[16..])?;
    let (body, stored_crc) = header.split_at(header.len() - 4);
    if crc32fast::hash(body) != u32::get(stored_crc) {
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
    let found = Key {
        path: d.bytes()?.to_vec(),
        size: d.u64()?,
        mtime_secs: d.u64()? as i64,
        mtime_nanos: d.u32()?,
        content: d.take(32)?.try_into().expect("took 32 bytes"),
    };
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
    let sections = d.u32()? as usize;
    if sections != SECTIONS.len() {
        return corrupt(format!("{sections} sections, expected {}", SECTIONS.len()));
    }
    let mut sections = Vec::with_capacity(SECTIONS.len());
    let mut expected_len = header_len as u64;
    for (i, &(name, size)) in SECTIONS.iter().enumerate() {
        let (tag, elem, count, crc) = (d.u32()?, d.u32()?, d.u64()?, d.u32()?);
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
            .map(|(&(count, _), (_, size))| padded(count as u64 * size as u64))
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
    let nodes = Nodes {
        kind: reader.column()?,
        name: reader.column()?,
        id: reader.column()?,
        self_size: reader.column()?,
        first_edge: reader.column()?,
        trace_node_id: reader.column()?,
        detachedness: reader.column()?,
    };
    let edges = Edges {
        kind: reader.column()?,
        name_or_index: reader.column()?,
        to_node: reader.column()?,
    };
    let string_bytes = reader.column()?;
    let string_ends = reader.column()?;
    let analysis = Analysis {
        idom: reader.column()?,
        retained: reader.column()?,
        distances: reader.column()?,
        classes: reader.column()?,
        retainer_counts: reader.column()?,
        total_size: misc.total_size,
        statistics: misc.statistics,
        interfaces: misc.interfaces,
    };
    check_strings(&string_bytes, &string_ends)?;
    let snapshot = HeapSnapshot {
        meta: misc.meta,
        nodes,
        edges,
        strings: Strings::from_parts(string_bytes, string_ends),
        locations: misc.locations,
        samples: misc.samples,
        trace_function_infos: misc.trace_function_infos,
        trace_tree: misc.trace_tree,
        root: misc.root,
        extra_native_bytes: misc.extra_native_bytes,
        header_trace_function_count: misc.header_trace_function_count,
        warnings: misc.warnings,
    };
    check_tables(&snapshot, &analysis)?;
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
                values.extend(chunk.chunks_exact(T::SIZE).map(T::get));
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

/// The tables too small or too irregular for columns of their own.
struct Misc<'a> {
    meta: &'a Meta,
    locations: &'a [Location],
    samples: &'a [Sample],
    trace_function_infos: &'a [TraceFunctionInfo],
    trace_tree: &'a [TraceNode],
    root: u32,
    extra_native_bytes: Option<u64>,
    header_trace_function_count: u64,
    warnings: &'a [Warning],
    total_size: u64,
    statistics: &'a Statistics,
    interfaces: &'a [InterfaceDefinition],
}

struct MiscOwned {
    meta: Meta,
    locations: Vec<Location>,
    samples: Vec<Sample>,
    trace_function_infos: Vec<TraceFunctionInfo>,
    trace_tree: Vec<TraceNode>,
    root: u32,
    extra_native_bytes: Option<u64>,
    header_trace_function_count: u64,
    warnings: Vec<Warning>,
    total_size: u64,
    statistics: Statistics,
    interfaces: Vec<InterfaceDefinition>,
}

fn encode_misc(m: &Misc<'_>) -> Vec<u8> {
    let mut o = Vec::new();
    let Meta {
        node_fields,
        node_types,
        edge_fields,
        edge_types,
        location_fields,
        sample_fields,
        trace_function_info_fields,
    } = m.meta;
    for list in [
        node_fields,
        node_types,
        edge_fields,
        edge_types,
        location_fields,
        sample_fields,
        trace_function_info_fields,
    ] {
        put_list(&mut o, list, |o, s| put_bytes(o, s.as_bytes()));
    }
    // Destructured in full, as in `write_index`: a new field must be stored or fail to compile.
    let location = |o: &mut Vec<u8>, l: &Location| {
        let &Location {
            node,
            script_id,
            line,
            column,
        } = l;
        for v in [node, script_id, line, column] {
            v.put(o);
        }
    };
    put_list(&mut o, m.locations, location);
    put_list(&mut o, m.samples, |o, s| {
        let &Sample {
            timestamp_us,
            last_assigned_id,
        } = s;
        timestamp_us.put(o);
        last_assigned_id.put(o);
    });
    put_list(&mut o, m.trace_function_infos, |o, f| {
        let &TraceFunctionInfo {
            function_id,
            name,
            script_name,
            script_id,
            line,
            column,
        } = f;
        for v in [function_id, name, script_name, script_id, line, column] {
            v.put(o);
        }
    });
    put_list(&mut o, m.trace_tree, |o, t| {
        let &TraceNode {
            id,
            function_info_index,
            count,
            size,
            parent,
        } = t;
        for v in [id, function_info_index, count] {
            v.put(o);
        }
        size.put(o);
        parent.put(o);
    });
    m.root.put(&mut o);
    u8::from(m.extra_native_bytes.is_some()).put(&mut o);
    m.extra_native_bytes.unwrap_or(0).put(&mut o);
    m.header_trace_function_count.put(&mut o);
    put_warnings(&mut o, m.warnings);
    m.total_size.put(&mut o);
    put_statistics(&mut o, m.statistics);
    put_list(
        &mut o,
        m.interfaces,
        |o, InterfaceDefinition { name, properties }| {
            put_bytes(o, name);
            put_list(o, properties, |o, p| put_bytes(o, p));
        },
    );
    o
}

fn put_warnings(o: &mut Vec<u8>, warnings: &[Warning]) {
    put_list(o, warnings, |o, Warning { at, message }| {
        put_bytes(o, at.as_bytes());
        put_bytes(o, message.as_bytes());
    });
}

fn warnings(d: &mut Dec<'_>) -> Result<Vec<Warning>, Reject> {
    d.list(8, |d| {
        Ok(Warning {
            at: d.string()?,
            message: d.string()?,
        })
    })
}

fn put_statistics(o: &mut Vec<u8>, statistics: &Statistics) {
    let &Statistics {
        total,
        native_total,
        native_typed_arrays,
        v8heap_total,
        code,
        js_arrays,
        strings,
        system,
    } = statistics;
    for v in [
        total,
        native_total,
        native_typed_arrays,
        v8heap_total as u64,
        code,
        js_arrays,
        strings,
        system,
    ] {
        v.put(o);
    }
}

fn statistics(d: &mut Dec<'_>) -> Result<Statistics, Reject> {
    Ok(Statistics {
        total: d.u64()?,
        native_total: d.u64()?,
        native_typed_arrays: d.u64()?,
        v8heap_total: d.u64()? as i64,
        code: d.u64()?,
        js_arrays: d.u64()?,
        strings: d.u64()?,
        system: d.u64()?,
    })
}

/// The kinds [`HeapSnapshot::kind`] names, by their code in the overview.
const KINDS: [&str; 2] = ["heapsnapshot", "heaptimeline"];

/// The overview section: the kind's code u8, node count u64, total size u64, the statistics, the
/// warnings, then the Summary's rows (key, name, count, self size, retained size, distance).
fn encode_overview(overview: &Overview) -> Vec<u8> {
    // Destructured in full, as in `write_index`: a new field must be stored or fail to compile.
    let Overview {
        kind,
        node_count,
        total_size,
        statistics,
        warnings,
        classes,
    } = overview;
    let mut o = Vec::new();
    // `kind` comes from `HeapSnapshot::kind`, which names one of `KINDS`.
    let code = KINDS.iter().position(|k| k == kind).unwrap_or(0) as u8;
    code.put(&mut o);
    (*node_count as u64).put(&mut o);
    total_size.put(&mut o);
    put_statistics(&mut o, statistics);
    put_warnings(&mut o, warnings);
    put_list(&mut o, classes, |o, row| {
        let ClassRow {
            key,
            name,
            count,
            self_size,
            retained_size,
            distance,
        } = row;
        put_bytes(o, key.as_bytes());
        put_bytes(o, name.as_bytes());
        for v in [count, self_size, retained_size] {
            v.put(o);
        }
        distance.put(o);
    });
    o
}

/// Decodes the overview section found at byte `base` of an index whose header counts
/// `node_count` nodes.
fn decode_overview(bytes: &[u8], base: usize, node_count: usize) -> Result<Overview, Reject> {
    let mut d = Dec::new(bytes, base);
    let kind = *KINDS
        .get(d.take(1)?[0] as usize)
        .ok_or_else(|| Reject::Corrupt("the overview names no known kind of snapshot".into()))?;
    let claimed = d.u64()?;
    if claimed != node_count as u64 {
        return corrupt(format!(
            "the overview counts {claimed} nodes, the node table {node_count}"
        ));
    }
    let total_size = d.u64()?;
    let statistics = statistics(&mut d)?;
    let warnings = warnings(&mut d)?;
    // Each row: two lengths and four numbers at least.
    let classes = d.list(36, |d| {
        Ok(ClassRow {
            key: d.string()?,
            name: d.string()?,
            count: d.u64()?,
            self_size: d.u64()?,
            retained_size: d.u64()?,
            distance: d.u32()? as i32,
        })
    })?;
    if d.rest() != 0 {
        return corrupt("the overview section has bytes left over");
    }
    Ok(Overview {
        kind,
        node_count,
        total_size,
        statistics,
        warnings,
        classes,
    })
}

/// A count, then each element as `put` writes it; read back by [`Dec::list`].
fn put_list<T>(o: &mut Vec<u8>, items: &[T], mut put: impl FnMut(&mut Vec<u8>, &T)) {
    (items.len() as u64).put(o);
    for item in items {
        put(o, item);
    }
}

fn decode_misc(bytes: &[u8]) -> Result<MiscOwned, Reject> {
    let mut d = Dec::new(bytes, 0);
    let mut lists: [Vec<String>; 7] = Default::default();
    for list in &mut lists {
        *list = d.list(4, Dec::string)?;
    }
    let [node_fields, node_types, edge_fields, edge_types, location_fields, sample_fields, trace_function_info_fields] =
        lists;
    let meta = Meta {
        node_fields,
        node_types,
        edge_fields,
        edge_types,
        location_fields,
        sample_fields,
        trace_function_info_fields,
    };
    let locations = d.list(16, |d| {
        Ok(Location {
            node: d.u32()?,
            script_id: d.u32()?,
            line: d.u32()?,
            column: d.u32()?,
        })
    })?;
    let samples = d.list(16, |d| {
        Ok(Sample {
            timestamp_us: d.u64()?,
            last_assigned_id: d.u64()?,
        })
    })?;
    let trace_function_infos = d.list(24, |d| {
        Ok(TraceFunctionInfo {
            function_id: d.u32()?,
            name: d.u32()?,
            script_name: d.u32()?,
            script_id: d.u32()?,
            line: d.u32()?,
            column: d.u32()?,
        })
    })?;
    let trace_tree = d.list(24, |d| {
        Ok(TraceNode {
            id: d.u32()?,
            function_info_index: d.u32()?,
            count: d.u32()?,
            size: d.u64()?,
            parent: d.u32()?,
        })
    })?;
    let root = d.u32()?;
    let has_extra = d.take(1)?[0] != 0;
    let extra = d.u64()?;
    let header_trace_function_count = d.u64()?;
    let warnings = warnings(&mut d)?;
    let total_size = d.u64()?;
    let statistics = statistics(&mut d)?;
    let interfaces = d.list(12, |d| {
        Ok(InterfaceDefinition {
            name: d.bytes()?.to_vec(),
            properties: d.list(4, |d| Ok(d.bytes()?.to_vec()))?,
        })
    })?;
    if d.rest() != 0 {
        return corrupt("the misc section has bytes left over");
    }
    Ok(MiscOwned {
        meta,
        locations,
        samples,
        trace_function_infos,
        trace_tree,
        root,
        extra_native_bytes: has_extra.then_some(extra),
        header_trace_function_count,
        warnings,
        total_size,
        statistics,
        interfaces,
    })
}

/// A bounded reader over decoded bytes: every length is checked against what is left.
struct Dec<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Offset of `bytes` in the file, for messages.
    base: usize,
}

impl<'a> Dec<'a> {
    fn new(bytes: &'a [u8], base: usize) -> Dec<'a> {
        Dec { bytes, at: 0, base }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Reject> {
        if self.bytes.len() - self.at < n {
            return corrupt(format!(
                "a field at byte {} runs past its section",
                self.base + self.at
            ));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, Reject> {
        Ok(u32::get(self.take(4)?))
    }

    fn u64(&mut self) -> Result<u64, Reject> {
        Ok(u64::get(self.take(8)?))
    }

    fn bytes(&mut self) -> Result<&'a [u8], Reject> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    fn string(&mut self) -> Result<String, Reject> {
        let at = self.base + self.at;
        String::from_utf8(self.bytes()?.to_vec())
            .or_else(|_| corrupt(format!("the text at byte {at} is not UTF-8")))
    }

    /// An element count, refused when that many elements of `min_size` bytes cannot be left.
    fn count(&mut self, min_size: usize) -> Result<usize, Reject> {
        let n = self.u64()?;
        if n > (self.rest() / min_size) as u64 {
            return corrupt(format!(
                "a count of {n} at byte {} is more than the section holds",
                self.base + self.at - 8
            ));
        }
        Ok(n as usize)
    }

    /// A count, then that many elements read by `item`: the count is refused first when that
    /// many elements of at least `min_size` bytes cannot be left, so a forged count never
    /// reserves more than the section holds.
    fn list<T>(
        &mut self,
        min_size: usize,
        mut item: impl FnMut(&mut Dec<'a>) -> Result<T, Reject>,
    ) -> Result<Vec<T>, Reject> {
        let n = self.count(min_size)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }

    fn rest(&self) -> usize {
        self.bytes.len() - self.at
    }
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

/// The invariants the engine indexes by, so that a forged index with matching checksums still
/// cannot make it panic. The reader and the analysis guarantee each of them; an index is written
/// only when they hold, so a valid index is never refused by them.
pub(crate) fn check_tables(s: &HeapSnapshot, a: &Analysis) -> Result<(), Reject> {
    check_tables_aside(s, a, None)
}

/// [`check_tables`] of a snapshot whose edge names and types are set aside (`aside`: their
/// lengths). Their values are not checked then: the reader checked every edge name of a snapshot
/// it read against the string table, and the analysis only adds strings.
pub(crate) fn check_tables_aside(
    s: &HeapSnapshot,
    a: &Analysis,
    aside: Option<(usize, usize)>,
) -> Result<(), Reject> {
    let n = s.nodes.len();
    // Not `s.edges.len()`, the types' length: they may be aside.
    let m = s.edges.to_node.len();
    let (edge_names, edge_kinds) =
        aside.unwrap_or((s.edges.name_or_index.len(), s.edges.kind.len()));
    let nodes = &s.nodes;
    let same = |len: usize| len == n;
    if !(same(nodes.name.len())
        && same(nodes.id.len())
        && same(nodes.self_size.len())
        && nodes.first_edge.len() == n + 1
        && (nodes.trace_node_id.is_empty() || same(nodes.trace_node_id.len()))
        && (nodes.detachedness.is_empty() || same(nodes.detachedness.len()))
        && edge_names == m
        && edge_kinds == m
        && s.edges.to_node.len() == m
        && same(a.idom.len())
        && same(a.retained.len())
        && same(a.distances.len())
        && same(a.classes.len())
        && same(a.retainer_counts.len()))
    {
        return corrupt("its tables disagree on the number of nodes or edges");
    }
    let edges_ok = nodes.first_edge.first() == Some(&0)
        && nodes.first_edge.windows(2).all(|w| w[0] <= w[1])
        && nodes.first_edge.last().map(|&e| e as usize) == Some(m);
    if !edges_ok || (n > 0 && s.root as usize >= n) || (n == 0 && m > 0) {
        return corrupt("its node table does not describe its edges");
    }
    let below = |values: &[u32], limit: usize| values.iter().all(|&v| (v as usize) < limit);
    let strings = s.strings.len();
    if !below(&s.edges.to_node, n) || !below(&a.idom, n) {
        return corrupt("an edge or a dominator points past the last node");
    }
    if n > 0 && !dominators_form_a_tree(&a.idom, s.root as usize) {
        return corrupt("its dominators do not form a tree under the root");
    }
    let types = s.types();
    let edge_names_ok = (s.edges.kind.iter().zip(&s.edges.name_or_index))
        .all(|(&k, &name)| !types.edge_has_string_name(k) || (name as usize) < strings);
    if !below(&nodes.name, strings) || !below(&a.classes, strings) || !edge_names_ok {
        return corrupt("a name is not an index into the string table");
    }
    if !s.locations.windows(2).all(|w| w[0].node < w[1].node)
        || s.locations.last().is_some_and(|l| l.node as usize >= n)
    {
        return corrupt("its locations are out of order");
    }
    Ok(())
}

/// Whether every node's chain of immediate dominators reaches `root` without a cycle: the
/// dominator tree's walks (detached trees, leaks, the UI's dominated lists) trust that it does.
/// One pass, each node settled once (`idom` values are already known to be below its length).
fn dominators_form_a_tree(idom: &[u32], root: usize) -> bool {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const SETTLED: u8 = 2;
    let mut state = vec![NEW; idom.len()];
    state[root] = SETTLED;
    let mut path = Vec::new();
    for start in 0..idom.len() {
        let mut at = start;
        while state[at] == NEW {
            state[at] = ON_PATH;
            path.push(at);
            at = idom[at] as usize;
        }
        if state[at] == ON_PATH {
            return false;
        }
        for &p in &path {
            state[p] = SETTLED;
        }
        path.clear();
    }
    true
}

/// The key an index's header claims, for reading forged bytes (the fuzz target) past the key
/// checks; `None` when the header cannot be walked.
pub(crate) fn claimed_key(bytes: &[u8]) -> Option<Key> {
    let (mut d, _) = header_fields(bytes)?;
    d.bytes().ok()?; // the engine
    Some(Key {
        path: d.bytes().ok()?.to_vec(),
        size: d.u64().ok()?,
        mtime_secs: d.u64().ok()? as i64,
        mtime_nanos: d.u32().ok()?,
        content: d.take(32).ok()?.try_into().ok()?,
    })
}

/// Recomputes the checksums of an index's header and sections over its bytes as they are, so
/// that forged content (the fuzz target's) reaches the decoders and the table checks instead of
/// stopping at a checksum. Leaves bytes it cannot walk as they are.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let Some((mut d, header_len)) = header_fields(bytes) else {
        return;
    };
    let walked = (|| -> Result<usize, Reject> {
        d.bytes()?;
        d.bytes()?;
        d.take(8 + 8 + 4 + 32)?;
        d.u32()?;
        Ok(d.base + d.at)
    })();
    let Ok(mut entry) = walked else { return };
    let mut at = header_len as u64;
    for &(_, size) in &SECTIONS {
        // Each entry: tag u32, element size u32, count u64, CRC-32 u32.
        let Some(fields) = bytes.get(entry..entry + 20) else {
            return;
        };
        let count = u64::get(&fields[8..16]);
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

/// A reader over the header's fields after its fixed start, and the header's length; `None` when
/// the bytes are too short for the header they announce.
fn header_fields(bytes: &[u8]) -> Option<(Dec<'_>, usize)> {
    let header_len = u32::get(bytes.get(12..16)?) as usize;
    if header_len < 20 || header_len > bytes.len() {
        return None;
    }
    Some((Dec::new(&bytes[16..header_len - 4], 16), header_len))
}
