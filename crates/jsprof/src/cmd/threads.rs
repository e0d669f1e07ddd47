//! `jsprof threads FILE`: the timelines of an input (one per thread), with their ids for
//! `--thread`.

use std::process::ExitCode;

use anyhow::Result;

use crate::output::{self, Align, Table};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    let Some((loaded, report)) = crate::load::document(&args, |input| {
        Ok(jsprof_document::threads::threads_report(input))
    })?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    output::warn(&loaded.name, loaded.warnings());
    let mut table = Table::new(&[
        ("id", Align::Right),
        ("pid", Align::Right),
        ("tid", Align::Right),
        ("process", Align::Left),
        ("name", Align::Left),
        ("samples", Align::Right),
        ("events", Align::Right),
    ]);
    let dash = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for r in &report.timelines {
        table.row(vec![
            r.timeline_id.to_string(),
            dash(r.pid),
            dash(r.tid),
            r.process.clone().unwrap_or_else(|| "-".to_string()),
            match (&r.page, r.name.is_empty()) {
                // The page a renderer's main thread draws, as the UI heads its track.
                (Some(page), _) => format!("{} ({page})", r.name),
                (None, true) => "(unnamed)".to_string(),
                (None, false) => r.name.clone(),
            },
            r.samples.to_string(),
            r.events.to_string(),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
