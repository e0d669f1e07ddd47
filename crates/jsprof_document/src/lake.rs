//! The profile lake's answers (`jsprof lake … --json`) as documents.
//!
//! Times are in ms, as in every other document: the lake keeps the engine's integer ns in its
//! Parquet files (so that sums over many profiles are exact), and they become ms here, once, with
//! `TopReport`'s arithmetic. Bytes stay bytes. `lake top` over one profile answers what `jsprof
//! top` answers over its file, so its rows are `top`'s rows ([`FunctionJson`]), built and ordered
//! by the same functions: the same bytes.

use jsprof_analysis::{FunctionKey, FunctionRow};
use jsprof_profile::{Profile, ProfileKind, WeightUnit};
use schemars::JsonSchema;
use serde::Serialize;

use crate::top::{function_json, sorted_rows, By, FunctionJson};
use crate::{WeightsJson, NS_PER_MS};

/// The weight unit of a lake's `weight_unit` column (`ns` or `bytes`).
pub fn weight_unit(unit: &str) -> WeightUnit {
    if unit == "bytes" {
        WeightUnit::Bytes
    } else {
        WeightUnit::Nanoseconds
    }
}

/// A total weight in the document's units: ms for time, bytes as they are.
fn total_of(unit: WeightUnit, total: i64) -> (Option<f64>, Option<i64>) {
    let bytes = unit == WeightUnit::Bytes;
    (
        (!bytes).then(|| total as f64 / NS_PER_MS),
        bytes.then_some(total),
    )
}

/// `jsprof lake add --json`: what one `add` wrote.
///
/// The fields stand in the order this document has always printed them in (alphabetical).
#[derive(Serialize, JsonSchema)]
pub struct LakeAddReport {
    /// Inputs whose content was already in the lake (or earlier in the same add), by source
    /// name: not added again.
    pub duplicates: Vec<String>,
    /// Parquet files written.
    pub files_written: usize,
    /// `"lake-add"`.
    pub kind: &'static str,
    /// Profiles added (a trace adds one per sampled thread).
    pub profiles: usize,
    /// Files of the named directories that are not profiles, passed over.
    pub skipped: usize,
}

impl LakeAddReport {
    pub fn new(
        profiles: usize,
        files_written: usize,
        duplicates: Vec<String>,
        skipped: usize,
    ) -> Self {
        LakeAddReport {
            duplicates,
            files_written,
            kind: "lake-add",
            profiles,
            skipped,
        }
    }
}

/// One profile of the lake, as `lake ls` lists it.
#[derive(Serialize, JsonSchema)]
pub struct LakeProfileJson {
    /// The content-addressed id (a trace's threads each have their own).
    pub profile_id: String,
    /// The format it was read from (`cpuprofile`, `trace`, `heapprofile`, `heapsnapshot`, …).
    pub kind: String,
    /// The file name it was added from.
    pub source_name: String,
    /// The thread of a trace.
    pub thread: Option<String>,
    /// When it started: RFC 3339, UTC.
    pub start_time: Option<String>,
    /// Its duration as DevTools computes it, in ms (the lake's `duration_us` / 1000; printed as
    /// `duration_us` until the lake's documents were typed).
    pub duration_ms: f64,
    pub sample_count: i64,
    /// `ns` (time) or `bytes`.
    pub weight_unit: String,
    pub labels: std::collections::BTreeMap<String, String>,
    /// When it was added: RFC 3339, UTC.
    pub added_at: String,
}

/// `jsprof lake ls --json`: the selected profiles, oldest first.
#[derive(Serialize, JsonSchema)]
pub struct LakeLsReport {
    /// `"lake-ls"`.
    pub kind: &'static str,
    pub profiles: Vec<LakeProfileJson>,
}

impl LakeLsReport {
    pub fn new(profiles: Vec<LakeProfileJson>) -> Self {
        LakeLsReport {
            kind: "lake-ls",
            profiles,
        }
    }
}

/// One function of a lake's table: its weights summed over the selected profiles (ns or bytes).
pub struct LakeFunction<'a> {
    pub name: &'a str,
    pub url: &'a str,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub self_weight: i64,
    pub total_weight: i64,
}

/// `lake top`'s table as the engine's function table (`top::TopView`'s rows): the functions on
/// a string and frame table of their own, in `jsprof top`'s order, at most `limit` (0 = all).
pub struct LakeTopView {
    /// Holds the functions' names and locations (no threads).
    pub profile: Profile,
    pub unit: WeightUnit,
    /// The selection's total weight (percentages are of it).
    pub total: i64,
    pub profiles: i64,
    pub rows: Vec<FunctionRow>,
}

