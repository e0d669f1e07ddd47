//! The trace tools: `jsprof insights|network|timings --json` (`jsprof_document::page`), each
//! paging one of the document's lists.

use std::sync::Arc;

use jsprof_document::filters::FilterSpec;
use jsprof_document::load::CpuInput;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use jsprof_document::insights::{cls_text, rating_text, NavigationJson};
use jsprof_document::timings::{MarkJson, MeasureJson};
use jsprof_document::units::fmt_ms;

use super::text::{ms, size};
use super::{cpu_of, to_value, Answer, Question};
use crate::error::{ToolError, ToolResult};

#[derive(Deserialize, JsonSchema)]
pub struct TraceArgs {
    /// A handle from `open` of a Chrome trace.
    pub handle: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct TraceInsightsArgs {
    pub handle: String,
    /// The list paged: navigations (default), layout_shifts, clusters, interactions,
    /// page_load_markers, long_tasks or related_events (the events insights point at: requests,
    /// the interaction, the LCP candidate, layout shifts, reflows).
    /// The other lists are replaced by their lengths in `other_lists`.
    #[serde(default)]
    pub list: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct TraceTimingsArgs {
    pub handle: String,
    /// The list paged: measures (default), marks, console_timings or console_timestamps.
    #[serde(default)]
    pub list: Option<String>,
}

/// A trace's page-load document (`make`: insights, network or timings), built once per handle.
pub(super) async fn trace_document<T: Send + Sync + 'static>(
    q: &Question<'_>,
    handle: &str,
    what: &str,
    make: fn(&CpuInput) -> jsprof_document::Result<T>,
) -> ToolResult<Arc<T>> {
    let (_, input) = cpu_of(q, handle, &FilterSpec::default()).await?;
    q.store
        .document(format!("{what} {handle}"), move || Ok(make(&input)?))
        .await
}

/// The lists of a page-load document a tool pages one at a time: each name and its path.
pub(super) type Lists = &'static [(&'static str, &'static [&'static str])];

/// A trace's page-load document (as [`trace_document`]) for paging its list `chosen` (among
/// `lists`): the document, its JSON with only that list kept ([`keep_one_list`]) and the list's
/// path.
async fn trace_list<T: serde::Serialize + Send + Sync + 'static>(
    q: &Question<'_>,
    handle: &str,
    what: &str,
    make: fn(&CpuInput) -> jsprof_document::Result<T>,
    (lists, chosen): (Lists, &str),
) -> ToolResult<(Arc<T>, Value, &'static [&'static str])> {
    let doc = trace_document(q, handle, what, make).await?;
    let mut json = to_value(&*doc)?;
    let path = keep_one_list(&mut json, lists, chosen)?;
    Ok((doc, json, path))
}

/// `trace_insights`' lists.
const INSIGHTS_LISTS: Lists = &[
    ("navigations", &["navigations"]),
    ("layout_shifts", &["layout_shifts"]),
    ("clusters", &["clusters"]),
    ("interactions", &["interactions"]),
    ("page_load_markers", &["page_load_markers"]),
    ("long_tasks", &["long_tasks", "items"]),
    ("related_events", &["related_events"]),
];

/// `trace_timings`' lists.
const TIMINGS_LISTS: Lists = &[
    ("measures", &["measures"]),
    ("marks", &["marks"]),
    ("console_timings", &["console_timings"]),
    ("console_timestamps", &["console_timestamps"]),
];

/// Keeps `doc`'s list `chosen` (among `lists`, each a path) and replaces the others by their
/// lengths under `other_lists`, so a page's size is bounded by the one list being paged.
pub(super) fn keep_one_list(
    doc: &mut Value,
    lists: Lists,
    chosen: &str,
) -> ToolResult<&'static [&'static str]> {
    let Some((_, path)) = lists.iter().find(|(name, _)| *name == chosen) else {
        return Err(ToolError::BadRequest(format!(
            "bad `list` `{}`: expected one of {}",
            chosen.escape_debug(),
            lists.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )));
    };
    let mut others = Map::new();
    for (name, p) in lists.iter().filter(|(name, _)| *name != chosen) {
        let (last, parents) = p.split_last().expect("list paths are not empty");
        let mut at = &mut *doc;
        for k in parents {
            at = &mut at[*k];
        }
        if let Some(obj) = at.as_object_mut() {
            let len = obj
                .remove(*last)
                .and_then(|v| v.as_array().map(Vec::len))
                .unwrap_or(0);
            others.insert((*name).to_string(), len.into());
        }
    }
    doc["other_lists"] = Value::Object(others);
    Ok(path)
}

