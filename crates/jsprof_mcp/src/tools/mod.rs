//! The tools: each parses its arguments, gets its artifact from the [`Store`], builds the
//! `jsprof_document` document the CLI's `--json` prints for the same question, and returns one
//! page of it ([`crate::paging`]) with a few lines of text for people and models that read text.
//!
//! Trace insights, network requests and page timings are `jsprof insights|network|timings
//! --json` (`jsprof_document::page`), each paging one of the document's lists.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use jsprof_document::filters::FilterSpec;
use jsprof_document::query::Query;
use jsprof_heap::SortBy;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{ToolError, ToolResult};
use crate::paging::{self as page, List, PageArgs};
use crate::store::Store;

mod cpu;
mod heap;
mod page_load;
pub mod schema;
mod text;
mod trace;

use cpu::cpu_of;
pub use cpu::SourceArgs;
pub(crate) use page_load::{page_runs, PageRunsArgs};
use text::{list_len, name, size, weights};

/// A tool's answer: the JSON document (one page of it) and its text rendering.
pub struct Answer {
    pub json: Value,
    pub text: String,
}

/// A handler's answer to come.
pub type Running<'a> = Pin<Box<dyn Future<Output = ToolResult<Answer>> + Send + 'a>>;

/// One tool as `tools/list` shows it, with the handler that answers it.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Takes `cursor`, `max_items` and `max_bytes`.
    pub paged: bool,
    pub schema: fn() -> Value,
    /// Old argument names still accepted (the query type's serde aliases).
    pub aliases: &'static [(&'static str, &'static str)],
    /// Parses the arguments (less the paging ones) and runs the handler.
    pub run: for<'a> fn(Question<'a>, Map<String, Value>) -> Running<'a>,
}

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialize")
}

