//! The two advisors for memory code keeps alive without needing it, on snapshots recorded now:
//!
//! - A Node app whose 20 `keeper` closures share their scope's context with a gone closure that
//!   read `bigBuffer` (the context keeps the array, no live closure names it), beside 20 `reader`
//!   closures that do read their `usedBuffer` (no finding), and 20 more plants past the first
//!   1,024 characters of the script (`lateBuffer`): the snapshot's copy of the script stops
//!   before them, so they are found only when the script file is read, and only while it is the
//!   file the snapshot was taken from.
//! - A Chromium page whose 50 removed `<section>`s are each kept by a `resize` listener on
//!   `window`, beside 5 detached `<article>`s kept by an array (a detached tree, but no
//!   listener's).
//!
//! Counts, locations and savings are computed here from the app's text and the raw snapshot, with
//! retained sizes from DevTools' own heap worker (the oracle). The service (`jsprof view`, which
//! reads the scripts a file it opened names) and MCP give the CLI's findings.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::heap_advisors::Graph;
use crate::heap_redact::record;
use crate::heap_scale::oracle;
use crate::support::{argv, chromium_devtools, fresh_dir, json_array, jsprof_json};

/// The padding that pushes the late plants past the snapshot's 1,024-character copy.
const PADDING: usize = 1200;

fn app() -> String {
    let head = r#"const v8 = require('v8');
function makeKeeper(i) {
  const bigBuffer = Array.from({ length: 2000 }, (_, j) => ({ j, i }));
  const unused = () => bigBuffer.length;
  unused();
  return function keeper() { return i; };
}
function makeReader(i) {
  const usedBuffer = Array.from({ length: 2000 }, (_, j) => ({ j, i }));
  return function reader() { return usedBuffer.length; };
}
globalThis.kept = Array.from({ length: 20 }, (_, i) => makeKeeper(i));
globalThis.read = Array.from({ length: 20 }, (_, i) => makeReader(i));
"#;
    let late = r#"
function makeLate(i) {
  const lateBuffer = Array.from({ length: 1000 }, (_, j) => ({ j, i }));
  const touch = () => lateBuffer[0];
  touch();
  return (x) => x + i;
}
globalThis.late = Array.from({ length: 20 }, (_, i) => makeLate(i));
v8.writeHeapSnapshot(process.argv[2]);
"#;
    format!("{head}// {}{late}", "padding ".repeat(PADDING / 8))
}

/// `url:line:column` (1-based) where V8 starts the function whose text begins at `needle`'s
/// first `(`: its parameter list.
fn position(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap() + needle.find('(').unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    format!("{line}:{column}")
}

fn findings<'a>(report: &'a Value, advisor: &str) -> Vec<&'a Value> {
    json_array(&report["advice"])
        .iter()
        .filter(|f| f["advisor"] == advisor)
        .collect()
}

/// DevTools' retained size of every node, by ordinal.
fn devtools_retained(file: &Path) -> Option<HashMap<usize, u64>> {
    let devtools = oracle(file, 1)?;
    Some(
        json_array(&devtools["sampled_nodes"])
            .iter()
            .map(|n| {
                (
                    n["ordinal"].as_u64().unwrap() as usize,
                    n["retained"].as_u64().unwrap(),
                )
            })
            .collect(),
    )
}

/// Every finding (`heap advisors --limit 0 --min-saving 1`), DevTools' retained sizes and the raw
/// graph of a snapshot; `None` when the oracle is not built (a failure under CI).
fn read_back(snapshot: &Path) -> Option<(Value, HashMap<usize, u64>, Graph)> {
    let report = jsprof_json(&argv(
        "heap advisors {} --limit 0 --min-saving 1 --json",
        &[&snapshot],
    ));
    let retained = devtools_retained(snapshot)?;
    let g = Graph::parse(&std::fs::read(snapshot).unwrap());
    Some((report, retained, g))
}

/// The objects the contexts hold by `variable`, from the raw graph.
fn held_by_contexts(g: &Graph, variable: &str) -> Vec<usize> {
    (0..g.nodes.len())
        .filter(|&n| g.nodes[n].1 == "system / Context")
        .filter_map(|n| g.named(n, "context", variable))
        .collect()
}

