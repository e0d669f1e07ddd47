//! `jsprof heap allocations FILE.heaptimeline`: allocation stacks with allocated and live objects.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use jsprof_heap::{AllocationProfile, BottomUpNode, HeapSnapshot};
use serde::Serialize;

use super::{load, truncate};
use crate::output::{
    self, display_function_name, fmt_bytes, fmt_location, Align, JsonWarning, Table,
};

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

#[derive(Serialize)]
struct StackJson {
    name: String,
    url: String,
    line: Option<u32>,
    column: Option<u32>,
    /// Objects allocated with this exact stack while tracking was on.
    count: u64,
    size: u64,
    /// Of those, still in the snapshot.
    live_count: u64,
    live_size: u64,
    /// Top-down: the functions this one called. Bottom-up: its callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<StackJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callers: Option<Vec<StackJson>>,
}

#[derive(Serialize)]
struct AllocationsJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    /// `top-down` or `bottom-up`.
    view: &'static str,
    stacks: Vec<StackJson>,
}

/// `(name, url, line, column)` of a trace function; positions are 1-based, 0 means unknown.
fn function(s: &HeapSnapshot, index: u32) -> (String, String, Option<u32>, Option<u32>) {
    match s.trace_function_infos.get(index as usize) {
        Some(f) => (
            s.strings.get(f.name),
            s.strings.get(f.script_name),
            (f.line > 0).then_some(f.line),
            (f.column > 0).then_some(f.column),
        ),
        None => (String::new(), String::new(), None, None),
    }
}

fn top_down(s: &HeapSnapshot, p: &AllocationProfile, i: usize) -> StackJson {
    let node = &p.nodes[i];
    let (name, url, line, column) = function(s, node.function);
    StackJson {
        name,
        url,
        line,
        column,
        count: node.count,
        size: node.size,
        live_count: node.live_count,
        live_size: node.live_size,
        children: Some(node.children.iter().map(|&c| top_down(s, p, c)).collect()),
        callers: None,
    }
}

fn bottom_up(s: &HeapSnapshot, node: &BottomUpNode) -> StackJson {
    let (name, url, line, column) = function(s, node.function);
    StackJson {
        name,
        url,
        line,
        column,
        count: node.count,
        size: node.size,
        live_count: node.live_count,
        live_size: node.live_size,
        children: None,
        callers: Some(node.callers.iter().map(|c| bottom_up(s, c)).collect()),
    }
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
    let s = &loaded.snapshot;
    let Some(profile) = AllocationProfile::new(s) else {
        bail!(
            "{}: no allocation traces (trace_tree is empty): record a .heaptimeline with allocation \
             tracking on (HeapProfiler.startTrackingHeapObjects {{trackAllocations: true}})",
            loaded.name
        );
    };
    let (view, stacks): (&str, Vec<StackJson>) = if args.bottom_up {
        (
            "bottom-up",
            profile
                .bottom_up()
                .iter()
                .map(|n| bottom_up(s, n))
                .collect(),
        )
    } else {
        (
            "top-down",
            profile.roots().map(|r| top_down(s, &profile, r)).collect(),
        )
    };
    if args.json {
        output::print_json(&AllocationsJson {
            kind: s.kind(),
            warnings: loaded.warnings_json(),
            view,
            stacks,
        })?;
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
    for stack in &stacks {
        rows(stack, 0, &mut table);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
