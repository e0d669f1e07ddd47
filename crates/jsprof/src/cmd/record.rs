//! `jsprof record`: take profiles over the Chrome DevTools Protocol from a Node command, a Node
//! inspector, a running Node process or a Chromium page, then summarize what was recorded.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use jsprof_cdp::{
    Artifact, ArtifactKind, Client, OutputSpec, Reach, RecordOptions, Registration, SnapshotMode,
    StopReason, TargetKind, TargetLabel, TargetRecording, Tree, TreeHandle,
};
use serde::Serialize;

use crate::output::{self, JsonWarning};

mod page;
mod runs;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof record --cpu -o profiles -- node app.js
  jsprof record --open -- npm run build       # every Node process and worker; then the UI
  timeout 60 jsprof record -- node server.js  # SIGTERM stops it like Ctrl-C, saving
  jsprof record --inspect 127.0.0.1:9229 --cpu --heap-sampling --duration 10
  jsprof record --pid 4242 --heap-snapshot --duration 30
  jsprof record --chrome 127.0.0.1:9222 --trace --cpu --duration 5
  jsprof record --chrome 127.0.0.1:9222 --trace --url http://localhost:8080/  # Record and reload
  jsprof record --chrome 127.0.0.1:9222 --trace --url http://localhost:8080/ --runs 10 \
      --cpu-slowdown 4 --network slow-4g -o runs/main   # 10 cold loads: jsprof insights runs/main")]
