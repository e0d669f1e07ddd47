//! `jsprof top FILE`: the functions that take the most time (or allocate the most bytes).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::FunctionRow;
use jsprof_profile::{Profile, WeightUnit};

use crate::load::load_profile;
use crate::output::{self, Align, JsonWarning, Table};

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
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// Only time within START..END (ms from the profile's start; either side may be empty),
    /// clipped as DevTools' range selection does.
    #[arg(long, value_name = "START..END", value_parser = crate::range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<jsprof_analysis::TimeRange>,
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

pub use jsprof_document::top::{function_json, FunctionJson};

impl From<By> for jsprof_document::top::By {
    fn from(by: By) -> Self {
        match by {
            By::Self_ => jsprof_document::top::By::SelfWeight,
            By::Total => jsprof_document::top::By::Total,
        }
    }
}

pub use jsprof_profile::NS_PER_MS;

/// Rows sorted for display: by the chosen weight, then the other, then name (deterministic).
pub fn sorted_rows(profile: &Profile, rows: Vec<FunctionRow>, by: By) -> Vec<FunctionRow> {
    jsprof_document::top::sorted_rows(profile, rows, by.into())
}

pub fn warnings_json(profile: &Profile) -> Vec<JsonWarning> {
    jsprof_document::warnings_json(&profile.warnings)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_profile(&args.file)?;
    let profile = crate::range_arg::apply(&loaded.name, loaded.profile, args.range)?;
    let profile = &args.transform.apply(&loaded.name, profile)?;
    let thread = crate::range_arg::thread(&loaded.name, profile, args.thread.as_deref())?;
    let view = jsprof_document::top::view(profile, thread, args.by.into(), args.limit);
    if args.json {
        output::print_json(&jsprof_document::top::report(profile, &view))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (unit, total, rows) = (view.unit, view.total, view.rows);
    output::print_warnings(
        &loaded.name,
        profile
            .warnings
            .iter()
            .map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    write_table(&mut out, profile, unit, &rows, total)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The human table of functions, shared with `summary`.
pub fn write_table(
    out: &mut impl Write,
    profile: &Profile,
    unit: WeightUnit,
    rows: &[FunctionRow],
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
    for row in rows {
        table.row(vec![
            fmt(row.self_weight),
            output::fmt_percent(pct(row.self_weight)),
            fmt(row.total_weight),
            output::fmt_percent(pct(row.total_weight)),
            output::display_function_name(profile.strings.get(row.key.name)).to_string(),
            output::fmt_location(
                profile.strings.get(row.key.url),
                row.key.line,
                row.key.column,
            ),
        ]);
    }
    table.write(out)
}
