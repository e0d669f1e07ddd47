//! `jsprof check FILE --budget budget.toml --json`: each budget's outcome, for CI. The budgets
//! are read and evaluated by the CLI (the only front door that runs them); the document is here
//! with the others so its schema is generated and documented like theirs (`docs/json.md`).

use schemars::JsonSchema;
use serde::Serialize;

use crate::JsonWarning;

/// What a budget measures; serialized as its snake-case name.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    TotalMs,
    SelfMs,
    SharePercent,
    RetainedSize,
    Count,
    Nodes,
    /// A page-load time (LCP, INP, long-task time).
    Ms,
    /// A unitless score (CLS).
    Score,
    /// Bytes transferred.
    Bytes,
}

impl Measure {
    /// Sizes and counts are whole numbers (JSON integers); times and shares are floats.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Measure::RetainedSize | Measure::Count | Measure::Nodes | Measure::Bytes
        )
    }
}

/// A budget's outcome; serialized as `pass`, `fail` or `skipped`.
#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// The budget does not apply to this kind of file.
    Skipped,
}

/// One budget's outcome.
#[derive(Serialize, JsonSchema, Debug)]
pub struct CheckJson {
    /// `function`, `gc`, `class`, `detached_dom`.
    pub budget: &'static str,
    /// What was measured: the function or class name; empty for gc and detached DOM.
    pub subject: String,
    /// `total_ms`, `self_ms`, `share_percent` (floats); `retained_size` (bytes), `count`,
    /// `nodes` (integers).
    pub measure: Measure,
    /// What the input has.
    #[serde(serialize_with = "number")]
    #[schemars(with = "f64")]
    pub value: (f64, Measure),
    /// The budget's limit.
    #[serde(serialize_with = "number")]
    #[schemars(with = "f64")]
    pub limit: (f64, Measure),
    pub status: Status,
    /// Why a budget was skipped or what it could not find.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Sizes and counts as integers, times and shares as floats.
fn number<S: serde::Serializer>(v: &(f64, Measure), s: S) -> Result<S::Ok, S::Error> {
    if v.1.is_integer() {
        s.serialize_u64(v.0.max(0.0).round() as u64)
    } else {
        s.serialize_f64(v.0)
    }
}

/// The whole `check` document.
#[derive(Serialize, JsonSchema)]
pub struct CheckReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// No budget failed (the exit code is 1 otherwise).
    pub passed: bool,
    pub checks: Vec<CheckJson>,
}
