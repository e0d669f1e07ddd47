//! `jsprof record --chrome ADDR --trace --url URL --runs N`: a page-load lab. N loads of URL one
//! after the other, each in a page of a fresh browser context (a cold cache; `--warm` keeps one
//! context, warmed once; a cold lab starts with one load that is not recorded, in a context then
//! thrown away, so that the browser's own start-up is not the first run's), throttled as the Performance panel throttles (`--cpu-slowdown`,
//! `--network`), saved as `run-01…` traces beside a `manifest.json` that says how they were
//! taken. `jsprof insights DIR` reads the folder as a distribution, `jsprof diff --base A/
//! --target B/` compares two.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use jsprof_cdp::{Browser, Lab, LabSpec, Reach, RecordOptions, StopReason, Throttling};
use serde::Serialize;

use super::{page, Args, Signals, CONNECT_TIMEOUT};
use crate::output::{self, JsonWarning};

/// `manifest.json`: how the runs were taken.
#[derive(Serialize)]
pub struct Manifest {
    /// `page_runs_manifest`.
    kind: &'static str,
    url: String,
    /// `cold` (a fresh browser context per run) or `warm` (one context, loaded once first).
    cache: &'static str,
    /// `Emulation.setCPUThrottlingRate`'s rate (1: none).
    cpu_slowdown: f64,
    /// `none`, `fast-4g`, `slow-4g`, `3g`.
    network: &'static str,
    /// What `Network.emulateNetworkConditions` was given; `null` without network throttling.
    network_conditions: Option<NetworkJson>,
    /// Seconds recorded after each load event.
    settle_s: Option<f64>,
    runs_requested: usize,
    /// `/json/version`'s `Browser`.
    browser: String,
    user_agent: String,
    /// When the first run started, UTC (`2026-11-29T02:30:00Z`).
    started: String,
    runs: Vec<RunEntry>,
}

#[derive(Serialize)]
struct NetworkJson {
    latency_ms: f64,
    download_bytes_per_s: f64,
    upload_bytes_per_s: f64,
}

/// One run in the manifest.
#[derive(Serialize)]
struct RunEntry {
    /// The trace's file name in the folder.
    file: String,
    started: String,
    /// Why its recording ended (`PageLoaded`, `Duration`, …).
    stop_reason: String,
    warnings: Vec<String>,
}

/// What `--runs` recorded.
pub(super) struct Recorded {
    manifest: Manifest,
    warnings: Vec<JsonWarning>,
    interrupted: bool,
}

fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let t = jsprof_cdp::utc(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    )
}

