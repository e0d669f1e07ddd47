//! The CPU tools: `top`, `tree`, `sandwich`, `flame_chart`, `events` and `cpu_diff`, each over
//! the query type `jsprof_document` defines for the CLI and the service.

use std::sync::Arc;

use jsprof_analysis::{DiffKey, DiffOptions, EventQuery};
use jsprof_document::events::EventsQuery;
use jsprof_document::filters::FilterSpec;
use jsprof_document::load::ViewSpec;
use jsprof_document::query::FlameChartQuery;
use jsprof_document::top::{By, TopQuery};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::text::{event_row, fmt_bytes, fmt_ms, location, name_of, weight_row};
use super::{page, to_value, Answer, Question};
use crate::error::{ToolError, ToolResult};
use crate::store::Entry;

/// The thread, range and filters of a CPU question: the CLI's `--thread`, `--range`,
/// `--samples` ([`ViewSpec`], one definition for every door) and filter flags.
#[derive(Deserialize, JsonSchema, Default, Clone)]
pub struct View {
    #[serde(flatten)]
    pub view: ViewSpec,
    /// The CLI's filters: focus / exclude / drop regexes, hide_idle, collapse_packages,
    /// collapse_recursion, focus_stack / focus_stack_inverted paths.
    #[serde(default)]
    pub filters: Option<FilterSpec>,
}

impl View {
    fn spec(&self) -> ToolResult<ViewSpec> {
        Ok(self.view.clone())
    }

    fn filters(&self) -> FilterSpec {
        self.filters.clone().unwrap_or_default()
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct TopArgs {
    /// From `open`.
    pub handle: String,
    #[serde(default)]
    pub by: By,
    #[serde(flatten)]
    pub view: View,
}

#[derive(Deserialize, JsonSchema)]
pub struct TreeArgs {
    pub handle: String,
    /// DevTools' Bottom-up tree (functions as roots, their callers beneath).
    #[serde(default)]
    pub bottom_up: bool,
    /// A node id from an earlier answer: show the path to it and its subtree.
    #[serde(default)]
    pub node: Option<u32>,
    /// Levels shown below `node` (or from the roots); default 2.
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(flatten)]
    pub view: View,
}

#[derive(Deserialize, JsonSchema)]
pub struct SandwichArgs {
    pub handle: String,
    /// A regular expression over function names and URLs (`^render$`).
    pub function: String,
    /// Levels of callers and of callees shown; default 2.
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(flatten)]
    pub view: View,
}

/// `flame_chart`: [`FlameChartQuery`] (`range`, formerly `window`) of a handle.
#[derive(Deserialize, JsonSchema)]
pub struct FlameChartArgs {
    pub handle: String,
    #[serde(flatten)]
    pub query: FlameChartQuery,
    #[serde(default)]
    pub filters: Option<FilterSpec>,
}

/// `events`: [`EventsQuery`] (`event`, formerly `event_id`) of a handle.
#[derive(Deserialize, JsonSchema)]
pub struct EventsArgs {
    pub handle: String,
    #[serde(flatten)]
    pub query: EventsQuery,
    #[serde(default)]
    pub filters: Option<FilterSpec>,
}

#[derive(Deserialize, JsonSchema)]
pub struct CpuDiffArgs {
    /// The baseline's handle.
    pub before: String,
    pub after: String,
    /// `name-url` (default: survives moved lines) or `function` (name, url, line, column).
    #[serde(default)]
    pub key: Option<String>,
    /// Scale AFTER so its total equals BEFORE's.
    #[serde(default)]
    pub normalize: bool,
    #[serde(flatten)]
    pub view: View,
}

#[derive(Deserialize, JsonSchema)]
pub struct SourceArgs {
    pub handle: String,
    /// The function's name as the tools print it.
    pub function: String,
    /// Part of its URL, when several functions share the name.
    #[serde(default)]
    pub url: Option<String>,
    /// Lines shown before and after the function's line (default 5, at most 50).
    #[serde(default)]
    pub context: Option<u32>,
}

pub(super) async fn cpu_of(
    q: &Question<'_>,
    handle: &str,
    filters: &FilterSpec,
) -> ToolResult<(Arc<Entry>, Arc<jsprof_document::load::CpuInput>)> {
    let entry = q.store.get(handle)?;
    let input = q.store.cpu(&entry, filters).await?;
    Ok((entry, input))
}

