//! The UI's heap views you walk one object at a time: an object's outgoing edges (the
//! Containment view, from the snapshot's root down) or its direct retainers (the Retainers
//! tree, each retainer expanding to its own), a page at a time in DevTools' order; duplicated
//! strings; memory the program could give back (advisors); a `.heaptimeline`'s allocation
//! stacks; the objects behind a Comparison row. Each answers with the document the CLI's `jsprof
//! heap edges|strings|advisors|allocations --json` or `jsprof heap diff --class KEY --json` prints.

use std::sync::Arc;

use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use jsprof_document::heap::BetweenJson;
use jsprof_document::heap_class::{ObjectOrder, ObjectsQuery};
use jsprof_document::heap_edges::{edges_report, EdgeDirection};

use crate::cache::Loaded;
use crate::error::{ApiError, ApiResult};
use crate::ids;
use crate::params::Params;
use crate::state::AppState;
use crate::ui::{json_ok, other_snapshot, other_snapshot_file, snapshot};
use jsprof_document::JsonWarning;

type Shared = State<Arc<AppState>>;

const BASE: &str = "/api/ui/sessions/{id}/artifacts/{artifact}/heap";

/// The routes, merged into `ui::routes()`.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route(&format!("{BASE}/edges/{{node}}"), get(edges))
        .route(&format!("{BASE}/strings"), get(strings))
        .route(&format!("{BASE}/advisors"), get(advisors))
        .route(&format!("{BASE}/allocations"), get(allocations))
        .route(&format!("{BASE}/diff/class"), get(diff_class))
        .route(&format!("{BASE}/summary/between"), get(summary_between))
        .route(&format!("{BASE}/class/between"), get(class_between))
}

/// `…/heap/edges/{id|root}?retainers=1&offset=&limit=`: `jsprof heap edges FILE ID
/// [--retainers] --offset --limit --json`.
async fn edges(
    State(state): Shared,
    UrlPath((id, artifact, node)): UrlPath<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
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
    let offset = p.number::<usize>("offset")?.unwrap_or(0);
    let limit = p.number::<usize>("limit")?.unwrap_or(100).min(10_000);
    let root = node == "root";
    let node_id = if root { 0 } else { crate::api::node_id(&node)? };
    let (loaded, name) = snapshot(&state, &id, &artifact).await?;
    crate::work::run(move || {
        let (s, a, derived) = loaded.snapshot()?;
        let n = if root {
            s.root
        } else {
            jsprof_document::heap::ordinal_of(&name, s, node_id)?
        };
        // The reverse graph is built once per snapshot, and only when retainers are asked for.
        let index = (direction == EdgeDirection::Retainers).then(|| derived.retainers(s));
        Ok(json_ok(&edges_report(
            s, a, index, direction, n, offset, limit,
        )))
    })
    .await
}

/// `…/heap/strings?limit=`: `jsprof heap strings FILE --limit N --json`.
async fn strings(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["limit"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(200).min(100_000);
    let (loaded, _) = snapshot(&state, &id, &artifact).await?;
    crate::work::run(move || {
        let (s, a, _) = loaded.snapshot()?;
        Ok(json_ok(&jsprof_document::heap_strings::strings_report(
            s, a, limit,
        )))
    })
    .await
}

/// `…/heap/advisors?limit=&min_saving=`: `jsprof heap advisors FILE --limit N --min-saving B
/// --json` (the same defaults: 20 findings, 1,024 bytes).
async fn advisors(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["limit", "min_saving"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(20);
    let min_saving = p.number::<u64>("min_saving")?.unwrap_or(1024);
    let (loaded, _) = snapshot(&state, &id, &artifact).await?;
    crate::work::run(move || {
        let (s, a, _) = loaded.snapshot()?;
        Ok(json_ok(&jsprof_document::heap_advisors::advisors_report(
            s, a, min_saving, limit,
        )))
    })
    .await
}

/// `…/heap/allocations?bottom_up=1`: `jsprof heap allocations FILE [--bottom-up] --json`; 400
/// saying how to record one when the snapshot has no allocation traces.
async fn allocations(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["bottom_up"])?;
    let bottom_up = matches!(p.get("bottom_up"), Some("1" | "true"));
    let (loaded, name) = snapshot(&state, &id, &artifact).await?;
    crate::work::run(move || {
        let (s, _, _) = loaded.snapshot()?;
        let report = jsprof_document::heap_allocations::allocations_report(s, bottom_up)
            .ok_or_else(|| {
                ApiError::bad_request(jsprof_document::heap_allocations::no_allocations_message(
                    &name,
                ))
            })?;
        Ok(json_ok(&report))
    })
    .await
}

/// `…/heap/diff/class?base=S/A&key=K&offset=&limit=`: the new and deleted objects of one
/// Comparison row (this artifact against BASE, as `…/heap/diff`), `jsprof heap diff BASE THIS
/// --class K --json`. The base is read again for it, re-classified as the Comparison does.
async fn diff_class(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["base", "key", "offset", "limit"])?;
    let key = required_key(&p, "a Comparison row's key")?;
    let offset = p.number::<usize>("offset")?.unwrap_or(0);
    let limit = p.number::<usize>("limit")?.unwrap_or(100).min(10_000);
    let (base_path, base_name) = other_snapshot_file(&state, &p, "base")?;
    let (loaded, name) = snapshot(&state, &id, &artifact).await?;
    crate::work::run(move || {
        let (s, a, _) = loaded.snapshot()?;
        let (mut base, mut base_analysis) = crate::cache::load_snapshot(&base_path, &base_name)?;
        use jsprof_document::heap::Named;
        let report = jsprof_document::heap_changes::class_changes_report(
            Named {
                name: &base_name,
                snapshot: &mut base,
                analysis: &mut base_analysis,
            },
            Named {
                name: &name,
                snapshot: s,
                analysis: a,
            },
            &key,
            offset,
            limit,
        )?;
        Ok(json_ok(&report))
    })
    .await
}

