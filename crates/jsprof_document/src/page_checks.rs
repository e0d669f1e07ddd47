//! The JSON of a navigation's page checks — the trace engine's viewport, character set, cache,
//! modern HTTP, image delivery and font display insights ([`jsprof_pageload`]'s
//! `viewport`, `character_set`, `cache`, `modern_http`, `image_delivery`, `font_display`, and
//! CSS selector costs, `slow_css_selector`): part of `jsprof insights`'
//! [`crate::insights::InsightsJson`]. The FCP/LCP savings of cache, modern HTTP and image delivery
//! come from the engine's Lantern simulation, as its render-blocking savings do.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::image_delivery::{Dimensions, Optimization};
use jsprof_pageload::insights::NavigationInsights;
pub use jsprof_pageload::lantern::MetricSavings;
use jsprof_pageload::units::us_to_ms;
use jsprof_pageload::PageStory;

use crate::insights::InsightsJson;
use crate::page_common::{Clock, RequestRefJson};

/// Viewport: whether the page is optimized for mobile (no double-tap delay on taps).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ViewportJson {
    /// `pass`, or `fail` when a frame committed after the viewport meta tag was not
    /// mobile-optimized.
    pub state: String,
    /// `null` when no frame was committed in the navigation (DevTools then passes it).
    pub mobile_optimized: Option<bool>,
    /// When `<meta name=viewport>` was parsed.
    pub viewport_meta_ms: Option<f64>,
    /// Pointer interactions over 200 ms with 50 ms or more input delay (when failing).
    pub long_pointer_interactions: usize,
    /// INP savings: the longest such input delay, at most 300 ms (when failing).
    pub inp_savings_ms: Option<f64>,
}

/// Character set: the document declares its encoding early.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CharacterSetJson {
    /// `pass`, or `fail` when neither the header nor an early meta tag declares it.
    pub state: String,
    /// The document's request; `null` before the first navigation or when the trace lacks it
    /// (the insight then passes).
    pub request: Option<RequestRefJson>,
    /// The `Content-Type` response header names a charset.
    pub http_charset: bool,
    /// A `<meta charset>` in the first 1024 bytes of the HTML.
    pub meta_charset: bool,
    /// What the parser reported (`found-in-first-1024-bytes`, `found-after-first-1024-bytes`,
    /// `not-found`); `null` when the trace does not say (older Chromes write the check without it).
    pub meta_charset_disposition: Option<String>,
}

/// The old name of [`MetricSavings`], which the documents now serialize as the engine keeps it.
pub type MetricSavingsJson = MetricSavings;

/// A request whose cache lifetime is short.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CachedRequestJson {
    pub request: RequestRefJson,
    /// The cache lifetime (seconds): `max-age`, else until `expires`, else 0.
    pub ttl_s: f64,
    /// The transfer size times the chance a repeat visit misses the cache.
    pub wasted_bytes: f64,
}

/// Cache: static resources with an inefficient cache lifetime (under 30 days, and a hit
/// unlikely).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CacheJson {
    /// `pass`, or `fail` when any request is listed.
    pub state: String,
    /// Largest decoded body first, then shortest lifetime.
    pub requests: Vec<CachedRequestJson>,
    pub wasted_bytes: f64,
    /// What not downloading the wasted bytes would save (in 50 ms steps); `null` where the
    /// engine has no Lantern context (`network_dependency_tree.graph_error` says why).
    pub metric_savings: Option<MetricSavings>,
}

/// Modern HTTP: requests over HTTP/1.x that HTTP/2 would multiplex.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ModernHttpJson {
    /// `pass`, or `fail` when any request is listed.
    pub state: String,
    /// HTTP/1.x requests to a non-local origin serving six or more static resources, each URL
    /// once, in request order.
    pub http1_requests: Vec<RequestRefJson>,
    /// What serving them over HTTP/2 would save (floored to 10 ms); `null` where the engine
    /// has no Lantern context.
    pub metric_savings: Option<MetricSavings>,
}

/// The old name of [`Dimensions`], which the document now serializes as the engine keeps it.
pub type DimensionsJson = Dimensions;

/// The old name of [`Optimization`], which the document now serializes as the engine keeps it.
pub type ImageOptimizationJson = Optimization;

/// An image a different format or size would make smaller.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct OptimizableImageJson {
    pub request: RequestRefJson,
    /// Its largest paint (`PaintImage`): when it started and how long it took.
    pub largest_paint_ms: f64,
    pub largest_paint_dur_ms: f64,
    /// The format's savings plus the size's on what is left.
    pub byte_savings: f64,
    /// Each of 4096 bytes or more, the format's first.
    pub optimizations: Vec<Optimization>,
}

/// Image delivery: painted images a modern format, more compression, a video or a smaller
/// file would shrink.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ImageDeliveryJson {
    /// `pass`, or `fail` when any image is listed.
    pub state: String,
    /// Most savings first, then the largest decoded body.
    pub optimizable_images: Vec<OptimizableImageJson>,
    pub wasted_bytes: f64,
    /// What not downloading the wasted bytes would save (in 50 ms steps); `null` where the
    /// engine has no Lantern context.
    pub metric_savings: Option<MetricSavings>,
}

