//! Heap exploration commands (diff, retainers, dominators, strings, detached, leaks, allocations)
//! against the heap oracle's goldens and the fixtures' known truths.

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{argv, fixtures, golden, json_array, jsprof_json};

use crate::heap::input;

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
        let ours = jsprof_json(&argv(
            "heap diff {} {} --json --limit 0",
            &[
                &input(&format!("{base}.heapsnapshot")),
                &input(&format!("{target}.heapsnapshot")),
            ],
        ));
        assert_eq!(ours["kind"], "heapsnapshot");
        assert_eq!(ours["warnings"], Value::Array(vec![]), "{diff}: warnings");
        let theirs = golden_of(&format!("{diff}.diff.devtools"));
        let (rows, expected) = crate::heap::classes(&ours, &theirs, diff);
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
    let ours = jsprof_json(&argv(
        "heap diff {} {} --json",
        &[
            &input("node-small.heapsnapshot"),
            &input("detached.heapsnapshot"),
        ],
    ));
    let warnings = json_array(&ours["warnings"]);
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

/// `jsprof heap retainers leak-3-final SESSION_ID --json --paths PATHS`.
fn session_retainers(paths: u32) -> Value {
    jsprof_json(&argv(
        "heap retainers {} {} --json --paths {}",
        &[
            &input("leak-3-final.heapsnapshot"),
            &SESSION_ID,
            &paths.to_string(),
        ],
    ))
}

#[test]
fn retainers_of_a_leaked_session_go_through_sessions_leak() {
    let ours = session_retainers(3);
    assert_eq!(ours["object"]["class"], "Session");
    let paths = json_array(&ours["paths"]);
    assert!(
        !paths.is_empty() && paths.len() <= 3,
        "{} paths",
        paths.len()
    );
    // The first path is a shortest one: each retainer is one step closer to the roots, down to a
    // direct child of the root (distance 1).
    let first = json_array(&paths[0]["steps"]);
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
        let steps = json_array(&path["steps"]);
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
    let retainers = session_retainers(1);
    let array = &retainers["paths"][0]["steps"][0]["retainer"];
    let array_id = array["id"].to_string();
    let tree = jsprof_json(&argv(
        "heap dominators {} --id {} --depth 1 --limit 0 --json",
        &[&input("leak-3-final.heapsnapshot"), &array_id],
    ));
    let root = &tree["root"];
    assert_eq!(root["id"].to_string(), array_id);
    assert_eq!(root["retained_size"], array["retained_size"]);
    let children = json_array(&root["children"]);
    // node-leak.js leaves six sessions in the array by the final snapshot.
    let sessions: Vec<&Value> = children
        .iter()
        .filter(|c| c["class"] == "Session")
        .collect();
    assert_eq!(sessions.len(), 6);
    assert!(sessions
        .iter()
        .any(|c| c["id"] == SESSION_ID.parse::<u64>().unwrap()));
    // Largest first, and the children fit in the array's retained size.
    let sizes: Vec<u64> = children
        .iter()
        .map(|c| c["retained_size"].as_u64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    assert!(sizes.iter().sum::<u64>() <= root["retained_size"].as_u64().unwrap());

    // From the root, with a size floor: every listed object retains at least that much.
    let top = jsprof_json(&argv(
        "heap dominators {} --depth 2 --min-size 10000 --json",
        &[&input("leak-3-final.heapsnapshot")],
    ));
    assert_eq!(top["root"]["name"], "(root)");
    fn check(node: &Value) {
        for c in json_array(&node["children"]) {
            assert!(c["retained_size"].as_u64().unwrap() >= 10000);
            check(c);
        }
    }
    check(&top["root"]);
}

/// `jsprof heap leaks` of the three leak snapshots, `--json` and `flags`.
fn leaks(flags: &[&str]) -> Value {
    let files = ["leak-1-baseline", "leak-2-target", "leak-3-final"]
        .map(|n| input(&format!("{n}.heapsnapshot")));
    let mut args = vec!["heap", "leaks"];
    args.extend(files.iter().map(String::as_str));
    args.push("--json");
    args.extend_from_slice(flags);
    jsprof_json(&args)
}

#[test]
fn leaks_put_the_sessions_first_through_sessions_leak() {
    let ours = leaks(&["--limit", "0"]);
    let groups = json_array(&ours["groups"]);
    let first = &groups[0];
    // node-leak.js: three sessions made between baseline and target, all still held in final.
    assert_eq!(first["class"], "Session");
    assert_eq!(first["count"], 3);
    let path = json_array(&first["path"]);
    assert!(
        path.iter().any(|s| s["edge"] == ".sessionsLeak"),
        "{path:?}"
    );
    assert_eq!(path.last().unwrap()["class"], "Array");
    assert_eq!(path.last().unwrap()["edge"], "[]");
    // Retained sizes are sorted, and the sample is a Session of the final snapshot.
    let sizes: Vec<u64> = groups
        .iter()
        .map(|g| g["retained_size"].as_u64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    let sample = first["sample_id"].to_string();
    let node = jsprof_json(&argv(
        "heap node {} {} --json",
        &[&input("leak-3-final.heapsnapshot"), &sample],
    ));
    assert_eq!(node["nodes"][0]["name"], "Session");

    // A floor hides the small groups.
    let big = leaks(&["--min-retained", "100000"]);
    for g in json_array(&big["groups"]) {
        assert!(g["retained_size"].as_u64().unwrap() >= 100000);
    }
    assert_eq!(big["groups"][0]["class"], "Session");
}

#[test]
fn detached_finds_the_twenty_section_trees() {
    let ours = jsprof_json(&argv(
        "heap detached {} --json --limit 0",
        &[&input("detached.heapsnapshot")],
    ));
    let sections: Vec<&Value> = json_array(&ours["trees"])
        .iter()
        .filter(|t| t["root"]["class"] == "Detached <section>")
        .collect();
    assert_eq!(sections.len(), 20);
    let sum: i64 = sections
        .iter()
        .map(|t| t["retained_size"].as_i64().unwrap())
        .sum();
    // DevTools' Summary row for the class (the oracle's golden).
    let golden = golden_of("detached.heapsnapshot.devtools");
    let class = json_array(&golden["classes"])
        .iter()
        .find(|c| c["key"] == ",Detached <section>")
        .unwrap();
    assert_eq!(Some(sum), class["retained"].as_i64());
    for t in &sections {
        assert!(t["node_count"].as_u64().unwrap() > 1);
        let path = json_array(&t["retaining_path"]);
        assert!(!path.is_empty(), "a detached tree is held by something");
    }
}

#[test]
fn strings_count_the_known_duplicates() {
    let ours = jsprof_json(&argv(
        "heap strings {} --json --limit 0",
        &[&input("node-small.heapsnapshot")],
    ));
    let by_value: HashMap<&str, &Value> = json_array(&ours["strings"])
        .iter()
        .map(|g| (g["value"].as_str().unwrap(), g))
        .collect();
    // node-heap.js keeps 2000 joins of 'same-string-' + i % 3 and 20000 orders with 'sku-' + i % 50.
    assert_eq!(by_value["same-string-0"]["count"], 667);
    assert_eq!(by_value["same-string-1"]["count"], 667);
    assert_eq!(by_value["same-string-2"]["count"], 666);
    assert_eq!(by_value["sku-0"]["count"], 400);
    for g in by_value.values() {
        let total = g["total_size"].as_u64().unwrap();
        let wasted = g["wasted_size"].as_u64().unwrap();
        assert!(g["count"].as_u64().unwrap() >= 2);
        assert!(wasted < total);
    }
    let wasted: Vec<u64> = json_array(&ours["strings"])
        .iter()
        .map(|g| g["wasted_size"].as_u64().unwrap())
        .collect();
    assert!(wasted.windows(2).all(|w| w[0] >= w[1]));
}

/// Finds a stack by function name in a top-down or bottom-up tree.
fn find_stack<'a>(stacks: &'a [Value], name: &str) -> Option<&'a Value> {
    for s in stacks {
        if s["name"] == name {
            return Some(s);
        }
        for key in ["children", "callers"] {
            if let Some(found) = s[key].as_array().and_then(|c| find_stack(c, name)) {
                return Some(found);
            }
        }
    }
    None
}

