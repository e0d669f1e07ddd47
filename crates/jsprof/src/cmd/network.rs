//! `jsprof network TRACE`: the requests of a trace as a waterfall table (start, queueing,
//! server response, download, end), as DevTools' Network track derives them.

use std::io;
use std::process::ExitCode;

use anyhow::Result;

use jsprof_document::load::CpuInput;
use jsprof_document::network::NetworkReport;

use crate::output::{self, columns, fmt_bytes, fmt_ms, TextOut};

pub use crate::load::DocumentArgs as Args;

pub fn run(args: Args) -> Result<ExitCode> {
    crate::load::document(&args, jsprof_document::page::network_report, write)
}

/// The requests as a table, one a row in the order the document lists them.
fn write(loaded: &CpuInput, report: &NetworkReport, out: &mut TextOut) -> io::Result<()> {
    output::warn(&loaded.name, loaded.warnings());
    columns(&report.requests)
        .right("start", |r| fmt_ms(r.start_ms))
        .right("queue", |r| fmt_ms(r.queueing_ms))
        .right("server", |r| fmt_ms(r.server_response_ms))
        .right("download", |r| fmt_ms(r.download_ms))
        .right("total", |r| fmt_ms(r.dur_ms))
        .right("size", |r| fmt_bytes(r.transfer_size as f64))
        .right("status", |r| match r.finished {
            true => r.status.to_string(),
            false => "-".to_string(),
        })
        .left("priority", |r| r.priority.clone())
        .left("type", |r| r.resource_type.clone())
        .left("blocking", |r| match r.render_blocking.as_str() {
            "blocking" | "in_body_parser_blocking" => "yes".to_string(),
            _ => String::new(),
        })
        .left("url", |r| r.url.clone())
        .write(out)
}
