//! What the page-load reference tests (`crates/jsprof_pageload/tests/reference`) and the CLI's
//! tests (`crates/jsprof/tests/it`, which includes this file) share: the recorded page loads and
//! their goldens, the recorded page load edited for the checks and scripts to fail, and the
//! comparisons of an insights document with DevTools' trace engine's answer. It uses only
//! `crate::support`'s `fixtures`, `golden` and `fixture_text`, which both test binaries have.

use serde_json::{json, Value};

use crate::support::{fixture_text, fixtures, golden};

/// Recorded page loads (`tools/gen/pageload-*.js`) and their oracle goldens.
pub(crate) const PAGE_LOADS: &[&str] = &[
    "trace/pageload.trace",
    "trace/pageload-shifts.trace",
    "trace/pageload-bgimage.trace",
    "trace/pageload-anim.trace",
];

/// The oracle rounds every ms value to 0.001 ms; ours are exact, so they may differ by half that.
pub(crate) const MS: f64 = 0.0006;

/// Scores are rounded to 0.001 by the oracle too.
pub(crate) const SCORE: f64 = 0.0006;

/// The page checks that pass or fail without numbers: our insight's key, the engine's name.
const PAGE_CHECKS: &[(&str, &str)] = &[
    ("viewport", "Viewport"),
    ("character_set", "CharacterSet"),
    ("cache", "Cache"),
    ("modern_http", "ModernHTTP"),
    ("font_display", "FontDisplay"),
];

/// How many of our document's `related_events` the insight `insight` of navigation `id` points
/// at: the engine's `relatedEvents` count.
pub(crate) fn related_events(ours: &Value, id: &str, insight: &str) -> usize {
    ours["related_events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["navigation"] == id && e["insight"] == insight)
        .count()
}

/// Each navigation of our insights document beside the engine's, in order.
pub(crate) fn navigations<'a>(
    ours: &'a Value,
    want: &'a Value,
) -> impl Iterator<Item = (&'a Value, &'a Value)> {
    ours["navigations"]
        .as_array()
        .unwrap()
        .iter()
        .zip(want["navigations"].as_array().unwrap())
}

/// Each navigation of our insights document beside the engine's, with the engine's insight
/// `insight` of it and the place a failure names (`NAME "NAVIGATION_n"`).
pub(crate) fn navigation_insights<'a>(
    ours: &'a Value,
    want: &'a Value,
    name: &'a str,
    insight: &'a str,
) -> impl Iterator<Item = (String, &'a Value, &'a Value, &'a Value)> {
    navigations(ours, want).map(move |(n, w)| {
        let at = format!("{name} {}", w["id"]);
        (
            at,
            n,
            w,
            &want["insights"][w["id"].as_str().unwrap()][insight],
        )
    })
}

/// The oracle rounds ms and bytes to 0.001; ours are exact.
pub(crate) const ROUNDED: f64 = 0.0006;

pub(crate) fn input(name: &str) -> String {
    fixtures()
        .join(format!("{name}.json.gz"))
        .to_string_lossy()
        .into_owned()
}

pub(crate) fn oracle(name: &str) -> Value {
    golden(&fixtures().join(format!("{name}.insights.json.gz")))
}

#[track_caller]
pub(crate) fn close(ours: &Value, want: &Value, tol: f64, what: &str) {
    let (Some(a), Some(b)) = (ours.as_f64(), want.as_f64()) else {
        panic!("{what}: ours {ours}, DevTools {want}");
    };
    assert!((a - b).abs() <= tol, "{what}: ours {a}, DevTools {b}");
}

/// Our array and the engine's, element by element, once they are both arrays of one length
/// (else a panic naming `what`).
#[track_caller]
pub(crate) fn paired<'a>(
    ours: &'a Value,
    want: &'a Value,
    what: &str,
) -> std::iter::Zip<std::slice::Iter<'a, Value>, std::slice::Iter<'a, Value>> {
    let (Some(o), Some(w)) = (ours.as_array(), want.as_array()) else {
        panic!("{what}: not two arrays: ours {ours:.200}, DevTools {want:.200}");
    };
    assert_eq!(o.len(), w.len(), "{what}");
    o.iter().zip(w)
}

/// `ours` within `tol` of `want` where the engine gives a number, else `null`.
#[track_caller]
pub(crate) fn close_or_null(ours: &Value, want: &Value, tol: f64, what: &str) {
    match want.as_f64() {
        Some(_) => close(ours, want, tol, what),
        None => assert!(ours.is_null(), "{what}"),
    }
}

