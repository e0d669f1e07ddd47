//! `jsprof top --json` and the service's `…/top`: the function table (DevTools' Bottom-up roots).

use jsprof_analysis::{function_table, FunctionRow, TimeRange};
use jsprof_profile::{Profile, WeightUnit};
use serde::Serialize;

use crate::{warnings_json, JsonWarning, ReportError, Result, WeightsJson, NS_PER_MS};

/// The order of the rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum By {
    #[default]
    SelfWeight,
    Total,
}

/// One function as `top` and `summary` print it.
#[derive(Serialize)]
pub struct FunctionJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(flatten)]
    pub weights: WeightsJson,
}

/// The whole `top` document.
#[derive(Serialize)]
pub struct TopReport {
    pub kind: &'static str,
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
        kb.cmp(&ka)
            .then_with(|| {
                profile
                    .strings
                    .get(a.key.name)
                    .cmp(profile.strings.get(b.key.name))
            })
            .then_with(|| {
                profile
                    .strings
                    .get(a.key.url)
                    .cmp(profile.strings.get(b.key.url))
            })
            .then_with(|| a.key.line.cmp(&b.key.line))
            .then_with(|| a.key.column.cmp(&b.key.column))
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
    FunctionJson {
        name: profile.strings.get(row.key.name).to_string(),
        url: profile.strings.get(row.key.url).to_string(),
        line: row.key.line,
        column: row.key.column,
        weights: WeightsJson::new(unit, row.self_weight, row.total_weight, total),
    }
}

/// The profile clipped to `range` (unchanged without one), 0 ms being its first sample.
pub fn apply_range(name: &str, profile: Profile, range: Option<TimeRange>) -> Result<Profile> {
    match range {
        None => Ok(profile),
        Some(r) => {
            let origin = jsprof_analysis::time_origin(&profile);
            jsprof_analysis::clip(&profile, r, origin)
                .map_err(|e| ReportError::Usage(format!("{name}: {e}")))
        }
    }
}

/// The thread a view shows: `spec` (a timeline id, tid or unique name) or the default.
pub fn thread(name: &str, profile: &Profile, spec: Option<&str>) -> Result<usize> {
    if profile.threads.is_empty() {
        return Err(ReportError::Input(format!(
            "{name}: the profile has no threads"
        )));
    }
    crate::thread_select::select_profile_thread(name, profile, spec)
}

/// The function table of `profile.threads[thread]`, sorted, at most `limit` rows (0 = all).
pub fn view(profile: &Profile, thread: usize, by: By, limit: usize) -> TopView {
    let thread = &profile.threads[thread];
    let table = function_table(profile, thread);
    let unit = thread.weight_unit();
    let total = thread.percent_base();
    let mut rows = sorted_rows(profile, table.rows, by);
    if limit > 0 {
        rows.truncate(limit);
    }
    TopView { unit, total, rows }
}

/// The JSON document of a view.
pub fn report(profile: &Profile, view: &TopView) -> TopReport {
    let unit = view.unit;
    TopReport {
        kind: profile.kind.as_str(),
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
