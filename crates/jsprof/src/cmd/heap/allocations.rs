//! `jsprof heap allocations FILE.heaptimeline`: allocation stacks with allocated and live objects.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use jsprof_document::heap_allocations::{allocations_report, no_allocations_message, StackJson};
use jsprof_document::heap_source_maps::map_allocations;

use super::{load, truncate};
use crate::output::{columns, display_function_name, fmt_bytes, fmt_location};

#[derive(clap::Args)]
pub struct AllocationsArgs {
    /// A `.heaptimeline` (a snapshot taken with allocation tracking on; gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Per allocating function with its callers (DevTools' Allocation view), instead of top-down.
    #[arg(long)]
    pub bottom_up: bool,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The stacks under `stack` in the table's order (depth first), each with its depth.
fn rows<'a>(stack: &'a StackJson, depth: usize, rows: &mut Vec<(usize, &'a StackJson)>) {
    rows.push((depth, stack));
    let next = stack.children.as_ref().or(stack.callers.as_ref());
    for child in next.into_iter().flatten() {
        self::rows(child, depth + 1, rows);
    }
}

pub fn run(args: AllocationsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let Some(mut report) = allocations_report(&loaded.snapshot, args.bottom_up) else {
        bail!(no_allocations_message(&loaded.name));
    };
    map_allocations(
        &mut report,
        &loaded.snapshot,
        &loaded.analysis.scripts,
        &args.source_maps.policy(),
    )?;
    loaded.emit(args.json, &report, |out| {
        let mut all = Vec::new();
        for stack in &report.stacks {
            rows(stack, 0, &mut all);
        }
        columns(all)
            .left("Function", |(depth, s)| {
                let name = truncate(display_function_name(&s.name), 50);
                format!("{}{name}", "  ".repeat(*depth))
            })
            .right("Count", |(_, s)| s.count.to_string())
            .right("Size", |(_, s)| fmt_bytes(s.size as f64))
            .right("Live count", |(_, s)| s.live_count.to_string())
            .right("Live size", |(_, s)| fmt_bytes(s.live_size as f64))
            .left("Location", |(_, s)| {
                truncate(&fmt_location(&s.url, s.line, s.column), 60)
            })
            // The original, where a source map placed the function.
            .left("Original", |(_, s)| super::original_text(&s.original, 80))
            .write(out)
    })
}
