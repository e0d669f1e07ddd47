//! `jsprof heap …`: heap snapshot commands (Summary, Statistics, single nodes), with DevTools' numbers.

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use jsprof_heap::{
    analyze, read_snapshot_with, summary, Analysis, HeapSnapshot, NodeInfo, ReadOptions, SortBy,
    Statistics,
};
use serde::Serialize;

use crate::input;
use crate::output::{self, fmt_bytes, fmt_percent, Align, JsonWarning, Table};

mod allocations;
mod detached;
mod diff;
mod dominators;
mod leaks;
mod retainers;
mod strings;

#[derive(Subcommand)]
pub enum HeapCommand {
    /// DevTools' Summary: objects grouped by class, with count, self and retained size, distance.
    Summary(SummaryArgs),
    /// DevTools' Statistics: where every byte of the heap goes.
    Stats(StatsArgs),
    /// Single objects by id: sizes, distance, dominator, edges.
    Node(NodeArgs),
    /// DevTools' Comparison of TARGET against BASE per class, plus the retained-size change.
    Diff(diff::DiffArgs),
    /// Why an object is alive: its shortest retaining paths up to the roots.
    Retainers(retainers::RetainersArgs),
    /// The dominator tree (from the root or one object) with retained sizes, largest first.
    Dominators(dominators::DominatorsArgs),
    /// Duplicated strings: values held more than once, largest waste first.
    Strings(strings::StringsArgs),
    /// Detached DOM trees and what keeps each alive.
    Detached(detached::DetachedArgs),
    /// Objects created between BASE and TARGET and still alive in FINAL, grouped by retaining path.
    Leaks(leaks::LeaksArgs),
    /// Allocation stacks of a `.heaptimeline`: allocated and still-live objects per stack.
    Allocations(allocations::AllocationsArgs),
}

#[derive(clap::Args)]
pub struct SummaryArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Order of the rows (largest first).
    #[arg(long, value_enum, default_value_t = Sort::Retained)]
    pub sort: Sort,
    /// How many classes to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct StatsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct NodeArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Node ids (the `@id` DevTools shows).
    #[arg(required = true)]
    pub ids: Vec<u32>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Sort {
    Retained,
    #[value(name = "self")]
    SelfSize,
    Count,
}

pub fn run(command: HeapCommand) -> Result<ExitCode> {
    match command {
        HeapCommand::Summary(args) => run_summary(args),
        HeapCommand::Stats(args) => run_stats(args),
        HeapCommand::Node(args) => run_node(args),
        HeapCommand::Diff(args) => diff::run(args),
        HeapCommand::Retainers(args) => retainers::run(args),
        HeapCommand::Dominators(args) => dominators::run(args),
        HeapCommand::Strings(args) => strings::run(args),
        HeapCommand::Detached(args) => detached::run(args),
        HeapCommand::Leaks(args) => leaks::run(args),
        HeapCommand::Allocations(args) => allocations::run(args),
    }
}

/// A snapshot after DevTools' analysis, with the warnings from loading it.
struct Loaded {
    name: String,
    snapshot: HeapSnapshot,
    analysis: Analysis,
}

impl Loaded {
    fn warnings_json(&self) -> Vec<JsonWarning> {
        self.snapshot
            .warnings
            .iter()
            .map(|w| JsonWarning {
                at: w.at.clone(),
                message: w.message.clone(),
            })
            .collect()
    }

    /// The warnings with the file's name in front, for outputs that read several files.
    fn warnings_json_named(&self) -> Vec<JsonWarning> {
        self.snapshot
            .warnings
            .iter()
            .map(|w| JsonWarning {
                at: w.at.clone(),
                message: format!("{}: {}", self.name, w.message),
            })
            .collect()
    }

    fn print_warnings(&self) {
        output::print_warnings(
            &self.name,
            self.snapshot
                .warnings
                .iter()
                .map(|w| (w.at.as_str(), w.message.as_str())),
        );
    }
}

