//! Issue 19's "wrong or hidden data" in the browser (`tests/node/ui-checks.mjs`), each against
//! what the CLI prints: the Statistics slices are `jsprof heap stats`'s; the flame graph shows
//! stacks deeper than its canvas (it scrolls, and follows a zoomed frame); the report's
//! Dominators view can be walked; a GC root's Retainers say so; no comparison tab without a
//! second file.

use std::path::PathBuf;

use crate::support::{argv, fixtures, json_array, jsprof, jsprof_json};
use crate::ui::{available, report, view};

fn checks(case: &str, url: &str, expected: &serde_json::Value) {
    crate::ui::node_case("ui-checks.mjs", case, url, expected);
}

/// `jsprof heap stats`'s human table as `[{name, bytes, text, half_unit}]`: the sizes as
/// printed (`615 KB`), with the rounding they carry.
fn stats_rows(file: &std::path::Path) -> serde_json::Value {
    let out = jsprof(&["heap", "stats", file.to_str().unwrap()]);
    assert!(out.status.success(), "jsprof heap stats");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut rows = Vec::new();
    for line in text.lines().skip(2) {
        if line.starts_with("Total") {
            break;
        }
        // NAME  SIZE UNIT  PCT %
        let words: Vec<&str> = line.split_whitespace().collect();
        let n = words.len();
        assert!(n >= 5, "a stats row: {line:?}");
        let (num, unit) = (words[n - 4], words[n - 3]);
        let scale = match unit {
            "B" => 1.0,
            "KB" => 1024.0,
            "MB" => 1024.0 * 1024.0,
            "GB" => 1024.0 * 1024.0 * 1024.0,
            u => panic!("unit {u:?} in {line:?}"),
        };
        let decimals = num.split('.').nth(1).map_or(0, str::len);
        let value: f64 = num.parse().unwrap();
        rows.push(serde_json::json!({
            "name": words[..n - 4].join(" "),
            "bytes": value * scale,
            "text": format!("{num} {unit}"),
            "half_unit": 0.5 * scale / 10f64.powi(decimals as i32) + 1.0,
        }));
    }
    assert_eq!(rows.len(), 7, "heap stats rows:\n{text}");
    serde_json::Value::Array(rows)
}

/// The slices of the Statistics pie are `jsprof heap stats`'s, native memory apart from the JS
/// objects (it was filed under "Other JS objects").
#[test]
fn heap_statistics_are_heap_stats() {
    if !available() {
        return;
    }
    for fixture in [
        "heap/detached.heapsnapshot.gz",
        "heap/node-small.heapsnapshot.gz",
    ] {
        let file = fixtures().join(fixture);
        let expected = stats_rows(&file);
        let Some(v) = view(&[file]) else { return };
        checks("stats", &v.url, &expected);
    }
}

/// A `.cpuprofile` whose deepest stack is `depth` frames of a recursion under `main`, beside a
/// shallow sibling, so the canvas cannot hold every row.
fn deep_profile(depth: usize) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-deep.cpuprofile");
    let mut nodes = vec![
        serde_json::json!({"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2, 3]}),
    ];
    nodes.push(serde_json::json!({"id": 2, "callFrame": {"functionName": "shallow", "scriptId": "1", "url": "file:///app/a.js", "lineNumber": 1, "columnNumber": 1}, "children": []}));
    // ids 3..: main, then level_1 … level_{depth-2} (each a different function).
    for d in 0..depth - 1 {
        let id = 3 + d;
        let name = if d == 0 {
            "main".to_string()
        } else {
            format!("level_{d}")
        };
        let children: Vec<usize> = if d + 1 < depth - 1 {
            vec![id + 1]
        } else {
            vec![]
        };
        nodes.push(serde_json::json!({"id": id, "callFrame": {"functionName": name, "scriptId": "1", "url": "file:///app/a.js", "lineNumber": d + 2, "columnNumber": 1}, "children": children}));
    }
    let deepest = 3 + depth - 2;
    let samples: Vec<usize> = (0..200)
        .map(|i| if i % 4 == 0 { 2 } else { deepest })
        .collect();
    crate::ui::write_cpuprofile(&path, &nodes, &samples);
    path
}

/// 160-deep stacks: every level is in the flame graph, the wheel scrolls to them, and zooming
/// into the deepest frame draws it inside the canvas.
#[test]
fn flame_graph_scrolls_to_deep_stacks() {
    let file = deep_profile(160);
    // The deepest top-down node's depth, as the CLI's tree says (levels, the root's children
    // being level 1).
    let tree = jsprof_json(&["tree", file.to_str().unwrap(), "--json"]);
    let nodes = json_array(&tree["nodes"]);
    let mut depth = vec![0usize; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        depth[i] = n["parent"].as_u64().map_or(1, |p| depth[p as usize] + 1);
    }
    let deepest = *depth.iter().max().unwrap();
    assert!(deepest >= 150, "the generated profile is {deepest} deep");
    let Some(v) = view(&[file]) else { return };
    checks("deep", &v.url, &serde_json::json!({ "depth": deepest }));
}

/// The report's Dominators view opens its first node onto `jsprof heap dominators`' children,
/// and the Retainers of that GC root say it is held by the root (not "0 steps").
#[test]
fn report_dominators_can_be_walked() {
    if !available() {
        return;
    }
    let file = fixtures().join("heap/node-small.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    let top = jsprof_json(&argv(
        "heap dominators {} --depth 1 --limit 1 --json",
        &[&f],
    ));
    let root = top["root"]["children"][0]["id"].as_u64().unwrap();
    let id = root.to_string();
    let under = jsprof_json(&argv(
        "heap dominators {} --id {} --depth 1 --limit 20 --json",
        &[&f, &id],
    ));
    let children: Vec<u64> = json_array(&under["root"]["children"])
        .iter()
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert!(!children.is_empty(), "@{root} dominates nothing");
    let url = report(&file, "dominators");
    checks(
        "dominators",
        &url,
        &serde_json::json!({ "root": root, "children": children }),
    );
}