pub struct Args {
    /// Attach to a Node inspector: HOST:PORT (its /json/list picks the target) or a ws:// URL.
    #[arg(long, value_name = "HOST:PORT|ws://…", conflicts_with_all = ["pid", "chrome"])]
    pub inspect: Option<String>,
    /// Attach to a running Node process: SIGUSR1 opens its inspector on 127.0.0.1:9229.
    #[arg(long, value_name = "PID", conflicts_with = "chrome")]
    pub pid: Option<u32>,
    /// A Chromium started with --remote-debugging-port: its first page (or a new blank one).
    #[arg(long, value_name = "HOST:PORT")]
    pub chrome: Option<String>,
    /// Record a CPU profile (.cpuprofile). The default when nothing else is asked for.
    #[arg(long)]
    pub cpu: bool,
    /// CPU sampling interval in microseconds.
    #[arg(long, value_name = "US")]
    pub interval: Option<u32>,
    /// Record a sampling heap profile (.heapprofile).
    #[arg(long)]
    pub heap_sampling: bool,
    /// Take a heap snapshot (.heapsnapshot) at the end, or every --every seconds and at the end.
    #[arg(long)]
    pub heap_snapshot: bool,
    /// With --heap-snapshot: only at the end (the default).
    #[arg(long, requires = "heap_snapshot", conflicts_with = "every")]
    pub at_end: bool,
    /// With --heap-snapshot: one every S seconds (at least 0.25), and one at the end; named
    /// STEM-1, STEM-2, … (zero-padded) so that a glob lists them in order.
    #[arg(long, value_name = "S", requires = "heap_snapshot")]
    pub every: Option<f64>,
    /// Record a Performance-panel trace (Chromium only; with --cpu it carries JS samples).
    #[arg(long)]
    pub trace: bool,
    /// With --chrome and --trace: record the load of URL in a new tab, as the Performance
    /// panel's "Record and reload" does (its categories, JS samples and screenshots on); the
    /// recording ends 3 s after the load event (at most 60 s without one), or at --duration
    /// seconds after the navigation.
    #[arg(long, value_name = "URL", requires_all = ["chrome", "trace"])]
    pub url: Option<String>,
    /// With --url: stop after S seconds without a load event (default 60), keeping the trace.
    #[arg(long, value_name = "S", requires = "url", conflicts_with = "duration")]
    pub load_timeout: Option<f64>,
    /// With --url: how long the recording goes on after the load event (default 3 s).
    #[arg(long, value_name = "S", requires = "url", conflicts_with = "duration")]
    pub settle: Option<f64>,
    /// With --url: record N loads of URL one after the other, each in a fresh browser context
    /// (Target.createBrowserContext: a cold HTTP cache, no cookies or storage), saved in -o DIR
    /// as run-01…run-N traces and manifest.json (URL, settings, browser version, start time,
    /// each run's file). `jsprof insights DIR` reads them as a distribution and
    /// `jsprof diff --base A/ --target B/` compares two such folders.
    #[arg(long, value_name = "N", requires = "url", conflicts_with = "duration")]
    pub runs: Option<usize>,
    /// With --runs: keep the cache: every run in one browser context, warmed by one load of URL
    /// that is not recorded.
    #[arg(long, requires = "runs")]
    pub warm: bool,
    /// With --url: CPU throttling as the Performance panel applies it
    /// (Emulation.setCPUThrottlingRate): 4 is its "4× slowdown"; 1, the default, none.
    #[arg(long, value_name = "X", requires = "url")]
    pub cpu_slowdown: Option<f64>,
    /// With --url: a network profile of DevTools' throttling menu, with DevTools' numbers
    /// (Network.emulateNetworkConditions): fast-4g (165 ms, 8.1 Mbit/s down), slow-4g (562.5 ms,
    /// 1.44 Mbit/s), 3g (2000 ms, 400 kbit/s); none, the default, leaves the network alone.
    #[arg(long, value_enum, value_name = "PRESET", requires = "url")]
    pub network: Option<NetworkArg>,
    /// Stop after S seconds (otherwise at Ctrl-C or when the launched command finishes).
    #[arg(long, value_name = "S")]
    pub duration: Option<f64>,
    /// Directory for the recorded files.
    #[arg(short = 'o', long = "out", value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// File name stem (default: what was recorded and when).
    #[arg(long)]
    pub name: Option<String>,
    /// Print JSON (the recorded files) instead of summaries.
    #[arg(long)]
    pub json: bool,
    /// Then open what was recorded in the browser UI (as `jsprof view` does).
    #[arg(long)]
    pub open: bool,
    /// The Node command to launch and record: `-- node app.js …`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `--network`: DevTools' throttling presets ([`jsprof_cdp::NetworkPreset`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum NetworkArg {
    None,
    #[value(name = "fast-4g")]
    Fast4g,
    #[value(name = "slow-4g")]
    Slow4g,
    #[value(name = "3g")]
    ThreeG,
}

impl Args {
    /// `--cpu-slowdown` and `--network`, checked.
    fn throttling(&self) -> Result<jsprof_cdp::Throttling> {
        let cpu_slowdown = self.cpu_slowdown.unwrap_or(1.0);
        if !(cpu_slowdown.is_finite() && cpu_slowdown >= 1.0) {
            bail!("--cpu-slowdown needs a factor of 1 or more (4 is DevTools' 4× slowdown), not {cpu_slowdown}");
        }
        Ok(jsprof_cdp::Throttling {
            cpu_slowdown,
            network: match self.network {
                None | Some(NetworkArg::None) => jsprof_cdp::NetworkPreset::None,
                Some(NetworkArg::Fast4g) => jsprof_cdp::NetworkPreset::Fast4g,
                Some(NetworkArg::Slow4g) => jsprof_cdp::NetworkPreset::Slow4g,
                Some(NetworkArg::ThreeG) => jsprof_cdp::NetworkPreset::ThreeG,
            },
        })
    }
}

#[derive(Serialize)]
struct ArtifactJson {
    kind: &'static str,
    path: String,
    bytes: u64,
    /// The process it is of; `null` for a Chromium page.
    pid: Option<u32>,
    /// The worker thread's id; `null` for a process's main thread.
    worker: Option<String>,
}

