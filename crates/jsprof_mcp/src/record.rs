//! The `record` tool (offered only with `--allow-record`, since it runs a command the agent
//! chooses): a Node command launched under the inspector, or a Chromium page on this machine's
//! loopback, recorded with `jsprof_cdp` — the recorder `jsprof record` and `jsprof serve` use —
//! into the record directory, then opened so the agent can compare before and after a change.

use std::time::Duration;

use jsprof_cdp::{Client, OutputSpec, Reach, RecordOptions, Recorder, SnapshotMode, StopReason};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ToolError, ToolResult};
use crate::tools::{Answer, Question};

#[derive(Deserialize, JsonSchema)]
pub struct RecordArgs {
    /// A Node command to launch and record, e.g. ["node", "bench.js"]. It runs as the user who
    /// started the server, in `dir`, reading an empty standard input; its output goes to the
    /// server's standard error, never to the MCP channel.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// The command's working directory: a directory under a root (relative paths from the
    /// first root). Default: the root that holds the record directory.
    #[serde(default)]
    pub dir: Option<String>,
    /// Instead of a command: a Chromium's remote-debugging address on this machine
    /// (`127.0.0.1:9222`); its first page is traced.
    #[serde(default)]
    pub chrome: Option<String>,
    /// Seconds to record (default 5, at most 60); a command that ends earlier ends the recording.
    #[serde(default)]
    pub seconds: Option<f64>,
    /// Also take a heap snapshot at the end.
    #[serde(default)]
    pub heap_snapshot: bool,
    /// With `chrome`: a page to load `runs` times instead, each load in a fresh browser
    /// context (a cold cache), as `jsprof record --url URL --runs N`. The runs go to a new
    /// folder of the record directory, and the answer is their distribution (`page_runs`); two
    /// such folders go to `page_diff`.
    #[serde(default)]
    pub url: Option<String>,
    /// How many loads of `url` (1 to 20; default 5).
    #[serde(default)]
    pub runs: Option<usize>,
    /// With `url`: DevTools' CPU throttling rate (default 1, none).
    #[serde(default)]
    pub cpu_slowdown: Option<f64>,
    /// With `url`: DevTools' network preset, `fast-4g`, `slow-4g` or `3g` (default none).
    #[serde(default)]
    pub network: Option<String>,
}

/// The most runs one call records: 20 loads of a slow page take minutes.
const MAX_RUNS: usize = 20;

const CONNECT: Duration = Duration::from_secs(10);
const MAX_SECONDS: f64 = 60.0;

