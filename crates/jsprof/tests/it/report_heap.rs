//! Issue 38: `jsprof report SNAPSHOT…` has the heap views `jsprof view` has, opened from disk
//! with no request leaving the page (`tests/node/report-heap.mjs`, one browser for every page):
//! Containment, Statistics, Strings and Detached of one snapshot, Comparison of two, Leaks of
//! three; issue 36: over four or more, each leak group's row charts its count and retained size,
//! one point per snapshot, in the report and live. Every expected row is what the CLI prints
//! (`jsprof heap edges|stats|strings|advisors|detached|diff|leaks --json`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::support::{assert_ok, fixtures, fresh_dir, json_array, jsprof_json, jsprof_ok};
use crate::ui::view;

/// The UI's page of edges (heapviews.js' EDGE_PAGE), which the report embeds pages of.
const EDGE_PAGE: &str = "50";
/// The report's default `--max-rows`: the CLI is asked for as many.
const MAX_ROWS: &str = "500";

/// `jsprof report FILES… -o NAME.html`, as a `file://` URL.
fn report_of(files: &[PathBuf], name: &str) -> String {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("report-heap-{name}.html"));
    let mut args: Vec<&str> = vec!["report"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(["-o", out.to_str().unwrap()]);
    jsprof_ok(&args);
    format!("file://{}", out.canonicalize().unwrap().display())
}

/// `jsprof heap ARGS… FILES… --json`.
fn heap_json(command: &str, files: &[PathBuf], args: &[&str]) -> Value {
    let mut all = vec!["heap", command];
    all.extend(files.iter().map(|f| f.to_str().unwrap()));
    all.extend(args);
    all.push("--json");
    jsprof_json(&all)
}

/// A page of `heap edges` as the test compares it: `[edge, id]`.
fn edge_rows(page: &Value) -> Vec<Value> {
    json_array(&page["edges"])
        .iter()
        .map(|e| json!([e["edge"], e["object"]["id"]]))
        .collect()
}

/// The root's first page of edges and the first page of its largest child with more than a
/// page of edges (the report embeds both: it opens the largest objects first).
fn containment(file: &Path) -> Value {
    let files = [file.to_path_buf()];
    let root = heap_json("edges", &files, &["root", "--limit", EDGE_PAGE]);
    let big = json_array(&root["edges"])[0]["object"]["id"].to_string();
    let page = heap_json("edges", &files, &[&big, "--limit", EDGE_PAGE]);
    json!({
        "root": {"total": root["total"], "rows": edge_rows(&root)},
        "big": {"id": page["object"]["id"], "total": page["total"], "rows": edge_rows(&page)},
    })
}

/// A process that snapshots itself five times (`snap-1` … `snap-5`): a `Map` that grows by a
/// larger step each time (a leak) and a cache bounded at 80 entries.
const SERIES_APP: &str = r#"
const v8 = require('v8');
class Leaked { constructor(i) { this.i = i; this.data = { i }; } }
class Cached { constructor(i) { this.i = i; } }
const app = { leak: new Map(), lru: new Map() };
globalThis.app = app;
for (let step = 1; step <= 5; step++) {
  for (let i = 0; i < 30 * step; i++) app.leak.set('k' + step + '/' + i, new Leaked(i));
  for (let i = 0; i < 40; i++) {
    app.lru.set('c' + step + '/' + i, new Cached(i));
    while (app.lru.size > 80) app.lru.delete(app.lru.keys().next().value);
  }
  v8.writeHeapSnapshot(`snap-${step}.heapsnapshot`);
}
"#;

/// The five snapshots of [`SERIES_APP`], in the order taken.
fn recorded_series() -> Vec<PathBuf> {
    let dir = fresh_dir("report-heap-series");
    std::fs::write(dir.join("app.js"), SERIES_APP).unwrap();
    let out = Command::new("node")
        .current_dir(&dir)
        .arg("app.js")
        .output()
        .expect("node runs");
    assert_ok(&out, "node app.js");
    (1..=5)
        .map(|k| dir.join(format!("snap-{k}.heapsnapshot")))
        .collect()
}

