//! Every answer jsprof gives, in one place, so that `jsprof … --json`, the profiling service
//! (`jsprof serve`), the HTML report and the browser UI answer byte for byte the same for the
//! same file and question (pprof's one report engine; ripgrep's one home per JSON schema):
//!
//! - the load pipeline every front door reads a CPU input through ([`load`]: read, detect, model,
//!   DevTools' timing, [`source_maps`], [`filters`] — one `FilterSpec` for CLI flags and query
//!   parameters —, then a view's thread and range);
//! - the typed documents of every view: [`summary`], [`threads`], [`top`], [`tree`], [`events`],
//!   [`diff`], [`heap`] (Summary, node, retainers, Comparison, leaks), [`heap_edges`],
//!   [`heap_changes`], [`heap_class`], [`heap_contexts`], [`heap_strings`], [`heap_advisors`], [`heap_redact`], [`heap_allocations`], the UI's
//!   [`chart`] and [`heap_pages`] documents, and a page load's: [`insights`] (with
//!   [`network_tree`], [`page_checks`] and [`page_scripts`]), [`network`], [`timings`] and
//!   [`page_summary`], from `jsprof_pageload`'s numbers ([`page`] keeps their old paths);
//! - their wire format, generated from the types ([`schema`]: `docs/json.md` and the service's
//!   OpenAPI components).
//!
//! ```no_run
//! use jsprof_analysis::{EventQuery, Mode};
//! let text = std::fs::read("app.cpuprofile").unwrap();
//! let pipeline = jsprof_document::load::Pipeline::default();
//! let loaded = jsprof_document::load::read_cpu("app.cpuprofile".into(), text, &pipeline).unwrap();
//! let timeline = loaded.select(None).unwrap();
//! let query = EventQuery { mode: Mode::UniqueTypes, ..Default::default() };
//! let report = jsprof_document::events::report(&loaded, timeline, &query).unwrap();
//! println!("{}", serde_json::to_string(&report).unwrap());
//! ```

pub mod abtest;
pub mod chart;
pub mod check;
pub mod diff;
pub mod events;
pub mod filmstrip;
pub mod filters;
pub mod heap;
pub mod heap_advisors;
pub mod heap_allocations;
pub mod heap_changes;
pub mod heap_class;
pub mod heap_contexts;
pub mod heap_edges;
pub mod heap_pages;
pub mod heap_query;
pub mod heap_redact;
pub mod heap_report;
pub mod heap_source_maps;
pub mod heap_strings;
pub mod input;
pub mod insights;
pub mod lake;
pub mod lake_query;
pub mod leak_series;
pub mod lines;
pub mod load;
pub mod local_file;
pub mod network;
pub mod network_tree;
pub mod page;
pub mod page_checks;
mod page_common;
pub mod page_diff;
pub mod page_runs;
pub mod page_scripts;
pub mod page_summary;
pub mod process_memory;
pub mod query;
pub mod schema;
pub mod selection_summary;
mod source_map_url;
pub mod source_maps;
pub mod summary;
pub mod text;
pub mod thread_select;
pub mod threads;
pub mod timings;
pub mod top;
pub mod tree;
pub mod units;

/// A function's self and total weight as `top` and `tree` print them: ms for time, bytes for a
/// heap profile (the other pair left out), and percentages of `total`.
#[derive(Serialize, JsonSchema)]
pub struct WeightsJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_bytes: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
    pub self_percent: f64,
    pub total_percent: f64,
}

impl WeightsJson {
    pub fn new(
        unit: jsprof_profile::WeightUnit,
        self_weight: i64,
        total_weight: i64,
        total: i64,
    ) -> WeightsJson {
        let pct = |w: i64| {
            if total > 0 {
                w as f64 * 100.0 / total as f64
            } else {
                0.0
            }
        };
        let bytes = unit == jsprof_profile::WeightUnit::Bytes;
        WeightsJson {
            self_ms: (!bytes).then(|| self_weight as f64 / NS_PER_MS),
            total_ms: (!bytes).then(|| total_weight as f64 / NS_PER_MS),
            self_bytes: bytes.then_some(self_weight),
            total_bytes: bytes.then_some(total_weight),
            self_percent: pct(self_weight),
            total_percent: pct(total_weight),
        }
    }
}

use schemars::JsonSchema;
use serde::Serialize;
use thiserror::Error;

/// A warning as every JSON document carries it (`{"at", "message"}`).
#[derive(Serialize, Clone, Debug, JsonSchema)]
pub struct JsonWarning {
    pub at: String,
    pub message: String,
}

/// The warnings of a loaded input, as JSON.
pub fn warnings_json(warnings: &[jsprof_profile::Warning]) -> Vec<JsonWarning> {
    warnings
        .iter()
        .map(|w| JsonWarning {
            at: w.at.clone(),
            message: w.message.clone(),
        })
        .collect()
}

/// Why a report cannot be made. The CLI exits 2 on any; the service answers 400 or 404.
#[derive(Debug, Error)]
pub enum ReportError {
    /// The input cannot be read as what the view needs (bad format, wrong kind of file).
    #[error("{0}")]
    Input(String),
    /// A parameter is wrong (unknown mode, thread spec naming several threads, bad range).
    #[error("{0}")]
    Usage(String),
    /// Something named by the request does not exist (an event id, a node id, a thread).
    #[error("{0}")]
    NotFound(String),
}

pub type Result<T, E = ReportError> = std::result::Result<T, E>;

/// A document as the exact JSON text the CLI prints and the service answers, for embedding in
/// another document (`jsprof report`'s `views`) without re-ordering or re-formatting a byte.
pub fn raw<T: Serialize>(doc: &T) -> Box<serde_json::value::RawValue> {
    let text = serde_json::to_string(doc).expect("documents serialize");
    serde_json::value::RawValue::from_string(text).expect("serde_json wrote JSON")
}

pub(crate) use jsprof_profile::NS_PER_MS;

pub(crate) fn ms(ns: i64) -> f64 {
    jsprof_profile::ns_to_ms(ns)
}
