//! The UI's heap views you walk one object at a time: an object's outgoing edges (the
//! Containment view, from the snapshot's root down) or its direct retainers (the Retainers
//! tree, each retainer expanding to its own), a page at a time in DevTools' order; the objects
//! an object dominates; detached DOM trees; a class's objects; duplicated strings; memory the
//! program could give back (advisors); a `.heaptimeline`'s allocation stacks; the objects behind
//! a Comparison row. Each answers with the document the CLI's `jsprof heap
//! edges|class|strings|advisors|allocations --json` or `jsprof heap diff --class KEY --json`
//! prints. Most are a row of [`routes`]' table over [`heap_route`].

use std::sync::Arc;

use axum::response::Response;
use axum::routing::get;
use axum::Router;
use jsprof_document::heap::BetweenJson;
use jsprof_document::heap_advisors::{advisors_report, script_sources};
use jsprof_document::heap_class::{ObjectOrder, ObjectsQuery};
use jsprof_document::heap_edges::{edges_report, EdgeDirection};
use jsprof_document::heap_query::HeapContext;
use jsprof_document::heap_strings::strings_report;
use serde_json::json;

use crate::cache::Loaded;
use crate::error::{ApiError, ApiResult};
use crate::heap_route::{heap_route, node_param, page_window, required_key, Heap, Snapshot, Write};
use crate::ids;
use crate::params::{ArtifactRequest, Params};
use crate::state::AppState;
use crate::ui::{other_snapshot, other_snapshot_file, snapshot};
use jsprof_document::JsonWarning;

const BASE: &str = "/api/ui/sessions/{id}/artifacts/{artifact}/heap";

/// A route's path without a node, and with one.
type Artifact = (String, String);
type Node = (String, String, String);

/// The routes, merged into `ui::routes()`: the heap views, each the parameters it reads and the
/// document it makes of the snapshot.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route(
            &format!("{BASE}/edges/{{node}}"),
            heap_route::<Node, _, _>(Write::Page, edges_asked, edges),
        )
        .route(
            &format!("{BASE}/class"),
            heap_route::<Artifact, _, _>(Write::Page, class_asked, class),
        )
        .route(
            &format!("{BASE}/dominated/{{node}}"),
            heap_route::<Node, _, _>(Write::Page, dominated_asked, dominated),
        )
        .route(
            &format!("{BASE}/detached"),
            heap_route::<Artifact, _, _>(Write::Page, detached_asked, detached),
        )
        .route(
            &format!("{BASE}/strings"),
            heap_route::<Artifact, _, _>(Write::Page, strings_asked, |h, limit| {
                Ok(strings_report(h.snapshot, h.analysis, limit))
            }),
        )
        .route(&format!("{BASE}/advisors"), get(advisors))
        .route(
            &format!("{BASE}/allocations"),
            heap_route::<Artifact, _, _>(Write::Page, allocations_asked, allocations),
        )
        .route(
            &format!("{BASE}/diff/class"),
            heap_route::<Artifact, _, _>(Write::Page, diff_class_asked, diff_class),
        )
        .route(&format!("{BASE}/summary/between"), get(summary_between))
        .route(&format!("{BASE}/class/between"), get(class_between))
}

/// `…/heap/edges/{id|root}?retainers=1&offset=&limit=`: `jsprof heap edges FILE ID
/// [--retainers] --offset --limit --json`.
fn edges_asked(
    _: &AppState,
    q: Option<String>,
    node: &str,
) -> ApiResult<(EdgeDirection, usize, usize, Option<u32>)> {
    let p = Params::parse(q, &["retainers", "offset", "limit"])?;
    let direction = match p.get("retainers") {
        None | Some("0" | "false") => EdgeDirection::Containment,
        Some("1" | "true") => EdgeDirection::Retainers,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "bad `retainers` `{}`: expected 1 or 0",
                ids::printable(other)
            )))
        }
    };
    let (offset, limit) = page_window(&p)?;
    Ok((direction, offset, limit, node_param(node)?))
}

