//! Issue 38 in the browser (`tests/node/ui-story.mjs`): the recorded page loads told as DevTools
//! tells them. Each insight expands to DevTools' description (the trace engine's own
//! `UIStrings`), its checklist and its tables, cell for cell `jsprof insights --json`; a click
//! brings one of its events into the chart's visible rect; the FCP, LCP, DCL and Load markers
//! sit at the insights oracle's times; the LCP element is named as the trace names it; deep
//! zoom keeps the axis labels apart and a jump leaves no stale tooltip.
//!
//! And one fact one way: the durations, sizes and ratings `jsprof insights` and `jsprof network`
//! print for these documents are found, the same strings, in MCP's text of `trace_insights` and
//! `trace_network` and on the page (the vitals, the Network lane's tooltip); the page's
//! formatter gives `jsprof_document::units`' strings for edge values (ties, unit steps).

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::mcp::{client, repo, sdk_missing};
use crate::support::{fixtures, golden, jsprof, jsprof_json, skip_without};
use crate::ui::{available, node_script, view, View};

/// The recorded page loads (`tools/gen/pageload-*.js`), each with its oracle golden.
const LOADS: [&str; 4] = [
    "pageload",
    "pageload-shifts",
    "pageload-bgimage",
    "pageload-anim",
];

/// The `nodeName` of the navigation's LCP candidate (`largestContentfulPaint::Candidate` of its
/// navigation id and candidate index) in the trace itself.
fn lcp_node(trace: &Value, nav: &Value) -> String {
    let lcp = &nav["metrics"]["lcp"];
    let events = trace
        .get("traceEvents")
        .unwrap_or(trace)
        .as_array()
        .unwrap();
    let e = events
        .iter()
        .find(|e| {
            e["name"] == "largestContentfulPaint::Candidate"
                && e["args"]["data"]["navigationId"] == nav["navigation_id"]
                && e["args"]["data"]["candidateIndex"] == lcp["candidate_index"]
        })
        .unwrap_or_else(|| panic!("no LCP candidate event for {lcp}"));
    e["args"]["data"]["nodeName"].as_str().unwrap().to_string()
}

/// The columns of a CLI table row (cells are apart by two spaces or more).
pub(crate) fn columns(line: &str) -> Vec<String> {
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

fn stdout(args: &[&str]) -> String {
    let out = jsprof(args);
    assert!(out.status.success(), "jsprof {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What the CLI's text says of a page load: each vital's value and rating (the `insights`
/// table's row) and each request's start and size (the `network` table's row, by URL).
fn cli_text(file: &str) -> Value {
    let text = stdout(&["insights", file]);
    let mut vitals = serde_json::Map::new();
    for key in ["FCP", "DCL", "Load", "LCP", "CLS", "INP"] {
        // `LCP (image)`, `INP (click)`: the metric and its kind.
        let kind = format!("{key} (");
        let row = text
            .lines()
            .map(columns)
            .find(|c| c.len() == 4 && (c[0] == key || c[0].starts_with(&kind)))
            .unwrap_or_else(|| panic!("no {key} row in `jsprof insights`:\n{text}"));
        vitals.insert(key.into(), json!({"value": row[1], "rating": row[3]}));
    }
    let text = stdout(&["network", file]);
    let requests: Vec<Value> = text
        .lines()
        .skip(1)
        .map(columns)
        .filter(|c| c.len() >= 9 && c.last().unwrap().starts_with("http"))
        .map(|c| json!({"url": c.last().unwrap(), "start": c[0], "size": c[5]}))
        .collect();
    assert!(
        !requests.is_empty(),
        "no requests in `jsprof network`:\n{text}"
    );
    json!({"vitals": vitals, "requests": requests})
}

/// MCP's text of `trace_insights` and `trace_network` for each file, in order.
fn mcp_texts(files: &[PathBuf]) -> Vec<(String, String)> {
    let mut steps = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let handle = format!("h{}", i + 1);
        steps.push(json!({"op": "callTool", "name": "open", "arguments": {"path": f}}));
        steps.push(
            json!({"op": "callTool", "name": "trace_insights", "arguments": {"handle": handle}}),
        );
        steps.push(
            json!({"op": "callTool", "name": "trace_network", "arguments": {"handle": handle}}),
        );
    }
    let root = repo();
    let args = ["mcp", "--timeout", "600", "--root", root.to_str().unwrap()];
    let r = client(json!({
        "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": args}},
        "steps": steps,
    }));
    let text = |v: &Value| {
        assert_ne!(v["isError"], true, "{v}");
        v["content"][0]["text"].as_str().unwrap().to_string()
    };
    (0..files.len())
        .map(|i| (text(&r[3 * i + 1]), text(&r[3 * i + 2])))
        .collect()
}

/// Durations and sizes where rounding could part the doors: exact ties, unit steps, signs.
const EDGE_MS: [f64; 14] = [
    0.0, 0.001, 0.125, 1.005, 9.995, 10.0, 12.25, 999.95, 1260.602, 9999.95, 10000.0, 24500.5,
    81535.8, -3.5,
];
const EDGE_BYTES: [f64; 10] = [
    0.0,
    2.5,
    1023.5,
    1024.0,
    1536.0,
    142392.0,
    10485760.0,
    13107200.0,
    475004928.0,
    1.5e12,
];