#[test]
fn allocations_show_the_known_site_with_its_live_objects() {
    // fixtures/heap/alloc-known.js: allocateKnown makes exactly 1000 KnownThing objects, all kept.
    let file = input("alloc-known.heaptimeline");
    let top_down = jsprof_json(&["heap", "allocations", &file, "--json"]);
    assert_eq!(top_down["kind"], "heaptimeline");
    assert_eq!(top_down["view"], "top-down");
    let site = find_stack(json_array(&top_down["stacks"]), "allocateKnown").unwrap();
    assert_eq!(site["count"], 1000);
    assert_eq!(site["live_count"], 1000);
    assert!(site["url"].as_str().unwrap().ends_with("alloc-known.js"));
    assert_eq!(site["line"], 15);

    let bottom_up = jsprof_json(&["heap", "allocations", &file, "--bottom-up", "--json"]);
    let stacks = json_array(&bottom_up["stacks"]);
    let top = stacks
        .iter()
        .find(|s| s["name"] == "allocateKnown")
        .unwrap();
    assert_eq!(top["live_count"], 1000);
    assert_eq!(top["count"], 1000);

    // The live objects are the KnownThing instances (DevTools' Summary counts the class).
    let summary = jsprof_json(&["heap", "summary", &file, "--json", "--limit", "0"]);
    let known = json_array(&summary["classes"])
        .iter()
        .find(|c| c["name"] == "KnownThing")
        .unwrap();
    assert_eq!(known["count"], 1000);
    assert_eq!(known["self_size"], site["live_size"]);

    // A plain snapshot has no allocation stacks: exit 2 with the file's name.
    let out = crate::support::jsprof(&["heap", "allocations", &input("node-small.heapsnapshot")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("node-small.heapsnapshot"));
}

/// Node.js's embedder objects (`Node / BindingData`, …) are marked detached by V8 and named
/// `Detached Node / BindingData` in DevTools' Summary, which jsprof keeps (the DevTools golden's
/// count); but they are not DOM, so `heap detached` lists no tree for them and says why.
#[test]
fn nodes_own_detached_objects_are_not_detached_dom() {
    let file = fixtures().join("heap/leak-1-baseline.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    let want = golden_of("leak-1-baseline.heapsnapshot.devtools");
    let count = |classes: &Value, name: &str| {
        json_array(classes)
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["count"].as_i64().unwrap())
    };
    let summary = jsprof_json(&["heap", "summary", f, "--json", "--limit", "0"]);
    let name = "Detached Node / BindingData";
    assert!(
        count(&want["classes"], name).unwrap_or(0) > 0,
        "the golden has them"
    );
    assert_eq!(
        count(&summary["classes"], name),
        count(&want["classes"], name)
    );

    let detached = jsprof_json(&["heap", "detached", f, "--json", "--limit", "0"]);
    assert_eq!(detached["trees"], serde_json::json!([]), "{detached}");
    let out = crate::support::jsprof(&["heap", "detached", f]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no detached DOM trees"), "{err}");

    // A browser snapshot's detached DOM is still found.
    let dom = fixtures().join("heap/detached.heapsnapshot.gz");
    let detached = jsprof_json(&["heap", "detached", dom.to_str().unwrap(), "--json"]);
    assert!(!json_array(&detached["trees"]).is_empty());
}

/// `heap edges` lists what DevTools' Containment and Retainers views list, in their order: the
/// root's edges and a sampled node's retainers (and edges) of `leak-3-final`, first 60 and total,
/// against DevTools' edge providers (`leak-3-final.heapsnapshot.edges.devtools.json.gz`).
#[test]
fn edges_are_devtools_containment_and_retainers() {
    let file = input("leak-3-final.heapsnapshot");
    let want = golden_of("leak-3-final.heapsnapshot.edges.devtools")["result"].clone();
    let listed = |object: &str, retainers: bool| {
        let mut args = vec!["heap", "edges", &file, object, "--limit", "60", "--json"];
        if retainers {
            args.push("--retainers");
        }
        let r = jsprof_json(&args);
        let items: Vec<Value> = json_array(&r["edges"])
            .iter()
            .map(|e| serde_json::json!([e["edge_type"], e["edge_name"], e["object"]["id"]]))
            .collect();
        serde_json::json!({"total": r["total"], "items": items})
    };
    assert_eq!(listed("root", false), want["root"]["containment"]);
    // The sampled node with the most retainers, and the one with the most edges.
    let nodes = want["nodes"].as_object().unwrap();
    let most = |view: &str| {
        nodes
            .iter()
            .max_by_key(|(_, v)| v[view]["total"].as_u64())
            .map(|(id, _)| id.clone())
            .unwrap()
    };
    let id = most("retainers");
    assert_eq!(
        listed(&id, true),
        nodes[&id]["retainers"],
        "retainers of @{id}"
    );
    let id = most("containment");
    assert_eq!(
        listed(&id, false),
        nodes[&id]["containment"],
        "edges of @{id}"
    );
}

/// `heap summary FINAL --between FIRST SECOND`: the classes DevTools' "Objects allocated between
/// Snapshot 1 and Snapshot 2" filter shows (`leak-3-final.between-1-2.devtools.json.gz`); the
/// two given newest first are taken in time order, with a warning, not an empty Summary.
#[test]
fn summary_between_is_devtools_filter_in_either_order() {
    let (base, target, fin) = (
        input("leak-1-baseline.heapsnapshot"),
        input("leak-2-target.heapsnapshot"),
        input("leak-3-final.heapsnapshot"),
    );
    let want = golden(&fixtures().join("heap/leak-3-final.between-1-2.devtools.json.gz"));
    let want = &want["result"];
    let run = |first: &str, second: &str| {
        jsprof_json(&argv(
            "heap summary {} --between {} {} --limit 0 --json",
            &[&fin, &first, &second],
        ))
    };
    let forward = run(&base, &target);
    assert_eq!(forward["between"]["after_id"], want["min"]);
    assert_eq!(forward["between"]["up_to_id"], want["max"]);
    // Ours name the self size `self_size`, the golden `self`.
    let counts = |classes: &Value, self_key: &str| -> HashMap<String, (i64, i64)> {
        json_array(classes)
            .iter()
            .map(|c| {
                (
                    c["key"].as_str().unwrap().to_string(),
                    (c["count"].as_i64().unwrap(), c[self_key].as_i64().unwrap()),
                )
            })
            .collect()
    };
    assert_eq!(
        counts(&forward["classes"], "self_size"),
        counts(&want["classes"], "self"),
        "the filtered Summary's classes, counts and self sizes"
    );
    assert_eq!(forward["warnings"], serde_json::json!([]));
    let backward = run(&target, &base);
    assert_eq!(backward["between"], forward["between"]);
    assert_eq!(backward["classes"], forward["classes"]);
    let message = backward["warnings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("was taken after") && message.contains("leak-1-baseline"),
        "{message}"
    );
}
