//! `jsprof diff BEFORE AFTER`: what changed between two profiles, function by function.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use jsprof_analysis::{DiffKey, DiffOptions, DiffRow};
use jsprof_document::load::{CpuInput, ViewSpec, Weighted};
use jsprof_profile::WeightUnit;

use crate::load::load_cpu;
use crate::output::{self, Align, Table};
use crate::transform_args::{TransformArgs, ViewArgs};

#[derive(clap::Args)]
pub struct Args {
    /// The baseline: any sampled input (.cpuprofile, trace, JS Self-Profiling, .heapprofile).
    pub before: PathBuf,
    /// The profile to compare with it (may be another kind, e.g. a trace against a .cpuprofile).
    pub after: PathBuf,
    /// How functions are matched: by name and URL (line numbers move between builds) or by the
    /// whole function (name, URL, line, column).
    #[arg(long, value_enum, default_value_t = KeyArg::NameUrl)]
    pub key: KeyArg,
    /// Scale AFTER so that its total equals BEFORE's.
    #[arg(long)]
    pub normalize: bool,
    /// How many functions to list; 0 lists all above the noise floor.
    #[arg(long, default_value_t = 25)]
    pub limit: usize,
    #[command(flatten)]
    pub compare: CompareArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The window, thread and filters applied to both inputs of a comparison.
#[derive(clap::Args, Clone, Default)]
pub struct CompareArgs {
    /// The thread (inputs with one thread use it whatever `--thread` says), the range (ms from
    /// each input's start) and, for traces, entries or `--samples`.
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub transform: TransformArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyArg {
    /// (name, url)
    NameUrl,
    /// (name, url, line, column)
    Function,
}

impl KeyArg {
    pub fn key(self) -> DiffKey {
        match self {
            KeyArg::NameUrl => DiffKey::NameUrl,
            KeyArg::Function => DiffKey::Function,
        }
    }
}

/// One side of a comparison: read through the pipeline, with its view (thread, range) chosen.
pub struct Side {
    pub name: String,
    pub input: CpuInput,
    spec: ViewSpec,
}

impl CompareArgs {
    pub fn load(&self, path: &Path) -> Result<Side> {
        let input = load_cpu(path, &self.transform.pipeline())?;
        let mut spec = self.view.spec();
        let threads = if input.is_trace() && !spec.samples {
            input.timelines().len()
        } else {
            input.profile().threads.len()
        };
        // Inputs with one thread use it whatever `--thread` says.
        if threads <= 1 {
            spec.thread = None;
        }
        Ok(Side {
            name: input.name.clone(),
            input,
            spec,
        })
    }
}

impl Side {
    pub fn weighted(&self) -> Result<Weighted<'_>> {
        Ok(self.input.weighted(&self.spec)?)
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let before = args.compare.load(&args.before)?;
    let after = args.compare.load(&args.after)?;
    let options = DiffOptions {
        key: args.key.key(),
        normalize: args.normalize,
    };
    let (wb, wa) = (before.weighted()?, after.weighted()?);
    let compared = jsprof_document::diff::diff(
        &jsprof_document::diff::Side {
            name: &before.name,
            view: &wb,
        },
        &jsprof_document::diff::Side {
            name: &after.name,
            view: &wa,
        },
        options,
    )?;
    if args.json {
        output::print_json(&compared.report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let diff = compared.diff;
    let bytes = wb.thread().weight_unit() == WeightUnit::Bytes;
    let mut rows = diff.rows.clone();
    if args.limit > 0 {
        rows.truncate(args.limit);
    }
    for (name, side) in [(&before.name, &wb), (&after.name, &wa)] {
        output::warn(name, &side.profile.warnings);
    }
    let fmt = |w: f64| {
        if bytes {
            output::fmt_bytes(w)
        } else {
            output::fmt_ms(w / jsprof_profile::NS_PER_MS)
        }
    };
    let signed = |w: f64| {
        if w > 0.0 {
            format!("+{}", fmt(w))
        } else {
            fmt(w)
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    writeln!(
        out,
        "before {}  {}\nafter  {}  {}{}",
        before.name,
        fmt(diff.before_total),
        after.name,
        fmt(diff.after_total),
        if args.normalize {
            format!(" (scaled ×{:.4})", diff.scale)
        } else {
            String::new()
        }
    )?;
    let mut table = Table::new(&[
        ("Δ self", Align::Right),
        ("Δ total", Align::Right),
        ("Δ %", Align::Right),
        ("Self before", Align::Right),
        ("after", Align::Right),
        ("Total before", Align::Right),
        ("after", Align::Right),
        ("Function", Align::Left),
        ("Location", Align::Left),
    ]);
    for r in &rows {
        table.row(row_cells(r, &fmt, &signed));
    }
    if rows.is_empty() {
        writeln!(out, "no function changed by more than the noise floor")?;
    } else {
        table.write(&mut out)?;
    }
    if diff.rows.len() > rows.len() {
        writeln!(
            out,
            "… {} more above the noise floor (--limit 0 for all)",
            diff.rows.len() - rows.len()
        )?;
    }
    writeln!(
        out,
        "{} functions changed by less than the noise floor ({}): {} self in all",
        diff.hidden,
        fmt(diff.noise_floor),
        signed(diff.hidden_delta_self)
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn row_cells(
    r: &DiffRow,
    fmt: &dyn Fn(f64) -> String,
    signed: &dyn Fn(f64) -> String,
) -> Vec<String> {
    vec![
        signed(r.delta_self()),
        signed(r.delta_total()),
        r.delta_total_percent()
            .map_or("new".to_string(), |p| format!("{p:+.1} %")),
        fmt(r.before_self),
        fmt(r.after_self),
        fmt(r.before_total),
        fmt(r.after_total),
        output::display_function_name(&r.name).to_string(),
        output::fmt_location(&r.url, r.line, r.column),
    ]
}
