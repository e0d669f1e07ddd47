//! `jsprof network TRACE`: the requests of a trace as a waterfall table (start, queueing,
//! server response, download, end), as DevTools' Network track derives them.

use std::process::ExitCode;

use anyhow::Result;

use crate::output::{self, fmt_bytes, fmt_ms, Align, Table};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    let Some((loaded, report)) =
        crate::load::document(&args, jsprof_document::page::network_report)?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    output::warn(&loaded.name, loaded.warnings());
    let mut table = Table::new(&[
        ("start", Align::Right),
        ("queue", Align::Right),
        ("server", Align::Right),
        ("download", Align::Right),
        ("total", Align::Right),
        ("size", Align::Right),
        ("status", Align::Right),
        ("priority", Align::Left),
        ("type", Align::Left),
        ("blocking", Align::Left),
        ("url", Align::Left),
    ]);
    for r in &report.requests {
        table.row(vec![
            fmt_ms(r.start_ms),
            fmt_ms(r.queueing_ms),
            fmt_ms(r.server_response_ms),
            fmt_ms(r.download_ms),
            fmt_ms(r.dur_ms),
            fmt_bytes(r.transfer_size as f64),
            if r.finished {
                r.status.to_string()
            } else {
                "-".to_string()
            },
            r.priority.clone(),
            r.resource_type.clone(),
            match r.render_blocking.as_str() {
                "blocking" | "in_body_parser_blocking" => "yes".to_string(),
                _ => String::new(),
            },
            r.url.clone(),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