/// An insight's Lantern savings (`metric_savings`: `fcp_ms`, `lcp_ms`, or `null`) against the
/// engine's (`FCP`, `LCP`, or `null` without a Lantern context): equal, as the engine rounds them.
#[track_caller]
pub(crate) fn assert_metric_savings(ours: &Value, want: &Value, what: &str) {
    if want.is_null() {
        assert!(ours.is_null(), "{what} savings: ours {ours}, DevTools none");
        return;
    }
    for (o, w) in [("fcp_ms", "FCP"), ("lcp_ms", "LCP")] {
        assert_eq!(
            ours[o].as_f64(),
            want[w].as_f64(),
            "{what} {w} savings: ours {ours}, DevTools {want}"
        );
    }
}

fn urls(requests: &Value, key: Option<&str>) -> Vec<Value> {
    let list = requests.as_array().unwrap();
    list.iter()
        .map(|r| key.map_or(r, |k| &r[k])["url"].clone())
        .collect()
}

/// Our page checks of every navigation of `ours` against the oracle's `want`; returns how
/// many failed (so a caller can tell the comparison saw failures).
pub(crate) fn assert_page_checks(ours: &Value, want: &Value, name: &str) -> usize {
    let mut failed = 0;
    for n in ours["navigations"].as_array().unwrap() {
        let id = n["id"].as_str().unwrap();
        let (i, wi) = (&n["insights"], &want["insights"][id]);
        let at = format!("{name} {id}");
        for &(ours, engine) in PAGE_CHECKS {
            assert_eq!(i[ours]["state"], wi[engine]["state"], "{at} {engine} state");
            failed += usize::from(i[ours]["state"] == "fail");
        }

        let (v, wv) = (&i["viewport"], &wi["Viewport"]);
        assert_eq!(
            v["mobile_optimized"], wv["mobile_optimized"],
            "{at} viewport"
        );
        assert_eq!(
            v["long_pointer_interactions"], wv["long_pointer_interactions"],
            "{at} viewport"
        );
        close_or_null(
            &v["inp_savings_ms"],
            &wv["metric_savings"]["INP"],
            ROUNDED,
            &format!("{at} viewport INP savings"),
        );

        let (c, wc) = (&i["character_set"], &wi["CharacterSet"]["data"]);
        if wc.is_null() {
            assert!(c["request"].is_null(), "{at} character set: {c}");
        } else {
            assert_eq!(c["http_charset"], wc["has_http_charset"], "{at} charset");
            assert_eq!(
                c["meta_charset_disposition"], wc["meta_charset_disposition"],
                "{at} charset"
            );
            assert_eq!(
                c["meta_charset"], wc["checklist"]["metaCharset"]["value"],
                "{at} charset"
            );
        }

        let (k, wk) = (&i["cache"], &wi["Cache"]);
        assert_eq!(
            urls(&k["requests"], Some("request")),
            urls(&wk["requests"], None),
            "{at} cache requests"
        );
        for (r, wr) in k["requests"]
            .as_array()
            .unwrap()
            .iter()
            .zip(wk["requests"].as_array().unwrap())
        {
            assert_eq!(r["ttl_s"].as_f64(), wr["ttl"].as_f64(), "{at} cache ttl");
            close(
                &r["wasted_bytes"],
                &wr["wasted_bytes"],
                ROUNDED,
                &format!("{at} cache wasted"),
            );
        }
        close(
            &k["wasted_bytes"],
            &wk["wasted_bytes"],
            ROUNDED,
            &format!("{at} cache wasted bytes"),
        );
        assert_metric_savings(
            &k["metric_savings"],
            &wk["metric_savings"],
            &format!("{at} cache"),
        );

        let (m, wm) = (&i["modern_http"], &wi["ModernHTTP"]);
        assert_eq!(
            urls(&m["http1_requests"], None),
            wm["http1_requests"].as_array().unwrap().clone(),
            "{at} HTTP/1.1 requests"
        );
        assert_metric_savings(
            &m["metric_savings"],
            &wm["metric_savings"],
            &format!("{at} modern HTTP"),
        );

        let (f, wf) = (&i["font_display"], &wi["FontDisplay"]);
        let (fonts, wfonts) = (
            f["fonts"].as_array().unwrap(),
            wf["fonts"].as_array().unwrap(),
        );
        assert_eq!(fonts.len(), wfonts.len(), "{at} fonts");
        for (font, wfont) in fonts.iter().zip(wfonts) {
            assert_eq!(font["request"]["url"], wfont["url"], "{at} font");
            assert_eq!(font["name"], wfont["name"], "{at} font name");
            assert_eq!(font["display"], wfont["display"], "{at} font display");
            close(
                &font["wasted_ms"],
                &wfont["wasted_time_ms"],
                ROUNDED,
                &format!("{at} font"),
            );
        }
        // Without fonts the engine's max is -Infinity, which its JSON writes as null.
        close_or_null(
            &f["fcp_savings_ms"],
            &wf["metric_savings"]["FCP"],
            ROUNDED,
            &format!("{at} font FCP savings"),
        );

        let (c, wc) = (&i["slow_css_selector"], &wi["SlowCSSSelector"]);
        assert_eq!(c["state"], wc["state"], "{at} CSS selectors state");
        close(
            &c["total_elapsed_ms"],
            &wc["total_elapsed_ms"],
            ROUNDED,
            &format!("{at} CSS selectors elapsed"),
        );
        for key in ["total_match_attempts", "total_match_count"] {
            assert_eq!(
                c[key].as_f64(),
                wc[key].as_f64(),
                "{at} CSS selectors {key}"
            );
            // Written as the engine writes them (no `-0.0` for none).
            assert!(
                !c[key].to_string().starts_with('-'),
                "{at} {key}: {}",
                c[key]
            );
        }
        for (ours, engine) in [
            ("top_elapsed", "topSelectorElapsedMs"),
            ("top_match_attempts", "topSelectorMatchAttempts"),
        ] {
            let w = &wc["details"][engine];
            assert_eq!(c[ours]["selector"], w["selector"], "{at} CSS {ours}");
            if !w.is_null() {
                let elapsed = json!(w["elapsed (us)"].as_f64().unwrap() / 1000.0);
                close(
                    &c[ours]["elapsed_ms"],
                    &elapsed,
                    ROUNDED,
                    &format!("{at} CSS {ours}"),
                );
                assert_eq!(
                    c[ours]["match_attempts"].as_f64(),
                    w["match_attempts"].as_f64()
                );
            }
        }

        // The events each points at, as the engine's `relatedEvents`.
        for &(name, engine) in PAGE_CHECKS
            .iter()
            .chain(&[("slow_css_selector", "SlowCSSSelector")])
        {
            assert_eq!(
                json!(related_events(ours, id, name)),
                wi[engine]["related_events"],
                "{at} {engine} related events"
            );
        }
    }
    failed
}

