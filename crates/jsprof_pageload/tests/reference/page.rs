//! The page-load story of a trace (`jsprof insights`, `network`, `timings`) against DevTools'
//! trace engine (`insights-oracle.mjs`, goldens `<trace>.insights.json.gz`), and damaged
//! page-load traces.

use serde_json::Value;

use crate::page_loads::{
    assert_network_tree_matches, close, input, navigations, oracle, paired, MS, PAGE_LOADS, SCORE,
};
use crate::support::{
    document, fixture_text, fixtures, golden, pluck, pluck_str, run_oracle, temp_file,
};

#[test]
fn network_requests_match_the_trace_engine() {
    for name in PAGE_LOADS {
        let ours = document("network", &input(name));
        let want = oracle(name);
        let (ours, want) = (
            ours["requests"].as_array().unwrap(),
            want["network"].as_array().unwrap(),
        );
        assert_eq!(ours.len(), want.len(), "{name}: request count");
        assert!(!want.is_empty());
        for (o, w) in ours.iter().zip(want) {
            let at = format!("{name} {}", w["url"]);
            for key in [
                "url",
                "request_id",
                "priority",
                "initial_priority",
                "fetch_priority_hint",
                "mime_type",
                "resource_type",
                "transfer_size",
                "status",
                "protocol",
                "render_blocking",
                "from_cache",
                "failed",
                "finished",
                "frame",
            ] {
                assert_eq!(o[key], w[key], "{at}: {key}");
            }
            assert_eq!(o["decoded_body_size"], w["decoded_body_length"], "{at}");
            for key in [
                "start_ms",
                "end_ms",
                "dur_ms",
                "finish_ms",
                "send_start_ms",
                "download_start_ms",
            ] {
                close(&o[key], &w[key], MS, &format!("{at}: {key}"));
            }
            match w["initiator"].as_object() {
                Some(i) => {
                    assert_eq!(o["initiator_type"], i["type"], "{at}");
                    assert_eq!(o["initiator_url"], i["url"], "{at}");
                }
                None => assert!(o["initiator_type"].is_null(), "{at}"),
            }
        }
    }
}

#[test]
fn user_timings_match_the_trace_engine() {
    for name in PAGE_LOADS {
        let ours = document("timings", &input(name));
        let want = &oracle(name)["user_timings"];
        let mut listed = 0;
        for key in ["marks", "measures", "console_timings", "console_timestamps"] {
            let (o, w) = (ours[key].as_array().unwrap(), want[key].as_array().unwrap());
            assert_eq!(o.len(), w.len(), "{name}: {key}");
            listed += w.len();
            for (o, w) in o.iter().zip(w) {
                assert_eq!(o["name"], w["name"], "{name}: {key}");
                close(&o["start_ms"], &w["start_ms"], MS, &format!("{name} {key}"));
                if w.get("dur_ms").is_some() {
                    close(&o["dur_ms"], &w["dur_ms"], MS, &format!("{name} {key}"));
                }
            }
        }
        assert!(listed > 0, "{name} has user timings to compare");
    }
}

/// An interaction's span and its three phases, as we and the engine name them.
const INTERACTION_TIMES: [&str; 5] = [
    "start_ms",
    "dur_ms",
    "input_delay_ms",
    "processing_ms",
    "presentation_delay_ms",
];

