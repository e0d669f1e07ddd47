//! Issue 19's heap views you can walk, in the browser (`tests/node/ui-heap.mjs`), each against
//! what the CLI prints: the Retainers tree is `jsprof heap edges ID --retainers` level by level
//! (DevTools' order, the closest retainer's chain opened as DevTools opens it); the Containment
//! view is `jsprof heap edges root` and its pages; Duplicated strings are `jsprof heap
//! strings`, Advisors `jsprof heap advisors`; a `.heaptimeline`'s Allocation stacks are `jsprof
//! heap allocations`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{argv, fixtures, json_array, jsprof_json};
use crate::ui::view;

/// What the page asks for at a time (heapviews.js' EDGE_PAGE).
const EDGE_PAGE: usize = 50;
/// How deep DevTools opens the closest retainer's chain (`expandRetainersChain(20)`).
const CHAIN_LEVELS: usize = 20;

fn checks(case: &str, url: &str, expected: &Value) {
    crate::ui::node_case("ui-heap.mjs", case, url, expected);
}

/// `jsprof heap edges FILE OBJECT [--retainers] --offset --limit --json`.
fn edges(file: &Path, object: &str, retainers: bool, offset: usize) -> Value {
    let (offset, limit) = (offset.to_string(), EDGE_PAGE.to_string());
    let mut args = vec!["heap", "edges", file.to_str().unwrap(), object, "--json"];
    args.extend(["--offset", &offset, "--limit", &limit]);
    if retainers {
        args.push("--retainers");
    }
    jsprof_json(&args)
}

/// A page's rows as the test compares them: `[edge, id]`.
fn rows(report: &Value) -> Vec<Value> {
    json_array(&report["edges"])
        .iter()
        .map(|e| json!([e["edge"], e["object"]["id"]]))
        .collect()
}

fn leak_final() -> PathBuf {
    fixtures().join("heap/leak-3-final.heapsnapshot.gz")
}

/// The leak fixture's three snapshots, baseline, target and final.
pub(crate) fn leak_series() -> Vec<PathBuf> {
    let f = fixtures();
    ["leak-1-baseline", "leak-2-target", "leak-3-final"]
        .iter()
        .map(|n| f.join(format!("heap/{n}.heapsnapshot.gz")))
        .collect()
}

/// A leaked `Session` of the leak fixture (`jsprof heap leaks`' largest group's sample).
fn leaked_session() -> u64 {
    let files = leak_series();
    let mut args = vec!["heap", "leaks", "--json"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let leaks = jsprof_json(&args);
    let group = json_array(&leaks["groups"])
        .iter()
        .find(|g| g["class"] == "Session")
        .expect("a Session leak group");
    group["sample_id"].as_u64().unwrap()
}

/// The Retainers of a leaked object: the first level is `heap edges --retainers`'s page, and
/// the closest retainer opens level after level while it is more than one step from a root,
/// each level `heap edges --retainers` of the row above; another retainer opens on demand.
#[test]
fn retainers_tree_is_heap_edges() {
    let file = leak_final();
    let id = leaked_session();
    let mut levels = Vec::new();
    let mut object = id.to_string();
    loop {
        let page = edges(&file, &object, true, 0);
        levels.push(json!({"total": page["total"], "rows": rows(&page)}));
        let first = &page["edges"][0];
        if levels.len() >= CHAIN_LEVELS || first.is_null() || first["edge_count"] == 0 {
            break;
        }
        match first["object"]["distance"].as_u64() {
            Some(d) if d > 1 => object = first["object"]["id"].to_string(),
            _ => break,
        }
    }
    assert!(
        levels.len() >= 2,
        "a leaked Session is held through at least one retainer"
    );
    // The second retainer of the object (when it has one with retainers), opened by hand.
    let first_page = edges(&file, &id.to_string(), true, 0);
    let other = json_array(&first_page["edges"])
        .iter()
        .skip(1)
        .find(|e| e["edge_count"].as_u64() > Some(0))
        .map(|e| {
            let oid = e["object"]["id"].to_string();
            json!({"id": e["object"]["id"], "rows": rows(&edges(&file, &oid, true, 0))})
        });
    let Some(v) = view(&[file]) else { return };
    checks(
        "retainers",
        &v.url,
        &json!({"id": id, "levels": levels, "other": other}),
    );
}

/// The Containment view starts at the snapshot's root with `heap edges root`'s edges; an
/// object with more edges than a page lists `heap edges ID`'s first page, and "more" the next.
#[test]
fn containment_is_heap_edges() {
    let file = fixtures().join("heap/node-small.heapsnapshot.gz");
    let root = edges(&file, "root", false, 0);
    // The first object under the root, or under one of its first children, with more than a
    // page of edges.
    let mut big = None;
    'search: for parent in [&root].into_iter().cloned().chain(
        json_array(&root["edges"])
            .iter()
            .take(3)
            .map(|e| edges(&file, &e["object"]["id"].to_string(), false, 0)),
    ) {
        for e in json_array(&parent["edges"]) {
            if e["edge_count"].as_u64().unwrap() as usize > EDGE_PAGE {
                big = Some((parent["object"]["id"].clone(), e["object"]["id"].clone()));
                break 'search;
            }
        }
    }
    let (parent, big) = big.expect("an object with more than a page of edges");
    let parent_is_root = parent == root["object"]["id"];
    let expected = json!({
        "root": {"total": root["total"], "rows": rows(&root)},
        "parent": if parent_is_root { Value::Null } else { parent.clone() },
        "big": big,
        "pages": [
            rows(&edges(&file, &big.to_string(), false, 0)),
            rows(&edges(&file, &big.to_string(), false, EDGE_PAGE)),
        ],
    });
    let Some(v) = view(&[file]) else { return };
    checks("containment", &v.url, &expected);
}