/// A web font that hides text while it loads.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FontJson {
    /// The font's family name, when the trace gives it.
    pub name: Option<String>,
    pub request: RequestRefJson,
    /// Its `font-display`: `block`, `fallback` or `auto`.
    pub display: String,
    /// The request's time from send to finish, floored to 5 ms, at most 3000 ms.
    pub wasted_ms: f64,
}

/// Font display: web fonts whose `font-display` hides text.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FontDisplayJson {
    /// `pass`, or `fail` when a font wastes time.
    pub state: String,
    /// Most wasted time first.
    pub fonts: Vec<FontJson>,
    /// FCP savings: the largest waste; `null` without such fonts.
    pub fcp_savings_ms: Option<f64>,
}

/// A CSS selector's matching cost, summed over the navigation's style recalculations.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct SelectorCostJson {
    pub selector: String,
    pub style_sheet_id: String,
    pub elapsed_ms: f64,
    pub match_attempts: f64,
    pub match_count: f64,
    pub fast_reject_count: f64,
}

/// CSS selector costs: what matching selectors cost the style recalculations (from the
/// trace's `SelectorStats`, recorded when the Performance panel's "CSS selector stats" is on;
/// all zero otherwise).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct SlowCssSelectorJson {
    /// `informative` when the slowest selector took 0.5 ms or more, else `pass`.
    pub state: String,
    pub total_elapsed_ms: f64,
    pub total_match_attempts: f64,
    pub total_match_count: f64,
    /// The selector with the most elapsed time, when it took 0.5 ms or more.
    pub top_elapsed: Option<SelectorCostJson>,
    /// The selector with the most match attempts.
    pub top_match_attempts: Option<SelectorCostJson>,
}

fn selector_cost(t: &jsprof_profile::page_events::SelectorTiming) -> SelectorCostJson {
    SelectorCostJson {
        selector: t.selector.clone(),
        style_sheet_id: t.style_sheet_id.clone(),
        elapsed_ms: us_to_ms(t.elapsed),
        match_attempts: t.match_attempts,
        match_count: t.match_count,
        fast_reject_count: t.fast_reject_count,
    }
}

/// The page checks of `ins`, into its navigation's `out`.
pub(crate) fn page_checks_json(
    c: &Clock,
    story: &PageStory,
    ins: &NavigationInsights,
    out: &mut InsightsJson,
) {
    let request = |i: usize| c.request_ref(&story.requests[i]);
    out.viewport = ins.viewport.as_ref().map(|v| ViewportJson {
        state: v.state.as_str().to_string(),
        mobile_optimized: v.mobile_optimized,
        viewport_meta_ms: v.viewport_meta.map(|t| c.ts(t)),
        long_pointer_interactions: v.long_pointer_interactions.len(),
        inp_savings_ms: v.inp_savings.map(us_to_ms),
    });
    out.character_set = ins.character_set.as_ref().map(|cs| CharacterSetJson {
        state: cs.state.as_str().to_string(),
        request: cs.request.map(request),
        http_charset: cs.http_charset,
        meta_charset: cs.meta_charset(),
        meta_charset_disposition: cs.meta_charset_disposition.clone(),
    });
    out.cache = ins.cache.as_ref().map(|k| CacheJson {
        state: k.state.as_str().to_string(),
        requests: k
            .requests
            .iter()
            .map(|r| CachedRequestJson {
                request: request(r.request),
                ttl_s: r.ttl,
                wasted_bytes: r.wasted_bytes,
            })
            .collect(),
        wasted_bytes: k.wasted_bytes,
        metric_savings: k.metric_savings,
    });
    out.modern_http = ins.modern_http.as_ref().map(|m| ModernHttpJson {
        state: m.state.as_str().to_string(),
        http1_requests: m.http1_requests.iter().map(|&i| request(i)).collect(),
        metric_savings: m.metric_savings,
    });
    out.image_delivery = ins.image_delivery.as_ref().map(|d| ImageDeliveryJson {
        state: d.state.as_str().to_string(),
        optimizable_images: d
            .images
            .iter()
            .map(|m| OptimizableImageJson {
                request: request(m.request),
                largest_paint_ms: c.ts(m.paint_ts),
                largest_paint_dur_ms: us_to_ms(m.paint_dur),
                byte_savings: m.byte_savings,
                optimizations: m.optimizations.clone(),
            })
            .collect(),
        wasted_bytes: d.wasted_bytes,
        metric_savings: d.metric_savings,
    });
    out.font_display = ins.font_display.as_ref().map(|f| FontDisplayJson {
        state: f.state.as_str().to_string(),
        fonts: f
            .fonts
            .iter()
            .map(|font| FontJson {
                name: font.name.clone(),
                request: request(font.request),
                display: font.display.clone(),
                wasted_ms: font.wasted_ms,
            })
            .collect(),
        fcp_savings_ms: f.fcp_savings_ms,
    });
    out.slow_css_selector = ins.slow_css_selector.as_ref().map(|s| SlowCssSelectorJson {
        state: s.state.as_str().to_string(),
        total_elapsed_ms: us_to_ms(s.total_elapsed),
        total_match_attempts: s.total_match_attempts,
        total_match_count: s.total_match_count,
        top_elapsed: s.top_elapsed.as_ref().map(selector_cost),
        top_match_attempts: s.top_match_attempts.as_ref().map(selector_cost),
    });
}
