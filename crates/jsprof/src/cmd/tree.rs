//! `jsprof tree FILE`: DevTools' Call tree (top-down) or, with `--bottom-up`, its Bottom-up tab.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{bottom_up, top_down, CallTree, CallTreeKind, TimeRange};
use jsprof_profile::{Profile, WeightUnit};
use serde::Serialize;

use crate::cmd::top::{warnings_json, NS_PER_MS};
use crate::load::load_profile;
use crate::output::{self, Align, JsonWarning, Table};
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

/// One node of `--json` output, in depth-first pre-order (`parent` names an earlier `id`).
#[derive(Serialize)]
struct NodeJson {
    id: u32,
    parent: Option<u32>,
    depth: u32,
    name: String,
    url: String,
    line: Option<u32>,
    column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_bytes: Option<i64>,
    self_percent: f64,
    total_percent: f64,
}

#[derive(Serialize)]
struct TreeJson {
    kind: &'static str,
    view: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_bytes: Option<i64>,
    warnings: Vec<JsonWarning>,
    nodes: Vec<NodeJson>,
}

/// A node picked for output: tree node, its output id and its parent's.
struct Shown {
    node: u32,
    id: u32,
    parent: Option<u32>,
    depth: u32,
}

fn pick(tree: &CallTree, total: i64, max_depth: u32, min_percent: f64) -> Vec<Shown> {
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let mut shown = Vec::new();
    let mut todo: Vec<(u32, Option<u32>)> = tree.roots.iter().rev().map(|&r| (r, None)).collect();
    while let Some((n, parent)) = todo.pop() {
        let node = &tree.nodes[n as usize];
        if (max_depth > 0 && node.depth >= max_depth) || pct(node.total_weight) < min_percent {
            continue;
        }
        let id = shown.len() as u32;
        shown.push(Shown {
            node: n,
            id,
            parent,
            depth: node.depth,
        });
        todo.extend(node.children.iter().rev().map(|&c| (c, Some(id))));
    }
    shown
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_profile(&args.file)?;
    let profile = range_arg::apply(&loaded.name, loaded.profile, args.range)?;
    let profile = args.transform.apply(&loaded.name, profile)?;
    let index = range_arg::thread(&loaded.name, &profile, args.thread.as_deref())?;
    let thread = &profile.threads[index];
    let tree = if args.bottom_up {
        bottom_up(&profile, thread)
    } else {
        top_down(&profile, thread)
    };
    let unit = thread.weight_unit();
    let total = match unit {
        WeightUnit::Nanoseconds => thread.end_time() - thread.start_time(),
        _ => tree.total_weight,
    };
    let shown = pick(&tree, total, args.max_depth, args.min_percent);
    if args.json {
        let json = TreeJson {
            kind: profile.kind.as_str(),
            view: match tree.kind {
                CallTreeKind::TopDown => "top-down",
                CallTreeKind::BottomUp => "bottom-up",
            },
            duration_ms: (unit != WeightUnit::Bytes).then(|| total as f64 / NS_PER_MS),
            total_bytes: (unit == WeightUnit::Bytes).then_some(total),
            warnings: warnings_json(&profile),
            nodes: shown
                .iter()
                .map(|s| node_json(&profile, &tree, s, unit, total))
                .collect(),
        };
        output::print_json(&json)?;
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
    write_table(&mut out, &profile, &tree, &shown, unit, total)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn node_json(
    profile: &Profile,
    tree: &CallTree,
    s: &Shown,
    unit: WeightUnit,
    total: i64,
) -> NodeJson {
    let node = &tree.nodes[s.node as usize];
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let bytes = unit == WeightUnit::Bytes;
    NodeJson {
        id: s.id,
        parent: s.parent,
        depth: s.depth,
        name: profile.strings.get(node.function.name).to_string(),
        url: profile.strings.get(node.function.url).to_string(),
        line: node.function.line,
        column: node.function.column,
        self_ms: (!bytes).then(|| node.self_weight as f64 / NS_PER_MS),
        total_ms: (!bytes).then(|| node.total_weight as f64 / NS_PER_MS),
        self_bytes: bytes.then_some(node.self_weight),
        total_bytes: bytes.then_some(node.total_weight),
        self_percent: pct(node.self_weight),
        total_percent: pct(node.total_weight),
    }
}

fn write_table(
    out: &mut impl Write,
    profile: &Profile,
    tree: &CallTree,
    shown: &[Shown],
    unit: WeightUnit,
    total: i64,
) -> io::Result<()> {
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