/// One recorded process or worker thread.
#[derive(Serialize)]
struct TargetJson {
    pid: Option<u32>,
    ppid: Option<u32>,
    worker: Option<String>,
    title: String,
    /// Why its own recording ended; `null` when it could not start.
    stop_reason: Option<String>,
    /// Why it has no (or not all) files.
    error: Option<String>,
    files: Vec<String>,
}

/// How a launched program ended.
#[derive(Serialize)]
struct ProgramJson {
    pid: u32,
    /// Its exit code; `null` when a signal ended it or it still runs.
    exit_code: Option<i32>,
    /// The signal that ended it.
    signal: Option<i32>,
    /// jsprof ended it (Ctrl-C or --duration) rather than the program finishing by itself.
    stopped_by_jsprof: bool,
    /// It failed by itself: a non-zero exit, an uncaught exception, a signal (exit code 1).
    failed: bool,
}

#[derive(Serialize)]
struct RecordJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    target: String,
    stop_reason: String,
    artifacts: Vec<ArtifactJson>,
    /// Every process and worker thread recorded, in the order they started.
    targets: Vec<TargetJson>,
    /// The launched command's end; `null` for --inspect, --pid and --chrome.
    program: Option<ProgramJson>,
}

/// What a recording produced.
struct Outcome {
    target: String,
    stop: StopReason,
    targets: Vec<TargetRecording>,
    program: Option<ProgramJson>,
    warnings: Vec<JsonWarning>,
}

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

fn seconds(s: f64, flag: &str) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0) {
        bail!("{flag} needs a positive number of seconds, not {s}");
    }
    Ok(Duration::from_secs_f64(s))
}

