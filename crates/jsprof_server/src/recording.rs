//! Recording sessions over CDP: StartProfiler (`POST /sessions`) resolves and checks the target,
//! refuses a second recording of the same target, and starts the recorder; StopProfiler (`POST
//! /sessions/{id}/stop`) collects every artifact and answers once post-processing is done.

use std::sync::Arc;
use std::time::Duration;

use jsprof_cdp::{
    CdpError, Client, Event, OutputSpec, PageLoad, Reach, RecordOptions, Recorder, SnapshotMode,
    StopReason, Target,
};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::catalogue::{SessionRow, State};
use crate::clock::now_rfc3339;
use crate::error::{ApiError, ApiResult};
use crate::ids;
use crate::state::{finish, saved_files, Active, AppState, StopReply, TargetKey};

/// The body of `POST /sessions`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct StartRequest {
    /// `ws://HOST:PORT/ID`, `HOST:PORT`, `pid:PID` or `chrome:HOST:PORT`.
    pub target: String,
    /// What to record: `cpu`, `heap-sampling`, `heap-snapshot`, `trace` (default `["cpu"]`).
    #[serde(default)]
    pub record: Option<Vec<String>>,
    /// CPU sampling interval in µs.
    #[serde(default)]
    pub interval_us: Option<u32>,
    /// With `heap-snapshot`: also one snapshot every so many seconds while recording.
    #[serde(default)]
    pub snapshot_every_s: Option<f64>,
    /// With `trace` and a `chrome:HOST:PORT` target: record the load of this URL in a new tab,
    /// as `jsprof record --url` does; the session then ends by itself once the page has loaded
    /// and settled (a stop before that ends it earlier).
    #[serde(default)]
    pub url: Option<String>,
}

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const PID_WAIT: Duration = Duration::from_secs(5);
/// The shortest period of periodic heap snapshots: each one pauses the target and writes a
/// file as large as its heap.
pub const MIN_SNAPSHOT_EVERY_S: f64 = 1.0;

/// What a target spec names, before resolution.
enum Spec {
    Inspect(String),
    Pid(u32),
    Chrome(String),
}

fn parse_spec(text: &str) -> ApiResult<Spec> {
    let text = text.trim();
    if let Some(pid) = text.strip_prefix("pid:") {
        return pid
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|&p| p > 0)
            .map(Spec::Pid)
            .ok_or_else(|| {
                ApiError::bad_request(format!("bad pid in target `{}`", ids::printable(text)))
            });
    }
    if let Some(addr) = text.strip_prefix("chrome:") {
        return Ok(Spec::Chrome(addr.trim().to_string()));
    }
    if text.starts_with("ws://") || text.contains(':') {
        return Ok(Spec::Inspect(text.to_string()));
    }
    Err(ApiError::bad_request(format!(
        "bad target `{}`: expected ws://HOST:PORT/ID, HOST:PORT, pid:PID or chrome:HOST:PORT \
         (commands are never launched over HTTP)",
        ids::printable(text)
    )))
}

fn reach(state: &AppState) -> Reach {
    if state.config.allow_remote_targets {
        Reach::Any
    } else {
        Reach::Loopback
    }
}

/// A refusal or a failure of `jsprof_cdp`, as the API answers it: an address or process that
/// may not be used is a 400 that says why; a target that is not there, a 404.
fn cdp_error(text: &str, e: CdpError) -> ApiError {
    match e {
        CdpError::NotAllowed(why) => ApiError::bad_request(format!(
            "target `{}` refused: {why}; a CDP connection can run any code in the target, so \
             remote targets need `jsprof serve --allow-remote-targets`",
            ids::printable(text)
        )),
        other => ApiError::not_found(format!("no target at `{}`: {other}", ids::printable(text))),
    }
}

/// Parses an address spec with the client's own parser (userinfo refused) before anything
/// connects.
fn check_spec(text: &str, addr: &str) -> ApiResult<()> {
    let parsed = if addr.starts_with("ws://") || addr.starts_with("wss://") {
        jsprof_cdp::ws_endpoint(addr)
    } else {
        jsprof_cdp::addr_endpoint(addr)
    };
    parsed
        .map(|_| ())
        .map_err(|e| ApiError::bad_request(format!("target `{}`: {e}", ids::printable(text))))
}

