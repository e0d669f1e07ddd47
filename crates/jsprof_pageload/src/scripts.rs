//! The scripts of a navigation, as the trace engine's script insights (`LegacyJavaScript`,
//! `DuplicatedJavaScript`) pick them: those its frame compiled (not an extension's), each with
//! the request that loaded it (the first request for its url) and the ratio its transfer was
//! compressed by (`estimateCompressionRatioForScript`), which turns bytes of source into bytes
//! on the network. Their source maps are [`super::script_maps`]'.

use jsprof_profile::page_events::PageEvents;
use jsprof_profile::page_scripts::Script;

use super::insight_common::{in_bounds, is_compressed};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::{js_round, ns_to_us};

/// A script of a navigation.
#[derive(Clone, Copy, Debug)]
pub struct PageScript<'a> {
    /// Index into the page's scripts.
    pub index: usize,
    pub script: &'a Script,
    /// Index into the requests: the first with the script's url.
    pub request: Option<usize>,
}

/// The scripts `nav`'s frame compiled, in the order the engine first saw them. With
/// `or_request_in_bounds`, a script compiled outside the navigation's bounds counts when its
/// request is within them (what `LegacyJavaScript` takes; `DuplicatedJavaScript` does not).
pub fn page_scripts<'a>(
    page: &'a PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
    or_request_in_bounds: bool,
) -> Vec<PageScript<'a>> {
    let b = &nav.bounds;
    page.scripts
        .list
        .iter()
        .enumerate()
        .filter(|(_, s)| s.frame == nav.frame)
        .filter(|(_, s)| {
            !s.url
                .as_deref()
                .is_some_and(|u| u.starts_with("chrome-extension://"))
        })
        .map(|(index, script)| PageScript {
            index,
            script,
            request: script
                .url
                .as_deref()
                .filter(|u| !u.is_empty())
                .and_then(|u| requests.iter().position(|r| r.url == u)),
        })
        .filter(|s| {
            let ts = ns_to_us(s.script.ts);
            (b.start <= ts && ts <= b.end)
                || (or_request_in_bounds
                    && s.request.is_some_and(|i| {
                        let r = &requests[i];
                        in_bounds(r.start, r.end - r.start, b)
                    }))
        })
        .collect()
}

/// The engine's `isRequestServedFromBrowserCache`: a 304, or a transfer under 1% of the body.
fn served_from_cache(r: &Request) -> bool {
    if !r.has_response_headers || r.failed {
        return false;
    }
    if r.status == 304 {
        return true;
    }
    let ratio = match r.decoded_body_length {
        d if d != 0.0 && !d.is_nan() => r.transfer_size / d,
        _ => 0.0,
    };
    ratio < 0.01
}

/// The engine's `estimateCompressedContentSize` for a script of `total` bytes.
fn compressed_script_size(r: &Request, total: f64) -> f64 {
    if served_from_cache(r) {
        // A guess: scripts gzip to about a third.
        return js_round(total * 0.33);
    }
    let resource = r.decoded_body_length;
    let transferred = if is_compressed(r) {
        r.transfer_size
    } else {
        resource
    };
    if r.resource_type == "Script" {
        return transferred;
    }
    // Inlined in another resource (a document): that resource's ratio.
    let ratio = if resource.is_finite() && resource > 0.0 {
        transferred / resource
    } else {
        1.0
    };
    js_round(total * ratio)
}

/// The engine's `estimateCompressionRatioForScript`: bytes on the network per byte of source;
/// 1 without a request.
pub fn compression_ratio(s: &PageScript<'_>, requests: &[Request]) -> f64 {
    let Some(r) = s.request.map(|i| &requests[i]) else {
        return 1.0;
    };
    let length = r.decoded_body_length;
    let compressed = compressed_script_size(r, length);
    if length == 0.0 || compressed == 0.0 {
        return 1.0;
    }
    compressed / length
}