pub fn run(args: Args) -> Result<ExitCode> {
    let targets = [
        args.inspect.is_some(),
        args.pid.is_some(),
        args.chrome.is_some(),
        !args.command.is_empty(),
    ];
    match targets.iter().filter(|t| **t).count() {
        0 => bail!("nothing to record: give a command after `--`, or --inspect, --pid or --chrome"),
        1 => {}
        _ => bail!("give one target: a command after `--`, or one of --inspect, --pid, --chrome"),
    }
    let mut options = RecordOptions {
        cpu: args.cpu,
        interval_us: args.interval,
        heap_sampling: args.heap_sampling,
        heap_sampling_interval: None,
        heap_snapshot: match (args.heap_snapshot, args.every) {
            (false, _) => SnapshotMode::Off,
            (true, None) => SnapshotMode::AtEnd,
            (true, Some(s)) => {
                let every = seconds(s, "--every")?;
                if every < jsprof_cdp::MIN_SNAPSHOT_PERIOD {
                    bail!(
                        "--every {s}: at least {} s between heap snapshots (each one pauses the \
                     program while the heap is written)",
                        jsprof_cdp::MIN_SNAPSHOT_PERIOD.as_secs_f64()
                    );
                }
                SnapshotMode::Every(every)
            }
        },
        trace: args.trace,
        snapshot_quota: None,
        // Beside each snapshot of a Node isolate: its process.memoryUsage(), for `heap process`.
        memory_usage: args.heap_snapshot,
        workers: false,
        page_load: None,
    };
    if !options.cpu
        && !options.heap_sampling
        && options.heap_snapshot == SnapshotMode::Off
        && !options.trace
    {
        options.cpu = true;
    }
    if options.trace
        && args.chrome.is_none()
        && args
            .inspect
            .as_deref()
            .is_none_or(|i| !i.contains("/devtools/page/"))
    {
        bail!("--trace needs a Chromium page (--chrome HOST:PORT); Node's inspector has no Tracing domain");
    }
    let duration = args
        .duration
        .map(|s| seconds(s, "--duration"))
        .transpose()?;
    if args.command.is_empty()
        && duration.is_none()
        && args.url.is_none()
        && !std::io::IsTerminal::is_terminal(&std::io::stdin())
    {
        // Without a terminal nobody can press Ctrl-C: say so rather than wait forever unnoticed.
        eprintln!(
            "jsprof: recording until interrupted (SIGINT); give --duration to stop by itself"
        );
    }
    if let Some(url) = &args.url {
        jsprof_cdp::check_page_url(url).map_err(|e| anyhow::anyhow!("--url {e}"))?;
    }
    // Before anything runs: a recording that cannot be saved is lost whole.
    probe_output(&args.out)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let throttling = args.throttling()?;
    if let (Some(url), Some(n)) = (&args.url, args.runs) {
        if n == 0 {
            bail!("--runs needs at least 1 run");
        }
        let recorded = runtime.block_on(runs::record_runs(&args, url, n, options, throttling))?;
        drop(runtime);
        return runs::report(&args, recorded);
    }
    let mut outcome = match &args.url {
        Some(url) => runtime.block_on(page::record_page_load(
            &args, url, options, duration, throttling,
        ))?,
        None => runtime.block_on(record(&args, options, duration))?,
    };
    drop(runtime);
    // A page that failed to load: its trace is saved and listed, and the command fails as for
    // bad input (the warning said why).
    let load_failed = matches!(outcome.stop, StopReason::NavigationFailed(_));
    // Processes in the order they started; each one's workers after it.
    outcome.targets.sort_by_key(|t| {
        (
            t.label.pid,
            t.label.worker.is_some(),
            t.label.worker.clone(),
        )
    });
    let artifacts: Vec<(&TargetLabel, &Artifact)> = outcome
        .targets
        .iter()
        .flat_map(|t| t.artifacts.iter().map(move |a| (&t.label, a)))
        .collect();
    for t in &outcome.targets {
        if let Some(error) = &t.error {
            eprintln!("jsprof: {}: {error}", jsprof_cdp::describe(&t.label));
        }
    }
    if artifacts.is_empty() {
        if outcome.targets.is_empty() {
            let how = outcome.program.as_ref().map(describe).unwrap_or_default();
            bail!(
                "{} started no Node process that could be recorded{}; nothing was saved",
                outcome.target,
                if how.is_empty() {
                    how
                } else {
                    format!(" (it {how})")
                }
            );
        }
        bail!("{}: nothing was saved", outcome.target);
    }
    // A program that failed by itself fails the command (exit 1, "a check failed"), the
    // recording still saved. Its own code is not mirrored: 2 means bad usage here, and a signal
    // has no code; the JSON `program` says exactly how it ended.
    let code = match &outcome.program {
        Some(p) if p.failed => {
            eprintln!(
                "jsprof: {} {}; the recording is saved",
                outcome.target,
                describe(p)
            );
            ExitCode::from(1)
        }
        _ if load_failed => ExitCode::from(2),
        _ => ExitCode::SUCCESS,
    };
    let files: Vec<PathBuf> = artifacts.iter().map(|(_, a)| a.path.clone()).collect();

    if args.json {
        output::print_json(&RecordJson {
            kind: "recording",
            warnings: outcome.warnings,
            target: outcome.target.clone(),
            stop_reason: format!("{:?}", outcome.stop),
            artifacts: artifacts
                .iter()
                .map(|(label, a)| ArtifactJson {
                    kind: a.kind.as_str(),
                    path: a.path.display().to_string(),
                    bytes: a.bytes,
                    pid: label.pid,
                    worker: label.worker.clone(),
                })
                .collect(),
            targets: outcome
                .targets
                .iter()
                .map(|t| TargetJson {
                    pid: t.label.pid,
                    ppid: t.label.ppid,
                    worker: t.label.worker.clone(),
                    title: t.label.title.clone(),
                    stop_reason: t.stop.as_ref().map(|s| format!("{s:?}")),
                    error: t.error.clone(),
                    files: t
                        .artifacts
                        .iter()
                        .map(|a| a.path.display().to_string())
                        .collect(),
                })
                .collect(),
            program: outcome.program,
        })?;
    } else {
        let several = outcome.targets.len() > 1;
        let mut stdout = std::io::stdout();
        for t in &outcome.targets {
            if several && !t.artifacts.is_empty() {
                // A process's label quotes its command line: shown as the tables show names.
                let label = jsprof_cdp::describe(&t.label);
                writeln!(stdout, "\n== {} ==", output::shown(&label))?;
            }
            for artifact in &t.artifacts {
                writeln!(
                    stdout,
                    "\n{} ({})",
                    artifact.path.display(),
                    output::fmt_bytes(artifact.bytes as f64)
                )?;
                summarize(artifact)?;
            }
        }
    }
    if args.open {
        crate::cmd::view::run(crate::cmd::view::Args {
            files,
            base: Vec::new(),
            target: Vec::new(),
            no_open: false,
            port: 0,
            filters: Default::default(),
            sourcemap: Vec::new(),
            source_dir: Vec::new(),
        })?;
    }
    Ok(code)
}

