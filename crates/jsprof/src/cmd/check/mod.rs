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

use anyhow::{bail, Result};
use jsprof_document::check::{CheckJson, CheckReport, Measure, Status};
use jsprof_profile::Format;

use crate::load::detect_format;
use crate::output::{self, columns, JsonWarning, TextOut};

mod budget;
mod cpu;
mod groups;
mod heap;
mod leaks;
mod page;

pub use budget::BUDGET_HELP;
use budget::{format, read_budgets, Budgets};

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
            let (kind, warnings, checks) = leaks::check_leaks(&args, file, &budgets)?;
            (kind, warnings, checks, crate::input::display_name(file))
        }
        Some(dir) if dir.is_dir() => {
            let (kind, warnings, checks) = page::check_runs(dir, &budgets)?;
            (kind, warnings, checks, crate::input::display_name(dir))
        }
        Some(file) => {
            let heap = detect_format(file)? == Some(Format::HeapSnapshot);
            let (kind, warnings, mut checks) = if heap {
                heap::check_heap(file, &budgets)?
            } else {
                cpu::check_cpu(&args, file, &budgets)?
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
            let (kind, warnings, checks) = groups::check_groups(&args, &budgets)?;
            (kind, warnings, checks, "the groups".to_string())
        }
    };
    let passed = checks.iter().all(|c| c.status != Status::Fail);
    let code = if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let report = CheckReport {
        kind,
        warnings,
        passed,
        checks,
    };
    output::emit(args.json, &report, |out| {
        output::warn(&name, &report.warnings);
        writeln!(out, "{name} against {}", args.budget.display())?;
        write_checks(&report.checks, out)
    })?;
    Ok(code)
}

/// The checks as a table, then how many were exceeded.
fn write_checks(checks: &[CheckJson], out: &mut TextOut) -> std::io::Result<()> {
    columns(checks.iter().map(|c| (c, comparison(c))))
        .left("", |(_, (mark, ..))| mark.to_string())
        .left("Budget", |(c, _)| budget_text(c))
        .right("Value", |(_, (_, value, ..))| value.clone())
        .left("", |(_, (_, _, rel, _))| rel.to_string())
        .right("Limit", |(_, (.., limit))| limit.clone())
        .left("", |(c, _)| c.note.clone().unwrap_or_default())
        .write(out)?;
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let counted = checks
        .iter()
        .filter(|c| c.status != Status::Skipped)
        .count();
    if failed > 0 {
        writeln!(out, "{failed} of {counted} budgets exceeded")
    } else {
        writeln!(out, "all {counted} budgets hold")
    }
}

/// What a check measures, as the report's Budget column says it.
fn budget_text(c: &CheckJson) -> String {
    match (c.budget, c.measure) {
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
    }
}

/// A check's verdict as the report shows it: its mark, value, relation and limit.
fn comparison(c: &CheckJson) -> (&'static str, String, &'static str, String) {
    let fmt = |v: f64| format(c.measure, v);
    match c.status {
        Status::Pass => ("ok", fmt(c.value.0), "≤", fmt(c.limit.0)),
        // A function the profile lacks fails with its note, not with a comparison.
        Status::Fail if c.value.0 <= c.limit.0 => ("FAIL", String::new(), "", String::new()),
        Status::Fail => ("FAIL", fmt(c.value.0), ">", fmt(c.limit.0)),
        Status::Skipped => ("skip", String::new(), "", String::new()),
    }
}

/// What one reading of the budget file gives: the input's kind, its warnings and the checks.
type Outcome = (&'static str, Vec<JsonWarning>, Vec<CheckJson>);

/// `[abtest]` given one file or a series: it compares two groups.
fn abtest_skipped() -> CheckJson {
    skipped(
        "abtest",
        "",
        Measure::SharePercent,
        "compares two groups: --base and --target",
    )
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
