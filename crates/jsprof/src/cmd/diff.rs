//! `jsprof diff BEFORE AFTER`: what changed between two profiles, function by function.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use jsprof_analysis::{diff_profiles, DiffKey, DiffOptions, DiffRow, TimeRange};
use jsprof_profile::{Profile, WeightUnit};
use serde_json::{json, Map, Value};

use crate::load::load_profile;
use crate::output::{self, Align, Table};
use crate::range_arg;
use crate::transform_args::TransformArgs;

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
    /// Only START..END (ms from each profile's start; either side may be empty), clipped.
    #[arg(long, value_name = "START..END", value_parser = range_arg::parse, allow_hyphen_values = true)]
    pub range: Option<TimeRange>,
    /// For inputs with several threads: the thread (a timeline_id, a tid or a unique name).
    /// Inputs with one thread use it whatever this says.
    #[arg(long)]
    pub thread: Option<String>,
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

    fn as_str(self) -> &'static str {
        match self {
            KeyArg::NameUrl => "name-url",
            KeyArg::Function => "function",
        }
    }
}

/// One side of a comparison: loaded, clipped, filtered, with its thread chosen.
pub struct Side {
    pub name: String,
    pub profile: Profile,
    pub thread: usize,
}

impl CompareArgs {
    pub fn load(&self, path: &Path) -> Result<Side> {
        let loaded = load_profile(path)?;
        let profile = range_arg::apply(&loaded.name, loaded.profile, self.range)?;
        let profile = self.transform.apply(&loaded.name, profile)?;
        let spec = if profile.threads.len() > 1 {
            self.thread.as_deref()
        } else {
            None
        };
        let thread = range_arg::thread(&loaded.name, &profile, spec)?;
        Ok(Side {
            name: loaded.name,
            profile,
            thread,
        })
    }
}

impl Side {
    pub fn pair(&self) -> (&Profile, &jsprof_profile::Thread) {
        (&self.profile, &self.profile.threads[self.thread])
    }

    fn warnings(&self) -> impl Iterator<Item = Value> + '_ {
        self.profile
            .warnings
            .iter()
            .map(move |w| json!({"at": w.at, "message": format!("{}: {}", self.name, w.message)}))
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let before = args.compare.load(&args.before)?;
    let after = args.compare.load(&args.after)?;
    let options = DiffOptions {
        key: args.key.key(),
        normalize: args.normalize,
    };
    let diff = diff_profiles(before.pair(), after.pair(), options)
        .map_err(|e| anyhow!("{} and {}: {e}", before.name, after.name))?;
    let bytes = before.pair().1.weight_unit() == WeightUnit::Bytes;
    let unit = if bytes { "bytes" } else { "ms" };
    let val = |w: f64| -> Value {
        if bytes {
            json!(w.round() as i64)
        } else {
            json!(w / jsprof_profile::NS_PER_MS)
        }
    };
    let mut rows = diff.rows.clone();
    if args.limit > 0 && !args.json {
        rows.truncate(args.limit);
    }
    if args.json {
        let functions: Vec<Value> = diff
            .rows
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("name".into(), json!(r.name));
                m.insert("url".into(), json!(r.url));
                m.insert("line".into(), json!(r.line));
                m.insert("column".into(), json!(r.column));
                for (field, w) in [
                    ("before_self", r.before_self),
                    ("after_self", r.after_self),
                    ("delta_self", r.delta_self()),
                    ("before_total", r.before_total),
                    ("after_total", r.after_total),
                    ("delta_total", r.delta_total()),
                ] {
                    m.insert(format!("{field}_{unit}"), val(w));
                }
                m.insert("delta_total_percent".into(), json!(r.delta_total_percent()));
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("kind".into(), json!(before.profile.kind.as_str()));
        m.insert("after_kind".into(), json!(after.profile.kind.as_str()));
        m.insert(
            "warnings".into(),
            Value::Array(before.warnings().chain(after.warnings()).collect()),
        );
        m.insert("key".into(), json!(args.key.as_str()));
        m.insert("normalized".into(), json!(args.normalize));
        m.insert("scale".into(), json!(diff.scale));
        m.insert(format!("before_total_{unit}"), val(diff.before_total));
        m.insert(format!("after_total_{unit}"), val(diff.after_total));
        m.insert(format!("noise_floor_{unit}"), val(diff.noise_floor));
        m.insert(
            "below_noise_floor".into(),
            json!({"count": diff.hidden, format!("delta_self_{unit}"): val(diff.hidden_delta_self)}),
        );
        m.insert("functions".into(), Value::Array(functions));
        output::print_json(&Value::Object(m))?;
        return Ok(ExitCode::SUCCESS);
    }
    for side in [&before, &after] {
        output::print_warnings(
            &side.name,
            side.profile
                .warnings
                .iter()
                .map(|w| (w.at.as_str(), w.message.as_str())),
        );
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
