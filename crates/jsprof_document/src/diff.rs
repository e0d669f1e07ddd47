//! `jsprof diff BEFORE AFTER --json`, the UI's Diff tab and the service's diff: what changed
//! between two weighted views, function by function (`jsprof_analysis::diff_profiles`), as one
//! document. The UI's answer is the same document with the differential flame graph's SVG added.

use jsprof_analysis::{DiffKey, DiffOptions, DiffRow, ProfileDiff};
use jsprof_profile::WeightUnit;
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::{CpuInput, ViewSpec, Weighted};
use crate::{JsonWarning, ReportError, Result};

/// A weight in milliseconds (time) or bytes (a heap profile): the other is left out.
#[derive(Serialize, JsonSchema, Clone, Copy, Debug, Default, PartialEq)]
pub struct Amount {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<i64>,
}

/// One function's change: before/after/delta of self and total in the document's unit (`*_ms`,
/// or `*_bytes` for heap profiles; the other unit's fields are left out).
#[derive(Serialize, JsonSchema, Debug)]
pub struct DiffFunctionJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_total_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_total_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_total_bytes: Option<i64>,
    /// The change of total as a percentage of BEFORE's total; `null` for a new function.
    pub delta_total_percent: Option<f64>,
}

/// Rows under the noise floor: how many, and the sum of their self changes.
#[derive(Serialize, JsonSchema, Debug)]
pub struct BelowNoiseFloor {
    pub count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_self_bytes: Option<i64>,
}

/// `jsprof diff BEFORE AFTER --json`: what changed, function by function.
#[derive(Serialize, JsonSchema, Debug)]
pub struct DiffReport {
    /// BEFORE's kind (`cpuprofile`, `trace`, …) and AFTER's.
    pub kind: &'static str,
    pub after_kind: &'static str,
    /// `ms` or `bytes`: the unit of every `*_ms` / `*_bytes` field.
    pub unit: &'static str,
    /// How the inputs are named.
    pub before: String,
    pub after: String,
    pub warnings: Vec<JsonWarning>,
    /// `name-url` or `function`: how functions are matched.
    pub key: &'static str,
    pub normalized: bool,
    /// What AFTER was multiplied by (1 without normalisation).
    pub scale: f64,
    /// Weight on some function (gaps left out), before and (scaled) after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_total_ms: Option<f64>,
    /// Changes smaller than this are not listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise_floor_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_total_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_total_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise_floor_bytes: Option<i64>,
    pub below_noise_floor: BelowNoiseFloor,
    /// Above the noise floor, largest change of self first.
    pub functions: Vec<DiffFunctionJson>,
    /// The differential flame graph (the UI's answer only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
}

/// A side of a comparison: a weighted view and how the input is named.
/// The view a side of a comparison is weighed with: `spec`, except that an input with one
/// thread (one timeline of a trace) uses it whatever `spec.thread` says, so that a profile and a
/// trace of the same program compare without naming a thread each. Every door's diff uses this.
pub fn side_spec(input: &CpuInput, spec: &ViewSpec) -> ViewSpec {
    let mut spec = spec.clone();
    let threads = if input.is_trace() && !spec.samples {
        input.timelines().len()
    } else {
        input.profile().threads.len()
    };
    if threads <= 1 {
        spec.thread = None;
    }
    spec
}

pub struct Side<'a> {
    pub name: &'a str,
    pub view: &'a Weighted<'a>,
}

/// The diff of two weighted views, and its document.
pub struct Diff {
    pub diff: ProfileDiff,
    pub report: DiffReport,
}

fn key_name(key: DiffKey) -> &'static str {
    match key {
        DiffKey::NameUrl => "name-url",
        DiffKey::Function => "function",
    }
}

/// Compares `before` with `after`.
pub fn diff(before: &Side, after: &Side, options: DiffOptions) -> Result<Diff> {
    let pb = (&*before.view.profile, before.view.thread());
    let pa = (&*after.view.profile, after.view.thread());
    let d = jsprof_analysis::diff_profiles(pb, pa, options)
        .map_err(|e| ReportError::Input(format!("{} and {}: {e}", before.name, after.name)))?;
    let bytes = pb.1.weight_unit() == WeightUnit::Bytes;
    let unit = if bytes { "bytes" } else { "ms" };
    let amount = |w: f64| {
        if bytes {
            Amount {
                ms: None,
                bytes: Some(w.round() as i64),
            }
        } else {
            Amount {
                ms: Some(w / 1e6),
                bytes: None,
            }
        }
    };
    let row = |r: &DiffRow| {
        let [bs, as_, ds, bt, at, dt] = [
            r.before_self,
            r.after_self,
            r.delta_self(),
            r.before_total,
            r.after_total,
            r.delta_total(),
        ]
        .map(amount);
        DiffFunctionJson {
            name: r.name.clone(),
            url: r.url.clone(),
            line: r.line,
            column: r.column,
            before_self_ms: bs.ms,
            after_self_ms: as_.ms,
            delta_self_ms: ds.ms,
            before_total_ms: bt.ms,
            after_total_ms: at.ms,
            delta_total_ms: dt.ms,
            before_self_bytes: bs.bytes,
            after_self_bytes: as_.bytes,
            delta_self_bytes: ds.bytes,
            before_total_bytes: bt.bytes,
            after_total_bytes: at.bytes,
            delta_total_bytes: dt.bytes,
            delta_total_percent: r.delta_total_percent(),
        }
    };
    let warnings = [before, after]
        .iter()
        .flat_map(|side| {
            side.view.profile.warnings.iter().map(|w| JsonWarning {
                at: w.at.clone(),
                message: format!("{}: {}", side.name, w.message),
            })
        })
        .collect();
    let report = DiffReport {
        kind: pb.0.kind.as_str(),
        after_kind: pa.0.kind.as_str(),
        unit,
        before: before.name.to_string(),
        after: after.name.to_string(),
        warnings,
        key: key_name(options.key),
        normalized: options.normalize,
        scale: d.scale,
        before_total_ms: amount(d.before_total).ms,
        after_total_ms: amount(d.after_total).ms,
        noise_floor_ms: amount(d.noise_floor).ms,
        before_total_bytes: amount(d.before_total).bytes,
        after_total_bytes: amount(d.after_total).bytes,
        noise_floor_bytes: amount(d.noise_floor).bytes,
        below_noise_floor: BelowNoiseFloor {
            count: d.hidden,
            delta_self_ms: amount(d.hidden_delta_self).ms,
            delta_self_bytes: amount(d.hidden_delta_self).bytes,
        },
        functions: d.rows.iter().map(row).collect(),
        svg: None,
    };
    Ok(Diff { diff: d, report })
}
