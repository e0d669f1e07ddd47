//! The heap views' routes, the UI's and the service's public ones: one skeleton (as
//! `api::cpu_document` for the CPU documents, pprof's web handlers over its report function)
//! that reads the request, loads the artifact's snapshot once and keeps it, and answers with a
//! view's document made from it on a worker thread.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use jsprof_document::filters::FilterSpec;
use jsprof_document::heap::Named;
use jsprof_document::source_maps::SourceMaps;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::cache::Loaded;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::state::AppState;
use crate::ui::{json_ok, snapshot};

/// A heap snapshot artifact as a heap view's answer reads it.
pub(crate) struct Heap<'a> {
    pub name: &'a str,
    pub snapshot: &'a jsprof_heap::HeapSnapshot,
    pub analysis: &'a jsprof_heap::Analysis,
    pub derived: &'a crate::cache::Derived,
    /// The source maps the artifact's session allows, as its CPU artifacts get them
    /// (`AppState::pipeline`): for the Summary's original class names.
    pub source_maps: &'a SourceMaps,
}

impl Heap<'_> {
    /// The originals of the objects `doc` lists, as the session's maps allow (`jsprof heap
    /// class`'s `source_name`, `source_location`), and the maps' notes for its warnings.
    pub fn map_objects(
        &self,
        doc: &mut impl jsprof_document::heap_source_maps::ListsObjects,
    ) -> ApiResult<Vec<jsprof_document::JsonWarning>> {
        Ok(jsprof_document::heap_source_maps::map_objects(
            doc,
            &self.analysis.scripts,
            self.source_maps,
        )?)
    }

    /// The node a route's path names ([`node_param`]: `None` is the snapshot's root).
    pub fn ordinal(&self, node: Option<u32>) -> ApiResult<jsprof_heap::NodeOrdinal> {
        Ok(match node {
            None => self.snapshot.root,
            Some(id) => jsprof_document::heap::ordinal_of(self.name, self.snapshot, id)?,
        })
    }

    /// Compares this snapshot against the base a route names (`ui::other_snapshot_file`), read
    /// again here: the comparison re-classifies it.
    pub fn against<R>(
        &self,
        (base_path, base_name): &(PathBuf, String),
        compare: impl FnOnce(
            Named<&mut jsprof_heap::HeapSnapshot, &mut jsprof_heap::Analysis>,
            Named<&jsprof_heap::HeapSnapshot, &jsprof_heap::Analysis>,
        ) -> R,
    ) -> ApiResult<R> {
        let (mut base, mut base_analysis) = crate::cache::load_snapshot(base_path, base_name)?;
        Ok(compare(
            Named {
                name: base_name,
                snapshot: &mut base,
                analysis: &mut base_analysis,
            },
            Named {
                name: self.name,
                snapshot: self.snapshot,
                analysis: self.analysis,
            },
        ))
    }
}

/// A heap snapshot artifact of a session, loaded, with its name: where every heap view starts.
pub(crate) struct Snapshot {
    loaded: Arc<Loaded>,
    name: String,
    source_maps: SourceMaps,
}

impl Snapshot {
    pub async fn open(state: &AppState, id: &str, artifact: &str) -> ApiResult<Snapshot> {
        let (loaded, name) = snapshot(state, id, artifact).await?;
        let (session, _) = crate::api::artifact(state, id, artifact)?;
        let source_maps = state.pipeline(&session, &FilterSpec::default()).source_maps;
        Ok(Snapshot {
            loaded,
            name,
            source_maps,
        })
    }

    /// `answer`'s value on a worker thread, from the snapshot, its analysis and what is derived
    /// from them.
    pub async fn answer<R: Send + 'static>(
        self,
        answer: impl FnOnce(Heap<'_>) -> ApiResult<R> + Send + 'static,
    ) -> ApiResult<R> {
        crate::work::run(move || {
            let (snapshot, analysis, derived) = self.loaded.snapshot()?;
            answer(Heap {
                name: &self.name,
                snapshot,
                analysis,
                derived,
                source_maps: &self.source_maps,
            })
        })
        .await
    }

    /// `answer`'s document as `write` writes it.
    pub async fn write<D: Serialize + Send + 'static>(
        self,
        write: Write,
        answer: impl FnOnce(Heap<'_>) -> ApiResult<D> + Send + 'static,
    ) -> ApiResult<Response> {
        match write {
            Write::Page => {
                self.answer(move |heap| answer(heap).map(|d| json_ok(&d)))
                    .await
            }
            Write::Document => Ok(crate::api::json_blocking(self.answer(answer).await?).await),
        }
    }
}

/// How a heap route writes its document.
#[derive(Clone, Copy)]
pub(crate) enum Write {
    /// As the UI's endpoints do (on the worker thread, no newline).
    Page,
    /// As the CLI's `--json` prints it (one object and a newline), the service's public routes.
    Document,
}

/// A heap route's path: `…/sessions/{id}/artifacts/{artifact}…`, and for some `…/{node}`.
pub(crate) trait HeapPath: DeserializeOwned + Send + 'static {
    /// The session, the artifact and the node (empty where the path has none).
    fn parts(&self) -> (&str, &str, &str);
}

impl HeapPath for (String, String) {
    fn parts(&self) -> (&str, &str, &str) {
        (&self.0, &self.1, "")
    }
}

impl HeapPath for (String, String, String) {
    fn parts(&self) -> (&str, &str, &str) {
        (&self.0, &self.1, &self.2)
    }
}

/// What a heap route is asked, read before its snapshot is loaded: the service's state, the
/// query string and the path's node.
pub(crate) type Ask<A> = fn(&AppState, Option<String>, &str) -> ApiResult<A>;

/// A heap view's route: `ask` reads the request (unknown parameters refused by name) before the
/// snapshot is loaded, `answer` makes the document from the snapshot and what was asked on a
/// worker thread, written as `write` says.
pub(crate) fn heap_route<P, A, D>(
    write: Write,
    ask: Ask<A>,
    answer: fn(Heap<'_>, A) -> ApiResult<D>,
) -> MethodRouter<Arc<AppState>>
where
    P: HeapPath,
    A: Send + 'static,
    D: Serialize + Send + 'static,
{
    get(
        move |State(state): State<Arc<AppState>>,
              UrlPath(path): UrlPath<P>,
              RawQuery(q): RawQuery| async move {
            let (id, artifact, node) = path.parts();
            let asked = ask(&state, q, node)?;
            Snapshot::open(&state, id, artifact)
                .await?
                .write(write, move |heap| answer(heap, asked))
                .await
        },
    )
}

/// The node of a route's path: an object id (`297807` or `@297807`), or `root` (`None`).
pub(crate) fn node_param(node: &str) -> ApiResult<Option<u32>> {
    match node {
        "root" => Ok(None),
        id => crate::api::node_id(id).map(Some),
    }
}

/// `offset` (default 0) and `limit` (default 100, at most 10,000) of a paged heap list.
pub(crate) fn page_window(p: &Params) -> ApiResult<(usize, usize)> {
    Ok((
        p.number::<usize>("offset")?.unwrap_or(0),
        p.number::<usize>("limit")?.unwrap_or(100).min(10_000),
    ))
}

/// The `key` a page requires; `what` says whose key it is.
pub(crate) fn required_key(p: &Params, what: &str) -> ApiResult<String> {
    p.get("key")
        .map(str::to_string)
        .ok_or_else(|| ApiError::bad_request(format!("`key` is required: {what}")))
}
