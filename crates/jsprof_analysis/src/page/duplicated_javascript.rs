//! The duplicated JavaScript insight (the trace engine's `DuplicatedJavaScript`, after
//! Lighthouse's `duplicated-javascript`): modules bundled into more than one script, found
//! through the scripts' source maps.
//!
//! The engine attributes each script's bytes to its source map's sources; with no source map
//! resolved there is nothing to attribute, and the trace engine run on its own (as
//! `insights-oracle.mjs` runs it, and as here — see [`super::scripts`]) resolves none: the
//! insight then lists the navigation's scripts and passes. The attribution through source maps
//! is not ported.

use super::insights::State;
use super::lantern::{metric_savings_for_wasted_bytes, LanternContext, MetricSavings};
use super::scripts::page_scripts;
use super::vitals::NavigationVitals;
use super::Request;
use jsprof_profile::page_events::PageEvents;

/// The duplicated JavaScript insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicatedJavaScript {
    /// `fail` when a module is duplicated; always `pass` without source maps.
    pub state: State,
    /// The navigation's scripts (compiled by its frame within its bounds), as indices into the
    /// page's scripts.
    pub scripts: Vec<usize>,
    pub wasted_bytes: f64,
    /// `None` where the engine has no navigation or no Lantern context.
    pub metric_savings: Option<MetricSavings>,
}

/// The duplicated JavaScript insight of `nav`.
pub fn duplicated_javascript(
    page: &PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
    lantern: Option<&LanternContext>,
) -> DuplicatedJavaScript {
    let scripts = page_scripts(page, requests, nav, false)
        .iter()
        .map(|s| s.index)
        .collect();
    // Without duplication no request wastes a byte.
    let wasted: [(usize, f64); 0] = [];
    let metric_savings = match (nav.ts, lantern) {
        (Some(_), Some(ctx)) => metric_savings_for_wasted_bytes(ctx, requests, &wasted).ok(),
        _ => None,
    };
    DuplicatedJavaScript {
        state: State::Pass,
        scripts,
        wasted_bytes: 0.0,
        metric_savings,
    }
}
