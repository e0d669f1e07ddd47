//! `jsprof top FILE`: the functions that take the most time (or allocate the most bytes).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{function_table, FunctionRow};
use jsprof_profile::{Profile, WeightUnit};
use serde::Serialize;

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

/// One function as `top` and `summary` print it.
#[derive(Serialize)]
pub struct FunctionJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    pub self_percent: f64,
    pub total_percent: f64,
}

#[derive(Serialize)]
struct TopJson {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_bytes: Option<i64>,
    warnings: Vec<JsonWarning>,
    functions: Vec<FunctionJson>,
}

pub const NS_PER_MS: f64 = 1e6;

/// Rows sorted for display: by the chosen weight, then the other, then name (deterministic).
pub fn sorted_rows(profile: &Profile, mut rows: Vec<FunctionRow>, by: By) -> Vec<FunctionRow> {
    rows.sort_by(|a, b| {
        let (ka, kb) = match by {
            By::Self_ => (
                (a.self_weight, a.total_weight),
                (b.self_weight, b.total_weight),
            ),
            By::Total => (
                (a.total_weight, a.self_weight),
                (b.total_weight, b.self_weight),
            ),
        };
        kb.cmp(&ka)
            .then_with(|| {
                profile
                    .strings
                    .get(a.key.name)
                    .cmp(profile.strings.get(b.key.name))
            })
            .then_with(|| {
                profile
                    .strings
                    .get(a.key.url)
                    .cmp(profile.strings.get(b.key.url))
            })
            .then_with(|| a.key.line.cmp(&b.key.line))
            .then_with(|| a.key.column.cmp(&b.key.column))
    });
    rows
}

/// The JSON form of a row; `total` is the weight percentages are taken of.
pub fn function_json(
    profile: &Profile,
    unit: WeightUnit,
    row: &FunctionRow,
    total: i64,
) -> FunctionJson {
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let bytes = unit == WeightUnit::Bytes;
    FunctionJson {
        name: profile.strings.get(row.key.name).to_string(),
        url: profile.strings.get(row.key.url).to_string(),
        line: row.key.line,
        column: row.key.column,
        self_ms: (!bytes).then(|| row.self_weight as f64 / NS_PER_MS),
        total_ms: (!bytes).then(|| row.total_weight as f64 / NS_PER_MS),
        self_bytes: bytes.then_some(row.self_weight),
        total_bytes: bytes.then_some(row.total_weight),
        self_percent: pct(row.self_weight),
        total_percent: pct(row.total_weight),
    }
}

pub fn warnings_json(profile: &Profile) -> Vec<JsonWarning> {
    profile
        .warnings
        .iter()
        .map(|w| JsonWarning {
            at: w.at.clone(),
            message: w.message.clone(),
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_profile(&args.file)?;
    let profile = crate::range_arg::apply(&loaded.name, loaded.profile, args.range)?;
    let profile = &args.transform.apply(&loaded.name, profile)?;
    let thread =
        &profile.threads[crate::range_arg::thread(&loaded.name, profile, args.thread.as_deref())?];
    let table = function_table(profile, thread);
    let unit = thread.weight_unit();
    // Time percentages refer to the span (gaps included); clipped or byte weights to their sum.
    let total = match unit {
        WeightUnit::Nanoseconds if thread.samples.weight.is_none() => {
            thread.end_time() - thread.start_time()
        }
        _ => table.total_weight,
    };
    let mut rows = sorted_rows(profile, table.rows, args.by);
    if args.limit > 0 {
        rows.truncate(args.limit);
    }
    if args.json {
        let json = TopJson {
            kind: profile.kind.as_str(),
            duration_ms: (unit != WeightUnit::Bytes).then(|| total as f64 / NS_PER_MS),
            total_bytes: (unit == WeightUnit::Bytes).then_some(total),
            warnings: warnings_json(profile),
            functions: rows
                .iter()
                .map(|r| function_json(profile, unit, r, total))
                .collect(),
        };
        output::print_json(&json)?;
        return Ok(ExitCode::SUCCESS);
    }
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
