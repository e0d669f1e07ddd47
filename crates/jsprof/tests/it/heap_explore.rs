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

/// A `Session` object of `leak-3-final` (read from the fixture's nodes: class `Session`, one of the
/// three that `node-leak.js` pushed into `sessionsLeak` before the target snapshot).
const SESSION_ID: &str = "79193";

#[test]
fn retainers_of_a_leaked_session_go_through_sessions_leak() {
    let ours = jsprof_json(&[
        "heap",
        "retainers",
        &input("leak-3-final.heapsnapshot"),
        SESSION_ID,
        "--json",
        "--paths",
        "3",
    ]);
    assert_eq!(ours["object"]["class"], "Session");
    let paths = ours["paths"].as_array().unwrap();
    assert!(
        !paths.is_empty() && paths.len() <= 3,
        "{} paths",
        paths.len()
    );
    // The first path is a shortest one: each retainer is one step closer to the roots, down to a
    // direct child of the root (distance 1).
    let first = paths[0]["steps"].as_array().unwrap();
    let distance = ours["object"]["distance"].as_i64().unwrap();
    assert_eq!(first.len() as i64, distance - 1);
    for (i, step) in first.iter().enumerate() {
        assert_eq!(
            step["retainer"]["distance"].as_i64(),
            Some(distance - 1 - i as i64)
        );
    }
    assert_eq!(first[0]["edge_type"], "element");
    assert_eq!(first[0]["retainer"]["class"], "Array");
    assert!(
        first
            .iter()
            .any(|s| s["edge_name"] == "sessionsLeak" && s["edge_type"] == "property"),
        "{first:?}"
    );
    // Distinct paths, shortest first, each ending at a node the root holds.
    let mut seen = std::collections::HashSet::new();
    let mut previous = 0;
    for path in paths {
        let steps = path["steps"].as_array().unwrap();
        assert!(steps.len() >= previous);
        previous = steps.len();
        let last = &steps.last().unwrap()["retainer"];
        assert!(
            last["distance"] == 1 || last["name"] == "(GC roots)",
            "{last:?}"
        );
        assert!(seen.insert(path.to_string()), "duplicate path");
    }
}

#[test]
fn dominators_show_the_leak_array_dominating_the_sessions() {
    let retainers = jsprof_json(&[
        "heap",
        "retainers",
        &input("leak-3-final.heapsnapshot"),
        SESSION_ID,
        "--json",
        "--paths",
        "1",
    ]);
    let array = &retainers["paths"][0]["steps"][0]["retainer"];
    let array_id = array["id"].to_string();
    let tree = jsprof_json(&[
        "heap",
        "dominators",
        &input("leak-3-final.heapsnapshot"),
        "--id",
        &array_id,
        "--depth",
        "1",
        "--limit",
        "0",
        "--json",
    ]);
    let root = &tree["root"];
    assert_eq!(root["id"].to_string(), array_id);
    assert_eq!(root["retained_size"], array["retained_size"]);
    let children = root["children"].as_array().unwrap();
    // node-leak.js leaves six sessions in the array by the final snapshot.
    let sessions: Vec<&Value> = children
        .iter()
        .filter(|c| c["class"] == "Session")
        .collect();
    assert_eq!(sessions.len(), 6);
    assert!(sessions.iter().any(|c| c["id"].to_string() == SESSION_ID));
    // Largest first, and the children fit in the array's retained size.
    let sizes: Vec<u64> = children
        .iter()
        .map(|c| c["retained_size"].as_u64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    assert!(sizes.iter().sum::<u64>() <= root["retained_size"].as_u64().unwrap());

    // From the root, with a size floor: every listed object retains at least that much.
    let top = jsprof_json(&[
        "heap",
        "dominators",
        &input("leak-3-final.heapsnapshot"),
        "--depth",
        "2",
        "--min-size",
        "10000",
        "--json",
    ]);
    assert_eq!(top["root"]["name"], "(root)");
    fn check(node: &Value) {
        for c in node["children"].as_array().unwrap() {
            assert!(c["retained_size"].as_u64().unwrap() >= 10000);
            check(c);
        }
    }
    check(&top["root"]);
}