fn options_of(req: &StartRequest) -> ApiResult<(RecordOptions, Vec<String>)> {
    let record = req
        .record
        .clone()
        .unwrap_or_else(|| vec!["cpu".to_string()]);
    if record.is_empty() {
        return Err(ApiError::bad_request(
            "`record` is empty: name at least one of cpu, heap-sampling, heap-snapshot, trace",
        ));
    }
    let mut options = RecordOptions {
        interval_us: req.interval_us,
        ..RecordOptions::default()
    };
    for r in &record {
        match r.as_str() {
            "cpu" => options.cpu = true,
            "heap-sampling" => options.heap_sampling = true,
            "heap-snapshot" => {
                options.heap_snapshot = SnapshotMode::AtEnd;
                // Beside each Node isolate's snapshot, its memoryUsage(), for `…/heap/process`.
                options.memory_usage = true;
            }
            "trace" => options.trace = true,
            other => {
                return Err(ApiError::bad_request(format!(
                    "unknown record kind `{}`: expected cpu, heap-sampling, heap-snapshot or trace",
                    ids::printable(other)
                )))
            }
        }
    }
    if let Some(i) = req.interval_us {
        if !(1..=1_000_000).contains(&i) {
            return Err(ApiError::bad_request(format!(
                "interval_us {i} is out of range: 1 to 1000000"
            )));
        }
    }
    if let Some(s) = req.snapshot_every_s {
        if options.heap_snapshot == SnapshotMode::Off {
            return Err(ApiError::bad_request(
                "snapshot_every_s needs `heap-snapshot` in `record`",
            ));
        }
        if !(s.is_finite() && (MIN_SNAPSHOT_EVERY_S..=86_400.0).contains(&s)) {
            return Err(ApiError::bad_request(format!(
                "snapshot_every_s {s} is out of range: at least {MIN_SNAPSHOT_EVERY_S}, at most \
                 86400 (each snapshot pauses the target and writes a file as large as its heap)"
            )));
        }
        options.heap_snapshot = SnapshotMode::Every(Duration::from_secs_f64(s));
    }
    if let Some(url) = &req.url {
        if !options.trace {
            return Err(ApiError::bad_request(
                "`url` needs `trace` in `record`: a page load is recorded as a trace",
            ));
        }
        jsprof_cdp::check_page_url(url)
            .map_err(|e| ApiError::bad_request(format!("url {}", ids::printable(&e))))?;
        // The trace's screenshots show the page: a `file:` URL would show a local file to
        // whoever holds the token.
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ApiError::bad_request(format!(
                "url {}: only http:// and https:// pages are recorded over HTTP",
                ids::printable(url)
            )));
        }
        let mut page = PageLoad::new(url.clone());
        // The tab is opened for the session (see `resolve`) and closed with it.
        page.close_page = true;
        options.page_load = Some(page);
    }
    let mut unique = record.clone();
    unique.dedup();
    Ok((options, unique))
}

/// The target a spec names; for a page load (`new_tab`), a new tab of the Chromium it names.
async fn resolve(state: &AppState, spec: &Spec, text: &str, new_tab: bool) -> ApiResult<Target> {
    let reach = reach(state);
    match spec {
        Spec::Inspect(addr) => {
            check_spec(text, addr)?;
            jsprof_cdp::resolve_inspect(addr, reach)
                .await
                .map_err(|e| cdp_error(text, e))
        }
        Spec::Chrome(addr) => {
            check_spec(text, addr)?;
            let target = if new_tab {
                jsprof_cdp::open_chrome_tab(addr, reach).await
            } else {
                jsprof_cdp::resolve_chrome(addr, reach).await
            };
            target.map_err(|e| cdp_error(text, e))
        }
        // SIGUSR1's default action terminates a process: only when the operator asked for pid
        // targets, and only to a Node process of the server's own user.
        Spec::Pid(pid) => {
            if !state.config.allow_pid_targets {
                return Err(ApiError::bad_request(format!(
                    "target `{}` refused: pid targets send SIGUSR1 to a local process and are off; \
                     start the service with `jsprof serve --allow-pid-targets` to allow them",
                    ids::printable(text)
                )));
            }
            jsprof_cdp::resolve_pid(*pid, PID_WAIT)
                .await
                .map_err(|e| match e {
                    CdpError::NotAllowed(why) => ApiError::bad_request(format!(
                        "target `{}` refused: {why}",
                        ids::printable(text)
                    )),
                    other => cdp_error(text, other),
                })
        }
    }
}

