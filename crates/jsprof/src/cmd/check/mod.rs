//! `jsprof check FILE --budget budget.toml`: performance budgets for CI. Exit 0 when every
//! budget holds, 1 with a report when one is exceeded, 2 when the file or the budget cannot be
//! read.
//!
//! ```toml
//! [[function]]              # CPU profiles and traces
//! name = "render"           # the function's name, exactly; `url` (a substring) narrows it
//! max_total_ms = 50         # and/or max_self_ms
//!
//! [gc]                      # CPU profiles and traces
//! max_share_percent = 10    # (garbage collector) self time over the profile's duration
//!
//! [page]                    # traces of a page load (worst navigation)
//! max_lcp_ms = 2500         # and/or max_inp_ms, max_cls, max_long_task_ms (total of tasks
//! max_cls = 0.1             # over 50 ms), max_requests, max_transfer_size ("2 MB")
//! lcp_p75_ms = 2500         # FILE a folder of runs: the p75 over them (and fcp_p75_ms,
//!                           # cls_p75, tbt_p75_ms, inp_p75_ms)
//! max_lcp_shift_ms = 50     # --base A/ --target B/ folders of runs: a significant growth
//!                           # beyond this fails (and max_fcp_shift_ms; alpha = 0.05)
//!
//! [[class]]                 # heap snapshots
//! name = "Cache"            # the Summary's class (constructor) name
//! max_retained_size = "20 MB"   # bytes, or a string in B/KB/MB/GB (1 KB = 1024 B); and/or max_count
//!
//! [detached_dom]            # heap snapshots
//! max_nodes = 0             # detached DOM nodes (in all detached trees); 0 = none at all
//!
//! [leaks]                   # a series of heap snapshots: SNAP1 SNAP2 … or a directory
//! max_growing_groups = 0    # leak groups `heap leaks` calls growing; and/or
//! max_growth_per_snapshot = "1 MB"  # each growing group's retained growth (Sen's slope)
//! alpha = 0.05              # optional: the trend test's significance level
//!
//! [abtest]                  # `--base A… --target B…`: two groups of profiles
//! max_share_growth_points = 2   # no function's share grew significantly by more
//! alpha = 0.05              # optional: the q-value that is significant (default 0.05)
//! noise_floor_points = 0.5  # optional: smaller shifts are noise (default 0.5)
//! ```
//!
//! FILE may be a folder of runs of a page load (`record --url URL --runs N`): then `[page]`'s
//! p75 budgets apply, to the 75th percentiles `insights DIR` reports. With `--base A/ --target
//! B/` folders of page-load runs and `[page]`'s shift budgets, the folders are compared as
//! `diff --base A/ --target B/` compares them, and a metric fails only when its growth is
//! significant (q < alpha) and its Hodges-Lehmann shift exceeds the budget.
//!
//! With `--base` and `--target` instead of FILE, the groups are compared as `jsprof diff --base
//! … --target …` does (Mann-Whitney per function, Benjamini-Hochberg) and only `[abtest]`
//! applies: each function whose self or total share grew significantly (q < alpha and shift ≥
//! the noise floor) is a check of its Hodges-Lehmann shift against the limit.
//!
//! Detached trees are DevTools' (native objects named `Detached …`), less Node.js's own
//! `Detached Node / …` embedder objects, which every Node snapshot has and which are not DOM.
//!
//! Budgets that do not apply to FILE's kind are listed as skipped; a budget file none of whose
//! budgets applies is an error (exit 2), so a CI job cannot pass by checking nothing. A budget
//! for a function the profile does not contain fails ("not in the profile"): it would guard
//! nothing. On a trace, a function's numbers are `jsprof top`'s (the Performance panel's
//! entries).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use jsprof_analysis::{function_table, summarize, weight_where};
use jsprof_heap::{detached_trees, summary, DominatorTree, SortBy};
use jsprof_profile::{Format, WeightUnit};
use serde::Deserialize;

use crate::cmd::diff::{compare_groups, CompareArgs, GroupArgs};
use crate::cmd::top::warnings_json;
use crate::load::{detect_format, load_cpu};
use crate::output::{self, Align, JsonWarning, Table};
use jsprof_analysis::abtest::AbOptions;
use jsprof_analysis::DiffKey;
use jsprof_document::check::{CheckJson, CheckReport, Measure, Status};
use jsprof_document::load::{Pipeline, ViewSpec};

