//! The image delivery insight of `jsprof insights` against DevTools' trace engine: on the
//! recorded page loads (their goldens: the PNG hero drawn smaller than its file, the CSS
//! background image that only a modern format would shrink), on the heavy page load of
//! `page_checks.rs` (a 20 MB hero whose savings show in Lantern's LCP; compared there, with the
//! same oracle run) and on the recorded page load edited for the other optimizations and a
//! redirect: the hero a WebP with a `srcset`, redirected from the URL its paints name, the badge
//! a 150 KB GIF.

use serde_json::{json, Value};

use crate::page_checks::assert_metric_savings;
use crate::support::{fixture_text, fixtures, golden, jsprof_json, run_oracle, temp_file};

/// The oracle rounds ms to 0.001; ours are exact.
const ROUNDED: f64 = 0.0006;

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

#[test]
fn image_delivery_matches_the_trace_engine_on_recorded_page_loads() {
    let mut listed = 0;
    for name in ["trace/pageload.trace", "trace/pageload-bgimage.trace"] {
        let file = fixtures().join(format!("{name}.json.gz"));
        let ours = jsprof_json(&["insights", &file.to_string_lossy(), "--json"]);
        let want = golden(&fixtures().join(format!("{name}.insights.json.gz")));
        listed += assert_image_delivery(&ours, &want, name);
    }
    assert_eq!(listed, 2, "each recorded page load has an image to shrink");
}

/// The recorded page load with the hero served as a WebP with a `srcset`, redirected from
/// `old-hero.png` (the URL its paints name), and the badge as a 150 KB GIF.
fn webp_and_gif_page_load() -> String {
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

const OLD_HERO: &str = "http://127.0.0.1:8790/old-hero.png";

#[test]
fn webp_gif_srcset_and_redirected_images_match_the_trace_engine() {
    let path = temp_file(
        "image-delivery.trace.json",
        webp_and_gif_page_load().as_bytes(),
    );
    let ours = jsprof_json(&["insights", path.to_str().unwrap(), "--json"]);
    let d = &ours["navigations"][0]["insights"]["image_delivery"];
    let kinds: Vec<(&str, Vec<&str>)> = d["optimizable_images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let url = m["request"]["url"].as_str().unwrap();
            let opts = m["optimizations"].as_array().unwrap();
            (
                url,
                opts.iter().map(|o| o["type"].as_str().unwrap()).collect(),
            )
        })
        .collect();
    // Whether or not the oracle is built: a WebP compresses better, and its srcset does not
    // save it from a size 12 KiB too large (found by the paints of the URL it was redirected
    // from); a GIF plays as a video.
    assert_eq!(
        kinds,
        [
            (
                "http://127.0.0.1:8790/hero.png",
                vec!["ADJUST_COMPRESSION", "RESPONSIVE_SIZE"]
            ),
            ("http://localhost:8791/badge.png", vec!["VIDEO_FORMAT"]),
        ]
    );
    crate::support::assert_insights_text(
        &path,
        &[
            "  image delivery     fail         2 images to shrink",
            "http://localhost:8791/badge.png  (as video 73.2 KB)",
        ],
        &["image_delivery"],
    );
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_image_delivery(&ours, &want, "WebP and GIF"), 2);
}

/// A trace DevTools saved on a screen of device pixel ratio 2 (`metadata.hostDPR`) of a page
/// at ratio 1: the engine draws the hero at 400×225, not the paint's 800×450, and so do we —
/// the metadata read before the events (the one-pass reader) and after them (as Chrome writes
/// it: the segmented reader's tail).
#[test]
fn a_host_device_pixel_ratio_corrects_the_drawn_size() {
    let mut trace: Value =
        serde_json::from_str(&fixture_text("trace/pageload.trace.json.gz")).unwrap();
    trace["metadata"]["hostDPR"] = json!(2);
    // serde_json writes keys in order: `metadata` first.
    let first = temp_file(
        "image-delivery-dpr.trace.json",
        trace.to_string().as_bytes(),
    );
    let last = format!(
        "{{\"traceEvents\":{},\"metadata\":{}}}",
        trace["traceEvents"], trace["metadata"]
    );
    let last = temp_file("image-delivery-dpr-last.trace.json", last.as_bytes());
    let drawn = |doc: &Value| {
        let hero = &doc["navigations"][0]["insights"]["image_delivery"]["optimizable_images"][0];
        let resize = hero["optimizations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["type"] == "RESPONSIVE_SIZE")
            .unwrap_or_else(|| panic!("no resize: {hero}"));
        resize["display_dimensions"].clone()
    };
    let ours = jsprof_json(&["insights", first.to_str().unwrap(), "--json"]);
    assert_eq!(drawn(&ours), json!({"width": 400.0, "height": 225.0}));
    let ours_last = jsprof_json(&["insights", last.to_str().unwrap(), "--json"]);
    assert_eq!(
        ours_last["navigations"][0]["insights"]["image_delivery"],
        ours["navigations"][0]["insights"]["image_delivery"]
    );
    let Some(want) = run_oracle("insights-oracle", &first) else {
        return;
    };
    assert_eq!(assert_image_delivery(&ours, &want, "host DPR 2"), 1);
}
