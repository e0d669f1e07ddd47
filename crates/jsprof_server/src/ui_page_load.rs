//! The page-load lab in the UI: runs of one page load as a distribution (`GET
//! /api/ui/page-runs?runs=S/A,…`, `jsprof insights DIR --json`'s `PageRunsReport`) and two
//! builds' runs compared (`GET /api/ui/page-diff?base=S/A,…&target=S/A,…`, `jsprof diff --base
//! A/ --target B/ --json`'s `PageDiffReport`). Each run is a trace artifact read as the CLI reads
//! a file of the folder (its insights document, its main thread's function weights), one at a
//! time, and the documents are the document layer's own (`page_runs::runs_report`,
//! `page_diff::page_diff`): no statistic is computed here or in the page.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::RawQuery;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use jsprof_analysis::abtest::{AbOptions, ProfileWeights};
use jsprof_document::filters::FilterSpec;
use jsprof_document::insights::InsightsReport;

use crate::api::{load_artifact, refuse};
use crate::cache::View;
use crate::catalogue::ArtifactKind;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use crate::state::AppState;
use crate::ui::{alpha_param, artifact_list, json_ok};

type Shared = State<Arc<AppState>>;

/// The routes of the page-load lab (the guard in `api.rs` covers them too).
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/ui/page-runs", get(page_runs))
        .route("/api/ui/page-diff", get(page_diff))
}

/// The most runs one list may name: a lab's folder is tens of runs, and each is read in turn.
pub(crate) const MAX_RUNS: usize = 500;

/// A side's runs, in the order given: each run's name (its artifact's, as `diff --base DIR`
/// names a run by its file) and insights document, and, for a comparison, its main thread's
/// function weights in the same order.
#[derive(Default)]
struct Runs {
    reports: Vec<(String, InsightsReport)>,
    weights: Vec<ProfileWeights>,
}

/// The trace artifacts list parameter `k` names (`runs`, `base`, `target`), every one checked
/// to be a trace before any is read.
fn traces(state: &AppState, p: &Params, k: &str) -> ApiResult<Vec<(String, String)>> {
    let given = artifact_list(p, k)?;
    if given.is_empty() {
        return Err(ApiError::bad_request(format!(
            "`{k}` is required: {k}=SESSION_ID/ARTIFACT_ID,… (the trace artifacts of a page load's runs)"
        )));
    }
    if given.len() > MAX_RUNS {
        return Err(ApiError::bad_request(format!(
            "`{k}` names {} runs: at most {MAX_RUNS}",
            given.len()
        )));
    }
    for (s, a) in &given {
        let (_, row) = crate::api::artifact(state, s, a)?;
        if row.kind != ArtifactKind::Trace {
            return Err(ApiError::bad_request(format!(
                "`{k}`: {s}/{a} is a {}, not a trace (a run of a page load is a Chrome trace)",
                row.format
            )));
        }
    }
    Ok(given)
}

/// Reads each run of `given` (one at a time: only its documents are kept): its insights
/// document, and its function weights when `weigh`. A run's error names it.
async fn read_runs(state: &AppState, given: &[(String, String)], weigh: bool) -> ApiResult<Runs> {
    let mut runs = Runs::default();
    let unfiltered = FilterSpec::default();
    for (s, a) in given {
        let cpu = (View::Cpu, &unfiltered);
        let (loaded, name) = load_artifact(state, s, a, cpu, refuse::not_cpu).await?;
        let (report, weights) = crate::work::run(move || {
            let named = |e: ApiError| ApiError {
                message: format!("run {name}: {}", e.message),
                ..e
            };
            let input = loaded.cpu()?;
            let report =
                jsprof_document::page::insights_report(input).map_err(|e| named(e.into()))?;
            let weights = weigh
                .then(|| jsprof_document::page_diff::run_weights(input))
                .transpose()
                .map_err(|e| named(e.into()))?;
            Ok(((name, report), weights))
        })
        .await?;
        runs.reports.push(report);
        runs.weights.extend(weights);
    }
    Ok(runs)
}

/// `…/page-runs?runs=S/A,S/A,…`: the runs of one page load, as `jsprof insights DIR --json`.
async fn page_runs(State(state): Shared, RawQuery(q): RawQuery) -> ApiResult<Response> {
    let p = Params::parse(q, &["runs"])?;
    let given = traces(&state, &p, "runs")?;
    let runs = read_runs(&state, &given, false).await?;
    Ok(json_ok(&jsprof_document::page_runs::runs_report(
        &runs.reports,
    )))
}

/// The runs side `k` (`base`, `target`) names, every one a page load (a trace with a
/// navigation), with their function weights.
async fn page_loads(state: &AppState, p: &Params, k: &str) -> ApiResult<Runs> {
    let given = traces(state, p, k)?;
    let runs = read_runs(state, &given, true).await?;
    let no_navigation = runs
        .reports
        .iter()
        .position(|(_, r)| !jsprof_document::page_runs::is_page_load(r));
    if let Some(i) = no_navigation {
        let ((s, a), name) = (&given[i], &runs.reports[i].0);
        return Err(ApiError::bad_request(format!(
            "`{k}`: {name} ({s}/{a}) is a trace without a navigation: compare page loads with page loads"
        )));
    }
    Ok(runs)
}

/// How a comparison names a side: its runs' names as the CLI names a group of files.
fn side_label(runs: &Runs) -> String {
    let names: Vec<PathBuf> = runs.reports.iter().map(|(n, _)| n.into()).collect();
    jsprof_document::abtest::group_label(&names)
}

/// `…/page-diff?base=S/A,…&target=S/A,…&alpha=0.05`: two builds' runs compared, as `jsprof
/// diff --base A/ --target B/ --json` with the CLI's defaults (a noise floor of 0.5 points, a
/// function tested when in 3 runs).
async fn page_diff(State(state): Shared, RawQuery(q): RawQuery) -> ApiResult<Response> {
    let p = Params::parse(q, &["base", "target", "alpha"])?;
    let options = AbOptions {
        alpha: alpha_param(&p)?,
        ..AbOptions::default()
    };
    // Both lists checked before any run is read.
    traces(&state, &p, "target")?;
    let base = page_loads(&state, &p, "base").await?;
    let target = page_loads(&state, &p, "target").await?;
    let report = crate::work::run(move || {
        Ok(jsprof_document::page_diff::page_diff(
            &base.reports,
            &target.reports,
            [&base.weights, &target.weights],
            (&side_label(&base), &side_label(&target)),
            options,
        ))
    })
    .await?;
    Ok(json_ok(&report))
}
