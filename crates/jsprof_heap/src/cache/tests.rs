//! The index against a fresh analysis, and every way an index can be wrong.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::format::{read_index, read_overview, reseal, write_index, Key, Reject, ENTRY, SECTIONS};
use super::*;
use crate::summary::SortBy;

fn fixture() -> Vec<u8> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/heap/detached.heapsnapshot.gz");
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(File::open(path).expect("fixture"))
        .read_to_end(&mut text)
        .expect("gzip");
    text
}

fn analysed(text: &[u8]) -> (HeapSnapshot, Analysis) {
    let mut s = crate::read_snapshot(text).expect("loads");
    let a = analyze(&mut s);
    (s, a)
}

fn key() -> Key {
    Key {
        path: b"/snapshots/app.heapsnapshot".to_vec(),
        size: 1234,
        mtime_secs: 1_700_000_000,
        mtime_nanos: 5,
        dev: 2049,
        ino: 131_077,
        ctime_secs: 1_700_000_001,
        ctime_nanos: 6,
        content: [7; 32],
    }
}

fn index_of(s: &HeapSnapshot, a: &Analysis) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let overview = Overview::of(s, a);
    let len = write_index(
        &mut out,
        &key(),
        s,
        a,
        &overview,
        None,
        u64::MAX,
        &mut |_, _| {},
    )
    .expect("writes");
    let out = out.into_inner();
    assert_eq!(len, out.len() as u64);
    out
}

fn read(bytes: &[u8], key: &Key) -> Result<(HeapSnapshot, Analysis), Reject> {
    read_index(&mut &bytes[..], bytes.len() as u64, key, &mut |_, _| {}).map(|(s, a, _)| (s, a))
}

fn read_overview_of(bytes: &[u8], key: &Key) -> Result<Overview, Reject> {
    read_overview(&mut Cursor::new(bytes), bytes.len() as u64, key)
}

fn fixture_named(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/heap")
        .join(name);
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(File::open(path).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    text
}

/// The key's bytes after its path: size, mtime (seconds, nanoseconds), device, inode, ctime
/// (seconds, nanoseconds), content hash.
const KEY_AFTER_PATH: usize = 8 + 8 + 4 + 8 + 8 + 8 + 4 + 32;

/// The overview's place in [`SECTIONS`].
const OVERVIEW: usize = SECTIONS.len() - 1;

/// Every table the engine reads, as text: equal dumps mean equal answers.
fn dump(s: &HeapSnapshot, a: &Analysis) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?} {:?} {:?} {:?}\n{:?}\n{:?} {:?} {:?} {:?} {:?} {} {:?} {:?}\n{:?}",
        s.meta,
        s.nodes,
        s.edges,
        s.strings,
        s.locations,
        s.samples,
        s.trace_function_infos,
        s.trace_tree,
        s.root,
        s.extra_native_bytes,
        s.header_trace_function_count,
        s.warnings,
        a.idom,
        a.retained,
        a.distances,
        a.classes,
        a.retainer_counts,
        a.total_size,
        a.statistics,
        a.interfaces
            .iter()
            .map(|i| (&i.name, &i.properties))
            .collect::<Vec<_>>(),
        a.scripts,
    )
}

/// Fixtures of every kind the index holds: a snapshot with detached nodes, a timeline (samples,
/// trace tree, locations) and a larger snapshot.
const VARIED: [&str; 3] = [
    "detached.heapsnapshot.gz",
    "node-alloc.heaptimeline.gz",
    "leak-3-final.heapsnapshot.gz",
];

