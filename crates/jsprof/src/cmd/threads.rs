//! `jsprof threads FILE`: the timelines of an input (one per thread), with their ids for
//! `--thread`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::load::load_cpu;
use crate::output::{self, Align, JsonWarning, Table};
use jsprof_document::load::Pipeline;

#[derive(clap::Args)]
pub struct Args {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct ThreadJson<'a> {
    timeline_id: u32,
    pid: Option<u64>,
    tid: Option<u64>,
    name: &'a str,
    samples: usize,
    events: usize,
}

#[derive(Serialize)]
struct ThreadsJson<'a> {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    timelines: Vec<ThreadJson<'a>>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let loaded = load_cpu(&args.file, &Pipeline::default())?;
    let rows: Vec<ThreadJson> = loaded
        .timelines()
        .iter()
        .map(|t| ThreadJson {
            timeline_id: t.id,
            pid: t.pid,
            tid: t.tid,
            name: &t.name,
            samples: t.samples,
            events: t.events.len(),
        })
        .collect();
    if args.json {
        output::print_json(&ThreadsJson {
            kind: loaded.profile().kind.as_str(),
            warnings: json_warnings(loaded.warnings()),
            timelines: rows,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    output::print_warnings(
        &loaded.name,
        loaded
            .warnings()
            .iter()
            .map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let mut table = Table::new(&[
        ("id", Align::Right),
        ("pid", Align::Right),
        ("tid", Align::Right),
        ("name", Align::Left),
        ("samples", Align::Right),
        ("events", Align::Right),
    ]);
    let dash = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for r in &rows {
        table.row(vec![
            r.timeline_id.to_string(),
            dash(r.pid),
            dash(r.tid),
            if r.name.is_empty() {
                "(unnamed)"
            } else {
                r.name
            }
            .to_string(),
            r.samples.to_string(),
            r.events.to_string(),
        ]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn json_warnings(warnings: &[jsprof_profile::Warning]) -> Vec<JsonWarning> {
    jsprof_document::warnings_json(warnings)
}
