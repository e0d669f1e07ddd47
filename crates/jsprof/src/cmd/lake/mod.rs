//! `jsprof lake …`: the profile lake (Parquet files queried in-process with DataFusion; schema
//! and grammar in docs/lake.md). One module per group of subcommands; here the subcommands, the
//! selection every query takes and the one way a query opens the lake.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::lake_query::{LakeSelection, LakeUnit};
use jsprof_lake::{Lake, Selection};

/// Opens the lake for a selection (printing the skipped files' warnings) and runs `$body` with
/// the reader bound to `$r`; once more on a fresh listing when a file vanished under the query
/// (a compaction removed it after the listing).
macro_rules! with_reader {
    ($lake:expr, $sel:expr, |$r:ident| $body:expr) => {{
        let lake = ::jsprof_lake::Lake::open($lake)?;
        let sel: &::jsprof_lake::Selection = $sel;
        ::jsprof_lake::query::block_on(async {
            let mut retried = false;
            loop {
                let reader = match ::jsprof_lake::LakeReader::open(&lake, sel).await {
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

mod diff;
mod export;
mod ingest;
mod query;
mod trend;

pub use diff::lake_ab_test;
use diff::DiffArgs;
use export::{ExportArgs, FlamegraphArgs};
use ingest::{AddArgs, CompactArgs, InitArgs};
use query::{QueryArgs, SqlArgs, TopArgs, TreeArgs};
use trend::TrendArgs;

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

pub fn run(command: LakeCommand) -> Result<ExitCode> {
    match command {
        LakeCommand::Init(a) => {
            Lake::init(&a.lake, a.partition_label.as_deref())?;
            eprintln!("{}: a lake", a.lake.display());
            Ok(ExitCode::SUCCESS)
        }
        LakeCommand::Add(a) => ingest::run_add(a),
        LakeCommand::Ls(a) => query::run_ls(a),
        LakeCommand::Top(a) => query::run_top(a),
        LakeCommand::Tree(a) => query::run_tree(a),
        LakeCommand::Flamegraph(a) => export::run_flamegraph(a),
        LakeCommand::Trend(a) => trend::run_trend(a),
        LakeCommand::Diff(a) => diff::run_diff(a),
        LakeCommand::Sql(a) => query::run_sql(a),
        LakeCommand::Compact(a) => ingest::run_compact(a),
        LakeCommand::Export(a) => export::run_export(a),
    }
}

/// A lake's line or column (written from a `u32`).
fn to_u32(v: Option<i64>) -> Option<u32> {
    v.and_then(|v| u32::try_from(v).ok())
}

/// The selection's merged stacks as one weighted profile, and how many profiles it merges.
fn merged(
    lake: &Path,
    sel: &Selection,
    unit: Option<&str>,
) -> Result<(jsprof_profile::Profile, i64)> {
    let stacks = with_reader!(lake, sel, |r| jsprof_lake::query::merged_stacks(
        r, sel, unit
    ))?;
    if let Some(note) = &stacks.note {
        eprintln!("note: {note}");
    }
    Ok((jsprof_lake::query::merged_profile(&stacks), stacks.profiles))
}