#[test]
fn an_index_reads_back_every_table_of_the_analysis() {
    for name in VARIED {
        let (s, a) = analysed(&fixture_named(name));
        let (s2, a2) = read(&index_of(&s, &a), &key()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(dump(&s, &a), dump(&s2, &a2), "{name}");
    }
}

#[test]
fn a_changed_snapshot_makes_the_index_stale() {
    let (s, a) = analysed(&fixture());
    let bytes = index_of(&s, &a);
    let changes: [fn(&mut Key); 4] = [
        |k| k.path.push(b'x'),
        |k| k.size += 1,
        |k| k.mtime_nanos += 1,
        |k| k.content[31] ^= 1,
    ];
    for change in changes {
        let mut other = key();
        change(&mut other);
        assert!(matches!(read(&bytes, &other), Err(Reject::Stale(_))));
    }
}

#[test]
fn a_truncated_or_damaged_index_is_refused() {
    let (s, a) = analysed(&fixture());
    let bytes = index_of(&s, &a);
    for len in [0, 7, 16, 100, bytes.len() / 2, bytes.len() - 1] {
        let cut = &bytes[..len];
        assert!(
            matches!(read(cut, &key()), Err(Reject::Corrupt(_))),
            "cut at {len}"
        );
    }
    // A flipped bit anywhere: in the header, in the misc section, in a column, in the last byte.
    let step = bytes.len() / 41;
    for at in (0..bytes.len())
        .step_by(step.max(1))
        .chain([bytes.len() - 1])
    {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        match read(&bad, &key()) {
            Err(Reject::Corrupt(_)) => {}
            // The format version is read before the header's checksum.
            Err(Reject::Stale(_)) if (8..12).contains(&at) => {}
            // Padding bytes are not checksummed; they carry nothing.
            Ok((s2, a2)) => assert_eq!(dump(&s, &a), dump(&s2, &a2), "flip at {at}"),
            Err(e) => panic!("flip at {at}: {e:?}"),
        }
    }
}

#[test]
fn a_header_claiming_huge_sections_is_refused_before_allocating() {
    let (s, a) = analysed(&fixture());
    let mut bytes = index_of(&s, &a);
    // The first section's count sits after the fixed fields; forge it to 2^60 and fix the header's
    // checksum, so only the length check stands between it and an allocation.
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let engine_len = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
    let path_at = 20 + engine_len;
    let path_len = u32::from_le_bytes(bytes[path_at..path_at + 4].try_into().unwrap()) as usize;
    let entry = |i: usize| path_at + 4 + path_len + KEY_AFTER_PATH + 4 + ENTRY * i;
    let reheader = |bytes: &mut Vec<u8>| {
        let crc = crc32fast::hash(&bytes[..header_len - 4]);
        bytes[header_len - 4..header_len].copy_from_slice(&crc.to_le_bytes());
    };
    // The misc section's length (after its tag, element size and count).
    let len_at = entry(0) + 16;
    bytes[len_at..len_at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    reheader(&mut bytes);
    match read(&bytes, &key()) {
        Err(Reject::Corrupt(message)) => assert!(message.contains("misc"), "{message}"),
        other => panic!("{:?}", other.err()),
    }
    // A column's count of 2^60 values, its bytes as they were: refused by the column's own
    // first bytes, which count what the section holds, before anything is allocated for it.
    let mut bytes = index_of(&s, &a);
    let edge_target = SECTIONS.iter().position(|s| s.0 == "edge target").unwrap();
    let count_at = entry(edge_target) + 8;
    bytes[count_at..count_at + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    reheader(&mut bytes);
    match read(&bytes, &key()) {
        Err(Reject::Corrupt(message)) => {
            assert!(message.contains("edge target holds"), "{message}")
        }
        other => panic!("{:?}", other.err()),
    }
}

/// Where section `index` starts in an index, and its length in bytes.
fn section(bytes: &[u8], index: usize) -> (usize, u64) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let header_len = word(12);
    let path_at = 20 + word(16);
    let table = path_at + 4 + word(path_at) + KEY_AFTER_PATH + 4;
    let mut at = header_len;
    for i in 0..SECTIONS.len() {
        let entry = table + ENTRY * i;
        let len = u64::from_le_bytes(bytes[entry + 16..entry + 24].try_into().unwrap());
        if i == index {
            return (at, len);
        }
        at += (len as usize).next_multiple_of(8);
    }
    unreachable!("no section {index}")
}

#[test]
fn forgeries_with_good_checksums_are_refused_by_the_table_checks() {
    let (s, a) = analysed(&fixture());
    let bytes = index_of(&s, &a);
    // Resealing a good index changes nothing, and the fuzz target's reader takes it.
    let mut same = bytes.clone();
    reseal(&mut same);
    assert_eq!(same, bytes);
    let (s2, a2) = read_index_bytes(&bytes, true).expect("a good index reads");
    assert_eq!(dump(&s, &a), dump(&s2, &a2));

    // Bytes forged in a section, resealed: refused, with the refusal's message.
    let refused = |bad: &mut Vec<u8>| {
        reseal(bad);
        assert!(read_index_bytes(bad, false).is_none());
        match read(bad, &key()) {
            Err(Reject::Corrupt(message)) => message,
            other => panic!("{:?}", other.err()),
        }
    };
    // Tables the analysis never makes, written as an index (the writer packs what it is given):
    // the reader's table checks refuse them.
    let (mut bad, a2) = analysed(&fixture());
    bad.edges.to_node[3] = u32::MAX;
    let message = refused(&mut index_of(&bad, &a2));
    assert!(message.contains("past the last node"), "{message}");
    let (s2, mut bad) = analysed(&fixture());
    bad.idom[0] = crate::snapshot::NodeOrdinal::new(s2.nodes.len() as u32);
    let message = refused(&mut index_of(&s2, &bad));
    assert!(message.contains("past the last node"), "{message}");
    let (mut bad, a2) = analysed(&fixture());
    assert!(bad.locations.len() > 1);
    bad.locations.swap(0, 1);
    let message = refused(&mut index_of(&bad, &a2));
    assert!(message.contains("locations are out of order"), "{message}");
    // The misc section's first list (the node fields) claiming 2^40 strings.
    let mut bad = bytes.clone();
    let (at, _) = section(&bad, 0);
    bad[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let message = refused(&mut bad);
    assert!(message.contains("more than the section holds"), "{message}");
    // A column's first bytes claiming a width its type cannot take.
    let mut bad = bytes.clone();
    let edge_target = SECTIONS.iter().position(|s| s.0 == "edge target").unwrap();
    let (at, _) = section(&bad, edge_target);
    bad[at] = 40;
    let message = refused(&mut bad);
    assert!(
        message.contains("edge target is laid out as no index"),
        "{message}"
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jsprof-heap-cache-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory `name` holding the fixture as `app.heapsnapshot`, and a cache in it that indexes
/// a snapshot of any size.
fn fixture_and_cache(name: &str) -> (PathBuf, PathBuf, HeapCache) {
    let dir = temp_dir(name);
    let snapshot = dir.join("app.heapsnapshot");
    fs::write(&snapshot, fixture()).unwrap();
    let cache = HeapCache {
        min_bytes: 0,
        ..HeapCache::new(dir.join("cache"))
    };
    (dir, snapshot, cache)
}

type Opening<T> = Result<T, Box<dyn std::error::Error>>;

/// What the openers are given to read the snapshot at `path` with.
fn read_file(path: &Path) -> impl FnMut() -> Opening<HeapSnapshot> + '_ {
    move || Ok(crate::read_snapshot(File::open(path)?)?)
}

fn opened<T>(result: Opening<T>) -> T {
    result.map_err(|e| e.to_string()).expect("opens")
}

fn open(path: &Path, cache: &HeapCache) -> Opened {
    opened(open_analysed(
        Some(path),
        Some(cache),
        read_file(path),
        &mut |_| {},
    ))
}

fn open_summary(path: &Path, cache: &HeapCache) -> OpenedOverview {
    opened(open_overview(
        Some(path),
        Some(cache),
        read_file(path),
        &mut |_| {},
    ))
}

#[test]
fn open_analysed_reuses_the_index_and_rebuilds_a_damaged_one() {
    let (dir, snapshot, cache) = fixture_and_cache("open");
    let cold = open(&snapshot, &cache);
    assert!(
        !cold.from_index && cold.notes.is_empty(),
        "{:?}",
        cold.notes
    );
    let warm = open(&snapshot, &cache);
    assert!(warm.from_index, "{:?}", warm.notes);
    assert_eq!(
        dump(&cold.snapshot, &cold.analysis),
        dump(&warm.snapshot, &warm.analysis)
    );
    // The Summary comes along both ways (made for the index, then read from it), equal to a
    // fresh one; not indexed, it is left to the caller.
    let fresh = Overview::of(&cold.snapshot, &cold.analysis);
    assert_eq!(cold.overview.as_ref(), Some(&fresh));
    assert_eq!(warm.overview.as_ref(), Some(&fresh));

    let entries: Vec<_> = fs::read_dir(&cache.dir).unwrap().flatten().collect();
    assert_eq!(entries.len(), 1, "one index, no temporary file left");
    let index = entries[0].path();
    let bytes = fs::read(&index).unwrap();
    fs::write(&index, &bytes[..bytes.len() - 3]).unwrap();
    let rebuilt = open(&snapshot, &cache);
    assert!(!rebuilt.from_index);
    assert!(rebuilt.notes[0].contains("damaged"), "{:?}", rebuilt.notes);
    assert_eq!(fs::read(&index).unwrap(), bytes, "rewritten whole");
    assert!(open(&snapshot, &cache).from_index);

    // Too small to index: analysed every time, nothing written.
    let small = HeapCache {
        min_bytes: u64::MAX,
        ..HeapCache::new(dir.join("small"))
    };
    assert!(!open(&snapshot, &small).from_index);
    let unindexed = open(&snapshot, &small);
    assert!(!unindexed.from_index && unindexed.overview.is_none());
    assert!(!small.dir.exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eviction_drops_the_least_recently_used_first() {
    let dir = temp_dir("evict");
    let cache = HeapCache {
        min_bytes: 0,
        ..HeapCache::new(dir.join("cache"))
    };
    let text = fixture();
    let mut snapshots = Vec::new();
    for i in 0..3 {
        let path = dir.join(format!("s{i}.heapsnapshot"));
        fs::write(&path, &text).unwrap();
        open(&path, &cache);
        snapshots.push(path);
    }
    let entry = |p: &Path| cache.entry(fs::canonicalize(p).unwrap().as_os_str().as_encoded_bytes());
    let one = fs::metadata(entry(&snapshots[0])).unwrap().len();
    // s0 is used again, so s1 is now the least recently used.
    let old = SystemTime::now() - Duration::from_secs(3600);
    for (i, path) in snapshots.iter().enumerate() {
        let f = File::options().write(true).open(entry(path)).unwrap();
        f.set_modified(old + Duration::from_secs(i as u64)).unwrap();
    }
    assert!(open(&snapshots[0], &cache).from_index);
    // A temporary index of a writer that died, and other programs' files as old (issue 33:
    // eviction removed every `.*.tmp`).
    let stale_temp = cache.dir.join(super::temp_name(
        &format!("{}.{EXTENSION}", "0123456789abcdef".repeat(2)),
        1,
    ));
    let foreign =
        [".x.tmp", ".notes.jsheap.1.tmp", "other.tmp", "notes.jsheap"].map(|n| cache.dir.join(n));
    for path in foreign.iter().chain([&stale_temp]) {
        fs::write(path, b"partial").unwrap();
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    // Room for two indexes: writing a fourth evicts the two least recently used (s1, s2).
    let tight = HeapCache {
        max_bytes: 2 * one + one / 2,
        ..cache.clone()
    };
    let fourth = dir.join("s3.heapsnapshot");
    fs::write(&fourth, &text).unwrap();
    open(&fourth, &tight);
    assert!(entry(&snapshots[0]).exists());
    assert!(!entry(&snapshots[1]).exists());
    assert!(!entry(&snapshots[2]).exists());
    assert!(entry(&fourth).exists());
    assert!(!stale_temp.exists());
    for path in &foreign {
        assert!(path.exists(), "{} is not jsprof's", path.display());
    }

    // An index larger than the whole limit is not kept, and says so.
    let none = HeapCache {
        max_bytes: 10,
        ..cache.clone()
    };
    let fifth = dir.join("s4.heapsnapshot");
    fs::write(&fifth, &text).unwrap();
    let opened = open(&fifth, &none);
    assert!(
        opened.notes[0].contains("JSPROF_CACHE_MAX_BYTES"),
        "{:?}",
        opened.notes
    );
    assert!(!entry(&fifth).exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_overview_reads_back_alone_and_gives_the_summary_of_every_sort() {
    for name in VARIED {
        let (s, a) = analysed(&fixture_named(name));
        let mut bytes = index_of(&s, &a);
        let overview = read_overview_of(&bytes, &key()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(overview, Overview::of(&s, &a), "{name}");
        assert_eq!(overview.kind, s.kind());
        assert!(!overview.classes.is_empty(), "{name}");
        // Node's own scripts at least (the detached fixture is a small page with none): the
        // scripts' table travels with the overview.
        let named = overview.scripts.iter().any(|x| !x.url.is_empty());
        assert!(named || name.starts_with("detached"), "{name}");
        for sort in [SortBy::Retained, SortBy::SelfSize, SortBy::Count] {
            assert_eq!(
                overview.classes_by(sort),
                crate::summary(&s, &a, sort),
                "{name} {sort:?}"
            );
        }
        // Only the header and the overview are read: with every other section zeroed (their
        // checksums now wrong), the overview still reads, while the whole index is refused.
        let (first, _) = section(&bytes, 0);
        let (overview_at, _) = section(&bytes, OVERVIEW);
        bytes[first..overview_at].fill(0);
        assert_eq!(
            read_overview_of(&bytes, &key()).ok(),
            Some(overview),
            "{name}"
        );
        assert!(
            matches!(read(&bytes, &key()), Err(Reject::Corrupt(_))),
            "{name}"
        );
    }
}

#[test]
fn a_damaged_stale_or_forged_overview_is_refused() {
    let (s, a) = analysed(&fixture());
    let bytes = index_of(&s, &a);
    let overview = Overview::of(&s, &a);
    let (at, count) = section(&bytes, OVERVIEW);
    assert_eq!(at as u64 + count.next_multiple_of(8), bytes.len() as u64);

    for i in [0, 1, count as usize / 2, count as usize - 1] {
        let mut bad = bytes.clone();
        bad[at + i] ^= 0x04;
        match read_overview_of(&bad, &key()) {
            Err(Reject::Corrupt(message)) => assert!(message.contains("checksum"), "{message}"),
            other => panic!("flip at {i}: {other:?}"),
        }
    }
    for len in [0, 100, at, bytes.len() - 1] {
        assert!(
            matches!(
                read_overview_of(&bytes[..len], &key()),
                Err(Reject::Corrupt(_))
            ),
            "cut at {len}"
        );
    }
    let mut other = key();
    other.size += 1;
    assert!(matches!(
        read_overview_of(&bytes, &other),
        Err(Reject::Stale(_))
    ));

    // Forged with good checksums: (byte in the overview, bytes, what the refusal says).
    // The section: kind u8, node count u64, total u64, 8 statistics u64, the warnings' count.
    let warnings_at = 1 + 8 + 8 + 64;
    let classes_at = warnings_at
        + 8
        + (overview.warnings.iter())
            .map(|w| 8 + w.at.len() + w.message.len())
            .sum::<usize>();
    let huge = (1u64 << 40).to_le_bytes();
    let forgeries: [(usize, &[u8], &str); 4] = [
        (0, &[9], "no known kind"),
        (1, &(s.nodes.len() as u64 + 1).to_le_bytes(), "counts"),
        (warnings_at, &huge, "more than the section holds"),
        (classes_at, &huge, "more than the section holds"),
    ];
    for (offset, value, expect) in forgeries {
        let mut bad = bytes.clone();
        bad[at + offset..at + offset + value.len()].copy_from_slice(value);
        reseal(&mut bad);
        match read_overview_of(&bad, &key()) {
            Err(Reject::Corrupt(message)) => assert!(message.contains(expect), "{message}"),
            other => panic!("forged at {offset}: {other:?}"),
        }
        // The whole index's reader does not need the overview: the graph's commands take it,
        // without the overview.
        assert!(read_index_bytes(&bad, false).is_some());
        let (_, _, overview) =
            read_index(&mut &bad[..], bad.len() as u64, &key(), &mut |_, _| {}).unwrap();
        assert!(
            overview.is_none(),
            "forged at {offset}: a forged overview was taken"
        );
    }
}

#[test]
fn open_overview_reads_the_index_and_rebuilds_a_damaged_one() {
    let (dir, snapshot, cache) = fixture_and_cache("overview");
    let (s, a) = analysed(&fixture());
    let expected = Overview::of(&s, &a);
    let cold = open_summary(&snapshot, &cache);
    assert!(
        !cold.from_index && cold.notes.is_empty(),
        "{:?}",
        cold.notes
    );
    assert_eq!(cold.overview, expected);
    let warm = open_summary(&snapshot, &cache);
    assert!(warm.from_index, "{:?}", warm.notes);
    assert_eq!(warm.overview, expected);
    // The index open_overview wrote is the one open_analysed reads.
    assert!(open(&snapshot, &cache).from_index);

    let index = fs::read_dir(&cache.dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let good = fs::read(&index).unwrap();
    let (at, _) = section(&good, OVERVIEW);
    let mut bad = good.clone();
    bad[at + 3] ^= 0x01;
    fs::write(&index, &bad).unwrap();
    let rebuilt = open_summary(&snapshot, &cache);
    assert!(!rebuilt.from_index);
    assert_eq!(rebuilt.notes.len(), 1, "{:?}", rebuilt.notes);
    assert!(rebuilt.notes[0].contains("checksum"), "{:?}", rebuilt.notes);
    assert_eq!(rebuilt.overview, expected);
    assert_eq!(fs::read(&index).unwrap(), good, "rewritten whole");
    assert!(open_summary(&snapshot, &cache).from_index);

    // Without a cache: analysed, the overview computed from the graph.
    let none = open_overview(
        Some(&snapshot),
        None,
        || crate::read_snapshot(File::open(&snapshot).unwrap()),
        &mut |_| {},
    )
    .expect("opens");
    assert!(!none.from_index);
    assert_eq!(none.overview, expected);
    fs::remove_dir_all(&dir).unwrap();
}

/// `open_overview_answering` answers once: before the index is written when it writes one (the
/// cache folder holds no index yet while the answer is given), from the index once read; and an
/// answer that fails leaves no index behind.
#[test]
fn the_overview_is_answered_before_its_index_is_written() {
    let (dir, snapshot, cache) = fixture_and_cache("answer");
    let (s, a) = analysed(&fixture());
    let expected = Overview::of(&s, &a);
    let entries = || fs::read_dir(&cache.dir).map_or(0, |d| d.flatten().count());
    let answer = |answers: &mut Vec<(Overview, usize)>, fail: bool| {
        let (at_cache, from_index) = {
            let mut answers_here = Vec::new();
            let r = super::open_overview_answering(
                Some(&snapshot),
                Some(&cache),
                read_file(&snapshot),
                &mut |_| {},
                &mut |o: &Overview| {
                    answers_here.push((o.clone(), entries()));
                    if fail {
                        Err("the reader went away".into())
                    } else {
                        Ok(())
                    }
                },
            );
            (answers_here, r.map(|o| o.from_index).ok())
        };
        answers.extend(at_cache);
        from_index
    };
    let mut answers = Vec::new();
    assert_eq!(
        answer(&mut answers, true),
        None,
        "a failed answer is the open's error"
    );
    assert_eq!(entries(), 0, "no index after a failed answer");
    answers.clear();
    assert_eq!(answer(&mut answers, false), Some(false));
    assert_eq!(
        answers,
        vec![(expected.clone(), 0)],
        "answered once, before the index"
    );
    assert_eq!(entries(), 1, "the index written after");
    answers.clear();
    assert_eq!(answer(&mut answers, false), Some(true));
    assert_eq!(answers, vec![(expected, 1)], "answered once from the index");
    fs::remove_dir_all(&dir).unwrap();
}

/// An index being written has no name: a command killed while writing it (Ctrl-C, or worse)
/// leaves nothing in the cache directory; a finished one gets its name in one step.
#[cfg(target_os = "linux")]
#[test]
fn an_index_being_written_has_no_name_until_it_is_complete() {
    use std::io::Write;
    let dir = temp_dir("unnamed");
    let Ok(mut file) = super::create_unnamed_file(&dir) else {
        // The file system has no O_TMPFILE: the store falls back to a named temporary file.
        return;
    };
    file.write_all(b"half an index").unwrap();
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "visible while written"
    );
    drop(file);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "left behind");
    let mut file = super::create_unnamed_file(&dir).unwrap();
    file.write_all(b"a whole index").unwrap();
    let named = dir.join("entry.tmp");
    super::name_unnamed_file(&file, &named).unwrap();
    drop(file);
    assert_eq!(std::fs::read(&named).unwrap(), b"a whole index");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&named).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "heap contents are the owner's alone");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 33: an index was trusted when a snapshot's middle changed under the same size and
/// modification time (the key hashes only the first and last MiB).
#[cfg(unix)]
#[test]
fn a_middle_rewritten_under_the_same_size_and_mtime_is_not_trusted() {
    use std::os::unix::fs::{FileExt, MetadataExt};
    let (dir, snapshot, cache) = fixture_and_cache("middle");
    // Past the hashed head and tail, as a large snapshot's middle is.
    let hashed = |text: &[u8]| -> Vec<u8> {
        let mut big = text.to_vec();
        big.extend(std::iter::repeat_n(b' ', 3 << 20));
        big
    };
    let text = hashed(&fixture());
    fs::write(&snapshot, &text).unwrap();
    assert!(!open(&snapshot, &cache).from_index);
    assert!(open(&snapshot, &cache).from_index);
    let before = fs::metadata(&snapshot).unwrap();
    let middle = text.len() as u64 / 2;
    assert!(middle > HASHED && middle + HASHED < text.len() as u64);
    let file = File::options().write(true).open(&snapshot).unwrap();
    // The ctime's clock ticks in jiffies: rewrite until it has moved (at once, in practice).
    for _ in 0..100 {
        file.write_all_at(b"\n", middle).unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        let now = fs::metadata(&snapshot).unwrap();
        if (now.ctime(), now.ctime_nsec()) != (before.ctime(), before.ctime_nsec()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    drop(file);
    let after = fs::metadata(&snapshot).unwrap();
    assert_eq!(after.len(), before.len());
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    let reopened = open(&snapshot, &cache);
    assert!(
        !reopened.from_index,
        "the rewritten snapshot is analysed again"
    );
    assert!(
        reopened.notes.iter().any(|n| n.contains("change time")),
        "{:?}",
        reopened.notes
    );
    assert!(open(&snapshot, &cache).from_index, "and its index rebuilt");

    // Another file put in its place (same size, same mtime): a new inode.
    let copy = dir.join("copy");
    fs::write(&copy, &text).unwrap();
    File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    fs::rename(&copy, &snapshot).unwrap();
    let replaced = open(&snapshot, &cache);
    assert!(!replaced.from_index, "{:?}", replaced.notes);
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33: a cache directory that existed already was used as it was.
#[cfg(unix)]
#[test]
fn an_existing_cache_directory_is_made_private_or_refused() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, snapshot, cache) = fixture_and_cache("private");
    // Ours, but open to everyone (made by hand): used, and made 0700.
    fs::create_dir(&cache.dir).unwrap();
    fs::set_permissions(&cache.dir, fs::Permissions::from_mode(0o777)).unwrap();
    let opened = open(&snapshot, &cache);
    assert!(opened.notes.is_empty(), "{:?}", opened.notes);
    let mode = fs::metadata(&cache.dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    assert!(open(&snapshot, &cache).from_index);

    // A symbolic link to a directory: not used, nothing read from or written to its target.
    let target = dir.join("elsewhere");
    fs::create_dir(&target).unwrap();
    let link = HeapCache {
        min_bytes: 0,
        ..HeapCache::new(dir.join("link"))
    };
    std::os::unix::fs::symlink(&target, &link.dir).unwrap();
    let opened = open(&snapshot, &link);
    assert!(!opened.from_index);
    assert!(
        opened.notes.iter().any(|n| n.contains("symbolic link")),
        "{:?}",
        opened.notes
    );
    assert_eq!(fs::read_dir(&target).unwrap().count(), 0);
    assert!(!open(&snapshot, &link).from_index);

    // Another user's directory: refused, even with a valid index of ours in it.
    // SAFETY: geteuid has no preconditions.
    let theirs = if unsafe { libc::geteuid() } == 0 {
        let theirs = dir.join("theirs");
        fs::create_dir(&theirs).unwrap();
        for entry in fs::read_dir(&cache.dir).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), theirs.join(entry.file_name())).unwrap();
        }
        let path = std::ffi::CString::new(theirs.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::chown(path.as_ptr(), 65534, 65534) }, 0);
        theirs
    } else {
        // Not root: a directory root owns stands for another user's.
        PathBuf::from("/")
    };
    let foreign = HeapCache {
        min_bytes: 0,
        ..HeapCache::new(&theirs)
    };
    let opened = open(&snapshot, &foreign);
    assert!(!opened.from_index);
    assert!(
        opened.notes.iter().any(|n| n.contains("belongs to uid")),
        "{:?}",
        opened.notes
    );
    fs::remove_dir_all(&dir).unwrap();
}