fn edges(
    heap: Heap<'_>,
    (direction, offset, limit, node): (EdgeDirection, usize, usize, Option<u32>),
) -> ApiResult<jsprof_document::heap_edges::EdgesReport> {
    let n = heap.ordinal(node)?;
    // The reverse graph is built once per snapshot, and only when retainers are asked for.
    let index =
        (direction == EdgeDirection::Retainers).then(|| heap.derived.retainers(heap.snapshot));
    let mut report = edges_report(
        heap.snapshot,
        heap.analysis,
        index,
        direction,
        n,
        offset,
        limit,
    );
    let notes = heap.map_objects(&mut report)?;
    report.warnings.extend(notes);
    Ok(report)
}

/// What `…/heap/class` is asked: the row's key, the page, and the JavaScript context.
type ClassAsked = (String, ObjectsQuery, Option<HeapContext>);

/// `…/heap/class?key=&sort=&ascending=&offset=&limit=&context=`: a page of one Summary class's
/// objects, `jsprof heap class FILE KEY --sort --ascending --offset --limit --json`; with
/// `context` (as `…/heap/summary?context=`), only that context's objects: a row of `heap
/// summary --context` expanded.
fn class_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<ClassAsked> {
    let p = Params::parse(q, &[&["key", "context"][..], &OBJECTS_PARAMS].concat())?;
    let key = required_key(&p, "a Summary row's key")?;
    let context = p
        .get("context")
        .map(HeapContext::parse)
        .transpose()
        .map_err(ApiError::bad_request)?;
    Ok((key, objects_query(&p)?, context))
}

fn class(
    heap: Heap<'_>,
    (key, q, context): ClassAsked,
) -> ApiResult<jsprof_document::heap_class::ClassObjectsReport> {
    let Some(context) = context else {
        return heap.class_objects(&key, q, None);
    };
    let contexts = heap.derived.native_contexts(heap.snapshot);
    let (filter, _) = jsprof_document::heap_contexts::context_filter(
        heap.name,
        heap.snapshot,
        contexts,
        context,
    )?;
    heap.class_objects(&key, q, Some(&|n| contexts.keeps(filter, n)))
}

/// `…/heap/dominated/{id|root}?offset=&limit=`: a page of the objects a node dominates.
fn dominated_asked(
    _: &AppState,
    q: Option<String>,
    node: &str,
) -> ApiResult<(usize, usize, String)> {
    let p = Params::parse(q, &["offset", "limit"])?;
    let (offset, limit) = page_window(&p)?;
    Ok((offset, limit, node.to_string()))
}

fn dominated(
    heap: Heap<'_>,
    (offset, limit, node): (usize, usize, String),
) -> ApiResult<jsprof_document::heap_pages::ObjectsPage> {
    // The node is read once the snapshot is loaded (a missing artifact is said first).
    let n = heap.ordinal(node_param(&node)?)?;
    let tree = heap.derived.dominators(heap.snapshot, heap.analysis);
    let mut page = jsprof_document::heap_pages::dominated_page(
        heap.snapshot,
        heap.analysis,
        tree,
        n,
        offset,
        limit,
    );
    // A page has no warnings: the Summary says what became of the maps.
    heap.map_objects(&mut page)?;
    Ok(page)
}

/// `…/heap/detached?limit=`: the detached DOM trees (200, at most 10,000).
fn detached_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<usize> {
    let p = Params::parse(q, &["limit"])?;
    Ok(p.number::<usize>("limit")?.unwrap_or(200).min(10_000))
}

fn detached(heap: Heap<'_>, limit: usize) -> ApiResult<serde_json::Value> {
    let tree = heap.derived.dominators(heap.snapshot, heap.analysis);
    Ok(json!({
        "trees": jsprof_document::heap_pages::detached(heap.snapshot, heap.analysis, tree, limit)
    }))
}

/// `…/heap/strings?limit=`: `jsprof heap strings FILE --limit N --json`.
fn strings_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<usize> {
    let p = Params::parse(q, &["limit"])?;
    Ok(p.number::<usize>("limit")?.unwrap_or(200).min(100_000))
}

