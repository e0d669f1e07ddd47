//! `jsprof top FILE`: the functions that take the most time (or allocate the most bytes).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::FunctionRow;
use jsprof_document::load::ViewSpec;
use jsprof_document::top::TopQuery;
use jsprof_profile::{Profile, WeightUnit};

use crate::load::load_cpu;
use crate::output::{self, JsonWarning};

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub query: TopQuery,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `--by`: one definition with the service's and MCP's `by`.
pub use jsprof_document::top::By;

pub use jsprof_profile::NS_PER_MS;

pub fn warnings_json(profile: &Profile) -> Vec<JsonWarning> {
    jsprof_document::warnings_json(&profile.warnings)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let weighted = loaded.weighted(&args.query.view)?;
    let profile = &*weighted.profile;
    let view = jsprof_document::top::view(&weighted, args.query.by, args.query.limit);
    if args.json {
        output::print_json(&jsprof_document::top::report(&weighted, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (unit, total, rows) = (view.unit, view.total, view.rows);
    output::warn(&loaded.name, &profile.warnings);
    if rows.is_empty() {
        eprintln!(
            "{}",
            empty_note(&loaded, &weighted, &args.query.view, &args.transform)
        );
    }
    let mut out = output::text_stdout();
    write_table(&mut out, profile, unit, &rows, total)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Why a table is empty, for people (JSON says it with an empty list): a range that misses the
/// profile, filters that leave nothing (a focus pattern no sampled function matches), or a thread
/// with no samples. The first that holds is named, with what to change.
pub fn empty_note(
    loaded: &jsprof_document::load::CpuInput,
    weighted: &jsprof_document::load::Weighted,
    spec: &ViewSpec,
    transform: &crate::transform_args::TransformArgs,
) -> String {
    let name = &loaded.name;
    if let Some(range) = spec.range {
        let whole = ViewSpec {
            range: None,
            ..spec.clone()
        };
        let has_weight = |w: &jsprof_document::load::Weighted| {
            !jsprof_document::top::view(w, By::SelfWeight, 1)
                .rows
                .is_empty()
        };
        if loaded.weighted(&whole).is_ok_and(|w| has_weight(&w)) {
            let ms = |ns: i64| ns as f64 / NS_PER_MS;
            let side = |v: Option<i64>| v.map_or(String::new(), |ns| format!("{}", ms(ns)));
            let asked = format!("{}..{}", side(range.start), side(range.end));
            // The thread's samples' span (what `summary` reports, without its other work).
            let span = loaded
                .weighted(&ViewSpec {
                    thread: spec.thread.clone(),
                    samples: true,
                    ..ViewSpec::default()
                })
                .map(|w| {
                    let (t, origin) = (w.thread(), loaded.origin());
                    format!(
                        "; the profile's samples run from {:.1} to {:.1} ms",
                        ms(t.start_time() - origin),
                        ms(t.end_time() - origin)
                    )
                })
                .unwrap_or_default();
            return format!(
                "{name}: nothing in --range {asked} (ms from the profile's start){span}"
            );
        }
    }
    if let Some(filters) = transform.describe() {
        let focus = &transform.filters.focus;
        if focus.is_empty() {
            return format!("{name}: nothing is left after the filters ({filters})");
        }
        return format!(
            "{name}: nothing is left after the filters ({filters}): no sampled stack passes \
             through a function whose name or URL matches --focus {}",
            focus
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        );
    }
    let thread = weighted.thread().name();
    let range = if spec.range.is_some() {
        " in the range"
    } else {
        ""
    };
    match weighted.source {
        jsprof_document::load::WeightSource::TraceEntries => format!(
            "{name}: thread `{thread}` has no entries (JS calls or trace events){range}; \
             `--samples` shows its CPU samples, `jsprof threads {name}` lists the others"
        ),
        jsprof_document::load::WeightSource::Samples => format!(
            "{name}: thread `{thread}` has no samples{range}; `jsprof threads {name}` lists the \
             threads"
        ),
    }
}

/// The human table of functions, shared with `summary`.
pub fn write_table(
    out: &mut impl Write,
    profile: &Profile,
    unit: WeightUnit,
    rows: &[FunctionRow],
    total: i64,
) -> io::Result<()> {
    let mut table = output::WeightTable::new(unit, total);
    for row in rows {
        table.row(
            row.self_weight,
            row.total_weight,
            output::display_function_name(profile.strings.get(row.key.name)).to_string(),
            output::fmt_location(
                profile.strings.get(row.key.url),
                row.key.line,
                row.key.column,
            ),
        );
    }
    table.write(out)
}
