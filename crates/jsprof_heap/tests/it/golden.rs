//! Every fixture against the heap oracle's golden (DevTools' own numbers).

use std::collections::HashMap;

use jsprof_heap::{analyze_with, read_snapshot, summary, AnalyzeOptions, NodeOrdinal, SortBy};

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
    let pairs = [
        ("total", st.total as i64, &gs["total"]),
        (
            "native.total",
            st.native_total as i64,
            &gs["native"]["total"],
        ),
        (
            "native.typedArrays",
            st.native_typed_arrays as i64,
            &gs["native"]["typedArrays"],
        ),
        ("v8heap.total", st.v8heap_total, &gs["v8heap"]["total"]),
        ("v8heap.code", st.code as i64, &gs["v8heap"]["code"]),
        (
            "v8heap.jsArrays",
            st.js_arrays as i64,
            &gs["v8heap"]["jsArrays"],
        ),
        (
            "v8heap.strings",
            st.strings as i64,
            &gs["v8heap"]["strings"],
        ),
        ("v8heap.system", st.system as i64, &gs["v8heap"]["system"]),
    ];
    for (what, ours, theirs) in pairs {
        if theirs.as_i64() != Some(ours) {
            problems.push(format!("statistics.{what}: ours {ours}, DevTools {theirs}"));
        }
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
        let fields = [
            ("count", r.count as i64, &c["count"]),
            ("self", r.self_size as i64, &c["self"]),
            ("retained", r.retained_size as i64, &c["retained"]),
            ("distance", r.distance as i64, &c["distance"]),
        ];
        for (what, ours, theirs) in fields {
            if theirs.as_i64() != Some(ours) {
                problems.push(format!(
                    "class {key:?} {what}: ours {ours}, DevTools {theirs}"
                ));
            }
        }
        if c["name"].as_str() != Some(r.name.as_str()) {
            problems.push(format!(
                "class {key:?} name: ours {:?}, DevTools {}",
                r.name, c["name"]
            ));
        }
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
        for (what, ours, theirs) in fields {
            if theirs.as_i64() != Some(ours) {
                problems.push(format!(
                    "node #{ordinal} {what}: ours {ours}, DevTools {theirs}"
                ));
            }
        }
        if node["type"].as_str() != Some(info.node_type.as_str()) {
            problems.push(format!(
                "node #{ordinal} type: ours {:?}, DevTools {}",
                info.node_type, node["type"]
            ));
        }
        if node["name"].as_str() != Some(info.name.as_str()) {
            problems.push(format!(
                "node #{ordinal} name: ours {:?}, DevTools {}",
                info.name, node["name"]
            ));
        }
    }
    let shown: Vec<_> = problems.iter().take(30).collect();
    assert!(
        problems.is_empty(),
        "{name} ({how}): {} differences from DevTools:\n{shown:#?}",
        problems.len()
    );
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
