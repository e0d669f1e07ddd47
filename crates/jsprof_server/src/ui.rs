//! The browser UI: the page (`ui_page.rs`: the ES modules and CSS compiled into the binary and
//! carried in one HTML document, so that the token in the page's URL is the only credential a
//! request needs) and the `/api/ui/…` endpoints it draws from. Every answer is bounded: a
//! flame-chart window merges what is under a pixel, trees leave out what is under 0.01 %, heap
//! lists come a page at a time.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path as UrlPath, RawQuery, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::Router;
use jsprof_analysis::TimeRange;
use jsprof_document::load::{ViewSpec, Weighted};
use serde::Serialize;
use serde_json::json;

use crate::api::{load_artifact, refuse};
use crate::cache::{Loaded, View};
use crate::catalogue::ArtifactKind;
use crate::error::{ApiError, ApiResult};
use crate::ids;
use crate::params::{ArtifactRequest, NoParams, Params};
use crate::state::{artifact_name, AppState};
use jsprof_document::chart::{self, ChartWindow, TreeLimits};
use jsprof_document::filters::{self, FilterSpec};

type Shared = State<Arc<AppState>>;

/// The routes of the UI (the guard in `api.rs` covers them too).
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(index))
        .route("/api/ui/sessions/{id}/chart", get(chart))
        .route("/api/ui/sessions/{id}/summary", get(selection_summary))
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/profile",
            profile_route(&[], |_| Ok(()), profile),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/profile/children",
            profile_route(&CHILDREN_PARAMS, profile_children_asked, profile_children),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/sandwich",
            profile_route(&FUNCTION_PARAMS, function_param, sandwich),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/heap/leaks",
            get(heap_leaks),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/diff",
            get(cpu_diff),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/filmstrip",
            get(filmstrip),
        )
        .route(
            "/api/ui/sessions/{id}/artifacts/{artifact}/filmstrip/{index}",
            get(screenshot),
        )
        .merge(crate::ui_lines::routes())
        .merge(crate::ui_heap::routes())
        .merge(crate::heap_redact::routes())
        .merge(crate::heap_process::routes())
        .merge(crate::ui_page_load::routes())
}

async fn index(_state: Shared) -> Response {
    let html = crate::ui_page::page("jsprof", &json!({"mode": "server"}));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        html,
    )
        .into_response()
}

pub(crate) fn json_ok<T: Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            Body::from(bytes),
        )
            .into_response(),
        Err(e) => ApiError::internal(format!("cannot write JSON: {e}")).into_response(),
    }
}

/// `START..END` in ms (floats, either side may be empty).
fn window(p: &Params) -> ApiResult<(Option<f64>, Option<f64>)> {
    let Some(r) = p.get("range") else {
        return Ok((None, None));
    };
    let bad = || {
        ApiError::bad_request(format!(
            "bad range `{}`: expected START..END in ms",
            ids::printable(r)
        ))
    };
    let (a, b) = r.split_once("..").ok_or_else(bad)?;
    let side = |s: &str| -> ApiResult<Option<f64>> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        let v: f64 = s.parse().map_err(|_| bad())?;
        if !v.is_finite() || v.abs() > 1e12 {
            return Err(bad());
        }
        Ok(Some(v))
    };
    Ok((side(a)?, side(b)?))
}

