//! `jsprof heap allocations FILE.heaptimeline`: allocation stacks with allocated and live objects.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use jsprof_document::heap_allocations::{allocations_report, no_allocations_message, StackJson};

use super::{load, truncate};
use crate::output::{self, display_function_name, fmt_bytes, fmt_location, Align, Table};

#[derive(clap::Args)]
pub struct AllocationsArgs {
    /// A `.heaptimeline` (a snapshot taken with allocation tracking on; gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Per allocating function with its callers (DevTools' Allocation view), instead of top-down.
    #[arg(long)]
    pub bottom_up: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn rows(stack: &StackJson, depth: usize, table: &mut Table) {
    table.row(vec![
        format!(
            "{}{}",
            "  ".repeat(depth),
            truncate(display_function_name(&stack.name), 50)
        ),
        stack.count.to_string(),
        fmt_bytes(stack.size as f64),
        stack.live_count.to_string(),
        fmt_bytes(stack.live_size as f64),
        truncate(&fmt_location(&stack.url, stack.line, stack.column), 60),
    ]);
    let next = stack.children.as_ref().or(stack.callers.as_ref());
    for child in next.into_iter().flatten() {
        rows(child, depth + 1, table);
    }
}

pub fn run(args: AllocationsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let Some(report) = allocations_report(&loaded.snapshot, args.bottom_up) else {
        bail!(no_allocations_message(&loaded.name));
    };
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    loaded.print_warnings();
    let mut table = Table::new(&[
        ("Function", Align::Left),
        ("Count", Align::Right),
        ("Size", Align::Right),
        ("Live count", Align::Right),
        ("Live size", Align::Right),
        ("Location", Align::Left),
    ]);
    for stack in &report.stacks {
        rows(stack, 0, &mut table);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