/// Creates the output directory and a file in it, then removes the file: a bad or read-only
/// `-o` is an error before the program is launched, not after it has been recorded.
fn probe_output(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("-o {}: cannot create the directory", dir.display()))?;
    let probe = dir.join(format!(".jsprof-probe-{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let written = options
        .open(&probe)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"x"));
    let _ = std::fs::remove_file(&probe);
    written.with_context(|| format!("-o {}: cannot write recordings there", dir.display()))
}

fn describe(p: &ProgramJson) -> String {
    match (p.exit_code, p.signal) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "did not exit".to_string(),
    }
}

/// How a launched program ended, as `record` reports it.
fn program_status(
    pid: u32,
    status: Option<std::process::ExitStatus>,
    stopped_by_jsprof: bool,
) -> ProgramJson {
    use std::os::unix::process::ExitStatusExt;
    let exit_code = status.and_then(|s| s.code());
    let signal = status.and_then(|s| s.signal());
    ProgramJson {
        pid,
        exit_code,
        signal,
        stopped_by_jsprof,
        failed: !stopped_by_jsprof && status.is_some_and(|s| !s.success()),
    }
}

/// The `summary` of a recorded file; a file jsprof cannot summarize yet is just listed. A
/// closed standard output (`| head`) ends the listing.
fn summarize(artifact: &Artifact) -> Result<()> {
    if artifact.kind == ArtifactKind::MemoryUsage {
        // Read by `heap process`; its numbers are in the file itself.
        return Ok(());
    }
    let file = artifact.path.clone();
    let result = match artifact.kind {
        ArtifactKind::HeapSnapshot => crate::cmd::heap::run(
            crate::cmd::heap::HeapCommand::Summary(crate::cmd::heap::SummaryArgs {
                file,
                query: jsprof_document::heap_query::HeapSummaryQuery {
                    limit: 10,
                    ..Default::default()
                },
                between: None,
                source_maps: Default::default(),
                json: false,
            }),
        ),
        _ => crate::cmd::summary::run(crate::cmd::summary::Args {
            file,
            limit: 10,
            thread: None,
            range: None,
            categories: false,
            json: false,
        }),
    };
    match result {
        Err(e) if output::is_broken_pipe(&e) => Err(e),
        Err(e) => {
            eprintln!("  (no summary: {e:#})");
            Ok(())
        }
        Ok(_) => Ok(()),
    }
}

fn stem(args: &Args, what: &str) -> String {
    args.name
        .clone()
        .unwrap_or_else(|| format!("{what}-{}", jsprof_cdp::timestamp()))
}

/// A file-name-friendly stem from a target's title: `node[42]` → `node-42`, a page URL → its
/// last path segment (or host).
fn sanitize(s: &str) -> String {
    let s = match s.split_once("://") {
        Some((_, rest)) => rest
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(rest),
        None => s,
    };
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    cleaned.trim_matches('-').chars().take(40).collect()
}

