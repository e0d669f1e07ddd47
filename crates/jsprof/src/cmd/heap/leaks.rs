//! `jsprof heap leaks BASE TARGET FINAL`: objects created between BASE and TARGET that FINAL still
//! holds, grouped by class and retaining path. `jsprof heap leaks S1 … SN` (or a directory): the
//! same groups across a series, each with a verdict (growing, bounded, one-off).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use jsprof_document::heap::{leaks_order_of, leaks_report_of, LeakSide, LeaksOptions, Named};
use jsprof_document::leak_series::{
    p_text, series_order, LeakSeries, LeakSeriesOptions, LeakSeriesReport, MAX_SNAPSHOTS,
    MIN_SNAPSHOTS,
};
use jsprof_document::process_memory::IsolateKey;

use super::{fmt_id, fmt_path, load, truncate};
use crate::input;
use crate::output::{self, columns, fmt_bytes, TextOut};
use crate::progress::Spinner;

/// How `heap leaks` writes a retaining path (also in docs/heap.md, "Path notation").
const PATH_NOTATION: &str = "\
Path notation (root side first; each step is a retainer's class, then the edge to the next):
  .name        a property (`global.keeper`); [\"a b\"] when the name is not an identifier
  []           an array element, its index folded (`Array[]`, `(object elements)[]`)
  {}           a hidden edge or a numbered internal slot, folded: a Map's or Set's hash-table
               entry reads `Map{table} → (array){}`
  {name}       a V8 internal edge (`{table}`, `{context}`, `{shared}`)
  ->name       a variable captured by a closure, held by its context (`system / Context->cache`)
  (GC roots)   a synthetic node (class `(synthetic)` in the Summary), by its name; a path
               through `(GC roots)`, `(Global handles)`, … is held by V8 or native code, not by
               JavaScript (`(Global handles)[]`: a handle native code holds)
An anonymous closure is named by where its function was defined: `(anonymous) app.js:12:5`.
Groups: every leaked object whose path has the same shape (indexes folded) is one group; objects
held only through another leaked object (other than an Array, Map or Set) belong to that
object's group (its retained size counts them).
Order: the snapshots are put in the process's order by their object ids (V8 numbers objects from
one growing counter), with a warning when they were given otherwise, and a warning when two are
not of one process.";

/// How `heap leaks` reads a series (also in docs/heap.md, "Leak verdicts over N snapshots").
const SERIES_HELP: &str = "\
Series (4 to 50 snapshots, a directory of them, or --series): each snapshot after the first is
grouped as FINAL is (objects made since the first snapshot, by class and path shape); each
group's count and retained size across the snapshots get a verdict:
  growing   Mann-Kendall trend test, one-sided, p < --alpha (exact without ties), and still rising
            over the recent half (Sen's slope > 0 and Kendall's tau >= 0.5 over the last
            ceil(n/2) snapshots, at least 3): a leak. Its rate is Sen's slope, per snapshot, and
            per hour when the snapshots' times are known
  bounded   rose over several steps, then stayed or sawed (caches, pools, LRUs)
  one-off   one step made >= 80 % of the rise (warm-up)
Only growing groups are listed unless --all. Order: by the time in Node's own names
(Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ), else by the last number in every name (record --every's
STEM-1, STEM-2, …), else as given; times from those names or the files' modification times.
The snapshots are read one at a time: memory is one snapshot's, whatever N.";

#[derive(clap::Args)]
#[command(after_long_help = format!("{PATH_NOTATION}\n\n{SERIES_HELP}"))]
pub struct LeaksArgs {
    /// BASE (before the action under suspicion), TARGET (after it) and FINAL (later again); or
    /// a series of 4 to 50 snapshots, or one directory of them (`record --heap-snapshot
    /// --every`'s output).
    #[arg(required = true, value_name = "SNAPSHOT|DIR")]
    pub snapshots: Vec<PathBuf>,
    /// Treat three snapshots as a series (verdicts) rather than BASE TARGET FINAL.
    #[arg(long)]
    pub series: bool,
    /// Series: list every group with its verdict, not only the growing ones.
    #[arg(long)]
    pub all: bool,
    /// Series: the trend test's significance level (one-sided Mann-Kendall p-value).
    #[arg(long, default_value_t = 0.05, value_parser = alpha)]
    pub alpha: f64,
    /// Hide groups retaining less than this many bytes in FINAL (series: at their largest).
    #[arg(long, default_value_t = 0)]
    pub min_retained: u64,
    /// How many groups to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!(
            "`{text}`: expected a significance level between 0 and 1, e.g. 0.05"
        )),
    }
}

/// A directory's `.heapsnapshot` / `.heaptimeline` files (gzipped too), by name; an error when
/// it has none.
pub(crate) fn list_snapshots(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list the directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let name = name.strip_suffix(".gz").unwrap_or(name);
            !name.starts_with('.')
                && (name.ends_with(".heapsnapshot") || name.ends_with(".heaptimeline"))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        bail!(
            "{}: no .heapsnapshot or .heaptimeline files in this directory",
            dir.display()
        );
    }
    Ok(found)
}

