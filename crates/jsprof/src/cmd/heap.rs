//! `jsprof heap …`: heap snapshot commands (Summary, Statistics, single nodes), with DevTools' numbers.

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use jsprof_document::heap_query::HeapSummaryQuery;
use jsprof_heap::cache::Progress;
use jsprof_heap::{
    open_analysed, open_overview_answering, read_snapshot_with, Analysis, HeapCache, HeapSnapshot,
    IndexKept, Overview, ReadOptions,
};
use jsprof_profile::Format;
use serde::Serialize;

use crate::input;
use crate::output::{self, columns, fmt_bytes, fmt_percent, Align, Columns, JsonWarning, Table};

mod advisors;
mod allocations;
mod class;
mod contexts;
mod detached;
mod diff;
mod dominators;
mod edges;
pub(crate) mod leaks;
pub(crate) mod process;
mod redact;
mod retainers;
mod strings;

#[derive(Subcommand)]
pub enum HeapCommand {
    /// DevTools' Summary: objects grouped by class, with count, self and retained size, distance.
    Summary(SummaryArgs),
    /// DevTools' Statistics: where every byte of the heap goes.
    Stats(StatsArgs),
    /// The JavaScript contexts (realms: a page's frames, `vm` contexts) and the bytes each owns
    /// alone, shared or in none, as DevTools' Summary "JavaScript context" select lists them.
    Contexts(contexts::ContextsArgs),
    /// Single objects by id: sizes, distance, dominator, edges.
    Node(NodeArgs),
    /// One class's objects (an expanded Summary row), in one order, a page at a time.
    Class(class::ClassArgs),
    /// DevTools' Comparison of TARGET against BASE per class, plus the retained-size change.
    Diff(diff::DiffArgs),
    /// Why an object is alive: its shortest retaining paths up to the roots.
    Retainers(retainers::RetainersArgs),
    /// The dominator tree (from the root or one object) with retained sizes, largest first.
    Dominators(dominators::DominatorsArgs),
    /// One object's edges (DevTools' Containment) or, with --retainers, its direct retainers.
    Edges(edges::EdgesArgs),
    /// Duplicated strings: values held more than once, largest waste first.
    Strings(strings::StringsArgs),
    /// Memory the program could give back: duplicated objects and arrays, empty collections and
    /// duplicated strings, each with the bytes it would save and the path that holds it.
    Advisors(advisors::AdvisorsArgs),
    /// Detached DOM trees and what keeps each alive.
    Detached(detached::DetachedArgs),
    /// Objects created between BASE and TARGET and still alive in FINAL, grouped by retaining path;
    /// or over a series of snapshots (or a directory), which groups keep growing.
    Leaks(leaks::LeaksArgs),
    /// A Node process's memory, isolate by isolate: each one's JS heap, its external buffers and
    /// who owns them, and the RSS that none of them explains (from `record --heap-snapshot`).
    Process(process::ProcessArgs),
    /// Allocation stacks of a `.heaptimeline`: allocated and still-live objects per stack.
    Allocations(allocations::AllocationsArgs),
    /// A copy safe to share: string values replaced by same-length placeholders, the graph kept.
    ///
    /// DevTools opens the copy and shows the same Summary, Statistics, dominators and retainers:
    /// nodes and edges are unchanged (types, ids, sizes, targets), and so are the names those views
    /// are computed from — class and constructor names, closure, code, native and synthetic node
    /// names, property and variable names (edge names), allocation stacks and locations. What is
    /// replaced is the text of every string value (sequential, concatenated and sliced strings,
    /// the script sources among them) and regexp sources: each by `x`s ending in a hex tag, of the
    /// same length in UTF-16 code units. A text that is both a name and a value (a string "Point"
    /// and a class Point) keeps the name and gets a placeholder for the value. Number values (in
    /// snapshots taken with `exposeNumericValues`) stay unless --numbers.
    ///
    /// Class, property and function names survive: a secret used as a property name or held by a
    /// native object's name (a DOM URL, say) is not redacted.
    Redact(redact::RedactArgs),
}

