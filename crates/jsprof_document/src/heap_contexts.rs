//! `jsprof heap contexts --json` (each JavaScript context's sizes, DevTools'
//! `getNativeContextSizes`) and `heap summary --context` (the Summary under DevTools' "JavaScript
//! context" filter), for every door: the service's `…/heap/contexts` and `…/heap/summary?context=`,
//! the MCP heap tools and the UI's select.

use jsprof_heap::{Analysis, ContextFilter, HeapSnapshot, NativeContexts, SortBy};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{classes_json, statistics_json, warnings, SummaryReport};
use crate::heap_query::HeapContext;
use crate::{JsonWarning, ReportError, Result};

/// `heap contexts`: the snapshot's native contexts (realms: a page's frames, `vm` contexts,
/// extension worlds) with the bytes each owns alone, and the bytes several or none own.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "HeapContextsReport")]
pub struct ContextsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub node_count: usize,
    pub total_size: u64,
    /// In node order, as DevTools lists them.
    pub contexts: Vec<NativeContextJson>,
    /// The self sizes of the objects reached from several contexts.
    pub shared_size: u64,
    /// The self sizes of the objects reached from no context.
    pub unattributed_size: u64,
}

/// One native context.
#[derive(Serialize, JsonSchema)]
pub struct NativeContextJson {
    /// Its object id: what `heap summary --context` takes.
    pub id: u32,
    /// `system / NativeContext`, with the frame's URL where the embedder names it.
    pub name: String,
    pub self_size: u64,
    pub retained_size: u64,
    /// The self sizes of the objects it owns alone, its own included.
    pub attributed_size: u64,
}

/// What a `--context` Summary covers.
#[derive(Clone, Serialize, JsonSchema)]
pub struct SummaryContextJson {
    /// `context` (one native context's objects), `shared` or `none`.
    pub owner: &'static str,
    /// The native context, when `owner` is `context`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Each native context's sizes.
pub fn contexts_report(
    s: &HeapSnapshot,
    a: &Analysis,
    contexts: &NativeContexts,
) -> ContextsReport {
    let sizes = contexts.sizes(s, a);
    ContextsReport {
        kind: s.kind(),
        warnings: warnings(s),
        node_count: s.node_count(),
        total_size: a.total_size,
        contexts: sizes
            .contexts
            .into_iter()
            .map(|c| NativeContextJson {
                id: c.id,
                name: c.name,
                self_size: c.self_size,
                retained_size: c.retained_size,
                attributed_size: c.attributed_size,
            })
            .collect(),
        shared_size: sizes.shared_size,
        unattributed_size: sizes.unattributed_size,
    }
}

/// The Summary of one context's objects (or the shared or unattributed ones), sorted by `sort`,
/// at most `limit` classes (0 = all). `name` names the snapshot in errors.
pub fn summary_report_in_context(
    (name, s, a): (&str, &HeapSnapshot, &Analysis),
    contexts: &NativeContexts,
    (sort, limit): (SortBy, usize),
    context: HeapContext,
) -> Result<SummaryReport> {
    let (filter, shown) = context_filter(name, s, contexts, context)?;
    let rows = jsprof_heap::summary_in_context(s, a, sort, contexts, filter);
    Ok(SummaryReport {
        kind: s.kind(),
        warnings: warnings(s),
        node_count: s.node_count(),
        total_size: a.total_size,
        statistics: statistics_json(&a.statistics),
        between: None,
        context: Some(shown),
        classes: classes_json(rows, limit),
    })
}

/// The filter `context` names, and how the report shows it; an id that is not a native
/// context's is not found (the message lists the ids that are).
pub fn context_filter(
    name: &str,
    s: &HeapSnapshot,
    contexts: &NativeContexts,
    context: HeapContext,
) -> Result<(ContextFilter, SummaryContextJson)> {
    let plain = |filter, owner| {
        let shown = SummaryContextJson {
            owner,
            id: None,
            name: None,
        };
        Ok((filter, shown))
    };
    match context {
        HeapContext::Shared => plain(ContextFilter::Shared, "shared"),
        HeapContext::None => plain(ContextFilter::None, "none"),
        HeapContext::Id(id) => match contexts.context_with_id(s, id) {
            Some(filter @ ContextFilter::Context(node)) => Ok((
                filter,
                SummaryContextJson {
                    owner: "context",
                    id: Some(id),
                    name: Some(jsprof_heap::display_name(s, node)),
                },
            )),
            _ => {
                let ids: Vec<String> = contexts
                    .contexts
                    .iter()
                    .map(|&n| format!("@{}", s.nodes.id(n)))
                    .collect();
                Err(ReportError::NotFound(format!(
                    "{name}: @{id} is not a native context (the snapshot's: {}; or shared, none)",
                    if ids.is_empty() {
                        "none".to_string()
                    } else {
                        ids.join(", ")
                    }
                )))
            }
        },
    }
}
