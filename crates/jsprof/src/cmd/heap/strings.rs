//! `jsprof heap strings FILE`: duplicated strings, largest waste first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_strings::strings_report;

use super::{load, truncate};
use crate::output::{self, fmt_bytes, Align, Table};

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
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    let mut table = Table::new(&[
        ("Value", Align::Left),
        ("Count", Align::Right),
        ("Total size", Align::Right),
        ("Wasted", Align::Right),
        ("Sample", Align::Right),
    ]);
    for g in &report.strings {
        let mut value = format!("{:?}", truncate(&g.value, SHOWN_CHARS));
        if g.truncated {
            value.push_str(" (truncated by V8)");
        }
        table.row(vec![
            value,
            g.count.to_string(),
            fmt_bytes(g.total_size as f64),
            fmt_bytes(g.wasted_size as f64),
            format!("@{}", g.sample_id),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