pub(super) async fn trace_insights(q: Question<'_>, args: TraceInsightsArgs) -> ToolResult<Answer> {
    let chosen = args.list.as_deref().unwrap_or("navigations");
    let page = jsprof_document::page::insights_report;
    let list = (INSIGHTS_LISTS, chosen);
    let (report, json, path) = trace_list(&q, &args.handle, "insights", page, list).await?;
    let r = &*report;
    match chosen {
        "navigations" => q.json_page_of(json, path, &r.navigations, chosen, navigation_row),
        "layout_shifts" => q.json_page_of(json, path, &r.layout_shifts, chosen, |s| {
            at_row("", s.ts_ms, None)
        }),
        "clusters" => q.json_page_of(json, path, &r.clusters, chosen, |c| {
            at_row("", c.start_ms, Some(c.dur_ms))
        }),
        "interactions" => q.json_page_of(json, path, &r.interactions, chosen, |i| {
            at_row(&i.event_type, i.start_ms, Some(i.dur_ms))
        }),
        "page_load_markers" => q.json_page_of(json, path, &r.page_load_markers, chosen, |m| {
            at_row(&m.name, m.ts_ms, None)
        }),
        "long_tasks" => q.json_page_of(json, path, &r.long_tasks.items, chosen, |t| {
            at_row("", t.ts_ms, Some(t.dur_ms))
        }),
        _ => q.json_page_of(json, path, &r.related_events, chosen, |e| {
            at_row(&e.name, e.start_ms, Some(e.dur_ms))
        }),
    }
}

/// A navigation's Web Vitals with their ratings, as `jsprof insights` writes them; `—` for
/// those it has not.
fn navigation_row(n: &NavigationJson) -> String {
    let m = &n.metrics;
    let metric = |v: Option<(f64, &str)>| {
        v.map_or("—".to_string(), |(v, rating)| {
            format!("{} ({})", fmt_ms(v), rating_text(rating))
        })
    };
    format!(
        "{} {}: FCP {}, LCP {}, CLS {} ({}), INP {}",
        n.id,
        n.url,
        metric(
            m.fcp
                .as_ref()
                .map(|x| (x.value_ms, x.classification.as_str()))
        ),
        metric(
            m.lcp
                .as_ref()
                .map(|x| (x.value_ms, x.classification.as_str()))
        ),
        cls_text(m.cls.score),
        rating_text(&m.cls.classification),
        metric(
            m.inp
                .as_ref()
                .map(|x| (x.value_ms, x.classification.as_str()))
        ),
    )
}

/// An event of a page load: its name (when it has one), when, and for how long.
fn at_row(name: &str, at: f64, dur: Option<f64>) -> String {
    let dur = dur
        .map(|d| format!(" for {}", ms(Some(d))))
        .unwrap_or_default();
    format!("{name} at {}{dur}", ms(Some(at)))
        .trim()
        .to_string()
}

pub(super) async fn trace_network(q: Question<'_>, args: TraceArgs) -> ToolResult<Answer> {
    let network = jsprof_document::page::network_report;
    let doc = trace_document(&q, &args.handle, "network", network).await?;
    q.page_of(&*doc, &["requests"], &doc.requests, "requests", |r| {
        format!(
            "{} → {} ({}, {} {}, {}) {}",
            ms(Some(r.start_ms)),
            ms(Some(r.end_ms)),
            r.status,
            r.resource_type,
            size(r.transfer_size),
            r.render_blocking,
            r.url
        )
    })
}

pub(super) async fn trace_timings(q: Question<'_>, args: TraceTimingsArgs) -> ToolResult<Answer> {
    let chosen = args.list.as_deref().unwrap_or("measures");
    let page = jsprof_document::page::timings_report;
    let list = (TIMINGS_LISTS, chosen);
    let (doc, json, path) = trace_list(&q, &args.handle, "timings", page, list).await?;
    match chosen {
        "marks" | "console_timestamps" => {
            let rows = match chosen {
                "marks" => &doc.marks,
                _ => &doc.console_timestamps,
            };
            q.json_page_of(json, path, rows, chosen, mark_row)
        }
        _ => {
            let rows = match chosen {
                "console_timings" => &doc.console_timings,
                _ => &doc.measures,
            };
            q.json_page_of(json, path, rows, chosen, measure_row)
        }
    }
}

fn mark_row(m: &MarkJson) -> String {
    format!("{} at {}", m.name, ms(Some(m.start_ms)))
}

fn measure_row(m: &MeasureJson) -> String {
    let (start, dur) = (ms(Some(m.start_ms)), ms(Some(m.dur_ms)));
    format!("{} at {start} for {dur}", m.name)
}
