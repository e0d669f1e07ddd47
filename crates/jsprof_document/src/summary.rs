//! `jsprof summary FILE --json` and the service's `…/summary`: what a CPU input holds — its kind,
//! span, samples and interval, threads, the idle/program/GC shares of the samples — and its top
//! functions, which are `top`'s first rows (a trace's entries, as DevTools' Bottom-up).

use jsprof_analysis::{function_table, summarize, ProfileSummary};
use jsprof_profile::WeightUnit;
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::{CpuInput, ViewSpec, Weighted};
use crate::top::{function_json, By, FunctionJson, TopView};
use crate::{ms, warnings_json, JsonWarning, Result};

/// A thread of the input, as the summary lists it.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "SummaryThreadJson")]
pub struct ThreadJson {
    pub name: String,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    pub samples: usize,
}

/// The whole `summary` document.
#[derive(Serialize, JsonSchema)]
pub struct SummaryReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// The samples' span (time profiles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Bytes sampled (heap profiles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    /// Samples of the thread (allocation samples of a heap profile).
    pub samples: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<f64>,
    pub threads: Vec<ThreadJson>,
    /// Self time of `(idle)`, `(program)` and `(garbage collector)` among the samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_percent: Option<f64>,
    /// Functions in `top` (all rows).
    pub functions: usize,
    /// `top`'s first rows by self.
    pub top_functions: Vec<FunctionJson>,
    /// A page-load trace: its Web Vitals and worst insight.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<crate::page::PageSummaryJson>,
}

/// A summary: the document, and what a table of its top functions needs.
pub struct Summary<'a> {
    pub report: SummaryReport,
    /// The samples' overview.
    pub samples: ProfileSummary,
    /// `top`'s view (its first `limit` rows).
    pub top: TopView,
    pub top_of: Weighted<'a>,
}

/// Summarizes the thread `thread` selects (the default thread without one).
pub fn summary<'a>(input: &'a CpuInput, thread: Option<&str>, limit: usize) -> Result<Summary<'a>> {
    let samples_view = input.weighted(&ViewSpec {
        thread: thread.map(str::to_string),
        samples: true,
        ..ViewSpec::default()
    })?;
    let profile = &*samples_view.profile;
    let t = samples_view.thread();
    let stats = summarize(profile, t, &function_table(profile, t));
    let unit = t.weight_unit();
    let timed = unit == WeightUnit::Nanoseconds;
    let span = stats.end - stats.start;
    let total = if timed { span } else { stats.total_weight };
    let pct = |w: i64| {
        if total > 0 {
            w as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let top_of = input.weighted(&ViewSpec {
        thread: thread.map(str::to_string),
        ..ViewSpec::default()
    })?;
    let all = crate::top::view(&top_of, By::SelfWeight, 0);
    let functions = all.rows.len();
    let top = TopView {
        rows: all.rows.into_iter().take(limit).collect(),
        ..all
    };
    let report = SummaryReport {
        kind: profile.kind.as_str(),
        warnings: warnings_json(&profile.warnings),
        duration_ms: timed.then(|| ms(span)),
        total_bytes: (unit == WeightUnit::Bytes).then_some(total),
        samples: if unit == WeightUnit::Bytes {
            t.allocation_samples().len()
        } else {
            stats.samples
        },
        interval_ms: if timed {
            stats.interval.map(|i| i / crate::NS_PER_MS)
        } else {
            None
        },
        threads: profile
            .threads
            .iter()
            .map(|t| ThreadJson {
                name: t.name().to_string(),
                pid: t.pid(),
                tid: t.tid(),
                samples: t.samples().len(),
            })
            .collect(),
        idle_ms: timed.then(|| ms(stats.meta.idle)),
        program_ms: timed.then(|| ms(stats.meta.program)),
        gc_ms: timed.then(|| ms(stats.meta.gc)),
        idle_percent: timed.then(|| pct(stats.meta.idle)),
        program_percent: timed.then(|| pct(stats.meta.program)),
        gc_percent: timed.then(|| pct(stats.meta.gc)),
        functions,
        top_functions: top
            .rows
            .iter()
            .map(|r| function_json(&top_of.profile, top.unit, r, top.total))
            .collect(),
        page: crate::page::page_summary(input),
    };
    drop(samples_view);
    Ok(Summary {
        report,
        samples: stats,
        top,
        top_of,
    })
}
