//! The page-load lab's tools: a folder of runs of one page load as a distribution
//! (`jsprof insights DIR --json`) and two folders compared (`jsprof diff --base A/ --target B/
//! --json`). Each run is opened as `open` opens a file (the same handle, the same insights
//! document, built once), so the answers equal the CLI's for the same folders.

use jsprof_analysis::abtest::{AbOptions, ProfileWeights};
use jsprof_document::abtest::group_label;
use jsprof_document::filters::FilterSpec;
use jsprof_document::insights::InsightsReport;
use jsprof_document::page_diff::{run_weights, MetricShiftJson, PageDiffReport};
use jsprof_document::page_runs::{
    metric_label, metric_text, runs_report, MetricRunsJson, PageRunsReport,
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::trace::{keep_one_list, Lists};
use super::{to_value, Answer, Question};
use crate::error::{ToolError, ToolResult};

#[derive(Deserialize, JsonSchema)]
pub struct PageRunsArgs {
    /// A folder of traces of one page load under a --root (e.g. what `jsprof record --url URL
    /// --runs N` wrote): every file but `manifest.json` is a run.
    pub dir: String,
    /// The list paged: metrics (default: each metric's median, p75 and spread), insights (each
    /// insight's share of failing runs) or runs (each run's values).
    #[serde(default)]
    pub list: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct PageDiffArgs {
    /// The base build's folder of runs under a --root.
    pub base: String,
    /// The target build's folder of runs.
    pub target: String,
    /// A change is significant when its Benjamini-Hochberg q-value is below this (default 0.05).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// The list paged: metrics (default), render_blocking, critical_path, uncached (requests
    /// that became or stopped being so), third_parties or functions (whose share of the main
    /// thread changed).
    #[serde(default)]
    pub list: Option<String>,
}

const RUNS_LISTS: Lists = &[
    ("metrics", &["metrics"]),
    ("insights", &["insights"]),
    ("runs", &["runs"]),
];

const DIFF_LISTS: Lists = &[
    ("metrics", &["metrics"]),
    ("render_blocking", &["render_blocking"]),
    ("critical_path", &["critical_path"]),
    ("uncached", &["uncached"]),
    ("third_parties", &["third_parties"]),
    ("functions", &["functions"]),
];

/// A folder's runs: each file's name and insights document, its main thread's function weights
/// ([`run_weights`], when a comparison asks for them), and the folder's files as `dir/NAME` (how `jsprof diff --base DIR` names
/// them).
struct Runs {
    reports: Vec<(String, InsightsReport)>,
    weights: Vec<ProfileWeights>,
    files: Vec<std::path::PathBuf>,
}

/// The runs of folder `dir` (under a root).
async fn runs_of(q: &Question<'_>, dir: &str, weights: bool) -> ToolResult<Runs> {
    let folder = q.store.confine_dir(dir)?;
    let files = jsprof_document::page_runs::run_files(&folder)
        .map_err(|e| ToolError::Input(format!("cannot list {}: {e}", dir.escape_debug())))?;
    if files.is_empty() {
        return Err(ToolError::Input(format!(
            "{}: no traces in this folder (a run of a page load per file, e.g. from `jsprof record --url URL --runs N`)",
            dir.escape_debug()
        )));
    }
    let mut runs = Runs {
        reports: Vec::with_capacity(files.len()),
        weights: Vec::with_capacity(files.len()),
        files: Vec::with_capacity(files.len()),
    };
    for file in files {
        let name = file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let entry = q.store.open(&file.display().to_string())?;
        let named = |e: ToolError| match e {
            ToolError::Input(m) => ToolError::Input(format!("run {name}: {m}")),
            e => e,
        };
        let report = super::trace::trace_document(
            q,
            &entry.handle,
            "insights",
            jsprof_document::page::insights_report,
        )
        .await
        .map_err(named)?;
        if weights {
            let (_, input) = super::cpu_of(q, &entry.handle, &FilterSpec::default())
                .await
                .map_err(named)?;
            let key = format!("run weights {}", entry.handle);
            let w = q
                .store
                .document(key, move || Ok(run_weights(&input)?))
                .await
                .map_err(named)?;
            runs.weights.push((*w).clone());
        }
        runs.files.push(std::path::Path::new(dir).join(&name));
        runs.reports.push((name, (*report).clone()));
    }
    Ok(runs)
}

fn distribution_row(m: &MetricRunsJson) -> String {
    let v = |x: f64| metric_text(m.metric, x);
    format!(
        "{}: median {}, p75 {}, {} … {} over {} runs",
        metric_label(m.metric),
        v(m.median),
        v(m.p75),
        v(m.min),
        v(m.max),
        m.runs
    )
}

fn shift_row(m: &MetricShiftJson) -> String {
    let v = |x: f64| metric_text(&m.metric, x);
    let verdict = match (m.significant, m.shift > 0.0) {
        (false, _) => "",
        (true, true) => ", grew",
        (true, false) => ", shrank",
    };
    format!(
        "{}: {} → {}, shift {}{} [{}, {}], q {:.2e}{verdict}",
        metric_label(&m.metric),
        v(m.base_median),
        v(m.target_median),
        if m.shift < 0.0 { "-" } else { "+" },
        v(m.shift.abs()),
        v(m.shift_low),
        v(m.shift_high),
        m.q
    )
}

pub(crate) async fn page_runs(q: Question<'_>, args: PageRunsArgs) -> ToolResult<Answer> {
    let runs = runs_of(&q, &args.dir, false).await?;
    let report: PageRunsReport = runs_report(&runs.reports);
    let chosen = args.list.as_deref().unwrap_or("metrics");
    let mut json = to_value(&report)?;
    let path = keep_one_list(&mut json, RUNS_LISTS, chosen)?;
    match chosen {
        "metrics" => q.json_page_of(json, path, &report.metrics, chosen, distribution_row),
        "insights" => q.json_page_of(json, path, &report.insights, chosen, |i| {
            format!("{}: fails in {} of {} runs", i.insight, i.failing, i.runs)
        }),
        _ => q.json_page_of(json, path, &report.runs, chosen, |r| r.file.clone()),
    }
}

pub(super) async fn page_diff(q: Question<'_>, args: PageDiffArgs) -> ToolResult<Answer> {
    let alpha = args.alpha.unwrap_or(0.05);
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ToolError::BadRequest(format!(
            "alpha must be between 0 and 1, not {alpha}"
        )));
    }
    let base = runs_of(&q, &args.base, true).await?;
    let target = runs_of(&q, &args.target, true).await?;
    for (side, runs) in [("base", &base), ("target", &target)] {
        if let Some((name, _)) = runs
            .reports
            .iter()
            .find(|(_, r)| !jsprof_document::page_runs::is_page_load(r))
        {
            return Err(ToolError::Input(format!(
                "{name} of `{side}` is a trace without a navigation: compare page loads with page loads"
            )));
        }
    }
    // The CLI's defaults for what only the functions' test uses.
    let options = AbOptions {
        alpha,
        ..AbOptions::default()
    };
    let report: PageDiffReport = jsprof_document::page_diff::page_diff(
        &base.reports,
        &target.reports,
        [&base.weights, &target.weights],
        (&group_label(&base.files), &group_label(&target.files)),
        options,
    );
    let chosen = args.list.as_deref().unwrap_or("metrics");
    let mut json = to_value(&report)?;
    let path = keep_one_list(&mut json, DIFF_LISTS, chosen)?;
    match chosen {
        "metrics" => q.json_page_of(json, path, &report.metrics, chosen, shift_row),
        "render_blocking" | "critical_path" | "uncached" => {
            let rows = match chosen {
                "render_blocking" => &report.render_blocking,
                "critical_path" => &report.critical_path,
                _ => &report.uncached,
            };
            q.json_page_of(json, path, rows, chosen, |c| {
                format!("{} {}", c.change, c.url)
            })
        }
        "third_parties" => q.json_page_of(json, path, &report.third_parties, chosen, |e| {
            e.entity.clone()
        }),
        _ => q.json_page_of(json, path, &report.functions, chosen, |f| {
            let pts = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:+.2}"));
            format!(
                "{}: self {} pts, total {} pts",
                f.name,
                pts(f.self_share.shift_points),
                pts(f.total_share.shift_points)
            )
        }),
    }
}
