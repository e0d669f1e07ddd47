//! `jsprof tree FILE`: DevTools' Call tree (top-down) or, with `--bottom-up`, its Bottom-up tab.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::TimeRange;
use jsprof_document::tree::{TreeOptions, TreeView};
use jsprof_profile::{Profile, WeightUnit};

use crate::cmd::top::NS_PER_MS;
use crate::load::load_profile;
use crate::output::{self, Align, Table};
use crate::range_arg;

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Functions as roots with their callers beneath (DevTools' Bottom-up tab).
    #[arg(long)]
    pub bottom_up: bool,
    /// Show this many levels (1 = the roots only); 0 shows all.
    #[arg(long, default_value_t = 0)]
    pub max_depth: u32,
    /// Hide nodes whose total is under this percentage of the profile (and what is beneath them).
    #[arg(long, default_value_t = 0.0)]
    pub min_percent: f64,
    /// Only the time window START..END in ms from the profile's start (either side may be empty);
    /// samples straddling an edge count with the part inside.
    #[arg(long, value_parser = range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<TimeRange>,
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_profile(&args.file)?;
    let profile = range_arg::apply(&loaded.name, loaded.profile, args.range)?;
    let profile = args.transform.apply(&loaded.name, profile)?;
    let index = range_arg::thread(&loaded.name, &profile, args.thread.as_deref())?;
    let options = TreeOptions {
        bottom_up: args.bottom_up,
        max_depth: args.max_depth,
        min_percent: args.min_percent,
    };
    let view = jsprof_document::tree::view(&profile, index, options);
    if args.json {
        output::print_json(&jsprof_document::tree::report(&profile, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::print_warnings(
        &loaded.name,
        profile
            .warnings
            .iter()
            .map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    write_table(&mut out, &profile, &view)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn write_table(out: &mut impl Write, profile: &Profile, view: &TreeView) -> io::Result<()> {
    let (tree, shown, unit, total) = (&view.tree, &view.shown, view.unit, view.total);
    let bytes = unit == WeightUnit::Bytes;
    let mut table = Table::new(&[
        ("Self", Align::Right),
        ("Self %", Align::Right),
        ("Total", Align::Right),
        ("Total %", Align::Right),
        ("Function", Align::Left),
        ("Location", Align::Left),
    ]);
    let fmt = |w: i64| {
        if bytes {
            output::fmt_bytes(w as f64)
        } else {
            output::fmt_ms(w as f64 / NS_PER_MS)
        }
    };
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    for s in shown {
        let node = &tree.nodes[s.node as usize];
        let name = output::display_function_name(profile.strings.get(node.function.name));
        table.row(vec![
            fmt(node.self_weight),
            output::fmt_percent(pct(node.self_weight)),
            fmt(node.total_weight),
            output::fmt_percent(pct(node.total_weight)),
            format!("{}{name}", "  ".repeat(s.depth as usize)),
            output::fmt_location(
                profile.strings.get(node.function.url),
                node.function.line,
                node.function.column,
            ),
        ]);
    }
    table.write(out)
}
