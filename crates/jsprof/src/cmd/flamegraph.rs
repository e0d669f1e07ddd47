//! `jsprof flamegraph FILE -o out.svg`: an aggregated, heaviest-first flame graph as a standalone
//! SVG (search, click to zoom, tooltips with self and total).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_analysis::{
    write_diff_flame_graph_svg, write_flame_graph_svg, FlameGraphOptions, TimeRange,
};
use jsprof_profile::WeightUnit;

use crate::cmd::diff::CompareArgs;
use crate::cmd::export::create_output;
use crate::load::load_profile;
use crate::output;
use crate::range_arg;

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    #[arg(required_unless_present = "diff", conflicts_with = "diff")]
    pub file: Option<PathBuf>,
    /// A differential flame graph instead: AFTER's graph, each frame red where its total grew
    /// since BEFORE at the same call path, blue where it shrank.
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"])]
    pub diff: Option<Vec<PathBuf>>,
    /// With --diff: match frames by name and URL, or by the whole function.
    #[arg(long, value_enum, default_value_t = crate::cmd::diff::KeyArg::NameUrl, requires = "diff")]
    pub key: crate::cmd::diff::KeyArg,
    /// With --diff: scale BEFORE to AFTER's total before comparing.
    #[arg(long, requires = "diff")]
    pub normalize: bool,
    /// Where to write the SVG; `-` for stdout.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Only the time window START..END in ms from the profile's start (either side may be empty).
    #[arg(long, value_parser = range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<TimeRange>,
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// The graph's title.
    #[arg(long)]
    pub title: Option<String>,
    /// Image width in pixels.
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(paths) = &args.diff {
        return run_diff(&args, &paths[0], &paths[1]);
    }
    let file = args
        .file
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("give FILE, or --diff BEFORE AFTER"))?;
    let loaded = load_profile(file)?;
    let profile = range_arg::apply(&loaded.name, loaded.profile, args.range)?;
    let profile = args.transform.apply(&loaded.name, profile)?;
    let index = range_arg::thread(&loaded.name, &profile, args.thread.as_deref())?;
    let thread = &profile.threads[index];
    output::print_warnings(
        &loaded.name,
        profile
            .warnings
            .iter()
            .map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let bytes = thread.weight_unit() == WeightUnit::Bytes;
    let total = if bytes {
        output::fmt_bytes(thread.weights().sum::<i64>() as f64)
    } else {
        output::fmt_ms(jsprof_profile::ns_to_ms(
            thread.end_time() - thread.start_time(),
        ))
    };
    let mut subtitle = format!("{} — {}, {total}", loaded.name, profile.kind.as_str());
    for part in [range_arg::describe(args.range), args.transform.describe()]
        .into_iter()
        .flatten()
    {
        subtitle.push_str(", ");
        subtitle.push_str(&part);
    }
    let options = FlameGraphOptions {
        title: args.title.unwrap_or_else(|| {
            if bytes {
                "Allocation Flame Graph".to_string()
            } else {
                "Flame Graph".to_string()
            }
        }),
        subtitle: Some(subtitle),
        width: args.width.max(100),
        ..Default::default()
    };
    let mut out = create_output(&args.output)?;
    write_flame_graph_svg(&mut out, &profile, thread, &options)
        .with_context(|| format!("writing {}", args.output.display()))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `--diff BEFORE AFTER`: the differential flame graph.
fn run_diff(args: &Args, before: &Path, after: &Path) -> Result<ExitCode> {
    let compare = CompareArgs {
        range: args.range,
        thread: args.thread.clone(),
        transform: args.transform.clone(),
    };
    let before = compare.load(before)?;
    let after = compare.load(after)?;
    for side in [&before, &after] {
        output::print_warnings(
            &side.name,
            side.profile
                .warnings
                .iter()
                .map(|w| (w.at.as_str(), w.message.as_str())),
        );
    }
    let unit = |s: &crate::cmd::diff::Side| s.pair().1.weight_unit() == WeightUnit::Bytes;
    if unit(&before) != unit(&after) {
        anyhow::bail!(
            "{} and {}: cannot compare a profile over time with one that weighs bytes",
            before.name,
            after.name
        );
    }
    let mut subtitle = format!(
        "{} → {} — red grew, blue shrank{}",
        before.name,
        after.name,
        if args.normalize { " (normalized)" } else { "" }
    );
    for part in [range_arg::describe(args.range), args.transform.describe()]
        .into_iter()
        .flatten()
    {
        subtitle.push_str(", ");
        subtitle.push_str(&part);
    }
    let options = FlameGraphOptions {
        title: args
            .title
            .clone()
            .unwrap_or_else(|| "Differential Flame Graph".to_string()),
        subtitle: Some(subtitle),
        width: args.width.max(100),
        ..Default::default()
    };
    let mut out = create_output(&args.output)?;
    write_diff_flame_graph_svg(
        &mut out,
        before.pair(),
        after.pair(),
        args.key.key(),
        args.normalize,
        &options,
    )
    .with_context(|| format!("writing {}", args.output.display()))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