/// Our image delivery of every navigation of `ours` against the oracle's `want`: the state,
/// each image with its optimizations (bytes and sizes equal), its largest paint, the wasted
/// bytes, the FCP/LCP savings and the related requests; returns how many images were listed.
pub(crate) fn assert_image_delivery(ours: &Value, want: &Value, name: &str) -> usize {
    let mut listed = 0;
    for n in ours["navigations"].as_array().unwrap() {
        let id = n["id"].as_str().unwrap();
        let at = format!("{name} {id}");
        let (d, w) = (
            &n["insights"]["image_delivery"],
            &want["insights"][id]["ImageDelivery"],
        );
        assert_eq!(d["state"], w["state"], "{at} image delivery state");
        assert_eq!(
            d["wasted_bytes"].as_f64(),
            w["wasted_bytes"].as_f64(),
            "{at} image delivery wasted bytes"
        );
        assert_metric_savings(
            &d["metric_savings"],
            &w["metric_savings"],
            &format!("{at} image delivery"),
        );
        let images = d["optimizable_images"].as_array().unwrap();
        let (wimages, details) = (
            w["optimizable_images"].as_array().unwrap(),
            w["details"]["optimizableImages"].as_array().unwrap(),
        );
        assert_eq!(images.len(), wimages.len(), "{at} images: {d}");
        for ((m, wm), wd) in images.iter().zip(wimages).zip(details) {
            let url = m["request"]["url"].as_str().unwrap();
            assert_eq!(json!(url), wm["url"], "{at} image order");
            let at = format!("{at} {url}");
            assert_eq!(
                m["byte_savings"].as_f64(),
                wm["byte_savings"].as_f64(),
                "{at}"
            );
            let paint = &wd["largestImagePaint"];
            for (ours, engine) in [
                ("largest_paint_ms", "ts_ms"),
                ("largest_paint_dur_ms", "dur_ms"),
            ] {
                let (a, b) = (m[ours].as_f64().unwrap(), paint[engine].as_f64().unwrap());
                assert!(
                    (a - b).abs() <= ROUNDED,
                    "{at} {ours}: ours {a}, DevTools {b}"
                );
            }
            let opts = m["optimizations"].as_array().unwrap();
            let wopts = wd["optimizations"].as_array().unwrap();
            assert_eq!(opts.len(), wopts.len(), "{at} optimizations");
            for (o, wo) in opts.iter().zip(wopts) {
                assert_eq!(o["type"], wo["type"], "{at}");
                assert_eq!(
                    o["byte_savings"].as_f64(),
                    wo["byteSavings"].as_f64(),
                    "{at}"
                );
                for (ours, engine) in [
                    ("file_dimensions", "fileDimensions"),
                    ("display_dimensions", "displayDimensions"),
                ] {
                    for k in ["width", "height"] {
                        assert_eq!(o[ours][k].as_f64(), wo[engine][k].as_f64(), "{at} {ours}");
                    }
                }
            }
            listed += 1;
        }
        let related: Vec<&Value> = ours["related_events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["navigation"] == id && e["insight"] == "image_delivery")
            .collect();
        assert_eq!(
            json!(related.len()),
            w["related_events"],
            "{at} image delivery related events"
        );
        for (r, m) in related.iter().zip(images) {
            assert_eq!(r["request_id"], m["request"]["request_id"], "{at} related");
        }
    }
    listed
}

/// Compares the network dependency tree of every navigation of `ours` (`insights --json`) with
/// the oracle's `want`; returns how many chain entries there were.
pub(crate) fn assert_network_tree_matches(ours: &Value, want: &Value, name: &str) -> usize {
    let mut chains = 0;
    for (at, n, w, wt) in navigation_insights(ours, want, name, "NetworkDependencyTree") {
        let t = &n["insights"]["network_dependency_tree"];
        if w["navigation"].is_null() {
            assert!(t.is_null(), "{at}: no navigation, no tree");
            continue;
        }
        assert_eq!(t["state"], wt["state"], "{at} state");
        assert_eq!(t["state"] == "fail", wt["fail"] == true, "{at} fail");
        close(
            &t["max_critical_path_latency_ms"],
            &wt["max_critical_path_latency_ms"],
            MS,
            &format!("{at} max critical path latency"),
        );
        let (c, wc) = (
            t["chain"].as_array().unwrap(),
            wt["chain"].as_array().unwrap(),
        );
        assert_eq!(
            c.len(),
            wc.len(),
            "{at} chain: ours {c:#?}\nDevTools {wc:#?}"
        );
        for (k, (r, wr)) in c.iter().zip(wc).enumerate() {
            let at = format!("{at} chain[{k}]");
            assert_eq!(r["url"], wr["url"], "{at}");
            assert_eq!(r["depth"], wr["depth"], "{at} depth");
            let parent = r["parent"].as_u64().map(|p| &c[p as usize]["url"]);
            assert_eq!(parent.unwrap_or(&Value::Null), &wr["parent"], "{at} parent");
            assert_eq!(r["is_longest"], wr["is_longest"], "{at} is_longest");
            for key in ["time_from_initial_ms", "start_ms", "end_ms"] {
                close(&r[key], &wr[key], MS, &format!("{at} {key}"));
            }
        }
        chains += c.len();
        let (p, wp) = (
            t["preconnected_origins"].as_array().unwrap(),
            wt["preconnected_origins"].as_array().unwrap(),
        );
        assert_eq!(p.len(), wp.len(), "{at} preconnected origins");
        for (o, wo) in p.iter().zip(wp) {
            for key in ["url", "unused", "source"] {
                assert_eq!(o[key], wo[key], "{at} preconnected origin {key}");
            }
        }
    }
    chains
}

/// The recorded page load, edited so that every page check fails.
pub(crate) fn failing_page_load() -> String {
    let mut text = fixture_text("trace/pageload.trace.json.gz");
    // Both local origins become one site's: its six static files over HTTP/1.1.
    for from in ["http://127.0.0.1:8790", "http://localhost:8791"] {
        assert!(
            text.contains(from),
            "the fixture no longer loads from {from}"
        );
        text = text.replace(from, "http://shop.example.com");
    }
    let mut trace: Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array_mut().unwrap();
    let mut font = None;
    let mut frame = None;
    for e in events.iter_mut() {
        let name = e["name"].as_str().unwrap().to_string();
        let request = e["args"]["data"]["requestId"]
            .as_str()
            .unwrap_or("")
            .to_string();
        match name.as_str() {
            "ResourceReceiveResponse" => {
                if request == "22250.5" {
                    let timing = &mut e["args"]["data"]["timing"];
                    timing["receiveHeadersStart"] = json!(50.0);
                    timing["receiveHeadersEnd"] = json!(50.1);
                }
                let headers = e["args"]["data"]["headers"].as_array_mut().unwrap();
                for h in headers {
                    let value = h["value"].as_str().unwrap().to_string();
                    match h["name"].as_str().unwrap() {
                        "Content-Type" if value == "text/html; charset=utf-8" => {
                            h["value"] = "text/html".into()
                        }
                        // Cache lifetimes of an hour, two hours and none at all.
                        "Cache-Control" if request == "22250.2" => {
                            h["value"] = "public, max-age=3600".into()
                        }
                        "Cache-Control" if request == "22250.6" => {
                            h["value"] = "max-age=7200".into()
                        }
                        "Cache-Control" if request == "22250.5" => {
                            h["name"] = "X-Cache-Control".into()
                        }
                        // The engine reads `expires` only by that lower-case name (a
                        // lifetime past 30 days: not listed); `Expires` it does not see (a
                        // lifetime of 0: listed); `Pragma: no-cache` without `Cache-Control`
                        // turns caching off (not listed).
                        "Cache-Control" if request == "22250.3" => {
                            h["name"] = "expires".into();
                            h["value"] = "Fri, 01 Jan 2100 00:00:00 GMT".into()
                        }
                        "Cache-Control" if request == "22250.4" => {
                            h["name"] = "Expires".into();
                            h["value"] = "Fri, 01 Jan 2100 00:00:00 GMT".into()
                        }
                        "Cache-Control" if request == "22250.12" => {
                            h["name"] = "Pragma".into();
                            h["value"] = "no-cache".into()
                        }
                        _ => {}
                    }
                }
            }
            "ResourceSendRequest" if request == "22250.12" => {
                let data = &e["args"]["data"];
                font = Some((
                    e["pid"].clone(),
                    e["tid"].clone(),
                    e["ts"].clone(),
                    data["url"].clone(),
                ));
                frame = Some(data["frame"].clone());
            }
            // Heavy downloads, so that the bytes the checks would save show in Lantern's
            // paints: the hero image (the LCP) of 20 MB, its headers 440 ms earlier and its
            // end 300 ms later (still before the LCP: the network Lantern infers is slow enough
            // for those bytes to cost time), the render-blocking stylesheet of 4 MB.
            "ResourceFinish" if matches!(request.as_str(), "22250.5" | "22250.2") => {
                let size = if request == "22250.5" { 20e6 } else { 4e6 };
                if request == "22250.5" {
                    e["ts"] = json!(e["ts"].as_f64().unwrap() + 300_000.0);
                    let finish = e["args"]["data"]["finishTime"].as_f64().unwrap();
                    e["args"]["data"]["finishTime"] = json!(finish + 0.3);
                }
                let data = &mut e["args"]["data"];
                data["decodedBodyLength"] = json!(size);
                data["encodedDataLength"] = json!(size + 177.0);
            }
            "BeginCommitCompositorFrame" => e["args"]["is_mobile_optimized"] = false.into(),
            // The click (`0x50`) waits 60 ms for the main thread and lasts 100 ms longer: a
            // slow tap the viewport may have delayed.
            "EventTiming" if e["id"] == "0x50" => match e["ph"].as_str().unwrap() {
                "b" => {
                    let data = &mut e["args"]["data"];
                    assert_eq!(data["type"], "click", "the fixture's click moved");
                    let start = data["timeStamp"].as_f64().unwrap();
                    data["processingStart"] = json!(start + 60.0);
                }
                _ => e["ts"] = json!(e["ts"].as_f64().unwrap() + 100_000.0),
            },
            _ => {}
        }
    }
    let (pid, tid, ts, url) = font.expect("the fixture no longer loads its badge");
    let frame = frame.unwrap();
    // The badge, loaded as a web font that blocks text; the parser reporting a late charset.
    events.push(
        json!({"name": "BeginRemoteFontLoad", "ph": "I", "s": "t", "cat": "devtools.timeline",
        "pid": pid, "tid": tid, "ts": ts, "args": {"id": 12, "display": "block", "url": url}}),
    );
    events.push(json!({"name": "RemoteFontLoaded", "ph": "I", "s": "t", "cat": "devtools.timeline",
        "pid": pid, "tid": tid, "ts": ts.as_f64().unwrap() + 60_000.0, "args": {"url": url, "name": "Badge Sans"}}));
    // Selector statistics written right after the main frame's first three style
    // recalculations (the engine pairs each with the recalculation before it in the file):
    // one selector in all three (slow only summed), one tried most.
    let recalcs: Vec<usize> = (0..events.len())
        .filter(|&i| {
            events[i]["name"] == "UpdateLayoutTree"
                && events[i]["args"]["beginData"]["frame"] == frame
        })
        .take(3)
        .collect();
    assert_eq!(recalcs.len(), 3, "the fixture recalculates styles less");
    for (k, &i) in recalcs.iter().enumerate().rev() {
        let timing = |selector: &str, elapsed: f64, attempts: u64, matches: u64| {
            json!({"selector": selector, "style_sheet_id": "7", "elapsed (us)": elapsed,
                "fast_reject_count": 3, "match_attempts": attempts, "match_count": matches,
                "invalidation_count": 0})
        };
        let r = &events[i];
        let stats = json!({"name": "SelectorStats", "ph": "X", "dur": 0,
        "cat": "disabled-by-default-blink.debug", "pid": r["pid"], "tid": r["tid"],
        "ts": r["ts"].as_f64().unwrap() + 1.0,
        "args": {"selector_stats": {"selector_timings": [
            timing(".list > li:nth-child(odd) span", 200.5, 700, 350),
            timing("#app *", 12.25 * (k + 1) as f64, 900 + k as u64, 2),
        ]}}});
        events.insert(i + 1, stats);
    }
    for e in events
        .iter_mut()
        .filter(|e| e["name"] == "MetaCharsetCheck")
    {
        e["args"] =
            json!({"data": {"frame": frame, "disposition": "found-after-first-1024-bytes"}});
    }
    trace.to_string()
}

pub(crate) const OLD_HERO: &str = "http://127.0.0.1:8790/old-hero.png";

/// The recorded page load with the hero served as a WebP with a `srcset`, redirected from
/// `old-hero.png` (the URL its paints name), and the badge as a 150 KB GIF.
pub(crate) fn webp_and_gif_page_load() -> String {
    let text = fixture_text("trace/pageload.trace.json.gz");
    let mut trace: Value = serde_json::from_str(&text).unwrap();
    let (mut hero, mut badge) = (0, 0);
    let events = trace["traceEvents"].as_array_mut().unwrap();
    // The hero's first send, 10 ms before its own: a redirect from the old URL.
    let send = events
        .iter()
        .position(|e| {
            e["name"] == "ResourceSendRequest" && e["args"]["data"]["requestId"] == "22250.5"
        })
        .expect("the fixture's hero moved");
    let mut old = events[send].clone();
    old["ts"] = json!(old["ts"].as_f64().unwrap() - 10_000.0);
    old["args"]["data"]["url"] = OLD_HERO.into();
    events.insert(send, old);
    for e in events.iter_mut() {
        let name = e["name"].as_str().unwrap().to_string();
        let data = &mut e["args"]["data"];
        let request = data["requestId"].as_str().unwrap_or("").to_string();
        match (name.as_str(), request.as_str()) {
            ("ResourceReceiveResponse", "22250.5") => {
                data["mimeType"] = "image/webp".into();
                hero += 1;
            }
            ("ResourceReceiveResponse", "22250.12") => {
                data["mimeType"] = "image/gif".into();
                badge += 1;
            }
            ("ResourceFinish", "22250.12") => {
                data["decodedBodyLength"] = json!(150_000);
                data["encodedDataLength"] = json!(150_177);
                badge += 1;
            }
            ("PaintImage", _) if data["url"] == "http://127.0.0.1:8790/hero.png" => {
                data["srcsetAttribute"] = "hero-800.png 800w, hero.png 1200w".into();
                data["url"] = OLD_HERO.into();
                hero += 1;
            }
            _ => {}
        }
    }
    assert!(hero >= 2 && badge == 2, "the fixture's hero or badge moved");
    trace.to_string()
}

/// The recorded page load with legacy JavaScript in three scripts: `app.js` gets a vendor
/// bundle (a core-js module by name, core-js's export of `includes`, a `defineProperty` of
/// `startsWith`, an assignment across a line end, Babel's classes and regenerator; a `\r\n`
/// and characters outside the BMP before some, to count lines and UTF-16 columns) and is
/// served gzipped (its compression ratio is no longer 1); `slow.js`, the render-blocking
/// script, two polyfills; a script without a url, one.
pub(crate) fn legacy_page_load() -> String {
    let text = fixture_text("trace/pageload.trace.json.gz");
    let mut trace: Value = serde_json::from_str(&text).unwrap();
    let pad = format!("// padding {}\n", "x".repeat(80));
    let bundle = format!(
        "// vendor bundle éé 😀\r\n\
         var $=require(\"core-js/modules/es.array.flat-map.js\");\n\
         $({{target:\"Array\",proto:!0}},{{includes:function(e){{return n(this,e)}}}});\n\
         /* é */ Object.defineProperty(String.prototype, 'startsWith', {{value: s}});\n\
         function _classCallCheck(a,n){{if(!(a instanceof n))throw new TypeError(\"Cannot call a class as a function\")}}\n\
         {classes}\
         var f=regeneratorRuntime.mark(function g(){{return regeneratorRuntime.wrap(function(c){{}},g)}});\n\
         Promise.any =\nfunction(){{}};\n{pad}",
        classes = "var A=function(){function A(){_classCallCheck(this,A)}return A}();\n".repeat(3),
        pad = pad.repeat(70),
    );
    let slow = format!(
        "String.prototype.padStart=0;Reflect.construct=1;Object.fromEntries=2;{}",
        pad.repeat(60)
    );
    let mut edited = 0;
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        let sources = e["cat"] == "disabled-by-default-devtools.v8-source-rundown-sources";
        let response = e["name"] == "ResourceReceiveResponse";
        let data = &mut e["args"]["data"];
        let prefix = match data["scriptId"].as_u64() {
            Some(4) if sources => bundle.as_str(),
            Some(5) if sources => slow.as_str(),
            Some(7) if sources => "Math.trunc=function(){};",
            _ => {
                // app.js's request.
                if response && data["requestId"] == "22250.6" {
                    let gzip = json!({"name": "content-encoding", "value": "gzip"});
                    data["headers"].as_array_mut().unwrap().push(gzip);
                }
                continue;
            }
        };
        let source = data["sourceText"].as_str().unwrap();
        data["sourceText"] = format!("{prefix}{source}").into();
        edited += 1;
    }
    assert_eq!(edited, 3, "the fixture's scripts moved");
    trace.to_string()
}

