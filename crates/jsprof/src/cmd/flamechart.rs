//! `jsprof flamechart FILE -o chart.svg`: a time-ordered flame chart (DevTools' Performance
//! panel view) of one thread, with a time axis and the gaps between calls.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_render::{write_flame_chart_svg, FlameChartOptions};

use crate::load::load_cpu;
use crate::output;
use jsprof_document::query::FlameChartQuery;

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub query: FlameChartQuery,
    /// Width in pixels.
    #[arg(long, default_value_t = 1400)]
    pub width: u32,
    /// Where to write the SVG (`-` for stdout).
    #[arg(short = 'o', long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let timeline = loaded.select(args.query.thread.as_deref())?;
    output::warn(&loaded.name, loaded.warnings());
    let range = args.query.range.unwrap_or_default();
    let thread = if timeline.name.is_empty() {
        String::new()
    } else {
        format!(" — {}", timeline.name)
    };
    let options = FlameChartOptions {
        width: args.width.max(200),
        start: range.start,
        end: range.end,
        title: format!("{}{thread}", loaded.name),
        ..FlameChartOptions::default()
    };
    let mut out = crate::output_file::create_output(&args.output)?;
    write_flame_chart_svg(loaded.profile(), timeline, &options, &mut out)
        .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
