//! `jsprof timings TRACE --json` ([`TimingsReport`]): the user timings, marks and measures and
//! their `console.timeStamp`/`console.time` twins.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::timings::{self, Mark, Span};
use jsprof_pageload::units::{ns_to_us, us_to_ms};

use crate::load::CpuInput;
use crate::page_common::Clock;
use crate::{warnings_json, JsonWarning, ReportError, Result};

/// A mark (or `console.timeStamp`).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MarkJson {
    pub name: String,
    pub start_ms: f64,
}

/// A measure (or `console.time` span).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MeasureJson {
    pub name: String,
    pub start_ms: f64,
    pub dur_ms: f64,
}

/// `jsprof timings TRACE --json`: user timings.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct TimingsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub marks: Vec<MarkJson>,
    pub measures: Vec<MeasureJson>,
    pub console_timings: Vec<MeasureJson>,
    pub console_timestamps: Vec<MarkJson>,
}

/// The user-timings document of a trace.
pub fn timings_report(input: &CpuInput) -> Result<TimingsReport> {
    let trace = input.trace().ok_or_else(|| {
        ReportError::Input(format!(
            "{}: not a Chrome trace; user timings are read from a Performance-panel trace",
            input.name
        ))
    })?;
    let t = timings::user_timings(&trace.page);
    let c = Clock::new(ns_to_us(trace.origin()));
    let mark = |m: &Mark| MarkJson {
        name: m.name.clone(),
        start_ms: c.ts(m.ts),
    };
    let span = |s: &Span| MeasureJson {
        name: s.name.clone(),
        start_ms: c.ts(s.start),
        dur_ms: us_to_ms(s.end - s.start),
    };
    let mut warnings = warnings_json(input.warnings());
    if t.unmatched > 0 {
        warnings.push(JsonWarning {
            at: "traceEvents".to_string(),
            message: format!(
                "{} measure or console.time halves without their partner were left out",
                t.unmatched
            ),
        });
    }
    Ok(TimingsReport {
        kind: input.profile().kind.as_str(),
        warnings,
        marks: t.marks.iter().map(mark).collect(),
        measures: t.measures.iter().map(span).collect(),
        console_timings: t.console_timings.iter().map(span).collect(),
        console_timestamps: t.timestamps.iter().map(mark).collect(),
    })
}