#[test]
fn web_vitals_and_insights_match_the_trace_engine() {
    for name in PAGE_LOADS {
        let ours = document("insights", &input(name));
        let want = oracle(name);
        assert_eq!(ours["kind"], "trace");
        close(&ours["duration_ms"], &want["duration_ms"], MS, "duration");
        assert_eq!(ours["main_frame_url"], want["main_frame_url"]);
        for (n, w) in paired(
            &ours["navigations"],
            &want["navigations"],
            &format!("{name}: navigations"),
        ) {
            let at = format!("{name} {}", w["id"]);
            assert_eq!(n["id"], w["id"]);
            assert_eq!(n["url"], w["url"], "{at}");
            assert_eq!(n["frame_id"], w["frame_id"], "{at}");
            for k in ["start_ms", "end_ms", "dur_ms"] {
                close(
                    &n["bounds"][k],
                    &w["bounds"][k],
                    MS,
                    &format!("{at} bounds.{k}"),
                );
            }
            let (m, wm) = (&n["metrics"], &w["metrics"]);
            for (ours_key, key) in [("fcp", "FCP"), ("fp", "FP"), ("dcl", "DCL"), ("load", "L")] {
                let what = format!("{at} {key}");
                close(&m[ours_key]["value_ms"], &wm[key]["value_ms"], MS, &what);
                close(&m[ours_key]["ts_ms"], &wm[key]["ts_ms"], MS, &what);
                assert_eq!(
                    m[ours_key]["classification"], wm[key]["classification"],
                    "{what}"
                );
            }
            let (lcp, wl) = (&m["lcp"], &wm["LCP"]);
            close(&lcp["value_ms"], &wl["value_ms"], MS, "LCP");
            close(&lcp["ts_ms"], &wl["ts_ms"], MS, "LCP ts");
            assert_eq!(lcp["type"], wl["type"]);
            assert_eq!(lcp["node_id"], wl["node_id"]);
            assert_eq!(lcp["classification"], wl["classification"]);

            close(&m["cls"]["score"], &wm["CLS"]["score"], SCORE, "CLS");
            let (wc, oc) = (&wm["CLS"]["worst_cluster"], &m["cls"]["worst_cluster"]);
            if wc.is_null() {
                // A page that never shifts (the background-image page).
                assert!(oc.is_null(), "{at}: ours has a worst cluster: {oc}");
            } else {
                for k in ["start_ms", "dur_ms", "worst_shift_ms"] {
                    close(&oc[k], &wc[k], MS, &format!("CLS worst cluster {k}"));
                }
                assert_eq!(oc["shifts"], wc["shifts"]);
            }

            let (inp, wi) = (&m["inp"], &wm["INP"]);
            close(&inp["value_ms"], &wi["value_ms"], MS, "INP");
            assert_eq!(inp["interaction"]["type"], wi["type"]);
            assert_eq!(inp["interaction"]["interaction_id"], wi["interaction_id"]);
            let processing = ["processing_start_ms", "processing_end_ms"];
            for k in INTERACTION_TIMES.iter().chain(&processing) {
                close(&inp["interaction"][k], &wi[k], MS, &format!("INP {k}"));
            }

            // The insights.
            let wins = &want["insights"][w["id"].as_str().unwrap()];
            let ins = &n["insights"];
            let sub = &wins["LCPBreakdown"]["subparts"];
            for (ours_key, key) in [
                ("ttfb", "ttfb"),
                ("load_delay", "loadDelay"),
                ("load_duration", "loadDuration"),
                ("render_delay", "renderDelay"),
            ] {
                // A text LCP has no load delay or duration.
                if sub[key].is_null() {
                    assert!(ins["lcp_breakdown"][ours_key].is_null(), "{at} {key}");
                    continue;
                }
                for k in ["start_ms", "end_ms", "dur_ms"] {
                    close(
                        &ins["lcp_breakdown"][ours_key][k],
                        &sub[key][k],
                        MS,
                        &format!("LCP breakdown {key}.{k}"),
                    );
                }
            }
            assert_eq!(
                lcp["request"]["url"],
                wins["LCPBreakdown"]["lcp_request"]["url"]
            );
            let longest = &wins["INPBreakdown"]["longest_interaction"];
            for k in ["start_ms", "dur_ms", "input_delay_ms", "processing_ms"] {
                close(
                    &ins["inp_breakdown"][k],
                    &longest[k],
                    MS,
                    &format!("INP breakdown {k}"),
                );
            }
            let clusters = wins["CLSCulprits"]["clusters"].as_array().unwrap();
            assert_eq!(
                ins["cls_clusters"].as_array().unwrap().len(),
                clusters.len()
            );
            for (o, w) in ins["cls_clusters"].as_array().unwrap().iter().zip(clusters) {
                close(&o["start_ms"], &w["start_ms"], MS, "cluster start");
                close(&o["dur_ms"], &w["dur_ms"], MS, "cluster dur");
                close(&o["score"], &w["score"], SCORE, "cluster score");
            }
            assert_eq!(
                pluck(&ins["render_blocking"], "url"),
                pluck(&wins["RenderBlocking"]["requests"], "url"),
                "{at}: render-blocking requests"
            );
        }

        // The tracks: markers, shifts, interactions, long tasks, the filmstrip.
        let markers = |v: &Value| -> Vec<(String, f64)> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["name"].as_str().unwrap().to_string(),
                        m["ts_ms"].as_f64().unwrap(),
                    )
                })
                .collect()
        };
        let (om, wm) = (
            markers(&ours["page_load_markers"]),
            markers(&want["page_load_markers"]),
        );
        assert_eq!(om.len(), wm.len(), "{om:?} vs {wm:?}");
        for (o, w) in om.iter().zip(&wm) {
            assert_eq!(o.0, w.0);
            assert!((o.1 - w.1).abs() <= MS, "{o:?} vs {w:?}");
        }
        let shifts = ours["layout_shifts"].as_array().unwrap();
        let want_shifts = want["layout_shifts"].as_array().unwrap();
        assert_eq!(shifts.len(), want_shifts.len());
        for (o, w) in shifts.iter().zip(want_shifts) {
            close(&o["ts_ms"], &w["ts_ms"], MS, "shift");
            close(&o["score"], &w["score"], SCORE, "shift score");
            assert_eq!(o["cluster"], w["cluster"]);
        }
        let inter = ours["interactions"].as_array().unwrap();
        let want_inter = want["interactions"].as_array().unwrap();
        assert_eq!(inter.len(), want_inter.len(), "interactions");
        for (o, w) in inter.iter().zip(want_inter) {
            assert_eq!(o["type"], w["type"]);
            assert_eq!(o["nested"], w["nested"]);
            assert_eq!(o["long"], w["long"]);
            for k in INTERACTION_TIMES {
                close(&o[k], &w[k], MS, &format!("interaction {} {k}", w["type"]));
            }
        }
        let (lt, wlt) = (&ours["long_tasks"], &want["long_tasks"]);
        assert_eq!(lt["count"], wlt["count"]);
        close(&lt["total_ms"], &wlt["total_ms"], MS, "long tasks total");
        close(
            &lt["blocking_ms"],
            &wlt["blocking_ms"],
            MS,
            "long tasks blocking",
        );
        let (ss, ws) = (&ours["screenshots"], &want["screenshots"]);
        assert_eq!(ss["count"], ws["count"]);
        if ws["count"] != 0 {
            close(
                &ss["first_ts_ms"],
                &ws["first_ts_ms"],
                MS,
                "first screenshot",
            );
            close(&ss["last_ts_ms"], &ws["last_ts_ms"], MS, "last screenshot");
        }
        assert_eq!(ss["broken"], 0);
    }
}