async fn chart(
    State(state): Shared,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[
            &["timeline", "range", "width", "max_events"][..],
            &filters::PARAMS,
        ]
        .concat(),
    )?;
    let filters = p.filters()?;
    let (start_ms, end_ms) = window(&p)?;
    let width: f64 = p
        .number("width")?
        .unwrap_or(1200.0f64)
        .clamp(10.0, 20_000.0);
    let max_events = p
        .number::<usize>("max_events")?
        .unwrap_or(200_000)
        .min(1_000_000);
    let timeline_id: Option<u32> = p.number("timeline")?;
    let loaded = timelines(&state, &id, &filters).await?;
    let doc = crate::work::run(move || {
        let t = loaded.cpu()?;
        let spec = timeline_id.map(|i| i.to_string());
        let timeline = t.select(spec.as_deref())?;
        let (lo, hi) = chart::extent(t.profile(), timeline);
        let span = end_ms.unwrap_or(hi).min(hi) - start_ms.unwrap_or(lo).max(lo);
        let window = ChartWindow {
            start_ms,
            end_ms,
            // Under a pixel: merged.
            min_ms: span.max(0.0) / width,
            max_events,
        };
        Ok(json_ok(
            &chart::chart(t.profile(), t.timelines(), timeline, window).name_processes(t),
        ))
    })
    .await?;
    Ok(doc)
}

/// The session's timelines (its trace or profile artifact), read with `filters`.
async fn timelines(state: &AppState, id: &str, filters: &FilterSpec) -> ApiResult<Arc<Loaded>> {
    let (s, artifacts) = state.find(id)?;
    let a = s
        .timeline_artifact
        .and_then(|t| artifacts.iter().find(|a| a.artifact_id == t))
        .ok_or_else(|| ApiError::not_found(format!("session {} has no timelines", s.id)))?;
    state.load_filtered(&s, a, View::Cpu, filters).await
}

/// `…/summary?timeline=&range=A..B`: the Summary of a selection (`jsprof summary TRACE --range
/// A..B --json`): the thread's time in the range by DevTools' categories, Idle the rest.
async fn selection_summary(
    State(state): Shared,
    UrlPath(id): UrlPath<String>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    let p = Params::parse(q, &[&["timeline", "range"][..], &filters::PARAMS].concat())?;
    let filters = p.filters()?;
    // The CLI's `--range` parser: one `START..END` for every door.
    let range = match p.get("range") {
        Some(r) => jsprof_document::query::parse_range(r).map_err(ApiError::bad_request)?,
        None => TimeRange::default(),
    };
    let timeline_id: Option<u32> = p.number("timeline")?;
    let loaded = timelines(&state, &id, &filters).await?;
    crate::work::run(move || {
        let spec = timeline_id.map(|i| i.to_string());
        let doc =
            jsprof_document::selection_summary::document(loaded.cpu()?, spec.as_deref(), range)?;
        Ok(json_ok(&doc))
    })
    .await
}

/// `…/profile`: the weighted view's trees (top-down, bottom-up) within their budget.
fn profile(weighted: &Weighted, shown: Option<[f64; 2]>, _: ()) -> ApiResult<impl Serialize> {
    let doc = chart::profile_doc(
        &weighted.profile,
        weighted.thread,
        shown,
        TreeLimits::default(),
    );
    Ok(doc)
}

/// What `…/profile/children` is asked: the tree, the node and the function (for `callees`).
type ChildrenAsked = (Option<String>, u32, FunctionParam);

/// The children of a tree node the profile document left out for its budget
/// (`…/profile/children?tree=top_down|bottom_up&node=K`, with the profile's own parameters).
fn profile_children_asked(p: &Params) -> ApiResult<ChildrenAsked> {
    let tree = p.get("tree").map(str::to_string);
    let node: u32 = p
        .number("node")?
        .ok_or_else(|| ApiError::bad_request("node: missing (a node id from the tree's `k`)"))?;
    Ok((tree, node, function_param(p)?))
}

fn profile_children(
    weighted: &Weighted,
    _: Option<[f64; 2]>,
    (tree, node, function): ChildrenAsked,
) -> ApiResult<impl Serialize> {
    let kind = match tree.as_deref() {
        Some("top_down") => chart::TreeKind::TopDown,
        Some("bottom_up") => chart::TreeKind::BottomUp,
        Some("callees") => chart::TreeKind::Callees(find(weighted, &function)?),
        other => {
            return Err(ApiError::bad_request(format!(
                "tree: expected top_down, bottom_up or callees, got {other:?}"
            )))
        }
    };
    chart::subtree_doc(
        &weighted.profile,
        weighted.thread,
        kind,
        node,
        TreeLimits::default(),
    )
    .ok_or_else(|| ApiError::not_found(format!("node: the tree has no node {node}")))
}

