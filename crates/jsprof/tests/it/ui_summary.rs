//! Issue 38's last pieces (`tests/node/ui-summary.mjs`): the Summary of a selection by
//! DevTools' categories, the details drawer, lanes that size, and a source panel that weighs
//! what the Functions table beside it weighs.
//!
//! The category totals are DevTools': `jsprof summary --range A..B --json` on a recorded page
//! load is held equal, category by category, to the trace engine's own entries of the main
//! thread (its ProfileCalls included) each put in its category by the engine's own style table
//! (`tests/node/summary-oracle.mjs`), within 0.002 ms (the document rounds each to the µs).
//! In the browser, the panel shows the service's document — equal to the CLI's — and the
//! drawer the CLI's values for a request and an event, as the CLI's formatters write them.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::{fixtures, jsprof_json, output_ok, skip_without};
use crate::ui::{available, node_case, node_dir, view};

/// The selections checked: a quiet stretch and a busy one of the page load.
const RANGES: [(f64, f64); 2] = [(100.0, 300.0), (1000.0, 1500.0)];

/// What the trace engine says of `file`'s thread `pid`/`tid` in each of [`RANGES`]:
/// `{"A..B": {category: ms}}`.
fn oracle(engine: &std::path::Path, file: &std::path::Path, pid: u64, tid: u64) -> Value {
    let ranges = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-summary-ranges.json");
    let list: Vec<[f64; 2]> = RANGES.iter().map(|&(a, b)| [a, b]).collect();
    std::fs::write(&ranges, json!(list).to_string()).unwrap();
    let out = output_ok(
        std::process::Command::new("node")
            .current_dir(node_dir())
            .arg("summary-oracle.mjs")
            .arg(engine)
            .arg(file)
            .arg(pid.to_string())
            .arg(tid.to_string())
            .arg(&ranges),
        "summary-oracle.mjs",
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The depth of event `id` among `events` (`jsprof events --json`'s, parents by id).
fn depth(events: &[Value], id: u64) -> u32 {
    let by_id = |i: u64| events.iter().find(|e| e["id"] == i).unwrap();
    let mut d = 0;
    let mut e = by_id(id);
    while let Some(p) = e["parent_id"].as_u64() {
        d += 1;
        e = by_id(p);
    }
    d
}

fn ms_text(v: &Value) -> String {
    jsprof_document::units::fmt_ms(v.as_f64().unwrap())
}

#[test]
fn summary_drawer_lanes_and_lines_in_the_browser() {
    if !available() {
        return;
    }
    let engine = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/oracle/node_modules/@paulirish/trace_engine");
    if !engine.join("models/trace/Styles.js").exists() {
        skip_without(
            "the trace engine under target/oracle",
            "bash tools/oracle/build.sh target/oracle",
        );
        return;
    }
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let path = file.to_str().unwrap();
    let threads = jsprof_json(&["threads", "--json", path]);
    let main = &threads["timelines"][0];
    let (pid, tid) = (main["pid"].as_u64().unwrap(), main["tid"].as_u64().unwrap());
    let devtools = oracle(&engine, &file, pid, tid);
    let mut ranges = Vec::new();
    for (a, b) in RANGES {
        let range = format!("{a}..{b}");
        let doc = jsprof_json(&["summary", path, "--range", &range, "--json"]);
        assert_eq!(doc["timeline_id"], main["timeline_id"], "the main thread");
        let want = &devtools[format!("{a}..{b}")];
        let got: Vec<(String, f64)> = doc["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let k = c["category"].as_str().unwrap().to_string();
                (k, c["ms"].as_f64().unwrap())
            })
            .collect();
        // Every category DevTools counts, and no other, at its time.
        for (k, v) in want.as_object().unwrap() {
            let ours = got.iter().find(|(c, _)| c == k).map_or(0.0, |c| c.1);
            let theirs = v.as_f64().unwrap();
            assert!(
                (ours - theirs).abs() <= 0.002,
                "{range}: {k} {ours} ms, DevTools {theirs} ms"
            );
        }
        for (k, v) in &got {
            assert!(
                want.get(k).is_some() || *v == 0.0,
                "{range}: {k} not in DevTools' {want}"
            );
        }
        // With Idle, the categories fill the selection.
        let sum: f64 = got.iter().map(|c| c.1).sum();
        assert!(
            (sum - (b - a)).abs() <= 0.001 * got.len() as f64,
            "{range}: sum {sum}"
        );
        assert_eq!(doc["total_ms"].as_f64(), Some(b - a));
        let texts: serde_json::Map<String, Value> = doc["categories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["category"].as_str().unwrap().into(),
                    ms_text(&c["ms"]).into(),
                )
            })
            .collect();
        ranges.push(json!({"range": [a, b], "doc": doc, "texts": texts}));
    }
    // A request, its values as the CLI's table writes them.
    let network = jsprof_json(&["network", "--json", path]);
    let r = &network["requests"][0];
    let mut fields = serde_json::Map::new();
    for k in [
        "start_ms",
        "queueing_ms",
        "stalled_ms",
        "send_start_ms",
        "waiting_ms",
        "server_response_ms",
        "download_ms",
        "dur_ms",
    ] {
        fields.insert(k.into(), ms_text(&r[k]).into());
    }
    for k in ["transfer_size", "decoded_body_size"] {
        let v = jsprof_document::units::fmt_bytes(r[k].as_f64().unwrap());
        fields.insert(k.into(), v.into());
    }
    for k in ["method", "protocol", "priority"] {
        fields.insert(k.into(), r[k].clone());
    }
    fields.insert("status".into(), r["status"].to_string().into());
    let request = json!({"index": 0, "url": r["url"], "fields": fields});
    // The main thread's longest Layout.
    let events = jsprof_json(&["events", "--json", "--thread", "1", path]);
    let list = events["events"].as_array().unwrap();
    let e = list
        .iter()
        .filter(|e| e["name"] == "Layout")
        .max_by(|a, b| {
            a["total_ms"]
                .as_f64()
                .partial_cmp(&b["total_ms"].as_f64())
                .unwrap()
        })
        .expect("a Layout event");
    let (start, end) = (
        e["start_ms"].as_f64().unwrap(),
        e["end_ms"].as_f64().unwrap(),
    );
    let event = json!({
        "name": e["name"], "start_ms": start, "dur_ms": end - start,
        "depth": depth(list, e["id"].as_u64().unwrap()),
        "fields": {
            "title": "Layout", "start_ms": ms_text(&e["start_ms"]), "dur_ms": ms_text(&e["total_ms"]),
            "self_ms": ms_text(&e["self_ms"]),
        },
    });
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    let expected = json!({"ranges": ranges, "request": request, "event": event});
    node_case("ui-summary.mjs", "pageload", &v.url, &expected);
}