/// LCP discovery against the engine's: absent for a text LCP (which the engine passes).
#[track_caller]
fn lcp_discovery_matches(l: &Value, wl: &Value, at: &str) {
    if wl["lcp_request"].is_null() {
        assert_eq!(wl["state"], "pass", "{at}");
        assert!(l.is_null(), "{at}: {l}");
        return;
    }
    assert_eq!(l["state"], wl["state"], "{at} LCPDiscovery state");
    assert_eq!(l["request"]["url"], wl["lcp_request"]["url"], "{at}");
    close(
        &l["earliest_discovery_ms"],
        &wl["earliest_discovery_ms"],
        MS,
        &format!("{at} earliest discovery"),
    );
    close(
        &l["discovery_delay_ms"],
        &wl["image"]["discovery_delay_ms"],
        MS,
        &format!("{at} discovery delay"),
    );
    for (k, wk) in [
        ("priority_hinted", "priorityHinted"),
        ("request_discoverable", "requestDiscoverable"),
        ("eagerly_loaded", "eagerlyLoaded"),
    ] {
        assert_eq!(l[k], wl["checklist"][wk]["value"], "{at} {k}");
    }
}

/// Document latency, LCP discovery, DOM size, forced reflow and third parties, insight by
/// insight against the trace engine's models.
#[test]
fn more_insights_match_the_trace_engine() {
    for name in PAGE_LOADS {
        let ours = document("insights", &input(name));
        let want = oracle(name);
        for (n, w) in navigations(&ours, &want) {
            let at = format!("{name} {}", w["id"]);
            let wi = &want["insights"][w["id"].as_str().unwrap()];
            let i = &n["insights"];

            let (d, wd) = (&i["document_latency"], &wi["DocumentLatency"]);
            assert_eq!(d["state"], wd["state"], "{at} DocumentLatency state");
            let wdata = &wd["data"];
            assert_eq!(
                d["request"]["url"], wdata["document_request"]["url"],
                "{at}"
            );
            // Whole ms: the engine rounds them.
            close(
                &d["server_response_ms"],
                &wdata["server_response_time_ms"],
                0.0,
                &at,
            );
            close(&d["redirect_ms"], &wdata["redirect_duration_ms"], 0.0, &at);
            assert_eq!(
                d["uncompressed_bytes"], wdata["uncompressed_response_bytes"],
                "{at}"
            );
            for (k, wk) in [
                ("no_redirects", "noRedirects"),
                ("server_response_is_fast", "serverResponseIsFast"),
                ("uses_compression", "usesCompression"),
            ] {
                assert_eq!(d[k], wdata["checklist"][wk]["value"], "{at} {k}");
            }
            close(&d["savings_ms"], &wd["metric_savings"]["LCP"], 0.0, &at);

            lcp_discovery_matches(&i["lcp_discovery"], &wi["LCPDiscovery"], &at);

            let (cc, wc) = (&i["cls_culprits"], &wi["CLSCulprits"]);
            assert_eq!(cc["state"], wc["state"], "{at} CLSCulprits state");
            for (s, ws) in paired(&cc["shifts"], &wc["shifts"], &format!("{at} shifts")) {
                close(&s["ts_ms"], &ws["ts_ms"], MS, &format!("{at} shift"));
                close(&s["score"], &ws["score"], SCORE, &format!("{at} shift"));
                let rc = &ws["root_causes"];
                assert_eq!(s["web_fonts"], rc["web_fonts"], "{at} web fonts");
                assert_eq!(
                    s["iframes"].as_array().unwrap().len() as u64,
                    rc["iframes"].as_u64().unwrap(),
                    "{at} iframes"
                );
                let want_nodes: Vec<&Value> =
                    rc["unsized_images"].as_array().unwrap().iter().collect();
                let nodes = pluck(&s["unsized_images"], "node_id");
                assert_eq!(nodes, want_nodes, "{at} unsized images");
                assert_eq!(
                    s["non_composited_animations"].as_array().unwrap().len() as u64,
                    rc["non_composited_animations"].as_u64().unwrap(),
                    "{at} non-composited animations"
                );
            }
            for (k, wk) in paired(
                &cc["clusters"],
                &wc["culprits"],
                &format!("{at} culprit clusters"),
            ) {
                close(
                    &k["cluster_start_ms"],
                    &wk["cluster_start_ms"],
                    MS,
                    &format!("{at} culprit cluster"),
                );
                let kinds: Vec<(String, Value)> = k["culprits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (c["type"].as_str().unwrap().to_string(), c["url"].clone()))
                    .collect();
                let want: Vec<(String, Value)> = wk["culprits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        let kind = match c["type"].as_str().unwrap() {
                            "WEB_FONT" => "web_font",
                            "IFRAMES" => "iframe",
                            "ANIMATIONS" => "animation",
                            "UNSIZED_IMAGE" => "unsized_image",
                            other => panic!("{at}: culprit {other}"),
                        };
                        (kind.to_string(), c["url"].clone())
                    })
                    .collect();
                assert_eq!(kinds, want, "{at} culprits");
            }
            // Every compositing failure of the navigation's animations: the animation's name,
            // span, DevTools' reasons and the properties, against the engine's model.
            let (fs, wfs) = (
                cc["animation_failures"].as_array().unwrap(),
                wc["details"]["animationFailures"].as_array().unwrap(),
            );
            assert_eq!(fs.len(), wfs.len(), "{at} animation failures");
            assert_eq!(
                fs.len() as u64,
                wc["animation_failures"].as_u64().unwrap(),
                "{at}"
            );
            for (f, wf) in fs.iter().zip(wfs) {
                assert_eq!(f["name"], wf["name"], "{at} animation");
                assert_eq!(f["failure_reasons"], wf["failureReasons"], "{at} reasons");
                assert_eq!(
                    f["unsupported_properties"], wf["unsupportedProperties"],
                    "{at} properties"
                );
                let a = &wf["animation"];
                for (ours, engine) in [("animation_ts_ms", "ts_ms"), ("animation_dur_ms", "dur_ms")]
                {
                    close(
                        &f[ours],
                        &a[engine],
                        MS,
                        &format!("{at} animation {engine}"),
                    );
                }
            }

            let (m, wm) = (&i["dom_size"], &wi["DOMSize"]);
            assert_eq!(m["state"], wm["state"], "{at} DOMSize state");
            let stats = &wm["max_dom_stats"];
            for k in ["total_elements", "max_depth", "max_children"] {
                assert_eq!(m[k], stats[k], "{at} DOM {k}");
            }
            close(&m["ts_ms"], &stats["ts_ms"], MS, &format!("{at} DOM stats"));
            assert_eq!(
                m["large_layout_updates"], wm["large_layout_updates"],
                "{at}"
            );
            assert_eq!(m["large_style_recalcs"], wm["large_style_recalcs"], "{at}");
            for (u, wu) in paired(
                &m["large_updates"],
                &wm["large_updates"],
                &format!("{at} large updates"),
            ) {
                assert_eq!(u["size"], wu["size"], "{at}");
                close(
                    &u["dur_ms"],
                    &wu["duration_ms"],
                    MS,
                    &format!("{at} update"),
                );
            }

            let (f, wf) = (&i["forced_reflow"], &wi["ForcedReflow"]);
            assert_eq!(f["state"], wf["state"], "{at} ForcedReflow state");
            assert_eq!(f["reflow_events"], wf["reflow_events"], "{at}");
            close(
                &f["total_reflow_ms"],
                &wf["total_reflow_ms"],
                MS,
                &format!("{at} reflow total"),
            );
            for (b, wb) in paired(
                &f["bottom_up"],
                &wf["bottom_up"],
                &format!("{at} reflow sources"),
            ) {
                same_frame(b, wb, &format!("{at} reflow source"));
                assert_eq!(b["reflows"], wb["reflows"], "{at}");
                close(&b["total_ms"], &wb["total_ms"], MS, &format!("{at} source"));
            }
            let (t, wt) = (&f["top_level_function"], &wf["top_level_function"]);
            if wt.is_null() {
                assert!(t.is_null(), "{at}: {t}");
            } else {
                same_frame(t, wt, &format!("{at} top-level"));
                assert_eq!(t["reflows"], wt["calls"], "{at}");
                close(
                    &t["total_ms"],
                    &wt["total_reflow_ms"],
                    MS,
                    &format!("{at} top-level reflow"),
                );
            }

            assert_third_parties(&i["third_parties"], &wi["ThirdParties"], &at);
        }
    }
}

