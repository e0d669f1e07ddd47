//! The routes under `/api` and their handlers.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, RawQuery, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use serde::Serialize;
use serde_json::{json, Value};

use crate::cache::{Loaded, View};
use crate::catalogue::{ArtifactRow, SessionRow, State as SessionState};
use crate::error::{ApiError, ApiResult};
use crate::heap_route::{heap_route, Heap, Write};
use crate::ids;
use crate::params::{ArtifactRequest, NoParams, Params};
use crate::recording::{self, StartRequest};
use crate::state::{artifact_name, session_json, AppState};
use jsprof_document::events::EventsQuery;
use jsprof_document::filters::FilterSpec;
use jsprof_document::heap_query::{HeapDiffQuery, HeapSummaryQuery, RetainersOptions};
use jsprof_document::load::CpuInput;
use jsprof_document::query::{NoQuery, Query, SummaryQuery};
use jsprof_document::{page, summary, threads, top, tree};

type Shared = State<Arc<AppState>>;

/// Every route, behind the security checks.
pub fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/openapi.json", get(openapi))
        .route("/api/sessions", get(list).post(start).delete(release_all))
        .route(
            "/api/sessions/import",
            post(import).layer(DefaultBodyLimit::disable()),
        )
        .route("/api/sessions/{id}", get(show).delete(release))
        .route("/api/sessions/{id}/stop", post(stop))
        .route(
            "/api/sessions/{id}/timelines/{timeline}/events",
            get(events),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/summary",
            cpu_document(|input, q: &SummaryQuery| {
                Ok(summary::summary(input, q.thread.as_deref(), q.limit)?.report)
            }),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/threads",
            cpu_document(|input, _: &NoQuery| Ok(threads::threads_report(input))),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/insights",
            cpu_document(|input, _: &NoQuery| page::insights_report(input)),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/network",
            cpu_document(|input, _: &NoQuery| page::network_report(input)),
        )
        // `jsprof filmstrip --json`, and one image at a time (the UI's own endpoints).
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/filmstrip",
            get(crate::ui::filmstrip),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/filmstrip/{index}",
            get(crate::ui::screenshot),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/timings",
            cpu_document(|input, _: &NoQuery| page::timings_report(input)),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/top",
            cpu_document(top::answer),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/tree",
            cpu_document(tree::answer),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/heap/summary",
            heap_route::<(String, String), _, _>(Write::Document, heap_summary_asked, heap_summary),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/heap/contexts",
            heap_route::<(String, String), _, _>(
                Write::Document,
                heap_contexts_asked,
                heap_contexts,
            ),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/heap/node/{node}",
            heap_route::<(String, String, String), _, _>(
                Write::Document,
                heap_node_asked,
                heap_node,
            ),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/heap/retainers/{node}",
            heap_route::<(String, String, String), _, _>(
                Write::Document,
                heap_retainers_asked,
                heap_retainers,
            ),
        )
        .route(
            "/api/sessions/{id}/artifacts/{artifact}/heap/diff",
            heap_route::<(String, String), _, _>(Write::Document, heap_diff_asked, heap_diff),
        )
        .merge(crate::ui::routes())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(64 * 1024));
    // MCP's streamable HTTP transport (jsprof_mcp), behind the same checks as every route.
    let api = match &state.config.mcp {
        Some(config) => api.nest_service("/mcp", jsprof_mcp::http_service(config.clone())),
        None => api,
    };
    api.layer(axum::middleware::from_fn_with_state(
        state.clone(),
        crate::security::guard,
    ))
    .with_state(state)
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!(
        "no such endpoint: {} {} (see /api/openapi.json)",
        req.method(),
        ids::printable(req.uri().path())
    ))
}

async fn openapi(State(state): Shared) -> Response {
    json_response(StatusCode::OK, &crate::openapi::document(&state))
}

/// A JSON body exactly as the CLI prints it: one object and a newline.
fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(mut bytes) => {
            bytes.push(b'\n');
            (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response()
        }
        Err(e) => ApiError::internal(format!("cannot write JSON: {e}")).into_response(),
    }
}

/// Serializes on a blocking thread (large event lists take a while).
pub(crate) async fn json_blocking<T: Serialize + Send + 'static>(value: T) -> Response {
    match crate::work::spawn(move || json_response(StatusCode::OK, &value)).await {
        Ok(r) => r,
        Err(e) => ApiError::internal(format!("cannot write JSON: {e}")).into_response(),
    }
}

