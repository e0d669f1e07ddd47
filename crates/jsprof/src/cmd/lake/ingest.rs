//! `lake init`, `lake add` (inputs read and prepared on every core, written in batches) and
//! `lake compact`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use jsprof_document::lake as lake_doc;
use jsprof_document::source_maps::SourceMaps;
use jsprof_lake::{Lake, PrepareOptions, Prepared};

use crate::output;

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

#[derive(clap::Args)]
pub struct CompactArgs {
    pub lake: PathBuf,
    /// Print JSON instead of a sentence.
    #[arg(long)]
    pub json: bool,
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

pub(super) fn run_add(a: AddArgs) -> Result<ExitCode> {
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

pub(super) fn run_compact(a: CompactArgs) -> Result<ExitCode> {
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