/// The service's `…/summary` is the CLI's document byte for byte (the whole recording, a range,
/// another thread), a bad range or an unknown parameter is a 400 naming what was expected, and
/// the OpenAPI document lists the route with its document's schema.
#[test]
fn the_summary_endpoint_is_the_clis() {
    let file = fixtures().join("trace/pageload-shifts.trace.json.gz");
    let path = file.to_str().unwrap();
    let s = crate::serve::serve(&crate::serve::data_dir("ui-summary"), &[]);
    let session = s.import(&file);
    let id = session["session_id"].as_str().unwrap();
    for (query, args) in [
        ("", vec!["--categories"]),
        ("?range=1000..2500.5", vec!["--range", "1000..2500.5"]),
        (
            "?range=..800&timeline=2",
            vec!["--range", "..800", "--thread", "2"],
        ),
    ] {
        let got = s.get_ok(&format!("/api/ui/sessions/{id}/summary{query}"));
        let mut argv = vec!["summary", path, "--json"];
        argv.extend(args);
        let want = crate::serve::cli(&argv);
        assert_eq!(
            String::from_utf8_lossy(&got.body).trim_end(),
            String::from_utf8_lossy(&want).trim_end(),
            "{query}"
        );
    }
    for bad in ["range=9..x", "range=300..100", "start_ms=1"] {
        let r = s.get(&format!("/api/ui/sessions/{id}/summary?{bad}"));
        assert_eq!(r.status, 400, "{bad}");
        assert!(!r.message().is_empty(), "{bad}");
    }
    let doc = s.get_ok("/api/openapi.json").json();
    let route = &doc["paths"]["/api/ui/sessions/{id}/summary"]["get"];
    assert_eq!(
        route["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/SelectionSummaryReport"
    );
    assert!(doc["components"]["schemas"]["SelectionSummaryReport"].is_object());
}