/// `POST /sessions`: starts recording; the session as it starts.
pub async fn start(state: Arc<AppState>, req: StartRequest) -> ApiResult<Value> {
    let (mut options, record) = options_of(&req)?;
    options.snapshot_quota = Some(state.config.session_quota);
    let spec = parse_spec(&req.target)?;
    if options.page_load.is_some() && !matches!(spec, Spec::Chrome(_)) {
        return Err(ApiError::bad_request(
            "`url` needs a Chromium target (chrome:HOST:PORT): the page loads in a new tab of it",
        ));
    }
    let target = resolve(&state, &spec, &req.target, options.page_load.is_some()).await?;
    if options.trace && target.kind != jsprof_cdp::TargetKind::ChromePage {
        return Err(ApiError::bad_request(
            "`trace` needs a Chromium page (chrome:HOST:PORT); Node's inspector has no Tracing domain",
        ));
    }
    let pid = match spec {
        Spec::Pid(p) => Some(p),
        _ => target.pid,
    };
    let (client, events) = Client::connect(&target.ws_url, CONNECT_TIMEOUT, reach(&state))
        .await
        .map_err(|e| match e {
            e @ CdpError::NotAllowed(_) => cdp_error(&target.ws_url, e),
            e => ApiError::not_found(format!("cannot connect to {}: {e}", target.ws_url)),
        })?;
    // The same target whatever it was called: the address really connected to (names
    // resolved, IPv4-mapped addresses unmapped) and the inspector's id for it.
    let peer = client.peer_addr();
    let peer = std::net::SocketAddr::new(peer.ip().to_canonical(), peer.port());
    let key = TargetKey {
        addr: peer,
        id: jsprof_cdp::target_id(&target.ws_url),
    };
    let id = ids::new_session_id();
    {
        let mut active = state.active();
        if let Some((other, a)) = active
            .iter()
            .find(|(_, a)| a.key == key || (pid.is_some() && a.pid == pid))
        {
            client.close();
            return Err(ApiError::state(format!(
                "profiling already in progress on {} (session {other}); stop it first",
                a.target
            )));
        }
        active.insert(
            id.clone(),
            Active {
                target: req.target.trim().to_string(),
                key,
                pid,
                stop: None,
            },
        );
    }
    let connection = (client, events);
    match begin(&state, &id, &req, &target, pid, options, record, connection).await {
        Ok(value) => Ok(value),
        Err(e) => {
            state.active().remove(&id);
            let _ = std::fs::remove_dir_all(state.session_dir(&id));
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn begin(
    state: &Arc<AppState>,
    id: &str,
    req: &StartRequest,
    target: &Target,
    pid: Option<u32>,
    options: RecordOptions,
    record: Vec<String>,
    (client, events): (Client, tokio::sync::mpsc::UnboundedReceiver<Event>),
) -> ApiResult<Value> {
    let dir = state.session_dir(id);
    crate::state::create_private_dir(&dir)?;
    let output = OutputSpec {
        dir,
        stem: "recording".to_string(),
    };
    let recorder = Recorder::start(client, events, target.kind, options, output)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot start recording: {e}")))?;
    let row = SessionRow {
        id: id.to_string(),
        source: "recorded".to_string(),
        target: req.target.trim().to_string(),
        ws_url: Some(target.ws_url.clone()),
        pid,
        state: State::Recording,
        record,
        started_at: now_rfc3339(),
        stopped_at: None,
        error: None,
        timelines: Vec::new(),
        timeline_artifact: None,
        warnings: Vec::new(),
    };
    state.catalogue.insert_session(&row)?;
    let (stop_tx, stop_rx) = oneshot::channel::<StopReply>();
    match state.active().get_mut(id) {
        Some(a) => a.stop = Some(stop_tx),
        None => return Err(ApiError::internal("the recording vanished while starting")),
    }
    eprintln!(
        "jsprof serve: session {id} recording {} ({})",
        row.target, target.ws_url
    );
    let value = crate::state::session_json(&row, &[]);
    tokio::spawn(run_recording(state.clone(), row, recorder, stop_rx));
    Ok(value)
}

/// Waits for a stop request (or the target's end), collects, post-processes, answers.
async fn run_recording(
    state: Arc<AppState>,
    mut row: SessionRow,
    mut recorder: Recorder,
    stop_rx: oneshot::Receiver<StopReply>,
) {
    let id = row.id.clone();
    let (reply, gone) = tokio::select! {
        reason = recorder.wait(None, false) => match reason {
            Ok(StopReason::TargetGone(detail)) => (None, Some(format!("the target went away: {detail}"))),
            Ok(_) => (None, None),
            Err(e) => (None, Some(format!("recording failed: {e}"))),
        },
        reply = stop_rx => (reply.ok(), None),
    };
    let dir = state.session_dir(&id);
    row.warnings = recorder.warnings().to_vec();
    let (files, failure) = match gone {
        Some(why) => (saved_files(&dir), Some(why)),
        None => match recorder.finish().await {
            Ok((artifacts, warnings)) => {
                row.warnings = warnings;
                (
                    artifacts
                        .iter()
                        .filter_map(|a| {
                            let name = a.path.file_name()?.to_string_lossy().to_string();
                            Some((name, a.bytes))
                        })
                        .collect(),
                    None,
                )
            }
            Err(e) => (
                saved_files(&dir),
                Some(format!("collecting the recording failed: {e}")),
            ),
        },
    };
    let result = finish(&state, row, files, failure).await;
    state.active().remove(&id);
    match &result {
        Ok(v) => eprintln!(
            "jsprof serve: session {id} {}",
            v["state"].as_str().unwrap_or("?")
        ),
        Err(e) => eprintln!("jsprof serve: session {id}: {}", e.message),
    }
    if let Some(reply) = reply {
        let _ = reply.send(result);
    }
}

/// `POST /sessions/{id}/stop`: the session with its timelines, once post-processing is done.
pub async fn stop(state: Arc<AppState>, id: &str) -> ApiResult<Value> {
    let id = ids::session_id(id)?;
    let sender = {
        let mut active = state.active();
        match active.get_mut(id) {
            Some(a) => match a.stop.take() {
                Some(s) => Some(s),
                None => {
                    return Err(ApiError::state(format!(
                        "session {id} is already being stopped"
                    )))
                }
            },
            None => None,
        }
    };
    let Some(sender) = sender else {
        let (row, _) = state.find(id)?;
        return Err(ApiError::state(format!(
            "session {id} is not recording (it is {})",
            row.state.as_str()
        )));
    };
    let (reply_tx, reply_rx) = oneshot::channel();
    if sender.send(reply_tx).is_err() {
        return Err(ApiError::state(format!(
            "session {id} ended before it could be stopped"
        )));
    }
    reply_rx
        .await
        .map_err(|_| ApiError::internal("the recording task ended without an answer"))?
}

/// Stops every recording (at shutdown), waiting at most `limit` for each.
pub async fn stop_all(state: Arc<AppState>, limit: Duration) {
    let ids: Vec<String> = state.active().keys().cloned().collect();
    for id in ids {
        eprintln!("jsprof serve: stopping session {id}");
        match tokio::time::timeout(limit, stop(state.clone(), &id)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => eprintln!("jsprof serve: session {id}: {}", e.message),
            Err(_) => eprintln!("jsprof serve: session {id}: stopping timed out"),
        }
    }
}