pub(super) async fn top(q: Question<'_>, args: TopArgs) -> ToolResult<Answer> {
    // Every row: the answer is paged rather than cut.
    let query = TopQuery {
        by: args.by,
        limit: 0,
        view: args.view.spec()?,
    };
    let (_, input) = cpu_of(&q, &args.handle, &args.view.filters()).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            to_value(&jsprof_document::top::answer(&input, &query)?)
        })
        .await?;
    q.paged((*doc).clone(), &["functions"], "functions", |f| {
        format!("{} {} — {}", name_of(f), weight_row(f), location(f))
    })
}

/// The ids of `nodes` (pre-order, `parent` naming an earlier id) to show: the path to `node`
/// and `depth` levels under it, or `depth` levels from the roots.
pub(super) fn tree_selection(
    nodes: &[Value],
    node: Option<u32>,
    depth: u32,
) -> ToolResult<Vec<bool>> {
    let parent = |i: usize| nodes[i]["parent"].as_u64().map(|p| p as usize);
    let level = |i: usize| nodes[i]["depth"].as_u64().unwrap_or(0) as u32;
    let mut keep = vec![false; nodes.len()];
    let Some(node) = node else {
        for (i, k) in keep.iter_mut().enumerate() {
            *k = level(i) < depth;
        }
        return Ok(keep);
    };
    let n = node as usize;
    if n >= nodes.len() {
        return Err(ToolError::NotFound(format!(
            "no tree node {node}: the tree has nodes 0..{} for these arguments",
            nodes.len()
        )));
    }
    let mut at = Some(n);
    while let Some(i) = at {
        keep[i] = true;
        at = parent(i);
    }
    // Pre-order: the subtree of n is the run after it with a deeper level.
    let base = level(n);
    for (i, k) in keep.iter_mut().enumerate().skip(n + 1) {
        if level(i) <= base {
            break;
        }
        *k = level(i) - base <= depth;
    }
    Ok(keep)
}

pub(super) async fn sandwich(q: Question<'_>, args: SandwichArgs) -> ToolResult<Answer> {
    let spec = args.view.spec()?;
    let re = regex::Regex::new(&args.function).map_err(|e| {
        ToolError::BadRequest(format!(
            "bad `function` `{}`: {e}",
            args.function.escape_debug()
        ))
    })?;
    let (entry, input) = cpu_of(&q, &args.handle, &args.view.filters()).await?;
    let depth = args.depth.unwrap_or(2).min(50);
    let json = crate::store::blocking(move || {
        let weighted = input.weighted(&spec)?;
        let options = jsprof_document::tree::TreeOptions {
            bottom_up: false,
            max_depth: depth + 1,
            min_percent: 0.0,
        };
        let (view, rows) = jsprof_document::tree::sandwich_matching(&weighted, &re, options)
            .map_err(|e| ToolError::NotFound(format!("{}: {e}", entry.name)))?;
        to_value(&jsprof_document::tree::sandwich_report(
            &weighted, &view, &rows,
        ))
    })
    .await?;
    let f = &json["function"];
    let weight = |n: &Value| {
        if n.get("total_bytes").is_some() {
            format!(
                "self {}, total {}",
                fmt_bytes(&n["self_bytes"]),
                fmt_bytes(&n["total_bytes"])
            )
        } else {
            format!(
                "self {}, total {}",
                fmt_ms(&n["self_ms"]),
                fmt_ms(&n["total_ms"])
            )
        }
    };
    let mut text = format!(
        "{} {} ({})",
        f["name"].as_str().unwrap_or(""),
        f["url"].as_str().unwrap_or(""),
        weight(f)
    );
    for (title, list) in [("callers", "callers"), ("callees", "callees")] {
        text.push_str(&format!("\n{title}:"));
        for n in json[list].as_array().into_iter().flatten().skip(1) {
            let depth = n["depth"].as_u64().unwrap_or(1) as usize;
            text.push_str(&format!(
                "\n{}{} ({})",
                "  ".repeat(depth),
                n["name"].as_str().unwrap_or(""),
                weight(n)
            ));
        }
    }
    Ok(Answer { json, text })
}

