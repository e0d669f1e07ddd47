//! The big-input generator (`bench/heapgen`) run small: its numbers, known by construction, against
//! ours and against DevTools' own code (the heap oracle) — the check that lets a 5 GB generated
//! file, which DevTools cannot load, stand in for DevTools. And damaged generated files: the errors
//! at scale name the byte offset.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{all_rows, assert_ok, json_array, jsprof, jsprof_json, temp_file};

#[allow(dead_code)] // the generator's CLI-only helpers
#[path = "../../../../bench/heapgen/src/gen.rs"]
pub(crate) mod heapgen;

#[allow(dead_code)]
#[path = "../../../../bench/heapgen/src/replicate.rs"]
mod replicate;

use heapgen::Shape;

/// Four clusters: every role and the cross-cluster `next` edges in 129 nodes.
const SHAPE: Shape = Shape {
    clusters: 4,
    mids: 5,
    leaves: 3,
};

fn generated(shape: &Shape, every: u64) -> (Vec<u8>, Value) {
    let mut text = Vec::new();
    let truth = shape.write(&mut text).unwrap();
    let expected = serde_json::from_str(&truth.to_json(shape, every)).unwrap();
    (text, expected)
}

/// DevTools' heap worker over a file (`target/oracle/heap-oracle.mjs FILE EVERY`), when built.
pub(crate) fn oracle(file: &Path, every: u64) -> Option<Value> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/oracle/heap-oracle.mjs");
    if !script.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the oracle is not built ({})",
            script.display()
        );
        eprintln!("note: {} not built; skipping", script.display());
        return None;
    }
    let out = Command::new("node")
        .arg(&script)
        .arg(file)
        .arg(every.to_string())
        .output()
        .expect("run node");
    assert_ok(&out, "heap oracle");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Summary rows by key as `(count, self, retained, distance)`; `self_key`/`retained_key` differ
/// between our JSON and the oracle's.
fn rows(v: &Value, self_key: &str, retained_key: &str) -> HashMap<String, [i64; 4]> {
    json_array(&v["classes"])
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_i64().unwrap();
            (
                c["key"].as_str().unwrap().to_string(),
                [n("count"), n(self_key), n(retained_key), n("distance")],
            )
        })
        .collect()
}

#[test]
fn generated_snapshot_gives_the_constructed_numbers_as_devtools_does() {
    let every = 2;
    let (text, expected) = generated(&SHAPE, every);
    let file = temp_file("generated.heapsnapshot", &text);
    let path = file.to_str().unwrap();

    let ours = jsprof_json(&["heap", "summary", path, "--json", "--limit", "0"]);
    for key in ["node_count", "total_size", "statistics"] {
        assert_eq!(ours[key], expected[key], "{key}");
    }
    assert_eq!(
        rows(&ours, "self_size", "retained_size"),
        rows(&expected, "self", "retained")
    );

    let sampled = json_array(&expected["sampled_nodes"]);
    assert_eq!(sampled.len() as u64, SHAPE.node_count().div_ceil(every));
    let mut args: Vec<String> = ["heap", "node", path, "--json"].map(String::from).to_vec();
    args.extend(sampled.iter().map(|n| n["id"].to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let nodes = jsprof_json(&args);
    for (o, t) in json_array(&nodes["nodes"]).iter().zip(sampled) {
        let id = &t["id"];
        assert_eq!(&o["id"], id);
        assert_eq!(o["name"], t["name"], "@{id}");
        assert_eq!(o["type"], t["type"], "@{id}");
        assert_eq!(o["self_size"], t["self"], "@{id}");
        assert_eq!(o["retained_size"], t["retained"], "@{id}");
        // DevTools shows `−` past its system distance (the synthetic root's 100000000); our JSON
        // writes that as null.
        assert_eq!(
            o["distance"],
            crate::heap::shown_distance(&t["distance"]),
            "@{id}"
        );
        assert_eq!(o["dominator_id"], t["dominator_id"], "@{id}");
    }

    // The construction's claims are DevTools' numbers: its own worker agrees on every figure.
    if let Some(theirs) = oracle(&file, every) {
        for key in ["node_count", "total_size", "statistics", "sampled_nodes"] {
            assert_eq!(theirs[key], expected[key], "oracle {key}");
        }
        assert_eq!(
            rows(&theirs, "self", "retained"),
            rows(&expected, "self", "retained")
        );
    }
}

fn gunzip(path: &str) -> Vec<u8> {
    let file = std::fs::File::open(crate::support::fixture_arg(path)).unwrap();
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(file), &mut text).unwrap();
    text
}

/// Summary rows by key as `(count, self, retained)` and the distance shown (null past the
/// system distance, as our JSON writes it).
fn rows_shown(v: &Value, self_key: &str, retained_key: &str) -> HashMap<String, ([i64; 3], Value)> {
    json_array(&v["classes"])
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_i64().unwrap();
            (
                c["key"].as_str().unwrap().to_string(),
                (
                    [n("count"), n(self_key), n(retained_key)],
                    crate::heap::shown_distance(&c["distance"]),
                ),
            )
        })
        .collect()
}

