//! The font display insight (the trace engine's `FontDisplay`): web fonts whose `font-display`
//! (`block`, `fallback`, `auto`) hides text while they load. Each wastes its request's time from
//! send to finish, floored to 5 ms and at most 3 s (browsers wait no longer); the FCP savings
//! are the largest.

use jsprof_profile::page_events::PageEvents;

use super::insight_common::{in_bounds, State};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::{ns_to_us, us_to_ms};

/// A web font that blocks text.
#[derive(Clone, Debug, PartialEq)]
pub struct Font {
    /// The family name `RemoteFontLoaded` gave its URL, if any.
    pub name: Option<String>,
    /// Index into the requests.
    pub request: usize,
    pub display: String,
    /// ms.
    pub wasted_ms: f64,
}

/// The font display insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct FontDisplay {
    /// `fail` when a font wastes time.
    pub state: State,
    /// Most wasted time first.
    pub fonts: Vec<Font>,
    /// FCP savings (ms): the largest waste; `None` without fonts.
    pub fcp_savings_ms: Option<f64>,
}

/// The font display insight of `nav`.
pub fn font_display(
    page: &PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
) -> FontDisplay {
    let mut begins: Vec<_> = page.remote_fonts.iter().collect();
    begins.sort_by_key(|f| f.at.ts);
    let mut fonts = Vec::new();
    for f in begins {
        if !in_bounds(ns_to_us(f.at.ts), 0.0, &nav.bounds) {
            continue;
        }
        let id = format!("{}.{}", f.at.pid, f.id);
        let Some(request) = requests.iter().position(|r| r.request_id == id) else {
            continue;
        };
        if !matches!(f.display.as_str(), "block" | "fallback" | "auto") {
            continue;
        }
        let r = &requests[request];
        // Floored to 5 ms, as the engine's `floor(ms, 1/5)`.
        let wasted = (us_to_ms(r.finish - r.send_start) / 5.0).floor() * 5.0;
        if wasted == 0.0 {
            continue;
        }
        fonts.push(Font {
            name: f.name.clone(),
            request,
            display: f.display.clone(),
            wasted_ms: wasted.min(3000.0),
        });
    }
    fonts.sort_by(|a, b| b.wasted_ms.total_cmp(&a.wasted_ms));
    FontDisplay {
        state: State::pass_if(!fonts.iter().any(|f| f.wasted_ms > 0.0)),
        fcp_savings_ms: fonts.iter().map(|f| f.wasted_ms).reduce(f64::max),
        fonts,
    }
}