/// A row of the table: the tool's name, its arguments' type (the schema, and what `run` parses),
/// whether it is paged, its handler and its description; then the old argument names it accepts.
macro_rules! tool {
    ($name:literal, $args:ty, $paged:expr, $handler:path, $description:literal) => {
        tool!($name, $args, $paged, $handler, $description, &[])
    };
    ($name:literal, $args:ty, $paged:expr, $handler:path, $description:literal, $aliases:expr) => {{
        fn run(q: Question<'_>, args: Map<String, Value>) -> Running<'_> {
            Box::pin(async move { $handler(q, parse::<$args>($name, args)?).await })
        }
        ToolSpec {
            name: $name,
            description: $description,
            paged: $paged,
            schema: schema::<$args>,
            aliases: $aliases,
            run,
        }
    }};
}

/// Every tool, in the order an investigation uses them (`record` only with `--allow-record`).
pub fn catalogue(allow_record: bool) -> Vec<ToolSpec> {
    let mut tools = vec![
        tool!("open", OpenArgs, true, open, "Open a profile, trace or heap snapshot (`path` under --root): a handle for the other tools, and the file's summary."),
        tool!("top", cpu::TopArgs, true, cpu::top, "Functions by `self` or `total` time (`by`), DevTools' Bottom-up table. = `jsprof top --json`."),
        tool!("tree", cpu::TreeArgs, true, cpu::tree, "The call tree (`bottom_up`: Bottom-up) along one path: `node`'s ancestors and subtree, `max_depth` deep (default: the roots, 2). = `jsprof tree --json`."),
        tool!("sandwich", cpu::SandwichArgs, true, cpu::sandwich, "Callers (default) or callees (`list`) of the function matching regex `function`. = `jsprof tree --sandwich RE --json`."),
        tool!("flame_chart", cpu::FlameChartArgs, true, cpu::flame_chart, "The flame chart's calls overlapping `range`, as drawn, to `max_depth`: start, end, self, total.", jsprof_document::query::FlameChartQuery::ALIASES),
        tool!("events", cpu::EventsArgs, true, cpu::events, "GetEvents over a thread's timeline: `mode`, `event` subtree, `types`, `max_depth`, `range`. = `jsprof events --json`.", jsprof_document::events::EventsQuery::ALIASES),
        tool!("cpu_diff", cpu::CpuDiffArgs, true, cpu::cpu_diff, "Per-function self and total change from `before` to `after` (`normalize`: to before's total). = `jsprof diff --json`."),
        tool!("heap_summary", heap::HeapSummaryArgs, true, heap::heap_summary, "Per class: count, shallow and retained size. = `jsprof heap summary --json`."),
        tool!("heap_contexts", heap::HeapStatisticsArgs, false, heap::heap_contexts, "Realms and the bytes each owns; an `id` is heap_summary's `context`."),
        tool!("heap_class", heap::HeapClassArgs, true, heap::heap_class, "The objects of one Summary class (`key` from heap_summary), largest retained first."),
        tool!("heap_object", heap::HeapObjectArgs, false, heap::heap_object, "One object by `id` (`@123`): sizes, distance, dominator, edge and retainer counts. = `jsprof heap node --json`."),
        tool!("heap_retainers", heap::HeapRetainersArgs, true, heap::heap_retainers, "Why object `id` is alive: its shortest retaining paths from the GC roots. = `jsprof heap retainers --json`."),
        tool!("heap_dominators", heap::HeapDominatorsArgs, true, heap::heap_dominators, "The objects `id` (default: the root) immediately dominates, largest first."),
        tool!("heap_statistics", heap::HeapStatisticsArgs, false, heap::heap_statistics, "DevTools' Statistics: V8 heap (code, strings, JS arrays, system), native. = `jsprof heap stats --json`."),
        tool!("heap_strings", heap::HeapStringsArgs, true, heap::heap_strings, "Strings held in several copies, most wasted first (cut at 500 characters)."),
        tool!("heap_advisors", heap::HeapAdvisorsArgs, true, heap::heap_advisors, "Memory the program could give back, largest saving first. = `jsprof heap advisors --json`."),
        tool!("heap_detached", heap::HeapDetachedArgs, true, heap::heap_detached, "Detached DOM trees still held, largest first."),
        tool!("heap_diff", heap::HeapDiffArgs, true, heap::heap_diff, "DevTools' Comparison from `base` to `target`: per class, new and deleted objects. = `jsprof heap diff --json`."),
        tool!("heap_leaks", heap::HeapLeaksArgs, true, heap::heap_leaks, "Leaks across three snapshot `handles` in time order, by class and path. 4 to 50 handles (or `series`): a verdict per group, growing, bounded or one-off. = `jsprof heap leaks --json`."),
        tool!("heap_process", heap::HeapProcessArgs, false, heap::heap_process, "A Node process's isolates (`handles`): JS heaps, buffers, RSS not explained. = `jsprof heap process --json`."),
        tool!("trace_insights", trace::TraceInsightsArgs, true, trace::trace_insights, "Web Vitals and DevTools' insights per navigation. `list`: navigations (default), layout_shifts, clusters, interactions, page_load_markers, long_tasks, related_events. = `jsprof insights --json`."),
        tool!("trace_network", trace::TraceArgs, true, trace::trace_network, "Network requests as DevTools' Network track: timing phases, priority, sizes, status, render-blocking, initiator. = `jsprof network --json`."),
        tool!("trace_timings", trace::TraceTimingsArgs, true, trace::trace_timings, "User timings; `list`: measures (default), marks, console_timings, console_timestamps. = `jsprof timings --json`."),
        tool!("page_runs", page_load::PageRunsArgs, true, page_load::page_runs, "A folder of page-load runs as distributions. = `jsprof insights DIR --json`."),
        tool!("page_diff", page_load::PageDiffArgs, true, page_load::page_diff, "Two folders of page-load runs compared. = `jsprof diff --base A/ --target B/ --json`."),
        tool!("source", SourceArgs, true, crate::source::source, "Where `function` is (source-mapped) and, for a local file under a --root, its lines with self and total time, `context` lines around."),
    ];
    if allow_record {
        tools.push(tool!("record", crate::record::RecordArgs, false, crate::record::record, "Record a CPU profile (and heap snapshot) of a Node command or a Chrome page into the record directory, and open it; or, with `url`, `runs` loads of a page as page_runs answers them. Only with --allow-record."));
    }
    tools
}

/// A tool's whole input schema: its arguments as derived, with their documentation, plus the
/// paging ones. Calls are checked against it; `tools/list` gives it with `--full-schemas`.
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

/// The input schema `tools/list` gives for a tool: [`schema::compact`] without the paging
/// arguments (the instructions name them once for every tool), or the whole one.
pub fn listed_schema(spec: &ToolSpec, full: bool) -> Map<String, Value> {
    if full {
        return input_schema(spec);
    }
    match schema::compact(&(spec.schema)()) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
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
            .find(|k| !known.contains_key(*k) && !spec.aliases.iter().any(|(old, _)| old == k))
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
    (spec.run)(q, args).await
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
    /// One page of `doc`'s whole list at `path`, with its text rendering (for the documents
    /// still read as JSON: the trace tools' and `source`'s).
    pub fn paged(
        &self,
        doc: Value,
        path: &[&str],
        title: &str,
        row: fn(&Value) -> String,
    ) -> ToolResult<Answer> {
        let list = List::whole(path, list_len(&doc, path));
        self.page(doc, list, title, &mut |_, v| row(v), "")
    }

    /// A page of a typed document's list `rows`, which the document holds at `path`: its JSON
    /// paged, the text read from the typed rows on the page.
    pub fn page_of<R>(
        &self,
        doc: &impl serde::Serialize,
        path: &[&str],
        rows: &[R],
        title: &str,
        row: fn(&R) -> String,
    ) -> ToolResult<Answer> {
        self.json_page_of(to_value(doc)?, path, rows, title, row)
    }

    /// [`Self::page_of`] for a document already turned into JSON (and cut: `one_list`).
    pub fn json_page_of<R>(
        &self,
        json: Value,
        path: &[&str],
        rows: &[R],
        title: &str,
        row: fn(&R) -> String,
    ) -> ToolResult<Answer> {
        self.window_of(json, List::whole(path, rows.len()), rows, title, row)
    }

    /// [`Self::page_of`] for a list built page by page: `rows` are its items from `list.first`
    /// on, out of `list.total`.
    pub fn window_of<R>(
        &self,
        json: Value,
        list: List,
        rows: &[R],
        title: &str,
        row: fn(&R) -> String,
    ) -> ToolResult<Answer> {
        self.page(json, list, title, &mut |i, _| row(&rows[i]), "")
    }

    /// The one way a page is cut: its JSON and its text (a line per row from `row`, then
    /// `epilogue`) within the call's budget together.
    fn page(
        &self,
        json: Value,
        list: List,
        title: &str,
        row: &mut dyn FnMut(usize, &Value) -> String,
        epilogue: &str,
    ) -> ToolResult<Answer> {
        let offset = self.offset()?;
        let text = page::Text {
            title,
            row,
            epilogue,
        };
        let page = page::paginate(
            json,
            list,
            self.page,
            offset,
            self.question,
            self.tool,
            text,
        )?;
        Ok(Answer {
            json: page.json,
            text: page.text,
        })
    }

    pub fn offset(&self) -> ToolResult<usize> {
        page::offset(self.page, self.question)
    }

    /// Items to compute for a window of a list that is built page by page.
    pub fn items(&self) -> usize {
        self.page.max_items.unwrap_or(crate::DEFAULT_ITEMS)
    }
}

fn to_value<T: serde::Serialize>(doc: &T) -> ToolResult<Value> {
    serde_json::to_value(doc).map_err(|e| ToolError::Internal(format!("serializing: {e}")))
}

#[derive(Deserialize, JsonSchema)]
pub struct OpenArgs {
    /// A file under one of the server's --root directories (relative paths are taken from the
    /// first root).
    pub path: String,
}

async fn open(q: Question<'_>, args: OpenArgs) -> ToolResult<Answer> {
    let entry = q.store.open(&args.path)?;
    let mut doc = json!({
        "handle": entry.handle,
        "path": entry.path.display().to_string(),
        "kind": entry.kind(),
        "size_bytes": entry.size,
    });
    let title = format!("{} is {} ({})", entry.handle, entry.name, entry.kind());
    let opened = if entry.is_heap() {
        opened_heap(&q, &entry).await?
    } else {
        opened_cpu(&q, &entry).await?
    };
    doc["next"] = opened.next.into();
    doc["summary"] = opened.summary;
    let path = ["summary", opened.list];
    let list = List::whole(&path, opened.len);
    let epilogue = format!("{}\nnext: {}", opened.top, opened.next);
    q.page(doc, list, &title, &mut |i, _| (opened.line)(i), &epilogue)
}

/// What `open` says of a file beside its handle: its summary (as JSON), the summary's list it
/// pages (`len` rows, one `line` each), the lines before what to ask `next`.
struct Opened {
    next: &'static str,
    summary: Value,
    list: &'static str,
    len: usize,
    line: Box<dyn Fn(usize) -> String + Send + Sync>,
    top: String,
}

/// A heap snapshot's classes (every one, so that the page states how many there are).
async fn opened_heap(q: &Question<'_>, entry: &Arc<crate::store::Entry>) -> ToolResult<Opened> {
    let heap = q.store.heap(entry).await?;
    let policy = q.store.source_maps();
    let summary = q
        .store
        .document(q.question.to_string(), move || {
            let report = jsprof_document::heap::summary_report(
                &heap.snapshot,
                &heap.analysis,
                SortBy::Retained,
                0,
            );
            Ok(heap::mapped_summary(&heap, report, &policy))
        })
        .await?;
    let next = "heap_summary for every class, heap_class for a class's objects, heap_retainers for why one is alive, heap_leaks across three snapshots";
    Ok(Opened {
        next,
        summary: to_value(&*summary)?,
        list: "classes",
        len: summary.classes.len(),
        line: Box::new(move |i| {
            let c = &summary.classes[i];
            let retained = size(c.retained_size);
            format!("{}: {} objects, retained {retained}", c.name, c.count)
        }),
        top: String::new(),
    })
}

/// A CPU profile's (or trace's) threads, and its top functions.
async fn opened_cpu(q: &Question<'_>, entry: &Arc<crate::store::Entry>) -> ToolResult<Opened> {
    let input = q.store.cpu(entry, &FilterSpec::default()).await?;
    let summary = q
        .store
        .document(q.question.to_string(), move || {
            Ok(jsprof_document::summary::summary(&input, None, 5)?.report)
        })
        .await?;
    let next = "top for the functions, tree to follow a call path, events or flame_chart for a time window, source for a function's code";
    let json = to_value(&*summary)?;
    let top: String = (summary.top_functions.iter())
        .map(|f| format!("\n  top: {} {}", name(&f.name), weights(&f.weights)))
        .collect();
    Ok(Opened {
        next,
        summary: json,
        list: "threads",
        len: summary.threads.len(),
        line: Box::new(move |i| {
            let t = &summary.threads[i];
            match t.tid {
                Some(tid) => format!("thread {} (tid {tid}): {} samples", t.name, t.samples),
                None => format!("thread {}: {} samples", t.name, t.samples),
            }
        }),
        top,
    })
}
