//! `jsprof lake …`: the profile lake (Parquet files queried in-process with DataFusion; schema
//! and grammar in docs/lake.md).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use jsprof_analysis::abtest::{ab_test, AbOptions, AbTest, ProfileWeights};
use jsprof_document::lake as lake_doc;
use jsprof_document::lake_query::{LakeSelection, LakeTopQuery, LakeTreeQuery, LakeUnit};
use jsprof_document::load::{WeightSource, Weighted};
use jsprof_document::source_maps::SourceMaps;
use jsprof_lake::query::{self, block_on};
use jsprof_lake::{Lake, LakeReader, PrepareOptions, Prepared, Selection};
use jsprof_profile::WeightUnit;

use crate::output;

#[derive(clap::Subcommand)]
pub enum LakeCommand {
    /// Make DIR a lake (lake.json), optionally partitioned by one label besides the day.
    Init(InitArgs),
    /// Add profiles (files, or directories read recursively) with labels; content already in
    /// the lake is skipped.
    Add(AddArgs),
    /// The selected profiles, oldest first.
    Ls(QueryArgs),
    /// The function table of the selection: self and total summed over its profiles.
    Top(TopArgs),
    /// The call tree (or bottom-up tree) of the selection's merged stacks.
    Tree(TreeArgs),
    /// A flame graph (SVG) of the selection's merged stacks.
    Flamegraph(FlamegraphArgs),
    /// How one function's share moves across a label's values (versions sort naturally) or days.
    Trend(TrendArgs),
    /// Compare two groups of profiles (a rank test per function's share, corrected for many
    /// functions): only significant changes above a noise floor are listed.
    Diff(DiffArgs),
    /// Read-only SQL over the views profiles, samples, stacks, functions, classes.
    Sql(SqlArgs),
    /// Merge each partition's small files (atomic for readers).
    Compact(CompactArgs),
    /// Write the selection's merged stacks (what `lake top` and `lake tree` add up) in a format
    /// other tools open: the OpenTelemetry profiles signal, pprof, folded stacks.
    Export(ExportArgs),
}

#[derive(clap::Args)]
pub struct InitArgs {
    pub lake: PathBuf,
    /// A label to partition by besides the day (`service`, `version`, …).
    #[arg(long)]
    pub partition_label: Option<String>,
}

