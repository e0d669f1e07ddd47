//! DevTools' Summary filter "Objects allocated between Snapshot 1 and Snapshot 2": the Summary of
//! `leak-3-final` over the objects whose ids lie after `leak-1-baseline`'s largest JS object id and
//! up to `leak-2-target`'s, against DevTools' own `aggregatesWithFilter` with that `NodeFilter`
//! (`leak-3-final.between-1-2.devtools.json.gz`, from `fixtures/heap/explore-goldens.sh`).

use std::path::PathBuf;

use jsprof_heap::{analyze, max_node_id, read_snapshot, summary_between, HeapSnapshot, SortBy};
use serde_json::{json, Value};

fn read(name: &str) -> HeapSnapshot {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/heap")
        .join(format!("{name}.gz"));
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_snapshot(std::io::BufReader::new(flate2::read::GzDecoder::new(file))).expect("loads")
}

#[test]
fn summary_between_two_snapshots_is_devtools() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/heap/leak-3-final.between-1-2.devtools.json.gz");
    let want: Value = serde_json::from_reader(flate2::read::GzDecoder::new(
        std::fs::File::open(path).unwrap(),
    ))
    .unwrap();
    let want = &want["result"];
    let min = max_node_id(&read("leak-1-baseline.heapsnapshot"));
    let max = max_node_id(&read("leak-2-target.heapsnapshot"));
    assert_eq!(
        (json!(min), json!(max)),
        (want["min"].clone(), want["max"].clone())
    );
    let mut s = read("leak-3-final.heapsnapshot");
    let a = analyze(&mut s);
    let mut got: Vec<Value> = summary_between(&s, &a, SortBy::Retained, min + 1..=max)
        .into_iter()
        .map(|r| {
            json!({"key": r.key, "name": r.name, "count": r.count, "self": r.self_size,
                "retained": r.retained_size, "distance": r.distance})
        })
        .collect();
    let mut expected = want["classes"].as_array().unwrap().clone();
    let by_key = |v: &Value| v["key"].as_str().unwrap().to_string();
    got.sort_by_key(by_key);
    expected.sort_by_key(by_key);
    assert!(expected.len() > 5, "{} classes", expected.len());
    assert_eq!(got, expected);
}