/// The parameters naming a function, as the UI's tables show it.
const FUNCTION_PARAMS: [&str; 4] = ["name", "url", "line", "column"];

/// `…/profile/children`'s own parameters: the tree, the node and a function's.
const CHILDREN_PARAMS: [&str; 6] = ["tree", "node", "name", "url", "line", "column"];

/// A function named by `name`, `url`, `line`, `column` (1-based; absent or empty when the
/// function has none).
struct FunctionParam {
    name: String,
    url: String,
    line: Option<u32>,
    column: Option<u32>,
}

/// The function of `p` (a missing `name` or `url` is the empty one an anonymous function or a
/// native frame has).
fn function_param(p: &Params) -> ApiResult<FunctionParam> {
    let position = |k: &str| -> ApiResult<Option<u32>> {
        match p.get(k) {
            None | Some("") => Ok(None),
            Some(_) => p.number::<u32>(k),
        }
    };
    Ok(FunctionParam {
        name: p.get("name").unwrap_or("").to_string(),
        url: p.get("url").unwrap_or("").to_string(),
        line: position("line")?,
        column: position("column")?,
    })
}

/// The function's key on the weighted thread, or a 404 naming it.
fn find(weighted: &Weighted, f: &FunctionParam) -> ApiResult<jsprof_analysis::FunctionKey> {
    chart::find_function(
        &weighted.profile,
        weighted.thread,
        &f.name,
        &f.url,
        f.line,
        f.column,
    )
    .ok_or_else(|| {
        ApiError::not_found(format!(
            "no sampled function `{}` at `{}` {:?}:{:?} in this view",
            ids::printable(&f.name),
            ids::printable(&f.url),
            f.line,
            f.column
        ))
    })
}

/// Speedscope's sandwich of one function (`…/sandwich?name=&url=&line=&column=`, with the
/// profile's own parameters): its callers and its callees.
fn sandwich(
    weighted: &Weighted,
    shown: Option<[f64; 2]>,
    function: FunctionParam,
) -> ApiResult<impl Serialize> {
    let key = find(weighted, &function)?;
    let doc = chart::sandwich_doc(
        &weighted.profile,
        weighted.thread,
        key,
        shown,
        TreeLimits::default(),
    );
    Ok(doc)
}

/// A tree route of the UI (as `heap_route::heap_route` for the heap views): the profile's own
/// parameters (`timeline`, `range`, the filters) and `extra`, what `ask` reads of them, and
/// `answer`'s document of the weighted view and the range shown.
fn profile_route<A, D>(
    extra: &'static [&'static str],
    ask: fn(&Params) -> ApiResult<A>,
    answer: fn(&Weighted, Option<[f64; 2]>, A) -> ApiResult<D>,
) -> MethodRouter<Arc<AppState>>
where
    A: Send + 'static,
    D: Serialize + Send + 'static,
{
    get(
        move |ArtifactRequest(state, id, artifact, q): ArtifactRequest| async move {
            let known = [&["timeline", "range"][..], extra, &filters::PARAMS].concat();
            let p = Params::parse(q, &known)?;
            let asked = ask(&p)?;
            profile_answer(&state, &id, &artifact, &p, move |weighted, shown| {
                answer(weighted, shown, asked).map(|d| json_ok(&d))
            })
            .await
        },
    )
}