/// One object as the exploration commands list it.
#[derive(Serialize)]
struct ObjectJson {
    id: u32,
    name: String,
    class: String,
    #[serde(rename = "type")]
    node_type: String,
    self_size: u64,
    retained_size: u64,
    distance: i32,
}

impl Loaded {
    fn object_json(&self, n: u32) -> ObjectJson {
        let s = &self.snapshot;
        let class = self.analysis.class_name(s, n);
        let mut name = jsprof_heap::display_name(s, n);
        if n == s.root && name.is_empty() {
            name = "(root)".to_string();
        }
        ObjectJson {
            id: s.nodes.id[n as usize],
            name,
            class,
            node_type: s.node_type_name(n).to_owned(),
            self_size: s.nodes.self_size[n as usize] as u64,
            retained_size: self.analysis.retained[n as usize],
            distance: self.analysis.distances[n as usize],
        }
    }

    /// The ordinal of the node with this id, or an error naming the file.
    fn ordinal_of(&self, id: u32) -> Result<u32> {
        match self.snapshot.nodes.id.iter().position(|&x| x == id) {
            Some(n) => Ok(n as u32),
            None => bail!("{}: no node with id @{id}", self.name),
        }
    }
}

/// Inputs larger than this get a progress bar (when stderr is a terminal).
const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// Reads a snapshot without analysing it (for commands that only need its ids).
fn read_only(path: &Path) -> Result<(String, HeapSnapshot)> {
    let input = input::open(path)?;
    let name = input.name.clone();
    match read_snapshot_with(input.reader, ReadOptions::default()) {
        Ok(s) => Ok((name, s)),
        Err(e) => bail!("{name}: {e}"),
    }
}

fn load(path: &Path) -> Result<Loaded> {
    let input = input::open(path)?;
    let name = input.name.clone();
    let bar = progress_bar(input.file_size, input.gzipped);
    let mut report = |bytes: u64| {
        if let Some(bar) = &bar {
            bar.set_position(bytes);
        }
    };
    let options = ReadOptions {
        progress: Some(&mut report),
    };
    let loaded = read_snapshot_with(input.reader, options);
    let mut snapshot = match loaded {
        Ok(s) => s,
        Err(e) => {
            if let Some(bar) = &bar {
                bar.finish_and_clear();
            }
            bail!("{name}: {e}");
        }
    };
    if let Some(bar) = &bar {
        bar.set_message("analysing");
    }
    let analysis = analyze(&mut snapshot);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    Ok(Loaded {
        name,
        snapshot,
        analysis,
    })
}

fn progress_bar(file_size: Option<u64>, gzipped: bool) -> Option<ProgressBar> {
    let size = file_size?;
    if size < PROGRESS_THRESHOLD / if gzipped { 8 } else { 1 } || !io::stderr().is_terminal() {
        return None;
    }
    let bar = if gzipped {
        // Progress counts decompressed bytes, whose total is unknown for gzip.
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} reading {bytes} {msg} ({elapsed})").ok()?,
        );
        bar
    } else {
        let bar = ProgressBar::new(size);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {msg} ({eta})").ok()?,
        );
        bar
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    Some(bar)
}

#[derive(Serialize)]
struct StatisticsJson {
    total: u64,
    native: NativeJson,
    v8heap: V8HeapJson,
}

#[derive(Serialize)]
struct NativeJson {
    total: u64,
    #[serde(rename = "typedArrays")]
    typed_arrays: u64,
}

#[derive(Serialize)]
struct V8HeapJson {
    total: i64,
    code: u64,
    #[serde(rename = "jsArrays")]
    js_arrays: u64,
    strings: u64,
    system: u64,
}

fn statistics_json(st: &Statistics) -> StatisticsJson {
    StatisticsJson {
        total: st.total,
        native: NativeJson {
            total: st.native_total,
            typed_arrays: st.native_typed_arrays,
        },
        v8heap: V8HeapJson {
            total: st.v8heap_total,
            code: st.code,
            js_arrays: st.js_arrays,
            strings: st.strings,
            system: st.system,
        },
    }
}