#[derive(clap::Args)]
pub struct AddArgs {
    /// The lake (made on first use).
    pub lake: PathBuf,
    /// Profiles, traces, heap profiles or snapshots (gzip too), or directories of them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// A label for every profile added: NAME=VALUE (repeat for more).
    #[arg(long = "label", short = 'l')]
    pub labels: Vec<String>,
    /// Also take labels from the inputs' paths: every directory named NAME=VALUE (Hive style,
    /// `runs/version=1.2/page=checkout/a.json`) labels the files under it; `--label` wins.
    #[arg(long)]
    pub labels_from_path: bool,
    /// The profiles' wall-clock start when the files do not carry one (a day or RFC 3339).
    #[arg(long)]
    pub start_time: Option<String>,
    /// Do not apply source maps.
    #[arg(long)]
    pub no_sourcemaps: bool,
    /// Print JSON instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

/// The `--where`/`--since`/`--until` of every lake command: the document layer's one definition.
type Where = LakeSelection;

/// The lake's own selection from the terms.
fn selection(w: &Where) -> Result<Selection> {
    Ok(Selection::parse(
        &w.wheres,
        w.since.as_deref(),
        w.until.as_deref(),
    )?)
}

type UnitArg = LakeUnit;

#[derive(clap::Args)]
pub struct QueryArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub selection: Where,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TopArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub query: LakeTopQuery,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TreeArgs {
    pub lake: PathBuf,
    #[command(flatten)]
    pub query: LakeTreeQuery,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

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
pub struct DiffArgs {
    pub lake: PathBuf,
    /// The base group: `--where` terms (NAME=VALUE, NAME=V1|V2, NAME!=VALUE, since=, until=;
    /// comma separated, repeat for more).
    #[arg(long, required = true, value_name = "WHERE")]
    pub base: Vec<String>,
    /// The target group, as `--base`.
    #[arg(long, required = true, value_name = "WHERE")]
    pub target: Vec<String>,
    /// Terms both groups keep to (`--where page=/checkout`).
    #[command(flatten)]
    pub selection: Where,
    #[command(flatten)]
    pub stats: crate::cmd::diff::StatsArgs,
    /// Write the differential flame graph of the two merged groups (each normalised to its own
    /// total) to this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub flamegraph: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
    /// How many changes to list; 0 lists all.
    #[arg(long, default_value_t = 25)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TrendArgs {
    pub lake: PathBuf,
    /// The function's name (every function of that name, or the one at --url).
    #[arg(required_unless_present = "metric")]
    pub function: Option<String>,
    /// Instead of a function, a page-load metric of the page-load traces added (`lcp_ms`,
    /// `fcp_ms`, `cls`, `inp_ms`, `tbt_ms`, …, as `jsprof insights DIR` names them): its median,
    /// p75 and spread per value, as `jsprof insights DIR` gives them for a folder of runs.
    #[arg(long, conflicts_with_all = ["function", "url", "unit"])]
    pub metric: Option<String>,
    /// A label, or `day` for the profiles' start days.
    #[arg(long)]
    pub by: String,
    /// Only the function in this script.
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    pub selection: Where,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct SqlArgs {
    pub lake: PathBuf,
    /// One read-only query (SELECT, WITH, EXPLAIN) over the views.
    pub sql: String,
    /// Memory the query's sorts, aggregates and joins may hold, and the largest result a
    /// function such as `repeat` may make (bytes, or with K, M, G); past it the query fails.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = crate::cmd::serve::parse_size)]
    pub max_memory: u64,
    /// Seconds the query may run (opening the lake included); past them it is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Print JSON (one object per row) instead of a table.
    #[arg(long)]
    pub json: bool,
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

#[derive(clap::Args)]
pub struct CompactArgs {
    pub lake: PathBuf,
    /// Print JSON instead of a sentence.
    #[arg(long)]
    pub json: bool,
}

pub fn run(command: LakeCommand) -> Result<ExitCode> {
    match command {
        LakeCommand::Init(a) => {
            Lake::init(&a.lake, a.partition_label.as_deref())?;
            eprintln!("{}: a lake", a.lake.display());
            Ok(ExitCode::SUCCESS)
        }
        LakeCommand::Add(a) => run_add(a),
        LakeCommand::Ls(a) => run_ls(a),
        LakeCommand::Top(a) => run_top(a),
        LakeCommand::Tree(a) => run_tree(a),
        LakeCommand::Flamegraph(a) => run_flamegraph(a),
        LakeCommand::Trend(a) => run_trend(a),
        LakeCommand::Diff(a) => run_diff(a),
        LakeCommand::Sql(a) => run_sql(a),
        LakeCommand::Compact(a) => run_compact(a),
        LakeCommand::Export(a) => run_export(a),
    }
}

/// The files under `inputs`: files as given, directories recursively (hidden names skipped),
/// in name order.
fn collect_inputs(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>> {
    let mut out = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).with_context(|| format!("{}", input.display()))?;
        if !meta.is_dir() {
            out.push((input.clone(), true));
            continue;
        }
        let mut found = Vec::new();
        let mut todo = vec![input.clone()];
        while let Some(dir) = todo.pop() {
            for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
                let entry = entry.with_context(|| format!("{}", dir.display()))?;
                if entry.file_name().to_string_lossy().starts_with('.') {
                    continue;
                }
                let path = entry.path();
                if entry.file_type()?.is_dir() {
                    todo.push(path);
                } else {
                    found.push(path);
                }
            }
        }
        found.sort();
        out.extend(found.into_iter().map(|p| (p, false)));
    }
    Ok(out)
}

/// Inputs per write: a directory of 10,000 small traces makes one file per table and partition.
const BATCH_INPUTS: usize = 10_000;
/// ... unless their samples grow past this many rows first (bounds memory on large profiles).
const BATCH_SAMPLE_ROWS: usize = 4_000_000;

fn run_add(a: AddArgs) -> Result<ExitCode> {
    let labels = jsprof_lake::write::parse_labels(&a.labels)?;
    let lake = match Lake::open(&a.lake) {
        Ok(l) => l,
        Err(jsprof_lake::LakeError::NotALake(_)) if !a.lake.join("lake.json").exists() => {
            Lake::init(&a.lake, None)?
        }
        Err(e) => return Err(e.into()),
    };
    let options = PrepareOptions {
        source_maps: if a.no_sourcemaps {
            SourceMaps::off()
        } else {
            SourceMaps::default()
        },
        start_time_us: a
            .start_time
            .as_deref()
            .map(jsprof_lake::selection::parse_time)
            .transpose()?,
        max_bytes: 0,
    };
    let files = collect_inputs(&a.inputs)?;
    let mut writer = lake.writer();
    let mut total = jsprof_lake::AppendOutcome::default();
    let mut skipped = 0usize;
    for chunk in files.chunks(BATCH_INPUTS) {
        let prepared = prepare_parallel(chunk, &labels, a.labels_from_path, &options);
        let mut batch: Vec<Prepared> = Vec::new();
        let mut rows = 0usize;
        for ((path, named), result) in chunk.iter().zip(prepared) {
            match result {
                Ok(p) => {
                    for w in &p.warnings {
                        eprintln!("warning: {w}");
                    }
                    rows += p.profiles.iter().map(|p| p.samples.len()).sum::<usize>();
                    batch.push(p);
                }
                // A file named on the command line must be a profile; in a directory, other
                // files are passed over with a note.
                Err(e) if *named => return Err(anyhow::anyhow!("{e}")),
                Err(e) => {
                    skipped += 1;
                    eprintln!("note: {}: skipped: {e}", path.display());
                }
            }
            if rows >= BATCH_SAMPLE_ROWS {
                merge(&mut total, writer.append(std::mem::take(&mut batch))?);
                rows = 0;
            }
        }
        merge(&mut total, writer.append(batch)?);
    }
    if a.json {
        output::print_json(&lake_doc::LakeAddReport::new(
            total.profiles,
            total.files.len(),
            total.duplicates,
            skipped,
        ))?;
    } else {
        eprintln!(
            "{}: added {} profile{} in {} file{}",
            a.lake.display(),
            total.profiles,
            if total.profiles == 1 { "" } else { "s" },
            total.files.len(),
            if total.files.len() == 1 { "" } else { "s" },
        );
        for d in &total.duplicates {
            eprintln!("note: {d}: already in the lake (same content); not added again");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn merge(total: &mut jsprof_lake::AppendOutcome, one: jsprof_lake::AppendOutcome) {
    total.profiles += one.profiles;
    total.duplicates.extend(one.duplicates);
    total.files.extend(one.files);
}

/// Reads and prepares inputs on every core, results in input order.
fn prepare_parallel(
    files: &[(PathBuf, bool)],
    labels: &std::collections::BTreeMap<String, String>,
    from_path: bool,
    options: &PrepareOptions,
) -> Vec<Result<Prepared, String>> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Prepared, String>>>> =
        files.iter().map(|_| Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(files.len()).max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, _)) = files.get(i) else { break };
                let r = if from_path {
                    let mut all = path_labels(path);
                    all.extend(labels.iter().map(|(k, v)| (k.clone(), v.clone())));
                    prepare_file(path, &all, options)
                } else {
                    prepare_file(path, labels, options)
                };
                *results[i].lock().expect("not poisoned") = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .expect("not poisoned")
                .unwrap_or_else(|| Err("not read".into()))
        })
        .collect()
}

/// The labels a path's `NAME=VALUE` directories give (the innermost wins); other directories,
/// and names that are not label names, are not labels.
fn path_labels(path: &Path) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    if let Some(dir) = path.parent() {
        for part in dir.components() {
            let part = part.as_os_str().to_string_lossy();
            if part.contains('=') {
                if let Ok(one) = jsprof_lake::write::parse_labels(&[part.into_owned()]) {
                    out.extend(one);
                }
            }
        }
    }
    out
}