/// Loads a CPU artifact's weighted view for the UI's tree endpoints (timeline, range, filters
/// from `p`) and answers with `answer(view, the range shown)`.
async fn profile_answer<F>(
    state: &Arc<AppState>,
    id: &str,
    artifact: &str,
    p: &Params,
    answer: F,
) -> ApiResult<Response>
where
    F: FnOnce(&Weighted, Option<[f64; 2]>) -> ApiResult<Response> + Send + 'static,
{
    let filters = p.filters()?;
    let (start_ms, end_ms) = window(p)?;
    let timeline_id: Option<u32> = p.number("timeline")?;
    let cpu = (View::Cpu, &filters);
    let (loaded, _) = load_artifact(state, id, artifact, cpu, refuse::snapshot_for_tree).await?;
    crate::work::run(move || {
        let input = loaded.cpu()?;
        let ms_to_ns = |v: f64| (v * 1e6).round() as i64;
        let range = (start_ms.is_some() || end_ms.is_some()).then(|| TimeRange {
            start: start_ms.map(ms_to_ns),
            end: end_ms.map(ms_to_ns),
        });
        // The same weighted view as `jsprof top`/`tree` (a trace's entries, DevTools'
        // Performance panel), so the page's tables are the CLI's numbers.
        let weighted = input.weighted(&ViewSpec {
            thread: timeline_id.map(|i| i.to_string()),
            range,
            samples: false,
        })?;
        let shown = match range {
            None => None,
            Some(_) => {
                let timeline = input.select(timeline_id.map(|i| i.to_string()).as_deref())?;
                let (lo, hi) = chart::extent(input.profile(), timeline);
                Some([start_ms.unwrap_or(lo), end_ms.unwrap_or(hi)])
            }
        };
        answer(&weighted, shown)
    })
    .await
}

/// A heap snapshot artifact, loaded.
pub(crate) async fn snapshot(
    state: &AppState,
    id: &str,
    artifact: &str,
) -> ApiResult<(Arc<Loaded>, String)> {
    let default = FilterSpec::default();
    load_artifact(
        state,
        id,
        artifact,
        (View::Snapshot, &default),
        refuse::not_snapshot,
    )
    .await
}

/// `SESSION_ID/ARTIFACT_ID` of another snapshot.
pub(crate) fn other_snapshot(p: &Params, k: &str) -> ApiResult<(String, String)> {
    let v = p.get(k).ok_or_else(|| {
        ApiError::bad_request(format!("`{k}` is required: {k}=SESSION_ID/ARTIFACT_ID"))
    })?;
    let (s, a) = v.split_once('/').ok_or_else(|| {
        ApiError::bad_request(format!(
            "bad `{k}` `{}`: expected SESSION_ID/ARTIFACT_ID",
            ids::printable(v)
        ))
    })?;
    Ok((s.to_string(), a.to_string()))
}

/// The file and name of the heap snapshot `k=SESSION_ID/ARTIFACT_ID` names, for a comparison
/// that reads it again (it re-classifies it).
pub(crate) fn other_snapshot_file(
    state: &AppState,
    p: &Params,
    k: &str,
) -> ApiResult<(PathBuf, String)> {
    let (s, a) = other_snapshot(p, k)?;
    let (s, a) = crate::api::artifact(state, &s, &a)?;
    if a.kind != ArtifactKind::HeapSnapshot {
        return Err(ApiError::bad_request(format!(
            "the {k} {}/{} is a {}, not a heap snapshot",
            s.id, a.artifact_id, a.format
        )));
    }
    Ok((
        state.session_dir(&s.id).join(&a.file),
        artifact_name(&s, &a),
    ))
}

/// The artifacts a list parameter names: `k=SESSION_ID/ARTIFACT_ID,SESSION_ID/ARTIFACT_ID,…`
/// (a leak series, a page load's runs), in the order given; a missing or empty `k` is none.
pub(crate) fn artifact_list(p: &Params, k: &str) -> ApiResult<Vec<(String, String)>> {
    let Some(list) = p.get(k).filter(|v| !v.is_empty()) else {
        return Ok(Vec::new());
    };
    list.split(',')
        .map(|part| {
            let (s, a) = part.split_once('/').ok_or_else(|| {
                ApiError::bad_request(format!(
                    "bad `{k}` item `{}`: expected SESSION_ID/ARTIFACT_ID",
                    ids::printable(part)
                ))
            })?;
            Ok((s.to_string(), a.to_string()))
        })
        .collect()
}