/// The view of `functions`: `total` is the selection's weight, `profiles` how many it has.
pub fn top_view<'a>(
    unit: WeightUnit,
    total: i64,
    profiles: i64,
    functions: impl IntoIterator<Item = LakeFunction<'a>>,
    by: By,
    limit: usize,
) -> LakeTopView {
    let mut profile = Profile::new(if unit == WeightUnit::Bytes {
        ProfileKind::HeapProfile
    } else {
        ProfileKind::CpuProfile
    });
    let rows = functions
        .into_iter()
        .map(|f| {
            let frame = profile.intern_frame(f.name, f.url, f.line, f.column, "");
            FunctionRow {
                key: FunctionKey::of(&profile, frame),
                frame,
                self_weight: f.self_weight,
                total_weight: f.total_weight,
                samples: 0,
            }
        })
        .collect();
    let mut rows = sorted_rows(&profile, rows, by);
    if limit > 0 {
        rows.truncate(limit);
    }
    LakeTopView {
        profile,
        unit,
        total,
        profiles,
        rows,
    }
}

/// `jsprof lake top --json`: the function table of the selected profiles, each function's self
/// and total summed over them (in ms since this document's first typed version; it spoke ns
/// before, as `self_ns`, `total_ns`).
#[derive(Serialize, JsonSchema)]
pub struct LakeTopReport {
    /// `"lake-top"`.
    pub kind: &'static str,
    /// The weights added up, as `--unit` names them: `ns` (time, in the `_ms` fields) or
    /// `bytes`.
    pub unit: String,
    /// How many profiles were added up.
    pub profiles: i64,
    /// The selection's total time, which percentages are of (`TopReport`'s `duration_ms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The selection's total bytes, which percentages are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    /// `jsprof top`'s rows, in its order: over one profile, the same bytes as `jsprof top
    /// --json` over its file.
    pub functions: Vec<FunctionJson>,
}

/// The document of a view; `unit` is the weight unit's name (`ns` or `bytes`).
pub fn top_report(view: &LakeTopView, unit: &str) -> LakeTopReport {
    let (duration_ms, total_bytes) = total_of(view.unit, view.total);
    LakeTopReport {
        kind: "lake-top",
        unit: unit.to_string(),
        profiles: view.profiles,
        duration_ms,
        total_bytes,
        functions: view
            .rows
            .iter()
            .map(|r| function_json(&view.profile, view.unit, r, view.total))
            .collect(),
    }
}

/// One value of `lake trend`: the function's share of the profiles with that value (in ms and
/// `WeightsJson`'s fields since the lake's documents were typed; before, `total`, `self_weight`
/// and `total_weight` in ns).
#[derive(Serialize, JsonSchema)]
pub struct LakeTrendPoint {
    /// The label's value (`null` for profiles without the label), or the day.
    pub value: Option<String>,
    pub profiles: i64,
    /// The total time of the value's profiles (what percentages are of).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_ms: Option<f64>,
    /// The total bytes of the value's profiles (what percentages are of).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_bytes: Option<i64>,
    /// The function's self and total there.
    #[serde(flatten)]
    pub weights: WeightsJson,
}

impl LakeTrendPoint {
    /// A point from the lake's sums: the value's `total`, the function's `self_weight` and
    /// `total_weight` in it.
    pub fn new(
        unit: WeightUnit,
        value: Option<String>,
        profiles: i64,
        total: i64,
        self_weight: i64,
        total_weight: i64,
    ) -> Self {
        let (weight_ms, weight_bytes) = total_of(unit, total);
        LakeTrendPoint {
            value,
            profiles,
            weight_ms,
            weight_bytes,
            weights: WeightsJson::new(unit, self_weight, total_weight, total),
        }
    }
}

/// `jsprof lake trend FUNCTION --by LABEL --json`: how one function's share moves across a
/// label's values (versions in natural order) or days.
#[derive(Serialize, JsonSchema)]
pub struct LakeTrendReport {
    /// `"lake-trend"`.
    pub kind: &'static str,
    /// The function's name.
    pub function: String,
    /// The label (or `day`).
    pub by: String,
    /// The weights added up: `ns` (time, in the `_ms` fields) or `bytes`.
    pub unit: String,
    pub points: Vec<LakeTrendPoint>,
}

/// One value of `lake trend --metric`: the page-load metric's distribution over the value's
/// page-load traces, summarised as `jsprof insights DIR` summarises a folder of runs.
#[derive(Serialize, JsonSchema)]
pub struct LakePageTrendPoint {
    /// The label's value (`null` for traces without the label), or the day.
    pub value: Option<String>,
    /// `runs` (traces with the metric), `median`, `p75`, `min`, `max`, `iqr`.
    #[serde(flatten)]
    pub distribution: crate::page_runs::MetricRunsJson,
}

/// `jsprof lake trend LAKE --metric METRIC --by LABEL --json`: how a page-load metric (`lcp_ms`,
/// `fcp_ms`, `cls`, …, as `jsprof insights DIR` names them) moves across a label's values
/// (versions in natural order) or days.
#[derive(Serialize, JsonSchema)]
pub struct LakePageTrendReport {
    /// `"lake-page-trend"`.
    pub kind: &'static str,
    pub metric: &'static str,
    /// The label (or `day`).
    pub by: String,
    pub points: Vec<LakePageTrendPoint>,
}