pub(super) async fn tree(q: Question<'_>, args: TreeArgs) -> ToolResult<Answer> {
    let spec = args.view.spec()?;
    let (_, input) = cpu_of(&q, &args.handle, &args.view.filters()).await?;
    let bottom_up = args.bottom_up;
    // The whole tree is kept per (handle, view) so that expanding node after node reuses it.
    let key = format!(
        "tree {} {} {}",
        args.handle,
        bottom_up,
        page::canonical(&json!(format!(
            "{:?}",
            (&args.view.view, &args.view.filters)
        )))
    );
    let whole = q
        .store
        .document(key, move || {
            let weighted = input.weighted(&spec)?;
            let options = jsprof_document::tree::TreeOptions {
                bottom_up,
                max_depth: 0,
                min_percent: 0.0,
            };
            let view = jsprof_document::tree::view(&weighted, options);
            to_value(&jsprof_document::tree::report(&weighted, &view))
        })
        .await?;
    let mut doc = (*whole).clone();
    let nodes = doc["nodes"].as_array().cloned().unwrap_or_default();
    let keep = tree_selection(&nodes, args.node, args.depth.unwrap_or(2))?;
    doc["nodes_in_tree"] = nodes.len().into();
    doc["nodes"] = nodes
        .into_iter()
        .zip(keep)
        .filter_map(|(n, k)| k.then_some(n))
        .collect();
    q.paged(doc, &["nodes"], "tree nodes", |n| {
        format!(
            "{}[{}] {} {}",
            "  ".repeat(n["depth"].as_u64().unwrap_or(0) as usize),
            n["id"],
            name_of(n),
            weight_row(n)
        )
    })
}

pub(super) async fn run_events(
    q: Question<'_>,
    handle: &str,
    thread: Option<String>,
    filters: FilterSpec,
    query: EventQuery,
    title: &str,
) -> ToolResult<Answer> {
    let (_, input) = cpu_of(&q, handle, &filters).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let timeline = input.select(thread.as_deref())?;
            to_value(&jsprof_document::events::report(&input, timeline, &query)?)
        })
        .await?;
    q.paged((*doc).clone(), &["events"], title, event_row)
}

pub(super) async fn flame_chart(q: Question<'_>, args: FlameChartArgs) -> ToolResult<Answer> {
    let query = args.query.event_query();
    let filters = args.filters.unwrap_or_default();
    let thread = args.query.thread;
    run_events(
        q,
        &args.handle,
        thread,
        filters,
        query,
        "calls in the window",
    )
    .await
}

pub(super) async fn events(q: Question<'_>, args: EventsArgs) -> ToolResult<Answer> {
    let query = args.query.event_query();
    let filters = args.filters.unwrap_or_default();
    run_events(q, &args.handle, args.query.thread, filters, query, "events").await
}

pub(super) async fn cpu_diff(q: Question<'_>, args: CpuDiffArgs) -> ToolResult<Answer> {
    let key = match args.key.as_deref() {
        None | Some("name-url") => DiffKey::NameUrl,
        Some("function") => DiffKey::Function,
        Some(k) => {
            return Err(ToolError::BadRequest(format!(
                "bad `key` `{}`: expected name-url or function",
                k.escape_debug()
            )))
        }
    };
    let filters = args.view.filters();
    let spec = args.view.spec()?;
    let (before_entry, before) = cpu_of(&q, &args.before, &filters).await?;
    let (after_entry, after) = cpu_of(&q, &args.after, &filters).await?;
    let options = DiffOptions {
        key,
        normalize: args.normalize,
    };
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            // As `jsprof diff`: an input with one thread uses it whatever `thread` says.
            let side_spec = |input: &jsprof_document::load::CpuInput| {
                let mut spec = spec.clone();
                let threads = if input.is_trace() && !spec.samples {
                    input.timelines().len()
                } else {
                    input.profile().threads.len()
                };
                if threads <= 1 {
                    spec.thread = None;
                }
                spec
            };
            let wb = before.weighted(&side_spec(&before))?;
            let wa = after.weighted(&side_spec(&after))?;
            let compared = jsprof_document::diff::diff(
                &jsprof_document::diff::Side {
                    name: &before_entry.name,
                    view: &wb,
                },
                &jsprof_document::diff::Side {
                    name: &after_entry.name,
                    view: &wa,
                },
                options,
            )?;
            to_value(&compared.report)
        })
        .await?;
    q.paged((*doc).clone(), &["functions"], "changed functions", |f| {
        if f.get("delta_self_ms").is_some_and(|v| !v.is_null()) {
            format!(
                "{} Δself {} Δtotal {} ({:+.1}%)",
                name_of(f),
                fmt_ms(&f["delta_self_ms"]),
                fmt_ms(&f["delta_total_ms"]),
                f["delta_total_percent"].as_f64().unwrap_or(0.0)
            )
        } else {
            format!(
                "{} Δself {} Δtotal {}",
                name_of(f),
                fmt_bytes(&f["delta_self_bytes"]),
                fmt_bytes(&f["delta_total_bytes"])
            )
        }
    })
}
