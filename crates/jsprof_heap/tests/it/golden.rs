//! Every fixture against the heap oracle's golden (DevTools' own numbers).

use std::collections::HashMap;

use jsprof_heap::{analyze_with, read_snapshot, summary, AnalyzeOptions, NodeOrdinal, SortBy};
use serde_json::Value;

use crate::fixture::{fixtures, golden};

/// Each fixture twice: all in memory, and with the columns the dominators do not read set aside
/// on disk while they run (forced however small the graph), as big snapshots are analysed.
fn check(name: &str) {
    check_with(name, &AnalyzeOptions::default(), "in memory");
    let spill = AnalyzeOptions {
        spill_dir: Some(std::env::temp_dir()),
        spill_min_bytes: 0,
    };
    let before = jsprof_heap::internals::spills();
    check_with(name, &spill, "spilled");
    assert!(
        jsprof_heap::internals::spills() > before,
        "{name}: the columns were not set aside"
    );
}

fn check_with(name: &str, options: &AnalyzeOptions, how: &str) {
    let dir = fixtures();
    let input =
        flate2::read::GzDecoder::new(std::fs::File::open(dir.join(format!("{name}.gz"))).unwrap());
    let mut snapshot = read_snapshot(std::io::BufReader::new(input)).expect("loads");
    let analysis = analyze_with(&mut snapshot, options).expect("analysed");
    let g = golden(&dir.join(format!("{name}.devtools.json.gz")));
    let mut problems = Vec::new();
    if g["node_count"].as_u64() != Some(snapshot.node_count() as u64) {
        problems.push(format!(
            "node_count {} vs {}",
            snapshot.node_count(),
            g["node_count"]
        ));
    }
    if g["total_size"].as_u64() != Some(analysis.total_size) {
        problems.push(format!(
            "total_size {} vs {}",
            analysis.total_size, g["total_size"]
        ));
    }
    let st = &analysis.statistics;
    let gs = &g["statistics"];
    // Each named by its path in DevTools' statistics.
    let pairs = [
        ("total", st.total as i64),
        ("native.total", st.native_total as i64),
        ("native.typedArrays", st.native_typed_arrays as i64),
        ("v8heap.total", st.v8heap_total),
        ("v8heap.code", st.code as i64),
        ("v8heap.jsArrays", st.js_arrays as i64),
        ("v8heap.strings", st.strings as i64),
        ("v8heap.system", st.system as i64),
    ];
    for (what, ours) in pairs {
        let theirs = what.split('.').fold(gs, |v, key| &v[key]);
        compare_number(
            &mut problems,
            "statistics",
            &format!(".{what}"),
            ours,
            theirs,
        );
    }
    let rows = summary(&snapshot, &analysis, SortBy::Retained);
    let ours: HashMap<&str, _> = rows.iter().map(|r| (r.key.as_str(), r)).collect();
    let classes = g["classes"].as_array().unwrap();
    if classes.len() != rows.len() {
        problems.push(format!(
            "class count: ours {}, DevTools {}",
            rows.len(),
            classes.len()
        ));
    }
    for c in classes {
        let key = c["key"].as_str().unwrap();
        let Some(r) = ours.get(key) else {
            problems.push(format!("class {key:?} missing"));
            continue;
        };
        let row = format!("class {key:?}");
        let fields = [
            ("count", r.count as i64, &c["count"]),
            ("self", r.self_size as i64, &c["self"]),
            ("retained", r.retained_size as i64, &c["retained"]),
            ("distance", r.distance as i64, &c["distance"]),
        ];
        for (what, ours, theirs) in fields {
            compare_number(&mut problems, &row, &format!(" {what}"), ours, theirs);
        }
        compare_text(&mut problems, &row, "name", &r.name, &c["name"]);
    }
    for node in g["sampled_nodes"].as_array().unwrap() {
        let ordinal = node["ordinal"].as_u64().unwrap() as u32;
        let info = analysis.node_info(&snapshot, NodeOrdinal::from_raw(ordinal));
        let fields = [
            ("id", info.id as i64, &node["id"]),
            ("self", info.self_size as i64, &node["self"]),
            ("retained", info.retained_size as i64, &node["retained"]),
            ("distance", info.distance as i64, &node["distance"]),
            (
                "dominator_id",
                info.dominator_id as i64,
                &node["dominator_id"],
            ),
        ];
        let row = format!("node #{ordinal}");
        for (what, ours, theirs) in fields {
            compare_number(&mut problems, &row, &format!(" {what}"), ours, theirs);
        }
        compare_text(&mut problems, &row, "type", &info.node_type, &node["type"]);
        compare_text(&mut problems, &row, "name", &info.name, &node["name"]);
    }
    let shown: Vec<_> = problems.iter().take(30).collect();
    assert!(
        problems.is_empty(),
        "{name} ({how}): {} differences from DevTools:\n{shown:#?}",
        problems.len()
    );
}

/// A line in `problems` when DevTools' number `theirs` is not `ours`: `ROW WHAT: ours …,
/// DevTools …` (`what` with its separator: ` count`, `.total`).
fn compare_number(problems: &mut Vec<String>, row: &str, what: &str, ours: i64, theirs: &Value) {
    if theirs.as_i64() != Some(ours) {
        problems.push(format!("{row}{what}: ours {ours}, DevTools {theirs}"));
    }
}

/// A line in `problems` when DevTools' string `theirs` is not `ours`.
fn compare_text(problems: &mut Vec<String>, row: &str, what: &str, ours: &str, theirs: &Value) {
    if theirs.as_str() != Some(ours) {
        problems.push(format!("{row} {what}: ours {ours:?}, DevTools {theirs}"));
    }
}

#[test]
fn detached() {
    check("detached.heapsnapshot");
}

#[test]
fn leak_baseline() {
    check("leak-1-baseline.heapsnapshot");
}

#[test]
fn leak_target() {
    check("leak-2-target.heapsnapshot");
}

#[test]
fn leak_final() {
    check("leak-3-final.heapsnapshot");
}

#[test]
fn node_small() {
    check("node-small.heapsnapshot");
}

#[test]
fn node_alloc_timeline_with_wrong_header() {
    check("node-alloc.heaptimeline");
}