/// `…/heap/summary/between?first=S/A&second=S/A&limit=`: this snapshot's Summary over the objects
/// allocated between FIRST and SECOND (DevTools' Summary filter), `jsprof heap summary THIS
/// --between FIRST SECOND --json`.
async fn summary_between(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &["first", "second", "limit"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(0);
    let window = Window::parse(&p)?;
    let (loaded, _) = snapshot(&state, &id, &artifact).await?;
    let window = window.load(&state).await?;
    crate::work::run(move || {
        let (s, a, _) = loaded.snapshot()?;
        let (between, swapped) = between(&window)?;
        let mut report = jsprof_document::heap::summary_report_between(
            s,
            a,
            jsprof_heap::SortBy::Retained,
            limit,
            between,
        );
        report.warnings.extend(swapped);
        Ok(json_ok(&report))
    })
    .await
}

/// `…/heap/class/between?key=&first=S/A&second=S/A&offset=&limit=`: a page of one class's
/// objects allocated between FIRST and SECOND (a row of the filtered Summary, expanded), in the
/// order `…/heap/class` lists the whole class (`sort`, `ascending`).
async fn class_between(
    State(state): Shared,
    UrlPath((id, artifact)): UrlPath<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[
            "key",
            "first",
            "second",
            "sort",
            "ascending",
            "offset",
            "limit",
        ],
    )?;
    let key = required_key(&p, "a Summary row's key")?;
    let q = objects_query(&p)?;
    let window = Window::parse(&p)?;
    let (loaded, name) = snapshot(&state, &id, &artifact).await?;
    let window = window.load(&state).await?;
    crate::work::run(move || {
        let (s, a, derived) = loaded.snapshot()?;
        let ids = between(&window)?.0.ids();
        let members = derived
            .class(s, a, &key, q.order)
            .ok_or_else(|| no_class(&name, &key))?;
        let class_name = a.class_name(s, members[0]);
        let kept: Vec<jsprof_heap::NodeOrdinal> = members
            .iter()
            .copied()
            .filter(|&n| ids.contains(&s.nodes.id(n)))
            .collect();
        Ok(json_ok(&jsprof_document::heap_class::class_objects_report(
            s,
            a,
            (&key, &class_name),
            &kept,
            q,
        )))
    })
    .await
}

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
    Ok(ObjectsQuery {
        order,
        ascending: p.flag("ascending")?,
        offset: p.number::<usize>("offset")?.unwrap_or(0),
        limit: p.number::<usize>("limit")?.unwrap_or(100).min(10_000),
    })
}

/// The `key` these pages require; `what` says whose key it is.
fn required_key(p: &Params, what: &str) -> ApiResult<String> {
    p.get("key")
        .map(str::to_string)
        .ok_or_else(|| ApiError::bad_request(format!("`key` is required: {what}")))
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
