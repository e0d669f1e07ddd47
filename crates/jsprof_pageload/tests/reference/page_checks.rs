//! The page checks of `jsprof insights` — viewport, character set, cache, modern HTTP, font
//! display, CSS selector costs — against DevTools' trace engine: on the recorded page loads (their goldens; they
//! pass every check) and on the recorded page load edited to fail each one (the live oracle,
//! `insights-oracle.mjs`): an origin that is not local serving its static files over
//! HTTP/1.1, short cache lifetimes, no charset in `Content-Type` and a late `<meta charset>`,
//! frames not optimized for mobile with a slow click, a web font with `font-display: block`, and
//! selector statistics of style recalculations; heavy image and stylesheet downloads make the
//! Lantern savings of cache, modern HTTP and image delivery (`image_delivery.rs`) more than
//! nothing.

use crate::page_loads::{assert_image_delivery, assert_page_checks, failing_page_load, PAGE_LOADS};
use crate::support::{document, page_load_insights, run_oracle, temp_file};

#[test]
fn page_checks_match_the_trace_engine_on_recorded_page_loads() {
    for name in PAGE_LOADS {
        let (ours, want) = page_load_insights(name);
        assert_page_checks(&ours, &want, name);
    }
}

#[test]
fn page_checks_fail_as_the_trace_engine_fails_them() {
    let path = temp_file("page-checks.trace.json", failing_page_load().as_bytes());
    let ours = document("insights", path.to_str().unwrap());
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
    let ours = document("insights", path.to_str().unwrap());
    let nav = &ours["navigations"][0];
    assert_eq!(nav["id"], "NO_NAVIGATION");
    assert!(nav["insights"]["character_set"]["request"].is_null());
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    assert_eq!(assert_page_checks(&ours, &want, "no navigation"), 4);
    assert_eq!(assert_image_delivery(&ours, &want, "no navigation"), 1);
}
