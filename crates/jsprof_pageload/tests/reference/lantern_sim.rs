//! Lantern's simulation behind the insights' savings (`jsprof insights`): the render-blocking
//! requests' FCP/LCP savings, each request's wasted time and the network dependency tree's
//! preconnect candidates against DevTools' trace engine —
//! its goldens (`<trace>.insights.json.gz`) on the recorded page loads, and the live oracle on
//! edited ones (connections the trace says are fresh, h2, no LCP). The engine rounds every
//! saving to whole ms (`Math.round`); ours are rounded the same way from the same arithmetic,
//! so they must be equal, not close.

use serde_json::Value;

use crate::page_loads::{
    assert_image_delivery, assert_network_tree_matches, assert_page_checks, navigation_insights,
    PAGE_LOADS,
};
use crate::support::{document, fixture_text, page_load_insights, run_oracle, temp_file};

/// Compares every navigation's render-blocking savings of `ours` (`insights --json`) with the
/// engine's `RenderBlocking` model in `want`; returns how many requests had estimated savings.
fn assert_render_blocking_savings(ours: &Value, want: &Value, name: &str) -> usize {
    let mut estimated = 0;
    for (at, n, _, wrb) in navigation_insights(ours, want, name, "RenderBlocking") {
        let s = &n["insights"]["render_blocking_savings"];
        let savings = &wrb["metric_savings"];
        if savings.is_null() {
            assert!(s.is_null(), "{at}: the engine has no savings, ours {s}");
            continue;
        }
        assert_eq!(s["fcp_ms"].as_f64(), savings["FCP"].as_f64(), "{at}: FCP");
        assert_eq!(s["lcp_ms"].as_f64(), savings["LCP"].as_f64(), "{at}: LCP");
        let requests = s["requests"].as_array().unwrap();
        let mut listed = 0;
        for r in wrb["requests"].as_array().unwrap() {
            let id = r["request_id"].as_str().unwrap();
            let ours = requests
                .iter()
                .find(|o| o["request_id"] == id)
                .map(|o| o["wasted_ms"].as_f64().unwrap());
            assert_eq!(
                ours,
                r["estimated_savings_ms"].as_f64(),
                "{at}: {id} wasted"
            );
            listed += usize::from(ours.is_some());
        }
        assert_eq!(requests.len(), listed, "{at}: requests with savings");
        estimated += listed;
    }
    estimated
}

/// Compares every navigation's preconnect candidates (the oracle rounds their ms to 0.001)
/// and the preconnected origins' `crossorigin`; returns how many candidates there were.
fn assert_preconnect_candidates(ours: &Value, want: &Value, name: &str) -> usize {
    let mut candidates = 0;
    for (at, n, w, wt) in navigation_insights(ours, want, name, "NetworkDependencyTree") {
        let t = &n["insights"]["network_dependency_tree"];
        if w["navigation"].is_null() {
            continue;
        }
        let (o, wc) = (
            t["preconnect_candidates"].as_array().unwrap(),
            wt["preconnect_candidates"].as_array().unwrap(),
        );
        assert_eq!(o.len(), wc.len(), "{at}: preconnect candidates {o:?}");
        for (o, w) in o.iter().zip(wc) {
            assert_eq!(o["origin"], w["origin"], "{at}");
            let (a, b) = (
                o["wasted_ms"].as_f64().unwrap(),
                w["wasted_ms"].as_f64().unwrap(),
            );
            assert!(
                (a - b).abs() <= 0.0006,
                "{at}: wasted ours {a}, DevTools {b}"
            );
        }
        let origins = t["preconnected_origins"].as_array().unwrap();
        let want_origins = wt["preconnected_origins"].as_array().unwrap();
        assert_eq!(
            origins.len(),
            want_origins.len(),
            "{at}: preconnected origins"
        );
        for (o, w) in origins.iter().zip(want_origins) {
            assert_eq!(o["crossorigin"], w["crossorigin"], "{at}: {}", w["url"]);
        }
        candidates += wc.len();
    }
    candidates
}

#[test]
fn render_blocking_savings_match_the_trace_engine() {
    let mut estimated = 0;
    for name in PAGE_LOADS {
        let (ours, want) = page_load_insights(name);
        estimated += assert_render_blocking_savings(&ours, &want, name);
        // Local recordings: every round trip is well under the 50 ms worth a preconnect.
        assert_preconnect_candidates(&ours, &want, name);
        for n in ours["navigations"].as_array().unwrap() {
            if n["navigation_id"].is_string() {
                assert!(
                    n["insights"]["render_blocking_savings"].is_object(),
                    "{name}: every recorded page load has a Lantern context"
                );
            }
        }
    }
    assert!(
        estimated >= 3,
        "no recorded page load has savings to compare"
    );
}

