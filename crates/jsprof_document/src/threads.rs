//! `jsprof threads FILE --json` and the service's `…/threads`: the timelines of a CPU input, one
//! per thread, with the ids `--thread` and `?thread=` take.

use schemars::JsonSchema;
use serde::Serialize;

use crate::load::CpuInput;
use crate::{warnings_json, JsonWarning};

/// One timeline.
#[derive(Serialize, JsonSchema)]
pub struct ThreadJson {
    /// What `--thread` takes (1-based, sampled threads first).
    pub timeline_id: u32,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    pub name: String,
    /// The process's name, when a trace names it (`Renderer`, `Browser`, `GPU Process`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// CPU samples of the thread's profile.
    pub samples: usize,
    /// Events of the timeline: reconstructed calls and trace events.
    pub events: usize,
}

/// The whole `threads` document.
#[derive(Serialize, JsonSchema)]
pub struct ThreadsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub timelines: Vec<ThreadJson>,
}

/// The timelines of `input`.
pub fn threads_report(input: &CpuInput) -> ThreadsReport {
    ThreadsReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        timelines: input
            .timelines()
            .iter()
            .map(|t| ThreadJson {
                timeline_id: t.id,
                pid: t.pid,
                tid: t.tid,
                name: t.name.clone(),
                process: t
                    .pid
                    .and_then(|pid| input.process_names().iter().rev().find(|(p, _)| *p == pid))
                    .map(|(_, n)| n.clone()),
                samples: t.samples,
                events: t.events.len(),
            })
            .collect(),
    }
}
