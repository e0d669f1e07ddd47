//! `jsprof heap strings FILE`: duplicated strings, largest waste first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_strings::strings_report;

use super::{fmt_id, load, truncate};
use crate::output::{columns, fmt_bytes};

/// Longest value shown in tables (JSON values are whole, as the snapshot holds them).
const SHOWN_CHARS: usize = 60;

#[derive(clap::Args)]
pub struct StringsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// How many values to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StringsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let report = strings_report(&loaded.snapshot, &loaded.analysis, args.limit);
    loaded.emit(args.json, &report, |out| {
        columns(&report.strings)
            .left("Value", |g| {
                let value = format!("{:?}", truncate(&g.value, SHOWN_CHARS));
                match g.truncated {
                    true => value + " (truncated by V8)",
                    false => value,
                }
            })
            .right("Count", |g| g.count.to_string())
            .right("Total size", |g| fmt_bytes(g.total_size as f64))
            .right("Wasted", |g| fmt_bytes(g.wasted_size as f64))
            .right("Sample", |g| fmt_id(g.sample_id))
            .write(out)
    })
}