#[derive(clap::Args)]
pub struct SummaryArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub query: HeapSummaryQuery,
    /// Only the objects allocated between two earlier snapshots of the process (DevTools'
    /// "Objects allocated between Snapshot 1 and Snapshot 2"): ids after FIRST's largest JS
    /// object id, up to SECOND's.
    #[arg(long, num_args = 2, value_names = ["FIRST", "SECOND"])]
    pub between: Option<Vec<PathBuf>>,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
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
    /// Node ids (the `@id` DevTools shows; the `@` may be given).
    #[arg(required = true, value_parser = parse_node_id)]
    pub ids: Vec<u32>,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(command: HeapCommand) -> Result<ExitCode> {
    match command {
        HeapCommand::Summary(args) => run_summary(args),
        HeapCommand::Stats(args) => run_stats(args),
        HeapCommand::Contexts(args) => contexts::run(args),
        HeapCommand::Node(args) => run_node(args),
        HeapCommand::Class(args) => class::run(args),
        HeapCommand::Diff(args) => diff::run(args),
        HeapCommand::Retainers(args) => retainers::run(args),
        HeapCommand::Dominators(args) => dominators::run(args),
        HeapCommand::Edges(args) => edges::run(args),
        HeapCommand::Strings(args) => strings::run(args),
        HeapCommand::Advisors(args) => advisors::run(args),
        HeapCommand::Detached(args) => detached::run(args),
        HeapCommand::Leaks(args) => leaks::run(args),
        HeapCommand::Process(args) => process::run(args),
        HeapCommand::Allocations(args) => allocations::run(args),
        HeapCommand::Redact(args) => redact::run(args),
    }
}

/// A snapshot after DevTools' analysis, with the warnings from loading it.
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub(crate) snapshot: HeapSnapshot,
    pub(crate) analysis: Analysis,
}

impl Loaded {
    #[allow(dead_code)]
    fn warnings_json(&self) -> Vec<JsonWarning> {
        jsprof_document::heap::warnings(&self.snapshot)
    }

    /// The warnings with the file's name in front, for outputs that read several files.
    fn print_warnings(&self) {
        output::warn(&self.name, &self.snapshot.warnings);
    }
}

/// One object as the exploration commands list it.
use jsprof_document::heap::ObjectJson;

impl Loaded {
    /// The tail of a command on this snapshot: `doc` as JSON with `--json`; else the snapshot's
    /// warnings on stderr and `text` on stdout ([`output::emit`]).
    fn emit<D: Serialize>(
        &self,
        json: bool,
        doc: &D,
        text: impl FnOnce(&mut output::TextOut) -> io::Result<()>,
    ) -> Result<ExitCode> {
        output::emit(json, doc, |out| {
            self.print_warnings();
            text(out)
        })
    }

    fn object_json(&self, n: jsprof_heap::NodeOrdinal) -> ObjectJson {
        jsprof_document::heap::object_json(&self.snapshot, &self.analysis, n)
    }

    /// The originals of the objects `doc` lists, as `maps` allows ([`map_objects`]), and what
    /// the maps had to say, for the document's warnings.
    ///
    /// [`map_objects`]: jsprof_document::heap_source_maps::map_objects
    fn map_objects(
        &self,
        doc: &mut impl jsprof_document::heap_source_maps::ListsObjects,
        maps: &crate::transform_args::SourceMapArgs,
    ) -> Result<Vec<JsonWarning>> {
        Ok(jsprof_document::heap_source_maps::map_objects(
            doc,
            &self.analysis.scripts,
            &maps.policy(),
        )?)
    }

    /// The ordinal of the node with this id, or an error naming the file.
    fn ordinal_of(&self, id: u32) -> Result<jsprof_heap::NodeOrdinal> {
        Ok(jsprof_document::heap::ordinal_of(
            &self.name,
            &self.snapshot,
            id,
        )?)
    }
}

/// Inputs larger than this get a progress bar (when stderr is a terminal).
const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// Refuses an input that is not a heap snapshot before reading it, naming what it is and the
/// command that reads it: a `.cpuprofile` would otherwise fail deep in the snapshot reader as
/// "malformed JSON". Only regular files are sniffed (stdin cannot be read twice); for those the
/// snapshot reader's own error stands.
pub(crate) fn require_snapshot(path: &Path) -> Result<()> {
    let name = input::display_name(path);
    let (what, command) = match crate::load::detect_format(path)? {
        None | Some(Format::HeapSnapshot) => return Ok(()),
        Some(Format::CpuProfile) => ("a CPU profile (.cpuprofile)", "top"),
        Some(Format::SelfProfile) => ("a JS Self-Profiling trace", "top"),
        Some(Format::Trace) => ("a Chrome trace", "summary"),
        Some(Format::HeapProfile) => (
            "a sampling heap profile (.heapprofile: bytes allocated per function)",
            "top",
        ),
    };
    bail!(
        "{name}: this is {what}, not a heap snapshot; `jsprof heap` reads .heapsnapshot and \
         .heaptimeline files. Try `jsprof {command} {name}`"
    )
}

