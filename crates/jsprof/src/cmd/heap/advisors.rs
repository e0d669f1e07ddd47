//! `jsprof heap advisors FILE`: memory the program could give back, largest saving first.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_advisors::advisors_report;

use super::{load, truncate};
use crate::output::{self, fmt_bytes, Align, Table};

#[derive(clap::Args)]
pub struct AdvisorsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// How many findings to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Leave out findings that would save fewer bytes.
    #[arg(long, default_value_t = 1024)]
    pub min_saving: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AdvisorsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let report = advisors_report(
        &loaded.snapshot,
        &loaded.analysis,
        args.min_saving,
        args.limit,
    );
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    let mut table = Table::new(&[
        ("Advisor", Align::Left),
        ("Class", Align::Left),
        ("Held by", Align::Left),
        ("Count", Align::Right),
        ("Saving", Align::Right),
        ("Sample", Align::Right),
    ]);
    for f in &report.advice {
        let mut class = truncate(&f.class, 40);
        if let Some(value) = &f.value {
            class = format!("{:?}", truncate(value, 40));
        }
        if f.smi_blind {
            class.push_str(" *");
        }
        table.row(vec![
            f.advisor.replace('_', " "),
            class,
            truncate(&f.held_by, 40),
            f.count.to_string(),
            fmt_bytes(f.saving as f64),
            format!("@{}", f.sample_id),
        ]);
    }
    output::to_stdout(|out| {
        table.write(out)?;
        writeln!(
            out,
            "{} findings, {} in all{}",
            report.total,
            fmt_bytes(report.total_saving as f64),
            if report.advice.iter().any(|f| f.smi_blind) {
                "; * small integers are not in snapshots: such objects may differ only in them"
            } else {
                ""
            }
        )
    })?;
    Ok(ExitCode::SUCCESS)
}
