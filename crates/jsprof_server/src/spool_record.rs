//! The ingest spool's record format (`LAKE/.ingest-spool/seg-*.log`, and each record set aside
//! in `rejected/`).
//!
//! A segment is a sequence of records, each:
//!   MAGIC (4 bytes) | header length (u32 LE) | body length (u32 LE) | xxh3-64 of header ‖ body
//!   (u64 LE) | header (JSON `SpoolHeader`) | body (the trace as posted)
//! A record is only acknowledged after it and everything before it is fsynced, so a torn or
//! corrupt record can only be the tail of a segment a crash cut short: replay stops there.

use jsprof_lake::ingest::Post;
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 4] = b"JSPI";
const RECORD_HEAD: usize = 4 + 4 + 4 + 8;

/// What a record says besides the body: the name and arrival the lake gets, and the post (its
/// endpoint, labels, thread and start; a record written before there were two endpoints has no
/// `endpoint` and is a browser's trace).
#[derive(Serialize, Deserialize)]
pub(crate) struct SpoolHeader {
    pub name: String,
    pub received_us: i64,
    #[serde(flatten)]
    pub post: Post,
}

pub(crate) fn encode_record(header: &SpoolHeader, body: &[u8], out: &mut Vec<u8>) {
    let head = serde_json::to_vec(header).expect("plain struct");
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&head);
    hasher.update(body);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&hasher.digest().to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(body);
}

/// The whole records of a segment, and a note when its tail is torn or corrupt.
pub(crate) fn decode_records(bytes: &[u8]) -> (Vec<(SpoolHeader, &[u8])>, Option<String>) {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.len() < RECORD_HEAD || &rest[..4] != MAGIC {
            return (out, Some(format!("byte {at}: no record header")));
        }
        let head_len = u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes")) as usize;
        let body_len = u32::from_le_bytes(rest[8..12].try_into().expect("4 bytes")) as usize;
        let sum = u64::from_le_bytes(rest[12..20].try_into().expect("8 bytes"));
        let end = RECORD_HEAD
            .checked_add(head_len)
            .and_then(|n| n.checked_add(body_len));
        let Some(end) = end.filter(|&e| e <= rest.len()) else {
            return (out, Some(format!("byte {at}: a record cut short")));
        };
        let head = &rest[RECORD_HEAD..RECORD_HEAD + head_len];
        let body = &rest[RECORD_HEAD + head_len..end];
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(head);
        hasher.update(body);
        if hasher.digest() != sum {
            return (out, Some(format!("byte {at}: checksum mismatch")));
        }
        match serde_json::from_slice::<SpoolHeader>(head) {
            Ok(h) => out.push((h, body)),
            Err(e) => return (out, Some(format!("byte {at}: bad record header: {e}"))),
        }
        at += end;
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use jsprof_lake::ingest::Endpoint;

    use super::*;

    #[test]
    fn records_round_trip_and_a_torn_tail_is_dropped() {
        let h = |n: &str| SpoolHeader {
            name: n.into(),
            received_us: 7,
            post: Post {
                labels: BTreeMap::from([("page".into(), "/a".into())]),
                ..Post::default()
            },
        };
        let mut bytes = Vec::new();
        encode_record(&h("one"), b"{\"a\":1}", &mut bytes);
        encode_record(&h("two"), b"{\"b\":2}", &mut bytes);
        let whole = bytes.len();
        let (records, torn) = decode_records(&bytes);
        assert_eq!(torn, None);
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].0.name, "two");
        assert_eq!(records[1].1, b"{\"b\":2}");
        // Every cut inside the second record keeps the first one and says where it stopped.
        let first_len = whole / 2;
        for cut in first_len + 1..whole {
            let (records, torn) = decode_records(&bytes[..cut]);
            assert_eq!(records.len(), 1, "cut at {cut}");
            assert!(torn.is_some(), "cut at {cut}");
        }
        // A flipped byte in the body is caught by the checksum.
        let mut bad = bytes.clone();
        bad[whole - 2] ^= 1;
        let (records, torn) = decode_records(&bad);
        assert_eq!(records.len(), 1);
        assert!(torn.unwrap().contains("checksum"));
    }

    /// A record spooled before there were two endpoints (its header as they wrote it) replays
    /// as a browser's trace; a profile window's keeps its endpoint, thread and start.
    #[test]
    fn headers_of_both_endpoints_and_of_older_records_decode() {
        let old =
            br#"{"name":"ingest-1.json","received_us":1,"labels":{"page":"/","release":"1"}}"#;
        let mut bytes = Vec::new();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(old);
        hasher.update(b"{}");
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(old.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&hasher.digest().to_le_bytes());
        bytes.extend_from_slice(old);
        bytes.extend_from_slice(b"{}");
        let window = SpoolHeader {
            name: "ingest-2.json".into(),
            received_us: 2,
            post: Post {
                endpoint: Endpoint::Profile,
                labels: BTreeMap::from([("service".into(), "shop".into())]),
                thread: Some("worker-1".into()),
                start_us: Some(1_764_374_400_000_000),
            },
        };
        encode_record(&window, b"{}", &mut bytes);
        let (records, torn) = decode_records(&bytes);
        assert_eq!(torn, None);
        assert_eq!(records[0].0.post.endpoint, Endpoint::SelfProfile);
        assert_eq!(records[0].0.post.labels["release"], "1");
        assert_eq!(records[1].0.post, window.post);
    }
}
