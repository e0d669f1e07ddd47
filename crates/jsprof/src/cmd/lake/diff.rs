//! `lake diff`: two selections' A/B test per function's share (also `jsprof check --lake`), or
//! with `--page-loads` their page loads' metrics compared as `jsprof diff --base A/ --target B/`
//! compares two folders of runs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use jsprof_analysis::abtest::{ab_test, AbOptions, AbTest, ProfileWeights};
use jsprof_lake::query;
use jsprof_lake::{LakeReader, Selection};

use super::{merged, to_u32, UnitArg, Where};
use crate::output;

#[derive(clap::Args)]
pub struct DiffArgs {
    pub lake: PathBuf,
    /// The base group: `--where` terms (NAME=VALUE, NAME=V1|V2, NAME!=VALUE, since=, until=;
    /// comma separated, repeat for more).
    #[arg(long, required = true, value_name = "WHERE")]
    pub base: Vec<String>,
    /// The target group, as `--base`.
    #[arg(long, required = true, value_name = "WHERE")]
    pub target: Vec<String>,
    /// Terms both groups keep to (`--where page=/checkout`).
    #[command(flatten)]
    pub selection: Where,
    #[command(flatten)]
    pub stats: crate::cmd::diff::StatsArgs,
    /// Compare the groups' page loads (traces with a navigation, e.g. from `jsprof record --url
    /// URL --runs N`) metric by metric — FCP, LCP and its parts, CLS, INP, TBT, long tasks,
    /// requests, transfer size — as `jsprof diff --base A/ --target B/` compares two folders of
    /// runs (Hodges-Lehmann shift, 95 % interval, Benjamini-Hochberg q), instead of the
    /// functions' shares.
    #[arg(long, conflicts_with_all = ["flamegraph", "unit", "limit"])]
    pub page_loads: bool,
    /// Write the differential flame graph of the two merged groups (each normalised to its own
    /// total) to this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub flamegraph: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
    /// How many changes to list; 0 lists all.
    #[arg(long, default_value_t = 25)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// One group's per-profile function weights, as `jsprof diff --key function` weighs a file:
/// functions by (name, URL, line, column), each profile's total the weight on some function.
async fn group_weights(
    reader: &LakeReader,
    sel: &Selection,
    unit: &str,
) -> jsprof_lake::Result<Vec<ProfileWeights>> {
    let rows = query::per_profile_functions(reader, sel, unit).await?;
    let names = query::function_names(reader, |_| true).await?;
    Ok(rows
        .into_iter()
        .map(|p| {
            let mut functions = std::collections::HashMap::new();
            for (fid, (self_w, total_w)) in p.functions {
                let name = match names.get(&fid) {
                    Some((n, u, l, c)) => (n.clone(), u.clone(), to_u32(*l), to_u32(*c)),
                    None => (format!("(function {fid:016x})"), String::new(), None, None),
                };
                let e: &mut (f64, f64) = functions.entry(name).or_default();
                e.0 += self_w as f64;
                e.1 += total_w as f64;
            }
            ProfileWeights {
                functions,
                total: p.total as f64,
            }
        })
        .collect())
}

/// The two groups' A/B test over a lake (`lake diff`, `jsprof check --lake`): `(test, unit)`.
pub fn lake_ab_test(
    lake: &Path,
    base: &Selection,
    target: &Selection,
    unit: Option<&str>,
    options: AbOptions,
) -> Result<(AbTest, String)> {
    let (unit, base_w) = with_reader!(lake, base, |r| async {
        let (unit, note) = query::choose_unit(r, base, unit).await?;
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        let w = group_weights(r, base, &unit).await?;
        Ok((unit, w))
    })?;
    let target_w = with_reader!(lake, target, |r| group_weights(r, target, &unit))?;
    let test = ab_test(&base_w, &target_w, options).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((test, unit))
}

fn group_selection(terms: &[String], common: &Where) -> Result<Selection> {
    let mut wheres = common.wheres.clone();
    wheres.extend(terms.iter().cloned());
    Ok(Selection::parse(
        &wheres,
        common.since.as_deref(),
        common.until.as_deref(),
    )?)
}

pub(super) fn run_diff(a: DiffArgs) -> Result<ExitCode> {
    let options = a.stats.options()?;
    let base = group_selection(&a.base, &a.selection)?;
    let target = group_selection(&a.target, &a.selection)?;
    if a.page_loads {
        return run_page_diff(&a, [&base, &target], options.alpha);
    }
    let unit = a.unit.map(UnitArg::as_str);
    let (test, unit) = lake_ab_test(&a.lake, &base, &target, unit, options)?;
    if let Some(out) = &a.flamegraph {
        let (b, _) = merged(&a.lake, &base, Some(&unit))?;
        let (t, _) = merged(&a.lake, &target, Some(&unit))?;
        let options = jsprof_render::FlameGraphOptions {
            title: "Differential Flame Graph".to_string(),
            subtitle: Some(format!(
                "{}: {} → {} (each group normalised to its total) — red grew, blue shrank, hatched is gone",
                a.lake.display(),
                a.base.join(", "),
                a.target.join(", ")
            )),
            ..Default::default()
        };
        let mut file = crate::output_file::create_output(out)?;
        jsprof_render::write_diff_flame_graph_svg(
            &mut file,
            (&b, &b.threads[0]),
            (&t, &t.threads[0]),
            jsprof_analysis::DiffKey::Function,
            true,
            &options,
        )
        .with_context(|| format!("writing {}", out.display()))?;
        file.finish()?;
    }
    let report = jsprof_document::abtest::report(
        &test,
        &a.base.join(", "),
        &a.target.join(", "),
        "function",
        Vec::new(),
    );
    output::emit(a.json, &report, |out| {
        crate::cmd::diff::write_ab_report(&report, a.limit, out)
    })
}

/// `lake diff --page-loads`: the two selections' page loads, metric by metric.
fn run_page_diff(a: &DiffArgs, sides: [&Selection; 2], alpha: f64) -> Result<ExitCode> {
    let [base, target] = sides;
    let base_runs = with_reader!(&a.lake, base, |r| query::page_runs(r, base))?;
    let target_runs = with_reader!(&a.lake, target, |r| query::page_runs(r, target))?;
    for (runs, side, terms) in [
        (&base_runs, "base", &a.base),
        (&target_runs, "target", &a.target),
    ] {
        if runs.is_empty() {
            anyhow::bail!(
                "{}: no page load matches --{side} {} (page loads are traces with a navigation, added with `jsprof lake add`, e.g. from `jsprof record --url URL --runs N`)",
                a.lake.display(),
                terms.join(", ")
            );
        }
    }
    let report = jsprof_document::lake::LakePageDiffReport::new(
        [
            (a.base.join(", "), base_runs),
            (a.target.join(", "), target_runs),
        ],
        alpha,
    );
    output::emit(a.json, &report, |out| {
        use std::io::Write;
        for (name, s) in [("base  ", &report.base), ("target", &report.target)] {
            writeln!(out, "{name} {}  {} page loads", s.selection, s.runs)?;
        }
        crate::cmd::diff::write_metric_shifts(
            report.metrics.iter().chain(&report.long_tasks),
            report.level,
            report.alpha,
            out,
        )
    })
}
