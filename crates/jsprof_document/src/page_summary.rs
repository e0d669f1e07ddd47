//! A page load in one line ([`PageSummaryJson`]): what `summary` of a trace says about the
//! page, from the insights document.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::page_story;

use crate::insights::{insights_of, InsightsJson};
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
    let mut failing: Vec<(String, String)> = Vec::new();
    let mut fail = |name: &str, state: &str, why: String| {
        if state == "fail" {
            failing.push((name.to_string(), why));
        }
    };
    if let Some(d) = &i.lcp_discovery {
        let mut missing = Vec::new();
        if !d.request_discoverable {
            missing.push("not discoverable in the HTML");
        }
        if !d.priority_hinted {
            missing.push("no fetchpriority=high");
        }
        if !d.eagerly_loaded {
            missing.push("lazily loaded");
        }
        fail("lcp_discovery", &d.state, missing.join(", "));
    }
    if let Some(c) = &i.cls_culprits {
        let kinds: Vec<&str> = c
            .clusters
            .iter()
            .flat_map(|k| k.culprits.iter().map(|x| x.kind.as_str()))
            .collect();
        fail(
            "cls_culprits",
            &c.state,
            match kinds.is_empty() {
                true => format!("CLS {:.3}", m.cls.score),
                false => format!("CLS {:.3}: {}", m.cls.score, kinds.join(", ")),
            },
        );
    }
    if let Some(r) = i.render_blocking.first() {
        let saves = match &i.render_blocking_savings {
            Some(s) if s.fcp_ms > 0.0 => format!(", deferring them saves {} ms of FCP", s.fcp_ms),
            _ => String::new(),
        };
        fail(
            "render_blocking",
            "fail",
            format!(
                "{} requests, the longest {:.1} ms ({}){saves}",
                i.render_blocking.len(),
                r.dur_ms,
                r.url
            ),
        );
    }
    if let Some(d) = &i.document_latency {
        fail(
            "document_latency",
            &d.state,
            format!(
                "server {} ms, redirects {} ms, compression {}",
                d.server_response_ms,
                d.redirect_ms,
                if d.uses_compression { "on" } else { "off" }
            ),
        );
    }
    if let Some(f) = &i.forced_reflow {
        fail(
            "forced_reflow",
            &f.state,
            format!("{} reflows, {:.1} ms", f.reflow_events, f.total_reflow_ms),
        );
    }
    failing_page_checks(i, &mut fail);
    failing_script_insights(i, &mut fail);
    Some(PageSummaryJson {
        url: n.url.clone(),
        lcp_ms: m.lcp.as_ref().map(|l| l.value_ms),
        lcp_rating: m.lcp.as_ref().map(|l| l.classification.clone()),
        cls: m.cls.score,
        cls_rating: m.cls.classification.clone(),
        inp_ms: m.inp.as_ref().map(|x| x.value_ms),
        inp_rating: m.inp.as_ref().map(|x| x.classification.clone()),
        worst_insight: failing.first().map(|(n, why)| format!("{n}: {why}")),
        failing_insights: failing.into_iter().map(|(n, _)| n).collect(),
    })
}

/// Calls `fail(key, state, why)` for each page check of `i`, in the engine's order of
/// insights: what `summary` names among the failing insights.
fn failing_page_checks(i: &InsightsJson, fail: &mut impl FnMut(&str, &str, String)) {
    if let Some(d) = &i.image_delivery {
        let why = format!(
            "{} images, {:.0} bytes to save",
            d.optimizable_images.len(),
            d.wasted_bytes
        );
        fail("image_delivery", &d.state, why);
    }
    if let Some(f) = &i.font_display {
        let worst = f.fonts.first().map_or(String::new(), |f| {
            format!(
                ", {} {:.0} ms",
                f.name.as_deref().unwrap_or(&f.request.url),
                f.wasted_ms
            )
        });
        fail(
            "font_display",
            &f.state,
            format!("{} fonts hide text{worst}", f.fonts.len()),
        );
    }
    if let Some(v) = &i.viewport {
        fail("viewport", &v.state, "not optimized for mobile".to_string());
    }
    if let Some(c) = &i.cache {
        let why = format!(
            "{} requests, {:.0} bytes wasted",
            c.requests.len(),
            c.wasted_bytes
        );
        fail("cache", &c.state, why);
    }
    if let Some(c) = &i.character_set {
        fail(
            "character_set",
            &c.state,
            "no charset declared early".to_string(),
        );
    }
    if let Some(m) = &i.modern_http {
        let why = format!("{} HTTP/1.1 requests", m.http1_requests.len());
        fail("modern_http", &m.state, why);
    }
}

/// Calls `fail(key, state, why)` for each script insight of `i`, in the engine's order of
/// insights: what `summary` names among the failing insights.
fn failing_script_insights(i: &InsightsJson, fail: &mut impl FnMut(&str, &str, String)) {
    if let Some(d) = &i.duplicated_javascript {
        let why = format!(
            "{} sources in several scripts, {:.0} bytes duplicated",
            d.duplication.len(),
            d.wasted_bytes
        );
        fail("duplicated_javascript", &d.state, why);
    }
    if let Some(l) = &i.legacy_javascript {
        let why = format!(
            "{} scripts, {:.0} bytes of polyfills and transforms",
            l.scripts.len(),
            l.wasted_bytes
        );
        fail("legacy_javascript", &l.state, why);
    }
}
