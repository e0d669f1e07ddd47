//! The page checks of `jsprof insights` — viewport, character set, cache, modern HTTP, font
//! display, CSS selector costs — against DevTools' trace engine: on the recorded page loads (their goldens; they
//! pass every check) and on the recorded page load edited to fail each one (the live oracle,
//! `insights-oracle.mjs`): an origin that is not local serving its static files over
//! HTTP/1.1, short cache lifetimes, no charset in `Content-Type` and a late `<meta charset>`,
//! frames not optimized for mobile with a slow click, a web font with `font-display: block`, and
//! selector statistics of style recalculations; heavy image and stylesheet downloads make the
//! Lantern savings of cache, modern HTTP and image delivery (`image_delivery.rs`) more than
//! nothing.

use serde_json::{json, Value};

use crate::image_delivery::assert_image_delivery;
use crate::support::{fixtures, golden, jsprof_json, run_oracle, temp_file};

/// Recorded page loads (`tools/gen/pageload-*.js`) and their oracle goldens.
const PAGE_LOADS: &[&str] = &[
    "trace/pageload.trace",
    "trace/pageload-shifts.trace",
    "trace/pageload-bgimage.trace",
    "trace/pageload-anim.trace",
];

/// The oracle rounds ms and bytes to 0.001; ours are exact.
const ROUNDED: f64 = 0.0006;

#[track_caller]
fn close(ours: &Value, want: &Value, what: &str) {
    let (Some(a), Some(b)) = (ours.as_f64(), want.as_f64()) else {
        panic!("{what}: ours {ours}, DevTools {want}");
    };
    assert!((a - b).abs() <= ROUNDED, "{what}: ours {a}, DevTools {b}");
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
        for (ours, engine) in [
            ("viewport", "Viewport"),
            ("character_set", "CharacterSet"),
            ("cache", "Cache"),
            ("modern_http", "ModernHTTP"),
            ("font_display", "FontDisplay"),
        ] {
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
        match wv["metric_savings"]["INP"].as_f64() {
            Some(_) => close(
                &v["inp_savings_ms"],
                &wv["metric_savings"]["INP"],
                &format!("{at} viewport INP savings"),
            ),
            None => assert!(v["inp_savings_ms"].is_null(), "{at} viewport INP savings"),
        }

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
                &format!("{at} cache wasted"),
            );
        }
        close(
            &k["wasted_bytes"],
            &wk["wasted_bytes"],
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
                &format!("{at} font"),
            );
        }
        match wf["metric_savings"]["FCP"].as_f64() {
            Some(_) => close(
                &f["fcp_savings_ms"],
                &wf["metric_savings"]["FCP"],
                &format!("{at} font FCP savings"),
            ),
            // The engine's max of no fonts is -Infinity.
            None => assert!(f["fcp_savings_ms"].is_null(), "{at} font FCP savings"),
        }

        let (c, wc) = (&i["slow_css_selector"], &wi["SlowCSSSelector"]);
        assert_eq!(c["state"], wc["state"], "{at} CSS selectors state");
        close(
            &c["total_elapsed_ms"],
            &wc["total_elapsed_ms"],
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
                    &format!("{at} CSS {ours}"),
                );
                assert_eq!(
                    c[ours]["match_attempts"].as_f64(),
                    w["match_attempts"].as_f64()
                );
            }
        }

        // The events each points at, as the engine's `relatedEvents`.
        let related = |insight: &str| -> usize {
            ours["related_events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["navigation"] == id && e["insight"] == insight)
                .count()
        };
        for (ours, engine) in [
            ("viewport", "Viewport"),
            ("character_set", "CharacterSet"),
            ("cache", "Cache"),
            ("modern_http", "ModernHTTP"),
            ("font_display", "FontDisplay"),
            ("slow_css_selector", "SlowCSSSelector"),
        ] {
            assert_eq!(
                json!(related(ours)),
                wi[engine]["related_events"],
                "{at} {engine} related events"
            );
        }
    }
    failed
}

