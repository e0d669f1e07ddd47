//! A page load as a distribution: `jsprof insights DIR` over N traces of the same page (the runs
//! of a lab, e.g. `record --url … --trace` repeated). One load is noise — LCP moves by tens of
//! milliseconds from run to run on the same build — so per metric the runs' median, 75th
//! percentile and spread, each insight's share of runs in which it fails with its median
//! savings, and the run closest to the median (the one to open).
//!
//! Every number is read from each run's own insights document ([`InsightsReport`], DevTools'
//! trace engine's values), so a run's row equals `jsprof insights RUN --json`. Percentiles
//! interpolate linearly between the two nearest ranks (the `(n - 1) p` rule of R's type 7 and
//! NumPy's default); a metric a run does not have (INP without an interaction) is left out of
//! that metric's distribution and its count says so.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::insights::{InsightsReport, LcpBreakdownJson, NavigationJson};

/// The runs of one page load, compared.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PageRunsReport {
    /// `page_runs`.
    pub kind: &'static str,
    /// The main frame's URL of the runs (the first run's when they differ: see `warnings`).
    pub url: Option<String>,
    /// Each run's metrics, in the order the runs were given (file names sorted for a folder).
    pub runs: Vec<RunJson>,
    /// Per metric: its distribution over the runs that have it.
    pub metrics: Vec<MetricRunsJson>,
    /// Per insight (DevTools' names as `insights --json` keys them): in how many runs it fails,
    /// and its median savings over those runs.
    pub insights: Vec<InsightRunsJson>,
    /// The index in `runs` of the run closest to the medians of FCP and LCP (the sum of each
    /// metric's distance to its median relative to the median), the one to open; `null` with no
    /// run.
    pub median_run: Option<usize>,
    /// Runs whose main frame differs from the first's, and the like.
    pub warnings: Vec<String>,
}

/// One run: its file and the metrics of its first navigation.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RunJson {
    pub file: String,
    /// The navigation's URL; `null` for a trace without a navigation.
    pub url: Option<String>,
    /// Metric name → value, for the metrics this run has (names as in `metrics`).
    pub values: BTreeMap<String, f64>,
}

/// A metric's distribution over the runs.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MetricRunsJson {
    /// `fcp_ms`, `lcp_ms`, `lcp_ttfb_ms`, `lcp_load_delay_ms`, `lcp_load_duration_ms`,
    /// `lcp_render_delay_ms`, `cls`, `inp_ms`, `tbt_ms` (the long tasks' time past 50 ms each),
    /// `long_tasks_ms`, `requests`, `transfer_size` (bytes over the network, as the Network
    /// panel's "transferred"), `long_tasks` (their count).
    pub metric: &'static str,
    /// Runs that have it.
    pub runs: usize,
    pub median: f64,
    pub p75: f64,
    pub min: f64,
    pub max: f64,
    /// The interquartile range (p75 − p25): the spread a change must beat.
    pub iqr: f64,
}

/// One insight over the runs.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct InsightRunsJson {
    /// The insight's key in `insights --json` (`render_blocking`, `lcp_discovery`, …).
    pub insight: String,
    /// Runs in which DevTools evaluated it.
    pub runs: usize,
    /// Runs in which it fails (`state` `fail`; `render_blocking`: any request blocks).
    pub failing: usize,
    /// `failing / runs`.
    pub share: f64,
    /// Over the failing runs, the median of each saving the insight states (`fcp_ms`,
    /// `lcp_ms`, `inp_ms`, `ms`, `wasted_bytes`), keyed by what it saves.
    pub median_savings: BTreeMap<String, f64>,
}

/// How a run's value of a metric is read from its insights document.
type MetricOf = for<'a> fn(&'a InsightsReport) -> Option<f64>;

/// The metrics in the order the report lists them, each with how a run's value is read: those
/// of its first navigation, then the trace's long tasks and requests.
const METRIC_VALUES: &[(&str, MetricOf)] = &[
    ("fcp_ms", |r| Some(first(r)?.metrics.fcp.as_ref()?.value_ms)),
    ("lcp_ms", |r| Some(first(r)?.metrics.lcp.as_ref()?.value_ms)),
    ("lcp_ttfb_ms", |r| Some(breakdown(r)?.ttfb.dur_ms)),
    ("lcp_load_delay_ms", |r| {
        Some(breakdown(r)?.load_delay.as_ref()?.dur_ms)
    }),
    ("lcp_load_duration_ms", |r| {
        Some(breakdown(r)?.load_duration.as_ref()?.dur_ms)
    }),
    ("lcp_render_delay_ms", |r| {
        Some(breakdown(r)?.render_delay.dur_ms)
    }),
    ("cls", |r| Some(first(r)?.metrics.cls.score)),
    ("inp_ms", |r| Some(first(r)?.metrics.inp.as_ref()?.value_ms)),
    ("tbt_ms", |r| Some(r.long_tasks.blocking_ms)),
    ("long_tasks_ms", |r| Some(r.long_tasks.total_ms)),
    ("requests", |r| Some(r.requests as f64)),
    ("transfer_size", |r| Some(r.transfer_size)),
    ("long_tasks", |r| Some(r.long_tasks.count as f64)),
];