/// The network dependency tree (critical request chains on Lantern's graph): every request of
/// the tree in the engine's order, its parent, times and the critical path; the max latency,
/// the state and the preconnected origins.
#[test]
fn network_dependency_tree_matches_the_trace_engine() {
    let mut longest = 0;
    for name in PAGE_LOADS {
        let ours = document("insights", &input(name));
        let chains = assert_network_tree_matches(&ours, &oracle(name), name);
        // The animation page loads one document and nothing else: a tree of its root alone.
        assert!(chains >= 1, "{name}: a tree without its document");
        longest = longest.max(chains);
    }
    assert!(longest >= 3, "no recorded page load chains requests");
}

/// Where the engine has no Lantern graph for a navigation (no LCP; responses without a
/// connection id, a trace too old) its tree is empty and passes: ours says so and why, and
/// equals the oracle's on the same edited page load when the oracle is built.
#[test]
fn network_dependency_tree_is_empty_without_lanterns_graph() {
    let trace = golden(&fixtures().join("trace/pageload.trace.json.gz"));
    type Edit = fn(&mut Value);
    let edits: [(&str, &str, Edit); 2] = [
        ("no-lcp", "NO_LCP", |e| {
            if e["name"] == "largestContentfulPaint::Candidate" {
                e["name"] = "edited-out".into();
            }
        }),
        ("too-old", "Trace is too old", |e| {
            if e["name"] == "ResourceReceiveResponse" {
                e["args"]["data"]
                    .as_object_mut()
                    .unwrap()
                    .remove("connectionId");
            }
        }),
    ];
    for (name, why, edit) in edits {
        let mut t = trace.clone();
        t["traceEvents"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .for_each(edit);
        let path = temp_file(&format!("{name}.trace.json"), t.to_string().as_bytes());
        let ours = document("insights", path.to_str().unwrap());
        let tree = &ours["navigations"][0]["insights"]["network_dependency_tree"];
        assert_eq!(tree["state"], "pass", "{name}");
        assert_eq!(tree["chain"], serde_json::json!([]), "{name}");
        assert_eq!(tree["graph_error"], why, "{name}");
        if let Some(want) = run_oracle("insights-oracle", &path) {
            assert_network_tree_matches(&ours, &want, name);
        }
    }
}

/// Our `third_parties` insight against the oracle's `ThirdParties`, entity by entity.
#[track_caller]
fn assert_third_parties(p: &Value, wp: &Value, at: &str) {
    assert_eq!(p["state"], wp["state"], "{at} ThirdParties state");
    assert_eq!(p["first_party"], wp["first_party"], "{at}");
    // Ours are in the insight table's order (main-thread time, transfer size, name); the
    // engine lists them as its bottom-up tree met them.
    let e = p["entities"].as_array().unwrap();
    let mut we = wp["entities"].as_array().unwrap().clone();
    let key = |v: &Value| {
        (
            v["main_thread_ms"].as_f64().unwrap(),
            v["transfer_size"].as_f64().unwrap(),
        )
    };
    we.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then_with(|| a["entity"].as_str().cmp(&b["entity"].as_str()))
    });
    let we = &we;
    let names = |v: &Vec<Value>| v.iter().map(|e| e["entity"].clone()).collect::<Vec<_>>();
    assert_eq!(names(e), names(we), "{at} entities");
    for (e, we) in e.iter().zip(we) {
        for k in ["entity", "first_party", "transfer_size"] {
            assert_eq!(e[k], we[k], "{at} entity {k}");
        }
        close(
            &e["main_thread_ms"],
            &we["main_thread_ms"],
            MS,
            &format!("{at} {} main thread", we["entity"]),
        );
    }
}

