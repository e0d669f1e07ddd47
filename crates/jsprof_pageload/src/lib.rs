//! The Performance panel's page-load engine: DevTools' trace-engine handlers and insights, and
//! Lantern, ported over jsprof's trace model (`jsprof_profile`), with the timelines and calls of
//! `jsprof_analysis`. Numbers, never text: the documents are `jsprof_document`'s.
//!
//! The page's whole story from a trace, as DevTools' trace engine tells it: network requests
//! ([`network`]), Web Vitals per navigation ([`vitals`]: FCP, LCP and its breakdown, CLS and its
//! clusters, INP and its phases), the other insights of a navigation ([`insights`], and the
//! page checks: [`viewport`], [`character_set`], [`cache`], [`modern_http`], [`font_display`],
//! [`image_delivery`],
//! [`slow_css_selector`]), user
//! timings, long tasks and the filmstrip.
//!
//! Times here are microseconds on the trace clock as `f64`, as the trace engine keeps them (its
//! network times come from seconds and milliseconds in the events' args); the documents turn
//! them into milliseconds from the trace's origin.

pub mod animations;
pub mod cache;
pub mod character_set;
pub mod cls_culprits;
pub mod dependency_graph;
pub mod devtools_url;
pub mod duplicated_javascript;
pub mod font_display;
mod graph_error;
pub mod image_delivery;
mod insight_common;
pub mod insights;
pub mod lantern;
pub mod lantern_requests;
pub mod legacy_javascript;
pub mod modern_http;
pub mod network;
pub mod network_tree;
pub mod script_maps;
pub mod scripts;
pub mod slow_css_selector;
pub mod third_parties;
pub mod timings;
pub mod viewport;
pub mod vitals;

use jsprof_profile::TraceFile;

pub use network::Request;
pub use timings::{LongTasks, UserTimings};
pub use vitals::{Cluster, Interaction, NavigationVitals, Vitals, Window};

/// Nanoseconds on the trace clock to microseconds.
pub(crate) fn us(ns: i64) -> f64 {
    ns as f64 / 1000.0
}

/// JavaScript's `Math.round`: the nearest integer, halves up (also below zero). Not
/// `(x + 0.5).floor()`, which rounds 0.49999999999999994 to 1.
pub(crate) fn js_round(x: f64) -> f64 {
    let f = x.floor();
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// Everything [`page_story`] finds.
#[derive(Clone, Debug, PartialEq)]
pub struct PageStory {
    /// The trace bounds (µs): the time origin is `bounds.start`.
    pub bounds: Window,
    pub requests: Vec<Request>,
    pub vitals: Vitals,
    pub user_timings: UserTimings,
    pub long_tasks: LongTasks,
    /// Screenshot times (µs) and whether each has a readable image, by time.
    pub screenshots: Vec<(f64, bool)>,
}

/// Reads the page-load story of `trace`.
pub fn page_story(trace: &TraceFile) -> PageStory {
    let (lo, hi) = trace.bounds.unwrap_or((trace.origin(), trace.origin()));
    let bounds = Window {
        start: us(lo),
        end: us(hi),
    };
    let page = &trace.page;
    let requests = network::requests(page);
    let vitals = vitals::vitals(page, &requests, bounds);
    let mut screenshots: Vec<(f64, bool)> = page
        .screenshots
        .iter()
        .map(|s| (us(s.at.ts), s.image.is_some()))
        .collect();
    screenshots.sort_by(|a, b| a.0.total_cmp(&b.0));
    let main_pids = main_pids(page, &vitals);
    PageStory {
        bounds,
        user_timings: timings::user_timings(page),
        long_tasks: timings::long_tasks(trace, &main_pids),
        requests,
        vitals,
        screenshots,
    }
}

/// The processes of the main frame's navigations: where the page's main thread runs.
pub(crate) fn main_pids(
    page: &jsprof_profile::page_events::PageEvents,
    vitals: &Vitals,
) -> Vec<u64> {
    page.navigations
        .iter()
        .filter(|n| n.frame == vitals.main_frame)
        .map(|n| n.at.pid)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::js_round;

    #[test]
    fn js_round_rounds_halves_up() {
        assert_eq!(js_round(2.5), 3.0);
        assert_eq!(js_round(-2.5), -2.0);
        assert_eq!(js_round(49.6), 50.0);
        assert_eq!(js_round(0.49999999999999994), 0.0);
        assert_eq!(js_round(-0.5000000000000001), -1.0);
        assert!(js_round(f64::NAN).is_nan());
        assert_eq!(js_round(f64::INFINITY), f64::INFINITY);
    }
}
