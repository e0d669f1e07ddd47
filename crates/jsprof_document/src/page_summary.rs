//! A page load in one line ([`PageSummaryJson`]): what `summary` of a trace says about the
//! page, from the insights document.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::page_story;

use crate::insights::{insights_of, InsightsJson, MetricsJson};
use crate::load::CpuInput;

/// A page load in one line: what `summary` of a trace says about the page.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PageSummaryJson {
    /// The first navigation's URL.
    pub url: String,
    pub lcp_ms: Option<f64>,
    pub lcp_rating: Option<String>,
    pub cls: f64,
    pub cls_rating: String,
    pub inp_ms: Option<f64>,
    pub inp_rating: Option<String>,
    /// The insights that fail, in the order DevTools' Insights sidebar lists them
    /// (`lcp_discovery`, `cls_culprits`, `render_blocking`, `document_latency`, `forced_reflow`),
    /// then the page checks (`image_delivery`, `font_display`, `viewport`, `cache`,
    /// `character_set`, `modern_http`).
    pub failing_insights: Vec<String>,
    /// The first of `failing_insights`, with its evidence in a few words.
    pub worst_insight: Option<String>,
}

/// The page summary of a trace with a navigation; `None` for any other input.
pub fn page_summary(input: &CpuInput) -> Option<PageSummaryJson> {
    let trace = input.trace()?;
    if trace.page.navigations.is_empty() {
        return None;
    }
    let story = page_story(trace);
    let report = insights_of(input, &story);
    let n = report
        .navigations
        .iter()
        .find(|n| n.navigation_id.is_some())?;
    let (m, i) = (&n.metrics, &n.insights);
    let failing: Vec<(&str, String)> = VERDICTS
        .iter()
        .filter_map(|(key, verdict)| match verdict(m, i) {
            Some(("fail", why)) => Some((*key, why)),
            _ => None,
        })
        .collect();
    Some(PageSummaryJson {
        url: n.url.clone(),
        lcp_ms: m.lcp.as_ref().map(|l| l.value_ms),
        lcp_rating: m.lcp.as_ref().map(|l| l.classification.clone()),
        cls: m.cls.score,
        cls_rating: m.cls.classification.clone(),
        inp_ms: m.inp.as_ref().map(|x| x.value_ms),
        inp_rating: m.inp.as_ref().map(|x| x.classification.clone()),
        worst_insight: failing.first().map(|(n, why)| format!("{n}: {why}")),
        failing_insights: failing.into_iter().map(|(n, _)| n.to_string()).collect(),
    })
}

/// An insight's state (`pass`, `fail`, …) and its evidence in a few words; `None` when the
/// navigation does not have it.
type Verdict = for<'a> fn(&'a MetricsJson, &'a InsightsJson) -> Option<(&'a str, String)>;

/// The insights `summary` names when they fail, in the order DevTools' Insights sidebar lists
/// them, then the page checks and the script insights in the engine's order.
const VERDICTS: &[(&str, Verdict)] = &[
    ("lcp_discovery", |_, i| {
        let d = i.lcp_discovery.as_ref()?;
        let missing: Vec<&str> = [
            (d.request_discoverable, "not discoverable in the HTML"),
            (d.priority_hinted, "no fetchpriority=high"),
            (d.eagerly_loaded, "lazily loaded"),
        ]
        .into_iter()
        .filter_map(|(ok, why)| (!ok).then_some(why))
        .collect();
        Some((&d.state, missing.join(", ")))
    }),
    ("cls_culprits", |m, i| {
        let c = i.cls_culprits.as_ref()?;
        let kinds: Vec<&str> = c
            .clusters
            .iter()
            .flat_map(|k| k.culprits.iter().map(|x| x.kind.as_str()))
            .collect();
        let why = match kinds.is_empty() {
            true => format!("CLS {:.3}", m.cls.score),
            false => format!("CLS {:.3}: {}", m.cls.score, kinds.join(", ")),
        };
        Some((&c.state, why))
    }),
    ("render_blocking", |_, i| {
        let r = i.render_blocking.first()?;
        let saves = match &i.render_blocking_savings {
            Some(s) if s.fcp_ms > 0.0 => format!(", deferring them saves {} ms of FCP", s.fcp_ms),
            _ => String::new(),
        };
        let why = format!(
            "{} requests, the longest {:.1} ms ({}){saves}",
            i.render_blocking.len(),
            r.dur_ms,
            r.url
        );
        Some(("fail", why))
    }),
    ("document_latency", |_, i| {
        let d = i.document_latency.as_ref()?;
        let why = format!(
            "server {} ms, redirects {} ms, compression {}",
            d.server_response_ms,
            d.redirect_ms,
            if d.uses_compression { "on" } else { "off" }
        );
        Some((&d.state, why))
    }),
    ("forced_reflow", |_, i| {
        let f = i.forced_reflow.as_ref()?;
        let why = format!("{} reflows, {:.1} ms", f.reflow_events, f.total_reflow_ms);
        Some((&f.state, why))
    }),
    ("image_delivery", |_, i| {
        let d = i.image_delivery.as_ref()?;
        let why = format!(
            "{} images, {:.0} bytes to save",
            d.optimizable_images.len(),
            d.wasted_bytes
        );
        Some((&d.state, why))
    }),
    ("font_display", |_, i| {
        let f = i.font_display.as_ref()?;
        let worst = f.fonts.first().map_or(String::new(), |f| {
            format!(
                ", {} {:.0} ms",
                f.name.as_deref().unwrap_or(&f.request.url),
                f.wasted_ms
            )
        });
        Some((
            &f.state,
            format!("{} fonts hide text{worst}", f.fonts.len()),
        ))
    }),
    ("viewport", |_, i| {
        let v = i.viewport.as_ref()?;
        Some((&v.state, "not optimized for mobile".to_string()))
    }),
    ("cache", |_, i| {
        let c = i.cache.as_ref()?;
        let why = format!(
            "{} requests, {:.0} bytes wasted",
            c.requests.len(),
            c.wasted_bytes
        );
        Some((&c.state, why))
    }),
    ("character_set", |_, i| {
        let c = i.character_set.as_ref()?;
        Some((&c.state, "no charset declared early".to_string()))
    }),
    ("modern_http", |_, i| {
        let m = i.modern_http.as_ref()?;
        let why = format!("{} HTTP/1.1 requests", m.http1_requests.len());
        Some((&m.state, why))
    }),
    ("duplicated_javascript", |_, i| {
        let d = i.duplicated_javascript.as_ref()?;
        let why = format!(
            "{} sources in several scripts, {:.0} bytes duplicated",
            d.duplication.len(),
            d.wasted_bytes
        );
        Some((&d.state, why))
    }),
    ("legacy_javascript", |_, i| {
        let l = i.legacy_javascript.as_ref()?;
        let why = format!(
            "{} scripts, {:.0} bytes of polyfills and transforms",
            l.scripts.len(),
            l.wasted_bytes
        );
        Some((&l.state, why))
    }),
];
