//! `lake trend`: a function's share per label value or day, or with `--metric` a page-load
//! metric's distribution per value.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::lake as lake_doc;
use jsprof_lake::query;

use super::{selection, UnitArg, Where};
use crate::output::{self, columns};

#[derive(clap::Args)]
pub struct TrendArgs {
    pub lake: PathBuf,
    /// The function's name (every function of that name, or the one at --url).
    #[arg(required_unless_present = "metric")]
    pub function: Option<String>,
    /// Instead of a function, a page-load metric of the page-load traces added (`lcp_ms`,
    /// `fcp_ms`, `cls`, `inp_ms`, `tbt_ms`, …, as `jsprof insights DIR` names them): its median,
    /// p75 and spread per value, as `jsprof insights DIR` gives them for a folder of runs.
    #[arg(long, conflicts_with_all = ["function", "url", "unit"])]
    pub metric: Option<String>,
    /// A label, or `day` for the profiles' start days.
    #[arg(long)]
    pub by: String,
    /// Only the function in this script.
    #[arg(long)]
    pub url: Option<String>,
    #[command(flatten)]
    pub selection: Where,
    #[arg(long, value_enum)]
    pub unit: Option<UnitArg>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run_trend(a: TrendArgs) -> Result<ExitCode> {
    let sel = selection(&a.selection)?;
    let Some(function) = a.function.clone() else {
        return run_page_trend(a, &sel);
    };
    let unit = a.unit.map(UnitArg::as_str);
    let (url, by) = (a.url.clone(), a.by.clone());
    let (unit, points) = with_reader!(&a.lake, &sel, |r| query::trend(
        r,
        &sel,
        &function,
        url.as_deref(),
        &by,
        unit
    ))?;
    let weight_unit = lake_doc::weight_unit(&unit);
    let points: Vec<lake_doc::LakeTrendPoint> = points
        .into_iter()
        .map(|p| {
            lake_doc::LakeTrendPoint::new(
                weight_unit,
                p.value,
                p.profiles,
                p.total,
                p.self_weight,
                p.total_weight,
            )
        })
        .collect();
    let report = lake_doc::LakeTrendReport {
        kind: "lake-trend",
        function,
        by: a.by,
        unit,
        points,
    };
    output::emit(a.json, &report, |out| {
        columns(&report.points)
            .left(&report.by, |p| label_value(&p.value))
            .right("Profiles", |p| p.profiles.to_string())
            .right("Self %", |p| format!("{:.2}", p.weights.self_percent))
            .right("Total %", |p| format!("{:.2}", p.weights.total_percent))
            .write(out)
    })
}

/// `lake trend --metric`: a page-load metric's distribution per label value.
pub(super) fn run_page_trend(a: TrendArgs, sel: &jsprof_lake::Selection) -> Result<ExitCode> {
    use jsprof_document::page_runs::{distribution, METRICS};
    let asked = a.metric.as_deref().unwrap_or_default();
    let Some(&metric) = METRICS.iter().find(|&&m| m == asked) else {
        anyhow::bail!(
            "--metric {asked}: not a page-load metric; one of {}",
            METRICS.join(", ")
        );
    };
    let by = a.by.clone();
    let groups = with_reader!(&a.lake, sel, |r| query::page_metric_values(
        r, sel, metric, &by
    ))?;
    let points: Vec<lake_doc::LakePageTrendPoint> = groups
        .into_iter()
        .filter_map(|(value, values)| {
            distribution(metric, values).map(|distribution| lake_doc::LakePageTrendPoint {
                value,
                distribution,
            })
        })
        .collect();
    let report = lake_doc::LakePageTrendReport {
        kind: "lake-page-trend",
        metric,
        by: a.by,
        points,
    };
    output::emit(a.json, &report, |out| {
        if report.points.is_empty() {
            eprintln!(
                "{}: no page-load trace of the selection has {metric} (page loads are traces with a navigation, e.g. from `jsprof record --url`)",
                a.lake.display()
            );
        }
        let fmt = move |x: f64| jsprof_document::page_runs::metric_text(metric, x);
        columns(&report.points)
            .left(&report.by, |p| label_value(&p.value))
            .right("Runs", |p| p.distribution.runs.to_string())
            .right("Median", move |p| fmt(p.distribution.median))
            .right("p75", move |p| fmt(p.distribution.p75))
            .right("Min", move |p| fmt(p.distribution.min))
            .right("Max", move |p| fmt(p.distribution.max))
            .write(out)
    })
}

/// A label's value as a trend's row names it; `(none)` for the profiles without the label.
fn label_value(value: &Option<String>) -> String {
    value.clone().unwrap_or_else(|| "(none)".into())
}