/// A run's first navigation: its first insight set that is one. DevTools gathers what a trace
/// without a navigation has under `NO_NAVIGATION`, which is not a page load.
pub fn first_navigation(r: &InsightsReport) -> Option<&NavigationJson> {
    r.navigations.iter().find(|n| n.id != "NO_NAVIGATION")
}

/// Whether a trace is a page load (it records a navigation): what `diff --base A/ --target
/// B/`, MCP, the service and the lake ask before they treat it as a run.
pub fn is_page_load(r: &InsightsReport) -> bool {
    first_navigation(r).is_some()
}

fn first(r: &InsightsReport) -> Option<&NavigationJson> {
    first_navigation(r)
}

/// Its LCP breakdown.
fn breakdown(r: &InsightsReport) -> Option<&LcpBreakdownJson> {
    first(r)?.insights.lcp_breakdown.as_ref()
}

/// The runs in a folder: its regular files by name, but `manifest.json` (what `record --runs`
/// writes beside them) and hidden files. `insights DIR`, `diff --base A/ --target B/` and MCP's
/// page tools read a folder of runs with it.
pub fn run_files(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n == "manifest.json" || n.to_string_lossy().starts_with('.'));
        if path.is_file() && !hidden {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A run's metrics (names as in [`METRICS`]): those of its first navigation, and the trace's
/// long tasks and requests. The lake stores these per page-load trace (`page_metrics`).
pub fn run_values(report: &InsightsReport) -> BTreeMap<String, f64> {
    METRIC_VALUES
        .iter()
        .filter_map(|(name, of)| {
            let x = of(report).filter(|x| x.is_finite())?;
            Some((name.to_string(), x))
        })
        .collect()
}

/// The metrics in the order the report lists them.
pub const METRICS: &[&str] = &metric_names();

const fn metric_names() -> [&'static str; METRIC_VALUES.len()] {
    let mut names = [""; METRIC_VALUES.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = METRIC_VALUES[i].0;
        i += 1;
    }
    names
}

/// How every door's text names `metric`: `lcp`, `lcp ttfb`, `long-task time` (`long_tasks_ms`,
/// beside the count `long tasks`), `transfer size`.
pub fn metric_label(metric: &str) -> String {
    match metric {
        "long_tasks_ms" => "long-task time".to_string(),
        m => m.trim_end_matches("_ms").replace('_', " "),
    }
}

/// A value of `metric` as every door's text writes it: a CLS score with three decimals, a count
/// as it is, bytes as [`crate::units::fmt_bytes`] and a time as [`crate::units::fmt_ms`] write
/// them.
pub fn metric_text(metric: &str, v: f64) -> String {
    match metric {
        "cls" => crate::insights::cls_text(v),
        "requests" | "long_tasks" => format!("{v}"),
        "transfer_size" => crate::units::fmt_bytes(v),
        _ => crate::units::fmt_ms(v),
    }
}

/// `metric`'s distribution over `values` (one per run); `None` with no value. `insights DIR`
/// and `lake trend --metric` both summarise runs with it.
pub fn distribution(metric: &'static str, mut values: Vec<f64>) -> Option<MetricRunsJson> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let v = &values;
    Some(MetricRunsJson {
        metric,
        runs: v.len(),
        median: quantile(v, 0.5),
        p75: quantile(v, 0.75),
        min: v[0],
        max: v[v.len() - 1],
        iqr: quantile(v, 0.75) - quantile(v, 0.25),
    })
}

/// The `p` quantile (0..=1) of `sorted` (ascending, not empty), interpolating linearly between
/// the two nearest ranks.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let at = (sorted.len() - 1) as f64 * p;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    quantile(values, 0.5)
}

/// The savings an insight's JSON states, keyed by what they save.
fn savings(insight: &str, v: &Value) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Some(m) = v.as_object() else {
        return out;
    };
    // Render-blocking's savings are an object of their own, keyed as `metric_savings` is.
    if insight == "render_blocking_savings" {
        return savings("", &serde_json::json!({ "metric_savings": v }));
    }
    for (k, x) in m {
        let Some(x) = x.as_f64() else {
            if k == "metric_savings" {
                for (mk, mx) in x.as_object().into_iter().flatten() {
                    if let Some(mx) = mx.as_f64() {
                        out.insert(mk.clone(), mx);
                    }
                }
            }
            continue;
        };
        let name = match k.as_str() {
            "savings_ms" => "ms".to_string(),
            "wasted_bytes" => k.clone(),
            _ => match k.strip_suffix("_savings_ms") {
                Some(metric) => format!("{metric}_ms"),
                None => continue,
            },
        };
        out.insert(name, x);
    }
    out
}

/// Whether an insight's JSON fails, and whether it was evaluated at all.
fn verdict(insight: &str, v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Object(m) => m.get("state").and_then(Value::as_str).map(|s| s == "fail"),
        Value::Array(a) if insight == "render_blocking" => Some(!a.is_empty()),
        _ => None,
    }
}

