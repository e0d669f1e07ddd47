//! `jsprof record`: take profiles over the Chrome DevTools Protocol from a Node command, a Node
//! inspector, a running Node process or a Chromium page, then summarize what was recorded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use jsprof_cdp::{
    Artifact, ArtifactKind, Client, OutputSpec, Reach, RecordOptions, Recorder, SnapshotMode,
    StopReason,
};
use serde::Serialize;

use crate::output::{self, JsonWarning};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  jsprof record --cpu -o profiles -- node app.js
  jsprof record --inspect 127.0.0.1:9229 --cpu --heap-sampling --duration 10
  jsprof record --pid 4242 --heap-snapshot --duration 30
  jsprof record --chrome 127.0.0.1:9222 --trace --cpu --duration 5")]
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
    /// With --heap-snapshot: one every S seconds, and one at the end.
    #[arg(long, value_name = "S", requires = "heap_snapshot")]
    pub every: Option<f64>,
    /// Record a Performance-panel trace (Chromium only; with --cpu it carries JS samples).
    #[arg(long)]
    pub trace: bool,
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
    /// The Node command to launch and record: `-- node app.js …`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Serialize)]
struct ArtifactJson {
    kind: &'static str,
    path: String,
    bytes: u64,
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
    /// The launched command's end; `null` for --inspect, --pid and --chrome.
    program: Option<ProgramJson>,
}

/// What a recording produced.
struct Outcome {
    target: String,
    stop: StopReason,
    artifacts: Vec<Artifact>,
    program: Option<ProgramJson>,
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
            (true, Some(s)) => SnapshotMode::Every(seconds(s, "--every")?),
        },
        trace: args.trace,
        snapshot_quota: None,
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
        && !std::io::IsTerminal::is_terminal(&std::io::stdin())
    {
        // Without a terminal nobody can press Ctrl-C: say so rather than wait forever unnoticed.
        eprintln!(
            "jsprof: recording until interrupted (SIGINT); give --duration to stop by itself"
        );
    }
    // Before anything runs: a recording that cannot be saved is lost whole.
    probe_output(&args.out)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(record(&args, options, duration))?;
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
        _ => ExitCode::SUCCESS,
    };

    if args.json {
        output::print_json(&RecordJson {
            kind: "recording",
            warnings: Vec::new(),
            target: outcome.target,
            stop_reason: format!("{:?}", outcome.stop),
            artifacts: outcome
                .artifacts
                .iter()
                .map(|a| ArtifactJson {
                    kind: a.kind.as_str(),
                    path: a.path.display().to_string(),
                    bytes: a.bytes,
                })
                .collect(),
            program: outcome.program,
        })?;
        return Ok(code);
    }
    for artifact in &outcome.artifacts {
        println!(
            "\n{} ({})",
            artifact.path.display(),
            output::fmt_bytes(artifact.bytes as f64)
        );
        summarize(artifact);
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

/// The `summary` of a recorded file; a file jsprof cannot summarize yet is just listed.
fn summarize(artifact: &Artifact) {
    let file = artifact.path.clone();
    let result = match artifact.kind {
        ArtifactKind::HeapSnapshot => crate::cmd::heap::run(
            crate::cmd::heap::HeapCommand::Summary(crate::cmd::heap::SummaryArgs {
                file,
                sort: crate::cmd::heap::Sort::Retained,
                limit: 10,
                json: false,
            }),
        ),
        _ => crate::cmd::summary::run(crate::cmd::summary::Args {
            file,
            limit: 10,
            thread: None,
            json: false,
        }),
    };
    if let Err(e) = result {
        eprintln!("  (no summary: {e:#})");
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

async fn record(
    args: &Args,
    options: RecordOptions,
    duration: Option<Duration>,
) -> Result<Outcome> {
    let mut child = None;
    let target = if !args.command.is_empty() {
        let launched = jsprof_cdp::launch(&args.command, CONNECT_TIMEOUT, args.json).await?;
        let program = Path::new(&args.command[0])
            .file_name()
            .map_or("node".into(), |n| n.to_string_lossy().to_string());
        let title = format!("{program}[{}]", launched.pid);
        child = Some(launched.child);
        jsprof_cdp::Target {
            ws_url: launched.ws_url,
            kind: jsprof_cdp::TargetKind::Node,
            title,
            pid: Some(launched.pid),
        }
    } else if let Some(spec) = &args.inspect {
        jsprof_cdp::resolve_inspect(spec, Reach::Any).await?
    } else if let Some(pid) = args.pid {
        jsprof_cdp::resolve_pid(pid, CONNECT_TIMEOUT).await?
    } else {
        jsprof_cdp::resolve_chrome(args.chrome.as_deref().unwrap_or_default(), Reach::Any).await?
    };
    let stem = stem(args, &sanitize(&target.title).replace("--", "-"));
    let output = OutputSpec {
        dir: args.out.clone(),
        stem,
    };
    let (client, events) = Client::connect(&target.ws_url, CONNECT_TIMEOUT, Reach::Any)
        .await
        .with_context(|| format!("cannot attach to {}", target.title))?;
    let mut recorder = Recorder::start(client, events, target.kind, options, output).await?;
    eprintln!(
        "jsprof: recording {}{}",
        target.title,
        match (duration, child.is_some()) {
            (Some(d), _) => format!(" for {:.1} s", d.as_secs_f64()),
            (None, true) => " until it finishes (Ctrl-C to stop earlier)".to_string(),
            (None, false) => " (Ctrl-C to stop)".to_string(),
        }
    );
    let stop = recorder.wait(duration, true).await?;
    if let StopReason::TargetGone(detail) = &stop {
        if let Some(mut c) = child {
            let status = c.wait().await.ok();
            return Err(anyhow!(
                "{} exited before the recording was collected{}; nothing was saved",
                target.title,
                status.map(|s| format!(" ({s})")).unwrap_or_default()
            ));
        }
        return Err(anyhow!(
            "{} went away during the recording ({detail}); nothing was saved",
            target.title
        ));
    }
    let artifacts = recorder
        .stop()
        .await
        .with_context(|| format!("collecting the recording from {}", target.title))?;
    let mut program = None;
    if let Some(mut c) = child {
        let stopped_by_jsprof = stop != StopReason::ProgramFinished;
        let pid = c.id().unwrap_or(0);
        if stopped_by_jsprof {
            // We stopped early (Ctrl-C or --duration): interrupt the program as Ctrl-C would have.
            if let Some(pid) = c.id() {
                // SAFETY: sending SIGINT to our own child process.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
            }
        }
        let status = tokio::time::timeout(Duration::from_secs(10), c.wait())
            .await
            .ok()
            .and_then(|s| s.ok());
        program = Some(program_status(pid, status, stopped_by_jsprof));
    }
    Ok(Outcome {
        target: target.title,
        stop,
        artifacts,
        program,
    })
}