/// The stop signals, installed before anything is launched: a SIGTERM (from `timeout`, a
/// cancelled CI job) is a request to stop like Ctrl-C — collect, save, stop the program — never
/// the default death that leaves the program running with its inspector open.
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt()).context("cannot handle SIGINT")?,
            terminate: signal(SignalKind::terminate()).context("cannot handle SIGTERM")?,
        })
    }

    async fn recv(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// How long collecting every target's files may take after the stop.
const COLLECT_TIMEOUT: Duration = Duration::from_secs(600);

async fn record(
    args: &Args,
    options: RecordOptions,
    duration: Option<Duration>,
) -> Result<Outcome> {
    let mut signals = Signals::install()?;
    let options = RecordOptions {
        workers: true,
        ..options
    };
    let deadline = duration.map(|d| tokio::time::Instant::now() + d);
    let (tree, mut handle) = Tree::new(options, deadline);
    let mut results: Vec<TargetRecording> = Vec::new();
    let mut warnings = Vec::new();
    let until_deadline = async {
        match deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(until_deadline);
    let announce = |what: &str| {
        eprintln!(
            "jsprof: recording {what}{}",
            match (duration, args.command.is_empty()) {
                (Some(d), _) => format!(" for {:.1} s", d.as_secs_f64()),
                (None, false) => " until it finishes (Ctrl-C to stop earlier)".to_string(),
                (None, true) => " (Ctrl-C to stop)".to_string(),
            }
        )
    };

    if args.command.is_empty() {
        let target = if let Some(spec) = &args.inspect {
            jsprof_cdp::resolve_inspect(spec, Reach::Any).await?
        } else if let Some(pid) = args.pid {
            jsprof_cdp::resolve_pid(pid, CONNECT_TIMEOUT).await?
        } else {
            jsprof_cdp::resolve_chrome(args.chrome.as_deref().unwrap_or_default(), Reach::Any)
                .await?
        };
        let output = OutputSpec {
            dir: args.out.clone(),
            stem: stem(args, &sanitize(&target.title).replace("--", "-")),
        };
        let (client, events) = Client::connect(&target.ws_url, CONNECT_TIMEOUT, Reach::Any)
            .await
            .with_context(|| format!("cannot attach to {}", target.title))?;
        let label = TargetLabel {
            pid: target.pid,
            ppid: None,
            worker: None,
            title: target.title.clone(),
        };
        tree.spawn(client, events, target.kind, output, label);
        announce(&target.title);
        let stop = loop {
            tokio::select! {
                _ = &mut until_deadline => break StopReason::Duration,
                _ = signals.recv() => break StopReason::Interrupted,
                Some(w) = handle.warnings.recv() => print_warning(&mut warnings, w),
                Some(r) = handle.done.recv() => {
                    // The target itself ended the recording (it went away, or finished).
                    let stop = r.stop.clone().unwrap_or(StopReason::TargetGone(String::new()));
                    results.push(r);
                    break stop;
                }
            }
        };
        drop(tree);
        let _ = handle.stop.send(true);
        collect(&mut handle, &mut results, &mut warnings).await;
        return Ok(Outcome {
            target: target.title,
            stop,
            targets: results,
            program: None,
            warnings,
        });
    }

    let mut launched = jsprof_cdp::launch(&args.command, args.json)?;
    let program = Path::new(&args.command[0])
        .file_name()
        .map_or("node".into(), |n| n.to_string_lossy().to_string());
    let title = format!("{program}[{}]", launched.pid);
    let base = stem(args, &format!("{}-{}", sanitize(&program), launched.pid));
    announce(&format!(
        "{} and every Node process it starts",
        args.command.join(" ")
    ));
    let mut poll = tokio::time::interval(Duration::from_millis(25));
    let mut first = true;
    let attach = |registration: &Registration, first: &mut bool| {
        let title = registration.title();
        let stem = if std::mem::take(first) {
            base.clone()
        } else {
            format!("{base}-pid{}", registration.pid)
        };
        let label = TargetLabel {
            pid: Some(registration.pid),
            ppid: Some(registration.ppid),
            worker: None,
            title,
        };
        let output = OutputSpec {
            dir: args.out.clone(),
            stem,
        };
        (output, label)
    };
    let (stop, status) = loop {
        tokio::select! {
            _ = &mut until_deadline => break (StopReason::Duration, None),
            _ = signals.recv() => break (StopReason::Interrupted, None),
            status = launched.child.wait() => break (StopReason::ProgramFinished, status.ok()),
            Some(w) = handle.warnings.recv() => print_warning(&mut warnings, w),
            Some(r) = handle.done.recv() => results.push(r),
            _ = poll.tick() => {
                // Each process connected to our private registry through its in-process
                // session; it waits until its recording has started.
                for registration in launched.registry.poll() {
                    let (output, label) = attach(&registration, &mut first);
                    eprintln!("jsprof: recording {}", jsprof_cdp::describe(&label));
                    tree.spawn(
                        registration.client,
                        registration.events,
                        TargetKind::Node,
                        output,
                        label,
                    );
                }
            }
        }
    };
    // Whatever still runs is recorded up to now: collect it all, then stop the program.
    drop(tree);
    let _ = handle.stop.send(true);
    collect(&mut handle, &mut results, &mut warnings).await;
    let stopped_by_jsprof = stop != StopReason::ProgramFinished;
    let status = match status {
        Some(status) => {
            // The program finished by itself; processes it left behind are stopped too.
            launched.signal_tree(libc::SIGINT);
            Some(status)
        }
        None => stop_program(&mut launched).await,
    };
    Ok(Outcome {
        target: title,
        stop,
        targets: results,
        program: Some(program_status(launched.pid, status, stopped_by_jsprof)),
        warnings,
    })
}

/// Interrupts the launched program's whole tree as Ctrl-C would have, and kills what has not
/// exited after [`jsprof_cdp::EXIT_GRACE`]: no process is left running, none paused.
async fn stop_program(launched: &mut jsprof_cdp::Launched) -> Option<std::process::ExitStatus> {
    launched.signal_tree(libc::SIGINT);
    let status = tokio::time::timeout(jsprof_cdp::EXIT_GRACE, launched.child.wait())
        .await
        .ok()
        .and_then(|s| s.ok());
    // Children outlive their parent's exit by a moment; a paused one never exits by itself.
    tokio::time::sleep(Duration::from_millis(200)).await;
    launched.signal_tree(libc::SIGKILL);
    match status {
        Some(s) => Some(s),
        None => launched.child.wait().await.ok(),
    }
}

/// Waits for every target's task to hand in its files.
async fn collect(
    handle: &mut TreeHandle,
    results: &mut Vec<TargetRecording>,
    warnings: &mut Vec<JsonWarning>,
) {
    let deadline = tokio::time::Instant::now() + COLLECT_TIMEOUT;
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {
                let message = format!(
                    "gave up waiting for recordings after {} s",
                    COLLECT_TIMEOUT.as_secs()
                );
                print_warning(warnings, ("recording".to_string(), message));
                return;
            }
            Some(w) = handle.warnings.recv() => print_warning(warnings, w),
            r = handle.done.recv() => match r {
                Some(r) => results.push(r),
                None => break,
            },
        }
    }
    while let Ok(w) = handle.warnings.try_recv() {
        print_warning(warnings, w);
    }
}

fn print_warning(warnings: &mut Vec<JsonWarning>, (at, message): (String, String)) {
    eprintln!("jsprof: warning: {at}: {message}");
    warnings.push(JsonWarning { at, message });
}