/// The budget file's format, shown by `jsprof check --help` (the example is a file that parses).
pub const BUDGET_HELP: &str = "\
The budget file (TOML); every section is optional, and any may repeat where marked [[…]]:

  [[function]]                # CPU profiles and traces
  name = \"render\"             # the function's name, exactly
  url = \"app.js\"              # optional: a substring of its URL, to tell same-named ones apart
  max_total_ms = 50           # and/or max_self_ms = 20

  [gc]                        # CPU profiles and traces
  max_share_percent = 10      # (garbage collector) self time over the profile's duration

  [page]                      # page-load traces (the worst navigation)
  max_lcp_ms = 2500           # and/or max_inp_ms, max_cls, max_long_task_ms, max_requests,
  max_cls = 0.1               # max_transfer_size (\"2 MB\")
  lcp_p75_ms = 2500           # FILE a folder of runs (record --url URL --runs N): the 75th
  fcp_p75_ms = 1800           # percentile over them (and cls_p75, tbt_p75_ms, inp_p75_ms)
  max_lcp_shift_ms = 50       # --base A/ --target B/, folders of runs: fails only on a growth
  max_fcp_shift_ms = 50       # that is significant (q < alpha) and larger (Hodges-Lehmann)
  alpha = 0.05                # optional, for the shifts (default 0.05)

  [[class]]                   # heap snapshots
  name = \"Cache\"              # the Summary's class (constructor) name
  max_retained_size = \"20 MB\" # bytes, or B/KB/MB/GB (1 KB = 1024 B); and/or max_count = 1000

  [detached_dom]              # heap snapshots
  max_nodes = 0               # detached DOM nodes in all detached trees; 0 = none at all

  [leaks]                     # a series of 3 to 50 heap snapshots: SNAP1 SNAP2 … or a directory
  max_growing_groups = 0      # groups `jsprof heap leaks` calls growing; and/or
  max_growth_per_snapshot = \"1 MB\" # each growing group's retained growth per snapshot
  alpha = 0.05                # optional: the trend test's significance level (default 0.05)

  [abtest]                    # two groups: --base A… --target B… instead of FILE
  max_share_growth_points = 2 # no function's share grew significantly by more than 2 points
  alpha = 0.05                # optional: significance of the Benjamini-Hochberg q-value
  noise_floor_points = 0.5    # optional: shifts smaller than this are noise