fn prepare_file(
    path: &Path,
    labels: &std::collections::BTreeMap<String, String>,
    options: &PrepareOptions,
) -> Result<Prepared, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    jsprof_lake::prepare(&name, bytes, labels, "cli", options).map_err(|e| e.to_string())
}

/// Opens the lake for a selection (printing the skipped files' warnings) and runs `$body` with
/// the reader bound to `$r`; once more on a fresh listing when a file vanished under the query
/// (a compaction removed it after the listing).
macro_rules! with_reader {
    ($lake:expr, $sel:expr, |$r:ident| $body:expr) => {{
        let lake = Lake::open($lake)?;
        let sel: &Selection = $sel;
        block_on(async {
            let mut retried = false;
            loop {
                let reader = match LakeReader::open(&lake, sel).await {
                    Ok(r) => r,
                    Err(e) => break Err(anyhow::Error::from(e)),
                };
                let $r = &reader;
                if !retried {
                    for w in &$r.warnings {
                        eprintln!("warning: {w}");
                    }
                }
                let result: jsprof_lake::Result<_> = $body.await;
                match result {
                    Err(e) if !retried && jsprof_lake::read::is_vanished_file(&e) => retried = true,
                    other => break other.map_err(anyhow::Error::from),
                }
            }
        })
    }};
}