#[test]
fn page_checks_match_the_trace_engine_on_recorded_page_loads() {
    for name in PAGE_LOADS {
        let file = fixtures().join(format!("{name}.json.gz"));
        let ours = jsprof_json(&["insights", &file.to_string_lossy(), "--json"]);
        let want = golden(&fixtures().join(format!("{name}.insights.json.gz")));
        assert_page_checks(&ours, &want, name);
    }
}

/// The recorded page load, edited so that every page check fails.
fn failing_page_load() -> String {
    let mut text = crate::support::fixture_text("trace/pageload.trace.json.gz");
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

#[test]
fn page_checks_fail_as_the_trace_engine_fails_them() {
    let path = temp_file("page-checks.trace.json", failing_page_load().as_bytes());
    let ours = jsprof_json(&["insights", path.to_str().unwrap(), "--json"]);
    let checks = &ours["navigations"][0]["insights"];
    // Whether or not the oracle is built, the edits fail every check.
    for key in [
        "viewport",
        "character_set",
        "cache",
        "modern_http",
        "font_display",
    ] {
        assert_eq!(checks[key]["state"], "fail", "{key}: {}", checks[key]);
    }
    let cached: Vec<&str> = checks["cache"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["request"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        cached,
        [
            "http://shop.example.com/hero.png",
            "http://shop.example.com/styles.css",
            "http://shop.example.com/app.js",
            "http://shop.example.com/widget.js"
        ]
    );
    let savings = checks["viewport"]["inp_savings_ms"].as_f64().unwrap();
    assert!((59.0..=61.0).contains(&savings), "INP savings {savings}");
    assert!(
        checks["modern_http"]["http1_requests"]
            .as_array()
            .unwrap()
            .len()
            >= 6
    );
    // The heavy downloads cost Lantern's paints time: the savings compared with the engine's
    // below are not all nothing.
    let saved = |key: &str, metric: &str| checks[key]["metric_savings"][metric].as_f64().unwrap();
    assert!(saved("cache", "lcp_ms") > 0.0, "{}", checks["cache"]);
    assert!(
        saved("modern_http", "fcp_ms") > 0.0,
        "{}",
        checks["modern_http"]
    );
    assert!(
        saved("image_delivery", "lcp_ms") > 0.0,
        "{}",
        checks["image_delivery"]
    );
    // The text names each with its evidence; `summary` names them among the failing insights.
    crate::support::assert_insights_text(
        &path,
        &[
            "  viewport           fail         not optimized for mobile, INP savings 60.0 ms",
            "  font display       fail         1 fonts hide text while loading",
            "Badge Sans",
            "http://shop.example.com/hero.png",
            "  CSS selector costs informative",
            "to download again, would save FCP 50 ms, LCP 400 ms",
        ],
        &[
            "font_display",
            "viewport",
            "cache",
            "character_set",
            "modern_http",
        ],
    );
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(checks["slow_css_selector"]["state"], "informative");
    assert_eq!(
        checks["slow_css_selector"]["top_elapsed"]["selector"],
        ".list > li:nth-child(odd) span"
    );
    assert_eq!(assert_page_checks(&ours, &want, "edited page load"), 5);
    assert_eq!(assert_image_delivery(&ours, &want, "edited page load"), 1);
}

/// Without its navigation the edited page load is one `NO_NAVIGATION` stretch: the checks
/// that need a navigation's document (character set) have nothing to say, the others fail as
/// the engine fails them, modern HTTP naming the first party by the trace's main frame.
#[test]
fn page_checks_without_a_navigation_match_the_trace_engine() {
    let text = failing_page_load().replace("\"navigationStart\"", "\"edited-out\"");
    let path = temp_file("page-checks-no-navigation.trace.json", text.as_bytes());
    let ours = jsprof_json(&["insights", path.to_str().unwrap(), "--json"]);
    let nav = &ours["navigations"][0];
    assert_eq!(nav["id"], "NO_NAVIGATION");
    assert!(nav["insights"]["character_set"]["request"].is_null());
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_page_checks(&ours, &want, "no navigation"), 4);
    assert_eq!(assert_image_delivery(&ours, &want, "no navigation"), 1);
}
