//! `GET /api/ui/sessions/{id}/artifacts/{artifact}/heap/redacted?numbers=1`: the snapshot made
//! safe to share, as `jsprof heap redact FILE -o OUT [--numbers]` writes it (the same
//! `jsprof_heap::redact`, so the same bytes): every string value replaced by a placeholder of the
//! same length, the graph and the names DevTools' views need kept.
//!
//! The redaction reads the snapshot twice (the first pass learns which strings are names) and
//! streams the second pass's output as the body, so a multi-GB snapshot is never held in memory
//! and the download starts as soon as the first pass is done. A client that goes away stops it.

use std::io::Write as _;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use jsprof_heap::{redact, RedactOptions};
use tokio::sync::mpsc;

use crate::error::{ApiError, ApiResult};
use crate::params::{ArtifactRequest, Params};
use crate::state::{artifact_name, AppState};

pub fn routes() -> Router<Arc<AppState>> {
    Router::new().route(
        "/api/ui/sessions/{id}/artifacts/{artifact}/heap/redacted",
        get(redacted),
    )
}

/// Bytes written by the redaction, sent on as body chunks of 256 KiB.
struct ChunkSender {
    buf: Vec<u8>,
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
}

const CHUNK: usize = 256 << 10;

impl std::io::Write for ChunkSender {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::take(&mut self.buf));
        self.tx.blocking_send(Ok(chunk)).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client went away")
        })
    }
}

async fn redacted(ArtifactRequest(state, id, artifact, q): ArtifactRequest) -> ApiResult<Response> {
    let p = Params::parse(q, &["numbers"])?;
    let numbers = match p.get("numbers") {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "bad `numbers` `{other}`: expected 1 (zero the exposed number values) or 0"
            )))
        }
    };
    let (s, a) = crate::api::artifact(&state, &id, &artifact)?;
    if a.kind != crate::catalogue::ArtifactKind::HeapSnapshot {
        return Err(ApiError::bad_request(format!(
            "{}/{} is a {}, not a heap snapshot: only snapshots are redacted",
            s.id, a.artifact_id, a.format
        )));
    }
    let file = state.session_dir(&s.id).join(&a.file);
    let name = artifact_name(&s, &a);
    let open = || {
        jsprof_document::input::open_streaming(&file, &Default::default())
            .map(|i| i.into_reader())
            .map_err(|e| ApiError::bad_request(format!("{name}: {e}")))
    };
    let (first, second) = (open()?, open()?);
    let (tx, mut rx) = mpsc::channel(4);
    tokio::task::spawn_blocking(move || {
        let mut out = ChunkSender {
            buf: Vec::with_capacity(CHUNK),
            tx: tx.clone(),
        };
        let result = redact(first, second, &mut out, &RedactOptions { numbers })
            .map_err(|e| e.to_string())
            .and_then(|_| out.flush().map_err(|e| e.to_string()));
        if let Err(e) = result {
            // The status is sent: a broken download is all that can say so.
            let _ = tx.blocking_send(Err(std::io::Error::other(e)));
        }
    });
    let body = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
    let stem = name.rsplit('/').next().unwrap_or("snapshot").to_string();
    let stem = stem.strip_suffix(".gz").unwrap_or(&stem);
    let stem = stem.strip_suffix(".heapsnapshot").unwrap_or(stem);
    let download = format!("{}.redacted.heapsnapshot", stem.replace(['"', '\\'], "_"));
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{download}\""),
            ),
        ],
        Body::from_stream(body),
    )
        .into_response())
}
