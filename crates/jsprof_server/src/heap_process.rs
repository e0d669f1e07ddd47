//! `GET /api/ui/sessions/{id}/artifacts/{artifact}/heap/process?with=S/A,…&limit=`: a Node
//! process's memory, isolate by isolate, reconciled with its RSS — `jsprof heap process
//! SNAPSHOT… --json`'s document (`jsprof_document::process_memory`), over this snapshot and the
//! others `with` names (the process's workers, earlier snapshots of them).
//!
//! The snapshots are grouped by isolate from their names as the CLI groups its files (an
//! upload's name, a recording's file name: `record` names a worker's snapshot `STEM-workerN`),
//! and each isolate's latest is read. Its `process.memoryUsage()` is the `STEM.memory.json`
//! beside the file: a recording's session folder holds it (the service records it with every
//! Node heap snapshot), and for a file `jsprof view` opened, the folder of the user's file.
//! An upload has none: the document says so per isolate, as the CLI does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::response::Response;
use axum::routing::get;
use axum::Router;
use jsprof_document::process_memory::{
    isolates, memory_file_name, no_memory_file, report, MemoryUsageFile, ReadIsolate,
};

use crate::catalogue::ArtifactKind;
use crate::error::{ApiError, ApiResult};
use crate::heap_route::Snapshot;
use crate::params::{ArtifactRequest, Params};
use crate::state::AppState;
use crate::ui::{artifact_list, json_ok};

/// The most snapshots one question reads.
const MAX_SNAPSHOTS: usize = 50;

pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route(
        "/api/ui/sessions/{id}/artifacts/{artifact}/heap/process",
        get(process),
    )
}

/// A snapshot artifact named for grouping, with where its file is.
struct Given {
    session: String,
    artifact: String,
    file: PathBuf,
}

async fn process(ArtifactRequest(state, id, artifact, q): ArtifactRequest) -> ApiResult<Response> {
    let p = Params::parse(q, &["with", "limit"])?;
    let limit = p.number::<usize>("limit")?.unwrap_or(5);
    let mut given = vec![(id, artifact)];
    given.extend(artifact_list(&p, "with")?);
    if given.len() > MAX_SNAPSHOTS {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_SNAPSHOTS} snapshots, this one included; got {}",
            given.len()
        )));
    }
    // Every snapshot is checked before any is read.
    let mut files = Vec::new();
    for (s, a) in given {
        let (session, row) = crate::api::artifact(&state, &s, &a)?;
        if row.kind != ArtifactKind::HeapSnapshot {
            return Err(ApiError::bad_request(format!(
                "{s}/{a} is a {}, not a heap snapshot",
                row.format
            )));
        }
        let name = row
            .original_name
            .clone()
            .unwrap_or_else(|| row.file.clone());
        files.push((
            name,
            Given {
                session: session.id.clone(),
                artifact: row.artifact_id.to_string(),
                file: state.session_dir(&session.id).join(&row.file),
            },
        ));
    }
    let mut warnings = Vec::new();
    let mut read = Vec::new();
    for isolate in isolates(files) {
        let (g, name) = isolate.latest();
        let name = name.to_string();
        let memory = match memory_beside(&g.file, &name)? {
            Some(m) => Some(m),
            None => {
                warnings.push(no_memory_file(&name));
                None
            }
        };
        let key = isolate.key.clone();
        let count = isolate.files.len();
        read.push(
            Snapshot::open(&state, &g.session, &g.artifact)
                .await?
                .answer(move |heap| {
                    Ok(ReadIsolate::new(
                        &key,
                        &name,
                        count,
                        heap.snapshot,
                        heap.analysis,
                        memory.as_ref(),
                        limit,
                    ))
                })
                .await?,
        );
    }
    Ok(json_ok(&report(read, warnings)))
}

/// The memory-usage file beside a snapshot artifact's file: in the session folder for a
/// recording, beside the user's file for one `view` opened (the session's file links to it).
/// `name` is the snapshot's name, whose stem the memory file shares.
fn memory_beside(file: &Path, name: &str) -> ApiResult<Option<MemoryUsageFile>> {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let real_name = real
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| name.to_string());
    let path = real.with_file_name(memory_file_name(&real_name));
    let text = match jsprof_document::local_file::read_bounded(&path, 1 << 20, &[]) {
        Ok(t) => t,
        Err(_) if !path.is_file() => return Ok(None),
        Err(e) => {
            return Err(ApiError::bad_request(format!(
                "cannot read the memory usage beside {name}: {e}"
            )))
        }
    };
    MemoryUsageFile::parse(&memory_file_name(name), &text)
        .map(Some)
        .map_err(ApiError::bad_request)
}
