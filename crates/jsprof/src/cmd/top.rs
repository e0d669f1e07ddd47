//! `jsprof top FILE`: the functions that take the most time (or allocate the most bytes).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::FunctionRow;
use jsprof_profile::{Profile, WeightUnit};

use crate::load::load_cpu;
use crate::output::{self, JsonWarning};

#[derive(clap::Args)]
pub struct Args {
    /// A .cpuprofile, JS Self-Profiling trace or .heapprofile (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Order by self or total time.
    #[arg(long, value_enum, default_value_t = By::Self_)]
    pub by: By,
    /// How many functions to list; 0 lists all.
    #[arg(long, default_value_t = 25)]
    pub limit: usize,
    #[command(flatten)]
    pub view: crate::transform_args::ViewArgs,
    #[command(flatten)]
    pub transform: crate::transform_args::TransformArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
pub enum By {
    #[value(name = "self")]
    Self_,
    Total,
}

impl From<By> for jsprof_document::top::By {
    fn from(by: By) -> Self {
        match by {
            By::Self_ => jsprof_document::top::By::SelfWeight,
            By::Total => jsprof_document::top::By::Total,
        }
    }
}

pub use jsprof_profile::NS_PER_MS;

pub fn warnings_json(profile: &Profile) -> Vec<JsonWarning> {
    jsprof_document::warnings_json(&profile.warnings)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &args.transform.pipeline())?;
    let weighted = loaded.weighted(&args.view.spec())?;
    let profile = &*weighted.profile;
    let view = jsprof_document::top::view(&weighted, args.by.into(), args.limit);
    if args.json {
        output::print_json(&jsprof_document::top::report(&weighted, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (unit, total, rows) = (view.unit, view.total, view.rows);
    output::warn(&loaded.name, &profile.warnings);
    if rows.is_empty() {
        eprintln!("{}", empty_note(&loaded.name, &weighted, &args.transform));
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    write_table(&mut out, profile, unit, &rows, total)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Why a table is empty, for people (JSON says it with an empty list).
pub fn empty_note(
    name: &str,
    weighted: &jsprof_document::load::Weighted,
    transform: &crate::transform_args::TransformArgs,
) -> String {
    if let Some(filters) = transform.describe() {
        return format!("{name}: nothing is left after the filters ({filters})");
    }
    match weighted.source {
        jsprof_document::load::WeightSource::TraceEntries => format!(
            "{name}: this thread has no entries (JS calls or trace events) in the range; \
             `--samples` shows its CPU samples"
        ),
        jsprof_document::load::WeightSource::Samples => {
            format!("{name}: no samples in the range")
        }
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