/// The Strings tab lists `jsprof heap strings`'s values with their counts and sizes, and a
/// selected value shows the retainers of its sample copy; the Advisors tab lists `jsprof heap
/// advisors`' findings, each selecting the retainers of its largest object.
#[test]
fn strings_are_heap_strings() {
    let file = leak_final();
    let report = jsprof_json(&argv("heap strings {} --limit 500 --json", &[&file]));
    assert!(
        report["total"].as_u64().unwrap() > 0,
        "no duplicated strings"
    );
    let advisors = jsprof_json(&argv("heap advisors {} --limit 500 --json", &[&file]));
    assert!(
        advisors["total"].as_u64().unwrap() > 1,
        "too few findings to check their order"
    );
    let Some(v) = view(&[file]) else { return };
    checks("strings", &v.url, &report);
    checks("advisors", &v.url, &advisors);
}

/// A `.heaptimeline` has an Allocations tab: its allocating functions (and, in the call-tree
/// mode, its top-down stacks) are `jsprof heap allocations`'s; a plain snapshot has no such tab.
#[test]
fn allocations_are_heap_allocations() {
    let file = fixtures().join("heap/alloc-known.heaptimeline.gz");
    let path = file.to_str().unwrap();
    let bottom_up = jsprof_json(&["heap", "allocations", path, "--bottom-up", "--json"]);
    let top_down = jsprof_json(&["heap", "allocations", path, "--json"]);
    let Some(v) = view(&[file]) else { return };
    checks(
        "allocations",
        &v.url,
        &json!({"bottom_up": bottom_up, "top_down": top_down}),
    );
    drop(v);
    let Some(v) = view(&[leak_final()]) else {
        return;
    };
    checks(
        "tabs",
        &v.url,
        &json!({"present": ["containment", "strings"], "absent": ["allocations"]}),
    );
}

/// Objects per page of a Comparison row (heap.js' COMPARISON_PAGE).
const OBJECT_PAGE: usize = 20;

/// `jsprof heap diff BASE TARGET --class KEY --offset --limit --json`.
fn class_objects(base: &Path, target: &Path, key: &str, offset: usize) -> Value {
    let (offset, limit) = (offset.to_string(), OBJECT_PAGE.to_string());
    jsprof_json(&argv(
        "heap diff {} {} --class {} --offset {} --limit {} --json",
        &[&base, &target, &key, &offset, &limit],
    ))
}

/// A Comparison row expands to `jsprof heap diff --class KEY`'s new and deleted objects, and its
/// "more" row to the next page of new ones.
#[test]
fn comparison_rows_expand_to_heap_diff_class() {
    let f = fixtures();
    let base = f.join("heap/leak-1-baseline.heapsnapshot.gz");
    let target = leak_final();
    let diff = jsprof_json(&argv("heap diff {} {} --json --limit 0", &[&base, &target]));
    let classes = json_array(&diff["classes"]);
    // The row with the most new objects (more than a page, so that "more" has work), and
    // deleted ones too when there is such a row.
    let row = classes
        .iter()
        .filter(|c| c["new_count"].as_u64().unwrap() as usize > OBJECT_PAGE)
        .max_by_key(|c| {
            (
                c["deleted_count"].as_u64() > Some(0),
                c["new_count"].as_u64(),
            )
        })
        .expect("a class with more than a page of new objects");
    let key = row["key"].as_str().unwrap();
    let first = class_objects(&base, &target, key, 0);
    let second = class_objects(&base, &target, key, OBJECT_PAGE);
    assert_eq!(first["new"]["total"], row["new_count"]);
    assert_eq!(first["deleted"]["total"], row["deleted_count"]);
    let ids = |page: &Value| -> Value {
        json_array(&page["objects"])
            .iter()
            .map(|o| o["id"].clone())
            .collect()
    };
    let expected = json!({
        "target": "leak-3-final",
        "key": key,
        "row": row,
        "new": [ids(&first["new"]), ids(&second["new"])],
        "deleted": ids(&first["deleted"]),
    });
    let Some(v) = view(&[base, target]) else {
        return;
    };
    checks("comparison", &v.url, &expected);
}

/// The Summary's "Objects allocated between" filter is `jsprof heap summary FINAL --between
/// BASE TARGET` (which the heap tests hold to DevTools' own filter), and a class of it expands to
/// as many objects as it counts.
#[test]
fn summary_between_snapshots_is_heap_summary_between() {
    let files = leak_series();
    let path = |i: usize| files[i].to_str().unwrap();
    let report = jsprof_json(&argv(
        "heap summary {} --between {} {} --limit 0 --json",
        &[&path(2), &path(0), &path(1)],
    ));
    assert!(json_array(&report["classes"]).len() > 5);
    let expected = json!({
        "target": "leak-3-final",
        "first": "leak-1-baseline",
        "second": "leak-2-target",
        "report": report,
    });
    let Some(v) = view(&files) else { return };
    checks("between", &v.url, &expected);
}