/// Whether DevTools names a class's objects by their properties (`{a, b}`), or is the plain
/// `Object` they come from: how it groups those depends on how many objects share a shape, so
/// copies of a heap regroup them.
fn inferred(key: &str) -> bool {
    key == ",Object" || key.starts_with(",{")
}

/// The bench's honest big input (`heapgen --replicate`): K copies of a recorded heap under one
/// root give DevTools' numbers for the original K times — checked on a recorded snapshot
/// against its DevTools golden, and against DevTools' own worker on the copy.
#[test]
fn a_replicated_recorded_heap_gives_k_times_devtools_numbers() {
    const K: i64 = 4;
    let original = gunzip("heap/leak-3-final.heapsnapshot.gz");
    let golden: Value =
        serde_json::from_slice(&gunzip("heap/leak-3-final.heapsnapshot.devtools.json.gz")).unwrap();
    let mut text = Vec::new();
    replicate::replicate(&original, K as u64, replicate::IdPlan::Auto, &mut text).unwrap();
    let file = temp_file("replicated.heapsnapshot", &text);
    let ours = jsprof_json(&[
        "heap",
        "summary",
        file.to_str().unwrap(),
        "--json",
        "--limit",
        "0",
        "--no-cache",
    ]);
    assert_eq!(
        ours["node_count"].as_i64().unwrap(),
        1 + K * (golden["node_count"].as_i64().unwrap() - 1)
    );
    // The root's self size is 0: the total is K times the original's.
    assert_eq!(
        ours["total_size"].as_i64().unwrap(),
        K * golden["total_size"].as_i64().unwrap()
    );
    fn scaled(v: &Value, k: i64) -> Value {
        match v {
            Value::Object(m) => {
                Value::Object(m.iter().map(|(n, x)| (n.clone(), scaled(x, k))).collect())
            }
            x => (x.as_i64().unwrap() * k).into(),
        }
    }
    assert_eq!(ours["statistics"], scaled(&golden["statistics"], K));
    let ours_rows = rows_shown(&ours, "self_size", "retained_size");
    let want = rows_shown(&golden, "self", "retained");
    let (mut checked, mut ours_group, mut want_group) = (0, [0i64; 2], [0i64; 2]);
    for (key, ([count, own, retained], distance)) in &want {
        if inferred(key) {
            want_group[0] += K * count;
            want_group[1] += K * own;
            continue;
        }
        let (got, got_distance) = &ours_rows[key];
        assert_eq!(*got, [K * count, K * own, K * retained], "{key}");
        assert_eq!(got_distance, distance, "{key}");
        checked += 1;
    }
    for (key, ([count, own, _], _)) in &ours_rows {
        if inferred(key) {
            ours_group[0] += count;
            ours_group[1] += own;
        } else {
            assert!(
                want.contains_key(key),
                "a class the original has not: {key}"
            );
        }
    }
    assert_eq!(ours_group, want_group, "plain objects' count and self size");
    assert!(checked > 100, "{checked} classes compared");
    // And DevTools itself on the copy: every figure equal to ours.
    if let Some(theirs) = oracle(&file, 1000) {
        for key in ["node_count", "total_size", "statistics"] {
            assert_eq!(theirs[key], ours[key], "oracle {key}");
        }
        assert_eq!(rows_shown(&theirs, "self", "retained"), ours_rows);
    }
}

