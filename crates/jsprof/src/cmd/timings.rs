//! `jsprof timings TRACE`: the page's `performance.mark`/`measure`, `console.time` spans and
//! `console.timeStamp`s, as DevTools' Timings track lists them.

use std::io;
use std::process::ExitCode;

use anyhow::Result;

use jsprof_document::load::CpuInput;
use jsprof_document::timings::TimingsReport;

use crate::output::{self, fmt_ms, Align, Table, TextOut};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    crate::load::document(&args, jsprof_document::page::timings_report, write)
}

/// The entries as one table in time order, each with its kind.
fn write(loaded: &CpuInput, report: &TimingsReport, out: &mut TextOut) -> io::Result<()> {
    output::warn(&loaded.name, &report.warnings);
    let mut table = Table::new(&[
        ("kind", Align::Left),
        ("start", Align::Right),
        ("duration", Align::Right),
        ("name", Align::Left),
    ]);
    // One row per entry, its kind first; a mark or a timestamp has no duration.
    let mut rows: Vec<(f64, Vec<String>)> = Vec::new();
    let mut add = |kind: &str, start_ms: f64, dur_ms: Option<f64>, name: &str| {
        rows.push((
            start_ms,
            vec![
                kind.into(),
                fmt_ms(start_ms),
                dur_ms.map(fmt_ms).unwrap_or_default(),
                name.to_string(),
            ],
        ));
    };
    for m in &report.marks {
        add("mark", m.start_ms, None, &m.name);
    }
    for m in &report.measures {
        add("measure", m.start_ms, Some(m.dur_ms), &m.name);
    }
    for m in &report.console_timings {
        add("console.time", m.start_ms, Some(m.dur_ms), &m.name);
    }
    for m in &report.console_timestamps {
        add("timeStamp", m.start_ms, None, &m.name);
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, r) in rows {
        table.row(r);
    }
    table.write(out)
}