fn run_ls(a: QueryArgs) -> Result<ExitCode> {
    let sel = selection(&a.selection)?;
    let rows = with_reader!(&a.lake, &sel, |r| query::ls(r, &sel))?;
    if a.json {
        let profiles = rows.into_iter().map(profile_json).collect();
        output::print_json(&lake_doc::LakeLsReport::new(profiles))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = output::Table::new(&[
        ("Profile", output::Align::Left),
        ("Kind", output::Align::Left),
        ("Source", output::Align::Left),
        ("Thread", output::Align::Left),
        ("Start", output::Align::Left),
        ("Duration", output::Align::Right),
        ("Samples", output::Align::Right),
        ("Labels", output::Align::Left),
    ]);
    for p in &rows {
        let labels: Vec<String> = p.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        table.row(vec![
            p.profile_id.clone(),
            p.kind.clone(),
            p.source_name.clone(),
            p.thread.clone().unwrap_or_default(),
            p.start_time.clone().unwrap_or_else(|| "-".into()),
            if p.weight_unit == "bytes" {
                "-".into()
            } else {
                output::fmt_ms(p.duration_us / 1000.0)
            },
            p.sample_count.to_string(),
            labels.join(" "),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}

/// A profile of `lake ls` as its document lists it.
fn profile_json(p: query::ProfileInfo) -> lake_doc::LakeProfileJson {
    lake_doc::LakeProfileJson {
        profile_id: p.profile_id,
        kind: p.kind,
        source_name: p.source_name,
        thread: p.thread,
        start_time: p.start_time,
        duration_ms: p.duration_us / 1000.0,
        sample_count: p.sample_count,
        weight_unit: p.weight_unit,
        labels: p.labels,
        added_at: p.added_at,
    }
}

/// A lake's line or column (written from a `u32`).
fn to_u32(v: Option<i64>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok())
}

fn run_top(a: TopArgs) -> Result<ExitCode> {
    let sel = selection(&a.query.selection)?;
    let unit = a.query.unit.map(UnitArg::as_str);
    let answer = with_reader!(&a.lake, &sel, |r| query::top(r, &sel, unit))?;
    if let Some(note) = &answer.note {
        eprintln!("note: {note}");
    }
    let functions = answer.rows.iter().map(|r| lake_doc::LakeFunction {
        name: &r.name,
        url: &r.url,
        line: to_u32(r.line),
        column: to_u32(r.column),
        self_weight: r.self_weight,
        total_weight: r.total_weight,
    });
    let view = lake_doc::top_view(
        lake_doc::weight_unit(&answer.unit),
        answer.total,
        answer.profiles,
        functions,
        a.query.by,
        a.query.limit,
    );
    if a.json {
        output::print_json(&lake_doc::top_report(&view, &answer.unit))?;
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{} profiles", view.profiles);
    output::to_stdout(|out| {
        crate::cmd::top::write_table(out, &view.profile, view.unit, &view.rows, view.total)
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The selection's merged stacks as one weighted profile, and how many profiles it merges.
fn merged(
    lake: &Path,
    sel: &Selection,
    unit: Option<&str>,
) -> Result<(jsprof_profile::Profile, i64)> {
    let stacks = with_reader!(lake, sel, |r| query::merged_stacks(r, sel, unit))?;
    if let Some(note) = &stacks.note {
        eprintln!("note: {note}");
    }
    Ok((query::merged_profile(&stacks), stacks.profiles))
}

fn run_export(a: ExportArgs) -> Result<ExitCode> {
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

fn run_tree(a: TreeArgs) -> Result<ExitCode> {
    let sel = selection(&a.query.selection)?;
    let (profile, _) = merged(&a.lake, &sel, a.query.unit.map(UnitArg::as_str))?;
    let weighted = Weighted {
        profile: Cow::Owned(profile),
        thread: 0,
        source: WeightSource::Samples,
    };
    let view = jsprof_document::tree::view(&weighted, a.query.options());
    if a.json {
        output::print_json(&jsprof_document::tree::report(&weighted, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    output::to_stdout(|out| crate::cmd::tree::write_table(out, &weighted.profile, &view))?;
    Ok(ExitCode::SUCCESS)
}

fn run_flamegraph(a: FlamegraphArgs) -> Result<ExitCode> {
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

/// One group's per-profile function weights, as `jsprof diff --key function` weighs a file:
/// functions by (name, URL, line, column), each profile's total the weight on some function.
async fn group_weights(
    reader: &LakeReader,
    sel: &Selection,
    unit: &str,
) -> jsprof_lake::Result<Vec<ProfileWeights>> {
    let rows = query::per_profile_functions(reader, sel, unit).await?;
    let names = query::function_names(reader, |_| true).await?;
    Ok(rows
        .into_iter()
        .map(|p| {
            let mut functions = std::collections::HashMap::new();
            for (fid, (self_w, total_w)) in p.functions {
                let name = match names.get(&fid) {
                    Some((n, u, l, c)) => (n.clone(), u.clone(), to_u32(*l), to_u32(*c)),
                    None => (format!("(function {fid:016x})"), String::new(), None, None),
                };
                let e: &mut (f64, f64) = functions.entry(name).or_default();
                e.0 += self_w as f64;
                e.1 += total_w as f64;
            }
            ProfileWeights {
                functions,
                total: p.total as f64,
            }
        })
        .collect())
}

/// The two groups' A/B test over a lake (`lake diff`, `jsprof check --lake`): `(test, unit)`.
pub fn lake_ab_test(
    lake: &Path,
    base: &Selection,
    target: &Selection,
    unit: Option<&str>,
    options: AbOptions,
) -> Result<(AbTest, String)> {
    let (unit, base_w) = with_reader!(lake, base, |r| async {
        let (unit, note) = query::choose_unit(r, base, unit).await?;
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        let w = group_weights(r, base, &unit).await?;
        Ok((unit, w))
    })?;
    let target_w = with_reader!(lake, target, |r| group_weights(r, target, &unit))?;
    let test = ab_test(&base_w, &target_w, options).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((test, unit))
}

fn group_selection(terms: &[String], common: &Where) -> Result<Selection> {
    let mut wheres = common.wheres.clone();
    wheres.extend(terms.iter().cloned());
    Ok(Selection::parse(
        &wheres,
        common.since.as_deref(),
        common.until.as_deref(),
    )?)
}

fn run_diff(a: DiffArgs) -> Result<ExitCode> {
    let options = a.stats.options()?;
    let base = group_selection(&a.base, &a.selection)?;
    let target = group_selection(&a.target, &a.selection)?;
    let unit = a.unit.map(UnitArg::as_str);
    let (test, unit) = lake_ab_test(&a.lake, &base, &target, unit, options)?;
    if let Some(out) = &a.flamegraph {
        let (b, _) = merged(&a.lake, &base, Some(&unit))?;
        let (t, _) = merged(&a.lake, &target, Some(&unit))?;
        let options = jsprof_render::FlameGraphOptions {
            title: "Differential Flame Graph".to_string(),
            subtitle: Some(format!(
                "{}: {} → {} (each group normalised to its total) — red grew, blue shrank, hatched is gone",
                a.lake.display(),
                a.base.join(", "),
                a.target.join(", ")
            )),
            ..Default::default()
        };
        let mut file = crate::output_file::create_output(out)?;
        jsprof_render::write_diff_flame_graph_svg(
            &mut file,
            (&b, &b.threads[0]),
            (&t, &t.threads[0]),
            jsprof_analysis::DiffKey::Function,
            true,
            &options,
        )
        .with_context(|| format!("writing {}", out.display()))?;
        file.finish()?;
    }
    let report = jsprof_document::abtest::report(
        &test,
        &a.base.join(", "),
        &a.target.join(", "),
        "function",
        Vec::new(),
    );
    if a.json {
        output::print_json(&report)?;
    } else {
        crate::cmd::diff::print_ab_report(&report, a.limit)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_trend(a: TrendArgs) -> Result<ExitCode> {
    let sel = selection(&a.selection)?;
    let Some(function) = a.function.clone() else {
        return run_page_trend(a, &sel);
    };
    let unit = a.unit.map(UnitArg::as_str);
    let (url, by) = (a.url.clone(), a.by.clone());
    let (unit, points) = with_reader!(&a.lake, &sel, |r| query::trend(
        r,
        &sel,
        &function,
        url.as_deref(),
        &by,
        unit
    ))?;
    let weight_unit = lake_doc::weight_unit(&unit);
    let points: Vec<lake_doc::LakeTrendPoint> = points
        .into_iter()
        .map(|p| {
            lake_doc::LakeTrendPoint::new(
                weight_unit,
                p.value,
                p.profiles,
                p.total,
                p.self_weight,
                p.total_weight,
            )
        })
        .collect();
    if a.json {
        output::print_json(&lake_doc::LakeTrendReport {
            kind: "lake-trend",
            function,
            by: a.by,
            unit,
            points,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = output::Table::new(&[
        (a.by.as_str(), output::Align::Left),
        ("Profiles", output::Align::Right),
        ("Self %", output::Align::Right),
        ("Total %", output::Align::Right),
    ]);
    for p in &points {
        table.row(vec![
            p.value.clone().unwrap_or_else(|| "(none)".into()),
            p.profiles.to_string(),
            format!("{:.2}", p.weights.self_percent),
            format!("{:.2}", p.weights.total_percent),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}

/// `lake trend --metric`: a page-load metric's distribution per label value.
fn run_page_trend(a: TrendArgs, sel: &jsprof_lake::Selection) -> Result<ExitCode> {
    use jsprof_document::page_runs::{distribution, METRICS};
    let asked = a.metric.as_deref().unwrap_or_default();
    let Some(&metric) = METRICS.iter().find(|&&m| m == asked) else {
        anyhow::bail!(
            "--metric {asked}: not a page-load metric; one of {}",
            METRICS.join(", ")
        );
    };
    let by = a.by.clone();
    let groups = with_reader!(&a.lake, sel, |r| query::page_metric_values(
        r, sel, metric, &by
    ))?;
    let points: Vec<lake_doc::LakePageTrendPoint> = groups
        .into_iter()
        .filter_map(|(value, values)| {
            distribution(metric, values).map(|distribution| lake_doc::LakePageTrendPoint {
                value,
                distribution,
            })
        })
        .collect();
    if a.json {
        output::print_json(&lake_doc::LakePageTrendReport {
            kind: "lake-page-trend",
            metric,
            by: a.by,
            points,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    if points.is_empty() {
        eprintln!(
            "{}: no page-load trace of the selection has {metric} (page loads are traces with a navigation, e.g. from `jsprof record --url`)",
            a.lake.display()
        );
    }
    let fmt = |x: f64| jsprof_document::page_runs::metric_text(metric, x);
    let mut table = output::Table::new(&[
        (a.by.as_str(), output::Align::Left),
        ("Runs", output::Align::Right),
        ("Median", output::Align::Right),
        ("p75", output::Align::Right),
        ("Min", output::Align::Right),
        ("Max", output::Align::Right),
    ]);
    for p in &points {
        let d = &p.distribution;
        table.row(vec![
            p.value.clone().unwrap_or_else(|| "(none)".into()),
            d.runs.to_string(),
            fmt(d.median),
            fmt(d.p75),
            fmt(d.min),
            fmt(d.max),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}

fn run_sql(a: SqlArgs) -> Result<ExitCode> {
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        anyhow::bail!("--timeout needs a positive number of seconds");
    }
    let limits = jsprof_lake::Limits {
        max_memory: usize::try_from(a.max_memory).unwrap_or(usize::MAX).max(1),
        timeout: std::time::Duration::from_secs_f64(a.timeout.min(1e9)),
    };
    let lake = Lake::open(&a.lake)?;
    let (batches, warnings) = jsprof_lake::read::sql(&lake, &a.sql, &limits)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if a.json {
        let rows = jsprof_lake::query::rows_json(&batches)?;
        output::print_json(&lake_doc::LakeSqlReport::new(rows))?;
        return Ok(ExitCode::SUCCESS);
    }
    let columns: Vec<String> = batches
        .first()
        .map(|b| {
            b.schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect()
        })
        .unwrap_or_default();
    let rows = jsprof_lake::query::rows_json(&batches)?;
    output::to_stdout(|out| sql_table(&columns, &rows).write(out))?;
    Ok(ExitCode::SUCCESS)
}

/// `lake sql`'s rows as a table like every other (the cells are the lake's — function names,
/// labels — so they are escaped as every table's are): numbers right-aligned, NULL empty.
fn sql_table(columns: &[String], rows: &[serde_json::Value]) -> output::Table {
    let numeric = |c: &String| {
        rows.iter().all(|r| {
            matches!(
                r.get(c),
                None | Some(serde_json::Value::Null | serde_json::Value::Number(_))
            )
        })
    };
    let aligns: Vec<(&str, output::Align)> = columns
        .iter()
        .map(|c| {
            let align = if numeric(c) {
                output::Align::Right
            } else {
                output::Align::Left
            };
            (c.as_str(), align)
        })
        .collect();
    let mut table = output::Table::new(&aligns);
    for row in rows {
        table.row(
            columns
                .iter()
                .map(|c| match row.get(c) {
                    None | Some(serde_json::Value::Null) => String::new(),
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                })
                .collect(),
        );
    }
    table
}

fn run_compact(a: CompactArgs) -> Result<ExitCode> {
    let lake = Lake::open(&a.lake)?;
    let outcome = jsprof_lake::compact::compact(&lake)?;
    for s in &outcome.skipped {
        eprintln!("warning: {s}");
    }
    if a.json {
        output::print_json(&lake_doc::LakeCompactReport::new(
            lake_doc::LakeCompaction {
                files_before: outcome.files_before,
                files_after: outcome.files_after,
                rows_before: outcome.rows_before,
                rows_after: outcome.rows_after,
                skipped: outcome.skipped,
            },
        ))?;
    } else {
        eprintln!(
            "{}: {} files → {}, {} rows → {}",
            a.lake.display(),
            outcome.files_before,
            outcome.files_after,
            outcome.rows_before,
            outcome.rows_after
        );
    }
    Ok(ExitCode::SUCCESS)
}
