//! `jsprof timings TRACE`: the page's `performance.mark`/`measure`, `console.time` spans and
//! `console.timeStamp`s, as DevTools' Timings track lists them.

use std::process::ExitCode;

use anyhow::Result;

use crate::output::{self, fmt_ms, Align, Table};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    let Some((loaded, report)) =
        crate::load::document(&args, jsprof_document::page::timings_report)?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    let warnings: Vec<(&str, &str)> = report
        .warnings
        .iter()
        .map(|w| (w.at.as_str(), w.message.as_str()))
        .collect();
    output::print_warnings(&loaded.name, warnings);
    let mut table = Table::new(&[
        ("kind", Align::Left),
        ("start", Align::Right),
        ("duration", Align::Right),
        ("name", Align::Left),
    ]);
    let mut rows: Vec<(f64, Vec<String>)> = Vec::new();
    for m in &report.marks {
        rows.push((
            m.start_ms,
            vec![
                "mark".into(),
                fmt_ms(m.start_ms),
                String::new(),
                m.name.clone(),
            ],
        ));
    }
    for m in &report.measures {
        rows.push((
            m.start_ms,
            vec![
                "measure".into(),
                fmt_ms(m.start_ms),
                fmt_ms(m.dur_ms),
                m.name.clone(),
            ],
        ));
    }
    for m in &report.console_timings {
        rows.push((
            m.start_ms,
            vec![
                "console.time".into(),
                fmt_ms(m.start_ms),
                fmt_ms(m.dur_ms),
                m.name.clone(),
            ],
        ));
    }
    for m in &report.console_timestamps {
        rows.push((
            m.start_ms,
            vec![
                "timeStamp".into(),
                fmt_ms(m.start_ms),
                String::new(),
                m.name.clone(),
            ],
        ));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, r) in rows {
        table.row(r);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