async fn list(State(state): Shared, _: NoParams) -> ApiResult<Response> {
    let sessions = state.catalogue.sessions()?;
    let list: Vec<Value> = sessions.iter().map(|(s, a)| session_json(s, a)).collect();
    Ok(json_response(StatusCode::OK, &json!({"sessions": list})))
}

async fn start(State(state): Shared, RawQuery(q): RawQuery, body: Bytes) -> ApiResult<Response> {
    Params::parse(q, &[])?;
    let req: StartRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad request body: {e}")))?;
    let value = recording::start(state, req).await?;
    let location = format!(
        "/api/sessions/{}",
        value["session_id"].as_str().unwrap_or("")
    );
    let mut response = json_response(StatusCode::CREATED, &value);
    if let Ok(v) = location.parse() {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}

async fn show(State(state): Shared, Path(id): Path<String>, _: NoParams) -> ApiResult<Response> {
    let (s, a) = state.find(&id)?;
    Ok(json_response(StatusCode::OK, &session_json(&s, &a)))
}

async fn stop(State(state): Shared, Path(id): Path<String>, _: NoParams) -> ApiResult<Response> {
    let value = recording::stop(state, &id).await?;
    Ok(json_response(StatusCode::OK, &value))
}

fn remove_session(state: &AppState, id: &str) -> ApiResult<()> {
    state.catalogue.delete_session(id)?;
    state.cache.forget_session(id);
    let dir = state.session_dir(id);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

async fn release(State(state): Shared, Path(id): Path<String>, _: NoParams) -> ApiResult<Response> {
    let id = ids::session_id(&id)?.to_string();
    if state.active().contains_key(&id) {
        return Err(ApiError::state(format!(
            "session {id} is recording; stop it before releasing it"
        )));
    }
    let (s, _) = state.find(&id)?;
    if s.state == SessionState::Recording {
        return Err(ApiError::state(format!("session {id} is recording")));
    }
    remove_session(&state, &id)?;
    eprintln!("jsprof serve: session {id} released");
    Ok(json_response(StatusCode::OK, &json!({"released": [id]})))
}

async fn release_all(State(state): Shared, _: NoParams) -> ApiResult<Response> {
    let mut released = Vec::new();
    for (s, _) in state.catalogue.sessions()? {
        if s.state == SessionState::Recording || state.active().contains_key(&s.id) {
            continue;
        }
        remove_session(&state, &s.id)?;
        released.push(s.id);
    }
    eprintln!("jsprof serve: {} sessions released", released.len());
    Ok(json_response(
        StatusCode::OK,
        &json!({"released": released}),
    ))
}

async fn import(State(state): Shared, RawQuery(q): RawQuery, req: Request) -> ApiResult<Response> {
    let params = Params::parse(q, &["name"])?;
    let name = params.get("name").map(str::to_string);
    let value = crate::upload::import(state, name, req).await?;
    Ok(json_response(StatusCode::CREATED, &value))
}

/// A session's artifact by id, or 404.
pub(crate) fn artifact(
    state: &AppState,
    id: &str,
    artifact: &str,
) -> ApiResult<(SessionRow, ArtifactRow)> {
    let artifact_id = ids::number("artifact id", artifact)?;
    let (s, artifacts) = state.find(id)?;
    let a = artifacts
        .into_iter()
        .find(|a| a.artifact_id == artifact_id)
        .ok_or_else(|| {
            ApiError::not_found(format!("session {} has no artifact {artifact_id}", s.id))
        })?;
    Ok((s, a))
}

async fn events(
    State(state): Shared,
    Path((id, timeline)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult<Response> {
    // The path names the thread: every parameter of the query but `thread`.
    let known: Vec<String> = Params::known::<EventsQuery>()
        .into_iter()
        .filter(|k| k != "thread")
        .collect();
    let params = Params::parse(q, &known.iter().map(String::as_str).collect::<Vec<_>>())?;
    let filters = params.filters()?;
    let query = params.query::<EventsQuery>()?.event_query();
    let timeline_id = ids::number("timeline id", &timeline)?;
    let (s, artifacts) = state.find(&id)?;
    let Some(a) = s
        .timeline_artifact
        .and_then(|t| artifacts.iter().find(|a| a.artifact_id == t))
    else {
        return Err(ApiError::not_found(format!(
            "session {} has no timelines{}",
            s.id,
            if s.state == SessionState::Recording {
                " yet: stop it first"
            } else {
                ""
            }
        )));
    };
    let loaded = state.load_filtered(&s, a, View::Cpu, &filters).await?;
    let report = crate::work::run(move || {
        let t = loaded.cpu()?;
        let timeline = t
            .timelines()
            .iter()
            .find(|t| t.id == timeline_id)
            .ok_or_else(|| {
                ApiError::not_found(format!("no timeline {timeline_id} in this session"))
            })?;
        // Written as it is made (`events::stream`): no `EventJson` kept per row.
        let answer = jsprof_document::events::answer(t, timeline, &query)?;
        let report = jsprof_document::events::stream(t, timeline, &query, &answer);
        let mut bytes = serde_json::to_vec(&report)
            .map_err(|e| ApiError::internal(format!("cannot write JSON: {e}")))?;
        bytes.push(b'\n');
        Ok(bytes)
    })
    .await?;
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(report),
    )
        .into_response())
}

/// A session's artifact loaded as `view` with `filters`, and its name; `refuse` says why an
/// artifact of the wrong kind is not loaded (400).
pub(crate) async fn load_artifact(
    state: &AppState,
    id: &str,
    artifact_text: &str,
    (view, filters): (View, &FilterSpec),
    refuse: fn(&ArtifactRow) -> Option<String>,
) -> ApiResult<(Arc<Loaded>, String)> {
    let (s, a) = artifact(state, id, artifact_text)?;
    if let Some(why) = refuse(&a) {
        return Err(ApiError::bad_request(why));
    }
    let loaded = state.load_filtered(&s, &a, view, filters).await?;
    Ok((loaded, artifact_name(&s, &a)))
}

/// Why [`load_artifact`] refuses an artifact of the wrong kind, per what a route reads.
pub(crate) mod refuse {
    use crate::catalogue::{ArtifactKind, ArtifactRow};

    /// A sampled profile (CPU, self-profiling, trace or sampling heap profile): a CPU document.
    pub fn snapshot_for_document(a: &ArtifactRow) -> Option<String> {
        let id = a.artifact_id;
        (a.kind == ArtifactKind::HeapSnapshot)
            .then(|| format!("artifact {id} is a heap snapshot; use …/heap/summary"))
    }

    /// A sampled profile, for the UI's trees.
    pub fn snapshot_for_tree(a: &ArtifactRow) -> Option<String> {
        let id = a.artifact_id;
        (a.kind == ArtifactKind::HeapSnapshot).then(|| format!("artifact {id} is a heap snapshot"))
    }

    /// A heap snapshot.
    pub fn not_snapshot(a: &ArtifactRow) -> Option<String> {
        let (id, format) = (a.artifact_id, &a.format);
        (a.kind != ArtifactKind::HeapSnapshot)
            .then(|| format!("artifact {id} is a {format}, not a heap snapshot"))
    }

    /// A CPU profile or trace (a filmstrip, a comparison of two).
    pub fn not_cpu(a: &ArtifactRow) -> Option<String> {
        let (id, format) = (a.artifact_id, &a.format);
        let heap = matches!(
            a.kind,
            ArtifactKind::HeapSampling | ArtifactKind::HeapSnapshot
        );
        heap.then(|| format!("artifact {id} is a {format}, not a CPU profile or trace"))
    }
}

/// A CPU document's route (pprof's `webui.go`: each handler is its report function): the
/// parameters `Q` takes (unknown ones refused by name), the artifact's load with the query's
/// filters, and `answer`'s document as the CLI's `--json` prints it.
fn cpu_document<Q, D>(
    answer: fn(&CpuInput, &Q) -> jsprof_document::Result<D>,
) -> MethodRouter<Arc<AppState>>
where
    Q: Query + Send + 'static,
    D: Serialize + Send + 'static,
{
    get(
        move |ArtifactRequest(state, id, artifact_text, q): ArtifactRequest| async move {
            let (params, query) = Params::of_query::<Q>(q, &[])?;
            let filters = params.filters()?;
            let (loaded, _) = load_artifact(
                &state,
                &id,
                &artifact_text,
                (View::Cpu, &filters),
                refuse::snapshot_for_document,
            )
            .await?;
            let report = crate::work::run(move || Ok(answer(loaded.cpu()?, &query)?)).await?;
            ApiResult::Ok(json_blocking(report).await)
        },
    )
}

/// `…/heap/summary?sort=&limit=&context=`: `jsprof heap summary FILE [--context C] --json`.
fn heap_summary_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<HeapSummaryQuery> {
    Ok(Params::of_query(q, &[])?.1)
}

fn heap_summary(heap: Heap<'_>, query: HeapSummaryQuery) -> ApiResult<impl Serialize> {
    let (sort, limit) = (query.sort.into(), query.limit);
    let overview = heap.derived.overview(heap.snapshot, heap.analysis);
    let mut report = match query.context {
        None => jsprof_document::heap::overview_summary_report(overview, sort, limit),
        Some(context) => jsprof_document::heap_contexts::summary_report_in_context(
            (heap.name, heap.snapshot, heap.analysis),
            heap.derived.native_contexts(heap.snapshot),
            (sort, limit),
            context,
        )?,
    };
    jsprof_document::heap_source_maps::map_summary(
        &mut report,
        &overview.scripts,
        heap.source_maps,
    )?;
    Ok(report)
}

/// `…/heap/contexts`: `jsprof heap contexts FILE --json`.
fn heap_contexts_asked(_: &AppState, q: Option<String>, _: &str) -> ApiResult<()> {
    Params::parse(q, &[])?;
    Ok(())
}

fn heap_contexts(heap: Heap<'_>, (): ()) -> ApiResult<impl Serialize> {
    Ok(jsprof_document::heap_contexts::contexts_report(
        heap.snapshot,
        heap.analysis,
        heap.derived.native_contexts(heap.snapshot),
    ))
}

/// A heap object id in a route's path: `297807` or `@297807`, as the CLI and MCP read it.
pub(crate) fn node_id(text: &str) -> ApiResult<u32> {
    jsprof_document::heap_query::parse_object_id(text).map_err(ApiError::bad_request)
}

/// `…/heap/node/{node}`: `jsprof heap node FILE ID --json`.
fn heap_node_asked(_: &AppState, q: Option<String>, node: &str) -> ApiResult<u32> {
    Params::parse(q, &[])?;
    node_id(node)
}

fn heap_node(heap: Heap<'_>, node_id: u32) -> ApiResult<impl Serialize> {
    let mut report =
        jsprof_document::heap::nodes_report(heap.name, heap.snapshot, heap.analysis, &[node_id])?;
    let notes = heap.map_objects(&mut report)?;
    report.warnings.extend(notes);
    Ok(report)
}

/// `…/heap/retainers/{node}`: `jsprof heap retainers FILE ID --json`.
fn heap_retainers_asked(
    _: &AppState,
    q: Option<String>,
    node: &str,
) -> ApiResult<(RetainersOptions, u32)> {
    let options: RetainersOptions = Params::of_query(q, &[])?.1;
    Ok((options, node_id(node)?))
}

fn heap_retainers(
    heap: Heap<'_>,
    (options, node_id): (RetainersOptions, u32),
) -> ApiResult<impl Serialize> {
    let node = heap.ordinal(Some(node_id))?;
    let mut report = jsprof_document::heap::retainers_report_with(
        heap.snapshot,
        heap.analysis,
        heap.derived.retainers(heap.snapshot),
        node,
        options,
    );
    let notes = heap.map_objects(&mut report)?;
    report.warnings.extend(notes);
    Ok(report)
}

/// `…/heap/diff?base=S/A&limit=`: `jsprof heap diff BASE THIS --json`.
fn heap_diff_asked(
    state: &AppState,
    q: Option<String>,
    _: &str,
) -> ApiResult<(HeapDiffQuery, (std::path::PathBuf, String))> {
    let (params, query): (_, HeapDiffQuery) = Params::of_query(q, &["base"])?;
    Ok((
        query,
        crate::ui::other_snapshot_file(state, &params, "base")?,
    ))
}

fn heap_diff(
    heap: Heap<'_>,
    (query, base): (HeapDiffQuery, (std::path::PathBuf, String)),
) -> ApiResult<impl Serialize> {
    // The comparison re-classifies the base, so it gets a fresh copy.
    heap.against(&base, |base, this| {
        jsprof_document::heap::diff_report(base, this, query.limit).0
    })
}