/// One file open: no Diff (CPU), Comparison or Leaks (heap) tab with nothing to compare; two
/// snapshots: Comparison, not Leaks.
#[test]
fn no_comparison_tabs_without_a_second_file() {
    let f = fixtures();
    let Some(v) = view(&[f.join("cpu/node-mix.cpuprofile.gz")]) else {
        return;
    };
    checks(
        "tabs",
        &v.url,
        &serde_json::json!({"absent": ["diff"], "present": ["functions", "bottom_up"]}),
    );
    drop(v);
    let Some(v) = view(&[f.join("heap/node-small.heapsnapshot.gz")]) else {
        return;
    };
    checks(
        "tabs",
        &v.url,
        &serde_json::json!({"absent": ["comparison", "leaks"], "present": ["summary", "dominators"]}),
    );
    drop(v);
    let Some(v) = view(&[
        f.join("heap/leak-2-target.heapsnapshot.gz"),
        f.join("heap/leak-1-baseline.heapsnapshot.gz"),
    ]) else {
        return;
    };
    checks(
        "tabs",
        &v.url,
        &serde_json::json!({"absent": ["leaks"], "present": ["comparison"]}),
    );
}

/// A file dropped on `jsprof view`'s page (and one picked with the file input) opens as a new
/// session, its Functions table `jsprof top`'s.
#[test]
fn files_open_by_dropping_them_on_the_page() {
    let f = fixtures();
    let file = f.join("selfprofile/primes.jsprofile.json");
    let top = jsprof_json(&["top", file.to_str().unwrap(), "--json", "--limit", "0"]);
    let functions: Vec<&str> = json_array(&top["functions"])
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // A page with another file open, so the drop must switch to the new one.
    let Some(v) = view(&[f.join("cpu/node-mix.cpuprofile.gz")]) else {
        return;
    };
    checks(
        "drop",
        &v.url,
        &serde_json::json!({"file": file, "name": "primes.jsprofile.json", "functions": functions}),
    );
}

/// The page's address keeps the tab and the range: opened again, it shows the same selection,
/// its Functions table `jsprof top --range`'s.
#[test]
fn the_address_reopens_the_same_range() {
    let file = fixtures().join("selfprofile/primes.jsprofile.json");
    let f = file.to_str().unwrap();
    let duration = jsprof_json(&["top", f, "--json", "--limit", "1"])["duration_ms"]
        .as_f64()
        .unwrap();
    let (a, b) = (
        (duration * 0.2 * 1000.0).round() / 1000.0,
        (duration * 0.7 * 1000.0).round() / 1000.0,
    );
    let range = format!("{a:.3}..{b:.3}");
    let top = jsprof_json(&["top", f, "--json", "--limit", "0", "--range", &range]);
    let Some(v) = view(&[file]) else { return };
    checks(
        "address",
        &v.url,
        &serde_json::json!({"range": [a, b], "top": top}),
    );
}

/// Linked selection: a function picked in Functions is the only one highlighted in the flame
/// chart and the flame graph; a call clicked in the chart is selected in the function tables.
#[test]
fn selection_is_linked_between_tables_chart_and_graph() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let top = jsprof_json(&["top", file.to_str().unwrap(), "--json", "--limit", "0"]);
    let rows = json_array(&top["functions"]);
    // The heaviest named JS function, and a second one the chart draws wide.
    let row = rows
        .iter()
        .find(|r| r["name"] != "" && r["url"] != "")
        .unwrap();
    let table = serde_json::json!({
        "name": row["name"], "url": row["url"], "line": row["line"], "column": row["column"],
    });
    assert!(rows.iter().any(|r| r["name"] == "buildTree"));
    let Some(v) = view(&[file]) else { return };
    checks(
        "linked",
        &v.url,
        &serde_json::json!({"table": table, "chart": "buildTree"}),
    );
}

/// The flame chart's search counts the calls of `buildTree` (no more than `jsprof events`
/// has), and Enter / shift+Enter zoom to calls the CLI lists.
#[test]
fn chart_search_counts_and_steps_through_matches() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let events = jsprof_json(&["events", file.to_str().unwrap(), "--json"]);
    let starts: Vec<f64> = json_array(&events["events"])
        .iter()
        .filter(|e| e["name"] == "buildTree")
        .map(|e| e["start_ms"].as_f64().unwrap())
        .collect();
    assert!(!starts.is_empty());
    let Some(v) = view(&[file]) else { return };
    checks(
        "search",
        &v.url,
        &serde_json::json!({"name": "buildTree", "starts": starts}),
    );
}

/// Transforms from a node: right-click → Focus on function, then → Collapse recursion, each
/// table `jsprof top`'s with the same flags; breadcrumbs and Undo go back.
#[test]
fn transforms_from_a_node_stack_and_undo() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let f = file.to_str().unwrap();
    let top = |extra: &[&str]| {
        let mut args = vec!["top", f, "--json", "--limit", "0"];
        args.extend(extra);
        jsprof_json(&args)
    };
    let expected = serde_json::json!({
        "name": "buildTree",
        "full": top(&[]),
        "focus": top(&["--focus", "^buildTree$"]),
        "focus_rec": top(&["--focus", "^buildTree$", "--collapse-recursion"]),
    });
    let Some(v) = view(&[file]) else { return };
    checks("transforms", &v.url, &expected);
}
