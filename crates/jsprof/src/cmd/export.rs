//! `jsprof export FILE --format F -o OUT`: the profile in a format other tools open.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_analysis::TimeRange;
use jsprof_profile::export::{cpuprofile_writer, d3, folded, otlp, pprof, speedscope};

use crate::load::load_cpu;
use crate::output;
use crate::output_file::create_output;
use crate::range_arg;
use jsprof_document::load::ViewSpec;

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The format to write.
    #[arg(long, short, value_enum)]
    pub format: Format,
    /// Where to write; `-` for stdout.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Only the time window START..END in ms from the profile's start (either side may be empty).
    #[arg(long, value_parser = range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<TimeRange>,
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// For `--format otlp`/`otlp-json`: the resource's `service.name`.
    #[arg(long)]
    pub service: Option<String>,
    /// For `--format otlp`/`otlp-json`: the profile's wall-clock start (RFC 3339, or ms since
    /// the Unix epoch; a .cpuprofile's `startTime`), for `time_unix_nano` (each thread's first
    /// sample on that clock). The files read here carry only monotonic clocks: without it
    /// `time_unix_nano` is 0, which OTLP reads as unknown.
    #[arg(long, value_name = "RFC3339|UNIX_MS", value_parser = parse_start_time)]
    pub start_time: Option<i64>,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// Folded stacks for inferno / flamegraph.pl (weights in µs, or bytes).
    Folded,
    /// A .cpuprofile for DevTools (a heap profile is written as a .heapprofile).
    Cpuprofile,
    /// speedscope's JSON file format (sampled profiles with weights).
    Speedscope,
    /// gzipped pprof profile.proto (samples/count + wall/nanoseconds, or space/bytes).
    Pprof,
    /// The OpenTelemetry profiles signal (Alpha), opentelemetry-proto v1.10.0: a binary
    /// ExportProfilesServiceRequest, every thread unless `--thread` names one (that one first).
    Otlp,
    /// `otlp` as OTLP/JSON (the protobuf JSON mapping).
    OtlpJson,
    /// d3-flame-graph's JSON tree (name / value / children).
    D3,
    /// The timeline (reconstructed calls and engine events) as Chrome trace events, which
    /// DevTools' Performance panel and Perfetto open.
    ChromeTrace,
}

/// `--start-time`: an RFC 3339 time, or milliseconds since the Unix epoch; in ns since the epoch.
pub fn parse_start_time(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let ns = if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse::<i64>()
            .ok()
            .and_then(|ms| ms.checked_mul(1_000_000))
    } else {
        chrono::DateTime::parse_from_rfc3339(text)
            .ok()
            .and_then(|t| t.timestamp_nanos_opt())
    };
    ns.ok_or_else(|| {
        format!(
            "`{text}`: expected an RFC 3339 time (2026-11-23T12:00:00Z) or ms since the Unix \
             epoch, between 1970 and 2262"
        )
    })
}

pub fn run(args: Args) -> Result<ExitCode> {
    let otlp = matches!(args.format, Format::Otlp | Format::OtlpJson);
    if args.service.is_some() && !otlp {
        anyhow::bail!("--service is only used by --format otlp and otlp-json");
    }
    if args.start_time.is_some() && !otlp {
        anyhow::bail!("--start-time is only used by --format otlp and otlp-json");
    }
    if args.format == Format::ChromeTrace {
        return run_chrome_trace(&args);
    }
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    // Exports carry the samples (a trace's too): what the other tools read.
    let weighted = loaded.weighted(&ViewSpec {
        thread: args.thread.clone(),
        range: args.range,
        samples: true,
    })?;
    let profile = &*weighted.profile;
    output::warn(&loaded.name, &profile.warnings);
    // The wall-clock start given is the whole profile's (a .cpuprofile's `startTime`, else its
    // earliest thread's first sample), before any `--range`: the clock every thread and range
    // is measured on.
    let whole = loaded.profile();
    let start = whole
        .threads
        .iter()
        .map(|t| t.declared_start().unwrap_or_else(|| t.start_time()))
        .min();
    let options = otlp::OtlpOptions {
        service: args.service.clone(),
        wall_clock: args.start_time.map(|unix_nano| otlp::WallClock {
            at: start.unwrap_or(0),
            unix_nano,
        }),
        merged: false,
    };
    let mut out = create_output(&args.output)?;
    write_format(
        &mut out,
        args.format,
        profile,
        weighted.thread,
        args.thread.is_none(),
        &loaded.name,
        &options,
    )
    .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `profile` as `format`: its thread `index`, and with `all_threads` the others too where
/// the format holds several (speedscope, OTLP). What `jsprof export` and `jsprof lake export`
/// write; `otlp_options.merged` (a lake selection's sums) also leaves pprof's count out.
pub fn write_format(
    out: &mut impl std::io::Write,
    format: Format,
    profile: &jsprof_profile::Profile,
    index: usize,
    all_threads: bool,
    name: &str,
    otlp_options: &otlp::OtlpOptions,
) -> std::io::Result<()> {
    let thread = &profile.threads[index];
    match format {
        Format::Folded => folded::write_folded(out, profile, thread),
        Format::Cpuprofile => cpuprofile_writer::write_cpuprofile(out, profile, thread),
        Format::Speedscope => {
            // speedscope holds several profiles: every thread unless one was asked for.
            let (threads, active): (Vec<_>, usize) = if all_threads {
                (profile.threads.iter().collect(), index)
            } else {
                (vec![thread], 0)
            };
            speedscope::write_speedscope(out, profile, &threads, active, name)
        }
        Format::Pprof => pprof::write_pprof(out, profile, thread, otlp_options.merged),
        Format::Otlp | Format::OtlpJson => {
            // The chosen thread first (viewers show the first profile), then the others.
            let threads: Vec<_> = if all_threads {
                let others = profile.threads.iter().enumerate();
                std::iter::once(thread)
                    .chain(others.filter(|&(i, _)| i != index).map(|(_, t)| t))
                    .collect()
            } else {
                vec![thread]
            };
            let encoding = match format {
                Format::OtlpJson => otlp::Encoding::Json,
                _ => otlp::Encoding::Protobuf,
            };
            otlp::write_otlp(out, profile, &threads, otlp_options, encoding)
        }
        Format::D3 => d3::write_d3(out, profile, thread),
        Format::ChromeTrace => Err(std::io::Error::other(
            "chrome-trace is written from timelines, not from a profile",
        )),
    }
}

/// `--format chrome-trace`: every timeline (or the `--thread` one) as trace events.
fn run_chrome_trace(args: &Args) -> Result<ExitCode> {
    if args.range.is_some() {
        anyhow::bail!(
            "--range is not supported with --format chrome-trace (it exports whole timelines)"
        );
    }
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    output::warn(&loaded.name, loaded.warnings());
    let timelines: Vec<&jsprof_analysis::Timeline> = match args.thread.as_deref() {
        Some(spec) => vec![loaded.select(Some(spec))?],
        None => loaded.timelines().iter().collect(),
    };
    let mut out = create_output(&args.output)?;
    jsprof_render::write_chrome_trace(loaded.profile(), &timelines, &mut out)
        .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
