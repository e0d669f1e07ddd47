//! `jsprof flamegraph FILE -o out.svg`: an aggregated, heaviest-first flame graph as a standalone
//! SVG (search, click to zoom, tooltips with self and total).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_profile::WeightUnit;
use jsprof_render::{write_diff_flame_graph_svg, write_flame_graph_svg, FlameGraphOptions};

use crate::cmd::diff::CompareArgs;
use crate::load::load_cpu;
use crate::output;
use crate::output_file::create_output;
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
    #[command(flatten)]
    pub view: crate::transform_args::ViewArgs,
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
    let loaded = load_cpu(file, &args.transform.pipeline())?;
    let weighted = loaded.weighted(&args.view)?;
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    output::warn(&loaded.name, &profile.warnings);
    let bytes = thread.weight_unit() == WeightUnit::Bytes;
    let total = if bytes {
        output::fmt_bytes(thread.weights().sum::<i64>() as f64)
    } else {
        output::fmt_ms(jsprof_profile::ns_to_ms(
            thread.end_time() - thread.start_time(),
        ))
    };
    let mut subtitle = format!("{} — {}, {total}", loaded.name, profile.kind.as_str());
    subtitle.push_str(&view_note(&args));
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
    write_flame_graph_svg(&mut out, profile, thread, &options)
        .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// `, range 1 ms..2 ms, focus ^a$` for a subtitle: the range and filters applied.
fn view_note(args: &Args) -> String {
    [
        range_arg::describe(args.view.range),
        args.transform.describe(),
    ]
    .into_iter()
    .flatten()
    .map(|part| format!(", {part}"))
    .collect()
}

/// `--diff BEFORE AFTER`: the differential flame graph.
fn run_diff(args: &Args, before: &Path, after: &Path) -> Result<ExitCode> {
    let compare = CompareArgs {
        view: args.view.clone(),
        transform: args.transform.clone(),
    };
    let before = compare.load(before)?;
    let after = compare.load(after)?;
    let (wb, wa) = (before.weighted()?, after.weighted()?);
    for (name, side) in [(&before.name, &wb), (&after.name, &wa)] {
        output::warn(name, &side.profile.warnings);
    }
    let unit = |w: &jsprof_document::load::Weighted| w.thread().weight_unit() == WeightUnit::Bytes;
    if unit(&wb) != unit(&wa) {
        anyhow::bail!(
            "{} and {}: cannot compare a profile over time with one that weighs bytes",
            before.name,
            after.name
        );
    }
    let mut subtitle = format!(
        "{} → {} — red grew, blue shrank, hatched is gone{}",
        before.name,
        after.name,
        if args.normalize { " (normalized)" } else { "" }
    );
    subtitle.push_str(&view_note(args));
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
        (&*wb.profile, wb.thread()),
        (&*wa.profile, wa.thread()),
        args.key.key(),
        args.normalize,
        &options,
    )
    .with_context(|| format!("writing {}", args.output.display()))?;
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
