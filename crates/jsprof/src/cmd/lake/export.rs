//! `lake flamegraph` and `lake export`: the selection's merged stacks as an SVG, or in a format
//! other tools open (OTLP, pprof, folded stacks).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_lake::query;
use jsprof_profile::WeightUnit;

use super::{merged, selection, UnitArg, Where};
use crate::output;

#[derive(clap::Args)]
pub struct FlamegraphArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub selection: Where,
    /// Where to write the SVG; `-` for stdout.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The graph's title.
    #[arg(long)]
    pub title: Option<String>,
    /// Image width in pixels.
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub selection: Where,
    /// The format to write.
    #[arg(long, short, value_enum)]
    pub format: ExportFormat,
    /// Where to write; `-` for stdout.
    #[arg(short, long)]
    pub output: PathBuf,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
    /// For `--format otlp`/`otlp-json`: the resource's `service.name` (default: the selected
    /// profiles' `service` label when they all have the same one).
    #[arg(long)]
    pub service: Option<String>,
    /// For `--format otlp`/`otlp-json`: `time_unix_nano` (RFC 3339, or ms since the Unix epoch).
    /// Default: the earliest start of the selected profiles the lake knows (an agent window's
    /// `start_ms`, `lake add --start-time`); when none has one, 0, which OTLP reads as unknown.
    #[arg(long, value_name = "RFC3339|UNIX_MS", value_parser = crate::cmd::export::parse_start_time)]
    pub start_time: Option<i64>,
}

/// The formats a merged selection has: one weighted thread, its samples sums per stack. Not a
/// .cpuprofile: DevTools reads one as a timeline and patches it by the samples' order (a GC
/// sample onto the stack before it, a lone `(program)` between two stacks into the one before),
/// which a merge's order does not mean; measured, it moved time between functions.
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum ExportFormat {
    /// The OpenTelemetry profiles signal (Alpha), opentelemetry-proto v1.10.0: a binary
    /// ExportProfilesServiceRequest with one profile (time or bytes; no count profile,
    /// `duration_nano` or `period`: a merge's samples are sums, not samples).
    Otlp,
    /// `otlp` as OTLP/JSON (the protobuf JSON mapping).
    OtlpJson,
    /// gzipped pprof profile.proto (wall/nanoseconds or space/bytes; no sample count).
    Pprof,
    /// Folded stacks for inferno / flamegraph.pl (weights in µs, or bytes).
    Folded,
}

impl ExportFormat {
    fn as_export(self) -> crate::cmd::export::Format {
        use crate::cmd::export::Format;
        match self {
            ExportFormat::Otlp => Format::Otlp,
            ExportFormat::OtlpJson => Format::OtlpJson,
            ExportFormat::Pprof => Format::Pprof,
            ExportFormat::Folded => Format::Folded,
        }
    }
}

pub(super) fn run_export(a: ExportArgs) -> Result<ExitCode> {
    let otlp = matches!(a.format, ExportFormat::Otlp | ExportFormat::OtlpJson);
    if !otlp && (a.service.is_some() || a.start_time.is_some()) {
        anyhow::bail!("--service and --start-time are only used by --format otlp and otlp-json");
    }
    let sel = selection(&a.selection)?;
    let unit = a.unit.map(UnitArg::as_str);
    let (stacks, origin) = with_reader!(&a.lake, &sel, |r| async {
        let stacks = query::merged_stacks(r, &sel, unit).await?;
        let origin = query::origin(r, &sel, &stacks.unit).await?;
        Ok((stacks, origin))
    })?;
    if let Some(note) = &stacks.note {
        eprintln!("note: {note}");
    }
    if stacks.profiles == 0 {
        eprintln!("note: no profile in the lake matches the selection; the export is empty");
    }
    let profile = query::merged_profile(&stacks);
    // The merged thread's clock starts at 0: the selection's earliest start.
    let unix_nano = a
        .start_time
        .or(origin.start_us.map(|us| us.saturating_mul(1000)));
    let options = jsprof_profile::export::otlp::OtlpOptions {
        service: a.service.or(origin.service),
        wall_clock: unix_nano.map(|unix_nano| jsprof_profile::export::otlp::WallClock {
            at: profile.threads[0].start_time(),
            unix_nano,
        }),
        merged: true,
    };
    let name = a.lake.display().to_string();
    let mut out = crate::output_file::create_output(&a.output)?;
    crate::cmd::export::write_format(
        &mut out,
        a.format.as_export(),
        &profile,
        0,
        true,
        &name,
        &options,
    )
    .with_context(|| format!("writing {}", a.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run_flamegraph(a: FlamegraphArgs) -> Result<ExitCode> {
    let sel = selection(&a.selection)?;
    let (profile, profiles) = merged(&a.lake, &sel, a.unit.map(UnitArg::as_str))?;
    let thread = &profile.threads[0];
    let bytes = thread.weight_unit() == WeightUnit::Bytes;
    let total: i64 = thread.weights().sum();
    let total = if bytes {
        output::fmt_bytes(total as f64)
    } else {
        output::fmt_ms(jsprof_profile::ns_to_ms(total))
    };
    let mut subtitle = format!("{} — {profiles} profiles, {total}", a.lake.display());
    let wheres = a.selection.wheres.join(", ");
    if !wheres.is_empty() {
        subtitle.push_str(&format!(", where {wheres}"));
    }
    let options = jsprof_render::FlameGraphOptions {
        title: a.title.unwrap_or_else(|| "Lake Flame Graph".to_string()),
        subtitle: Some(subtitle),
        width: a.width.max(100),
        ..Default::default()
    };
    let mut out = crate::output_file::create_output(&a.output)?;
    jsprof_render::write_flame_graph_svg(&mut out, &profile, thread, &options)
        .with_context(|| format!("writing {}", a.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