#[derive(Serialize)]
struct ClassJson {
    key: String,
    name: String,
    count: u64,
    self_size: u64,
    retained_size: u64,
    distance: i32,
}

#[derive(Serialize)]
struct SummaryJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    node_count: usize,
    total_size: u64,
    statistics: StatisticsJson,
    classes: Vec<ClassJson>,
}

fn run_summary(args: SummaryArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let sort = match args.sort {
        Sort::Retained => SortBy::Retained,
        Sort::SelfSize => SortBy::SelfSize,
        Sort::Count => SortBy::Count,
    };
    let mut rows = summary(&loaded.snapshot, &loaded.analysis, sort);
    if args.limit > 0 {
        rows.truncate(args.limit);
    }
    let total = loaded.analysis.total_size;
    if args.json {
        output::print_json(&SummaryJson {
            kind: loaded.snapshot.kind(),
            warnings: loaded.warnings_json(),
            node_count: loaded.snapshot.node_count(),
            total_size: total,
            statistics: statistics_json(&loaded.analysis.statistics),
            classes: rows
                .into_iter()
                .map(|r| ClassJson {
                    key: r.key,
                    name: r.name,
                    count: r.count,
                    self_size: r.self_size,
                    retained_size: r.retained_size,
                    distance: r.distance,
                })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    let mut table = Table::new(&[
        ("Class", Align::Left),
        ("Count", Align::Right),
        ("Distance", Align::Right),
        ("Self size", Align::Right),
        ("Self %", Align::Right),
        ("Retained size", Align::Right),
        ("Retained %", Align::Right),
    ]);
    let pct = |v: u64| {
        fmt_percent(if total == 0 {
            0.0
        } else {
            v as f64 * 100.0 / total as f64
        })
    };
    for r in &rows {
        table.row(vec![
            truncate(&r.name, 60),
            r.count.to_string(),
            fmt_distance(r.distance),
            fmt_bytes(r.self_size as f64),
            pct(r.self_size),
            fmt_bytes(r.retained_size as f64),
            pct(r.retained_size),
        ]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    writeln!(
        out,
        "{} ({}): {} nodes, {} total",
        loaded.name,
        loaded.snapshot.kind(),
        loaded.snapshot.node_count(),
        fmt_bytes(total as f64)
    )?;
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct StatsJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    node_count: usize,
    total_size: u64,
    statistics: StatisticsJson,
}

fn run_stats(args: StatsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let st = loaded.analysis.statistics;
    if args.json {
        output::print_json(&StatsJson {
            kind: loaded.snapshot.kind(),
            warnings: loaded.warnings_json(),
            node_count: loaded.snapshot.node_count(),
            total_size: loaded.analysis.total_size,
            statistics: statistics_json(&st),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    // DevTools' pie: the named slices, then what is left of the V8 heap and of native memory.
    let other_js = st.v8heap_total
        - st.code as i64
        - st.strings as i64
        - st.js_arrays as i64
        - st.system as i64;
    let other_native = st.native_total as i64 - st.native_typed_arrays as i64;
    let slices: [(&str, i64); 7] = [
        ("Code", st.code as i64),
        ("Strings", st.strings as i64),
        ("JS arrays", st.js_arrays as i64),
        ("Typed arrays", st.native_typed_arrays as i64),
        ("System objects", st.system as i64),
        ("Other JS objects", other_js),
        ("Other non-JS objects (such as HTML and CSS)", other_native),
    ];
    let mut table = Table::new(&[
        ("Category", Align::Left),
        ("Size", Align::Right),
        ("%", Align::Right),
    ]);
    for (name, size) in slices {
        let pct = if st.total == 0 {
            0.0
        } else {
            size as f64 * 100.0 / st.total as f64
        };
        table.row(vec![
            name.to_string(),
            fmt_bytes(size as f64),
            fmt_percent(pct),
        ]);
    }
    table.row(vec![
        "Total".to_string(),
        fmt_bytes(st.total as f64),
        fmt_percent(100.0),
    ]);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    writeln!(
        out,
        "{} ({}): V8 heap {}, native {}",
        loaded.name,
        loaded.snapshot.kind(),
        fmt_bytes(st.v8heap_total as f64),
        fmt_bytes(st.native_total as f64)
    )?;
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct NodeJson {
    id: u32,
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    self_size: u64,
    retained_size: u64,
    distance: i32,
    dominator_id: u32,
    edge_count: u64,
    retainer_count: u64,
}

#[derive(Serialize)]
struct NodesJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    nodes: Vec<NodeJson>,
}

fn run_node(args: NodeArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let s = &loaded.snapshot;
    // One pass over the ids column for all requested ids (the first node with an id wins).
    let mut wanted: Vec<(u32, Option<u32>)> = args.ids.iter().map(|&id| (id, None)).collect();
    let mut slots: HashMap<u32, Vec<usize>> = HashMap::new();
    for (slot, (id, _)) in wanted.iter().enumerate() {
        slots.entry(*id).or_default().push(slot);
    }
    for (ordinal, id) in s.nodes.id.iter().enumerate() {
        if let Some(found) = slots.remove(id) {
            for slot in found {
                wanted[slot].1 = Some(ordinal as u32);
            }
        }
    }
    let missing: Vec<String> = wanted
        .iter()
        .filter(|w| w.1.is_none())
        .map(|w| format!("@{}", w.0))
        .collect();
    if !missing.is_empty() {
        bail!("{}: no node with id {}", loaded.name, missing.join(", "));
    }
    let infos: Vec<NodeInfo> = wanted
        .iter()
        .filter_map(|w| w.1)
        .map(|ordinal| loaded.analysis.node_info(s, ordinal))
        .collect();
    if args.json {
        output::print_json(&NodesJson {
            kind: s.kind(),
            warnings: loaded.warnings_json(),
            nodes: infos
                .into_iter()
                .map(|n| NodeJson {
                    id: n.id,
                    name: n.name,
                    node_type: n.node_type,
                    self_size: n.self_size,
                    retained_size: n.retained_size,
                    distance: n.distance,
                    dominator_id: n.dominator_id,
                    edge_count: n.edge_count,
                    retainer_count: n.retainer_count,
                })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    let mut table = Table::new(&[
        ("Id", Align::Right),
        ("Type", Align::Left),
        ("Name", Align::Left),
        ("Self size", Align::Right),
        ("Retained size", Align::Right),
        ("Distance", Align::Right),
        ("Dominator", Align::Right),
        ("Edges", Align::Right),
        ("Retainers", Align::Right),
    ]);
    for n in &infos {
        table.row(vec![
            format!("@{}", n.id),
            n.node_type.clone(),
            truncate(&n.name, 60),
            fmt_bytes(n.self_size as f64),
            fmt_bytes(n.retained_size as f64),
            fmt_distance(n.distance),
            format!("@{}", n.dominator_id),
            n.edge_count.to_string(),
            n.retainer_count.to_string(),
        ]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `-` for unreachable nodes (DevTools' -5); other distances as they are.
fn fmt_distance(distance: i32) -> String {
    if distance == jsprof_heap::distances::NO_DISTANCE {
        "-".to_string()
    } else {
        distance.to_string()
    }
}

/// A byte delta with its sign: `+1.20 KB`, `-512 B`, `0 B`.
fn fmt_signed_bytes(delta: i64) -> String {
    let text = fmt_bytes(delta as f64);
    if delta > 0 {
        format!("+{text}")
    } else {
        text
    }
}

fn truncate(text: &str, max: usize) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max - 1).collect();
    cut.push('…');
    cut
}
