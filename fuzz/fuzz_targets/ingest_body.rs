#![no_main]
//! Arbitrary bytes as a post to one of `serve --lake`'s ingest endpoints, through the checks the
//! endpoint makes (`jsprof_lake::ingest`): the input is `QUERY \n USER-AGENT \n CONTENT-LENGTH
//! \n BODY`, and its length picks the endpoint. Never a panic; labels carry what the endpoint
//! promises; an accepted body is of a kind the endpoint takes and its rows are consistent
//! (`common/lake_rows.rs`); a refusal says why.
#[path = "../common/lake_rows.rs"]
mod lake_rows;

use jsprof_lake::ingest::{self, Endpoint, Post, Refusal};

const LIMIT: u64 = 1 << 20;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == b'\n');
    let text = |p: Option<&[u8]>| String::from_utf8_lossy(p.unwrap_or_default()).into_owned();
    let (query, user_agent, length) = (text(parts.next()), text(parts.next()), text(parts.next()));
    let body = parts.next().unwrap_or_default();
    // Half the inputs go to each endpoint, and half of those to a lake partitioned by the
    // endpoint's first required label.
    let (endpoint, required, partition_label) = if data.len() % 4 < 2 {
        let required: &[&str] = &["page", "release", "browser", "device"];
        (Endpoint::SelfProfile, required, "release")
    } else {
        let required: &[&str] = &["service"];
        (Endpoint::Profile, required, "service")
    };
    let partition = (data.len() % 2 == 0).then_some(partition_label);

    let mut post = Post {
        endpoint,
        ..Post::default()
    };
    if let Ok(pairs) = ingest::query_pairs(&query) {
        let _ = ingest::key_of(Some(&user_agent), &pairs);
        match ingest::post(endpoint, &pairs, &user_agent, partition) {
            Ok(p) => {
                let l = &p.labels;
                for required in required {
                    assert!(l.contains_key(*required), "{required}");
                }
                assert!(l.len() <= ingest::MAX_LABELS + 2);
                if let Some(label) = partition {
                    let value = l.get(label).map(String::as_str);
                    assert!(jsprof_lake::layout::partition_dir(label, value).is_ok());
                }
                post = p;
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
    match ingest::prepare_post("ingest-0.json", 0, &post, body.to_vec(), LIMIT) {
        Ok(prepared) => {
            let kinds: &[&str] = match endpoint {
                Endpoint::SelfProfile => &["selfprofile"],
                Endpoint::Profile => &["cpuprofile", "heapprofile"],
            };
            assert!(kinds.contains(&prepared.profiles[0].kind));
            assert_eq!(prepared.profiles[0].thread, post.thread);
            assert_eq!(prepared.labels["source"], "ingest");
            lake_rows::check(&prepared);
        }
        Err(Refusal::TooLarge(limit)) => assert_eq!(limit, LIMIT),
        Err(Refusal::BadRequest(m)) => assert!(!m.is_empty()),
    }
});