/// The generator's header is honest: its claimed counts are the rows it writes.
#[test]
fn generated_header_counts_are_the_rows() {
    let (text, _) = generated(&SHAPE, 1000);
    let file = temp_file("counted.heapsnapshot", &text);
    let v = jsprof_json(&["heap", "stats", file.to_str().unwrap(), "--json"]);
    assert_eq!(v["warnings"], Value::Array(vec![]));
    assert_eq!(v["node_count"], SHAPE.node_count());
}

/// Replaces the first occurrence of `from` after byte `after` with `to` (same length or not).
fn replace_after(text: &[u8], after: usize, from: &str, to: &str) -> Vec<u8> {
    let at = after
        + text[after..]
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .unwrap_or_else(|| panic!("{from:?} not found"));
    [&text[..at], to.as_bytes(), &text[at + from.len()..]].concat()
}

fn failure(name: &str, bytes: &[u8]) -> String {
    let file = temp_file(name, bytes);
    let out = jsprof(&["heap", "summary", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(file.to_str().unwrap()), "{name}: {err}");
    err
}

fn position(text: &[u8], s: &str) -> usize {
    text.windows(s.len())
        .position(|w| w == s.as_bytes())
        .unwrap()
}

#[test]
fn claims_past_u32_load_with_a_warning_and_no_reservation() {
    let (text, expected) = generated(&SHAPE, 1000);
    let nodes = SHAPE.node_count().to_string();
    let edges = SHAPE.edge_count().to_string();
    let text = replace_after(
        &text,
        0,
        &format!("\"node_count\":{nodes}"),
        "\"node_count\":2147483648",
    );
    // 2^33 edges: more than a u32 edge ordinal holds, in a 100 KB file.
    let text = replace_after(
        &text,
        0,
        &format!("\"edge_count\":{edges}"),
        "\"edge_count\":8589934592",
    );
    let file = temp_file("claims.heapsnapshot", &text);
    let v = jsprof_json(&all_rows(&["heap", "summary"], file.to_str().unwrap()));
    assert_eq!(v["total_size"], expected["total_size"]);
    let warned = |field: &str| {
        json_array(&v["warnings"])
            .iter()
            .any(|w| w["at"].as_str().unwrap().contains(field))
    };
    assert!(
        warned("node_count") && warned("edge_count"),
        "{}",
        v["warnings"]
    );
}

#[test]
fn damage_at_scale_names_the_offset() {
    let (text, _) = generated(&SHAPE, 1000);
    let edges_at = position(&text, "\"edges\":[");

    // Cut inside the edges: the message names the byte where the text ended.
    let cut = edges_at + (text.len() - edges_at) / 2;
    let err = failure("cut.heapsnapshot", &text[..cut]);
    assert!(err.contains(&format!("byte {cut}")), "{err}");

    // The root's edge count (the first node row's fifth field) one too high: counts disagree.
    let root_row = format!("\"nodes\":[9,0,1,0,{}", SHAPE.clusters);
    let bumped = format!("\"nodes\":[9,0,1,0,{}", SHAPE.clusters + 1);
    let err = failure(
        "counts.heapsnapshot",
        &replace_after(&text, 0, &root_row, &bumped),
    );
    assert!(err.contains("edge counts add up to"), "{err}");

    // An edge whose target lies past the last node: `to_node` of the first edge.
    let past = SHAPE.node_count() * 7;
    let first_edge = format!(
        "\"edges\":[1,0,{}",
        SHAPE.ordinal(heapgen::Role::Head { k: 0 }) * 7
    );
    let err = failure(
        "past.heapsnapshot",
        &replace_after(&text, 0, &first_edge, &format!("\"edges\":[1,0,{past}")),
    );
    assert!(
        err.contains("points past the last node") && err.contains("byte"),
        "{err}"
    );
}
