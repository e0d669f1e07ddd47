//! The CPU tools: `top`, `tree`, `sandwich`, `flame_chart`, `events` and `cpu_diff`, each over
//! the query type `jsprof_document` defines for the CLI and the service.

use std::sync::Arc;

use jsprof_analysis::{DiffOptions, EventQuery};
use jsprof_document::events::EventsQuery;
use jsprof_document::filters::FilterSpec;
use jsprof_document::load::ViewSpec;
use jsprof_document::query::{FlameChartQuery, KeyArg};
use jsprof_document::top::{By, TopQuery};
use jsprof_document::tree::NodeJson;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::text::{diff_row, event_row, function_row, node_row, self_total};
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
    /// Levels shown, as the CLI's `--max-depth` counts them: 1 = the roots only (under `node`,
    /// the node only); default 2.
    #[serde(default)]
    pub max_depth: Option<u32>,
    #[serde(flatten)]
    pub view: View,
}

#[derive(Deserialize, JsonSchema)]
pub struct SandwichArgs {
    pub handle: String,
    /// A regular expression over function names and URLs (`^render$`).
    pub function: String,
    /// Levels of callers and of callees shown, the function's own level included, as the CLI's
    /// `--max-depth` counts them; default 3, at most 51.
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// The list paged: `callers` (default) or `callees`; the other's length is in
    /// `other_lists`.
    #[serde(default)]
    pub list: Option<String>,
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
    #[serde(default)]
    pub key: KeyArg,
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
            Ok(jsprof_document::top::answer(&input, &query)?)
        })
        .await?;
    q.page_of(
        &*doc,
        &["functions"],
        &doc.functions,
        "functions",
        function_row,
    )
}

/// The ids of `nodes` (pre-order, `parent` naming an earlier id) to show: the path to `node`
/// and its subtree `max_depth` levels deep (the node's own level the first), or `max_depth`
/// levels from the roots — `jsprof tree --max-depth`'s count.
pub(super) fn tree_selection(
    nodes: &[NodeJson],
    node: Option<u32>,
    max_depth: u32,
) -> ToolResult<Vec<bool>> {
    let parent = |i: usize| nodes[i].parent.map(|p| p as usize);
    let level = |i: usize| nodes[i].depth;
    let mut keep = vec![false; nodes.len()];
    let Some(node) = node else {
        for (i, k) in keep.iter_mut().enumerate() {
            *k = level(i) < max_depth;
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
        *k = level(i) - base < max_depth;
    }
    Ok(keep)
}

pub(super) async fn sandwich(q: Question<'_>, args: SandwichArgs) -> ToolResult<Answer> {
    const LISTS: &[(&str, &[&str])] = &[("callers", &["callers"]), ("callees", &["callees"])];
    let chosen = args.list.as_deref().unwrap_or("callers");
    let spec = args.view.spec()?;
    let re = jsprof_document::tree::sandwich_pattern(&args.function)?;
    let (entry, input) = cpu_of(&q, &args.handle, &args.view.filters()).await?;
    let max_depth = args.max_depth.unwrap_or(3).min(51);
    // One document for both lists and every page of them.
    let key = format!(
        "sandwich {} {max_depth} {}",
        args.handle,
        page::canonical(&json!(format!(
            "{:?}",
            (&args.function, &args.view.view, &args.view.filters)
        )))
    );
    let report = q
        .store
        .document(key, move || {
            let weighted = input.weighted(&spec)?;
            let options = jsprof_document::tree::TreeOptions {
                bottom_up: false,
                max_depth,
                min_percent: 0.0,
            };
            let (view, rows) = jsprof_document::tree::sandwich_matching(&weighted, &re, options)
                .map_err(|e| ToolError::NotFound(format!("{}: {e}", entry.name)))?;
            Ok(jsprof_document::tree::sandwich_report(
                &weighted, &view, &rows,
            ))
        })
        .await?;
    let mut json = to_value(&*report)?;
    let path = super::trace::keep_one_list(&mut json, LISTS, chosen)?;
    let rows = if chosen == "callers" {
        &report.callers
    } else {
        &report.callees
    };
    let f = &report.function.row;
    let title = format!(
        "{chosen} of {} {} ({})",
        f.name,
        f.url,
        self_total(&f.weights)
    );
    q.json_page_of(json, path, rows, &title, |n| {
        format!(
            "{}{} ({})",
            "  ".repeat(n.depth as usize),
            n.function.name,
            self_total(&n.function.weights)
        )
    })
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
            Ok(jsprof_document::tree::report(&weighted, &view))
        })
        .await?;
    let keep = tree_selection(&whole.nodes, args.node, args.max_depth.unwrap_or(2))?;
    let shown: Vec<&NodeJson> = whole
        .nodes
        .iter()
        .zip(keep)
        .filter_map(|(n, k)| k.then_some(n))
        .collect();
    // The header, the nodes shown, and how many the whole tree has.
    let mut json = to_value(&whole.header)?;
    json["nodes"] = to_value(&shown)?;
    json["nodes_in_tree"] = whole.nodes.len().into();
    let list = page::List::whole(&["nodes"], shown.len());
    q.window_of(json, list, &shown, "tree nodes", node_row)
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
    // The answer's rows are kept; only the page's rows become JSON (a 33 MB profile has 2.4
    // million calls, and building each one's JSON took 17 s for a page of 20).
    let answer = {
        let (input, thread, query) = (input.clone(), thread.clone(), query.clone());
        q.store
            .document(q.question.to_string(), move || {
                let timeline = input.select(thread.as_deref())?;
                Ok(jsprof_document::events::answer(&input, timeline, &query)?)
            })
            .await?
    };
    let timeline = input.select(thread.as_deref())?;
    let total = answer.rows.len();
    let first = q.offset()?.min(total);
    let end = first.saturating_add(q.items()).min(total);
    let doc = jsprof_document::events::report_window(&input, timeline, &query, &answer, first..end);
    let list = page::List {
        path: &["events"],
        first,
        total,
    };
    q.window_of(to_value(&doc)?, list, &doc.events, title, event_row)
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
    let key = args.key.key();
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
                jsprof_document::diff::side_spec(input, &spec)
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
            Ok(compared.report)
        })
        .await?;
    q.page_of(
        &*doc,
        &["functions"],
        &doc.functions,
        "changed functions",
        diff_row,
    )
}