/// The recorded page load with its script, style sheet, image and a late script moved to
/// domains third-party-web knows (Google Analytics, Google Fonts, JSDelivr) or does not (a
/// made-up shop's CDN, named by its root domain): the entities, their transfer sizes and
/// main-thread times are those of DevTools' trace engine (run live on the rewritten trace).
#[test]
fn third_parties_name_the_companies_third_party_web_knows() {
    let mut text = fixture_text("trace/pageload.trace.json.gz");
    let moves = [
        (
            "http://127.0.0.1:8790/app.js",
            "https://ssl.google-analytics.com/ga/app.js",
        ),
        (
            "http://127.0.0.1:8790/styles.css",
            "https://fonts.googleapis.com/css2?family=Inter",
        ),
        (
            "http://127.0.0.1:8790/slow.js",
            "https://cdn.jsdelivr.net/npm/slow@1/slow.js",
        ),
        (
            "http://127.0.0.1:8790/hero.png",
            "https://img.static.example-shop.co.uk/hero.png",
        ),
    ];
    for (from, to) in moves {
        assert!(text.contains(from), "the fixture no longer loads {from}");
        text = text.replace(from, to);
    }
    let trace = temp_file("third-parties.trace.json", text.as_bytes());
    let Some(want) = run_oracle("insights-oracle", &trace) else {
        return;
    };
    let ours = document("insights", trace.to_str().unwrap());
    let mut named = Vec::new();
    for n in ours["navigations"].as_array().unwrap() {
        let at = format!("rewritten pageload {}", n["id"]);
        let wi = &want["insights"][n["id"].as_str().unwrap()];
        assert_third_parties(&n["insights"]["third_parties"], &wi["ThirdParties"], &at);
        for e in n["insights"]["third_parties"]["entities"]
            .as_array()
            .unwrap()
        {
            named.push(e["entity"].as_str().unwrap().to_string());
        }
    }
    // The companies by their names, the unknown CDN by its root domain.
    for name in ["Google Analytics", "example-shop.co.uk"] {
        assert!(
            named.iter().any(|n| n == name),
            "{name} not among {named:?}"
        );
    }
}