/// One side of `lake diff --page-loads`: its `--where` terms and its page-load traces.
#[derive(Serialize, JsonSchema)]
pub struct LakePageSideJson {
    /// The terms as given.
    pub selection: String,
    /// Page-load traces of the side (those with stored metrics).
    pub runs: usize,
}

/// `jsprof lake diff LAKE --page-loads --base WHERE --target WHERE --json`: two selections'
/// page loads compared metric by metric as `jsprof diff --base A/ --target B/` compares two
/// folders of runs (the same function over the values the lake stored for each run: its
/// `metrics` and `long_tasks` equal that document's on the same runs). The insights' changes
/// (render-blocking requests, third parties) need the traces themselves, which the lake does
/// not keep.
#[derive(Serialize, JsonSchema)]
pub struct LakePageDiffReport {
    /// `"lake-page-diff"`.
    pub kind: &'static str,
    pub base: LakePageSideJson,
    pub target: LakePageSideJson,
    /// A change is significant when its Benjamini-Hochberg q-value is below this.
    pub alpha: f64,
    /// The intervals' confidence level (0.95).
    pub level: f64,
    /// Per metric both sides have, in `insights DIR`'s order (but `long_tasks`).
    pub metrics: Vec<crate::page_diff::MetricShiftJson>,
    /// The long tasks' count per run; `null` for page loads added before the lake stored it.
    pub long_tasks: Option<crate::page_diff::MetricShiftJson>,
}

impl LakePageDiffReport {
    /// The two sides' runs (each run's stored metric values) compared.
    pub fn new(
        sides: [(String, Vec<std::collections::BTreeMap<String, f64>>); 2],
        alpha: f64,
    ) -> Self {
        let [(base_terms, base), (target_terms, target)] = sides;
        let mut metrics = crate::page_diff::metric_shifts(&base, &target, alpha);
        let long_tasks = metrics
            .iter()
            .position(|m| m.metric == "long_tasks")
            .map(|at| metrics.remove(at));
        LakePageDiffReport {
            kind: "lake-page-diff",
            base: LakePageSideJson {
                selection: base_terms,
                runs: base.len(),
            },
            target: LakePageSideJson {
                selection: target_terms,
                runs: target.len(),
            },
            alpha,
            level: crate::page_diff::LEVEL,
            metrics,
            long_tasks,
        }
    }
}

/// `jsprof lake sql QUERY --json`: one object per row; integers and floats as numbers,
/// everything else (strings, times, lists, maps) as Arrow displays it.
#[derive(Serialize, JsonSchema)]
pub struct LakeSqlReport {
    /// `"lake-sql"`.
    pub kind: &'static str,
    pub rows: Vec<serde_json::Value>,
}

impl LakeSqlReport {
    pub fn new(rows: Vec<serde_json::Value>) -> Self {
        LakeSqlReport {
            kind: "lake-sql",
            rows,
        }
    }
}

/// What `lake compact` did.
#[derive(Serialize, JsonSchema)]
pub struct LakeCompaction {
    pub files_before: usize,
    pub files_after: usize,
    pub rows_before: u64,
    pub rows_after: u64,
    /// Files skipped as unreadable (left in place).
    pub skipped: Vec<String>,
}

/// `jsprof lake compact LAKE --json`.
#[derive(Serialize, JsonSchema)]
pub struct LakeCompactReport {
    /// `"lake-compact"`.
    pub kind: &'static str,
    pub outcome: LakeCompaction,
}

impl LakeCompactReport {
    pub fn new(outcome: LakeCompaction) -> Self {
        LakeCompactReport {
            kind: "lake-compact",
            outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, self_weight: i64, total_weight: i64) -> LakeFunction<'_> {
        LakeFunction {
            name,
            url: "a.js",
            line: Some(1),
            column: None,
            self_weight,
            total_weight,
        }
    }

    #[test]
    fn top_is_in_jsprof_tops_order_and_speaks_ms() {
        let functions = [
            f("b", 2_000_000, 5_000_000),
            f("a", 2_000_000, 5_000_000),
            f("c", 1, 9),
        ];
        let view = top_view(
            WeightUnit::Nanoseconds,
            10_000_000,
            2,
            functions,
            By::SelfWeight,
            2,
        );
        let doc = serde_json::to_value(top_report(&view, "ns")).unwrap();
        assert_eq!(doc["duration_ms"], 10.0);
        let names: Vec<&str> = doc["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "b"], "ties by name, then the limit");
        assert_eq!(doc["functions"][0]["self_ms"], 2.0);
        assert_eq!(doc["functions"][0]["total_percent"], 50.0);
        let view = top_view(WeightUnit::Nanoseconds, 10, 1, [f("c", 1, 9)], By::Total, 0);
        assert_eq!(view.rows[0].total_weight, 9);
    }
}
