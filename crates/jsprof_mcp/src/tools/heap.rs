//! The heap tools: a snapshot's Summary, classes, objects, retainers, dominators, statistics,
//! duplicate strings, advisors, detached DOM, Comparison and leaks (`jsprof heap … --json`).

use std::sync::Arc;

use jsprof_document::heap_query::{HeapContext, HeapSort, ObjectId, RetainersOptions};
use jsprof_heap::SortBy;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::text::{bytes, object_head, object_row, size};
use super::{to_value, Answer, Question};
use crate::error::{ToolError, ToolResult};
use crate::paging::List;
use crate::store::Heap;

#[derive(Deserialize, JsonSchema)]
pub struct HeapSummaryArgs {
    pub handle: String,
    /// Order of the rows (largest first): `retained` (default), `self` or `count`.
    #[serde(default)]
    pub sort: HeapSort,
    /// Only one JavaScript context's objects: a native context's id as `jsprof heap contexts`
    /// lists it (`"@6045"`; an id that is not one is refused with the list), `"shared"`
    /// (reached from several contexts) or `"none"`.
    #[serde(default)]
    pub context: Option<HeapContext>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapClassArgs {
    pub handle: String,
    /// The class's `key` from heap_summary.
    pub key: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapObjectArgs {
    pub handle: String,
    pub id: ObjectId,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapRetainersArgs {
    pub handle: String,
    pub id: ObjectId,
    #[serde(flatten)]
    pub options: RetainersOptions,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapDominatorsArgs {
    pub handle: String,
    /// The object whose dominated children to list (default: the root).
    #[serde(default)]
    pub id: Option<ObjectId>,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapStatisticsArgs {
    pub handle: String,
}

pub type HeapStringsArgs = HeapStatisticsArgs;
pub type HeapDetachedArgs = HeapStatisticsArgs;

#[derive(Deserialize, JsonSchema)]
pub struct HeapAdvisorsArgs {
    pub handle: String,
    /// Leave out findings that would save fewer bytes (default 1,024).
    #[serde(default = "default_min_saving")]
    pub min_saving: u64,
}

fn default_min_saving() -> u64 {
    1024
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapDiffArgs {
    /// The earlier snapshot's handle.
    pub base: String,
    pub target: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct HeapLeaksArgs {
    /// Three snapshot handles in time order: before the action, after it, later; or a series of
    /// 4 to 50 (in the order taken), which gets a verdict per group (growing, bounded, one-off).
    pub handles: Vec<String>,
    /// Hide groups retaining fewer bytes in the last snapshot (a series: at their largest).
    #[serde(default)]
    pub min_retained: u64,
    /// Treat three handles as a series too.
    #[serde(default)]
    pub series: bool,
    /// A series: list every group with its verdict, not only the growing ones.
    #[serde(default)]
    pub all: bool,
    /// A series: the trend test's significance level (default 0.05).
    pub alpha: Option<f64>,
}

/// Arguments of `heap_process`.
#[derive(Deserialize, JsonSchema)]
pub struct HeapProcessArgs {
    /// Snapshot handles of one Node process: its main thread's and its workers' (`record
    /// --heap-snapshot` names them `STEM` and `STEM-workerN`), any order.
    pub handles: Vec<String>,
}

/// The most snapshots `heap_process` reads.
const MAX_PROCESS_SNAPSHOTS: usize = 50;

/// `jsprof heap process SNAPSHOT… --json`: each isolate's latest snapshot (grouped by their file
/// names, as the CLI groups them), with the `STEM.memory.json` beside it when the server's roots
/// hold one, reconciled with the process's RSS.
pub(super) async fn heap_process(q: Question<'_>, args: HeapProcessArgs) -> ToolResult<Answer> {
    use jsprof_document::process_memory::{
        isolates, memory_file_name, no_memory_file, report, MemoryUsageFile, ReadIsolate,
    };
    if args.handles.is_empty() || args.handles.len() > MAX_PROCESS_SNAPSHOTS {
        return Err(ToolError::BadRequest(format!(
            "heap_process takes 1 to {MAX_PROCESS_SNAPSHOTS} snapshot handles; got {}",
            args.handles.len()
        )));
    }
    let mut files = Vec::new();
    for h in &args.handles {
        let entry = q.store.get(h)?;
        let name = entry
            .path
            .file_name()
            .map_or_else(|| entry.name.clone(), |n| n.to_string_lossy().to_string());
        files.push((name, entry));
    }
    let mut warnings = Vec::new();
    let mut read = Vec::new();
    for isolate in isolates(files) {
        let (entry, name) = isolate.latest();
        let path = entry.path.with_file_name(memory_file_name(name));
        let memory = if path.is_file() {
            let text =
                jsprof_document::local_file::read_bounded(&path, 1 << 20, &q.store.config.roots)
                    .map_err(ToolError::BadRequest)?;
            Some(
                MemoryUsageFile::parse(&memory_file_name(name), &text)
                    .map_err(ToolError::BadRequest)?,
            )
        } else {
            warnings.push(no_memory_file(name));
            None
        };
        let heap = q.store.heap(entry).await?;
        read.push(ReadIsolate::new(
            &isolate.key,
            name,
            isolate.files.len(),
            &heap.snapshot,
            &heap.analysis,
            memory.as_ref(),
            5,
        ));
    }
    let doc = report(read, warnings);
    let text = doc
        .processes
        .iter()
        .map(|p| {
            let isolates: Vec<String> = p
                .isolates
                .iter()
                .map(|i| {
                    format!(
                        "{} JS heap {}, buffers {}",
                        i.isolate,
                        size(i.js_heap),
                        size(i.external_buffers)
                    )
                })
                .collect();
            match (p.rss, p.unexplained) {
                (Some(rss), Some(rest)) => format!(
                    "{}: RSS {}, not explained by any isolate {}{}; {}",
                    p.process,
                    size(rss),
                    if rest < 0 { "-" } else { "" },
                    size(rest.unsigned_abs()),
                    isolates.join("; ")
                ),
                _ => format!("{}: {}", p.process, isolates.join("; ")),
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Answer {
        json: to_value(&doc)?,
        text,
    })
}

pub(super) async fn heap_of(q: &Question<'_>, handle: &str) -> ToolResult<Arc<Heap>> {
    let entry = q.store.get(handle)?;
    q.store.heap(&entry).await
}

/// The document `make` builds from the snapshot `handle` names, built off the async threads once
/// per question and kept for its next pages.
async fn heap_document<T: Send + Sync + 'static>(
    q: &Question<'_>,
    handle: &str,
    make: impl FnOnce(&Heap) -> ToolResult<T> + Send + 'static,
) -> ToolResult<Arc<T>> {
    let heap = heap_of(q, handle).await?;
    q.store
        .document(q.question.to_string(), move || make(&heap))
        .await
}

/// Where a document's list is: its JSON path, the rows, and the page's title.
type ListOf<'a, D, R> = (&'a [&'a str], fn(&D) -> &[R], &'a str);

/// A heap tool that pages one list of its document: `make`'s document of the snapshot `handle`
/// names (built once per question and kept, as [`heap_document`]), the list at `path` that
/// `rows` picks from it, one `row` line per item under `title`.
async fn heap_list<D, R>(
    q: Question<'_>,
    handle: &str,
    make: impl FnOnce(&Heap) -> ToolResult<D> + Send + 'static,
    (path, rows, title): ListOf<'_, D, R>,
    row: fn(&R) -> String,
) -> ToolResult<Answer>
where
    D: serde::Serialize + Send + Sync + 'static,
{
    let doc = heap_document(&q, handle, make).await?;
    q.page_of(&*doc, path, rows(&doc), title, row)
}

pub(super) async fn heap_summary(q: Question<'_>, args: HeapSummaryArgs) -> ToolResult<Answer> {
    use jsprof_document::heap::SummaryReport;
    let sort: SortBy = args.sort.into();
    let context = args.context;
    let policy = q.store.source_maps();
    let make = move |heap: &Heap| {
        let (s, a) = (&heap.snapshot, &heap.analysis);
        let report = match context {
            None => jsprof_document::heap::summary_report(s, a, sort, 0),
            Some(context) => jsprof_document::heap_contexts::summary_report_in_context(
                (&heap.name, s, a),
                heap.native_contexts(),
                (sort, 0),
                context,
            )?,
        };
        Ok(mapped_summary(heap, report, &policy))
    };
    let rows: fn(&SummaryReport) -> &[_] = |d| &d.classes;
    let list = (&["classes"][..], rows, "classes");
    heap_list(q, &args.handle, make, list, class_line).await
}

/// The Summary with its classes' original names, as `heap summary` maps them: a map that cannot
/// be read is a warning (this server has no `--sourcemap` to get wrong).
pub(super) fn mapped_summary(
    heap: &Heap,
    mut report: jsprof_document::heap::SummaryReport,
    policy: &jsprof_document::source_maps::SourceMaps,
) -> jsprof_document::heap::SummaryReport {
    let mapped =
        jsprof_document::heap_source_maps::map_summary(&mut report, &heap.analysis.scripts, policy);
    if let Err(e) = mapped {
        report.warnings.push(jsprof_document::JsonWarning {
            at: String::new(),
            message: e.to_string(),
        });
    }
    report
}

/// The originals of the objects `doc` lists, as `heap class` maps them, and the maps' notes (a
/// map that cannot be read among them).
fn map_objects(
    heap: &Heap,
    doc: &mut impl jsprof_document::heap_source_maps::ListsObjects,
    policy: &jsprof_document::source_maps::SourceMaps,
) -> Vec<jsprof_document::JsonWarning> {
    jsprof_document::heap_source_maps::map_objects(doc, &heap.analysis.scripts, policy)
        .unwrap_or_else(|e| {
            vec![jsprof_document::JsonWarning {
                at: String::new(),
                message: e.to_string(),
            }]
        })
}

fn class_line(c: &jsprof_document::heap::ClassJson) -> String {
    let mut line = format!(
        "{} (key {}): {} objects, self {}, retained {}",
        c.name,
        // Quoted, as JSON writes it.
        serde_json::Value::from(c.key.as_str()),
        c.count,
        size(c.self_size),
        size(c.retained_size)
    );
    // The source map's original, when a map placed the class.
    line.push_str(&super::text::in_source(&c.original));
    line
}

pub(super) async fn heap_class(q: Question<'_>, args: HeapClassArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let key = args.key.clone();
    let policy = q.store.source_maps();
    let page = crate::store::blocking(move || {
        let members = heap.class(&key).ok_or_else(|| {
            ToolError::NotFound(format!(
                "{}: no class with key `{}` (keys are in heap_summary's answer)",
                heap.name,
                key.escape_debug()
            ))
        })?;
        let mut page = jsprof_document::heap_pages::page(
            &heap.snapshot,
            &heap.analysis,
            &members,
            offset,
            items,
        );
        // A page has no warnings: heap_summary says what became of the maps.
        map_objects(&heap, &mut page, &policy);
        Ok(page)
    })
    .await?;
    let json = to_value(&page)?;
    let list = List {
        path: &["objects"],
        first: offset,
        total: page.total,
    };
    q.window_of(json, list, &page.objects, "objects", object_row)
}

pub(super) async fn heap_object(q: Question<'_>, args: HeapObjectArgs) -> ToolResult<Answer> {
    let id = args.id.0;
    let heap = heap_of(&q, &args.handle).await?;
    let policy = q.store.source_maps();
    let report = crate::store::blocking(move || {
        let mut report =
            jsprof_document::heap::nodes_report(&heap.name, &heap.snapshot, &heap.analysis, &[id])?;
        let notes = map_objects(&heap, &mut report, &policy);
        report.warnings.extend(notes);
        Ok(report)
    })
    .await?;
    let json = to_value(&report)?;
    let Some(n) = report.nodes.first() else {
        return Err(ToolError::Internal(format!(
            "no object @{id} in the answer"
        )));
    };
    let mut text = format!(
        "{}, dominated by @{}, {} edges, {} retainers",
        object_head(
            n.id,
            &n.name,
            &n.node_type,
            n.self_size,
            n.retained_size,
            n.distance
        ),
        n.dominator_id,
        n.edge_count,
        n.retainer_count
    );
    // Where its function is, and the source map's original, as heap_class's rows say them.
    if let Some(at) = &n.location {
        text.push_str(&format!(", at {at}"));
    }
    text.push_str(&super::text::in_source(&n.original));
    Ok(Answer { json, text })
}

pub(super) async fn heap_retainers(q: Question<'_>, args: HeapRetainersArgs) -> ToolResult<Answer> {
    let id = args.id.0;
    let options = args.options;
    if options.paths > q.store.config.max_items {
        return Err(ToolError::TooLarge(format!(
            "paths {} is over this server's cap of {}",
            options.paths, q.store.config.max_items
        )));
    }
    let policy = q.store.source_maps();
    let doc = heap_document(&q, &args.handle, move |heap| {
        let node = jsprof_document::heap::ordinal_of(&heap.name, &heap.snapshot, id)?;
        let mut report = jsprof_document::heap::retainers_report_with(
            &heap.snapshot,
            &heap.analysis,
            heap.retainers(),
            node,
            options,
        );
        let notes = map_objects(heap, &mut report, &policy);
        report.warnings.extend(notes);
        Ok(report)
    })
    .await?;
    let mut answer = q.page_of(&*doc, &["paths"], &doc.paths, "retaining paths", |p| {
        let steps: Vec<String> = p
            .steps
            .iter()
            .map(|s| format!("{} in {} @{}", s.edge, s.retainer.name, s.retainer.id))
            .collect();
        if steps.is_empty() {
            // As the CLI says it: the object is held straight from the roots.
            "0 steps".to_string()
        } else {
            steps.join(" ← ")
        }
    })?;
    answer.text = format!("{}\n{}", object_row(&doc.object), answer.text);
    Ok(answer)
}

pub(super) async fn heap_dominators(
    q: Question<'_>,
    args: HeapDominatorsArgs,
) -> ToolResult<Answer> {
    let id = args.id.map(|id| id.0);
    let heap = heap_of(&q, &args.handle).await?;
    let offset = q.offset()?;
    let items = q.items();
    let policy = q.store.source_maps();
    let (page, object) = crate::store::blocking(move || {
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
        let object = jsprof_document::heap::object_json(&heap.snapshot, &heap.analysis, node);
        let mut both = (page, object);
        map_objects(&heap, &mut both, &policy);
        Ok(both)
    })
    .await?;
    let mut json = to_value(&page)?;
    json["object"] = to_value(&object)?;
    let list = List {
        path: &["objects"],
        first: offset,
        total: page.total,
    };
    let title = "immediately dominated objects";
    q.window_of(json, list, &page.objects, title, object_row)
}

pub(super) async fn heap_statistics(
    q: Question<'_>,
    args: HeapStatisticsArgs,
) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let st = jsprof_document::heap::statistics_json(&heap.analysis.statistics);
    let node_count = heap.snapshot.node_count();
    let json = json!({
        "kind": heap.snapshot.kind(),
        "warnings": jsprof_document::heap::warnings(&heap.snapshot),
        "node_count": node_count,
        "total_size": heap.analysis.total_size,
        "statistics": &st,
    });
    let b = |v: u64| size(v);
    let text = format!(
        "{node_count} objects, total {}: V8 heap {} (code {}, strings {}, JS arrays {}, system {}), native {} (typed arrays {})",
        b(st.total),
        bytes(Some(st.v8heap.total as f64)),
        b(st.v8heap.code),
        b(st.v8heap.strings),
        b(st.v8heap.js_arrays),
        b(st.v8heap.system),
        b(st.native.total),
        b(st.native.typed_arrays)
    );
    Ok(Answer { json, text })
}

/// `jsprof heap contexts --json`: the snapshot's JavaScript contexts (DevTools' native-context
/// attribution) with the bytes each owns, and the shared and unattributed totals.
pub(super) async fn heap_contexts(q: Question<'_>, args: HeapStatisticsArgs) -> ToolResult<Answer> {
    let heap = heap_of(&q, &args.handle).await?;
    let doc = crate::store::blocking(move || {
        Ok(jsprof_document::heap_contexts::contexts_report(
            &heap.snapshot,
            &heap.analysis,
            heap.native_contexts(),
        ))
    })
    .await?;
    let mut lines: Vec<String> = doc
        .contexts
        .iter()
        .map(|c| format!("@{} {}: owns {}", c.id, c.name, size(c.attributed_size)))
        .collect();
    lines.push(format!(
        "shared between contexts {}, in none {}",
        size(doc.shared_size),
        size(doc.unattributed_size)
    ));
    Ok(Answer {
        json: to_value(&doc)?,
        text: lines.join("\n"),
    })
}

/// Longest string value put in an answer: one 10 MB string must not fill the page.
pub(super) const STRING_SHOWN: usize = 500;

pub(super) async fn heap_strings(q: Question<'_>, args: HeapStringsArgs) -> ToolResult<Answer> {
    use jsprof_document::heap_strings::{strings_report_shown, StringsReport};
    // `jsprof heap strings --json`'s document, every value cut at STRING_SHOWN.
    let make = |heap: &Heap| {
        Ok(strings_report_shown(
            &heap.snapshot,
            &heap.analysis,
            0,
            STRING_SHOWN,
        ))
    };
    let rows: fn(&StringsReport) -> &[_] = |d| &d.strings;
    let list = (&["strings"][..], rows, "duplicate strings");
    heap_list(q, &args.handle, make, list, |g| {
        let value: String = g.value.chars().take(60).collect();
        let wasted = size(g.wasted_size);
        format!("{value:?} ×{}: wasted {wasted} (@{})", g.count, g.sample_id)
    })
    .await
}

/// `jsprof heap advisors --limit 0 --json`'s document: every finding, largest saving first.
/// The findings are kept per question; only a page's retaining paths are looked up (one search
/// each: all 4,936 findings' took 15 s on the 440 MB bench snapshot, for a page of 20).
pub(super) async fn heap_advisors(q: Question<'_>, args: HeapAdvisorsArgs) -> ToolResult<Answer> {
    use jsprof_document::heap_advisors::{advisors_window, findings, script_sources};
    let min_saving = args.min_saving;
    let found = heap_document(&q, &args.handle, move |heap| {
        // The scripts the snapshot names, where they are local files: the CLI's rule.
        let mut sources = script_sources(jsprof_document::lines::LocalFiles {
            allowed: |p: &std::path::Path| Ok(p.to_path_buf()),
        });
        Ok(findings(
            &heap.snapshot,
            &heap.analysis,
            heap.retainers(),
            min_saving,
            &mut sources,
        ))
    })
    .await?;
    let heap = heap_of(&q, &args.handle).await?;
    let total = found.len();
    let first = q.offset()?.min(total);
    let end = first.saturating_add(q.items()).min(total);
    let doc = crate::store::blocking(move || {
        Ok(advisors_window(
            &heap.snapshot,
            &heap.analysis,
            heap.retainers(),
            &found,
            first..end,
        ))
    })
    .await?;
    let list = List {
        path: &["advice"],
        first,
        total,
    };
    q.window_of(to_value(&doc)?, list, &doc.advice, "findings", advice_line)
}

fn advice_line(f: &jsprof_document::heap_advisors::AdviceJson) -> String {
    format!(
        "{} {} held by {} ×{}: saves {} (@{})",
        f.advisor,
        f.value
            .as_deref()
            .map(|v| format!("{:?}", v.chars().take(60).collect::<String>()))
            .unwrap_or_else(|| f.class.clone()),
        f.held_by,
        f.count,
        size(f.saving),
        f.sample_id
    )
}

pub(super) async fn heap_detached(q: Question<'_>, args: HeapDetachedArgs) -> ToolResult<Answer> {
    let make = |heap: &Heap| {
        let s = &heap.snapshot;
        let trees =
            jsprof_document::heap_pages::detached(s, &heap.analysis, heap.dominators(), usize::MAX);
        Ok(DetachedReport {
            kind: s.kind(),
            warnings: jsprof_document::heap::warnings(s),
            trees,
        })
    };
    let rows: fn(&DetachedReport) -> &[_] = |d| &d.trees;
    let list = (&["trees"][..], rows, "detached DOM trees");
    heap_list(q, &args.handle, make, list, |t| {
        let retained = size(t.retained_size);
        format!(
            "{} nodes, retained {retained}: {}",
            t.node_count,
            object_row(&t.root)
        )
    })
    .await
}

/// `heap_detached`'s document: the snapshot's detached DOM trees.
#[derive(serde::Serialize)]
struct DetachedReport {
    kind: &'static str,
    warnings: Vec<jsprof_document::JsonWarning>,
    trees: Vec<jsprof_document::heap_pages::DetachedJson>,
}

pub(super) async fn heap_diff(q: Question<'_>, args: HeapDiffArgs) -> ToolResult<Answer> {
    let base = q.store.get(&args.base)?;
    // Checked and loaded like the target, so a wrong handle fails before a long read.
    q.store.heap(&base).await?;
    let target = heap_of(&q, &args.target).await?;
    // The base's own copy is read from the file `open` checked, found again.
    let base_file = q.store.reopen(&base)?;
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            // The comparison re-classifies its base, so it gets a copy of its own.
            let (mut snapshot, mut analysis) = crate::store::read_snapshot(&base_file, &base.name)?;
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
            Ok(report)
        })
        .await?;
    q.page_of(
        &*doc,
        &["classes"],
        &doc.classes,
        "classes that changed",
        |c| {
            format!(
                "{}: {:+} objects (+{} −{}), size {:+}",
                c.name, c.count_delta, c.new_count, c.deleted_count, c.size_delta
            )
        },
    )
}

pub(super) async fn heap_leaks(q: Question<'_>, args: HeapLeaksArgs) -> ToolResult<Answer> {
    if args.handles.len() < 3 {
        return Err(ToolError::BadRequest(format!(
            "heap_leaks needs three or more snapshot handles in time order (before, after, later); got {}",
            args.handles.len()
        )));
    }
    if args.series || args.handles.len() > 3 {
        return heap_leak_series(q, args).await;
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
    let policy = q.store.source_maps();
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
            let mut report = jsprof_document::heap::leaks_report(
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
            );
            // As `heap leaks` places the groups: by FINAL's scripts.
            let notes = map_objects(last, &mut report, &policy);
            report.warnings.extend(notes);
            Ok(report)
        })
        .await?;
    q.page_of(&*doc, &["groups"], &doc.groups, "leak groups", |g| {
        format!(
            "{} ×{} retaining {} via {} (sample @{})",
            g.class,
            g.count,
            size(g.retained_size),
            jsprof_document::leak_series::path_text(&g.path),
            g.sample_id
        )
    })
}

/// `heap_leaks` over a series: the handles in the order given (they name no files to order by),
/// each snapshot added in turn, as `jsprof heap leaks S1 … SN` does.
async fn heap_leak_series(q: Question<'_>, args: HeapLeaksArgs) -> ToolResult<Answer> {
    use jsprof_document::leak_series::{LeakSeries, LeakSeriesOptions, MAX_SNAPSHOTS};
    if args.handles.len() > MAX_SNAPSHOTS {
        return Err(ToolError::BadRequest(format!(
            "heap_leaks takes at most {MAX_SNAPSHOTS} snapshots in a series; got {}",
            args.handles.len()
        )));
    }
    let alpha = args.alpha.unwrap_or(0.05);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ToolError::BadRequest(format!(
            "alpha {alpha}: expected a significance level between 0 and 1, e.g. 0.05"
        )));
    }
    let mut heaps = Vec::new();
    for h in &args.handles {
        heaps.push(heap_of(&q, h).await?);
    }
    let options = LeakSeriesOptions {
        alpha,
        all: args.all,
        min_retained: args.min_retained,
        limit: 0,
    };
    let policy = q.store.source_maps();
    let doc = q
        .store
        .document(q.question.to_string(), move || {
            let mut series = LeakSeries::new();
            for h in &heaps {
                series.add(&h.name, None, &h.snapshot, &h.analysis);
            }
            Ok(series.report("given", None, options, &policy))
        })
        .await?;
    q.page_of(&*doc, &["groups"], &doc.groups, "leak groups", |g| {
        format!(
            "{} {}: count {:?}, retained {} in the last, {:+.0} B/snapshot (p = {}) via {} (sample @{} in snapshot {})",
            g.verdict,
            g.class,
            g.count,
            size(g.retained_size.last().copied().unwrap_or(0)),
            g.retained_trend.per_snapshot,
            jsprof_document::leak_series::p_text(
                g.retained_trend.p_value.min(g.count_trend.p_value)
            ),
            jsprof_document::leak_series::path_text(&g.path),
            g.sample_id,
            g.sample_snapshot
        )
    })
}