fn json_array_find(list: &Value, mut f: impl FnMut(&Value) -> bool) -> Option<&Value> {
    list.as_array().unwrap().iter().find(|x| f(x))
}

#[test]
fn insights_tell_the_story_in_the_browser() {
    if !available() {
        return;
    }
    let engine = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/oracle/node_modules/@paulirish/trace_engine/models/trace/insights");
    if !engine.join("CLSCulprits.js").exists() {
        skip_without(
            "the trace engine under target/oracle",
            "bash tools/oracle/build.sh target/oracle",
        );
        return;
    }
    if sdk_missing() {
        return;
    }
    let files: Vec<PathBuf> = LOADS
        .iter()
        .map(|n| fixtures().join(format!("trace/{n}.trace.json.gz")))
        .collect();
    let mcp = mcp_texts(&files);
    let mut views: Vec<View> = Vec::new();
    let mut cases = Vec::new();
    for (i, name) in LOADS.into_iter().enumerate() {
        let file = fixtures().join(format!("trace/{name}.trace.json.gz"));
        let insights = jsprof_json(&["insights", "--json", file.to_str().unwrap()]);
        let oracle = golden(&fixtures().join(format!("trace/{name}.trace.insights.json.gz")));
        let m = &oracle["navigations"][0]["metrics"];
        let markers = json!({
            "FCP": m["FCP"]["ts_ms"], "LCP": m["LCP"]["ts_ms"], "DCL": m["DCL"]["ts_ms"], "Load": m["L"]["ts_ms"],
        });
        for (k, v) in markers.as_object().unwrap() {
            assert!(v.is_f64(), "{name}: the oracle has no {k}");
        }
        let nav = &insights["navigations"][0];
        let node = lcp_node(&golden(&file), nav);
        // The document names it as the trace does (the page shows the document's name).
        assert_eq!(nav["metrics"]["lcp"]["node_name"], node.as_str(), "{name}");
        // The CLI's strings, found the same in MCP's text (the page is checked in the browser).
        let doors = cli_text(file.to_str().unwrap());
        let (mcp_insights, mcp_network) = &mcp[i];
        for key in ["FCP", "LCP", "CLS", "INP"] {
            let x = &doors["vitals"][key];
            let said = format!(
                "{key} {} ({})",
                x["value"].as_str().unwrap(),
                x["rating"].as_str().unwrap()
            );
            assert!(
                mcp_insights.contains(&said),
                "{name}: MCP does not say {said:?}:\n{mcp_insights}"
            );
        }
        // MCP's text reads out the first rows of the page it answers.
        let mut found = 0;
        for line in mcp_network.lines() {
            let Some(r) = json_array_find(&doors["requests"], |r| {
                line.ends_with(&format!(" {}", r["url"].as_str().unwrap()))
            }) else {
                continue;
            };
            let (start, size) = (r["start"].as_str().unwrap(), r["size"].as_str().unwrap());
            assert!(
                line.contains(&format!("{start} → ")) && line.contains(&format!(" {size}, ")),
                "{name}: MCP's {line:?}, the CLI's start {start} and size {size}"
            );
            found += 1;
        }
        // The first five rows, or all of a shorter page.
        let want = doors["requests"].as_array().unwrap().len().min(5);
        assert!(found >= want, "{name}: {found} of MCP's request lines matched the CLI's (want {want}):\n{mcp_network}");
        // Page-aware track names, from the document layer: the page's main thread is named by
        // the navigation's URL in `jsprof threads`, and the page heads its track with the same.
        let threads = jsprof_json(&["threads", "--json", file.to_str().unwrap()]);
        let pages: Vec<Value> = threads["timelines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["page"].is_string() && t["events"].as_u64() > Some(0))
            .map(|t| t["page"].clone())
            .collect();
        let main = format!("Main \u{2014} {}", nav["url"].as_str().unwrap());
        assert!(
            pages.contains(&Value::from(main.clone())),
            "{name}: {main:?} not in {pages:?}"
        );
        let Some(v) = view(std::slice::from_ref(&file)) else {
            return;
        };
        cases.push(json!({
            "name": name, "url": v.url, "insights": insights, "markers": markers, "lcp_node": node,
            "doors": doors, "tracks": pages,
        }));
        views.push(v);
    }
    let units = json!({
        "ms": EDGE_MS.iter().map(|&v| json!([v, jsprof_document::units::fmt_ms(v)])).collect::<Vec<_>>(),
        "bytes": EDGE_BYTES.iter().map(|&v| json!([v, jsprof_document::units::fmt_bytes(v)])).collect::<Vec<_>>(),
    });
    let expected = json!({ "engine_insights": engine, "cases": cases, "units": units });
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-story.json");
    std::fs::write(&path, expected.to_string()).unwrap();
    node_script("ui-story.mjs", &[path.as_os_str()], false);
    drop(views);
}
