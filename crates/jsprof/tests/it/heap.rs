//! Heap commands against the heap oracle's goldens (DevTools' own numbers), and broken inputs.

use std::collections::HashMap;
use std::io::Write;

use serde_json::Value;

use crate::support::{argv, fixtures, golden, json_array, jsprof, jsprof_json};

const SNAPSHOTS: &[&str] = &[
    "detached.heapsnapshot",
    "leak-1-baseline.heapsnapshot",
    "leak-2-target.heapsnapshot",
    "leak-3-final.heapsnapshot",
    "node-small.heapsnapshot",
    "node-alloc.heaptimeline",
];

/// Our document's classes by key, and DevTools' list of them, as many as ours (`what` names the
/// file in a failure).
pub(crate) fn classes<'a>(
    ours: &'a Value,
    theirs: &'a Value,
    what: &str,
) -> (HashMap<&'a str, &'a Value>, &'a Vec<Value>) {
    let rows: HashMap<&str, &Value> = json_array(&ours["classes"])
        .iter()
        .map(|c| (c["key"].as_str().unwrap(), c))
        .collect();
    let expected = json_array(&theirs["classes"]);
    assert_eq!(rows.len(), expected.len(), "{what}: number of classes");
    (rows, expected)
}

/// The path of `fixtures/heap/NAME.gz`.
pub(crate) fn input(name: &str) -> String {
    fixtures()
        .join("heap")
        .join(format!("{name}.gz"))
        .display()
        .to_string()
}

fn golden_of(name: &str) -> Value {
    golden(
        &fixtures()
            .join("heap")
            .join(format!("{name}.devtools.json.gz")),
    )
}

/// DevTools' Distance cell for the oracle's raw distance (`HeapSnapshotGridNodes.ts`: a number
/// from 0 below `baseSystemDistance`, else `−`), as jsprof's JSON writes it: the number or null.
pub(crate) fn shown_distance(raw: &Value) -> Value {
    match raw.as_i64() {
        Some(d) if (0..100_000_000).contains(&d) => raw.clone(),
        _ => Value::Null,
    }
}

#[test]
fn summary_matches_devtools_for_every_class() {
    for name in SNAPSHOTS {
        let ours = jsprof_json(&["heap", "summary", &input(name), "--json", "--limit", "0"]);
        let theirs = golden_of(name);
        for field in ["node_count", "total_size", "statistics"] {
            assert_eq!(ours[field], theirs[field], "{name}: {field}");
        }
        let (rows, expected) = classes(&ours, &theirs, name);
        for c in expected {
            let key = c["key"].as_str().unwrap();
            let row = rows
                .get(key)
                .unwrap_or_else(|| panic!("{name}: class {key:?} missing"));
            assert_eq!(row["name"], c["name"], "{name}: {key:?} name");
            assert_eq!(row["count"], c["count"], "{name}: {key:?} count");
            assert_eq!(row["self_size"], c["self"], "{name}: {key:?} self");
            assert_eq!(
                row["retained_size"], c["retained"],
                "{name}: {key:?} retained"
            );
            assert_eq!(
                row["distance"],
                shown_distance(&c["distance"]),
                "{name}: {key:?} distance"
            );
        }
    }
}

#[test]
fn nodes_match_devtools_for_every_sampled_node() {
    for name in SNAPSHOTS {
        let theirs = golden_of(name);
        let sampled = json_array(&theirs["sampled_nodes"]);
        let ids: Vec<String> = sampled.iter().map(|n| n["id"].to_string()).collect();
        let mut args = vec!["heap", "node", &input(name)]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        args.extend(ids);
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ours = jsprof_json(&args);
        let nodes = json_array(&ours["nodes"]);
        assert_eq!(nodes.len(), sampled.len(), "{name}");
        for (o, t) in nodes.iter().zip(sampled) {
            let id = &t["id"];
            assert_eq!(&o["id"], id);
            assert_eq!(o["self_size"], t["self"], "{name} @{id} self");
            assert_eq!(o["retained_size"], t["retained"], "{name} @{id} retained");
            assert_eq!(
                o["distance"],
                shown_distance(&t["distance"]),
                "{name} @{id} distance"
            );
            assert_eq!(
                o["dominator_id"], t["dominator_id"],
                "{name} @{id} dominator"
            );
            assert_eq!(o["type"], t["type"], "{name} @{id} type");
            assert_eq!(o["name"], t["name"], "{name} @{id} name");
        }
    }
}