/// `alpha`, a significance level (default 0.05), as a leak series and a page-load comparison
/// read it.
pub(crate) fn alpha_param(p: &Params) -> ApiResult<f64> {
    let alpha = p.number::<f64>("alpha")?.unwrap_or(0.05);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ApiError::bad_request(format!(
            "bad `alpha` {alpha}: expected a significance level between 0 and 1, e.g. 0.05"
        )));
    }
    Ok(alpha)
}

/// `heap_leaks` over a series: the earlier snapshots `series` names and this one, put in order
/// by their names as `jsprof heap leaks` does (no file times here), each read and grouped in
/// turn so that one graph at a time is worked on.
async fn heap_leak_series(
    state: &Arc<AppState>,
    id: &str,
    artifact: &str,
    p: &Params,
) -> ApiResult<Response> {
    use jsprof_document::leak_series::{
        series_order, LeakSeries, LeakSeriesOptions, MAX_SNAPSHOTS, MIN_SNAPSHOTS,
    };
    if p.get("base").is_some() || p.get("target").is_some() {
        return Err(ApiError::bad_request(
            "give `series` or `base` and `target`, not both",
        ));
    }
    let mut given = artifact_list(p, "series")?;
    given.push((id.to_string(), artifact.to_string()));
    if !(MIN_SNAPSHOTS..=MAX_SNAPSHOTS).contains(&given.len()) {
        return Err(ApiError::bad_request(format!(
            "a series takes {MIN_SNAPSHOTS} to {MAX_SNAPSHOTS} snapshots, this one included; got {}",
            given.len()
        )));
    }
    let options = LeakSeriesOptions {
        alpha: alpha_param(p)?,
        all: p.flag("all")?,
        min_retained: p.number("min_retained")?.unwrap_or(0),
        limit: p.number::<usize>("limit")?.unwrap_or(100).min(10_000),
    };
    // Every snapshot is checked before any is read.
    let mut names = Vec::new();
    for (s, a) in &given {
        let (session, row) = crate::api::artifact(state, s, a)?;
        if row.kind != ArtifactKind::HeapSnapshot {
            return Err(ApiError::bad_request(format!(
                "{s}/{a} is a {}, not a heap snapshot",
                row.format
            )));
        }
        names.push(artifact_name(&session, &row));
    }
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let order = series_order(&name_refs, &vec![None; names.len()]);
    let mut series = LeakSeries::new();
    for &i in &order.order {
        let (loaded, name) = snapshot(state, &given[i].0, &given[i].1).await?;
        series = crate::work::run(move || {
            let (s, a, _) = loaded.snapshot()?;
            series.add(&name, None, s, a);
            Ok(series)
        })
        .await?;
    }
    // Placed by the maps this snapshot's session allows, as its Summary is.
    let maps = session_maps(state, id, artifact)?;
    let report =
        crate::work::run(move || Ok(series.report(order.by, order.times_from, options, &maps)))
            .await?;
    Ok(json_ok(&report))
}

/// The source maps a session's artifacts get (`AppState::pipeline`), as its heap views use them.
fn session_maps(
    state: &AppState,
    id: &str,
    artifact: &str,
) -> ApiResult<jsprof_document::source_maps::SourceMaps> {
    let (session, _) = crate::api::artifact(state, id, artifact)?;
    Ok(state
        .pipeline(&session, &jsprof_document::filters::FilterSpec::default())
        .source_maps)
}

