//! `jsprof diff BEFORE AFTER --json`, the UI's Diff tab and the service's diff: what changed
//! between two weighted views, function by function (`jsprof_analysis::diff_profiles`), as one
//! document. The UI's answer is the same document with the differential flame graph's SVG added.

use jsprof_analysis::{DiffKey, DiffOptions, DiffRow, ProfileDiff};
use jsprof_profile::WeightUnit;
use serde::Serialize;

use crate::load::Weighted;
use crate::{JsonWarning, ReportError, Result};

/// A weight in the document's unit: `*_ms` for time, `*_bytes` for a heap profile.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
#[serde(untagged)]
pub enum Amount {
    Ms(f64),
    Bytes(i64),
}

/// One function's change. Field names carry the unit: `before_self_ms` (or `_bytes`) and so on.
#[derive(Serialize, Debug)]
pub struct DiffFunctionJson {
    pub name: String,
    pub url: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(flatten)]
    pub amounts: Amounts,
    /// The change of total as a percentage of BEFORE's total; `null` for a new function.
    pub delta_total_percent: Option<f64>,
}

/// The six weights of a row under unit-named keys.
#[derive(Debug)]
pub struct Amounts {
    unit: &'static str,
    values: [(&'static str, Amount); 6],
}

impl Serialize for Amounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.values.len()))?;
        for (field, v) in &self.values {
            m.serialize_entry(&format!("{field}_{}", self.unit), v)?;
        }
        m.end()
    }
}

/// Rows under the noise floor: how many, and the sum of their self changes.
#[derive(Debug)]
pub struct BelowNoiseFloor {
    pub count: usize,
    unit: &'static str,
    pub delta_self: Amount,
}

impl Serialize for BelowNoiseFloor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("count", &self.count)?;
        m.serialize_entry(&format!("delta_self_{}", self.unit), &self.delta_self)?;
        m.end()
    }
}

/// The whole diff document.
#[derive(Serialize, Debug)]
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
    #[serde(flatten)]
    totals: Totals,
    pub below_noise_floor: BelowNoiseFloor,
    /// Above the noise floor, largest change of self first.
    pub functions: Vec<DiffFunctionJson>,
    /// The differential flame graph (the UI's answer only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
}

#[derive(Debug)]
struct Totals {
    unit: &'static str,
    values: [(&'static str, Amount); 3],
}

impl Serialize for Totals {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        for (field, v) in &self.values {
            m.serialize_entry(&format!("{field}_{}", self.unit), v)?;
        }
        m.end()
    }
}

/// A side of a comparison: a weighted view and how the input is named.
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
            Amount::Bytes(w.round() as i64)
        } else {
            Amount::Ms(w / 1e6)
        }
    };
    let row = |r: &DiffRow| DiffFunctionJson {
        name: r.name.clone(),
        url: r.url.clone(),
        line: r.line,
        column: r.column,
        amounts: Amounts {
            unit,
            values: [
                ("before_self", amount(r.before_self)),
                ("after_self", amount(r.after_self)),
                ("delta_self", amount(r.delta_self())),
                ("before_total", amount(r.before_total)),
                ("after_total", amount(r.after_total)),
                ("delta_total", amount(r.delta_total())),
            ],
        },
        delta_total_percent: r.delta_total_percent(),
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
        totals: Totals {
            unit,
            values: [
                ("before_total", amount(d.before_total)),
                ("after_total", amount(d.after_total)),
                ("noise_floor", amount(d.noise_floor)),
            ],
        },
        below_noise_floor: BelowNoiseFloor {
            count: d.hidden,
            unit,
            delta_self: amount(d.hidden_delta_self),
        },
        functions: d.rows.iter().map(row).collect(),
        svg: None,
    };
    Ok(Diff { diff: d, report })
}
