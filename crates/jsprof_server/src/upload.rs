//! `POST /sessions/import`: a file of any format jsprof reads, streamed to disk under the size
//! limit, checked by loading it, then kept as a stopped session. Uploaded files are only ever
//! parsed: nothing they name (source maps, scripts) is read.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::Request;
use axum::http::header;
use futures_util::StreamExt;
use jsprof_profile::Format;
use serde_json::Value;

use crate::cache::View;
use crate::catalogue::{ArtifactKind, ArtifactRow, SessionRow, State};
use crate::clock::now_rfc3339;
use crate::error::{ApiError, ApiResult};
use crate::ids;
use crate::state::{session_json, timelines_of, AppState};

/// Removes a file on drop unless disarmed.
struct TempFile(Option<PathBuf>);

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn too_large(limit: u64) -> ApiError {
    ApiError::too_large(format!(
        "the upload is larger than the limit of {limit} bytes (jsprof serve --max-upload)"
    ))
}

/// The format of a stored upload (gzip or not).
fn detect(path: &Path, name: &str) -> ApiResult<Format> {
    // The name is the client's, not a path on this server: say so.
    let bad = |e: &dyn std::fmt::Display| ApiError::bad_request(format!("upload {name:?}: {e}"));
    let mut reader = jsprof_document::text::open_reader(path).map_err(|e| bad(&e))?;
    let prefix = jsprof_profile::sniff(&mut reader).map_err(|e| bad(&e))?;
    jsprof_profile::detect(&prefix).map_err(|e| bad(&e))
}

#[cfg(unix)]
fn link_to(original: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

/// Without symbolic links, the file is copied (the heap index is then keyed by the copy).
#[cfg(not(unix))]
fn link_to(original: &Path, link: &Path) -> std::io::Result<()> {
    std::fs::copy(original, link).map(|_| ())
}

fn fsync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Streams the body into `DATA/uploads`, enforcing `max_upload`.
async fn receive(state: &AppState, req: Request) -> ApiResult<TempFile> {
    let limit = state.config.max_upload;
    if let Some(len) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        if len > limit {
            return Err(too_large(limit));
        }
    }
    let dir = state.uploads_dir();
    crate::state::create_private_dir(&dir)?;
    // The name recovery sweeps (`state::is_upload_temp`): nothing else in uploads/ is touched.
    let path = dir.join(format!(".{}.partial", ids::random_hex(8)));
    let file = crate::state::create_private_file(&path)?;
    let temp = TempFile(Some(path.clone()));
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut stream = req.into_body().into_data_stream();
    let mut total: u64 = 0;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::bad_request(format!("the upload was cut short: {e}")))?;
        total += chunk.len() as u64;
        if total > limit {
            return Err(too_large(limit));
        }
        out.write_all(&chunk)?;
    }
    if total == 0 {
        return Err(ApiError::bad_request(
            "the upload is empty: send the file as the request body",
        ));
    }
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(temp)
}

/// Imports the request body as a new stopped session.
pub async fn import(state: Arc<AppState>, name: Option<String>, req: Request) -> ApiResult<Value> {
    let temp = receive(&state, req).await?;
    add_session(state, name, Stored::Upload(temp)).await
}

/// Imports a file of this machine as a new stopped session without copying it (`jsprof view
/// FILE…`): the session's artifact is a symbolic link to it. No size limit applies (the user
/// named the file), the file is only ever read, and as the link resolves to the file's own path,
/// a heap snapshot opens through the same heap index as the CLI's commands on it.
pub async fn import_local(state: Arc<AppState>, path: &Path) -> ApiResult<Value> {
    let original = std::fs::canonicalize(path)
        .map_err(|e| ApiError::bad_request(format!("{}: cannot read: {e}", path.display())))?;
    if !original.is_file() {
        return Err(ApiError::bad_request(format!(
            "{}: not a file",
            path.display()
        )));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    add_session(state, name, Stored::Local(original)).await
}

/// Where an imported file's bytes are: an upload streamed into `DATA/uploads` (moved into the
/// session), or a local file the session links to.
enum Stored {
    Upload(TempFile),
    Local(PathBuf),
}

async fn add_session(
    state: Arc<AppState>,
    name: Option<String>,
    stored: Stored,
) -> ApiResult<Value> {
    let name = name
        .map(|n| ids::printable(n.trim()))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "upload".to_string());
    let upload = match &stored {
        Stored::Upload(temp) => temp.0.clone().expect("armed"),
        Stored::Local(path) => path.clone(),
    };
    let format = {
        let (u, n) = (upload.clone(), name.clone());
        tokio::task::spawn_blocking(move || detect(&u, &n))
            .await
            .map_err(|e| ApiError::internal(e.to_string()))??
    };
    let (kind, format_name, ext, view) = match format {
        Format::CpuProfile => (ArtifactKind::Cpu, "cpuprofile", "cpuprofile", View::Cpu),
        Format::SelfProfile => (
            ArtifactKind::Cpu,
            "selfprofile",
            "jsprofile.json",
            View::Cpu,
        ),
        Format::Trace => (ArtifactKind::Trace, "trace", "trace.json", View::Cpu),
        Format::HeapProfile => (
            ArtifactKind::HeapSampling,
            "heapprofile",
            "heapprofile",
            View::Cpu,
        ),
        Format::HeapSnapshot => (
            ArtifactKind::HeapSnapshot,
            "heapsnapshot",
            "heapsnapshot",
            View::Snapshot,
        ),
    };
    let id = ids::new_session_id();
    let dir = state.session_dir(&id);
    crate::state::create_private_dir(&dir)?;
    let file = format!("import.{ext}");
    match stored {
        Stored::Upload(mut temp) => {
            std::fs::rename(&upload, dir.join(&file))?;
            temp.0 = None;
        }
        Stored::Local(original) => link_to(&original, &dir.join(&file))?,
    }
    fsync_dir(&dir);
    let bytes = std::fs::metadata(dir.join(&file))?.len();
    let now = now_rfc3339();
    let mut row = SessionRow {
        id: id.clone(),
        source: "imported".to_string(),
        target: format!("import:{name}"),
        ws_url: None,
        pid: None,
        state: State::Stopped,
        record: vec![kind.as_str().to_string()],
        started_at: now.clone(),
        stopped_at: Some(now),
        error: None,
        timelines: Vec::new(),
        timeline_artifact: None,
        warnings: Vec::new(),
    };
    let artifact = ArtifactRow {
        artifact_id: 1,
        kind,
        format: format_name.to_string(),
        file,
        bytes,
        original_name: Some(name.clone()),
    };
    // Post-processing: the file must load; its timelines are listed in the session.
    match state.load(&row, &artifact, view).await {
        Ok(loaded) => {
            if let crate::cache::Loaded::Cpu(t) = &*loaded {
                if !t.timelines().is_empty() {
                    row.timelines = timelines_of(t);
                    row.timeline_artifact = Some(1);
                }
            }
        }
        Err(e) => {
            state.cache.forget_session(&id);
            let _ = std::fs::remove_dir_all(&dir);
            return Err(if e.code == "INTERNAL_ERROR" {
                e
            } else {
                ApiError::bad_request(e.message)
            });
        }
    }
    state
        .catalogue
        .insert_finished(&row, std::slice::from_ref(&artifact))?;
    eprintln!("jsprof serve: session {id} imported {name} ({format_name}, {bytes} bytes)");
    Ok(session_json(&row, &[artifact]))
}
