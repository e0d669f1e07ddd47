//! Reader properties: chunk-boundary independence, no panics on arbitrary bytes, and the root's
//! retained size equal to the sum of all (transferred) self sizes.

use std::io::Read;

use jsprof_heap::{analyze, read_snapshot, HeapError, HeapSnapshot};
use proptest::prelude::*;

const NODE_TYPES: &str = r#"["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"]"#;
const EDGE_TYPES: &str =
    r#"["context","element","property","internal","hidden","shortcut","weak"]"#;

/// A reader that hands out its data in the given chunk sizes (cycling).
struct Chunked<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()]
            .min(buf.len())
            .min(self.data.len());
        self.next += 1;
        buf[..size].copy_from_slice(&self.data[..size]);
        self.data = &self.data[size..];
        Ok(size)
    }
}

/// A random but well-formed snapshot: node 0 is the synthetic root; names include escapes.
fn snapshot_text() -> impl Strategy<Value = String> {
    (2usize..30).prop_flat_map(|n| {
        let nodes = prop::collection::vec((0u32..15, 0u32..6, 0u32..5000, prop::bool::ANY), n);
        let edges = prop::collection::vec(prop::collection::vec((0u32..7, 0u32..6, 0..n as u32), 0..4), n);
        let strings = prop::collection::vec("[a-z\"\\\\\u{e9}\u{1F600}\n ]{0,6}", 6);
        (nodes, edges, strings, prop::bool::ANY)
    })
    .prop_map(|(nodes, edges, strings, locations)| {
        let mut text = format!(
            r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count","detachedness"],"node_types":[{NODE_TYPES},"string","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[{EDGE_TYPES},"string_or_number","node"],"location_fields":["object_index","script_id","line","column"]}},"node_count":{},"edge_count":0}},"nodes":["#,
            nodes.len()
        );
        for (i, (kind, name, size, detached)) in nodes.iter().enumerate() {
            let kind = if i == 0 { 9 } else { *kind };
            let sep = if i == 0 { "" } else { ",\n" };
            text += &format!("{sep}{kind},{name},{},{size},{},{}", i * 2 + 1, edges[i].len(), if *detached { 2 } else { 0 });
        }
        text += "],\n\"edges\":[";
        let mut first = true;
        for out in &edges {
            for (kind, name, to) in out {
                text += &format!("{}{kind},{name},{}", if first { "" } else { "," }, to * 6);
                first = false;
            }
        }
        text += "],\n\"locations\":[";
        if locations {
            text += "6,1,2,3,12,4,5,6";
        }
        text += "],\n\"unknown_section\":{\"a\":[1,[2],\"]\"]},\n\"strings\":[";
        let quoted: Vec<String> = strings.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
        text += &quoted.join(",");
        text += ",\"\\ud800 lone\"]}";
        text
    })
}

fn fingerprint(s: &HeapSnapshot) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        s.nodes, s.edges, s.strings, s.locations, s.warnings
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn chunk_boundaries_do_not_matter(text in snapshot_text(), sizes in prop::collection::vec(1usize..64, 1..8)) {
        let whole = read_snapshot(text.as_bytes()).expect("generated snapshot loads");
        let chunked = read_snapshot(Chunked { data: text.as_bytes(), sizes, next: 0 }).expect("loads in chunks");
        prop_assert_eq!(fingerprint(&whole), fingerprint(&chunked));
    }

    #[test]
    fn root_retains_everything_after_the_transfer(text in snapshot_text()) {
        let mut s = read_snapshot(text.as_bytes()).unwrap();
        let a = analyze(&mut s);
        let total: u64 = s.nodes.ordinals().map(|n| s.nodes.self_size(n) as u64).sum();
        prop_assert_eq!(a.retained[s.root.index()], total);
        prop_assert_eq!(a.total_size, total);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(mut s) = read_snapshot(&bytes[..]) {
            analyze(&mut s);
        }
    }

    #[test]
    fn damaged_snapshots_never_panic(text in snapshot_text(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = text.into_bytes();
        let at = cut.index(bytes.len());
        bytes[at] = byte;
        if let Ok(mut s) = read_snapshot(&bytes[..]) {
            analyze(&mut s);
        }
        let truncated = &bytes[..at];
        prop_assert!(read_snapshot(truncated).is_err() || at == 0);
    }
}

#[test]
fn fixture_reads_the_same_in_tiny_chunks() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/heap/detached.heapsnapshot.gz");
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    let whole = read_snapshot(&text[..]).unwrap();
    let chunked = read_snapshot(Chunked {
        data: &text,
        sizes: vec![1, 7, 4093, 2, 65536],
        next: 0,
    })
    .unwrap();
    assert_eq!(fingerprint(&whole), fingerprint(&chunked));
    let truncated = read_snapshot(&text[..text.len() - 3]);
    assert!(
        matches!(truncated, Err(HeapError::Truncated { offset, .. }) if offset == text.len() as u64 - 3)
    );
}

/// A header's counts are claims: a tiny file claiming 2^31 nodes and edges must not make the
/// reader reserve for them (that was one multi-gigabyte allocation, fatal under a memory limit).
#[test]
fn header_counts_do_not_reserve_memory_the_data_does_not_prove() {
    let text = format!(
        r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],"node_types":[{NODE_TYPES},"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[{EDGE_TYPES},"string_or_number","node"]}},"node_count":2147483648,"edge_count":2147483648}},"nodes":[9,0,1,0,1,0,0,3,1,3,16,0,0,0],"edges":[2,1,7],"strings":["","a"]}}"#
    );
    assert!(text.len() < 2048);
    let s = read_snapshot(text.as_bytes()).expect("loads, with a warning about the counts");
    assert_eq!((s.nodes.len(), s.edges.len()), (2, 1));
    // What two nodes and one edge prove is a few kilobytes of columns, not gigabytes.
    let (node_bytes, edge_bytes) = (s.nodes.reserved_bytes(), s.edges.reserved_bytes());
    assert!(
        node_bytes + edge_bytes < 1 << 20,
        "{node_bytes} + {edge_bytes} bytes reserved"
    );
    assert!(
        s.warnings.iter().any(|w| w.at.contains("node_count")),
        "{:?}",
        s.warnings
    );
}
