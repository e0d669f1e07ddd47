//! The page checks and script insights at the CLI's front door: `jsprof insights` names each
//! with its evidence in its text, and `jsprof summary` among the failing insights, on the
//! recorded page load edited to fail them. Their numbers are checked against DevTools' trace
//! engine by the reference tests (`crates/jsprof_pageload/tests/reference`), on the same
//! edited page loads.

pub(crate) use crate::page_loads::assert_page_checks;
use crate::page_loads::{duplicated_page_load, failing_page_load, webp_and_gif_page_load};
use crate::support::{jsprof, jsprof_json, temp_file};

/// The page load `trace` (a trace's text) written to the file `name`: `jsprof insights FILE`'s
/// text holds each of `lines`, and `jsprof summary FILE --json` names each of `failing` among
/// the page's failing insights: what the shell shows of an insight whose document the reference
/// tests check.
fn assert_insights_text(name: &str, trace: &str, lines: &[&str], failing: &[&str]) {
    let path = temp_file(name, trace.as_bytes());
    let path = path.to_str().unwrap();
    let out = jsprof(&["insights", path]);
    let text = String::from_utf8_lossy(&out.stdout);
    for line in lines {
        assert!(text.contains(line), "{line:?} not in:\n{text}");
    }
    let summary = jsprof_json(&["summary", path, "--json"]);
    let listed = summary["page"]["failing_insights"].as_array().unwrap();
    for key in failing {
        assert!(
            listed.iter().any(|k| k == key),
            "summary's failing insights {listed:?} lack {key}"
        );
    }
}

/// Every page check fails on the edited page load.
#[test]
fn the_text_names_each_failing_page_check() {
    // The text names each with its evidence; `summary` names them among the failing insights.
    assert_insights_text(
        "page-checks.trace.json",
        &failing_page_load(),
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
}

/// A WebP that compresses badly and a GIF that would play as a video.
#[test]
fn the_text_names_the_images_to_shrink() {
    assert_insights_text(
        "image-delivery.trace.json",
        &webp_and_gif_page_load(),
        &[
            "  image delivery     fail         2 images to shrink",
            "http://localhost:8791/badge.png  (as video 73.2 KB)",
        ],
        &["image_delivery"],
    );
}

/// Polyfills and transforms in three scripts, and modules bundled twice.
#[test]
fn the_text_names_the_legacy_scripts() {
    // The text lists each script with what was found where (1-based).
    assert_insights_text(
        "script-insights.trace.json",
        &duplicated_page_load(),
        &[
            "  legacy JS          fail         3 scripts with polyfills or transforms",
            "http://127.0.0.1:8790/slow.js",
            "                Array.prototype.includes  4:3",
            "(a script without a url)",
        ],
        &["legacy_javascript"],
    );
}
