//! The image delivery insight of `jsprof insights` against DevTools' trace engine: on the
//! recorded page loads (their goldens: the PNG hero drawn smaller than its file, the CSS
//! background image that only a modern format would shrink), on the heavy page load of
//! `page_checks.rs` (a 20 MB hero whose savings show in Lantern's LCP; compared there, with the
//! same oracle run) and on the recorded page load edited for the other optimizations and a
//! redirect: the hero a WebP with a `srcset`, redirected from the URL its paints name, the badge
//! a 150 KB GIF.

use serde_json::{json, Value};

use crate::page_loads::{assert_image_delivery, webp_and_gif_page_load};
use crate::support::{document, fixture_text, page_load_insights, run_oracle, temp_file};

#[test]
fn image_delivery_matches_the_trace_engine_on_recorded_page_loads() {
    let mut listed = 0;
    for name in ["trace/pageload.trace", "trace/pageload-bgimage.trace"] {
        let (ours, want) = page_load_insights(name);
        listed += assert_image_delivery(&ours, &want, name);
    }
    assert_eq!(listed, 2, "each recorded page load has an image to shrink");
}

#[test]
fn webp_gif_srcset_and_redirected_images_match_the_trace_engine() {
    let path = temp_file(
        "image-delivery.trace.json",
        webp_and_gif_page_load().as_bytes(),
    );
    let ours = document("insights", path.to_str().unwrap());
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
    let ours = document("insights", first.to_str().unwrap());
    assert_eq!(drawn(&ours), json!({"width": 400.0, "height": 225.0}));
    let ours_last = document("insights", last.to_str().unwrap());
    assert_eq!(
        ours_last["navigations"][0]["insights"]["image_delivery"],
        ours["navigations"][0]["insights"]["image_delivery"]
    );
    let Some(want) = run_oracle("insights-oracle", &first) else {
        return;
    };
    assert_eq!(assert_image_delivery(&ours, &want, "host DPR 2"), 1);
}