/// Opens a snapshot for analysis, the one way every heap command (and `check`'s and `report`'s
/// snapshots) does: from its heap index when one is valid, else read and analysed, with a
/// progress bar on a terminal, keeping an index for next time.
pub(crate) fn load(path: &Path) -> Result<Loaded> {
    let (name, (snapshot, analysis)) = open_with(path, |file, cache, read, progress, _| {
        let o = open_analysed(file, cache, read, progress)?;
        Ok((
            (o.snapshot, o.analysis),
            o.from_index,
            o.index_kept,
            o.notes,
        ))
    })?;
    Ok(Loaded {
        name,
        snapshot,
        analysis,
    })
}

/// What `heap summary` and `heap stats` print, opened as [`load`] opens a snapshot but, from a
/// valid index, without reading the graph's columns; `answer` prints it (the display name and
/// the overview) as soon as it is known: before the index is written, when one is.
fn answer_overview(path: &Path, answer: impl FnOnce(&str, &Overview) -> Result<()>) -> Result<()> {
    let name = input::display_name(path);
    let mut answer = Some(answer);
    open_with(path, |file, cache, read, progress, ready| {
        let o = open_overview_answering(file, cache, read, progress, &mut |overview| {
            let answer = answer.take().expect("the overview is answered once");
            ready(&mut Some(Box::new(|| answer(&name, overview))))
        })?;
        Ok(((), o.from_index, o.index_kept, o.notes))
    })?;
    Ok(())
}

/// Reads the snapshot at `path` when `open` calls for it.
type ReadSnapshot<'a> = Box<dyn FnMut() -> Result<HeapSnapshot> + 'a>;

/// An answer given while a snapshot is opened, before its index is written.
type Answer<'a> = Option<Box<dyn FnOnce() -> Result<()> + 'a>>;

/// What `open` gives (with whether it came from the index, and its notes), the progress bars
/// and the phases around it, the notes printed. `open` may answer before the index is written
/// through its last argument, which clears the progress bar from stderr first.
fn open_with<T>(
    path: &Path,
    open: impl FnOnce(
        Option<&Path>,
        Option<&HeapCache>,
        ReadSnapshot<'_>,
        &mut dyn FnMut(Progress),
        &mut dyn FnMut(&mut Answer<'_>) -> Result<()>,
    ) -> Result<(T, bool, Option<IndexKept>, Vec<String>)>,
) -> Result<(String, T)> {
    require_snapshot(path)?;
    let name = input::display_name(path);
    let cache = HeapCache::from_env()?;
    let phases = Phases(jsprof_heap::PhaseClock::from_env());
    // Shared by the reading closure and the progress callback below.
    let bar: RefCell<Option<ProgressBar>> = RefCell::new(None);
    let index_bar = RefCell::new(IndexBar::default());
    let file = (path != Path::new("-")).then_some(path);
    // Whether the snapshot was read (not opened from its index), and whether `open` answered.
    let (was_read, answered) = (std::cell::Cell::new(false), std::cell::Cell::new(false));
    let read = || -> Result<HeapSnapshot> {
        was_read.set(true);
        let input = input::open(path)?;
        *bar.borrow_mut() = progress_bar(input.file_size, input.gzipped);
        let mut report = |bytes: u64| {
            if let Some(bar) = &*bar.borrow() {
                bar.set_position(bytes);
            }
        };
        let options = ReadOptions {
            progress: Some(&mut report),
        };
        let loaded = read_snapshot_with(input.reader, options);
        phases.report("read");
        loaded.map_err(|e| {
            if let Some(bar) = &*bar.borrow() {
                bar.finish_and_clear();
            }
            anyhow!("{name}: {e}")
        })
    };
    let mut progress = |event: Progress| match event {
        Progress::Analysing => {
            if let Some(bar) = &*bar.borrow() {
                bar.set_message("analysing");
            }
        }
        Progress::WritingIndex { done, total } => {
            if let Some(bar) = bar.borrow_mut().take() {
                bar.finish_and_clear();
                phases.report("analyse");
            } else if index_bar.borrow().start.is_none() && !answered.get() {
                phases.report("analyse");
            }
            index_bar
                .borrow_mut()
                .show("writing the heap index", done, total);
        }
        Progress::ReadingIndex { done, total } => {
            index_bar
                .borrow_mut()
                .show("reading the heap index", done, total)
        }
    };
    let mut ready = |answer: &mut Answer<'_>| -> Result<()> {
        // Off stderr before the answer: the read's bar, or the index's when it was read.
        if let Some(bar) = bar.borrow_mut().take() {
            bar.finish_and_clear();
        }
        index_bar.borrow_mut().finish();
        phases.report(if was_read.get() {
            "analyse"
        } else {
            "index read"
        });
        answered.set(true);
        let result = answer.take().map_or(Ok(()), |a| a());
        phases.report("answered");
        result
    };
    let (opened, from_index, kept, notes) = open(
        file,
        cache.as_ref(),
        Box::new(read),
        &mut progress,
        &mut ready,
    )?;
    if let Some(bar) = bar.borrow_mut().take() {
        bar.finish_and_clear();
    }
    index_bar.borrow_mut().finish();
    match (
        from_index,
        index_bar.borrow().start.is_some() || kept.is_some(),
        answered.get(),
    ) {
        (false, true, _) => phases.report("index written"),
        (_, _, true) => {}
        (true, _, false) => phases.report("index read"),
        (false, false, false) => phases.report("analyse"),
    }
    for note in &notes {
        eprintln!("jsprof: {note}");
    }
    if let Some(kept) = kept {
        // Said once, when written: the next open of this file reads it instead.
        eprintln!(
            "jsprof: {name}: kept its heap index ({}) in {}, so the next command on it starts \
             at once; the folder keeps at most {} (JSPROF_CACHE_MAX_BYTES; --no-cache or \
             JSPROF_CACHE=0 keeps none)",
            fmt_bytes(kept.bytes as f64),
            kept.dir.display(),
            fmt_bytes(kept.max_bytes as f64)
        );
    }
    Ok((name, opened))
}

