//! The tools: each parses its arguments, gets its artifact from the [`Store`], builds the
//! `jsprof_document` document the CLI's `--json` prints for the same question, and returns one
//! page of it ([`crate::paging`]) with a few lines of text for people and models that read text.
//!
//! Trace insights, network requests and page timings are `jsprof insights|network|timings
//! --json` (`jsprof_document::page`), each paging one of the document's lists.

use std::sync::Arc;

use jsprof_analysis::{DiffKey, DiffOptions, EventQuery};
use jsprof_document::events::EventsQuery;
use jsprof_document::filters::FilterSpec;
use jsprof_document::load::ViewSpec;
use jsprof_document::query::{FlameChartQuery, Query};
use jsprof_document::top::{By, TopQuery};
use jsprof_heap::SortBy;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{ToolError, ToolResult};
use crate::paging::{self as page, List, PageArgs};
use crate::store::{Entry, Store};

/// A tool's answer: the JSON document (one page of it) and its text rendering.
pub struct Answer {
    pub json: Value,
    pub text: String,
}

/// One tool as `tools/list` shows it.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Takes `cursor`, `max_items` and `max_bytes`.
    pub paged: bool,
    pub schema: fn() -> Value,
    /// Old argument names still accepted (the query type's serde aliases).
    pub aliases: &'static [&'static str],
}

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialize")
}

macro_rules! spec {
    ($name:literal, $args:ty, $paged:expr, $description:literal) => {
        spec!($name, $args, $paged, $description, &[])
    };
    ($name:literal, $args:ty, $paged:expr, $description:literal, $aliases:expr) => {
        ToolSpec {
            name: $name,
            description: $description,
            paged: $paged,
            schema: schema::<$args>,
            aliases: $aliases,
        }
    };
}

/// Every tool, in the order an investigation uses them (`record` only with `--allow-record`).
pub fn catalogue(allow_record: bool) -> Vec<ToolSpec> {
    let mut tools = vec![
        spec!("open", OpenArgs, true, "Open a CPU profile, Chrome trace, JS self-profiling trace, heap profile or heap snapshot (a path under the server's --root) and get a handle for the other tools, with the file's summary (threads and top functions, or the heap Summary's largest classes). Opening the same file again returns the same handle; the file is read once."),
        spec!("top", TopArgs, true, "The functions taking the most time (self or total), DevTools' Bottom-up table, for a thread and time range of a CPU profile or trace. Same numbers as `jsprof top --json`."),
        spec!("tree", TreeArgs, true, "The call tree (top-down) or bottom-up tree expanded along one path: the ancestors of `node` and its subtree `depth` levels deep (without `node`, the roots `depth` levels deep). Node ids are those of `jsprof tree --json`, so an id from one answer expands in the next."),
        spec!("sandwich", SandwichArgs, false, "Who calls a function and what it calls (speedscope's sandwich): the function whose name or URL matches `function` (a regular expression; the heaviest when several match, the others listed), its self and total, its callers (Bottom-up under it) and its callees (every call of it merged), `depth` levels each. Same as `jsprof tree --sandwich RE --json`."),
        spec!("flame_chart", FlameChartArgs, true, "The flame chart's calls (JS calls, GC, and a trace's events) that overlap a time window, depth-first as drawn: start, end, self and total of each.", FlameChartQuery::ALIASES),
        spec!("events", EventsArgs, true, "GetEvents over a thread's timeline with the classic modes: all (depth-first), unique-types, unique-events, reduce-all; filtered by time window, event subtree, depth and types. Same answer as `jsprof events --json`.", EventsQuery::ALIASES),
        spec!("cpu_diff", CpuDiffArgs, true, "Compare two CPU profiles or traces (handles): per function, before/after self and total and the change, above a noise floor, largest change first. Same as `jsprof diff --json`."),
        spec!("heap_summary", HeapSummaryArgs, true, "DevTools' heap Summary of a snapshot: classes with count, shallow and retained size, plus the snapshot's statistics. Same as `jsprof heap summary --json`."),
        spec!("heap_class", HeapClassArgs, true, "The objects of one Summary class (its `key` from heap_summary), largest retained first."),
        spec!("heap_object", HeapObjectArgs, false, "One object of a snapshot by its id (`@123` or 123): name, type, sizes, distance, dominator, edge and retainer counts. Same as `jsprof heap node --json`."),
        spec!("heap_retainers", HeapRetainersArgs, true, "Why an object is alive: its shortest retaining paths from the GC roots, each step the edge and the retaining object. Same as `jsprof heap retainers --json`."),
        spec!("heap_dominators", HeapDominatorsArgs, true, "The objects an object immediately dominates in the dominator tree (the root without `id`), largest retained first."),
        spec!("heap_statistics", HeapStatisticsArgs, false, "The snapshot's Statistics: total, V8 heap (code, strings, JS arrays, system) and native sizes. Same as `jsprof heap stats --json`."),
        spec!("heap_strings", HeapStringsArgs, true, "Duplicate strings: values held in several copies, most wasted bytes first (values over 500 characters are cut in this answer)."),
        spec!("heap_detached", HeapDetachedArgs, true, "Detached DOM trees: DOM nodes no longer in a document that are still held, largest first."),
        spec!("heap_diff", HeapDiffArgs, true, "DevTools' Comparison of two snapshots (handles): per class, new and deleted objects, allocated and freed bytes, size and retained-size change. Same as `jsprof heap diff --json`."),
        spec!("heap_leaks", HeapLeaksArgs, true, "Leaks across three or more snapshots (handles, in time order): objects created between the first and the second that the last still holds, grouped by class and retaining path, largest retained first; `sample_id` is one object of the group for heap_retainers. Same as `jsprof heap leaks --json`."),
        spec!("trace_insights", TraceInsightsArgs, true, "A page-load trace's Web Vitals and DevTools' insights per navigation (FCP, LCP with its breakdown, CLS with its clusters, INP with its phases, render-blocking requests), plus layout shifts, interactions and long tasks. Pages one list (`list`: navigations by default; the others are counted). Same numbers as `jsprof insights --json`."),
        spec!("trace_network", TraceArgs, true, "A trace's network requests as DevTools' Network track derives them: start, queueing, server response, download, end, priority, sizes, status, render-blocking state, initiator. Same as `jsprof network --json`."),
        spec!("trace_timings", TraceTimingsArgs, true, "A trace's user timings: `performance.mark`s and `measure`s, console.time spans and console.timeStamps. Pages one list (`list`: measures by default). Same as `jsprof timings --json`."),
        spec!("source", SourceArgs, true, "Where a function is (source-mapped when a map was found) and, when the file is local and under a --root, the lines around it; with its self and total time from `top`."),
    ];
    if allow_record {
        tools.push(spec!("record", crate::record::RecordArgs, false, "Record a CPU profile (and heap snapshot) of a Node command or a Chrome page for a number of seconds, into the server's record directory, and open it: measure before and after a change. Offered only when the server was started with --allow-record."));
    }
    tools
}

