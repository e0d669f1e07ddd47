//! What every request shares: the configuration, the catalogue, the recordings in progress and
//! the loaded artifacts; and the steps that end a session (post-processing, recovery).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::cache::{Cache, Loaded, View};
use crate::catalogue::{ArtifactKind, ArtifactRow, Catalogue, SessionRow, State, TimelineInfo};
use crate::clock::now_rfc3339;
use crate::error::{ApiError, ApiResult};
use jsprof_document::filters::FilterSpec;
use jsprof_document::load::Pipeline;
use jsprof_document::source_maps::SourceMaps;

/// How the service runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen; loopback unless a token is given explicitly.
    pub addr: SocketAddr,
    /// The catalogue and the artifact files.
    pub data_dir: PathBuf,
    /// The token every request must carry; random per start when `None`.
    pub token: Option<String>,
    /// The largest upload accepted, in bytes.
    pub max_upload: u64,
    /// Allow CDP targets that are not on this machine's loopback interface.
    pub allow_remote_targets: bool,
    /// Extra names the Host header may carry (for a non-loopback bind).
    pub allowed_hosts: Vec<String>,
    /// Loaded artifacts kept in memory.
    pub cache_entries: usize,
    /// Source maps (files or folders of them) applied to every CPU artifact, matched to scripts
    /// by file name (`serve --sourcemap-dir`).
    pub sourcemap_dirs: Vec<PathBuf>,
    /// Read the local scripts an *imported* file names for their `sourceMappingURL` comments, as
    /// for recorded sessions. Off for `serve` (an upload must not make the server read local
    /// paths it names); on for `view`, whose files are the user's own.
    pub discover_maps_for_imports: bool,
    /// Folders under which the UI's source panel may read the scripts a profile names
    /// (`ui_lines.rs`); none: it shows the per-line numbers without the text.
    pub source_roots: Vec<PathBuf>,
    /// Let the source panel read any script a *local import* names (a file `view` was given:
    /// the user's own, as `jsprof lines` reads them), beside those under `source_roots`.
    /// Uploads keep the roots' rule. Off for `serve`; on for `view`.
    pub read_named_sources: bool,
    /// Accept `pid:PID` targets (SIGUSR1 to a local process); off unless asked for.
    pub allow_pid_targets: bool,
    /// A client must send a request head within this (also the keep-alive idle limit).
    pub header_timeout: Duration,
    /// A request body may not stall longer than this between chunks.
    pub body_timeout: Duration,
    /// Connections served at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Bytes a recorded session's files may reach before periodic heap snapshots stop.
    pub session_quota: u64,
    /// Serve MCP's streamable HTTP transport at `/mcp` with this configuration (its roots
    /// checked); `None`: no `/mcp`.
    pub mcp: Option<jsprof_mcp::Config>,
    /// Accept JS Self-Profiling traces at `/ingest/v1/selfprofile` and `.cpuprofile`/
    /// `.heapprofile` windows at `/ingest/v1/profile` into a lake; `None`: no ingest endpoints.
    pub ingest: Option<crate::ingest_config::IngestConfig>,
}

/// `Config::default().session_quota`: 4 GiB.
pub const DEFAULT_SESSION_QUOTA: u64 = 4 << 30;

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], crate::DEFAULT_PORT)),
            data_dir: PathBuf::from("jsprof-data"),
            token: None,
            max_upload: 2 << 30,
            allow_remote_targets: false,
            allowed_hosts: Vec::new(),
            cache_entries: 8,
            sourcemap_dirs: Vec::new(),
            discover_maps_for_imports: false,
            source_roots: Vec::new(),
            read_named_sources: false,
            allow_pid_targets: false,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            max_connections: 256,
            session_quota: DEFAULT_SESSION_QUOTA,
            mcp: None,
            ingest: None,
        }
    }
}

/// The reply a stop request waits for.
pub type StopReply = oneshot::Sender<ApiResult<Value>>;

/// What makes two recordings the same target: the address the CDP connection really reached
/// and the inspector's id of the target (`ws://localhost:9229/ID` and `127.0.0.1:9229` are one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetKey {
    pub addr: SocketAddr,
    pub id: Option<String>,
}

/// A recording in progress.
pub struct Active {
    pub target: String,
    pub key: TargetKey,
    pub pid: Option<u32>,
    /// Taken by the first stop request.
    pub stop: Option<oneshot::Sender<StopReply>>,
}

/// Shared state.
pub struct AppState {
    pub config: Config,
    pub token: String,
    /// The listening address (the real port when 0 was asked for).
    pub local_addr: SocketAddr,
    pub catalogue: Catalogue,
    pub active: Mutex<HashMap<String, Active>>,
    pub cache: Cache,
    pub throttle: crate::security::AuthThrottle,
}

/// Creates a directory (and its parents) readable by its owner only: recordings hold process
/// memory.
pub fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// Creates a new file readable by its owner only; fails if the name exists (a link included).
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// Whether `name` is one of the server's own upload temp files (`.<16 hex>.partial`).
pub fn is_upload_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".partial"))
        .is_some_and(|id| crate::ids::session_id(id).is_ok())
}