/// The leaks of this snapshot (FINAL) given BASE (before the action) and TARGET (after it), as
/// `jsprof heap leaks BASE TARGET FINAL --json`; with `series=S/A,S/A,…` (2 to 49 earlier
/// snapshots), the verdicts over the series that ends with this one, as `jsprof heap leaks S1 …
/// SN --series --json` (`alpha`, `all`, `min_retained`, `limit`).
async fn heap_leaks(
    ArtifactRequest(state, id, artifact, q): ArtifactRequest,
) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[
            "base",
            "target",
            "limit",
            "min_retained",
            "series",
            "alpha",
            "all",
        ],
    )?;
    if p.get("series").is_some() {
        return heap_leak_series(&state, &id, &artifact, &p).await;
    }
    if let Some(k) = ["alpha", "all"].into_iter().find(|k| p.get(k).is_some()) {
        return Err(ApiError::bad_request(format!(
            "`{k}` belongs to a series: give `series=SESSION_ID/ARTIFACT_ID,…`"
        )));
    }
    let options = jsprof_document::heap::LeaksOptions {
        limit: p.number::<usize>("limit")?.unwrap_or(100).min(10_000),
        min_retained: p.number("min_retained")?.unwrap_or(0),
    };
    let (bs, ba) = other_snapshot(&p, "base")?;
    let (ts, ta) = other_snapshot(&p, "target")?;
    let (last, last_name) = snapshot(&state, &id, &artifact).await?;
    let (base, base_name) = snapshot(&state, &bs, &ba).await?;
    let (target, target_name) = snapshot(&state, &ts, &ta).await?;
    let maps = session_maps(&state, &id, &artifact)?;
    crate::work::run(move || {
        let (
            Loaded::Snapshot {
                snapshot: l,
                analysis: la,
                ..
            },
            Loaded::Snapshot {
                snapshot: b,
                analysis: ba,
                ..
            },
            Loaded::Snapshot {
                snapshot: t,
                analysis: ta,
                ..
            },
        ) = (&*last, &*base, &*target)
        else {
            return Err(ApiError::internal("not a snapshot"));
        };
        use jsprof_document::heap::{leaks_order, Named};
        // Given as (base, target, this); used in the process's order (by object ids).
        let given = [
            (&base_name, &**b, &**ba),
            (&target_name, &**t, &**ta),
            (&last_name, &**l, &**la),
        ];
        let order = leaks_order([given[0].1, given[1].1, given[2].1]);
        let [base, target, last] = order.map(|i| given[i]);
        let mut report = jsprof_document::heap::leaks_report(
            Named {
                name: base.0,
                snapshot: base.1,
                analysis: (),
            },
            Named {
                name: target.0,
                snapshot: target.1,
                analysis: (),
            },
            Named {
                name: last.0,
                snapshot: last.1,
                analysis: last.2,
            },
            order,
            options,
        );
        // As `heap leaks` places the groups: by FINAL's scripts.
        let notes =
            jsprof_document::heap_source_maps::map_objects(&mut report, &last.2.scripts, &maps)?;
        report.warnings.extend(notes);
        Ok(json_ok(&report))
    })
    .await
}