/// The snapshots of a series: the files given, or a directory's, by name. Errors name the
/// directory or the count; a directory with the snapshots of several isolates (`record
/// --heap-snapshot --every` on a process with workers) is refused with each one's files.
pub(crate) fn series_files(given: &[PathBuf]) -> Result<(Vec<PathBuf>, bool)> {
    let mut files = Vec::new();
    let mut from_dir = false;
    for p in given {
        if p.is_dir() {
            from_dir = true;
            let found = list_snapshots(p)?;
            one_isolate(p, &found)?;
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    if files.len() > MAX_SNAPSHOTS || (from_dir && files.len() < MIN_SNAPSHOTS) {
        bail!(
            "heap leaks: a series takes {MIN_SNAPSHOTS} to {MAX_SNAPSHOTS} snapshots; {} given{}",
            files.len(),
            if from_dir {
                " (from the directory)"
            } else {
                ""
            }
        );
    }
    Ok((files, from_dir))
}

/// A series is one isolate's: a directory holding several (a process's main thread and its
/// workers, by the names `record` and Node write) names them and how to give one. Names that
/// say nothing of workers are one series, whatever they are.
fn one_isolate(dir: &Path, files: &[PathBuf]) -> Result<()> {
    let mut isolates: std::collections::BTreeMap<IsolateKey, usize> = Default::default();
    for f in files {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        *isolates.entry(IsolateKey::of(&name)).or_default() += 1;
    }
    if isolates.len() < 2 || isolates.keys().all(|k| k.worker.is_none()) {
        return Ok(());
    }
    let list: Vec<String> = isolates
        .iter()
        .map(|(k, n)| {
            let glob = match (k.process.strip_prefix("Heap."), k.worker) {
                // Node's own names: Heap.DATE.TIME.PID.TID.SEQ.
                (Some(pid), w) => format!("Heap.*.*.{pid}.{}.*.heapsnapshot", w.unwrap_or(0)),
                (None, Some(w)) => format!("{}-worker{w}-*.heapsnapshot", k.process),
                (None, None) => format!("{}-[0-9]*.heapsnapshot", k.process),
            };
            format!(
                "  {} of {} ({n} snapshots): {}",
                k.label(),
                k.process,
                dir.join(glob).display()
            )
        })
        .collect();
    bail!(
        "{}: the snapshots of {} isolates; a series is one isolate's, so give one's files:\n{}\n(`jsprof heap process {}` shows every isolate's memory)",
        dir.display(),
        isolates.len(),
        list.join("\n"),
        dir.display()
    )
}

pub fn run(args: LeaksArgs) -> Result<ExitCode> {
    let (files, from_dir) = series_files(&args.snapshots)?;
    if from_dir || args.series || files.len() != 3 {
        if files.len() < MIN_SNAPSHOTS {
            bail!(
                "heap leaks: BASE TARGET FINAL, or a series of {MIN_SNAPSHOTS} to {MAX_SNAPSHOTS} \
                 snapshots (or a directory of them); {} given",
                files.len()
            );
        }
        return run_series(&args, &files);
    }
    let paths = [&files[0], &files[1], &files[2]];
    let names = paths.map(|p| input::display_name(p));
    // One graph at a time (issue 17): each snapshot is read (or its index opened) and reduced to
    // its ids; FINAL's graph is kept when it was given last, as it normally is, and read again
    // otherwise, once the ids have said which one it is.
    let mut sides = Vec::with_capacity(3);
    let mut last_given = None;
    for (i, path) in paths.into_iter().enumerate() {
        let loaded = load(path)?;
        sides.push(LeakSide::of(&names[i], &loaded.snapshot));
        if i == 2 {
            last_given = Some(loaded);
        }
    }
    let order = leaks_order_of([
        &sides[0].identities,
        &sides[1].identities,
        &sides[2].identities,
    ]);
    if order[2] != 2 {
        last_given = None;
    }
    let last = match last_given {
        Some(loaded) => loaded,
        None => load(paths[order[2]])?,
    };
    let mut report = {
        let _spinner = Spinner::start("grouping the leaked objects".to_string());
        leaks_report_of(
            &sides[order[0]],
            &sides[order[1]],
            Named {
                name: &names[order[2]],
                snapshot: &last.snapshot,
                analysis: &last.analysis,
            },
            order,
            LeaksOptions {
                min_retained: args.min_retained,
                limit: args.limit,
            },
        )
    };
    // Placed by FINAL's scripts, as `heap class` places FINAL's objects.
    let notes = jsprof_document::heap_source_maps::map_objects(
        &mut report,
        &last.analysis.scripts,
        &args.source_maps.policy(),
    )?;
    report.warnings.extend(notes);
    output::emit(args.json, &report, |out| {
        output::warn("heap leaks", &report.warnings);
        columns(&report.groups)
            .left("Class", |g| truncate(&g.class, 40))
            .right("Count", |g| g.count.to_string())
            .right("Retained size", |g| fmt_bytes(g.retained_size as f64))
            .right("Sample", |g| fmt_id(g.sample_id))
            .left("Retained through", |g| {
                fmt_path(g.path.iter().map(|p| (shown_class(p), p.edge.as_str())))
            })
            .left_unless_empty("Original", |g| original(&g.original, 100))
            .write(out)
    })
}

/// A step's class as a path shows it: the map's original name when it has one (`LeakyCache`
/// for a minified `t`), else DevTools'.
fn shown_class(step: &jsprof_document::heap::LeakStepJson) -> &str {
    step.original.source_name.as_deref().unwrap_or(&step.class)
}

use super::original_text as original;

/// Modification time in seconds since the epoch, when the file has one.
fn mtime(path: &Path) -> Option<f64> {
    let m = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(m.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
}

/// Reads the series one snapshot at a time, in its order, into the verdicts.
pub(crate) fn series_report(
    files: &[PathBuf],
    options: LeakSeriesOptions,
    maps: &jsprof_document::source_maps::SourceMaps,
) -> Result<LeakSeriesReport> {
    let names: Vec<String> = files.iter().map(|p| input::display_name(p)).collect();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mtimes: Vec<Option<f64>> = files.iter().map(|p| mtime(p)).collect();
    let order = series_order(&name_refs, &mtimes);
    let mut series = LeakSeries::new();
    for (k, &i) in order.order.iter().enumerate() {
        let loaded = load(&files[i])?;
        let _spinner = Spinner::start(format!(
            "grouping {} ({} of {})",
            names[i],
            k + 1,
            files.len()
        ));
        let time = order.times.as_ref().map(|t| t[k]);
        series.add(&names[i], time, &loaded.snapshot, &loaded.analysis);
        // Dropped here: one graph at a time.
    }
    Ok(series.report(order.by, order.times_from, options, maps))
}

fn run_series(args: &LeaksArgs, files: &[PathBuf]) -> Result<ExitCode> {
    let report = series_report(
        files,
        LeakSeriesOptions {
            alpha: args.alpha,
            all: args.all,
            min_retained: args.min_retained,
            limit: args.limit,
        },
        &args.source_maps.policy(),
    )?;
    output::emit(args.json, &report, |out| write_series(&report, out))
}

/// A series' verdicts as text: how the snapshots were ordered and timed, then a row per group.
fn write_series(report: &LeakSeriesReport, out: &mut TextOut) -> std::io::Result<()> {
    output::warn("heap leaks", &report.warnings);
    let order = match report.order {
        "name_timestamp" => "by the time in their names",
        "name_number" => "by the number in their names",
        _ => "as given",
    };
    let times = match report.times_from {
        Some("name_timestamp") => ", times from their names",
        Some(_) => ", times from the files' modification times",
        None => ", times unknown (no per-hour rates)",
    };
    let v = &report.verdicts;
    writeln!(
        out,
        "{} snapshots, ordered {order}{times}; {} growing, {} bounded, {} one-off (Mann-Kendall, alpha {})",
        report.snapshots.len(),
        v.growing,
        v.bounded,
        v.one_off,
        report.alpha
    )?;
    let table = columns(&report.groups)
        .left("Verdict", |g| g.verdict.to_string())
        .left("Class", |g| truncate(&g.class, 40))
        .right("Count (first → last)", |g| {
            let first = g.count.iter().copied().find(|&c| c > 0).unwrap_or(0);
            format!("{first} → {}", g.count.last().copied().unwrap_or(0))
        })
        .right("Retained (last)", |g| {
            fmt_bytes(g.retained_size.last().copied().unwrap_or(0) as f64)
        })
        .right("Growth / snapshot", |g| {
            let per_snapshot = g.retained_trend.per_snapshot;
            let objects = g.count_trend.per_snapshot;
            format!("{} ({objects:+.1} obj)", signed_bytes(per_snapshot))
        });
    let table = match report.times_from {
        Some(_) => table.right("Growth / hour", |g| {
            g.retained_trend
                .per_hour
                .map_or(String::new(), signed_bytes)
        }),
        None => table,
    };
    table
        .right("p", |g| {
            p_text(g.retained_trend.p_value.min(g.count_trend.p_value))
        })
        .left("Retained through", |g| {
            fmt_path(g.path.iter().map(|p| (shown_class(p), p.edge.as_str())))
        })
        .left_unless_empty("Original", |g| original(&g.original, 100))
        .write(out)
}

fn signed_bytes(v: f64) -> String {
    if v < 0.0 {
        format!("-{}", fmt_bytes(-v))
    } else {
        format!("+{}", fmt_bytes(v))
    }
}
