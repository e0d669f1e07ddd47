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

pub fn run(args: Args) -> Result<ExitCode> {
    if args.service.is_some() && !matches!(args.format, Format::Otlp | Format::OtlpJson) {
        anyhow::bail!("--service is only used by --format otlp and otlp-json");
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
    let (profile, index) = (&*weighted.profile, weighted.thread);
    let thread = weighted.thread();
    output::warn(&loaded.name, &profile.warnings);
    let mut out = create_output(&args.output)?;
    let written = match args.format {
        Format::Folded => folded::write_folded(&mut out, profile, thread),
        Format::Cpuprofile => cpuprofile_writer::write_cpuprofile(&mut out, profile, thread),
        Format::Speedscope => {
            // speedscope holds several profiles: every thread unless one was asked for.
            let (threads, active): (Vec<_>, usize) = if args.thread.is_some() {
                (vec![thread], 0)
            } else {
                (profile.threads.iter().collect(), index)
            };
            speedscope::write_speedscope(&mut out, profile, &threads, active, &loaded.name)
        }
        Format::Pprof => pprof::write_pprof(&mut out, profile, thread),
        Format::Otlp | Format::OtlpJson => {
            // The chosen thread first (viewers show the first profile), then the others.
            let threads: Vec<_> = if args.thread.is_some() {
                vec![thread]
            } else {
                let others = profile.threads.iter().enumerate();
                std::iter::once(thread)
                    .chain(others.filter(|&(i, _)| i != index).map(|(_, t)| t))
                    .collect()
            };
            let options = otlp::OtlpOptions {
                service: args.service.clone(),
            };
            let encoding = match args.format {
                Format::OtlpJson => otlp::Encoding::Json,
                _ => otlp::Encoding::Protobuf,
            };
            otlp::write_otlp(&mut out, profile, &threads, &options, encoding)
        }
        Format::D3 => d3::write_d3(&mut out, profile, thread),
        Format::ChromeTrace => unreachable!("handled by run_chrome_trace"),
    };
    written.with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
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
