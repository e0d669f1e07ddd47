//! Issue 18 in the browser (`tests/node/ui-page.mjs`): a page-load trace's tracks above the
//! main thread (Network, Frames, Timings, Interactions, Layout shifts) and the Insights sidebar,
//! in `jsprof view` and in a `jsprof report` opened from disk. What the page must show is read
//! here from `jsprof network|timings|insights --json` and, for the filmstrip, from the trace's
//! own `Screenshot` events on DevTools' clock (the insights oracle's trace bounds).

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::{fixtures, golden, json_array, jsprof_json};
use crate::ui::{node_script, report, view};

fn run(url: &str, expected: &Value, offline: bool) {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-page-expected.json");
    std::fs::write(&path, expected.to_string()).unwrap();
    node_script("ui-page.mjs", &[url.as_ref(), path.as_os_str()], offline);
}

/// The `Screenshot` events' times, in ms from DevTools' origin (the oracle's trace bounds).
fn screenshot_times(trace: &Value, origin_us: f64) -> Vec<f64> {
    let events = trace
        .get("traceEvents")
        .unwrap_or(trace)
        .as_array()
        .expect("trace events");
    let mut times: Vec<f64> = events
        .iter()
        .filter(|e| e["name"] == "Screenshot")
        .map(|e| (e["ts"].as_f64().unwrap() - origin_us) / 1000.0)
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

#[test]
fn page_tracks_and_insights_in_the_browser() {
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let f = file.to_str().unwrap();
    let network = jsprof_json(&["network", "--json", f]);
    let timings = jsprof_json(&["timings", "--json", f]);
    let insights = jsprof_json(&["insights", "--json", f]);
    let oracle = golden(&fixtures().join("trace/pageload.trace.insights.json.gz"));
    let count = |v: &Value, k: &str| json_array(&v[k]).len();
    let ids = |v: &Value| -> Vec<Value> {
        json_array(v)
            .iter()
            .map(|r| r["request_id"].clone())
            .collect()
    };
    let nav = &insights["navigations"][0];
    let lcp = &nav["insights"]["lcp_breakdown"];
    let screenshots = screenshot_times(
        &golden(&file),
        oracle["trace_bounds_us"]["min"].as_f64().unwrap(),
    );
    // The oracle counts the same screenshots over the same span.
    assert_eq!(screenshots.len() as u64, oracle["screenshots"]["count"]);
    assert!((screenshots[0] - oracle["screenshots"]["first_ts_ms"].as_f64().unwrap()).abs() < 0.01);
    let expected = json!({
        "requests": ids(&network["requests"]),
        "marks": count(&timings, "marks") + count(&timings, "console_timestamps"),
        "measures": count(&timings, "measures") + count(&timings, "console_timings"),
        "shifts": count(&insights, "layout_shifts"),
        "interactions": json_array(&insights["interactions"])
            .iter()
            .filter(|i| i["nested"] == false)
            .count(),
        "lcp": [lcp["ttfb"]["start_ms"], lcp["render_delay"]["end_ms"]],
        "lcp_rating": nav["metrics"]["lcp"]["classification"],
        "render_blocking": ids(&nav["insights"]["render_blocking"]),
        // Lantern's FCP savings (tested against the engine in lantern_sim), shown on the
        // render-blocking insight's button.
        "render_blocking_fcp_ms": nav["insights"]["render_blocking_savings"]["fcp_ms"],
        "screenshots": screenshots,
    });
    // The fixture has every lane's items (else the test would prove little).
    assert_eq!(json_array(&expected["requests"]).len(), 8);
    assert!(expected["marks"].as_u64().unwrap() > 0 && expected["measures"].as_u64().unwrap() > 0);
    assert_eq!(json_array(&expected["screenshots"]).len(), 7);
    assert!(expected["render_blocking_fcp_ms"].as_f64().unwrap() > 0.0);
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    run(&v.url, &expected, false);
    drop(v);
    run(&report(&file, "pageload"), &expected, true);
}

/// The `Screenshot` events' images (base64 `args.snapshot`) in time order, ties in file order.
fn screenshot_images(trace: &Value) -> Vec<String> {
    let events = trace
        .get("traceEvents")
        .unwrap_or(trace)
        .as_array()
        .unwrap();
    let mut shots: Vec<(f64, String)> = events
        .iter()
        .filter(|e| e["name"] == "Screenshot")
        .map(|e| {
            (
                e["ts"].as_f64().unwrap(),
                e["args"]["snapshot"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    shots.sort_by(|a, b| a.0.total_cmp(&b.0));
    shots.into_iter().map(|s| s.1).collect()
}

/// The filmstrip endpoints list the trace's screenshots and serve each image by index; a bad
/// index is refused with a message; the report carries the page documents byte for byte as the
/// CLI prints them and each image in its own blob, none of them in the data JSON.
#[test]
fn filmstrip_by_index_and_the_reports_page_documents() {
    use crate::serve::{cli, data_dir, report_views, serve};
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let trace = golden(&file);
    let oracle = golden(&fixtures().join("trace/pageload.trace.insights.json.gz"));
    let times = screenshot_times(&trace, oracle["trace_bounds_us"]["min"].as_f64().unwrap());
    let images = screenshot_images(&trace);
    let s = serve(&data_dir("filmstrip"), &[]);
    let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
    let base = format!("/api/ui/sessions/{id}/artifacts/1/filmstrip");
    let list = s.get(&base);
    assert_eq!(list.status, 200);
    let frames = list.json()["frames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), times.len());
    for (i, (f, t)) in frames.iter().zip(&times).enumerate() {
        assert_eq!(f["index"], i);
        assert!((f["ts_ms"].as_f64().unwrap() - t).abs() < 0.001, "{f} {t}");
        assert_eq!(f["image"], true);
    }
    for i in [0, 3, times.len() - 1] {
        let r = s.get(&format!("{base}/{i}"));
        assert_eq!(r.status, 200);
        let shot = r.json();
        assert_eq!(shot["data"], images[i].as_str(), "screenshot {i}");
        assert_eq!(shot["mime"], "image/jpeg");
        assert!((shot["ts_ms"].as_f64().unwrap() - times[i]).abs() < 0.001);
    }
    let past = s.get(&format!("{base}/{}", times.len()));
    assert_eq!(past.status, 404);
    assert!(
        String::from_utf8_lossy(&past.body).contains("no screenshot 7 (the trace has 7)"),
        "{}",
        String::from_utf8_lossy(&past.body)
    );
    assert_eq!(s.get(&format!("{base}/x")).status, 400);
    // The service's public endpoints and `jsprof filmstrip --json` answer the same bytes.
    let f = file.to_str().unwrap();
    let public = format!("/api/sessions/{id}/artifacts/1/filmstrip");
    let mut want = cli(&["filmstrip", f, "--json"]);
    while want.last() == Some(&b'\n') {
        want.pop();
    }
    assert_eq!(
        String::from_utf8_lossy(&s.get(&public).body),
        String::from_utf8_lossy(&want)
    );
    assert_eq!(s.get(&public).body, list.body);
    assert_eq!(
        s.get(&format!("{public}/3")).body,
        s.get(&format!("{base}/3")).body
    );
    // `--out DIR`: each image as a file, byte for byte the trace's base64 decoded by coreutils;
    // a second run refuses to overwrite them.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filmstrip-out");
    let _ = std::fs::remove_dir_all(&dir);
    cli(&["filmstrip", f, "--out", dir.to_str().unwrap()]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), times.len());
    for (i, path) in files.iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(name, format!("frame-{i:03}-{:.1}ms.jpg", times[i]));
        let mut decode = std::process::Command::new("base64")
            .arg("-d")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("coreutils base64");
        use std::io::Write;
        decode
            .stdin
            .take()
            .unwrap()
            .write_all(images[i].as_bytes())
            .unwrap();
        let decoded = decode.wait_with_output().unwrap().stdout;
        assert_eq!(std::fs::read(path).unwrap(), decoded, "{name}");
    }
    let again = crate::support::jsprof(&["filmstrip", f, "--out", dir.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("never overwritten"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // Not a trace: refused, naming why.
    let cpu = s.import(&fixtures().join("cpu/node-mix.cpuprofile.gz"))["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s.get(&format!("/api/ui/sessions/{cpu}/artifacts/1/filmstrip"));
    assert_eq!(r.status, 400);
    assert!(String::from_utf8_lossy(&r.body).contains("not a Chrome trace"));

    // The report: the CLI's documents, and the images beside the data.
    let f = file.to_str().unwrap();
    let views = report_views(&file);
    for doc in ["insights", "network", "timings"] {
        let mut want = cli(&[doc, f, "--json"]);
        while want.last() == Some(&b'\n') {
            want.pop();
        }
        assert_eq!(
            String::from_utf8_lossy(&views[doc]),
            String::from_utf8_lossy(&want),
            "report {doc}"
        );
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-page-blobs.html");
    cli(&["report", f, "-o", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(&out).unwrap();
    let data_start = html.find(r#"<script id="jsprof-data""#).unwrap();
    let data = &html[data_start..data_start + html[data_start..].find("</script>").unwrap()];
    for (i, image) in images.iter().enumerate() {
        let blob =
            format!(r#"<script type="text/plain" id="jsprof-blob-shot-{i}">{image}</script>"#);
        assert!(html.contains(&blob), "screenshot {i} is carried as a blob");
        assert!(
            !data.contains(&image[..200]),
            "screenshot {i} is in the data JSON"
        );
    }
}

/// A click on the forced-reflow insight outlines its related events (the reflows and the call
/// that forced them) where the flame chart draws them and dims the other calls; hovering one
/// names it; Escape and a second click clear it (`tests/node/ui-insight-events.mjs`), in `view`
/// and in a `report`. A click on an insight pointing at requests (render-blocking), at a shift
/// and its cluster (CLS culprits), at the interaction (INP breakdown) or at the LCP candidate
/// (LCP breakdown) outlines them in the Network, Layout shifts, Interactions and Insight lanes
/// and dims the rest of the lane. The events are `jsprof insights --json`'s, which
/// `insight_events` ties to DevTools' trace engine.
#[test]
fn an_insight_click_outlines_its_events_in_the_browser() {
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let insights = jsprof_json(&["insights", "--json", file.to_str().unwrap()]);
    let events: Vec<Value> = json_array(&insights["related_events"])
        .iter()
        .filter(|e| e["insight"] == "forced_reflow")
        .cloned()
        .collect();
    // The fixture forces hundreds of reflows from one call, each placed on the main thread.
    assert!(events.len() > 100, "{} events", events.len());
    assert!(events
        .iter()
        .all(|e| e["timeline_id"].is_u64() && e["depth"].is_u64()));
    // The related events of navigation 0's `insight` named `names`.
    let related = |insight: &str, names: &[&str]| -> Vec<Value> {
        json_array(&insights["related_events"])
            .iter()
            .filter(|e| e["navigation"] == "NAVIGATION_0" && e["insight"] == insight)
            .filter(|e| names.contains(&e["name"].as_str().unwrap()))
            .cloned()
            .collect()
    };
    let blocking: Vec<Value> = related("render_blocking", &["SyntheticNetworkRequest"])
        .iter()
        .map(|e| e["request_id"].clone())
        .collect();
    let shifts = related("cls_culprits", &["SyntheticLayoutShift"]).len();
    let clusters = related("cls_culprits", &["SyntheticLayoutShiftCluster"]).len();
    let lanes = json!([
        {"insight": "render_blocking", "lane": "Network", "outlined": blocking.len(), "requests": blocking},
        {"insight": "cls_culprits", "lane": "Layout shifts", "outlined": shifts + clusters, "clusters": clusters},
        {"insight": "inp_breakdown", "lane": "Interactions", "outlined": related("inp_breakdown", &["EventTiming"]).len()},
        {"insight": "lcp_breakdown", "lane": "Insight", "outlined": related("lcp_breakdown", &["largestContentfulPaint::Candidate"]).len()},
    ]);
    // Each lane check has something to outline.
    for l in json_array(&lanes) {
        assert!(l["outlined"].as_u64().unwrap() > 0, "{l}");
    }
    let expected = json!({ "insight": "forced_reflow", "events": events, "lanes": lanes });
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-insight-events.json");
    std::fs::write(&path, expected.to_string()).unwrap();
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    node_script(
        "ui-insight-events.mjs",
        &[v.url.as_ref(), path.as_os_str()],
        false,
    );
    drop(v);
    let r = report(&file, "insight-events");
    node_script(
        "ui-insight-events.mjs",
        &[r.as_ref(), path.as_os_str()],
        true,
    );
}
