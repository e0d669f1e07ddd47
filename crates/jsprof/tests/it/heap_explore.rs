//! Heap exploration commands (diff, retainers, dominators, strings, detached, leaks, allocations)
//! against the heap oracle's goldens and the fixtures' known truths.

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{fixtures, golden, jsprof_json};

fn input(name: &str) -> String {
    fixtures()
        .join("heap")
        .join(format!("{name}.gz"))
        .display()
        .to_string()
}

fn golden_of(name: &str) -> Value {
    golden(&fixtures().join("heap").join(format!("{name}.json.gz")))
}

/// Summary retained sizes by class key, from a snapshot's golden.
fn golden_retained(name: &str) -> HashMap<String, i64> {
    golden_of(&format!("{name}.heapsnapshot.devtools"))["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap().to_string(),
                c["retained"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn diff_matches_devtools_comparison_for_every_class() {
    for (base, target, diff) in [
        ("leak-1-baseline", "leak-2-target", "leak-1-to-2"),
        ("leak-2-target", "leak-3-final", "leak-2-to-3"),
    ] {
        let ours = jsprof_json(&[
            "heap",
            "diff",
            &input(&format!("{base}.heapsnapshot")),
            &input(&format!("{target}.heapsnapshot")),
            "--json",
            "--limit",
            "0",
        ]);
        assert_eq!(ours["kind"], "heapsnapshot");
        assert_eq!(ours["warnings"], Value::Array(vec![]), "{diff}: warnings");
        let theirs = golden_of(&format!("{diff}.diff.devtools"));
        let rows: HashMap<&str, &Value> = ours["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["key"].as_str().unwrap(), c))
            .collect();
        let expected = theirs["classes"].as_array().unwrap();
        assert_eq!(rows.len(), expected.len(), "{diff}: number of classes");
        let base_retained = golden_retained(base);
        let target_retained = golden_retained(target);
        for c in expected {
            let key = c["key"].as_str().unwrap();
            let row = rows
                .get(key)
                .unwrap_or_else(|| panic!("{diff}: class {key:?} missing"));
            for (ours, theirs) in [
                ("name", "name"),
                ("new_count", "added_count"),
                ("deleted_count", "removed_count"),
                ("count_delta", "count_delta"),
                ("alloc_size", "added_size"),
                ("freed_size", "removed_size"),
                ("size_delta", "size_delta"),
            ] {
                assert_eq!(row[ours], c[theirs], "{diff}: {key:?} {ours}");
            }
            let retained_delta = target_retained.get(key).copied().unwrap_or(0)
                - base_retained.get(key).copied().unwrap_or(0);
            assert_eq!(
                row["retained_delta"].as_i64(),
                Some(retained_delta),
                "{diff}: {key:?} retained_delta"
            );
        }
    }
}

#[test]
fn diff_warns_when_snapshots_share_no_ids() {
    let ours = jsprof_json(&[
        "heap",
        "diff",
        &input("node-small.heapsnapshot"),
        &input("detached.heapsnapshot"),
        "--json",
    ]);
    let warnings = ours["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w["message"]
            .as_str()
            .unwrap()
            .contains("share no object ids")),
        "{warnings:?}"
    );
}