impl AppState {
    pub fn active(&self) -> std::sync::MutexGuard<'_, HashMap<String, Active>> {
        self.active.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.config.data_dir.join("sessions")
    }

    pub fn uploads_dir(&self) -> PathBuf {
        self.config.data_dir.join("uploads")
    }

    /// The directory of a session whose id came from the catalogue or was just made.
    pub fn session_dir(&self, id: &str) -> PathBuf {
        debug_assert!(crate::ids::session_id(id).is_ok());
        self.sessions_dir().join(id)
    }

    /// A session and its artifacts, or 404.
    pub fn find(&self, id: &str) -> ApiResult<(SessionRow, Vec<ArtifactRow>)> {
        let id = crate::ids::session_id(id)?;
        self.catalogue
            .session(id)?
            .ok_or_else(|| ApiError::not_found(format!("no session {id}")))
    }

    /// Loads an artifact of a session through the cache.
    pub async fn load(
        &self,
        session: &SessionRow,
        artifact: &ArtifactRow,
        view: View,
    ) -> ApiResult<Arc<Loaded>> {
        self.load_filtered(session, artifact, view, &FilterSpec::default())
            .await
    }

    /// The load pipeline of a session's artifacts: source maps as the configuration allows for
    /// where the session came from, and `filters`.
    pub fn pipeline(&self, session: &SessionRow, filters: &FilterSpec) -> Pipeline {
        let imported = session.source == "imported";
        Pipeline {
            source_maps: SourceMaps {
                enabled: true,
                discover: !imported || self.config.discover_maps_for_imports,
                explicit: self.config.sourcemap_dirs.clone(),
                roots: Vec::new(),
            },
            filters: filters.clone(),
        }
    }

    /// Loads an artifact of a session with `filters` applied, through the cache.
    pub async fn load_filtered(
        &self,
        session: &SessionRow,
        artifact: &ArtifactRow,
        view: View,
        filters: &FilterSpec,
    ) -> ApiResult<Arc<Loaded>> {
        let path = self.session_dir(&session.id).join(&artifact.file);
        let name = artifact_name(session, artifact);
        let pipeline = self.pipeline(session, filters);
        self.cache
            .get(
                &session.id,
                artifact.artifact_id,
                view,
                &pipeline,
                &path,
                &name,
            )
            .await
    }
}

/// How an artifact is named in messages: its upload name, or `session/artifact`.
pub fn artifact_name(session: &SessionRow, artifact: &ArtifactRow) -> String {
    match &artifact.original_name {
        Some(n) => n.clone(),
        None => format!("{}/{}", session.id, artifact.artifact_id),
    }
}

/// A session as the API shows it (`GET /api/sessions/{id}`, the answers of start, stop and
/// import, the list's items).
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "Session")]
pub struct SessionJson {
    /// 16 hex digits.
    pub session_id: String,
    /// `recorded` or `imported`.
    pub source: String,
    /// What was recorded (`ws://…`, `HOST:PORT`, `pid:PID`, `chrome:HOST:PORT`) or
    /// `import:NAME`.
    pub target: String,
    /// `recording`, `stopped` or `failed`.
    pub state: &'static str,
    /// What was asked for: `cpu`, `heap-sampling`, `heap-snapshot`, `trace`.
    pub record: Vec<String>,
    /// RFC 3339.
    pub started_at: String,
    pub stopped_at: Option<String>,
    /// The timelines of `timeline_artifact_id`, with the ids `…/timelines/{t}/events` takes.
    pub timelines: Vec<TimelineInfo>,
    pub timeline_artifact_id: Option<u32>,
    pub artifacts: Vec<ArtifactJson>,
    /// Why the session failed.
    pub error: Option<String>,
    /// What the recording skipped (a snapshot past the session quota, …).
    pub warnings: Vec<jsprof_document::JsonWarning>,
}

/// One file of a session.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct ArtifactJson {
    pub artifact_id: u32,
    pub kind: ArtifactKind,
    /// What the file holds: `cpuprofile`, `selfprofile`, `trace`, `heapprofile`, `heapsnapshot`.
    pub format: String,
    pub bytes: u64,
    /// The name it was uploaded under (imports).
    pub name: Option<String>,
}

/// The session as the API shows it.
pub fn session_json(s: &SessionRow, artifacts: &[ArtifactRow]) -> Value {
    let doc = SessionJson {
        session_id: s.id.clone(),
        source: s.source.clone(),
        target: s.target.clone(),
        state: s.state.as_str(),
        record: s.record.clone(),
        started_at: s.started_at.clone(),
        stopped_at: s.stopped_at.clone(),
        timelines: s.timelines.clone(),
        timeline_artifact_id: s.timeline_artifact,
        artifacts: artifacts
            .iter()
            .map(|a| ArtifactJson {
                artifact_id: a.artifact_id,
                kind: a.kind,
                format: a.format.clone(),
                bytes: a.bytes,
                name: a.original_name.clone(),
            })
            .collect(),
        error: s.error.clone(),
        warnings: s
            .warnings
            .iter()
            .map(|m| jsprof_document::JsonWarning {
                at: "recording".to_string(),
                message: m.clone(),
            })
            .collect(),
    };
    serde_json::to_value(doc).expect("a session serializes")
}

