//! `jsprof flamechart FILE -o chart.svg`: a time-ordered flame chart (DevTools' Performance
//! panel view) of one thread, with a time axis and the gaps between calls.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_render::{write_flame_chart_svg, FlameChartOptions};

use crate::load::load_cpu;
use crate::output;
use jsprof_document::events::parse_window;

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The timeline: a timeline_id from `jsprof threads`, a tid or a unique thread name.
    #[arg(long)]
    pub thread: Option<String>,
    /// Draw only START..END (ms; either side may be empty).
    #[arg(long, value_parser = parse_window)]
    pub range: Option<(Option<i64>, Option<i64>)>,
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
    let timeline = loaded.select(args.thread.as_deref())?;
    output::warn(&loaded.name, loaded.warnings());
    let (start, end) = args.range.unwrap_or((None, None));
    let thread = if timeline.name.is_empty() {
        String::new()
    } else {
        format!(" — {}", timeline.name)
    };
    let options = FlameChartOptions {
        width: args.width.max(200),
        start,
        end,
        title: format!("{}{thread}", loaded.name),
        ..FlameChartOptions::default()
    };
    if args.output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        write_flame_chart_svg(loaded.profile(), timeline, &options, &mut out)?;
        out.flush()?;
    } else {
        let file = File::create(&args.output)
            .with_context(|| format!("{}: cannot create", args.output.display()))?;
        let mut out = BufWriter::new(file);
        write_flame_chart_svg(loaded.profile(), timeline, &options, &mut out)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
