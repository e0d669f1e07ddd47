//! Timelines of traces and CPU profiles: reconstructed calls and Bottom-up numbers against the
//! DevTools oracles, `jsprof threads`, and the GetEvents semantics of `jsprof events`.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::support::{argv, assert_ok, fixtures, golden, json_array, jsprof, jsprof_json};

/// Traces and their goldens (`<name>.devtools.json.gz` beside `<name>.json.gz`).
const TRACES: &[(&str, &str)] = &[
    ("trace/primes.trace.json", "trace/primes.trace"),
    // Recorded by `jsprof record`: sample trace ids, and a profile without a `Profile` event.
    ("trace/page.trace.json", "trace/page.trace"),
    (
        "third-party/speedscope/Chrome-69-simple.json",
        "third-party/speedscope/Chrome-69-simple.json",
    ),
    (
        "third-party/speedscope/Chrome-70-worker.json",
        "third-party/speedscope/Chrome-70-worker.json",
    ),
    (
        "third-party/speedscope/Chrome-116-Trace-20230603T221323.json",
        "third-party/speedscope/Chrome-116-Trace-20230603T221323.json",
    ),
];

fn path(rel: &str) -> String {
    fixtures().join(rel).display().to_string()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Our (self, total) ms are those of DevTools' Bottom-up row `r` within 0.01 ms; `what` names
/// the row in a failure.
fn assert_devtools_row((s, t): (f64, f64), r: &Value, what: &str) {
    assert!(
        (s - f(&r["self_ms"])).abs() < 0.01 && (t - f(&r["total_ms"])).abs() < 0.01,
        "{what}: self/total {s}/{t} vs DevTools {}/{}",
        r["self_ms"],
        r["total_ms"]
    );
}

/// `(pid, tid)` → timeline_id.
fn timeline_ids(file: &str) -> HashMap<(u64, u64), String> {
    let threads = jsprof_json(&["threads", file, "--json"]);
    assert_eq!(threads["kind"], "trace");
    json_array(&threads["timelines"])
        .iter()
        .map(|t| {
            (
                (t["pid"].as_u64().unwrap(), t["tid"].as_u64().unwrap()),
                t["timeline_id"].to_string(),
            )
        })
        .collect()
}

#[test]
fn trace_calls_and_bottom_up_match_the_trace_engine() {
    for &(rel, golden_stem) in TRACES {
        let file = path(&format!("{rel}.gz"));
        let oracle = golden(&fixtures().join(format!("{golden_stem}.devtools.json.gz")));
        let ids = timeline_ids(&file);
        let mut checked_threads = 0;
        for thread in json_array(&oracle["threads"]) {
            let calls = json_array(&thread["profile_calls"]);
            if calls.is_empty() {
                continue;
            }
            checked_threads += 1;
            let key = (
                thread["pid"].as_u64().unwrap(),
                thread["tid"].as_u64().unwrap(),
            );
            let id = &ids[&key];
            let events = jsprof_json(&[
                "events", &file, "--thread", id, "--type", "JS_CALL", "--json",
            ]);
            let mut ours: Vec<(f64, f64, String, i64)> = json_array(&events["events"])
                .iter()
                .map(|e| {
                    let start = f(&e["start_ms"]) * 1000.0;
                    let dur = f(&e["end_ms"]) * 1000.0 - start;
                    let line = e["data"]["line"].as_i64().map_or(-1, |l| l - 1);
                    (start, dur, e["name"].as_str().unwrap().to_string(), line)
                })
                .collect();
            let mut theirs: Vec<(f64, f64, String, i64)> = calls
                .iter()
                .map(|c| {
                    (
                        f(&c["ts_us"]),
                        f(&c["dur_us"]),
                        c["name"].as_str().unwrap().to_string(),
                        c["line"].as_i64().unwrap(),
                    )
                })
                .collect();
            let order = |a: &(f64, f64, String, i64), b: &(f64, f64, String, i64)| {
                a.0.round()
                    .total_cmp(&b.0.round())
                    .then(b.1.round().total_cmp(&a.1.round()))
                    .then(a.2.cmp(&b.2))
                    .then(a.3.cmp(&b.3))
            };
            ours.sort_by(order);
            theirs.sort_by(order);
            assert_eq!(ours.len(), theirs.len(), "{rel} {key:?}: number of calls");
            for (a, b) in ours.iter().zip(&theirs) {
                assert!(
                    (a.0 - b.0).abs() <= 1.0
                        && (a.1 - b.1).abs() <= 1.0
                        && a.2 == b.2
                        && a.3 == b.3,
                    "{rel} {key:?}: call {a:?} vs the trace engine's {b:?}"
                );
            }

            // Bottom-up: every function whose (name, url) is unique.
            let unique = jsprof_json(&argv(
                "events {} --thread {} --mode unique-events --type JS_CALL --json",
                &[&file, &id],
            ));
            let mut by_key: HashMap<(String, String), Vec<&Value>> = HashMap::new();
            for e in json_array(&unique["events"]) {
                assert!(e["id"].is_null() && e["start_ms"].is_null());
                by_key
                    .entry((
                        e["name"].as_str().unwrap().to_string(),
                        e["data"]["url"].as_str().unwrap().to_string(),
                    ))
                    .or_default()
                    .push(e);
            }
            let rows: Vec<&Value> = json_array(&thread["bottom_up"])
                .iter()
                .filter(|r| r["url"].is_string())
                .collect();
            let mut count: HashMap<(String, String), usize> = HashMap::new();
            for r in &rows {
                *count
                    .entry((
                        r["name"].as_str().unwrap().into(),
                        r["url"].as_str().unwrap().into(),
                    ))
                    .or_default() += 1;
            }
            let mut checked = 0;
            for r in &rows {
                let k = (
                    r["name"].as_str().unwrap().to_string(),
                    r["url"].as_str().unwrap().to_string(),
                );
                if count[&k] != 1 {
                    continue;
                }
                let mut ours = by_key
                    .get(&k)
                    .unwrap_or_else(|| panic!("{rel}: no row for {k:?}"))
                    .clone();
                // DevTools' Bottom-up leaves out functions without self time; we list them.
                if ours.len() > 1 {
                    ours.retain(|e| f(&e["self_ms"]) > 0.0);
                }
                assert_eq!(ours.len(), 1, "{rel}: {k:?} is not unique in our output");
                let (s, t) = (f(&ours[0]["self_ms"]), f(&ours[0]["total_ms"]));
                assert_devtools_row((s, t), r, &format!("{rel} {k:?}"));
                checked += 1;
            }
            assert!(checked > 0, "{rel}: no unique function checked");
        }
        assert!(checked_threads > 0, "{rel}: no thread with calls");
    }
}

#[test]
fn cpu_profile_calls_are_for_each_frame_calls() {
    for rel in [
        "cpu/tsc.cpuprofile",
        "cpu/node-mix.cpuprofile",
        "third-party/speedscope/node-10.11.0-example.cpuprofile",
        "selfprofile/primes.jsprofile.json",
        "selfprofile/mdn-example.jsprofile.json",
    ] {
        let file = if rel.ends_with(".json") {
            path(rel)
        } else {
            path(&format!("{rel}.gz"))
        };
        let oracle = golden(&fixtures().join(format!("{rel}.devtools.json.gz")));
        let events = jsprof_json(&["events", &file, "--json"]);
        let mut ours: Vec<(i64, i64, String, i64, String)> = json_array(&events["events"])
            .iter()
            .map(|e| {
                let start = f(&e["start_ms"]);
                (
                    (start * 1000.0).round() as i64,
                    ((f(&e["end_ms"]) - start) * 1000.0).round() as i64,
                    e["name"].as_str().unwrap().to_string(),
                    e["data"]["line"].as_i64().map_or(-1, |l| l - 1),
                    e["type"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let mut theirs: Vec<(i64, i64, String, i64)> = json_array(&oracle["calls"])
            .iter()
            .filter(|c| !c["start_ms"].is_null())
            .map(|c| {
                (
                    (f(&c["start_ms"]) * 1000.0).round() as i64,
                    (f(&c["dur_ms"]) * 1000.0).round() as i64,
                    c["name"].as_str().unwrap().to_string(),
                    c["line"].as_i64().unwrap().max(-1),
                )
            })
            .collect();
        ours.sort();
        theirs.sort();
        assert_eq!(ours.len(), theirs.len(), "{rel}: number of calls");
        for (a, b) in ours.iter().zip(&theirs) {
            assert!(
                (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1 && a.2 == b.2 && a.3 == b.3,
                "{rel}: {a:?} vs DevTools {b:?}"
            );
            let expected = match a.2.as_str() {
                "(garbage collector)" => "GC",
                "(program)" | "(idle)" => "GENERIC",
                _ => "JS_CALL",
            };
            assert_eq!(a.4, expected, "{rel}: type of {}", a.2);
        }
    }
}

#[test]
fn traces_devtools_cannot_open_still_load() {
    for rel in [
        "Chrome-65-simple-timeline.json.gz",
        "Chrome-66-worker.json.gz",
        "Chrome-141-no-arg-data.json.gz",
    ] {
        let file = path(&format!("third-party/speedscope/{rel}"));
        let threads = jsprof_json(&["threads", &file, "--json"]);
        let timelines = json_array(&threads["timelines"]);
        let sampled: Vec<&Value> = timelines
            .iter()
            .filter(|t| t["samples"].as_u64() > Some(0))
            .collect();
        assert!(!sampled.is_empty(), "{rel}: no sampled thread");
        assert_eq!(
            sampled[0]["timeline_id"], 1,
            "{rel}: sampled threads come first"
        );
        let events = jsprof_json(&["events", &file, "--type", "JS_CALL", "--json"]);
        // The Chrome 141 file's chunks lost the JS nodes (only `(program)` samples remain).
        if !rel.contains("141") {
            assert!(
                !json_array(&events["events"]).is_empty(),
                "{rel}: no JS calls"
            );
        }
        // The Chrome 141 file has neither trace events nor JS calls on that thread: no entries,
        // as in DevTools; its samples are still there.
        let mut args = vec!["top", file.as_str(), "--json"];
        if rel.contains("141") {
            args.push("--samples");
        }
        let top = jsprof_json(&args);
        assert!(!json_array(&top["functions"]).is_empty(), "{rel}");
    }
}

fn all_events(file: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["events", file, "--json"];
    args.extend_from_slice(extra);
    jsprof_json(&args)["events"].as_array().unwrap().clone()
}

#[test]
fn get_events_semantics_on_a_real_trace() {
    let file = path("trace/primes.trace.json.gz");
    let all = all_events(&file, &[]);
    assert!(all.len() > 1000);
    // Ids: pre-order from 1, parents first, children sorted by start.
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e["id"].as_u64(), Some(i as u64 + 1));
        if let Some(p) = e["parent_id"].as_u64() {
            assert!(p < e["id"].as_u64().unwrap());
            let parent = &all[p as usize - 1];
            assert!(f(&parent["start_ms"]) <= f(&e["start_ms"]));
        }
    }
    // Deterministic across runs.
    assert_eq!(all, all_events(&file, &[]));

    // Range overlap, closed at both edges.
    let by_id = |id: u64| &all[id as usize - 1];
    let long = all
        .iter()
        .filter(|e| f(&e["end_ms"]) - f(&e["start_ms"]) > 1.0 && e["type"] == "JS_CALL")
        .nth(3)
        .unwrap();
    let (s, t) = (f(&long["start_ms"]), f(&long["end_ms"]));
    let overlap = |a: f64, b: f64| -> Vec<u64> {
        all.iter()
            .filter(|e| f(&e["start_ms"]) <= b && f(&e["end_ms"]) >= a)
            .map(|e| e["id"].as_u64().unwrap())
            .collect()
    };
    for (a, b) in [
        (t, t + 5.0),
        (s - 5.0, s),
        (s + 0.1, t - 0.1),
        (t + 0.000001, t + 3.0),
    ] {
        let range = format!("{a}..{b}");
        let got: Vec<u64> = all_events(&file, &["--range", &range])
            .iter()
            .map(|e| e["id"].as_u64().unwrap())
            .collect();
        assert_eq!(got, overlap(a, b), "range {range}");
        let contains = got.contains(&long["id"].as_u64().unwrap());
        assert_eq!(contains, a <= t, "range {range} and the event [{s}, {t}]");
    }
    let open_end = all_events(&file, &["--range", &format!("{t}..")]);
    assert_eq!(open_end.len(), overlap(t, f64::INFINITY).len());

    // Subtree from an event id, and depth limits.
    let parent = all
        .iter()
        .filter(|e| e["child_count"].as_u64() >= Some(2))
        .find(|e| {
            let id = e["id"].as_u64().unwrap();
            all.iter().any(|c| {
                c["parent_id"]
                    .as_u64()
                    .is_some_and(|p| p != id && by_id(p)["parent_id"].as_u64() == Some(id))
            })
        })
        .unwrap();
    let pid = parent["id"].as_u64().unwrap();
    let descends = |e: &Value| {
        let mut p = e["parent_id"].as_u64();
        while let Some(x) = p {
            if x == pid {
                return true;
            }
            p = by_id(x)["parent_id"].as_u64();
        }
        false
    };
    let sub = all_events(&file, &["--event", &pid.to_string()]);
    let expected: Vec<&Value> = all.iter().filter(|e| descends(e)).collect();
    assert_eq!(sub.iter().collect::<Vec<_>>(), expected);
    let children = all_events(&file, &["--event", &pid.to_string(), "--max-depth", "1"]);
    assert_eq!(
        children.len() as u64,
        parent["child_count"].as_u64().unwrap()
    );
    assert!(children
        .iter()
        .all(|c| c["parent_id"].as_u64() == Some(pid)));
    let two = all_events(&file, &["--event", &pid.to_string(), "--max-depth", "2"]);
    assert!(two.len() > children.len() && two.len() <= sub.len());
    let top = all_events(&file, &["--max-depth", "1"]);
    assert_eq!(
        top.len(),
        all.iter().filter(|e| e["parent_id"].is_null()).count()
    );
    assert!(top.iter().all(|e| e["parent_id"].is_null()));
    let missing = jsprof(&["events", &file, "--event", "999999999"]);
    assert_eq!(missing.status.code(), Some(2));

    // Type filters.
    let layout_paint = all_events(&file, &["--type", "LAYOUT,PAINT"]);
    assert!(!layout_paint.is_empty());
    assert_eq!(
        layout_paint.len(),
        all.iter()
            .filter(|e| e["type"] == "LAYOUT" || e["type"] == "PAINT")
            .count()
    );

    // unique-types: every type, zeros included, sums of self.
    let types = all_events(&file, &["--mode", "unique-types"]);
    assert_eq!(types.len(), 12);
    for row in &types {
        assert!(row["id"].is_null() && row["parent_id"].is_null() && row["child_count"].is_null());
        let of_type: Vec<&Value> = all.iter().filter(|e| e["type"] == row["type"]).collect();
        let self_sum: f64 = of_type.iter().map(|e| f(&e["self_ms"])).sum();
        assert!(
            (f(&row["self_ms"]) - self_sum).abs() < 1e-6,
            "{}",
            row["type"]
        );
        assert_eq!(row["hits"].as_u64().unwrap() as usize, of_type.len());
    }
    assert!(types
        .iter()
        .any(|r| r["type"] == "CSS_SELECTOR_MATCHING" && r["hits"] == 0));

    // unique-events: total counts only the outermost of nested same-key events.
    let unique = all_events(&file, &["--mode", "unique-events", "--type", "JS_CALL"]);
    let is_prime = unique.iter().find(|e| e["name"] == "isPrime").unwrap();
    assert!(f(&is_prime["total_ms"]) >= f(&is_prime["self_ms"]));

    // reduce-all: one GENERIC event.
    let reduced = all_events(&file, &["--mode", "reduce-all"]);
    assert_eq!(reduced.len(), 1);
    assert_eq!(reduced[0]["type"], "GENERIC");
    let self_sum: f64 = all.iter().map(|e| f(&e["self_ms"])).sum();
    let top_sum: f64 = top.iter().map(|e| f(&e["total_ms"])).sum();
    assert!((f(&reduced[0]["self_ms"]) - self_sum).abs() < 1e-3);
    assert!((f(&reduced[0]["total_ms"]) - top_sum).abs() < 1e-3);
    assert_eq!(reduced[0]["hits"].as_u64().unwrap() as usize, all.len());
}

#[test]
fn thread_selection() {
    let file = path("third-party/speedscope/Chrome-70-worker.json.gz");
    // Default: the renderer main thread; by name, by tid and by timeline id.
    let default = jsprof_json(&["events", &file, "--json", "--max-depth", "1"]);
    assert_eq!(default["timeline_id"], 1);
    let worker = jsprof_json(&["top", &file, "--thread", "2", "--json"]);
    let by_tid = jsprof_json(&["top", &file, "--thread", "7443", "--json"]);
    assert_eq!(worker, by_tid);
    // Two threads share the name: ambiguous, exit 2 listing the candidates.
    let out = jsprof(&["events", &file, "--thread", "DedicatedWorker thread"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("7443") && err.contains("13067"), "{err}");
    let out = jsprof(&["top", &file, "--thread", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(Path::new(&file).exists());
}

/// The `<rect class="e" …/>` bars of a flame chart: attribute maps.
fn svg_bars(svg: &str) -> Vec<HashMap<String, String>> {
    svg.split("<rect class=\"e\" ")
        .skip(1)
        .map(|chunk| {
            let end = chunk.find("/>").unwrap();
            let mut attrs = HashMap::new();
            for part in chunk[..end].split("\" ") {
                if let Some((k, v)) = part.split_once("=\"") {
                    attrs.insert(k.trim().to_string(), v.trim_end_matches('"').to_string());
                }
            }
            attrs
        })
        .collect()
}

fn svg_attr(svg: &str, name: &str) -> f64 {
    let key = format!("{name}=\"");
    let at = svg.find(&key).unwrap() + key.len();
    svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
}

#[test]
fn flame_chart_svg_is_time_ordered_and_nested() {
    let file = path("trace/primes.trace.json.gz");
    for range in [None, Some("40..140")] {
        let out = crate::support::temp_file("chart.svg", b"");
        let out_s = out.display().to_string();
        let mut args = vec!["flamechart", file.as_str(), "-o", out_s.as_str()];
        if let Some(r) = range {
            args.extend(["--range", r]);
        }
        let run = jsprof(&args);
        assert_ok(&run, "");
        let svg = std::fs::read_to_string(&out).unwrap();
        let (t0, t1) = (svg_attr(&svg, "data-t0-ms"), svg_attr(&svg, "data-t1-ms"));
        let (left, width) = (
            svg_attr(&svg, "data-left"),
            svg_attr(&svg, "data-chart-width"),
        );
        let scale = width / (t1 - t0);
        let bars = svg_bars(&svg);
        assert!(bars.len() > 50, "{range:?}: {} bars", bars.len());
        let num = |b: &HashMap<String, String>, k: &str| -> f64 { b[k].parse().unwrap() };
        let mut by_id: HashMap<String, (f64, f64)> = HashMap::new();
        let mut last_at_depth: HashMap<String, (f64, f64)> = HashMap::new();
        for b in &bars {
            let (x, w) = (num(b, "x"), num(b, "width"));
            let (s, t) = (num(b, "data-start-ms"), num(b, "data-end-ms"));
            // x proportional to time, within one pixel.
            let expected_x = left + (s.max(t0) - t0) * scale;
            assert!(
                (x - expected_x).abs() <= 1.0,
                "x {x} for start {s} ms (expected {expected_x})"
            );
            assert!(x + w <= left + (t.min(t1) - t0) * scale + 1.0);
            // Children within their parents.
            if let Some(&(px, pw)) = by_id.get(&b["data-parent"]) {
                assert!(
                    px <= x + 1e-3 && x + w <= px + pw + 1e-3,
                    "bar {} leaves its parent",
                    b["data-id"]
                );
            }
            // Time order per row: no bar starts before the previous one ended.
            if let Some(&(lx, lw)) = last_at_depth.get(&b["data-depth"]) {
                assert!(
                    x >= lx + lw - 1.0,
                    "bar {} overlaps its left neighbour",
                    b["data-id"]
                );
            }
            last_at_depth.insert(b["data-depth"].clone(), (x, w));
            by_id.insert(b["data-id"].clone(), (x, w));
        }
        assert!(
            svg.contains("<title>isPrime\nhttp://127.0.0.1:8765/generate.js:3:17\nJS_CALL · self")
        );
    }
}

/// `jsprof top` and `jsprof tree --bottom-up` on a trace are DevTools' Performance-panel
/// Bottom-up: every row of the trace engine's `BottomUpRootNode` (JS functions and native entries
/// such as `Paint` or `RunTask`), for every thread it lists, within 0.01 ms; and nothing else
/// weighs anything.
#[test]
fn trace_top_and_tree_are_the_performance_panels_bottom_up() {
    type Key = (String, String, i64, i64);
    let key_of_oracle = |r: &Value| -> Key {
        let pos = |v: &Value| v.as_i64().filter(|&p| p >= 0).unwrap_or(-1);
        (
            r["name"].as_str().unwrap().to_string(),
            r["url"].as_str().unwrap_or("").to_string(),
            pos(&r["line"]),
            pos(&r["column"]),
        )
    };
    let key_of_ours = |r: &Value| -> Key {
        let pos = |v: &Value| v.as_i64().map_or(-1, |p| p - 1);
        (
            r["name"].as_str().unwrap().to_string(),
            r["url"].as_str().unwrap().to_string(),
            pos(&r["line"]),
            pos(&r["column"]),
        )
    };
    let mut checked_rows = 0;
    for &(rel, golden_stem) in TRACES {
        let file = path(&format!("{rel}.gz"));
        let oracle = golden(&fixtures().join(format!("{golden_stem}.devtools.json.gz")));
        let ids = timeline_ids(&file);
        for thread in json_array(&oracle["threads"]) {
            let key = (
                thread["pid"].as_u64().unwrap(),
                thread["tid"].as_u64().unwrap(),
            );
            let id = &ids[&key];
            let top = jsprof_json(&["top", &file, "--thread", id, "--limit", "0", "--json"]);
            assert_eq!(top["source"], "trace-entries", "{rel} {key:?}");
            let tree = jsprof_json(&argv(
                "tree {} --thread {} --bottom-up --max-depth 1 --json",
                &[&file, &id],
            ));
            for (what, rows) in [("top", &top["functions"]), ("tree", &tree["nodes"])] {
                let mut ours: HashMap<Key, (f64, f64)> = HashMap::new();
                for r in json_array(rows) {
                    let prev = ours.insert(key_of_ours(r), (f(&r["self_ms"]), f(&r["total_ms"])));
                    assert!(prev.is_none(), "{rel} {key:?} {what}: {r} twice");
                }
                for r in json_array(&thread["bottom_up"]) {
                    let k = key_of_oracle(r);
                    let (s, t) = ours
                        .remove(&k)
                        .unwrap_or_else(|| panic!("{rel} {key:?} {what}: no row for {k:?}"));
                    assert_devtools_row((s, t), r, &format!("{rel} {key:?} {what} {k:?}"));
                    checked_rows += 1;
                }
                // DevTools' Bottom-up roots are the entries with self time; ours also lists
                // functions that only call others (self 0), as `top` does for a .cpuprofile.
                for (k, (s, t)) in ours {
                    assert!(
                        s.abs() < 0.01,
                        "{rel} {key:?} {what}: {k:?} ({s}/{t}) is not in DevTools' Bottom-up"
                    );
                }
            }
        }
    }
    assert!(checked_rows > 500, "{checked_rows} rows checked");
}

/// `--samples` keeps the sample-based view of a trace's embedded CPU profile reachable, named as
/// such; by default the entries are weighed.
#[test]
fn trace_samples_view_is_the_cpu_profile() {
    let file = path("trace/page.trace.json.gz");
    let entries = jsprof_json(&["top", &file, "--limit", "0", "--json"]);
    let samples = jsprof_json(&["top", &file, "--samples", "--limit", "0", "--json"]);
    assert_eq!(entries["source"], "trace-entries");
    assert!(samples.get("source").is_none(), "{}", samples["source"]);
    let names = |v: &Value| -> Vec<String> {
        json_array(&v["functions"])
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect()
    };
    // Native entries exist only in the Performance panel's view; (program) only in the samples.
    assert!(names(&entries).iter().any(|n| n == "Paint"));
    assert!(!names(&samples).iter().any(|n| n == "Paint"));
    assert!(names(&samples).iter().any(|n| n == "(program)"));
}