fn tabs(present: &[&str], absent: &[&str]) -> Value {
    json!({"present": present, "absent": absent})
}

#[test]
fn a_heap_report_has_the_views_of_view_and_the_leak_series_charts() {
    if !crate::ui::available() {
        return;
    }
    let f = fixtures().join("heap");
    let leak: Vec<PathBuf> = ["leak-1-baseline", "leak-2-target", "leak-3-final"]
        .iter()
        .map(|n| f.join(format!("{n}.heapsnapshot.gz")))
        .collect();
    let last = &leak[2..];
    let detached = vec![f.join("detached.heapsnapshot.gz")];
    let series = recorded_series();
    let realms = vec![crate::heap_contexts::snapshot().to_path_buf()];
    let realm = format!("@{}", crate::heap_contexts::realm_declaring("keepA"));
    let Some(live) = view(&series) else { return };
    let series_expected = |shot: &str| {
        let mut doc = heap_json("leaks", &series, &["--all", "--limit", MAX_ROWS]);
        doc["shot"] = json!(shot);
        doc
    };
    let heap_tabs = [
        "containment",
        "statistics",
        "strings",
        "advisors",
        "detached",
    ];
    let pages = json!([
        {
            // One snapshot: its own views, nothing to compare.
            "url": report_of(&detached, "one"), "report": true,
            "tabs": tabs(&heap_tabs, &["comparison", "leaks"]),
            "checks": {
                "detached": heap_json("detached", &detached, &[]),
                "strings": heap_json("strings", &detached, &["--limit", MAX_ROWS]),
            },
        },
        {
            "url": report_of(&leak[..2], "two"), "report": true,
            "tabs": tabs(&["comparison"], &["leaks"]),
            "checks": {"comparison": heap_json("diff", &leak[..2], &["--limit", MAX_ROWS])},
        },
        {
            // Three: it opens on the last, with its Comparison against the one before.
            "url": report_of(&leak, "three"), "report": true,
            "tabs": tabs(&[&heap_tabs[..], &["comparison", "leaks"]].concat(), &[]),
            "checks": {
                "containment": containment(&last[0]),
                "statistics": heap_json("stats", last, &[]),
                "strings": heap_json("strings", last, &["--limit", MAX_ROWS]),
                "advisors": heap_json("advisors", last, &["--limit", MAX_ROWS]),
                "comparison": heap_json("diff", &leak[1..], &["--limit", MAX_ROWS]),
                "leaks": heap_json("leaks", &leak, &["--limit", MAX_ROWS]),
            },
        },
        {
            // Three JavaScript realms: the Summary's context select, from what the report
            // embedded (`heap contexts`, `heap summary --context C --limit 2000`).
            "url": report_of(&realms, "realms"), "report": true,
            "tabs": tabs(&["summary"], &[]),
            "checks": {"contexts": {
                "contexts": heap_json("contexts", &realms, &[]),
                "report": heap_json("summary", &realms, &["--context", &realm, "--limit", "2000"]),
            }},
        },
        {
            "url": report_of(&series, "series"), "report": true,
            "tabs": tabs(&["comparison", "leaks"], &[]),
            "checks": {"series": series_expected("report-heap-leak-series")},
        },
        {
            // `jsprof view` of the same five: the Leaks tab over the series by default.
            "url": live.url, "report": false,
            "tabs": tabs(&["leaks"], &[]),
            "checks": {"series": series_expected("heap-leak-series")},
        },
    ]);
    let expected = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-heap.json");
    std::fs::write(&expected, json!({ "pages": pages }).to_string()).unwrap();
    crate::ui::node_script(
        "report-heap.mjs",
        &["all".as_ref(), "-".as_ref(), expected.as_os_str()],
        false,
    );
}