#[test]
fn unread_context_variables_are_found_and_saved_as_devtools_counts() {
    let dir = fresh_dir("heap-kept-alive");
    let text = app();
    let snapshot = record(&dir, &text);
    let script = dir.join("app.js");
    assert!(
        text.find("makeLate").unwrap() > 1024,
        "the late plants lie past the snapshot's copy of the script"
    );
    let Some((report, retained, g)) = read_back(&snapshot) else {
        return;
    };
    let found = findings(&report, "unread_context_variables");

    for (variable, function, needle) in [
        ("bigBuffer", "keeper", "function keeper() {"),
        ("lateBuffer", "(anonymous)", "(x) => x + i"),
    ] {
        let arrays = held_by_contexts(&g, variable);
        assert_eq!(arrays.len(), 20, "{variable}");
        assert!(arrays.iter().all(|&a| g.nodes[a].1 == "Array"));
        let f = found
            .iter()
            .find(|f| f["variable"] == variable)
            .unwrap_or_else(|| panic!("no finding for {variable}: {report:#}"));
        assert_eq!(f["count"], 20, "{f}");
        assert_eq!(f["class"], "Array", "{f}");
        assert_eq!(
            f["saving"].as_u64().unwrap(),
            arrays.iter().map(|a| retained[a]).sum::<u64>(),
            "{variable}: the arrays' retained sizes, as DevTools counts them"
        );
        assert_eq!(f["held_by"], format!("{function}()->{variable}"), "{f}");
        let location = f["location"].as_str().unwrap();
        let expected = format!("{}:{}", script.display(), position(&text, needle));
        assert_eq!(location, expected, "{f}");
    }
    // The readers name their buffer: no finding, though their contexts keep it the same way.
    assert_eq!(held_by_contexts(&g, "usedBuffer").len(), 20);
    assert!(
        found.iter().all(|f| f["variable"] != "usedBuffer"),
        "{found:#?}"
    );
    assert_eq!(found.len(), 2, "{found:#?}");

    // The same findings at the service (`view` reads the scripts a file it opened names) and MCP.
    let view = crate::serve::start(&[
        "view",
        snapshot.to_str().unwrap(),
        "--no-open",
        "--port",
        "0",
    ]);
    let id = view.get("/api/sessions").json()["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let served = view
        .get(&format!(
            "/api/ui/sessions/{id}/artifacts/1/heap/advisors?limit=0&min_saving=1"
        ))
        .expect(200, "advisors")
        .json();
    assert_eq!(served["advice"], report["advice"]);
    drop(view);

    // A script changed since the snapshot is not read as its source: only what the snapshot's
    // own copy shows is left.
    std::fs::write(&script, text.replace("padding", "changed")).unwrap();
    let report = jsprof_json(&argv(
        "heap advisors {} --limit 0 --min-saving 1 --no-cache --json",
        &[&snapshot],
    ));
    let found = findings(&report, "unread_context_variables");
    assert_eq!(
        found
            .iter()
            .map(|f| f["variable"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["bigBuffer"],
        "{found:#?}"
    );
}

const PAGE: &str = r#"<!doctype html><html><body><div id="app"></div>
<script>
window.views = [];
for (let i = 0; i < 50; i++) {
  const panel = document.createElement('section');
  for (let j = 0; j < 40; j++) { const p = document.createElement('p'); p.textContent = 'row ' + i + ' ' + j; panel.appendChild(p); }
  document.getElementById('app').appendChild(panel);
  window.addEventListener('resize', function onResize() { panel.title = String(innerWidth); });
  panel.remove();
}
window.keptArray = [];
for (let i = 0; i < 5; i++) { const d = document.createElement('article'); d.appendChild(document.createElement('span')); window.keptArray.push(d); }
document.title = 'planted';
</script></body></html>
"#;

#[test]
fn detached_dom_kept_by_listeners_is_found_with_its_handler() {
    let Some(chromium) = crate::support::chromium() else {
        return;
    };
    let dir = fresh_dir("heap-listeners");
    let page = dir.join("listeners.html");
    std::fs::write(&page, PAGE).unwrap();
    let url = format!("file://{}", page.display());
    let (_browser, addr) = chromium_devtools(&chromium, &[], &dir.join("profile"), &url);
    std::thread::sleep(Duration::from_millis(300));
    let v = jsprof_json(&argv(
        "record --chrome {} --heap-snapshot --duration 0.5 --json -o {}",
        &[&addr, &dir.join("out")],
    ));
    let snapshot = crate::record::find(&v, "heap-snapshot");
    let Some((report, retained, g)) = read_back(&snapshot) else {
        return;
    };
    let sections: Vec<usize> = (0..g.nodes.len())
        .filter(|&n| g.nodes[n].0 == "native" && g.nodes[n].1.starts_with("<section"))
        .collect();
    assert_eq!(
        sections.len(),
        50,
        "the removed sections are in the snapshot"
    );

    let found = findings(&report, "detached_by_listeners");
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = found[0];
    assert_eq!(f["class"], "Detached <section>", "{f}");
    assert_eq!(f["count"], 50, "{f}");
    assert_eq!(
        f["saving"].as_u64().unwrap(),
        sections.iter().map(|s| retained[s]).sum::<u64>(),
        "the trees' retained sizes, as DevTools counts them"
    );
    let held_by = f["held_by"].as_str().unwrap();
    assert!(
        held_by.starts_with("Window") && held_by.ends_with(" listener onResize()"),
        "{f}"
    );
    assert_eq!(
        f["location"].as_str().unwrap(),
        format!("{url}:{}", position(PAGE, "function onResize() {")),
        "{f}"
    );
    // The articles are detached too, but an array keeps them.
    assert!(
        json_array(&report["advice"]).iter().all(|f| !f["class"]
            .as_str()
            .unwrap()
            .contains("article")
            || f["advisor"] != "detached_by_listeners"),
        "{report:#}"
    );
}