/// The artifact kind and format a recorded file's name says.
pub fn kind_of_file(name: &str) -> Option<(ArtifactKind, &'static str)> {
    if name.starts_with('.') {
        return None;
    }
    Some(if name.ends_with(".cpuprofile") {
        (ArtifactKind::Cpu, "cpuprofile")
    } else if name.ends_with(".heapprofile") {
        (ArtifactKind::HeapSampling, "heapprofile")
    } else if name.ends_with(".heapsnapshot") {
        (ArtifactKind::HeapSnapshot, "heapsnapshot")
    } else if name.ends_with(".trace.json") {
        (ArtifactKind::Trace, "trace")
    } else {
        return None;
    })
}

/// The finished files in a session's directory (after a failure or a crash), oldest first;
/// partial files are removed.
pub fn saved_files(dir: &Path) -> Vec<(String, u64)> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.ends_with(".partial") {
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        if kind_of_file(&name).is_none() {
            continue;
        }
        if let Ok(meta) = entry.metadata() {
            let modified = meta.modified().ok();
            files.push((modified, name, meta.len()));
        }
    }
    files.sort();
    files.into_iter().map(|(_, n, b)| (n, b)).collect()
}

/// Ends a session: numbers its files as artifacts, builds the timelines (post-processing: the
/// answer waits for it), and records the outcome. `failure` makes the session `failed`, keeping
/// what was saved.
pub async fn finish(
    state: &AppState,
    mut row: SessionRow,
    files: Vec<(String, u64)>,
    failure: Option<String>,
) -> ApiResult<Value> {
    let artifacts: Vec<ArtifactRow> = files
        .into_iter()
        .filter_map(|(file, bytes)| {
            let (kind, format) = kind_of_file(&file)?;
            Some((file, bytes, kind, format))
        })
        .enumerate()
        .map(|(i, (file, bytes, kind, format))| ArtifactRow {
            artifact_id: i as u32 + 1,
            kind,
            format: format.to_string(),
            file,
            bytes,
            original_name: None,
        })
        .collect();
    let mut error = failure;
    let timeline_artifact = artifacts
        .iter()
        .find(|a| a.kind == ArtifactKind::Trace)
        .or_else(|| artifacts.iter().find(|a| a.kind == ArtifactKind::Cpu));
    row.timelines.clear();
    row.timeline_artifact = None;
    if let Some(a) = timeline_artifact {
        match state.load(&row, a, View::Cpu).await {
            Ok(loaded) => {
                if let Loaded::Cpu(t) = &*loaded {
                    row.timelines = timelines_of(t);
                    row.timeline_artifact = Some(a.artifact_id);
                }
            }
            Err(e) => {
                let text = format!("the recorded {} cannot be read: {}", a.format, e.message);
                error = Some(match error {
                    Some(prev) => format!("{prev}; {text}"),
                    None => text,
                });
            }
        }
    }
    row.state = if error.is_some() {
        State::Failed
    } else {
        State::Stopped
    };
    row.error = error;
    row.stopped_at = Some(now_rfc3339());
    state.catalogue.finish_session(&row, &artifacts)?;
    Ok(session_json(&row, &artifacts))
}

/// The timelines of a loaded input, as sessions list them.
pub fn timelines_of(t: &jsprof_document::load::CpuInput) -> Vec<TimelineInfo> {
    t.timelines()
        .iter()
        .map(|t| TimelineInfo {
            timeline_id: t.id,
            name: t.name.clone(),
            pid: t.pid,
            tid: t.tid,
        })
        .collect()
}

/// After a start: sessions still `recording` were cut short by a crash; mark them `failed`
/// with what they saved. The server's own leftovers are removed — upload temp files and session
/// directories the catalogue does not know — and only those: a name the server never makes
/// (`sessions/my-project/`) is someone else's and stays.
pub async fn recover(state: &AppState) -> ApiResult<()> {
    if let Ok(entries) = std::fs::read_dir(state.uploads_dir()) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && is_upload_temp(&name) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let sessions = state.catalogue.sessions()?;
    for (row, _) in &sessions {
        if row.state != State::Recording {
            continue;
        }
        let files = saved_files(&state.session_dir(&row.id));
        let message = format!(
            "the server stopped while recording; {} saved file{} kept",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        eprintln!("jsprof serve: session {} marked failed: {message}", row.id);
        finish(state, row.clone(), files, Some(message)).await?;
    }
    if let Ok(entries) = std::fs::read_dir(state.sessions_dir()) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let ours = crate::ids::session_id(&name).is_ok()
                && entry.file_type().is_ok_and(|t| t.is_dir());
            if ours && !sessions.iter().any(|(s, _)| s.id == name) {
                eprintln!("jsprof serve: removing sessions/{name}, which no session owns");
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(())
}
