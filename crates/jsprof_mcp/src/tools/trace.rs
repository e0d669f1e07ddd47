//! The trace tools: `jsprof insights|network|timings --json` (`jsprof_document::page`), each
//! paging one of the document's lists.

use jsprof_document::filters::FilterSpec;
use jsprof_document::load::CpuInput;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::text::{fmt_bytes, fmt_ms};
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
async fn trace_document<T: serde::Serialize + 'static>(
    q: &Question<'_>,
    handle: &str,
    what: &str,
    make: fn(&CpuInput) -> jsprof_document::Result<T>,
) -> ToolResult<Value> {
    let (_, input) = cpu_of(q, handle, &FilterSpec::default()).await?;
    let doc = q
        .store
        .document(format!("{what} {handle}"), move || to_value(&make(&input)?))
        .await?;
    Ok((*doc).clone())
}

/// `what`'s document with only the list `chosen` (among `lists`) kept, and that list's path.
async fn trace_list<T: serde::Serialize + 'static>(
    q: &Question<'_>,
    handle: &str,
    what: &str,
    make: fn(&CpuInput) -> jsprof_document::Result<T>,
    lists: &'static [(&'static str, &'static [&'static str])],
    chosen: &str,
) -> ToolResult<(Value, &'static [&'static str])> {
    let mut doc = trace_document(q, handle, what, make).await?;
    let path = keep_one_list(&mut doc, lists, chosen)?;
    Ok((doc, path))
}

/// Keeps `doc`'s list `chosen` (among `lists`, each a path) and replaces the others by their
/// lengths under `other_lists`, so a page's size is bounded by the one list being paged.
pub(super) fn keep_one_list(
    doc: &mut Value,
    lists: &'static [(&'static str, &'static [&'static str])],
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
    const LISTS: &[(&str, &[&str])] = &[
        ("navigations", &["navigations"]),
        ("layout_shifts", &["layout_shifts"]),
        ("clusters", &["clusters"]),
        ("interactions", &["interactions"]),
        ("page_load_markers", &["page_load_markers"]),
        ("long_tasks", &["long_tasks", "items"]),
        ("related_events", &["related_events"]),
    ];
    let page = jsprof_document::page::insights_report;
    let (doc, path) = trace_list(&q, &args.handle, "insights", page, LISTS, chosen).await?;
    let row: fn(&Value) -> String = match chosen {
        "navigations" => |n| {
            let m = &n["metrics"];
            let metric = |k: &str| {
                let v = &m[k]["value_ms"];
                if v.is_null() {
                    "—".to_string()
                } else {
                    fmt_ms(v)
                }
            };
            format!(
                "{} {}: FCP {}, LCP {}, CLS {}, INP {}",
                n["id"].as_str().unwrap_or(""),
                n["url"].as_str().unwrap_or(""),
                metric("fcp"),
                metric("lcp"),
                m["cls"]["value"]
                    .as_f64()
                    .map_or("—".into(), |v| format!("{v:.4}")),
                metric("inp"),
            )
        },
        _ => |v| {
            let at = v
                .get("ts_ms")
                .or_else(|| v.get("start_ms"))
                .unwrap_or(&Value::Null);
            let dur = v
                .get("dur_ms")
                .map(|d| format!(" for {}", fmt_ms(d)))
                .unwrap_or_default();
            let name = v
                .get("name")
                .or_else(|| v.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("{name} at {}{dur}", fmt_ms(at)).trim().to_string()
        },
    };
    q.paged(doc, path, chosen, row)
}

pub(super) async fn trace_network(q: Question<'_>, args: TraceArgs) -> ToolResult<Answer> {
    let doc = trace_document(
        &q,
        &args.handle,
        "network",
        jsprof_document::page::network_report,
    );
    q.paged(doc.await?, &["requests"], "requests", |r| {
        format!(
            "{} → {} ({}, {} {}, {}) {}",
            fmt_ms(&r["start_ms"]),
            fmt_ms(&r["end_ms"]),
            r["status"],
            r["resource_type"].as_str().unwrap_or(""),
            fmt_bytes(&r["transfer_size"]),
            r["render_blocking"].as_str().unwrap_or(""),
            r["url"].as_str().unwrap_or("")
        )
    })
}

pub(super) async fn trace_timings(q: Question<'_>, args: TraceTimingsArgs) -> ToolResult<Answer> {
    let chosen = args.list.as_deref().unwrap_or("measures");
    const LISTS: &[(&str, &[&str])] = &[
        ("measures", &["measures"]),
        ("marks", &["marks"]),
        ("console_timings", &["console_timings"]),
        ("console_timestamps", &["console_timestamps"]),
    ];
    let page = jsprof_document::page::timings_report;
    let (doc, path) = trace_list(&q, &args.handle, "timings", page, LISTS, chosen).await?;
    q.paged(doc, path, chosen, |m| {
        let dur = m
            .get("dur_ms")
            .map(|d| format!(" for {}", fmt_ms(d)))
            .unwrap_or_default();
        format!(
            "{} at {}{dur}",
            m["name"].as_str().unwrap_or(""),
            fmt_ms(&m["start_ms"])
        )
    })
}
