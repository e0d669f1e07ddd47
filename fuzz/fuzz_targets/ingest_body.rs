#![no_main]
//! Arbitrary bytes as a post to `serve --lake`'s ingest endpoint, through the checks the endpoint
//! makes (`jsprof_lake::ingest`): the input is `QUERY \n USER-AGENT \n CONTENT-LENGTH \n BODY`.
//! Never a panic; labels carry what the endpoint promises; an accepted trace is a JS
//! Self-Profiling trace whose rows are consistent (`common/lake_rows.rs`); a refusal says why.
#[path = "../common/lake_rows.rs"]
mod lake_rows;

use std::collections::BTreeMap;

use jsprof_lake::ingest::{self, Refusal};

const LIMIT: u64 = 1 << 20;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == b'\n');
    let text = |p: Option<&[u8]>| String::from_utf8_lossy(p.unwrap_or_default()).into_owned();
    let (query, user_agent, length) = (text(parts.next()), text(parts.next()), text(parts.next()));
    let body = parts.next().unwrap_or_default();
    // Half the inputs go to a lake partitioned by `release`.
    let partition = (data.len() % 2 == 0).then_some("release");

    let mut labels = BTreeMap::new();
    if let Ok(pairs) = ingest::query_pairs(&query) {
        let _ = ingest::key_of(Some(&user_agent), &pairs);
        match ingest::labels(&pairs, &user_agent, partition) {
            Ok(l) => {
                for required in ["page", "release", "browser", "device"] {
                    assert!(l.contains_key(required), "{required}");
                }
                assert!(l.len() <= ingest::MAX_LABELS + 2);
                if let Some(label) = partition {
                    let value = l.get(label).map(String::as_str);
                    assert!(jsprof_lake::layout::partition_dir(label, value).is_ok());
                }
                labels = l;
            }
            Err(Refusal::BadRequest(m)) => assert!(!m.is_empty()),
            Err(other) => panic!("labels refused as {other:?}"),
        }
    }
    match ingest::check_length(Some(&length), LIMIT) {
        Err(Refusal::TooLarge(limit)) => assert_eq!(limit, LIMIT),
        Err(other) => panic!("length refused as {other:?}"),
        Ok(()) => {}
    }
    match ingest::prepare_trace("ingest-0.json", 0, &labels, body.to_vec(), LIMIT) {
        Ok(prepared) => {
            assert_eq!(prepared.profiles[0].kind, "selfprofile");
            assert_eq!(prepared.labels["source"], "ingest");
            lake_rows::check(&prepared);
        }
        Err(Refusal::TooLarge(limit)) => assert_eq!(limit, LIMIT),
        Err(Refusal::BadRequest(m)) => assert!(!m.is_empty()),
    }
});