/// pageload's trace as text (edits that rename URLs work on it).
fn pageload_text() -> String {
    fixture_text("trace/pageload.trace.json.gz")
}

/// The savings follow the engine where the trace says something else: every connection fresh
/// (the trusted connection ids change the round trips), every response over h2 (one warm
/// connection per origin), the page over TLS with a blocking script from the disk cache (no
/// connection: under the 50 ms that counts), and no LCP (no Lantern context: no savings).
#[test]
fn render_blocking_savings_follow_the_engine_on_edited_page_loads() {
    let text = pageload_text();
    type Edit = fn(&mut Value);
    let edits: [(&str, bool, Edit); 4] = [
        ("fresh-connections", false, |e| {
            if e["name"] == "ResourceReceiveResponse" {
                e["args"]["data"]["connectionReused"] = false.into();
            }
        }),
        ("h2", false, |e| {
            if e["name"] == "ResourceReceiveResponse" {
                e["args"]["data"]["protocol"] = "h2".into();
            }
        }),
        ("https-disk-cache", true, |e| {
            if e["args"]["data"]["requestId"] != "22250.3" {
                return;
            }
            if e["name"] == "ResourceReceiveResponse" {
                e["args"]["data"]["fromCache"] = true.into();
            }
            if e["name"] == "ResourceFinish" {
                e["args"]["data"]["encodedDataLength"] = 0.into();
            }
        }),
        ("no-lcp", false, |e| {
            if e["name"] == "largestContentfulPaint::Candidate" {
                e["name"] = "edited-out".into();
            }
        }),
    ];
    for (name, https, edit) in edits {
        let mut t: Value = match https {
            true => serde_json::from_str(&text.replace("http://127.0.0.1", "https://127.0.0.1")),
            false => serde_json::from_str(&text),
        }
        .unwrap();
        t["traceEvents"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .for_each(edit);
        let path = temp_file(
            &format!("lantern-{name}.trace.json"),
            t.to_string().as_bytes(),
        );
        let ours = document("insights", path.to_str().unwrap());
        let savings = &ours["navigations"][0]["insights"]["render_blocking_savings"];
        if name == "no-lcp" {
            // The engine's context fails the same way (`page::network_dependency_tree_is_empty_
            // without_lanterns_graph` runs the oracle on this edit).
            assert!(savings.is_null(), "{name}: {savings}");
            continue;
        }
        assert!(savings.is_object(), "{name}: {savings}");
        if let Some(want) = run_oracle("insights-oracle", &path) {
            assert_render_blocking_savings(&ours, &want, name);
            assert_preconnect_candidates(&ours, &want, name);
        }
    }
}

/// A preconnect candidate: pageload with its LCP image moved to the page's second origin,
/// requested by the stylesheet (not the document, whose requests a preconnect cannot speed)
/// and both of that origin's connections taking 200 ms to open.
#[test]
fn preconnect_candidates_follow_the_engine() {
    let text = pageload_text().replace(
        "http://127.0.0.1:8790/hero.png",
        "http://localhost:8791/hero.png",
    );
    let mut t: Value = serde_json::from_str(&text).unwrap();
    for e in t["traceEvents"].as_array_mut().unwrap() {
        let id = e["args"]["data"]["requestId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if e["name"] == "ResourceSendRequest" && id == "22250.5" {
            e["args"]["data"]["initiator"]["url"] = "http://127.0.0.1:8790/styles.css".into();
        }
        if e["name"] == "ResourceReceiveResponse" && (id == "22250.4" || id == "22250.5") {
            let timing = &mut e["args"]["data"]["timing"];
            let start = timing["connectStart"].as_f64().unwrap();
            timing["connectEnd"] = (start + 200.0).into();
        }
    }
    let path = temp_file("lantern-preconnect.trace.json", t.to_string().as_bytes());
    let ours = document("insights", path.to_str().unwrap());
    let tree = &ours["navigations"][0]["insights"]["network_dependency_tree"];
    let candidates = tree["preconnect_candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 1, "{tree}");
    assert_eq!(candidates[0]["origin"], "http://localhost:8791");
    if let Some(want) = run_oracle("insights-oracle", &path) {
        assert_eq!(assert_preconnect_candidates(&ours, &want, "preconnect"), 1);
        assert_render_blocking_savings(&ours, &want, "preconnect");
    }
}

/// The recorded page load with each subresource request copied `copies` times: copy `k` gets
/// its own request id (`ID.cK`), its URL a `copy=K` query, and its events `k` µs later, placed
/// right after the originals' so that the file stays in time order.
fn page_load_with_copies(copies: usize) -> Value {
    let mut trace: Value = serde_json::from_str(&pageload_text()).unwrap();
    let events = trace["traceEvents"].as_array_mut().unwrap();
    let document: std::collections::HashSet<String> = events
        .iter()
        .filter(|e| e["name"] == "navigationStart")
        .filter_map(|e| e["args"]["data"]["navigationId"].as_str().map(String::from))
        .collect();
    assert!(!document.is_empty(), "the page load has a navigation");
    let mut out = Vec::with_capacity(events.len() * 4);
    for e in events.drain(..) {
        let id = e["args"]["data"]["requestId"].as_str().map(String::from);
        let copy = id.filter(|id| !document.contains(id)).map(|id| {
            (1..=copies)
                .map(|k| {
                    let mut c = e.clone();
                    let data = &mut c["args"]["data"];
                    data["requestId"] = format!("{id}.c{k}").into();
                    if let Some(url) = data["url"].as_str() {
                        let sep = if url.contains('?') { '&' } else { '?' };
                        data["url"] = format!("{url}{sep}copy={k}").into();
                    }
                    c["ts"] = (c["ts"].as_f64().unwrap() + k as f64).into();
                    c
                })
                .collect::<Vec<_>>()
        });
        out.push(e);
        out.extend(copy.into_iter().flatten());
    }
    *events = out;
    trace
}

/// Big inputs, not only fixtures: a page load of about two thousand requests (the recorded one's
/// subresources copied, `page_load_with_copies`), where the simulation's cost grows with the
/// square of the requests and a tie broken differently would show. Every request, the
/// render-blocking savings and the network dependency tree equal the live engine's.
#[test]
fn a_page_load_of_two_thousand_requests_matches_the_engine() {
    let trace = page_load_with_copies(300);
    let path = temp_file(
        "pageload-2000.trace.json",
        serde_json::to_string(&trace).unwrap().as_bytes(),
    );
    let file = path.to_str().unwrap();
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    let network = document("network", file);
    let (ours, engine) = (
        network["requests"].as_array().unwrap(),
        want["network"].as_array().unwrap(),
    );
    assert!(engine.len() >= 2000, "only {} requests", engine.len());
    assert_eq!(ours.len(), engine.len(), "request count");
    for (o, w) in ours.iter().zip(engine) {
        let at = w["url"].to_string();
        for key in [
            "url",
            "request_id",
            "priority",
            "render_blocking",
            "transfer_size",
        ] {
            assert_eq!(o[key], w[key], "{at}: {key}");
        }
        for key in ["start_ms", "end_ms", "send_start_ms", "download_start_ms"] {
            let (a, b) = (o[key].as_f64().unwrap(), w[key].as_f64().unwrap());
            // The oracle prints ms to 0.001.
            assert!((a - b).abs() <= 0.0006, "{at}: {key}: ours {a}, engine {b}");
        }
    }
    let insights = document("insights", file);
    let estimated = assert_render_blocking_savings(&insights, &want, "2000 requests");
    assert!(estimated >= 2, "no render-blocking request had savings");
    let chains = assert_network_tree_matches(&insights, &want, "2000 requests");
    assert!(chains >= 3, "the network tree lost its chains");
    assert_preconnect_candidates(&insights, &want, "2000 requests");
    // The page checks and image delivery, their Lantern savings included.
    assert_page_checks(&insights, &want, "2000 requests");
    assert_image_delivery(&insights, &want, "2000 requests");
    // The third party's events: every copy's widget request with its network events, and what
    // its script ran, event for event and in the engine's order.
    let id = insights["navigations"][0]["id"].as_str().unwrap();
    let n = crate::insight_events::same_events(
        &crate::insight_events::listed(&insights, id, "third_parties", "related"),
        &want["insights"][id]["ThirdParties"]["related"],
        "2000 requests: third parties",
    );
    assert!(n > 300, "only {n} third-party events");
}
