//! `jsprof threads FILE`: the timelines of an input (one per thread), with their ids for
//! `--thread`.

use std::io;
use std::process::ExitCode;

use anyhow::Result;

use jsprof_document::load::CpuInput;
use jsprof_document::threads::ThreadsReport;

use crate::output::{self, columns, TextOut};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    let make = |input: &CpuInput| Ok(jsprof_document::threads::threads_report(input));
    crate::load::document(&args, make, write)
}

/// The timelines as a table, with the ids `--thread` takes.
fn write(loaded: &CpuInput, report: &ThreadsReport, out: &mut TextOut) -> io::Result<()> {
    output::warn(&loaded.name, loaded.warnings());
    let dash = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    columns(&report.timelines)
        .right("id", |r| r.timeline_id.to_string())
        .right("pid", move |r| dash(r.pid))
        .right("tid", move |r| dash(r.tid))
        .left("process", |r| {
            r.about.process.clone().unwrap_or_else(|| "-".to_string())
        })
        .left("name", |r| match (&r.about.page, r.name.is_empty()) {
            // The page a renderer's main thread draws, as the UI heads its track.
            (Some(page), _) => format!("{} ({page})", r.name),
            (None, true) => "(unnamed)".to_string(),
            (None, false) => r.name.clone(),
        })
        .right("samples", |r| r.about.samples.to_string())
        .right("events", |r| r.about.events.to_string())
        .write(out)
}