/// A bar for reading or writing the heap index, shown only once that has taken a second (a
/// small index comes and goes faster than a bar could be read) and only on a terminal.
#[derive(Default)]
struct IndexBar {
    start: Option<std::time::Instant>,
    bar: Option<ProgressBar>,
}

impl IndexBar {
    fn show(&mut self, what: &str, done: u64, total: u64) {
        let start = *self.start.get_or_insert_with(std::time::Instant::now);
        if self.bar.is_none() && start.elapsed().as_secs() >= 1 && io::stderr().is_terminal() {
            let bar = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {msg}")
            {
                bar.set_style(style);
            }
            bar.set_message(what.to_string());
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// `JSPROF_HEAP_PHASES=1`: each phase's end on stderr ([`jsprof_heap::PhaseClock`]).
struct Phases(jsprof_heap::PhaseClock);

impl Phases {
    fn report(&self, phase: &str) {
        if let Some((seconds, rss)) = self.0.read() {
            eprintln!("phase {phase}: {seconds:.2} s, peak RSS {rss}");
        }
    }
}

pub(crate) fn progress_bar(file_size: Option<u64>, gzipped: bool) -> Option<ProgressBar> {
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

use jsprof_document::heap::{statistics_json, StatisticsJson};
use jsprof_document::heap_source_maps::map_summary;

fn run_summary(args: SummaryArgs) -> Result<ExitCode> {
    let (sort, limit) = (args.query.sort.into(), args.query.limit);
    let policy = args.source_maps.policy();
    // The report, and how many of its warnings are the snapshot's (printed under its name).
    let (name, report, snapshot_warnings) = match (&args.between, args.query.context) {
        (Some(_), Some(_)) => bail!("--between and --context cannot be given together"),
        (None, None) => {
            // Every class's row is in the overview: no need for the graph. Printed before the
            // heap index is written.
            let mut code = ExitCode::SUCCESS;
            answer_overview(&args.file, |name, overview| {
                let mut report =
                    jsprof_document::heap::overview_summary_report(overview, sort, limit);
                map_summary(&mut report, &overview.scripts, &policy)?;
                let n = report.warnings.len();
                code = print_summary(args.json, name, &report, n)?;
                Ok(())
            })?;
            return Ok(code);
        }
        (None, Some(context)) => {
            let loaded = load(&args.file)?;
            let contexts = jsprof_heap::NativeContexts::of(&loaded.snapshot);
            let mut report = jsprof_document::heap_contexts::summary_report_in_context(
                (&loaded.name, &loaded.snapshot, &loaded.analysis),
                &contexts,
                (sort, limit),
                context,
            )?;
            // As the service and MCP map a context's Summary.
            map_summary(&mut report, &loaded.analysis.scripts, &policy)?;
            let n = report.warnings.len();
            (loaded.name, report, n)
        }
        (Some(pair), None) => {
            let loaded = load(&args.file)?;
            // Only their ids are used (through the heap index, as every command opens a
            // snapshot): the largest JS object id of each.
            let max_id = |path: &PathBuf| -> Result<u32> {
                Ok(jsprof_heap::max_node_id(&load(path)?.snapshot))
            };
            let (first, second) = (input::display_name(&pair[0]), input::display_name(&pair[1]));
            let (between, swapped) = jsprof_document::heap::BetweenJson::of(
                (&first, max_id(&pair[0])?),
                (&second, max_id(&pair[1])?),
            );
            let mut report = jsprof_document::heap::summary_report_between(
                &loaded.snapshot,
                &loaded.analysis,
                sort,
                limit,
                between,
            );
            if let Some(w) = &swapped {
                if !args.json {
                    output::print_warnings("heap summary --between", [("", w.message.as_str())]);
                }
            }
            map_summary(&mut report, &loaded.analysis.scripts, &policy)?;
            let n = report.warnings.len();
            report.warnings.extend(swapped);
            (loaded.name, report, n)
        }
    };
    print_summary(args.json, &name, &report, snapshot_warnings)
}

/// `heap summary`'s answer: the first `snapshot_warnings` of its warnings are the snapshot's.
fn print_summary(
    json: bool,
    name: &str,
    report: &jsprof_document::heap::SummaryReport,
    snapshot_warnings: usize,
) -> Result<ExitCode> {
    let total = report.total_size;
    output::emit(json, report, |out| {
        output::warn(name, &report.warnings[..snapshot_warnings]);
        let pct = move |v: u64| {
            fmt_percent(if total == 0 {
                0.0
            } else {
                v as f64 * 100.0 / total as f64
            })
        };
        writeln!(
            out,
            "{} ({}): {} nodes, {} total",
            name,
            report.kind,
            report.node_count,
            fmt_bytes(total as f64)
        )?;
        if let Some(b) = &report.between {
            writeln!(
                out,
                "objects allocated between the two snapshots: ids after @{} up to @{}",
                b.after_id, b.up_to_id
            )?;
        }
        if let Some(c) = &report.context {
            match (&c.name, c.id) {
                (Some(context), Some(id)) => writeln!(out, "objects of context @{id} ({context})")?,
                _ if c.owner == "shared" => writeln!(out, "objects shared between contexts")?,
                _ => writeln!(out, "objects in no context")?,
            }
        }
        let table = columns(&report.classes)
            .left("Class", |r| truncate(&r.name, 60))
            .right("Count", |r| r.count.to_string())
            .right("Distance", |r| fmt_distance(r.distance))
            .right("Self size", |r| fmt_bytes(r.self_size as f64))
            .right("Self %", move |r| pct(r.self_size))
            .right("Retained size", |r| fmt_bytes(r.retained_size as f64))
            .right("Retained %", move |r| pct(r.retained_size));
        // Only when a map placed a row: the original name and where its constructor is.
        table
            .left_unless_empty("Original", |r| original_text(&r.original, 100))
            .write(out)
    })
}

/// A source map's original as the tables' Original column shows it: `Name url:line:column`
/// (the place alone when the map names nothing); empty when no map placed it.
fn original_text(o: &jsprof_document::heap::InSource, width: usize) -> String {
    let Some(place) = &o.source_location else {
        return String::new();
    };
    match &o.source_name {
        Some(name) => truncate(&format!("{name} {place}"), width),
        None => truncate(place, width),
    }
}

/// The columns that place a table's objects, each only when some row has it: `Location`, where
/// the object's function (a closure's own, an object's constructor) is, as DevTools links it;
/// `Original`, where a source map places it.
fn object_places<'a, T: 'a>(
    table: Columns<'a, T>,
    object: impl Fn(&T) -> &ObjectJson + Copy + 'a,
) -> Columns<'a, T> {
    table
        .left_unless_empty("Location", move |r| {
            object(r).location.clone().unwrap_or_default()
        })
        .left_unless_empty("Original", move |r| {
            let o = object(r);
            original_text(&o.original, 100)
        })
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
    let mut code = ExitCode::SUCCESS;
    answer_overview(&args.file, |name, overview| {
        code = print_stats(args.json, name, overview)?;
        Ok(())
    })?;
    Ok(code)
}

/// `heap stats`' answer.
fn print_stats(json: bool, name: &str, overview: &Overview) -> Result<ExitCode> {
    let st = overview.statistics;
    let report = StatsJson {
        kind: overview.kind,
        warnings: jsprof_document::heap::warnings_of(&overview.warnings),
        node_count: overview.node_count,
        total_size: overview.total_size,
        statistics: statistics_json(&st),
    };
    output::emit(json, &report, |out| {
        output::warn(name, &overview.warnings);
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
        writeln!(
            out,
            "{} ({}): V8 heap {}, native {}",
            name,
            overview.kind,
            fmt_bytes(st.v8heap_total as f64),
            fmt_bytes(st.native_total as f64)
        )?;
        table.write(out)
    })
}

fn run_node(args: NodeArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let mut report = jsprof_document::heap::nodes_report(
        &loaded.name,
        &loaded.snapshot,
        &loaded.analysis,
        &args.ids,
    )?;
    let notes = loaded.map_objects(&mut report, &args.source_maps)?;
    report.warnings.extend(notes);
    loaded.emit(args.json, &report, |out| {
        columns(&report.nodes)
            .right("Id", |n| fmt_id(n.id))
            .left("Type", |n| n.node_type.clone())
            .left("Name", |n| truncate(&n.name, 60))
            .right("Self size", |n| fmt_bytes(n.self_size as f64))
            .right("Retained size", |n| fmt_bytes(n.retained_size as f64))
            .right("Distance", |n| fmt_distance(n.distance))
            .right("Dominator", |n| fmt_id(n.dominator_id))
            .right("Edges", |n| n.edge_count.to_string())
            .right("Retainers", |n| n.retainer_count.to_string())
            .left_unless_empty("Location", |n| n.location.clone().unwrap_or_default())
            .left_unless_empty("Original", |n| original_text(&n.original, 100))
            .write(out)
    })
}

/// `-` for unreachable nodes (DevTools' -5); other distances as they are.
/// A heap node id as DevTools and jsprof print it, `@297807`, or without the `@`.
pub(crate) use jsprof_document::heap_query::parse_object_id as parse_node_id;

/// A distance as DevTools' Distance column shows it (one rendering for every door's text).
use jsprof_document::heap::distance_text as fmt_distance;

/// A heap object's id as DevTools shows it: `@297807`.
fn fmt_id(id: impl std::fmt::Display) -> String {
    format!("@{id}")
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

/// A retaining path on one line, `Class.edge → Class.edge`, as the detached-tree and leak tables
/// show it; `-` when there is none.
fn fmt_path<'a>(steps: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let path = steps
        .map(|(class, edge)| format!("{}{edge}", truncate(class, 30)))
        .collect::<Vec<_>>()
        .join(" → ");
    if path.is_empty() {
        "-".to_string()
    } else {
        path
    }
}

/// An object as the head of `heap edges` and `heap retainers` names it: name, id, class, sizes and
/// distance.
fn object_line(o: &ObjectJson) -> String {
    let mut line = format!(
        "{} @{} ({}): self {}, retained {}, distance {}",
        truncate(&o.name, 60),
        o.id,
        o.class,
        fmt_bytes(o.self_size as f64),
        fmt_bytes(o.retained_size as f64),
        fmt_distance(o.distance)
    );
    if let Some(at) = &o.location {
        line.push_str(&format!(", at {at}"));
    }
    let original = original_text(&o.original, 100);
    if !original.is_empty() {
        line.push_str(&format!(" (in the source: {original})"));
    }
    line
}

/// The edge table of DevTools' Containment and Retainers views: each edge's name and the object
/// at its other end (headed `other_end`: `Object` or `Retainer`).
fn edge_table<'a>(
    other_end: &'a str,
    edges: impl Iterator<Item = (&'a str, &'a ObjectJson)>,
) -> Columns<'a, (&'a str, &'a ObjectJson)> {
    let table = columns(edges)
        .left("Edge", |(edge, _)| truncate(edge, 40))
        .left(other_end, |(_, r)| truncate(&r.name, 40))
        .left("Class", |(_, r)| truncate(&r.class, 30))
        .right("Id", |(_, r)| fmt_id(r.id))
        .right("Distance", |(_, r)| fmt_distance(r.distance))
        .right("Self size", |(_, r)| fmt_bytes(r.self_size as f64))
        .right("Retained size", |(_, r)| fmt_bytes(r.retained_size as f64));
    object_places(table, |(_, r)| r)
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