/// `…/heap/advisors?limit=&min_saving=`: `jsprof heap advisors FILE --limit N --min-saving B
/// --json` (the same defaults: 20 findings, 1,024 bytes).
fn advisors_asked(q: Option<String>) -> ApiResult<(u64, usize)> {
    let p = Params::parse(q, &["limit", "min_saving"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(20);
    Ok((p.number::<u64>("min_saving")?.unwrap_or(1024), limit))
}

/// `…/heap/advisors?limit=&min_saving=`: `jsprof heap advisors FILE --json`. The scripts the
/// snapshot names are read as the source panel reads them (`ui_lines::PanelFiles`), for the
/// unread-context advisor.
async fn advisors(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
    axum::extract::Path((id, artifact)): axum::extract::Path<Artifact>,
    axum::extract::RawQuery(q): axum::extract::RawQuery,
) -> ApiResult<Response> {
    let (min_saving, limit) = advisors_asked(q)?;
    let files = crate::ui_lines::PanelFiles::of_artifact(&state, &id, &artifact)?;
    Snapshot::open(&state, &id, &artifact)
        .await?
        .write(Write::Page, move |h| {
            let index = h.derived.retainers(h.snapshot);
            Ok(advisors_report(
                h.snapshot,
                h.analysis,
                index,
                min_saving,
                limit,
                &mut script_sources(files),
            ))
        })
        .await
}

/// `…/heap/allocations?bottom_up=1`: `jsprof heap allocations FILE [--bottom-up] --json`; 400
/// saying how to record one when the snapshot has no allocation traces.
fn allocations_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<bool> {
    let p = Params::parse(q, &["bottom_up"])?;
    Ok(matches!(p.get("bottom_up"), Some("1" | "true")))
}

fn allocations(
    heap: Heap<'_>,
    bottom_up: bool,
) -> ApiResult<jsprof_document::heap_allocations::AllocationsReport> {
    use jsprof_document::heap_allocations::{allocations_report, no_allocations_message};
    let mut report = allocations_report(heap.snapshot, bottom_up)
        .ok_or_else(|| ApiError::bad_request(no_allocations_message(heap.name)))?;
    jsprof_document::heap_source_maps::map_allocations(
        &mut report,
        heap.snapshot,
        &heap.analysis.scripts,
        heap.source_maps,
    )?;
    Ok(report)
}

/// What `…/heap/diff/class` is asked: the row's key, the page and the base snapshot's file.
type DiffClassAsked = (String, usize, usize, (std::path::PathBuf, String));

/// `…/heap/diff/class?base=S/A&key=K&offset=&limit=`: the new and deleted objects of one
/// Comparison row (this artifact against BASE, as `…/heap/diff`), `jsprof heap diff BASE THIS
/// --class K --json`. The base is read again for it, re-classified as the Comparison does.
fn diff_class_asked(state: &AppState, q: Option<String>, _: &str) -> ApiResult<DiffClassAsked> {
    let p = Params::parse(q, &["base", "key", "offset", "limit"])?;
    let key = required_key(&p, "a Comparison row's key")?;
    let (offset, limit) = page_window(&p)?;
    Ok((key, offset, limit, other_snapshot_file(state, &p, "base")?))
}

fn diff_class(
    heap: Heap<'_>,
    (key, offset, limit, base): DiffClassAsked,
) -> ApiResult<jsprof_document::heap_changes::ClassChangesReport> {
    Ok(heap.against(&base, |base, this| {
        jsprof_document::heap_changes::class_changes_report(base, this, &key, offset, limit)
    })??)
}

/// `…/heap/summary/between?first=S/A&second=S/A&limit=`: this snapshot's Summary over the objects
/// allocated between FIRST and SECOND (DevTools' Summary filter), `jsprof heap summary THIS
/// --between FIRST SECOND --json`.
async fn summary_between(
    ArtifactRequest(state, id, artifact, q): ArtifactRequest,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["first", "second", "limit"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(0);
    let window = Window::parse(&p)?;
    let this = Snapshot::open(&state, &id, &artifact).await?;
    let window = window.load(&state).await?;
    this.write(Write::Page, move |heap| {
        let (between, swapped) = between(&window)?;
        let mut report = jsprof_document::heap::summary_report_between(
            heap.snapshot,
            heap.analysis,
            jsprof_heap::SortBy::Retained,
            limit,
            between,
        );
        // As `heap summary --between` maps it: the maps' warnings before the swap's.
        jsprof_document::heap_source_maps::map_summary(
            &mut report,
            &heap.analysis.scripts,
            heap.source_maps,
        )?;
        report.warnings.extend(swapped);
        Ok(report)
    })
    .await
}

/// `…/heap/class/between?key=&first=S/A&second=S/A&offset=&limit=`: a page of one class's
/// objects allocated between FIRST and SECOND (a row of the filtered Summary, expanded), in the
/// order `…/heap/class` lists the whole class (`sort`, `ascending`).
async fn class_between(
    ArtifactRequest(state, id, artifact, q): ArtifactRequest,
) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[&["key", "first", "second"][..], &OBJECTS_PARAMS].concat(),
    )?;
    let key = required_key(&p, "a Summary row's key")?;
    let q = objects_query(&p)?;
    let window = Window::parse(&p)?;
    let this = Snapshot::open(&state, &id, &artifact).await?;
    let window = window.load(&state).await?;
    this.write(Write::Page, move |heap| {
        let ids = between(&window)?.0.ids();
        let between = |n| ids.contains(&heap.snapshot.nodes.id(n));
        heap.class_objects(&key, q, Some(&between))
    })
    .await
}

impl Heap<'_> {
    /// A page of the objects of the Summary class `key` (those `keep` keeps, when given), in
    /// `q`'s order (`jsprof heap class`), or a 404 naming the key.
    pub fn class_objects(
        &self,
        key: &str,
        q: ObjectsQuery,
        keep: Option<&dyn Fn(jsprof_heap::NodeOrdinal) -> bool>,
    ) -> ApiResult<jsprof_document::heap_class::ClassObjectsReport> {
        let (s, a) = (self.snapshot, self.analysis);
        let members = self
            .derived
            .class(s, a, key, q.order)
            .ok_or_else(|| no_class(self.name, key))?;
        let class_name = a.class_name(s, members[0]);
        let kept: Vec<jsprof_heap::NodeOrdinal>;
        let shown: &[jsprof_heap::NodeOrdinal] = match keep {
            None => &members,
            Some(keep) => {
                kept = members.iter().copied().filter(|&n| keep(n)).collect();
                &kept
            }
        };
        let mut report =
            jsprof_document::heap_class::class_objects_report(s, a, (key, &class_name), shown, q);
        let notes = self.map_objects(&mut report)?;
        report.warnings.extend(notes);
        Ok(report)
    }
}