Budgets that do not apply to FILE's kind are skipped; a file none of whose budgets applies is an
error. A function the profile does not contain fails (\"not in the profile\").
Exit status: 0 every budget holds, 1 one is exceeded, 2 FILE or the budget file cannot be read.
Example: jsprof check app.cpuprofile --budget budget.toml";

#[derive(clap::Args)]
pub struct Args {
    /// A CPU profile, trace or heap snapshot (gzip too); `-` for stdin.
    #[arg(required_unless_present = "base", conflicts_with = "base")]
    pub file: Option<PathBuf>,
    /// For `[leaks]`: more heap snapshots after FILE, a series (FILE may be a directory of them).
    #[arg(value_name = "SNAPSHOT", conflicts_with = "base")]
    pub more: Vec<PathBuf>,
    /// Instead of FILE, a group comparison for `[abtest]`: the base group's files or directories.
    #[arg(long, num_args = 1.., value_name = "FILE|DIR", requires = "target")]
    pub base: Vec<PathBuf>,
    /// The target group's files or directories.
    #[arg(long, num_args = 1.., value_name = "FILE|DIR", requires = "base")]
    pub target: Vec<PathBuf>,
    /// With --base/--target: the groups are `--where` selections of this profile lake
    /// (`--base version=1.1 --target version=1.2`), compared as `jsprof lake diff` does.
    #[arg(long, value_name = "LAKE", requires = "base")]
    pub lake: Option<PathBuf>,
    /// The budgets, a TOML file (its format is below).
    #[arg(long, value_name = "budget.toml")]
    pub budget: PathBuf,
    /// For a trace: the thread (a timeline_id from `jsprof threads`, a tid or a unique name).
    #[arg(long)]
    pub thread: Option<String>,
    /// Print JSON instead of a report.
    #[arg(long)]
    pub json: bool,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct Budgets {
    #[serde(default)]
    function: Vec<FunctionBudget>,
    gc: Option<GcBudget>,
    #[serde(default)]
    class: Vec<ClassBudget>,
    detached_dom: Option<DetachedBudget>,
    page: Option<PageBudget>,
    abtest: Option<AbTestBudget>,
    leaks: Option<LeaksBudget>,
}

/// `[leaks]`: over a series of snapshots, the groups `heap leaks` calls growing.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct LeaksBudget {
    max_growing_groups: Option<u64>,
    max_growth_per_snapshot: Option<Size>,
    alpha: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AbTestBudget {
    max_share_growth_points: f64,
    alpha: Option<f64>,
    noise_floor_points: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct PageBudget {
    max_lcp_ms: Option<f64>,
    max_inp_ms: Option<f64>,
    max_cls: Option<f64>,
    max_long_task_ms: Option<f64>,
    max_requests: Option<u64>,
    max_transfer_size: Option<Size>,
    /// Over a folder of runs (FILE a directory of page-load traces): the metric's 75th
    /// percentile, as `insights DIR` computes it.
    fcp_p75_ms: Option<f64>,
    lcp_p75_ms: Option<f64>,
    cls_p75: Option<f64>,
    tbt_p75_ms: Option<f64>,
    inp_p75_ms: Option<f64>,
    /// With --base A/ --target B/ (folders of runs): the largest significant growth allowed
    /// (the Hodges-Lehmann shift of `diff --base --target`, failing only when its q-value is
    /// below `alpha`).
    max_fcp_shift_ms: Option<f64>,
    max_lcp_shift_ms: Option<f64>,
    /// The shifts' significance (default 0.05).
    alpha: Option<f64>,
}

impl PageBudget {
    /// The p75 budgets over runs: (metric of `insights DIR`, subject, measure, limit).
    fn p75(&self) -> Vec<(&'static str, &'static str, Measure, f64)> {
        [
            ("fcp_ms", "FCP p75", Measure::Ms, self.fcp_p75_ms),
            ("lcp_ms", "LCP p75", Measure::Ms, self.lcp_p75_ms),
            ("cls", "CLS p75", Measure::Score, self.cls_p75),
            ("tbt_ms", "TBT p75", Measure::Ms, self.tbt_p75_ms),
            ("inp_ms", "INP p75", Measure::Ms, self.inp_p75_ms),
        ]
        .into_iter()
        .filter_map(|(m, s, u, l)| Some((m, s, u, l?)))
        .collect()
    }

    /// The shift budgets between two folders of runs: (metric, subject, limit).
    fn shifts(&self) -> Vec<(&'static str, &'static str, f64)> {
        [
            ("fcp_ms", "FCP shift", self.max_fcp_shift_ms),
            ("lcp_ms", "LCP shift", self.max_lcp_shift_ms),
        ]
        .into_iter()
        .filter_map(|(m, s, l)| Some((m, s, l?)))
        .collect()
    }

    /// Whether it has a budget for one trace.
    fn single(&self) -> bool {
        self.max_lcp_ms.is_some()
            || self.max_inp_ms.is_some()
            || self.max_cls.is_some()
            || self.max_long_task_ms.is_some()
            || self.max_requests.is_some()
            || self.max_transfer_size.is_some()
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FunctionBudget {
    name: String,
    url: Option<String>,
    max_total_ms: Option<f64>,
    max_self_ms: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct GcBudget {
    max_share_percent: f64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ClassBudget {
    name: String,
    max_retained_size: Option<Size>,
    max_count: Option<u64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct DetachedBudget {
    #[serde(default)]
    max_nodes: u64,
}

/// Bytes: an integer, or a string with a unit (`"20 MB"`).
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(try_from = "SizeText")]
struct Size(u64);

#[derive(Deserialize)]
#[serde(untagged)]
enum SizeText {
    Bytes(u64),
    Text(String),
}

impl TryFrom<SizeText> for Size {
    type Error = String;
    fn try_from(v: SizeText) -> Result<Size, String> {
        match v {
            SizeText::Bytes(b) => Ok(Size(b)),
            SizeText::Text(t) => parse_size(&t).map(Size),
        }
    }
}

fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("bad size `{text}`: expected e.g. 20 MB, 512 KB or 1048576"))?;
    let scale = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1.0,
        "KB" | "K" | "KIB" => 1024.0,
        "MB" | "M" | "MIB" => 1024.0 * 1024.0,
        "GB" | "G" | "GIB" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "bad size `{text}`: the unit must be B, KB, MB or GB"
            ))
        }
    };
    Ok((value * scale).round() as u64)
}

/// A value of a measure for the text report, with its unit.
fn format(measure: Measure, v: f64) -> String {
    match measure {
        Measure::TotalMs | Measure::SelfMs => output::fmt_ms(v),
        Measure::SharePercent => output::fmt_percent(v),
        Measure::RetainedSize => output::fmt_bytes(v),
        Measure::Count | Measure::Nodes => format!("{v:.0}"),
        Measure::Ms => output::fmt_ms(v),
        Measure::Score => format!("{v:.3}"),
        Measure::Bytes => output::fmt_bytes(v),
    }
}

fn read_budgets(path: &Path) -> Result<Budgets> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the budget file {}", path.display()))?;
    let budgets: Budgets = toml::from_str(&text)
        .map_err(|e| anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
    for f in &budgets.function {
        if f.max_total_ms.is_none() && f.max_self_ms.is_none() {
            bail!(
                "{}: the budget of function `{}` sets neither max_total_ms nor max_self_ms",
                path.display(),
                f.name
            );
        }
    }
    for c in &budgets.class {
        if c.max_retained_size.is_none() && c.max_count.is_none() {
            bail!(
                "{}: the budget of class `{}` sets neither max_retained_size nor max_count",
                path.display(),
                c.name
            );
        }
    }
    if let Some(p) = &budgets.page {
        if !p.single() && p.p75().is_empty() && p.shifts().is_empty() {
            bail!(
                "{}: [page] sets no budget (max_lcp_ms, max_inp_ms, max_cls, max_long_task_ms, \
                 max_requests, max_transfer_size; over runs lcp_p75_ms, fcp_p75_ms, cls_p75, \
                 tbt_p75_ms, inp_p75_ms; between runs max_lcp_shift_ms, max_fcp_shift_ms)",
                path.display()
            );
        }
        if let Some(a) = p.alpha {
            if !(a > 0.0 && a < 1.0) {
                bail!(
                    "{}: [page] alpha must be between 0 and 1, not {a}",
                    path.display()
                );
            }
        }
    }
    if let Some(l) = &budgets.leaks {
        if l.max_growing_groups.is_none() && l.max_growth_per_snapshot.is_none() {
            bail!(
                "{}: [leaks] sets no budget (max_growing_groups, max_growth_per_snapshot)",
                path.display()
            );
        }
        if l.alpha.is_some_and(|a| !(a > 0.0 && a < 1.0)) {
            bail!(
                "{}: [leaks] alpha must be between 0 and 1 (e.g. 0.05)",
                path.display()
            );
        }
    }
    Ok(budgets)
}

fn check(
    budget: &'static str,
    subject: &str,
    measure: Measure,
    value: f64,
    limit: f64,
    note: Option<String>,
) -> CheckJson {
    CheckJson {
        budget,
        subject: subject.to_string(),
        measure,
        value: (value, measure),
        limit: (limit, measure),
        status: if value <= limit {
            Status::Pass
        } else {
            Status::Fail
        },
        note,
    }
}

fn skipped(budget: &'static str, subject: &str, measure: Measure, why: &str) -> CheckJson {
    CheckJson {
        budget,
        subject: subject.to_string(),
        measure,
        value: (0.0, measure),
        limit: (0.0, measure),
        status: Status::Skipped,
        note: Some(why.to_string()),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let budgets = read_budgets(&args.budget)?;
    let (kind, warnings, checks, name) = match &args.file {
        Some(file) if !args.more.is_empty() || holds_snapshots(file)? => {
            let (kind, warnings, checks) = check_leaks(&args, file, &budgets)?;
            (kind, warnings, checks, crate::input::display_name(file))
        }
        Some(dir) if dir.is_dir() => {
            let (kind, warnings, checks) = check_runs(dir, &budgets)?;
            (kind, warnings, checks, crate::input::display_name(dir))
        }
        Some(file) => {
            let heap = detect_format(file)? == Some(Format::HeapSnapshot);
            let (kind, warnings, mut checks) = if heap {
                check_heap(file, &budgets)?
            } else {
                check_cpu(&args, file, &budgets)?
            };
            skip_abtest(&budgets, &mut checks);
            if !checks.iter().any(|c| c.status != Status::Skipped) {
                bail!(
                    "{}: no budget in it applies to a {kind} ({})",
                    args.budget.display(),
                    if heap {
                        "heap snapshots take [[class]] and [detached_dom], a series of them [leaks]"
                    } else {
                        "CPU profiles take [[function]] and [gc], page-load traces [page]"
                    }
                );
            }
            (kind, warnings, checks, crate::input::display_name(file))
        }
        None => {
            let (kind, warnings, checks) = check_groups(&args, &budgets)?;
            (kind, warnings, checks, "the groups".to_string())
        }
    };
    let passed = checks.iter().all(|c| c.status != Status::Fail);
    let code = if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.json {
        output::print_json(&CheckReport {
            kind,
            warnings,
            passed,
            checks,
        })?;
        return Ok(code);
    }
    output::print_warnings(
        &name,
        warnings.iter().map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let mut out = output::text_stdout();
    writeln!(out, "{name} against {}", args.budget.display())?;
    let mut table = Table::new(&[
        ("", Align::Left),
        ("Budget", Align::Left),
        ("Value", Align::Right),
        ("", Align::Left),
        ("Limit", Align::Right),
        ("", Align::Left),
    ]);
    for c in &checks {
        let what = match (c.budget, c.measure) {
            ("function", m) => format!(
                "{} of {}",
                if m == Measure::TotalMs {
                    "total"
                } else {
                    "self"
                },
                output::display_function_name(&c.subject)
            ),
            ("gc", _) => "GC share".to_string(),
            ("page", _) => c.subject.clone(),
            ("abtest", _) if c.subject.is_empty() => "share growth".to_string(),
            ("abtest", _) => format!(
                "share growth of {}",
                output::display_function_name(&c.subject)
            ),
            ("class", Measure::RetainedSize) => format!("retained size of {}", c.subject),
            ("class", _) => format!("instances of {}", c.subject),
            ("leaks", Measure::Count) => "growing leak groups".to_string(),
            ("leaks", _) => format!("growth per snapshot of {}", c.subject),
            _ => "detached DOM nodes".to_string(),
        };
        let fmt = |v: f64| format(c.measure, v);
        let (mark, value, rel, limit) = match c.status {
            Status::Pass => ("ok", fmt(c.value.0), "≤", fmt(c.limit.0)),
            // A function the profile lacks fails with its note, not with a comparison.
            Status::Fail if c.value.0 <= c.limit.0 => ("FAIL", String::new(), "", String::new()),
            Status::Fail => ("FAIL", fmt(c.value.0), ">", fmt(c.limit.0)),
            Status::Skipped => ("skip", String::new(), "", String::new()),
        };
        table.row(vec![
            mark.to_string(),
            what,
            value,
            rel.to_string(),
            limit,
            c.note.clone().unwrap_or_default(),
        ]);
    }
    table.write(&mut out)?;
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let counted = checks
        .iter()
        .filter(|c| c.status != Status::Skipped)
        .count();
    if failed > 0 {
        writeln!(out, "{failed} of {counted} budgets exceeded")?;
    } else {
        writeln!(out, "all {counted} budgets hold")?;
    }
    out.flush()?;
    Ok(code)
}

type Outcome = (&'static str, Vec<JsonWarning>, Vec<CheckJson>);

/// `[abtest]` over `--base` / `--target`: one check per function whose share grew
/// significantly (its Hodges-Lehmann shift against the limit), or one passing check when none
/// did. Every other budget needs one file and is skipped.
fn check_groups(args: &Args, budgets: &Budgets) -> Result<Outcome> {
    if args.lake.is_none()
        && budgets
            .page
            .as_ref()
            .is_some_and(|p| !p.shifts().is_empty())
    {
        if let Some(outcome) = check_page_groups(args, budgets)? {
            return Ok(outcome);
        }
    }
    let Some(b) = &budgets.abtest else {
        bail!(
            "{}: --base and --target take an [abtest] budget, and the file has none",
            args.budget.display()
        );
    };
    let groups = GroupArgs {
        base: args.base.clone(),
        target: args.target.clone(),
        stats: crate::cmd::diff::StatsArgs {
            alpha: b.alpha.unwrap_or(0.05),
            noise_floor: b.noise_floor_points.unwrap_or(0.5),
            ..Default::default()
        },
        ..GroupArgs::default()
    };
    let options = groups
        .options()
        .map_err(|e| anyhow!("{}: [abtest]: {e}", args.budget.display()))?;
    let options = AbOptions {
        min_profiles: 3,
        ..options
    };
    let (test, warnings) = match &args.lake {
        Some(lake) => (
            lake_groups(lake, &args.base, &args.target, options)?,
            Vec::new(),
        ),
        None => {
            let (base, target) = groups.files()?;
            let compare = CompareArgs::default();
            let g = compare_groups(&compare, DiffKey::NameUrl, &base, &target, options, false)?;
            (g.test, g.warnings)
        }
    };
    let mut checks = Vec::new();
    let limit = b.max_share_growth_points;
    for f in test.reported() {
        // The larger significant growth of the two shares.
        let grew = [&f.self_share, &f.total_share]
            .iter()
            .filter(|s| s.reported && s.shift.estimate > 0.0)
            .map(|s| s.shift.estimate * 100.0)
            .fold(f64::NAN, f64::max);
        if grew.is_nan() {
            continue;
        }
        let note = (!f.name.1.is_empty()).then(|| f.name.1.clone());
        checks.push(check(
            "abtest",
            &f.name.0,
            Measure::SharePercent,
            grew,
            limit,
            note,
        ));
    }
    if checks.is_empty() {
        checks.push(check(
            "abtest",
            "",
            Measure::SharePercent,
            0.0,
            limit,
            Some("no function's share grew significantly".to_string()),
        ));
    }
    for (present, name) in [
        (!budgets.function.is_empty(), "function"),
        (budgets.gc.is_some(), "gc"),
        (!budgets.class.is_empty(), "class"),
        (budgets.detached_dom.is_some(), "detached_dom"),
        (budgets.page.is_some(), "page"),
    ] {
        if present {
            checks.push(skipped(
                name,
                "",
                Measure::Count,
                "needs one FILE, not groups",
            ));
        }
    }
    Ok(("groups", warnings, checks))
}

fn check_cpu(args: &Args, file: &Path, budgets: &Budgets) -> Result<Outcome> {
    let loaded = load_cpu(file, &Pipeline::default())?;
    // The functions' numbers are `jsprof top`'s: a trace thread's entries, as DevTools shows them.
    let weighted = loaded.weighted(&ViewSpec {
        thread: args.thread.clone(),
        ..ViewSpec::default()
    })?;
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    if thread.weight_unit() == WeightUnit::Bytes {
        bail!(
            "{}: a heap profile weighs bytes; budgets take CPU profiles, traces and heap snapshots",
            loaded.name
        );
    }
    let mut checks = Vec::new();
    for f in &budgets.function {
        let (self_w, total_w) = weight_where(profile, thread, |frame| {
            profile.strings.get(frame.name) == f.name
                && f.url
                    .as_deref()
                    .is_none_or(|u| profile.strings.get(frame.url).contains(u))
        });
        let note = (total_w == 0).then(|| "not in the profile".to_string());
        if let Some(limit) = f.max_total_ms {
            checks.push(check(
                "function",
                &f.name,
                Measure::TotalMs,
                jsprof_profile::ns_to_ms(total_w),
                limit,
                note.clone(),
            ));
        }
        if let Some(limit) = f.max_self_ms {
            checks.push(check(
                "function",
                &f.name,
                Measure::SelfMs,
                jsprof_profile::ns_to_ms(self_w),
                limit,
                note.clone(),
            ));
        }
        // A budget for a function the profile does not have guards nothing (a renamed function,
        // a typo): it fails, so CI says so instead of passing silently.
        if note.is_some() {
            for c in checks.iter_mut().filter(|c| c.subject == f.name) {
                c.status = Status::Fail;
            }
        }
    }
    if let Some(gc) = &budgets.gc {
        let table = function_table(profile, thread);
        let s = summarize(profile, thread, &table);
        let span = s.end - s.start;
        let share = if span > 0 {
            s.meta.gc as f64 * 100.0 / span as f64
        } else {
            0.0
        };
        checks.push(check(
            "gc",
            "",
            Measure::SharePercent,
            share,
            gc.max_share_percent,
            Some(format!(
                "{} of GC",
                output::fmt_ms(jsprof_profile::ns_to_ms(s.meta.gc))
            )),
        ));
    }
    if let Some(page) = &budgets.page {
        check_page(&loaded, page, &mut checks)?;
    }
    for c in &budgets.class {
        checks.push(skipped(
            "class",
            &c.name,
            Measure::RetainedSize,
            "heap snapshots only",
        ));
    }
    if budgets.detached_dom.is_some() {
        checks.push(skipped(
            "detached_dom",
            "",
            Measure::Nodes,
            "heap snapshots only",
        ));
    }
    Ok((profile.kind.as_str(), warnings_json(profile), checks))
}

/// `[leaks]` over a series of snapshots (FILE and the rest, or a directory): one check of the
/// number of growing groups, and one per growing group of its retained growth per snapshot (or
/// one passing check when none grows). Every other budget needs one file and is skipped.
fn check_leaks(args: &Args, file: &Path, budgets: &Budgets) -> Result<Outcome> {
    let Some(b) = &budgets.leaks else {
        bail!(
            "{}: a series of heap snapshots takes a [leaks] budget, and the file has none",
            args.budget.display()
        );
    };
    let mut given = vec![file.to_path_buf()];
    given.extend(args.more.iter().cloned());
    let (files, _) = super::heap::leaks::series_files(&given)?;
    if files.len() < jsprof_document::leak_series::MIN_SNAPSHOTS {
        bail!(
            "[leaks] takes a series of {} to {} heap snapshots; {} given",
            jsprof_document::leak_series::MIN_SNAPSHOTS,
            jsprof_document::leak_series::MAX_SNAPSHOTS,
            files.len()
        );
    }
    let report = super::heap::leaks::series_report(
        &files,
        jsprof_document::leak_series::LeakSeriesOptions {
            alpha: b.alpha.unwrap_or(0.05),
            ..Default::default()
        },
    )?;
    let mut checks = Vec::new();
    let growing = &report.groups;
    let name = |g: &jsprof_document::leak_series::LeakSeriesGroupJson| {
        if g.path.is_empty() {
            g.class.clone()
        } else {
            let path = jsprof_document::leak_series::path_text(&g.path);
            format!("{} via {path}", g.class)
        }
    };
    if let Some(limit) = b.max_growing_groups {
        let note = (!growing.is_empty()).then(|| {
            let names: Vec<String> = growing.iter().take(3).map(|g| g.class.clone()).collect();
            format!(
                "{}{}",
                names.join(", "),
                if growing.len() > 3 { ", …" } else { "" }
            )
        });
        checks.push(check(
            "leaks",
            "",
            Measure::Count,
            growing.len() as f64,
            limit as f64,
            note,
        ));
    }
    if let Some(limit) = b.max_growth_per_snapshot {
        if growing.is_empty() {
            checks.push(check(
                "leaks",
                "any group",
                Measure::RetainedSize,
                0.0,
                limit.0 as f64,
                Some("no growing group".to_string()),
            ));
        }
        for g in growing {
            let rate = g.retained_trend.per_snapshot.max(0.0).round();
            checks.push(check(
                "leaks",
                &name(g),
                Measure::RetainedSize,
                rate,
                limit.0 as f64,
                Some(format!(
                    "p = {}, {} objects in the last snapshot",
                    jsprof_document::leak_series::p_text(
                        g.retained_trend.p_value.min(g.count_trend.p_value)
                    ),
                    g.count.last().copied().unwrap_or(0)
                )),
            ));
        }
    }
    let one_file = "one file only, not a series";
    for f in &budgets.function {
        checks.push(skipped("function", &f.name, Measure::TotalMs, one_file));
    }
    if budgets.gc.is_some() {
        checks.push(skipped("gc", "", Measure::SharePercent, one_file));
    }
    if budgets.page.is_some() {
        checks.push(skipped("page", "", Measure::Ms, one_file));
    }
    for c in &budgets.class {
        checks.push(skipped("class", &c.name, Measure::RetainedSize, one_file));
    }
    if budgets.detached_dom.is_some() {
        checks.push(skipped("detached_dom", "", Measure::Nodes, one_file));
    }
    skip_abtest(budgets, &mut checks);
    Ok(("heapsnapshot", report.warnings, checks))
}

/// `[abtest]` given one file or a series: it compares two groups.
fn abtest_skipped() -> CheckJson {
    skipped(
        "abtest",
        "",
        Measure::SharePercent,
        "compares two groups: --base and --target",
    )
}

fn check_heap(path: &Path, budgets: &Budgets) -> Result<Outcome> {
    let loaded = super::heap::load(path)?;
    let (snapshot, analysis) = (&loaded.snapshot, &loaded.analysis);
    let mut checks = Vec::new();
    if budgets.leaks.is_some() {
        checks.push(skipped(
            "leaks",
            "",
            Measure::Count,
            "a series of snapshots only (SNAP1 SNAP2 … or a directory)",
        ));
    }
    for f in &budgets.function {
        checks.push(skipped(
            "function",
            &f.name,
            Measure::TotalMs,
            "CPU profiles only",
        ));
    }
    if budgets.gc.is_some() {
        checks.push(skipped(
            "gc",
            "",
            Measure::SharePercent,
            "CPU profiles only",
        ));
    }
    if budgets.page.is_some() {
        checks.push(skipped("page", "", Measure::Ms, "page-load traces only"));
    }
    if !budgets.class.is_empty() {
        let rows = summary(snapshot, analysis, SortBy::Retained);
        for c in &budgets.class {
            let matching: Vec<_> = rows.iter().filter(|r| r.name == c.name).collect();
            let note = match matching.len() {
                0 => Some("no such class in the snapshot".to_string()),
                1 => None,
                n => Some(format!("{n} classes of this name, summed")),
            };
            if let Some(limit) = c.max_retained_size {
                let retained: u64 = matching.iter().map(|r| r.retained_size).sum();
                checks.push(check(
                    "class",
                    &c.name,
                    Measure::RetainedSize,
                    retained as f64,
                    limit.0 as f64,
                    note.clone(),
                ));
            }
            if let Some(limit) = c.max_count {
                let count: u64 = matching.iter().map(|r| r.count).sum();
                checks.push(check(
                    "class",
                    &c.name,
                    Measure::Count,
                    count as f64,
                    limit as f64,
                    note.clone(),
                ));
            }
        }
    }
    if let Some(d) = &budgets.detached_dom {
        let trees: Vec<_> =
            detached_trees(snapshot, analysis, &DominatorTree::new(snapshot, analysis))
                .into_iter()
                .filter(|t| {
                    !jsprof_heap::display_name(snapshot, t.root).starts_with("Detached Node / ")
                })
                .collect();
        let nodes: u64 = trees.iter().map(|t| t.node_count).sum();
        let note = trees.first().map(|t| {
            format!(
                "{} trees; largest: {} ({} nodes, {})",
                trees.len(),
                jsprof_heap::display_name(snapshot, t.root),
                t.node_count,
                output::fmt_bytes(t.retained_size as f64)
            )
        });
        checks.push(check(
            "detached_dom",
            "",
            Measure::Nodes,
            nodes as f64,
            d.max_nodes as f64,
            note,
        ));
    }
    let warnings = snapshot
        .warnings
        .iter()
        .map(|w| JsonWarning {
            at: w.at.clone(),
            message: w.message.clone(),
        })
        .collect();
    Ok(("heapsnapshot", warnings, checks))
}

/// The `[page]` budgets on a trace: each metric at its worst navigation. A metric the trace does
/// not have (no LCP, no interaction) fails, as a missing function does: it would guard nothing.
fn check_page(
    loaded: &jsprof_document::load::CpuInput,
    budget: &PageBudget,
    checks: &mut Vec<CheckJson>,
) -> Result<()> {
    if loaded.trace().is_none() {
        checks.push(skipped("page", "", Measure::Ms, "page-load traces only"));
        return Ok(());
    }
    for (_, subject, measure, _) in budget.p75() {
        checks.push(skipped(
            "page",
            subject,
            measure,
            "over runs: FILE a folder of page-load traces",
        ));
    }
    for (_, subject, _) in budget.shifts() {
        checks.push(skipped(
            "page",
            subject,
            Measure::Ms,
            "between runs: --base A/ --target B/",
        ));
    }
    if !budget.single() {
        return Ok(());
    }
    let story = jsprof_document::page::story(loaded)?;
    let v = &story.vitals;
    let worst = |f: &dyn Fn(&jsprof_pageload::NavigationVitals) -> Option<f64>| {
        v.navigations.iter().filter_map(f).reduce(f64::max)
    };
    let mut metric = |subject: &str, measure, value: Option<f64>, limit: Option<f64>, missing| {
        let Some(limit) = limit else { return };
        checks.push(match value {
            Some(value) => check("page", subject, measure, value, limit, None),
            None => CheckJson {
                status: Status::Fail,
                ..check("page", subject, measure, 0.0, limit, Some(missing))
            },
        });
    };
    let lcp = worst(&|n| n.lcp.as_ref().map(|l| l.metric.value / 1000.0));
    let inp = worst(&|n| n.inp.map(|i| v.interactions[i].dur() / 1000.0));
    metric(
        "LCP",
        Measure::Ms,
        lcp,
        budget.max_lcp_ms,
        "no LCP in the trace".to_string(),
    );
    metric(
        "INP",
        Measure::Ms,
        inp,
        budget.max_inp_ms,
        "no interaction in the trace".to_string(),
    );
    let cls = v.navigations.iter().map(|n| n.cls).reduce(f64::max);
    metric(
        "CLS",
        Measure::Score,
        Some(cls.unwrap_or(0.0)),
        budget.max_cls,
        String::new(),
    );
    metric(
        "long-task time",
        Measure::Ms,
        Some(story.long_tasks.total() / 1000.0),
        budget.max_long_task_ms,
        String::new(),
    );
    metric(
        "requests",
        Measure::Count,
        Some(story.requests.len() as f64),
        budget.max_requests.map(|m| m as f64),
        String::new(),
    );
    metric(
        "transfer size",
        Measure::Bytes,
        Some(story.requests.iter().map(|r| r.transfer_size).sum()),
        budget.max_transfer_size.map(|s| s.0 as f64),
        String::new(),
    );
    Ok(())
}

/// `[page]`'s p75 budgets over a folder of runs of a page load (`record --url … --runs N`):
/// each against the 75th percentile `insights DIR` reports. The other budgets need one file.
fn check_runs(dir: &Path, budgets: &Budgets) -> Result<Outcome> {
    let page = budgets.page.as_ref().filter(|p| !p.p75().is_empty());
    let Some(page) = page else {
        bail!(
            "{}: a folder is a set of runs of a page load, checked by [page]'s p75 budgets \
             (lcp_p75_ms, fcp_p75_ms, cls_p75, tbt_p75_ms, inp_p75_ms), and the budget file has none",
            dir.display()
        );
    };
    let files = crate::input::files_in(dir)?;
    if files.is_empty() {
        bail!("{}: no traces in this folder", dir.display());
    }
    let runs = crate::cmd::insights::load_runs(&files)?;
    let report = jsprof_document::page_runs::runs_report(&runs);
    let mut checks = Vec::new();
    for (metric, subject, measure, limit) in page.p75() {
        checks.push(match report.metrics.iter().find(|m| m.metric == metric) {
            Some(m) => check(
                "page",
                subject,
                measure,
                m.p75,
                limit,
                Some(format!(
                    "{} runs, median {}",
                    m.runs,
                    format(measure, m.median)
                )),
            ),
            None => CheckJson {
                status: Status::Fail,
                ..check(
                    "page",
                    subject,
                    measure,
                    0.0,
                    limit,
                    Some(format!("no run has {metric}")),
                )
            },
        });
    }
    if page.single() {
        checks.push(skipped(
            "page",
            "",
            Measure::Ms,
            "max_* budgets take one trace; over runs give *_p75",
        ));
    }
    for (_, subject, _) in page.shifts() {
        checks.push(skipped(
            "page",
            subject,
            Measure::Ms,
            "between runs: --base A/ --target B/",
        ));
    }
    skip_abtest(budgets, &mut checks);
    skip_all_but_page(
        budgets,
        &mut checks,
        "one file of their kind, not a folder of runs",
    );
    let warnings = warnings_at(&dir.display().to_string(), &report.warnings);
    Ok(("page_runs", warnings, checks))
}

/// `[page]`'s shift budgets over `--base A/ --target B/` when both are page-load runs: each
/// metric's Hodges-Lehmann shift as `diff --base --target` reports it, failing only when the
/// growth is significant (q < alpha) and larger than the budget. `None` when the groups are
/// not page loads.
fn check_page_groups(args: &Args, budgets: &Budgets) -> Result<Option<Outcome>> {
    let Some(page) = &budgets.page else {
        return Ok(None);
    };
    let groups = GroupArgs {
        base: args.base.clone(),
        target: args.target.clone(),
        ..GroupArgs::default()
    };
    let (base, target) = groups.files()?;
    let Some((b, t)) = crate::cmd::diff::page_runs(&base, &target)? else {
        return Ok(None);
    };
    let alpha = page.alpha.unwrap_or(0.05);
    let label = |files: &[PathBuf]| crate::cmd::diff::group_label(files);
    let report =
        jsprof_document::page_diff::page_diff(&b, &t, (&label(&base), &label(&target)), alpha);
    let mut checks = Vec::new();
    for (metric, subject, limit) in page.shifts() {
        let Some(m) = report.metrics.iter().find(|m| m.metric == metric) else {
            checks.push(CheckJson {
                status: Status::Fail,
                ..check(
                    "page",
                    subject,
                    Measure::Ms,
                    0.0,
                    limit,
                    Some(format!("{metric} is not in both groups' runs")),
                )
            });
            continue;
        };
        // The value is the significant growth: a shift the runs cannot tell from noise (or a
        // significant improvement) counts 0, and the note gives it.
        let grew = if m.significant { m.shift.max(0.0) } else { 0.0 };
        let note = format!(
            "shift {}{}, {:.0} % CI [{}, {}], q = {:.2e}{}",
            if m.shift > 0.0 { "+" } else { "" },
            output::fmt_ms(m.shift),
            report.level * 100.0,
            output::fmt_ms(m.shift_low),
            output::fmt_ms(m.shift_high),
            m.q,
            if m.significant {
                ""
            } else {
                ", not significant"
            }
        );
        checks.push(check("page", subject, Measure::Ms, grew, limit, Some(note)));
    }
    if !page.p75().is_empty() || page.single() {
        checks.push(skipped(
            "page",
            "",
            Measure::Ms,
            "p75 budgets take one folder of runs, max_* one trace",
        ));
    }
    if budgets.abtest.is_some() {
        checks.push(skipped(
            "abtest",
            "",
            Measure::SharePercent,
            "page loads: [page]'s shift budgets apply",
        ));
    }
    skip_all_but_page(budgets, &mut checks, "needs one FILE, not groups");
    let warnings = warnings_at("groups", &report.warnings);
    Ok(Some(("page_diff", warnings, checks)))
}

/// `[abtest]` with one FILE (or folder of runs): skipped, it compares two groups.
fn skip_abtest(budgets: &Budgets, checks: &mut Vec<CheckJson>) {
    if budgets.abtest.is_some() {
        checks.push(abtest_skipped());
    }
}

/// Whether `path` is a folder of heap snapshots (a series for `[leaks]`) rather than of page-load
/// runs: its first file, by name, is a snapshot.
fn holds_snapshots(path: &Path) -> Result<bool> {
    if !path.is_dir() {
        return Ok(false);
    }
    let files = crate::input::files_in(path)?;
    Ok(match files.first() {
        Some(first) => detect_format(first)? == Some(Format::HeapSnapshot),
        None => false,
    })
}

/// A page document's warnings, each at `at`.
fn warnings_at(at: &str, warnings: &[String]) -> Vec<JsonWarning> {
    warnings
        .iter()
        .map(|w| JsonWarning {
            at: at.to_string(),
            message: w.clone(),
        })
        .collect()
}

/// Skips the function, GC, class and detached-DOM budgets, saying `why`.
fn skip_all_but_page(budgets: &Budgets, checks: &mut Vec<CheckJson>, why: &str) {
    for (present, name, measure) in [
        (!budgets.function.is_empty(), "function", Measure::TotalMs),
        (budgets.gc.is_some(), "gc", Measure::SharePercent),
        (!budgets.class.is_empty(), "class", Measure::RetainedSize),
        (
            budgets.detached_dom.is_some(),
            "detached_dom",
            Measure::Nodes,
        ),
    ] {
        if present {
            checks.push(skipped(name, "", measure, why));
        }
    }
}

/// `[abtest]` over two `--where` selections of a profile lake, as `jsprof lake diff` compares them.
#[cfg(feature = "lake")]
fn lake_groups(
    lake: &Path,
    base: &[PathBuf],
    target: &[PathBuf],
    options: AbOptions,
) -> Result<jsprof_analysis::abtest::AbTest> {
    let terms = |v: &[PathBuf]| -> Result<jsprof_lake::Selection> {
        let terms: Vec<String> = v.iter().map(|p| p.display().to_string()).collect();
        Ok(jsprof_lake::Selection::parse(&terms, None, None)?)
    };
    let (base, target) = (terms(base)?, terms(target)?);
    let (test, _) = crate::cmd::lake::lake_ab_test(lake, &base, &target, None, options)?;
    Ok(test)
}

#[cfg(not(feature = "lake"))]
fn lake_groups(
    _lake: &Path,
    _base: &[PathBuf],
    _target: &[PathBuf],
    _options: AbOptions,
) -> Result<jsprof_analysis::abtest::AbTest> {
    bail!("check --lake: {}", jsprof_server::WITHOUT_LAKE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_size("20 MB"), Ok(20 * 1024 * 1024));
        assert_eq!(parse_size("1.5KB"), Ok(1536));
        assert_eq!(parse_size("512"), Ok(512));
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("MB").is_err());
    }
}