#[test]
fn timeline_with_wrong_header_loads_with_a_warning() {
    let ours = jsprof_json(&["heap", "stats", &input("node-alloc.heaptimeline"), "--json"]);
    assert_eq!(ours["kind"], "heaptimeline");
    let warnings = json_array(&ours["warnings"]);
    assert!(
        warnings
            .iter()
            .any(|w| w["at"] == "snapshot.trace_function_count"),
        "expected a trace_function_count warning, got {warnings:?}"
    );
    let plain = jsprof_json(&["heap", "stats", &input("node-small.heapsnapshot"), "--json"]);
    assert_eq!(plain["kind"], "heapsnapshot");
    assert_eq!(plain["warnings"], serde_json::json!([]));
}

#[test]
fn summary_table_and_limits() {
    let out = jsprof(&argv(
        "heap summary {} --limit 3 --sort count",
        &[&input("detached.heapsnapshot")],
    ));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().nth(1).unwrap().starts_with("Class"), "{text}");
    assert_eq!(text.lines().count(), 2 + 3, "{text}");
    let json = jsprof_json(&argv(
        "heap summary {} --json --sort self --limit 5",
        &[&input("detached.heapsnapshot")],
    ));
    let selfs: Vec<u64> = json_array(&json["classes"])
        .iter()
        .map(|c| c["self_size"].as_u64().unwrap())
        .collect();
    assert_eq!(selfs.len(), 5);
    assert!(selfs.windows(2).all(|w| w[0] >= w[1]), "{selfs:?}");
}

fn write_temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("jsprof-heap-test-{}-{name}", std::process::id()));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    path
}

#[test]
fn truncated_and_malformed_inputs_exit_2_with_the_offset() {
    let mut full = Vec::new();
    let gz = std::fs::File::open(input("detached.heapsnapshot")).unwrap();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz), &mut full).unwrap();
    let cut = full.len() / 2;
    let truncated = write_temp("truncated.heapsnapshot", &full[..cut]);
    let out = jsprof(&["heap", "summary", truncated.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(truncated.to_str().unwrap()) && err.contains(&format!("byte {cut}")),
        "{err}"
    );

    let garbage = write_temp("garbage.heapsnapshot", b"{\"snapshot\": {\"meta\": 1}}");
    let out = jsprof(&["heap", "stats", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("byte"));

    let out = jsprof(&argv(
        "heap node {} 4294967295",
        &[&input("detached.heapsnapshot")],
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("no node with id @4294967295"));
    let _ = std::fs::remove_file(truncated);
    let _ = std::fs::remove_file(garbage);
}

/// Ids are printed `@297807`; every command that takes one accepts it so written.
#[test]
fn node_ids_may_carry_their_at_sign() {
    let file = input("node-small.heapsnapshot");
    for args in [
        vec!["heap", "node", file.as_str()],
        vec!["heap", "retainers", file.as_str()],
    ] {
        let with_id = |id: &str| {
            let mut a = args.clone();
            a.extend([id, "--json"]);
            jsprof_json(&a)
        };
        assert_eq!(with_id("@6051"), with_id("6051"), "{args:?}");
    }
    let at = jsprof_json(&["heap", "dominators", &file, "--id", "@6051", "--json"]);
    let plain = jsprof_json(&["heap", "dominators", &file, "--id", "6051", "--json"]);
    assert_eq!(at, plain);
}
