//! The big-trace generator (`bench/tracegen`) run small: three copies of a recorded trace read
//! as three recordings side by side — the check that lets a 2 GB generated trace, which DevTools
//! cannot open, stand for the recording whose numbers the trace oracle checks.

use std::io::Read;

use serde_json::Value;

use crate::support::{argv, fixtures, json_array, jsprof_json, temp_file};

#[path = "../../../../bench/tracegen/src/gen.rs"]
mod tracegen;

fn recording() -> Vec<u8> {
    let gz = std::fs::read(fixtures().join("trace/page.trace.json.gz")).unwrap();
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut text)
        .unwrap();
    text
}

fn threads(file: &str) -> Vec<Value> {
    let doc = jsprof_json(&["threads", file, "--json"]);
    json_array(&doc["timelines"]).clone()
}

/// `events --mode unique-events` on one thread, without what names the thread.
fn unique_events(file: &str, thread: &Value) -> Value {
    let id = thread["timeline_id"].to_string();
    let mut doc = jsprof_json(&argv(
        "events {} --thread {} --mode unique-events --json",
        &[&file, &id],
    ));
    let doc = doc.as_object_mut().unwrap();
    doc.remove("timeline_id");
    // Warnings name processes, which differ by copy.
    doc.remove("warnings");
    Value::Object(doc.clone())
}

#[test]
fn a_repeated_trace_reads_as_its_copies() {
    let text = recording();
    let layout = tracegen::layout(&text).unwrap();
    let mut big = Vec::new();
    tracegen::repeat(&layout, 3, &mut big).unwrap();
    let one = temp_file("tracegen-1.trace.json", &text);
    let three = temp_file("tracegen-3.trace.json", &big);
    let (one, three) = (one.to_str().unwrap(), three.to_str().unwrap());

    let ours = threads(one);
    let copies = threads(three);
    assert_eq!(copies.len(), 3 * ours.len());
    let twin = |t: &Value, k: u64| {
        let pid = t["pid"].as_u64().unwrap() + k * tracegen::PID_STEP;
        copies
            .iter()
            .find(|c| c["pid"] == pid && c["tid"] == t["tid"])
            .unwrap_or_else(|| panic!("no copy {k} of thread {t}"))
            .clone()
    };
    for t in &ours {
        for k in 0..3 {
            let c = twin(t, k);
            assert_eq!((&c["samples"], &c["events"]), (&t["samples"], &t["events"]));
            assert_eq!(c["name"], t["name"]);
        }
    }
    let busiest = ours
        .iter()
        .max_by_key(|t| t["samples"].as_u64().unwrap())
        .unwrap();
    let want = unique_events(one, busiest);
    assert!(json_array(&want["events"]).len() > 10);
    for k in [0, 2] {
        assert_eq!(unique_events(three, &twin(busiest, k)), want, "copy {k}");
    }
}

#[test]
fn the_generator_refuses_a_trace_cut_short() {
    let text = recording();
    assert!(tracegen::layout(&text[..text.len() / 2]).is_err());
    let events = tracegen::layout(&text).unwrap().events;
    // Only whole keys move: a `"pid"` in a string is escaped and stays.
    let mut out = Vec::new();
    let sample = br#"{"pid":7,"args":{"s":"\"pid\":7","data":{"processId":8,"pid":"9"}}}"#;
    tracegen::write_shifted(sample, 100, &mut out).unwrap();
    assert_eq!(
        out,
        br#"{"pid":107,"args":{"s":"\"pid\":7","data":{"processId":108,"pid":"9"}}}"#
    );
    assert!(!events.is_empty() && events.starts_with(b"{") && events.ends_with(b"}"));
}