/// A base64 VLQ, as source maps write numbers.
fn vlq(n: i64) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut v = if n < 0 { (-n << 1) | 1 } else { n << 1 };
    let mut out = String::new();
    loop {
        let mut d = v & 31;
        v >>= 5;
        if v > 0 {
            d |= 32;
        }
        out.push(DIGITS[d as usize] as char);
        if v == 0 {
            return out;
        }
    }
}

/// A source map (JSON) of `lines` generated lines, each line's segments from `segments(line)`:
/// (generated column, source index and whether it names a name; `None`: no source).
pub(crate) fn source_map(
    root: &str,
    sources: &[&str],
    lines: usize,
    segments: impl Fn(usize) -> Vec<(i64, Option<(i64, bool)>)>,
) -> Value {
    let (mut source, mut name) = (0, 0);
    let mut mappings = Vec::new();
    for line in 0..lines {
        let mut column = 0;
        let mut out = Vec::new();
        for (col, mapped) in segments(line) {
            let mut seg = vlq(col - column);
            column = col;
            if let Some((s, named)) = mapped {
                // Source, original line (the generated one), original column 0.
                seg +=
                    &(vlq(s - source) + &vlq(if out.is_empty() && line > 0 { 1 } else { 0 }) + "A");
                source = s;
                if named {
                    seg += &vlq(1 - name);
                    name = 1;
                }
            }
            out.push(seg);
        }
        mappings.push(out.join(","));
    }
    json!({"version": 3, "sourceRoot": root, "sources": sources, "names": ["a", "b"],
        "mappings": mappings.join(";")})
}

