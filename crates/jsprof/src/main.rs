//! `jsprof`: the command-line front end. Parses arguments, opens inputs, calls the libraries and
//! prints. Each subcommand lives in its own file under `cmd/`.

// The binary is the one place that writes answers to stdout and sets the exit status
// (the workspace lints deny both in the libraries).
#![allow(clippy::print_stdout, clippy::exit)]

mod cmd;
mod input;
mod load;
mod output;
mod output_file;
mod progress;
mod range_arg;
mod size_arg;
mod transform_args;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Record, read, analyse and show JavaScript CPU and memory profiles.
#[derive(Parser)]
#[command(name = "jsprof", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print names and locations whole. Otherwise tables fit COLUMNS when it is set, else the
    /// terminal's width; piped output is never cut. JSON is never cut.
    #[arg(long, global = true)]
    wide: bool,
    /// Heap snapshots: neither read nor write the index of the analysed snapshot kept in the
    /// cache directory (`JSPROF_CACHE_DIR`); `JSPROF_CACHE=0` does the same. See docs/heap.md.
    #[arg(long, global = true)]
    no_cache: bool,
}

#[derive(Subcommand)]
enum Command {
    /// What a profile holds: kind, duration, samples, threads, where the time went.
    Summary(cmd::summary::Args),
    /// The functions that take the most time (or bytes), DevTools' Bottom-up roots as a flat table.
    Top(cmd::top::Args),
    /// DevTools' Call tree (top-down) or Bottom-up tree: self, total and percent per node.
    Tree(cmd::tree::Args),
    /// A function's source with the self time of each line (DevTools' Sources gutter).
    Lines(cmd::lines::Args),
    /// An aggregated flame graph as a standalone, searchable, zoomable SVG.
    Flamegraph(cmd::flamegraph::Args),
    /// Performance budgets for CI: function times, GC share, class retained sizes, detached DOM
    /// (exit 1 when one is exceeded).
    #[command(after_help = cmd::check::BUDGET_HELP)]
    Check(cmd::check::Args),
    /// What changed between two profiles, function by function (sorted by the change); or
    /// between two groups (--base/--target), with statistics: page loads by their metrics.
    Diff(cmd::diff::Args),
    /// Write the profile as folded stacks, .cpuprofile, speedscope, pprof or d3-flame-graph JSON.
    Export(cmd::export::Args),
    /// Record profiles over the DevTools protocol: a Node command, inspector, pid or Chromium page.
    Record(cmd::record::Args),
    /// The timelines (threads) of a trace or profile, with their ids for `--thread`.
    Threads(cmd::threads::Args),
    /// A timeline's events (JS calls, parsing, layout, paint, GC…): all, or reduced per type or event.
    Events(cmd::events::Args),
    /// A page load's Web Vitals (FCP, LCP, CLS, INP) per navigation and DevTools' insights
    /// (LCP and INP breakdowns, layout-shift clusters, render-blocking requests, long tasks).
    Insights(cmd::insights::Args),
    /// A trace's network requests as a waterfall: queueing, server response, download, size.
    Network(cmd::network::Args),
    /// A trace's screenshots in time order (the filmstrip); `--out DIR` writes each image.
    Filmstrip(cmd::filmstrip::Args),
    /// A trace's user timings: performance.mark/measure, console.time and console.timeStamp.
    Timings(cmd::timings::Args),
    /// A time-ordered flame chart (SVG) of one thread: calls and engine events at their real times.
    Flamechart(cmd::flamechart::Args),
    /// The profiling service: sessions, timelines and events over HTTP (prints its URL and token).
    Serve(cmd::serve::Args),
    /// The MCP server over stdio, for coding agents: profiles, traces and snapshots as tools.
    Mcp(cmd::mcp::Args),
    /// The browser UI on files: flame chart, flame graph, call trees, heap views (a local server;
    /// prints its URL and opens a browser).
    View(cmd::view::Args),
    /// One self-contained HTML file with the UI's views of a profile or snapshot (no server, no
    /// network): for CI artifacts and bug reports.
    Report(cmd::report::Args),
    /// The profile lake: many profiles as Parquet, queried with SQL (top, tree, trend, …).
    #[cfg(feature = "lake")]
    #[command(subcommand)]
    Lake(cmd::lake::LakeCommand),
    /// The profile lake: many profiles as Parquet, queried with SQL (not in this build: the
    /// cargo feature `lake`).
    #[cfg(not(feature = "lake"))]
    Lake(cmd::lake::Args),
    /// Heap snapshots: summary, statistics, single objects.
    #[command(subcommand)]
    Heap(cmd::heap::HeapCommand),
}

/// For an unknown subcommand clap found nothing like (its similarity misses swapped letters:
/// `tpo`), the nearest one at that level by edit distance with transpositions (`lake tpo`).
fn subcommand_tip(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return None;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    // The level the word was typed at: the subcommands named before it on the command line.
    let root = <Cli as clap::CommandFactory>::command();
    let mut level = &root;
    let mut path = String::new();
    for arg in std::env::args().skip(1) {
        if arg == *typed {
            break;
        }
        if let Some(sub) = level.find_subcommand(&arg) {
            path.push_str(sub.get_name());
            path.push(' ');
            level = sub;
        }
    }
    let allowed = if typed.chars().count() <= 4 { 1 } else { 2 };
    level
        .get_subcommands()
        .map(|s| (strsim::osa_distance(typed, s.get_name()), s.get_name()))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, name)| (*d, name.len()))
        .map(|(_, name)| format!("a similar subcommand exists: '{path}{name}'"))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version on stdout with exit 0, usage errors on stderr with exit 2.
            let _ = e.print();
            if let Some(tip) = subcommand_tip(&e) {
                eprintln!("\n  tip: {tip}");
            }
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    output::set_table_width(cli.wide);
    if cli.no_cache {
        jsprof_heap::cache::disable();
    }
    let result = match cli.command {
        Command::Summary(args) => cmd::summary::run(args),
        Command::Top(args) => cmd::top::run(args),
        Command::Tree(args) => cmd::tree::run(args),
        Command::Lines(args) => cmd::lines::run(args),
        Command::Flamegraph(args) => cmd::flamegraph::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Threads(args) => cmd::threads::run(args),
        Command::Events(args) => cmd::events::run(args),
        Command::Flamechart(args) => cmd::flamechart::run(args),
        Command::Insights(args) => cmd::insights::run(args),
        Command::Filmstrip(args) => cmd::filmstrip::run(args),
        Command::Network(args) => cmd::network::run(args),
        Command::Timings(args) => cmd::timings::run(args),
        Command::Heap(command) => cmd::heap::run(command),
        Command::Lake(command) => cmd::lake::run(command),
        Command::Record(args) => cmd::record::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Report(args) => cmd::report::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if output::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // A message can quote the input (a name, a path): shown as the tables are.
            let mut stderr = jsprof_render::terminal::TerminalWriter::new(std::io::stderr().lock());
            let _ = writeln!(stderr, "jsprof: {err:#}");
            let _ = stderr.flush();
            ExitCode::from(2)
        }
    }
}