/// The parameters of [`objects_query`].
pub(crate) const OBJECTS_PARAMS: [&str; 4] = ["sort", "ascending", "offset", "limit"];

/// The page of a class's objects asked for: `sort=retained|self|distance|id` (default
/// retained), `ascending=1`, `offset`, `limit` (100, at most 10,000), as `jsprof heap class`.
pub(crate) fn objects_query(p: &Params) -> ApiResult<ObjectsQuery> {
    let order = match p.get("sort") {
        None => ObjectOrder::default(),
        Some(text) => ObjectOrder::parse(text).ok_or_else(|| {
            ApiError::bad_request(format!(
                "bad `sort` `{}`: expected retained, self, distance or id",
                ids::printable(text)
            ))
        })?,
    };
    let ascending = p.flag("ascending")?;
    let (offset, limit) = page_window(p)?;
    Ok(ObjectsQuery {
        order,
        ascending,
        offset,
        limit,
    })
}

/// The two snapshots of a `…/between` page, `first=` and `second=` (each `SESSION_ID/ARTIFACT_ID`):
/// parsed with the other parameters, loaded after the page's own snapshot.
struct Window<T> {
    first: T,
    second: T,
}

impl Window<(String, String)> {
    fn parse(p: &Params) -> ApiResult<Self> {
        Ok(Window {
            first: other_snapshot(p, "first")?,
            second: other_snapshot(p, "second")?,
        })
    }

    async fn load(self, state: &AppState) -> ApiResult<Window<(Arc<Loaded>, String)>> {
        let first = snapshot(state, &self.first.0, &self.first.1).await?;
        let second = snapshot(state, &self.second.0, &self.second.1).await?;
        Ok(Window { first, second })
    }
}

/// The objects allocated between the window's two snapshots, and the warning when they were
/// given newest first.
fn between(w: &Window<(Arc<Loaded>, String)>) -> ApiResult<(BetweenJson, Option<JsonWarning>)> {
    let ((first, first_name), (second, second_name)) = (&w.first, &w.second);
    Ok(BetweenJson::of(
        (first_name, jsprof_heap::max_node_id(first.snapshot()?.0)),
        (second_name, jsprof_heap::max_node_id(second.snapshot()?.0)),
    ))
}

pub(crate) fn no_class(name: &str, key: &str) -> ApiError {
    ApiError::not_found(format!(
        "{name}: no class with key `{}`",
        ids::printable(key)
    ))
}