/// `jsprof diff BEFORE AFTER --json` and `jsprof flamegraph --diff` in one answer: this artifact
/// is AFTER, `base=SESSION/ARTIFACT` is BEFORE; `key=name-url|function`, `normalize=1`.
async fn cpu_diff(ArtifactRequest(state, id, artifact, q): ArtifactRequest) -> ApiResult<Response> {
    let p = Params::parse(
        q,
        &[&["base", "key", "normalize"][..], &filters::PARAMS].concat(),
    )?;
    let filters = p.filters()?;
    let (bs, ba) = other_snapshot(&p, "base")?;
    let key = match p.get("key") {
        None | Some("name-url") => jsprof_analysis::DiffKey::NameUrl,
        Some("function") => jsprof_analysis::DiffKey::Function,
        Some(k) => {
            return Err(ApiError::bad_request(format!(
                "bad `key` `{}`: expected name-url or function",
                ids::printable(k)
            )))
        }
    };
    let normalize = matches!(p.get("normalize"), Some("1" | "true"));
    let cpu = (View::Cpu, &filters);
    let (after, after_name) = load_artifact(&state, &id, &artifact, cpu, refuse::not_cpu).await?;
    let (before, before_name) = load_artifact(&state, &bs, &ba, cpu, refuse::not_cpu).await?;
    let described = filters.describe();
    crate::work::run(move || {
        // Each side's default view, as `jsprof diff BEFORE AFTER` takes it.
        let (wb, wa) = (
            before.cpu()?.weighted(&ViewSpec::default())?,
            after.cpu()?.weighted(&ViewSpec::default())?,
        );
        let options = jsprof_analysis::DiffOptions { key, normalize };
        let mut compared = jsprof_document::diff::diff(
            &jsprof_document::diff::Side {
                name: &before_name,
                view: &wb,
            },
            &jsprof_document::diff::Side {
                name: &after_name,
                view: &wa,
            },
            options,
        )?;
        let mut svg = Vec::new();
        let fg = jsprof_render::FlameGraphOptions {
            title: "Differential flame graph".to_string(),
            subtitle: Some(format!(
                "{after_name} against {before_name}{}: red grew, blue shrank",
                described.map(|d| format!(" ({d})")).unwrap_or_default()
            )),
            ..Default::default()
        };
        jsprof_render::write_diff_flame_graph_svg(
            &mut svg,
            (&*wb.profile, wb.thread()),
            (&*wa.profile, wa.thread()),
            key,
            normalize,
            &fg,
        )
        .map_err(|e| ApiError::internal(e.to_string()))?;
        compared.report.svg = Some(String::from_utf8_lossy(&svg).into_owned());
        Ok(json_ok(&compared.report))
    })
    .await
}

/// A trace's screenshots in time order (`jsprof_document::filmstrip`): times only, so that the
/// page lists a long filmstrip without its images. Also the service's public
/// `…/artifacts/{a}/filmstrip` (`jsprof filmstrip --json`).
pub(crate) async fn filmstrip(
    ArtifactRequest(state, id, artifact, _): ArtifactRequest,
    _: NoParams,
) -> ApiResult<Response> {
    let cpu = (View::Cpu, &FilterSpec::default());
    let (loaded, _) = load_artifact(&state, &id, &artifact, cpu, refuse::not_cpu).await?;
    crate::work::run(move || {
        Ok(json_ok(&jsprof_document::filmstrip::filmstrip(
            loaded.cpu()?,
        )?))
    })
    .await
}

/// One screenshot's image, by its index in the filmstrip: fetched when the page draws or shows
/// it. Also the service's public `…/artifacts/{a}/filmstrip/{index}`.
pub(crate) async fn screenshot(
    State(state): Shared,
    UrlPath((id, artifact, index)): UrlPath<(String, String, String)>,
    _: NoParams,
) -> ApiResult<Response> {
    let index = ids::number("screenshot index", &index)? as usize;
    let cpu = (View::Cpu, &FilterSpec::default());
    let (loaded, _) = load_artifact(&state, &id, &artifact, cpu, refuse::not_cpu).await?;
    crate::work::run(move || {
        Ok(json_ok(&jsprof_document::filmstrip::screenshot(
            loaded.cpu()?,
            index,
        )?))
    })
    .await
}

impl crate::Server {
    /// Imports a local file as a session (for `jsprof view FILE…`): linked, not copied, and
    /// checked by loading it as `POST /api/sessions/import` would; `-` reads standard input
    /// through the upload path. Returns the session's JSON.
    pub async fn import_file(&self, path: &Path) -> Result<serde_json::Value, String> {
        if path.as_os_str() != "-" {
            return crate::upload::import_local(self.state.clone(), path)
                .await
                .map_err(|e| e.message);
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|e| format!("stdin: {e}"))?;
        let req = Request::new(Body::from(bytes));
        crate::upload::import(self.state.clone(), Some("stdin".to_string()), req)
            .await
            .map_err(|e| e.message)
    }
}