/// Records the runs. A run whose page fails to load stops the lab (the runs before it stay,
/// listed in the manifest); Ctrl-C stops it after saving the run in progress.
pub(super) async fn record_runs(
    args: &Args,
    url: &str,
    n: usize,
    options: RecordOptions,
    throttling: Throttling,
) -> Result<Recorded> {
    if !crate::input::files_in(&args.out)?.is_empty() {
        bail!(
            "-o {}: --runs writes a folder of runs, and this one has files already \
             (`jsprof insights DIR` would read them as runs); give a new or empty folder",
            args.out.display()
        );
    }
    let mut signals = Signals::install()?;
    let addr = args.chrome.as_deref().unwrap_or_default();
    let browser = Browser::connect(addr, Reach::Any, CONNECT_TIMEOUT)
        .await
        .with_context(|| {
            format!(
                "--chrome {addr}: cannot reach the browser (is a Chromium started with \
                 --remote-debugging-port listening on it?)"
            )
        })?;
    let spec = page::page_spec(args, url, None)?;
    eprintln!(
        "jsprof: {}: loading {url} once, not recorded",
        if args.warm {
            "warming the cache"
        } else {
            "warming the browser up"
        }
    );
    let lab = Lab::start(
        &browser,
        LabSpec {
            url: url.to_string(),
            throttling,
            warm: args.warm,
            options: RecordOptions {
                page_load: Some(spec.clone()),
                ..options
            },
            dir: args.out.clone(),
        },
    )
    .await
    .with_context(|| format!("warming up with {url}"))?;
    let conditions = throttling.network.conditions();
    let mut manifest = Manifest {
        kind: "page_runs_manifest",
        url: url.to_string(),
        cache: if args.warm { "warm" } else { "cold" },
        cpu_slowdown: throttling.cpu_slowdown,
        network: throttling.network.as_str(),
        network_conditions: conditions.map(|c| NetworkJson {
            latency_ms: c.latency_ms,
            download_bytes_per_s: c.download_bytes_per_s,
            upload_bytes_per_s: c.upload_bytes_per_s,
        }),
        settle_s: spec.settle.map(|d| d.as_secs_f64()),
        runs_requested: n,
        browser: browser.version.clone(),
        user_agent: browser.user_agent.clone(),
        started: now_utc(),
        runs: Vec::new(),
    };
    let mut warnings = Vec::new();
    let mut interrupted = false;
    let width = n.to_string().len().max(2);
    for i in 1..=n {
        let stem = format!("run-{i:0width$}");
        eprintln!("jsprof: run {i} of {n}: {url}");
        let started = now_utc();
        let (sinks, printer) = page::printed(url);
        let recorded = lab.run(stem, sinks, signals.recv()).await;
        let _ = printer.await;
        let recorded = recorded.with_context(|| format!("run {i}: recording {url}"))?;
        let (stop, artifacts, run_warnings) =
            (recorded.stop, recorded.artifacts, recorded.warnings);
        for w in &run_warnings {
            warnings.push(JsonWarning {
                at: format!("run {i}"),
                message: w.clone(),
            });
        }
        for a in &artifacts {
            manifest.runs.push(RunEntry {
                file: a
                    .path
                    .file_name()
                    .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
                started: started.clone(),
                stop_reason: format!("{stop:?}"),
                warnings: run_warnings.clone(),
            });
        }
        write_manifest(args, &manifest)?;
        match stop {
            StopReason::Interrupted => {
                interrupted = true;
                break;
            }
            StopReason::NavigationFailed(why) => {
                bail!(
                    "run {i}: {url} did not load ({why}); the {} runs before it are in {}",
                    i - 1,
                    args.out.display()
                );
            }
            _ => {}
        }
    }
    lab.finish().await;
    Ok(Recorded {
        manifest,
        warnings,
        interrupted,
    })
}

fn write_manifest(args: &Args, manifest: &Manifest) -> Result<()> {
    let path = args.out.join("manifest.json");
    let mut text = serde_json::to_vec_pretty(manifest)?;
    text.push(b'\n');
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `--json`: the manifest with the warnings; otherwise the runs as `insights DIR` shows them.
pub(super) fn report(args: &Args, recorded: Recorded) -> Result<ExitCode> {
    #[derive(Serialize)]
    struct RunsJson<'a> {
        /// `page_runs_recording`.
        kind: &'static str,
        warnings: &'a [JsonWarning],
        dir: String,
        interrupted: bool,
        manifest: &'a Manifest,
    }
    if args.json {
        output::print_json(&RunsJson {
            kind: "page_runs_recording",
            warnings: &recorded.warnings,
            dir: args.out.display().to_string(),
            interrupted: recorded.interrupted,
            manifest: &recorded.manifest,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    {
        let mut out = std::io::stdout();
        writeln!(
            out,
            "{} runs of {} in {} ({} cache, CPU {}×, network {}; {})",
            recorded.manifest.runs.len(),
            recorded.manifest.url,
            args.out.display(),
            recorded.manifest.cache,
            recorded.manifest.cpu_slowdown,
            recorded.manifest.network,
            recorded.manifest.browser
        )?;
    }
    if recorded.manifest.runs.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    crate::cmd::insights::run(crate::cmd::insights::Args {
        file: args.out.clone(),
        json: false,
    })
}