/// The first Node process of a launched command, once it announced itself (it waits for us).
async fn first_process(
    launched: &mut jsprof_cdp::Launched,
) -> ToolResult<jsprof_cdp::Registration> {
    let deadline = tokio::time::Instant::now() + CONNECT;
    loop {
        if let Some(r) = launched.registry.poll().into_iter().next() {
            return Ok(r);
        }
        if let Ok(Some(status)) = launched.child.try_wait() {
            return Err(ToolError::Input(format!(
                "the command exited ({status}) before any Node process started: is it a Node program?"
            )));
        }
        if tokio::time::Instant::now() > deadline {
            return Err(ToolError::Input(format!(
                "no Node process of the command announced itself within {} s",
                CONNECT.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Stops the command's whole tree as Ctrl-C would, then kills what is left.
async fn stop_command(launched: &mut jsprof_cdp::Launched) {
    launched.signal_tree(libc::SIGINT);
    let _ = tokio::time::timeout(jsprof_cdp::EXIT_GRACE, launched.child.wait()).await;
    launched.signal_tree(libc::SIGKILL);
    let _ = launched.child.wait().await;
}

fn cdp(e: jsprof_cdp::CdpError) -> ToolError {
    ToolError::Input(format!("recording: {e}"))
}

/// The root that holds `record_dir` (the first root if none does).
fn home_root(roots: &[std::path::PathBuf], record_dir: &std::path::Path) -> std::path::PathBuf {
    roots
        .iter()
        .find(|r| record_dir.starts_with(r))
        .or(roots.first())
        .cloned()
        .unwrap_or_else(|| record_dir.to_path_buf())
}

/// `record` with `url`: a page-load lab on the Chromium at `chrome`, into a new folder of the
/// record directory; the answer is `page_runs` over it.
async fn record_runs(
    q: Question<'_>,
    args: RecordArgs,
    url: String,
    dir: std::path::PathBuf,
) -> ToolResult<Answer> {
    let Some(addr) = args.chrome.as_deref() else {
        return Err(ToolError::BadRequest(
            "`url` loads a page in a Chromium: give `chrome` (HOST:PORT of its remote debugging)"
                .into(),
        ));
    };
    if args.command.is_some() {
        return Err(ToolError::BadRequest(
            "give `command` (a Node program) or `url` (a page), not both".into(),
        ));
    }
    jsprof_cdp::check_page_url(&url).map_err(|e| ToolError::BadRequest(format!("url {e}")))?;
    let runs = args.runs.unwrap_or(5);
    if !(1..=MAX_RUNS).contains(&runs) {
        return Err(ToolError::BadRequest(format!(
            "runs must be 1 to {MAX_RUNS}, not {runs}"
        )));
    }
    let cpu_slowdown = args.cpu_slowdown.unwrap_or(1.0);
    if !(cpu_slowdown.is_finite() && cpu_slowdown >= 1.0) {
        return Err(ToolError::BadRequest(format!(
            "cpu_slowdown must be 1 or more, not {cpu_slowdown}"
        )));
    }
    let network = match args.network.as_deref() {
        None => jsprof_cdp::NetworkPreset::None,
        Some(name) => jsprof_cdp::NetworkPreset::named(name).ok_or_else(|| {
            ToolError::BadRequest(format!(
                "network must be fast-4g, slow-4g or 3g, not {}",
                name.escape_debug()
            ))
        })?,
    };
    let folder = dir.join(format!("mcp-runs-{}", jsprof_cdp::timestamp()));
    std::fs::create_dir_all(&folder)
        .map_err(|e| ToolError::Internal(format!("cannot make {}: {e}", folder.display())))?;
    let browser = jsprof_cdp::Browser::connect(addr, Reach::Loopback, CONNECT)
        .await
        .map_err(cdp)?;
    let mut page = jsprof_cdp::PageLoad::new(&url);
    page.close_page = true;
    let spec = jsprof_cdp::LabSpec {
        url: url.clone(),
        throttling: jsprof_cdp::Throttling {
            cpu_slowdown,
            network,
        },
        warm: false,
        options: RecordOptions {
            trace: true,
            page_load: Some(page),
            ..RecordOptions::default()
        },
        dir: folder.clone(),
    };
    let lab = jsprof_cdp::Lab::start(&browser, spec).await.map_err(cdp)?;
    let width = runs.to_string().len().max(2);
    for i in 1..=runs {
        let run = lab
            .run(
                format!("run-{i:0width$}"),
                jsprof_cdp::Sinks::default(),
                std::future::pending::<()>(),
            )
            .await;
        let stop = match run {
            Ok(r) => r.stop,
            Err(e) => {
                lab.finish().await;
                return Err(ToolError::Input(format!("run {i} of {url}: {e}")));
            }
        };
        if let StopReason::NavigationFailed(why) = stop {
            lab.finish().await;
            return Err(ToolError::Input(format!(
                "run {i}: {url} did not load ({why}); the runs before it are in {}",
                folder.display()
            )));
        }
    }
    lab.finish().await;
    let args = crate::tools::PageRunsArgs {
        dir: folder.display().to_string(),
        list: None,
    };
    let mut answer = crate::tools::page_runs(q, args).await?;
    answer.text = format!(
        "{runs} runs of {url} in {}\n{}",
        folder.display(),
        answer.text
    );
    answer.json["dir"] = Value::String(folder.display().to_string());
    Ok(answer)
}

pub async fn record(q: Question<'_>, args: RecordArgs) -> ToolResult<Answer> {
    let seconds = args.seconds.unwrap_or(5.0);
    if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(ToolError::BadRequest(format!(
            "seconds must be more than 0 and at most {MAX_SECONDS}, not {seconds}"
        )));
    }
    let dir = q
        .store
        .config
        .record_dir
        .clone()
        .or_else(|| q.store.config.roots.first().cloned())
        .ok_or_else(|| {
            ToolError::BadRequest("the server has no directory to record into".into())
        })?;
    if let Some(url) = args.url.clone() {
        return record_runs(q, args, url, dir).await;
    }
    if args.runs.is_some() || args.cpu_slowdown.is_some() || args.network.is_some() {
        return Err(ToolError::BadRequest(
            "`runs`, `cpu_slowdown` and `network` go with `url` (a page-load lab)".into(),
        ));
    }
    let (target, mut child, connection) = match (&args.command, &args.chrome) {
        (Some(command), None) => {
            let cwd = match &args.dir {
                Some(d) => q.store.confine_dir(d)?,
                None => home_root(&q.store.config.roots, &dir),
            };
            // On stdio our standard input and output are the MCP channel: the program reads an
            // empty input and writes to our standard error.
            let options = jsprof_cdp::LaunchOptions {
                stdout_to_stderr: true,
                stdin_null: true,
                dir: Some(cwd),
            };
            let mut launched = jsprof_cdp::launch_with(command, &options).map_err(cdp)?;
            let registration = match first_process(&mut launched).await {
                Ok(r) => r,
                Err(e) => {
                    stop_command(&mut launched).await;
                    return Err(e);
                }
            };
            // This tool records the command's first Node process (`jsprof record` records
            // the whole tree): with the registry closed, the processes it starts later run
            // unrecorded instead of waiting for a debugger.
            if let Err(e) = launched.registry.close() {
                stop_command(&mut launched).await;
                return Err(ToolError::Internal(format!("closing the registry: {e}")));
            }
            let target = jsprof_cdp::Target {
                ws_url: registration.client.url().to_string(),
                kind: jsprof_cdp::TargetKind::Node,
                title: registration.title(),
                pid: Some(registration.pid),
            };
            let connection = (registration.client, registration.events);
            (target, Some(launched), Some(connection))
        }
        (None, Some(addr)) => (
            jsprof_cdp::resolve_chrome(addr, Reach::Loopback)
                .await
                .map_err(cdp)?,
            None,
            None,
        ),
        _ => {
            return Err(ToolError::BadRequest(
                "give exactly one of `command` (a Node command) or `chrome` (HOST:PORT)".into(),
            ))
        }
    };
    // A launched command's process is already connected (its in-process session, through the
    // registry); a Chromium page is reached over its debugging port.
    let (client, events) = match connection {
        Some(c) => c,
        None => Client::connect(&target.ws_url, CONNECT, Reach::Loopback)
            .await
            .map_err(cdp)?,
    };
    let chrome = target.kind == jsprof_cdp::TargetKind::ChromePage;
    let options = RecordOptions {
        cpu: true,
        trace: chrome,
        heap_snapshot: if args.heap_snapshot {
            SnapshotMode::AtEnd
        } else {
            SnapshotMode::Off
        },
        ..RecordOptions::default()
    };
    let output = OutputSpec {
        dir,
        stem: format!("mcp-{}", jsprof_cdp::timestamp()),
    };
    let mut recorder = Recorder::start(client, events, target.kind, options, output)
        .await
        .map_err(cdp)?;
    let stop = recorder
        .wait(Some(Duration::from_secs_f64(seconds)), false)
        .await
        .map_err(cdp)?;
    if let StopReason::TargetGone(detail) = &stop {
        return Err(ToolError::Input(format!(
            "{} went away before the recording was collected ({detail}); nothing was saved",
            target.title
        )));
    }
    let (artifacts, warnings) = recorder.finish().await.map_err(cdp)?;
    if let Some(launched) = child.as_mut() {
        if stop != StopReason::ProgramFinished {
            stop_command(launched).await;
        } else {
            let _ = tokio::time::timeout(Duration::from_secs(10), launched.child.wait()).await;
        }
    }
    let mut files = Vec::new();
    let mut text = format!("recorded {} ({stop:?})", target.title);
    for a in artifacts {
        let path = a.path.display().to_string();
        let entry = q.store.open(&path)?;
        text.push_str(&format!(
            "\n  {} {} ({} bytes): {path}",
            entry.handle,
            entry.kind(),
            a.bytes
        ));
        files.push(json!({
            "handle": entry.handle,
            "kind": entry.kind(),
            "path": path,
            "bytes": a.bytes,
        }));
    }
    let json = json!({
        "target": target.title,
        "stop": format!("{stop:?}"),
        "files": files,
        "warnings": warnings.into_iter().map(|m| json!({"at": "", "message": m})).collect::<Vec<Value>>(),
    });
    Ok(Answer { json, text })
}