/// A source map as a `data:` URL.
pub(crate) fn data_url(map: &Value) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(map.to_string());
    format!("data:application/json;charset=utf-8;base64,{b64}")
}

/// The legacy page load with source maps for three scripts, found as the Performance panel
/// finds them: `app.js`'s a `data:` URL, `widget.js`'s (given 30 lines of its own first) in the
/// trace's metadata by the script's url (Chrome elided its map's url), `slow.js`'s in the
/// metadata by the map's url (relative to the script's). app.js and widget.js both bundle
/// lodash, a scoped package's files and `util.js`, named through a source root, relative paths
/// and absolute URLs, with unmapped segments, names, several segments a line and the webpack
/// bootstrap (ignored), app.js's two polyfills only its map names (core-js's `Object.assign`
/// module, focus-visible); slow.js is all lodash.
pub(crate) fn duplicated_page_load() -> String {
    let mut trace: Value = serde_json::from_str(&legacy_page_load()).unwrap();
    let pad = format!("// widget vendor {}\n", "y".repeat(70)).repeat(30);
    let mut lines = std::collections::HashMap::new();
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        let sources = e["cat"] == "disabled-by-default-devtools.v8-source-rundown-sources";
        let data = &mut e["args"]["data"];
        if !sources {
            continue;
        }
        let id = data["scriptId"].as_u64().unwrap_or(0);
        if id == 6 {
            let text = format!("{pad}{}", data["sourceText"].as_str().unwrap());
            data["sourceText"] = text.into();
        }
        if let Some(text) = data["sourceText"].as_str() {
            lines.insert(id, text.split('\n').count());
        }
    }
    let app = source_map(
        "",
        &[
            "webpack://shop/node_modules/lodash/lodash.js",
            "../node_modules/@scope/pkg/x.js",
            "webpack://shop/src/util.js",
            "webpack/bootstrap",
            "node_modules/@scope/pkg/tiny.js",
            "webpack://shop/node_modules/core-js/modules/es.object.assign.js",
            "../node_modules/focus-visible/dist/focus-visible.js",
        ],
        lines[&4],
        |l| match l {
            0 => vec![(0, None), (3, Some((3, false)))],
            1..=9 => vec![(0, Some((0, false))), (5, Some((1, true))), (9, None)],
            10..=39 => vec![(0, Some((0, l % 2 == 0)))],
            40..=59 => vec![(0, Some((2, false)))],
            60..=79 => vec![(0, Some((1, false))), (20, Some((4, false)))],
            82..=84 => vec![(2, Some((5, false)))],
            85..=86 => vec![(0, Some((6, false)))],
            _ => vec![(0, Some((3, false)))],
        },
    );
    let widget = source_map(
        "webpack://shop/",
        &[
            "node_modules/lodash/lodash.js",
            "https://cdn.test/node_modules/@scope/pkg/x.js",
            "src/util.js",
        ],
        lines[&6],
        |l| match l {
            0..=19 => vec![(0, Some((0, false)))],
            20..=27 => vec![(0, Some((1, false)))],
            _ => vec![(0, Some((2, false)))],
        },
    );
    let slow = source_map("", &["node_modules/lodash/lodash.js"], lines[&5], |_| {
        vec![(0, Some((0, false)))]
    });
    let mut mapped = 0;
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        if e["cat"] != "disabled-by-default-devtools.v8-source-rundown" {
            continue;
        }
        let data = &mut e["args"]["data"];
        match data["scriptId"].as_u64() {
            Some(4) => data["sourceMapUrl"] = data_url(&app).into(),
            Some(6) => data["sourceMapUrlElided"] = true.into(),
            Some(5) => data["sourceMapUrl"] = "maps/../slow.js.map".into(),
            _ => continue,
        }
        mapped += 1;
    }
    assert_eq!(mapped, 3, "the fixture's scripts moved");
    trace["metadata"]["sourceMaps"] = json!([
        {"url": "http://localhost:8791/widget.js", "sourceMap": widget},
        {"sourceMapUrl": "http://127.0.0.1:8790/slow.js.map", "sourceMap": slow},
    ]);
    // The metadata after the events, as Chrome and DevTools write it.
    format!(
        r#"{{"traceEvents":{},"metadata":{}}}"#,
        trace["traceEvents"], trace["metadata"]
    )
}