/// One insight counted over the runs.
#[derive(Default)]
struct Tally {
    evaluated: usize,
    failing: usize,
    /// What the failing runs would save, per kind of saving.
    savings: BTreeMap<String, Vec<f64>>,
}

/// The runs report of `runs` (a name and its insights document each).
pub fn runs_report(runs: &[(String, InsightsReport)]) -> PageRunsReport {
    let rows: Vec<RunJson> = runs
        .iter()
        .map(|(file, r)| RunJson {
            file: file.clone(),
            url: first(r).map(|n| n.url.clone()),
            values: run_values(r),
        })
        .collect();
    let metrics: Vec<MetricRunsJson> = METRICS
        .iter()
        .filter_map(|&metric| {
            let values = rows.iter().filter_map(|r| r.values.get(metric).copied());
            distribution(metric, values.collect())
        })
        .collect();
    // Each insight in the order of the first run that has it.
    let mut order: Vec<String> = Vec::new();
    let mut per: BTreeMap<String, Tally> = BTreeMap::new();
    for (_, r) in runs {
        let Some(n) = first(r) else {
            continue;
        };
        let insights = serde_json::to_value(&n.insights).unwrap_or(Value::Null);
        let blocking_savings = insights.get("render_blocking_savings").cloned();
        for (key, v) in insights.as_object().into_iter().flatten() {
            let Some(fails) = verdict(key, v) else {
                continue;
            };
            if !per.contains_key(key) {
                order.push(key.clone());
            }
            let entry = per.entry(key.clone()).or_default();
            entry.evaluated += 1;
            if fails {
                entry.failing += 1;
                let stated = if key == "render_blocking" {
                    blocking_savings
                        .as_ref()
                        .map(|s| savings("render_blocking_savings", s))
                        .unwrap_or_default()
                } else {
                    savings(key, v)
                };
                for (what, x) in stated {
                    entry.savings.entry(what).or_default().push(x);
                }
            }
        }
    }
    let insights = order
        .into_iter()
        .map(|insight| {
            let Tally {
                evaluated,
                failing,
                savings: mut saved,
            } = per.remove(&insight).unwrap_or_default();
            InsightRunsJson {
                share: failing as f64 / evaluated.max(1) as f64,
                median_savings: saved
                    .iter_mut()
                    .map(|(what, xs)| (what.clone(), median(xs)))
                    .collect(),
                insight,
                runs: evaluated,
                failing,
            }
        })
        .collect();
    let center = |metric: &str| {
        metrics
            .iter()
            .find(|m| m.metric == metric)
            .map(|m| m.median)
    };
    let median_run = (0..rows.len()).min_by(|&a, &b| {
        let distance = |i: usize| -> f64 {
            ["fcp_ms", "lcp_ms"]
                .iter()
                .filter_map(|m| {
                    let (x, c) = (rows[i].values.get(*m)?, center(m)?);
                    Some((x - c).abs() / c.abs().max(f64::EPSILON))
                })
                .sum()
        };
        distance(a).total_cmp(&distance(b))
    });
    let url = rows.iter().find_map(|r| r.url.clone());
    let warnings = rows
        .iter()
        .filter(|r| r.url.is_some() && r.url != url)
        .map(|r| {
            format!(
                "{} loaded {} where the first run loaded {}",
                r.file,
                r.url.as_deref().unwrap_or(""),
                url.as_deref().unwrap_or("")
            )
        })
        .chain(rows.iter().filter(|r| r.url.is_none()).map(|r| {
            format!(
                "{} has no navigation: only its long tasks and requests count",
                r.file
            )
        }))
        .collect();
    PageRunsReport {
        kind: "page_runs",
        url,
        runs: rows,
        metrics,
        insights,
        median_run,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.75), 3.25);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&[7.0], 0.75), 7.0);
    }

    #[test]
    fn savings_are_keyed_by_what_they_save() {
        let v = serde_json::json!({
            "state": "fail", "wasted_bytes": 1200, "fcp_savings_ms": 30.0,
            "metric_savings": {"lcp_ms": 40.0}, "savings_ms": 5.0, "count": 3
        });
        let s = savings("legacy_javascript", &v);
        assert_eq!(
            s.into_iter().collect::<Vec<_>>(),
            [
                ("fcp_ms".to_string(), 30.0),
                ("lcp_ms".to_string(), 40.0),
                ("ms".to_string(), 5.0),
                ("wasted_bytes".to_string(), 1200.0)
            ]
        );
        let blocking =
            serde_json::json!({"fcp_ms": 120.0, "lcp_ms": 80.0, "requests": [{"wasted_ms": 5.0}]});
        assert_eq!(
            savings("render_blocking_savings", &blocking)
                .into_iter()
                .collect::<Vec<_>>(),
            [("fcp_ms".to_string(), 120.0), ("lcp_ms".to_string(), 80.0)]
        );
        assert_eq!(
            verdict("cache", &serde_json::json!({"state": "pass"})),
            Some(false)
        );
        assert_eq!(
            verdict("render_blocking", &serde_json::json!([{}])),
            Some(true)
        );
        assert_eq!(verdict("lcp_breakdown", &Value::Null), None);
    }
}