/// The input schema `tools/list` gives for a tool: its arguments, plus the paging ones.
pub fn input_schema(spec: &ToolSpec) -> Map<String, Value> {
    let mut schema = match (spec.schema)() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.remove("title");
    if spec.paged {
        let props = schema
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = props {
            props.extend(page::schema_properties());
        }
    }
    schema
}

fn parse<T: DeserializeOwned>(tool: &str, args: Map<String, Value>) -> ToolResult<T> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| ToolError::BadRequest(format!("bad arguments for `{tool}`: {e}")))
}

/// Runs tool `name` with `args`.
pub async fn call(store: &Arc<Store>, name: &str, args: Map<String, Value>) -> ToolResult<Answer> {
    let Some(spec) = catalogue(store.config.allow_record)
        .into_iter()
        .find(|t| t.name == name)
    else {
        return Err(ToolError::NotFound(format!(
            "no tool `{}`{}",
            name.escape_debug(),
            if name == "record" {
                ": recording is offered only when the server was started with --allow-record"
            } else {
                ""
            }
        )));
    };
    let schema = input_schema(&spec);
    if let Some(Value::Object(known)) = schema.get("properties") {
        if let Some(unknown) = args
            .keys()
            .find(|k| !known.contains_key(*k) && !spec.aliases.contains(&k.as_str()))
        {
            let mut names: Vec<&String> = known.keys().collect();
            names.sort();
            return Err(ToolError::BadRequest(format!(
                "unknown argument `{}` for `{name}`: expected {}",
                unknown.escape_debug(),
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let mut args = args;
    let page = if spec.paged {
        page::take(&mut args, &store.config)?
    } else {
        PageArgs::default()
    };
    // The question without its paging: what a cursor belongs to.
    let question = format!("{name} {}", page::canonical(&Value::Object(args.clone())));
    let q = Question {
        store,
        page: &page,
        question: &question,
        tool: name,
    };
    match name {
        "open" => open(q, parse(name, args)?).await,
        "top" => top(q, parse(name, args)?).await,
        "tree" => tree(q, parse(name, args)?).await,
        "sandwich" => sandwich(q, parse(name, args)?).await,
        "flame_chart" => flame_chart(q, parse(name, args)?).await,
        "events" => events(q, parse(name, args)?).await,
        "cpu_diff" => cpu_diff(q, parse(name, args)?).await,
        "heap_summary" => heap_summary(q, parse(name, args)?).await,
        "heap_class" => heap_class(q, parse(name, args)?).await,
        "heap_object" => heap_object(q, parse(name, args)?).await,
        "heap_retainers" => heap_retainers(q, parse(name, args)?).await,
        "heap_dominators" => heap_dominators(q, parse(name, args)?).await,
        "heap_statistics" => heap_statistics(q, parse(name, args)?).await,
        "heap_strings" => heap_strings(q, parse(name, args)?).await,
        "heap_detached" => heap_detached(q, parse(name, args)?).await,
        "heap_diff" => heap_diff(q, parse(name, args)?).await,
        "heap_leaks" => heap_leaks(q, parse(name, args)?).await,
        "trace_insights" => trace_insights(q, parse(name, args)?).await,
        "trace_network" => trace_network(q, parse(name, args)?).await,
        "trace_timings" => trace_timings(q, parse(name, args)?).await,
        "source" => crate::source::source(q, parse(name, args)?).await,
        "record" => crate::record::record(q, parse(name, args)?).await,
        _ => Err(ToolError::Internal(format!("tool `{name}` has no handler"))),
    }
}

/// What every tool handler gets besides its arguments.
#[derive(Clone, Copy)]
pub struct Question<'a> {
    pub store: &'a Arc<Store>,
    pub page: &'a PageArgs,
    pub question: &'a str,
    pub tool: &'a str,
}

impl Question<'_> {
    /// One page of `doc`'s whole list at `path`, with its text rendering.
    pub fn paged(
        &self,
        doc: Value,
        path: &[&str],
        title: &str,
        row: fn(&Value) -> String,
    ) -> ToolResult<Answer> {
        let total = list_len(&doc, path);
        self.window(doc, path, 0, total, title, row)
    }

    /// A page of a list of which `doc` holds the items from `first` on, out of `total`.
    pub fn window(
        &self,
        doc: Value,
        path: &[&str],
        first: usize,
        total: usize,
        title: &str,
        row: fn(&Value) -> String,
    ) -> ToolResult<Answer> {
        let offset = page::offset(self.page, self.question)?;
        let json = page::paginate(
            doc,
            List { path, first, total },
            self.page,
            offset,
            self.question,
            self.tool,
        )?;
        let text = render(&json, path, title, row);
        Ok(Answer { json, text })
    }

    pub fn offset(&self) -> ToolResult<usize> {
        page::offset(self.page, self.question)
    }

    /// Items to compute for a window of a list that is built page by page.
    pub fn items(&self) -> usize {
        self.page.max_items.unwrap_or(crate::DEFAULT_ITEMS)
    }
}

fn list_len(doc: &Value, path: &[&str]) -> usize {
    let mut at = doc;
    for key in path {
        at = &at[*key];
    }
    at.as_array().map_or(0, Vec::len)
}

/// The text form of a page: a title line, a line per row, and how to get more.
fn render(doc: &Value, path: &[&str], title: &str, row: fn(&Value) -> String) -> String {
    let mut at = doc;
    for key in path {
        at = &at[*key];
    }
    let p = &doc["page"];
    let mut text = format!(
        "{title}: items {}–{} of {}\n",
        p["offset"].as_u64().unwrap_or(0) + u64::from(p["returned"].as_u64().unwrap_or(0) > 0),
        p["offset"].as_u64().unwrap_or(0) + p["returned"].as_u64().unwrap_or(0),
        p["total"]
    );
    for item in at.as_array().into_iter().flatten() {
        text.push_str("  ");
        text.push_str(&row(item));
        text.push('\n');
    }
    if let Some(more) = p["more"].as_str() {
        text.push_str(more);
    }
    text
}

fn to_value<T: serde::Serialize>(doc: &T) -> ToolResult<Value> {
    serde_json::to_value(doc).map_err(|e| ToolError::Internal(format!("serializing: {e}")))
}

pub fn fmt_ms(v: &Value) -> String {
    v.as_f64().map_or("?".into(), |ms| format!("{ms:.2} ms"))
}

/// Bytes as the CLI writes them (1 KB = 1,024 B: `jsprof_document::units`).
pub fn fmt_bytes(v: &Value) -> String {
    v.as_f64()
        .map_or("?".into(), jsprof_document::units::fmt_bytes)
}

fn name_of(v: &Value) -> String {
    match v["name"].as_str() {
        Some("") | None => "(anonymous)".into(),
        Some(n) => n.into(),
    }
}

fn location(v: &Value) -> String {
    let url = v["url"].as_str().unwrap_or("");
    match v["line"].as_u64() {
        Some(line) => format!("{url}:{line}:{}", v["column"].as_u64().unwrap_or(0)),
        None => url.into(),
    }
}

fn weight_row(v: &Value) -> String {
    let (s, t) = if v.get("self_ms").is_some() {
        (fmt_ms(&v["self_ms"]), fmt_ms(&v["total_ms"]))
    } else {
        (fmt_bytes(&v["self_bytes"]), fmt_bytes(&v["total_bytes"]))
    };
    format!(
        "self {s} ({:.1}%), total {t} ({:.1}%)",
        v["self_percent"].as_f64().unwrap_or(0.0),
        v["total_percent"].as_f64().unwrap_or(0.0)
    )
}

fn object_row(o: &Value) -> String {
    format!(
        "@{} {} ({}): self {}, retained {}, distance {}",
        o["id"],
        o["name"].as_str().unwrap_or(""),
        o["class"].as_str().or(o["type"].as_str()).unwrap_or(""),
        fmt_bytes(&o["self_size"]),
        fmt_bytes(&o["retained_size"]),
        o["distance"]
    )
}

// ---------------------------------------------------------------------------------------------
// Arguments.

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
pub struct OpenArgs {
    /// A file under one of the server's --root directories (relative paths are taken from the
    /// first root).
    pub path: String,
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
pub struct HeapSummaryArgs {
    pub handle: String,
    /// `retained` (default), `self` or `count`.
    #[serde(default)]
    pub sort: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapClassArgs {
    pub handle: String,
    /// The class's `key` from heap_summary.
    pub key: String,
}

/// A heap object id: `123` or `"@123"`, as the tables print it.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(untagged)]
pub enum NodeId {
    Number(u32),
    Text(String),
}

impl NodeId {
    fn get(&self) -> ToolResult<u32> {
        match self {
            NodeId::Number(n) => Ok(*n),
            NodeId::Text(t) => t.trim_start_matches('@').parse().map_err(|_| {
                ToolError::BadRequest(format!(
                    "bad object id `{}`: expected a number like 123 or \"@123\"",
                    t.escape_debug()
                ))
            }),
        }
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapObjectArgs {
    pub handle: String,
    pub id: NodeId,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapRetainersArgs {
    pub handle: String,
    pub id: NodeId,
    /// How many shortest paths to find (default 5).
    #[serde(default)]
    pub paths: Option<usize>,
    /// Longest path searched (default 100).
    #[serde(default)]
    pub max_depth: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapDominatorsArgs {
    pub handle: String,
    /// The object whose dominated children to list (default: the root).
    #[serde(default)]
    pub id: Option<NodeId>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapStatisticsArgs {
    pub handle: String,
}

pub type HeapStringsArgs = HeapStatisticsArgs;
pub type HeapDetachedArgs = HeapStatisticsArgs;

#[derive(Deserialize, JsonSchema)]
pub struct HeapDiffArgs {
    /// The earlier snapshot's handle.
    pub base: String,
    pub target: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapLeaksArgs {
    /// Three or more snapshot handles in time order: before the action, after it, later.
    pub handles: Vec<String>,
    /// Hide groups retaining fewer bytes in the last snapshot.
    #[serde(default)]
    pub min_retained: u64,
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

// ---------------------------------------------------------------------------------------------
// CPU tools.

async fn cpu_of(
    q: &Question<'_>,
    handle: &str,
    filters: &FilterSpec,
) -> ToolResult<(Arc<Entry>, Arc<jsprof_document::load::CpuInput>)> {
    let entry = q.store.get(handle)?;
    let input = q.store.cpu(&entry, filters).await?;
    Ok((entry, input))
}

async fn open(q: Question<'_>, args: OpenArgs) -> ToolResult<Answer> {
    let entry = q.store.open(&args.path)?;
    let mut doc = json!({
        "handle": entry.handle,
        "path": entry.path.display().to_string(),
        "kind": entry.kind(),
        "size_bytes": entry.size,
    });
    let (summary, next, path): (Value, &str, &[&str]) = if entry.is_heap() {
        let heap = q.store.heap(&entry).await?;
        let summary = q
            .store
            .document(q.question.to_string(), move || {
                // Every class, so that the page states how many there are.
                to_value(&jsprof_document::heap::summary_report(
                    &heap.snapshot,
                    &heap.analysis,
                    SortBy::Retained,
                    0,
                ))
            })
            .await?;
        (
            (*summary).clone(),
            "heap_summary for every class, heap_class for a class's objects, heap_retainers for why one is alive, heap_leaks across three snapshots",
            &["summary", "classes"],
        )
    } else {
        let input = q.store.cpu(&entry, &FilterSpec::default()).await?;
        let summary = q
            .store
            .document(q.question.to_string(), move || {
                let s = jsprof_document::summary::summary(&input, None, 5)?;
                to_value(&s.report)
            })
            .await?;
        (
            (*summary).clone(),
            "top for the functions, tree to follow a call path, events or flame_chart for a time window, source for a function's code",
            &["summary", "threads"],
        )
    };
    doc["summary"] = summary;
    doc["next"] = next.into();
    let title = format!("{} is {} ({})", entry.handle, entry.name, entry.kind());
    let row: fn(&Value) -> String = if entry.is_heap() {
        |c| {
            format!(
                "{}: {} objects, retained {}",
                c["name"].as_str().unwrap_or(""),
                c["count"],
                fmt_bytes(&c["retained_size"])
            )
        }
    } else {
        |t| {
            format!(
                "thread {} {}: {} samples",
                t["timeline_id"],
                t["name"].as_str().unwrap_or(""),
                t["samples"]
            )
        }
    };
    let mut answer = q.paged(doc, path, &title, row)?;
    if !entry.is_heap() {
        for f in answer.json["summary"]["top_functions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            answer
                .text
                .push_str(&format!("\n  top: {} {}", name_of(f), weight_row(f)));
        }
    }
    answer.text.push_str(&format!("\nnext: {next}"));
    Ok(answer)
}

async fn top(q: Question<'_>, args: TopArgs) -> ToolResult<Answer> {
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
fn tree_selection(nodes: &[Value], node: Option<u32>, depth: u32) -> ToolResult<Vec<bool>> {
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

async fn sandwich(q: Question<'_>, args: SandwichArgs) -> ToolResult<Answer> {
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

async fn tree(q: Question<'_>, args: TreeArgs) -> ToolResult<Answer> {
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

fn event_row(e: &Value) -> String {
    format!(
        "{} {} {}..{} self {} total {}{}",
        e["type"].as_str().unwrap_or(""),
        name_of(e),
        fmt_ms(&e["start_ms"]),
        fmt_ms(&e["end_ms"]),
        fmt_ms(&e["self_ms"]),
        fmt_ms(&e["total_ms"]),
        e["id"]
            .as_u64()
            .map_or(String::new(), |id| format!(" (id {id})"))
    )
}

async fn run_events(
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

async fn flame_chart(q: Question<'_>, args: FlameChartArgs) -> ToolResult<Answer> {
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

async fn events(q: Question<'_>, args: EventsArgs) -> ToolResult<Answer> {
    let query = args.query.event_query();
    let filters = args.filters.unwrap_or_default();
    run_events(q, &args.handle, args.query.thread, filters, query, "events").await
}

/// Keeps `doc`'s list `chosen` (among `lists`, each a path) and replaces the others by their
/// lengths under `other_lists`, so a page's size is bounded by the one list being paged.
fn keep_one_list(
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

async fn trace_insights(q: Question<'_>, args: TraceInsightsArgs) -> ToolResult<Answer> {
    let (_, input) = cpu_of(&q, &args.handle, &FilterSpec::default()).await?;
    let mut doc = (*q
        .store
        .document(format!("insights {}", args.handle), move || {
            to_value(&jsprof_document::page::insights_report(&input)?)
        })
        .await?)
        .clone();
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
    let path = keep_one_list(&mut doc, LISTS, chosen)?;
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

async fn trace_network(q: Question<'_>, args: TraceArgs) -> ToolResult<Answer> {
    let (_, input) = cpu_of(&q, &args.handle, &FilterSpec::default()).await?;
    let doc = q
        .store
        .document(format!("network {}", args.handle), move || {
            to_value(&jsprof_document::page::network_report(&input)?)
        })
        .await?;
    q.paged((*doc).clone(), &["requests"], "requests", |r| {
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

async fn trace_timings(q: Question<'_>, args: TraceTimingsArgs) -> ToolResult<Answer> {
    let (_, input) = cpu_of(&q, &args.handle, &FilterSpec::default()).await?;
    let mut doc = (*q
        .store
        .document(format!("timings {}", args.handle), move || {
            to_value(&jsprof_document::page::timings_report(&input)?)
        })
        .await?)
        .clone();
    let chosen = args.list.as_deref().unwrap_or("measures");
    const LISTS: &[(&str, &[&str])] = &[
        ("measures", &["measures"]),
        ("marks", &["marks"]),
        ("console_timings", &["console_timings"]),
        ("console_timestamps", &["console_timestamps"]),
    ];
    let path = keep_one_list(&mut doc, LISTS, chosen)?;
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

async fn cpu_diff(q: Question<'_>, args: CpuDiffArgs) -> ToolResult<Answer> {
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

// ---------------------------------------------------------------------------------------------
// Heap tools.

async fn heap_of(q: &Question<'_>, handle: &str) -> ToolResult<Arc<crate::store::Heap>> {
    let entry = q.store.get(handle)?;
    q.store.heap(&entry).await
}

async fn heap_summary(q: Question<'_>, args: HeapSummaryArgs) -> ToolResult<Answer> {
    let sort = match args.sort.as_deref() {
        None | Some("retained") => SortBy::Retained,
        Some("self") => SortBy::SelfSize,
        Some("count") => SortBy::Count,
        Some(s) => {
            return Err(ToolError::BadRequest(format!(
                "bad `sort` `{}`: expected retained, self or count",
                s.escape_debug()
            )))
        }
    };
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            to_value(&jsprof_document::heap::summary_report(
                &heap.snapshot,
                &heap.analysis,
                sort,
                0,
            ))
        })
        .await?;
    q.paged((*doc).clone(), &["classes"], "classes", |c| {
        format!(
            "{} (key {}): {} objects, self {}, retained {}",
            c["name"].as_str().unwrap_or(""),
            c["key"],
            c["count"],
            fmt_bytes(&c["self_size"]),
            fmt_bytes(&c["retained_size"])
        )
    })
}

async fn heap_class(q: Question<'_>, args: HeapClassArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let key = args.key.clone();
    let doc = crate::store::blocking(move || {
        let members = heap.class(&key).ok_or_else(|| {
            ToolError::NotFound(format!(
                "{}: no class with key `{}` (keys are in heap_summary's answer)",
                heap.name,
                key.escape_debug()
            ))
        })?;
        let page = jsprof_document::heap_pages::page(
            &heap.snapshot,
            &heap.analysis,
            &members,
            offset,
            items,
        );
        to_value(&page)
    })
    .await?;
    let total = doc["total"].as_u64().unwrap_or(0) as usize;
    q.window(doc, &["objects"], offset, total, "objects", object_row)
}

async fn heap_object(q: Question<'_>, args: HeapObjectArgs) -> ToolResult<Answer> {
    let id = args.id.get()?;
    let heap = heap_of(&q, &args.handle).await?;
    let json = crate::store::blocking(move || {
        to_value(&jsprof_document::heap::nodes_report(
            &heap.name,
            &heap.snapshot,
            &heap.analysis,
            &[id],
        )?)
    })
    .await?;
    let n = &json["nodes"][0];
    let text = format!(
        "@{} {} ({}): self {}, retained {}, distance {}, dominated by @{}, {} edges, {} retainers",
        n["id"],
        n["name"].as_str().unwrap_or(""),
        n["type"].as_str().unwrap_or(""),
        fmt_bytes(&n["self_size"]),
        fmt_bytes(&n["retained_size"]),
        n["distance"],
        n["dominator_id"],
        n["edge_count"],
        n["retainer_count"]
    );
    Ok(Answer { json, text })
}

async fn heap_retainers(q: Question<'_>, args: HeapRetainersArgs) -> ToolResult<Answer> {
    let id = args.id.get()?;
    let defaults = jsprof_document::heap::RetainersOptions::default();
    let options = jsprof_document::heap::RetainersOptions {
        paths: args.paths.unwrap_or(defaults.paths),
        max_depth: args.max_depth.unwrap_or(defaults.max_depth),
    };
    if options.paths > q.store.config.max_items {
        return Err(ToolError::TooLarge(format!(
            "paths {} is over this server's cap of {}",
            options.paths, q.store.config.max_items
        )));
    }
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let node = jsprof_document::heap::ordinal_of(&heap.name, &heap.snapshot, id)?;
            to_value(&jsprof_document::heap::retainers_report_with(
                &heap.snapshot,
                &heap.analysis,
                heap.retainers(),
                node,
                options,
            ))
        })
        .await?;
    let mut answer = q.paged((*doc).clone(), &["paths"], "retaining paths", |p| {
        let steps: Vec<String> = p["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "{} in {} @{}",
                    s["edge"].as_str().unwrap_or(""),
                    s["retainer"]["name"].as_str().unwrap_or(""),
                    s["retainer"]["id"]
                )
            })
            .collect();
        steps.join(" ← ")
    })?;
    answer.text = format!("{}\n{}", object_row(&answer.json["object"]), answer.text);
    Ok(answer)
}

async fn heap_dominators(q: Question<'_>, args: HeapDominatorsArgs) -> ToolResult<Answer> {
    let id = args.id.as_ref().map(NodeId::get).transpose()?;
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let doc = crate::store::blocking(move || {
        let node = match id {
            Some(id) => jsprof_document::heap::ordinal_of(&heap.name, &heap.snapshot, id)?,
            None => heap.snapshot.root,
        };
        let page = jsprof_document::heap_pages::dominated_page(
            &heap.snapshot,
            &heap.analysis,
            heap.dominators(),
            node,
            offset,
            items,
        );
        let mut doc = to_value(&page)?;
        doc["object"] = to_value(&jsprof_document::heap::object_json(
            &heap.snapshot,
            &heap.analysis,
            node,
        ))?;
        Ok(doc)
    })
    .await?;
    let total = doc["total"].as_u64().unwrap_or(0) as usize;
    q.window(
        doc,
        &["objects"],
        offset,
        total,
        "immediately dominated objects",
        object_row,
    )
}

async fn heap_statistics(q: Question<'_>, args: HeapStatisticsArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let json = json!({
        "kind": heap.snapshot.kind(),
        "warnings": jsprof_document::heap::warnings(&heap.snapshot),
        "node_count": heap.snapshot.node_count(),
        "total_size": heap.analysis.total_size,
        "statistics": jsprof_document::heap::statistics_json(&heap.analysis.statistics),
    });
    let st = &json["statistics"];
    let text = format!(
        "{} objects, total {}: V8 heap {} (code {}, strings {}, JS arrays {}, system {}), native {} (typed arrays {})",
        json["node_count"],
        fmt_bytes(&st["total"]),
        fmt_bytes(&st["v8heap"]["total"]),
        fmt_bytes(&st["v8heap"]["code"]),
        fmt_bytes(&st["v8heap"]["strings"]),
        fmt_bytes(&st["v8heap"]["jsArrays"]),
        fmt_bytes(&st["v8heap"]["system"]),
        fmt_bytes(&st["native"]["total"]),
        fmt_bytes(&st["native"]["typedArrays"])
    );
    Ok(Answer { json, text })
}

/// Longest string value put in an answer: one 10 MB string must not fill the page.
const STRING_SHOWN: usize = 500;

async fn heap_strings(q: Question<'_>, args: HeapStringsArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let s = &heap.snapshot;
            let groups = jsprof_heap::duplicate_strings(s, &heap.analysis);
            let strings: Vec<Value> = groups
                .into_iter()
                .map(|g| {
                    let cut = g.value.chars().count() > STRING_SHOWN;
                    let value: String = g.value.chars().take(STRING_SHOWN).collect();
                    json!({
                        "value": value,
                        "value_cut": cut,
                        "count": g.count,
                        "total_size": g.total_size,
                        "wasted_size": g.wasted_size,
                        "retained_size": g.retained_size,
                        "truncated": g.truncated,
                        "length": g.length,
                        "sample_id": s.nodes.id[g.sample as usize],
                    })
                })
                .collect();
            Ok(json!({
                "kind": s.kind(),
                "warnings": jsprof_document::heap::warnings(s),
                "strings": strings,
            }))
        })
        .await?;
    q.paged((*doc).clone(), &["strings"], "duplicate strings", |g| {
        let value: String = g["value"].as_str().unwrap_or("").chars().take(60).collect();
        format!(
            "{value:?} ×{}: wasted {} (@{})",
            g["count"],
            fmt_bytes(&g["wasted_size"]),
            g["sample_id"]
        )
    })
}

async fn heap_detached(q: Question<'_>, args: HeapDetachedArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let s = &heap.snapshot;
            let trees = jsprof_document::heap_pages::detached(
                s,
                &heap.analysis,
                heap.dominators(),
                usize::MAX,
            );
            Ok(json!({
                "kind": s.kind(),
                "warnings": jsprof_document::heap::warnings(s),
                "trees": to_value(&trees)?,
            }))
        })
        .await?;
    q.paged((*doc).clone(), &["trees"], "detached DOM trees", |t| {
        format!(
            "{} nodes, retained {}: {}",
            t["node_count"],
            fmt_bytes(&t["retained_size"]),
            object_row(&t["root"])
        )
    })
}

async fn heap_diff(q: Question<'_>, args: HeapDiffArgs) -> ToolResult<Answer> {
    let base = q.store.get(&args.base)?;
    // Checked and loaded like the target, so a wrong handle fails before a long read.
    q.store.heap(&base).await?;
    let target = heap_of(&q, &args.target).await?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            // The comparison re-classifies its base, so it gets a copy of its own.
            let (mut snapshot, mut analysis) = crate::store::read_snapshot(&base.path, &base.name)?;
            let (report, _) = jsprof_document::heap::diff_report(
                jsprof_document::heap::Named {
                    name: &base.name,
                    snapshot: &mut snapshot,
                    analysis: &mut analysis,
                },
                jsprof_document::heap::Named {
                    name: &target.name,
                    snapshot: &target.snapshot,
                    analysis: &target.analysis,
                },
                0,
            );
            to_value(&report)
        })
        .await?;
    q.paged((*doc).clone(), &["classes"], "classes that changed", |c| {
        format!(
            "{}: {:+} objects (+{} −{}), size {:+}",
            c["name"].as_str().unwrap_or(""),
            c["count_delta"].as_i64().unwrap_or(0),
            c["new_count"],
            c["deleted_count"],
            c["size_delta"].as_i64().unwrap_or(0)
        )
    })
}

async fn heap_leaks(q: Question<'_>, args: HeapLeaksArgs) -> ToolResult<Answer> {
    if args.handles.len() < 3 {
        return Err(ToolError::BadRequest(format!(
            "heap_leaks needs three or more snapshot handles in time order (before, after, later); got {}",
            args.handles.len()
        )));
    }
    let mut heaps = Vec::new();
    for h in &args.handles {
        heaps.push(heap_of(&q, h).await?);
    }
    let (base, target, last) = (
        heaps[0].clone(),
        heaps[1].clone(),
        heaps[heaps.len() - 1].clone(),
    );
    let min_retained = args.min_retained;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            use jsprof_document::heap::Named;
            // Into the process's order by object ids, as `jsprof heap leaks` does (and says).
            let order = jsprof_document::heap::leaks_order([
                &base.snapshot,
                &target.snapshot,
                &last.snapshot,
            ]);
            let given = [&base, &target, &last];
            let (base, target, last) = (given[order[0]], given[order[1]], given[order[2]]);
            to_value(&jsprof_document::heap::leaks_report(
                Named {
                    name: &base.name,
                    snapshot: &base.snapshot,
                    analysis: (),
                },
                Named {
                    name: &target.name,
                    snapshot: &target.snapshot,
                    analysis: (),
                },
                Named {
                    name: &last.name,
                    snapshot: &last.snapshot,
                    analysis: &last.analysis,
                },
                order,
                jsprof_document::heap::LeaksOptions {
                    min_retained,
                    limit: 0,
                },
            ))
        })
        .await?;
    q.paged((*doc).clone(), &["groups"], "leak groups", |g| {
        let path: Vec<String> = g["path"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "{}{}",
                    s["class"].as_str().unwrap_or(""),
                    s["edge"].as_str().unwrap_or("")
                )
            })
            .collect();
        format!(
            "{} ×{} retaining {} via {} (sample @{})",
            g["class"].as_str().unwrap_or(""),
            g["count"],
            fmt_bytes(&g["retained_size"]),
            path.join(" → "),
            g["sample_id"]
        )
    })
}