/// A page load cut short, with a request that never finished, a screenshot whose base64 is
/// broken and an event name nobody knows: what is there loads, with warnings. The expected
/// values follow DevTools' rules by hand (an unfinished request ends at its send).
#[test]
fn damaged_page_loads_load_with_warnings() {
    let trace = r#"{"traceEvents": [
 {"name": "TracingStartedInBrowser", "ph": "I", "pid": 1, "tid": 1, "ts": 1000, "cat": "disabled-by-default-devtools.timeline",
  "args": {"data": {"frames": [{"frame": "F", "url": "about:blank", "isOutermostMainFrame": true, "processId": 2}]}}},
 {"name": "navigationStart", "ph": "R", "pid": 2, "tid": 2, "ts": 2000, "cat": "blink.user_timing",
  "args": {"frame": "F", "data": {"documentLoaderURL": "http://a.test/", "isLoadingMainFrame": true, "navigationId": "N"}}},
 {"name": "ResourceSendRequest", "ph": "I", "pid": 2, "tid": 2, "ts": 3000, "cat": "devtools.timeline",
  "args": {"data": {"requestId": "r1", "url": "http://a.test/never.js", "priority": "High", "frame": "F", "renderBlocking": "blocking"}}},
 {"name": "ResourceFinish", "ph": "I", "pid": 2, "tid": 2, "ts": 3500, "cat": "devtools.timeline", "args": {"data": {}}},
 {"name": "Screenshot", "ph": "O", "pid": 1, "tid": 1, "ts": 4000, "id": "0x2", "cat": "disabled-by-default-devtools.screenshot",
  "args": {"snapshot": "%%% not base64 %%%", "source_id": 1}},
 {"name": "SomethingNewInChrome200", "ph": "X", "pid": 2, "tid": 2, "ts": 4100, "dur": 5, "args": {"data": {"x": 1}}},
 {"name": "app:ready", "ph": "I", "pid": 2, "tid": 2, "ts": 4500, "cat": "blink.user_timing", "args": {"data": {}}},
 {"name": "app:load", "ph": "b", "pid": 2, "tid": 2, "ts": 4600, "cat": "blink.user_timing", "id2": {"local": "0x1"}, "args": {}},
 {"name": "RunTask", "ph": "X", "pid": 2, "tid": 2, "ts": 5000, "dur": 10"#;
    let path = temp_file("damaged-pageload.json", trace.as_bytes());
    let path = path.to_str().unwrap();

    let net = document("network", path);
    let requests = net["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r["finished"], false);
    assert_eq!(r["transfer_size"], 0);
    // Origin: TracingStartedInBrowser (1 ms); the request starts at 3 ms and, unfinished, ends there.
    assert_eq!(r["start_ms"], 2.0);
    assert_eq!(r["end_ms"], 2.0);
    let messages = pluck_str(&net["warnings"], "message");
    assert!(
        messages.iter().any(|m| m.contains("ends before its JSON")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("requestId")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("base64")),
        "{messages:?}"
    );

    let ins = document("insights", path);
    assert_eq!(ins["screenshots"]["count"], 1);
    assert_eq!(ins["screenshots"]["broken"], 1);
    assert_eq!(ins["navigations"][0]["id"], "NAVIGATION_0");
    assert!(ins["navigations"][0]["metrics"]["lcp"].is_null());

    let t = document("timings", path);
    assert_eq!(t["marks"][0]["name"], "app:ready");
    assert_eq!(t["measures"].as_array().unwrap().len(), 0);
    assert!(t["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["message"]
            .as_str()
            .unwrap()
            .contains("without their partner")));
}

/// Our reflow source's call frame against the engine's, key by key.
#[track_caller]
fn same_frame(ours: &Value, want: &Value, at: &str) {
    for k in ["function", "url", "line", "column", "script_id"] {
        assert_eq!(ours["frame"][k], want[k], "{at} {k}");
    }
}
