//! `jsprof top --json` and the service's `…/top`: the function table (DevTools' Bottom-up roots).

use jsprof_analysis::{function_table, FunctionKey, FunctionRow};
use jsprof_profile::{Profile, WeightUnit};
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::{CpuInput, WeightSource, Weighted};
use crate::{warnings_json, JsonWarning, Result, WeightsJson, NS_PER_MS};

pub use crate::query::{By, TopQuery};

/// One function as `top` and `summary` print it.
#[derive(Serialize, JsonSchema)]
pub struct FunctionJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(flatten)]
    pub weights: WeightsJson,
}

/// The whole `top` document.
#[derive(Serialize, JsonSchema)]
pub struct TopReport {
    pub kind: &'static str,
    /// `"trace-entries"` when the numbers are a trace thread's entries (the Performance panel's
    /// Bottom-up); absent when they are samples.
    #[serde(skip_serializing_if = "is_samples")]
    pub source: WeightSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    pub warnings: Vec<JsonWarning>,
    pub functions: Vec<FunctionJson>,
}

/// The rows of the table with what percentages refer to.
pub struct TopView {
    pub unit: WeightUnit,
    /// The weight percentages are taken of.
    pub total: i64,
    pub rows: Vec<FunctionRow>,
}

/// Rows sorted for display: by the chosen weight, then the other, then name (deterministic).
pub fn sorted_rows(profile: &Profile, mut rows: Vec<FunctionRow>, by: By) -> Vec<FunctionRow> {
    rows.sort_by(|a, b| {
        let (ka, kb) = match by {
            By::SelfWeight => (
                (a.self_weight, a.total_weight),
                (b.self_weight, b.total_weight),
            ),
            By::Total => (
                (a.total_weight, a.self_weight),
                (b.total_weight, b.self_weight),
            ),
        };
        kb.cmp(&ka).then_with(|| a.key.cmp_in(&b.key, profile))
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
    weighted_function(
        profile,
        unit,
        &row.key,
        [row.self_weight, row.total_weight],
        total,
    )
}

/// A function with its self and total weight (`[self, total]`), as a row of `top` and a node of
/// `tree` show it.
pub(crate) fn weighted_function(
    profile: &Profile,
    unit: WeightUnit,
    key: &FunctionKey,
    [self_weight, total_weight]: [i64; 2],
    total: i64,
) -> FunctionJson {
    FunctionJson {
        name: profile.strings.get(key.name).to_string(),
        url: profile.strings.get(key.url).to_string(),
        line: key.line,
        column: key.column,
        weights: WeightsJson::new(unit, self_weight, total_weight, total),
    }
}

pub(crate) fn is_samples(source: &WeightSource) -> bool {
    *source == WeightSource::Samples
}

/// The function table of the weighted thread, sorted, at most `limit` rows (0 = all).
pub fn view(weighted: &Weighted, by: By, limit: usize) -> TopView {
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    let table = function_table(profile, thread);
    let unit = thread.weight_unit();
    let total = thread.percent_base();
    let mut rows = sorted_rows(profile, table.rows, by);
    if limit > 0 {
        rows.truncate(limit);
    }
    TopView { unit, total, rows }
}

/// `jsprof top --json`'s document for `query`: the one answer every front door gives.
pub fn answer(input: &CpuInput, query: &TopQuery) -> Result<TopReport> {
    let weighted = input.weighted(&query.view)?;
    let view = view(&weighted, query.by, query.limit);
    Ok(report(&weighted, &view))
}

/// The JSON document of a view.
pub fn report(weighted: &Weighted, view: &TopView) -> TopReport {
    let profile = &*weighted.profile;
    let unit = view.unit;
    TopReport {
        kind: profile.kind.as_str(),
        source: weighted.source,
        duration_ms: (unit != WeightUnit::Bytes).then(|| view.total as f64 / NS_PER_MS),
        total_bytes: (unit == WeightUnit::Bytes).then_some(view.total),
        warnings: warnings_json(&profile.warnings),
        functions: view
            .rows
            .iter()
            .map(|r| function_json(profile, unit, r, view.total))
            .collect(),
    }
}
