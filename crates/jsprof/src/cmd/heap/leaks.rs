//! `jsprof heap leaks BASE TARGET FINAL`: objects created between BASE and TARGET that FINAL still
//! holds, grouped by class and retaining path.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap::{leaks_report, LeaksOptions, Named};

use super::{load, read_only, truncate};
use crate::output::{self, fmt_bytes, Align, Table};

#[derive(clap::Args)]
pub struct LeaksArgs {
    /// Before the action under suspicion.
    pub base: PathBuf,
    /// After the action.
    pub target: PathBuf,
    /// Later again (after undoing the action, or repeating it).
    pub last: PathBuf,
    /// Hide groups retaining less than this many bytes in FINAL.
    #[arg(long, default_value_t = 0)]
    pub min_retained: u64,
    /// How many groups to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: LeaksArgs) -> Result<ExitCode> {
    let (base_name, base) = read_only(&args.base)?;
    let (target_name, target) = read_only(&args.target)?;
    let last = load(&args.last)?;
    let report = leaks_report(
        Named {
            name: &base_name,
            snapshot: &base,
            analysis: (),
        },
        Named {
            name: &target_name,
            snapshot: &target,
            analysis: (),
        },
        Named {
            name: &last.name,
            snapshot: &last.snapshot,
            analysis: &last.analysis,
        },
        LeaksOptions {
            min_retained: args.min_retained,
            limit: args.limit,
        },
    );
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (warnings, groups) = (&report.warnings, &report.groups);
    output::print_warnings(
        "heap leaks",
        warnings.iter().map(|w| (w.at.as_str(), w.message.as_str())),
    );
    let mut table = Table::new(&[
        ("Class", Align::Left),
        ("Count", Align::Right),
        ("Retained size", Align::Right),
        ("Sample", Align::Right),
        ("Retained through", Align::Left),
    ]);
    for g in groups {
        let path = g
            .path
            .iter()
            .map(|p| format!("{}{}", truncate(&p.class, 30), p.edge))
            .collect::<Vec<_>>()
            .join(" → ");
        table.row(vec![
            truncate(&g.class, 40),
            g.count.to_string(),
            fmt_bytes(g.retained_size as f64),
            format!("@{}", g.sample_id),
            if path.is_empty() {
                "-".to_string()
            } else {
                path
            },
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
