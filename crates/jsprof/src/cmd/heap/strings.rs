//! `jsprof heap strings FILE`: duplicated strings, largest waste first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_heap::duplicate_strings;
use serde::Serialize;

use super::{load, truncate};
use crate::output::{self, fmt_bytes, Align, JsonWarning, Table};

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

#[derive(Serialize)]
struct StringJson {
    value: String,
    count: u64,
    total_size: u64,
    /// The total minus the smallest copy: what keeping one copy would save.
    wasted_size: u64,
    retained_size: u64,
    /// V8 cut the value short in the snapshot; `length` is the full length (UTF-16 units).
    truncated: bool,
    length: Option<i64>,
    sample_id: u32,
}

#[derive(Serialize)]
struct StringsJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    strings: Vec<StringJson>,
}

pub fn run(args: StringsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let s = &loaded.snapshot;
    let mut groups = duplicate_strings(s, &loaded.analysis);
    if args.limit > 0 {
        groups.truncate(args.limit);
    }
    if args.json {
        output::print_json(&StringsJson {
            kind: s.kind(),
            warnings: loaded.warnings_json(),
            strings: groups
                .into_iter()
                .map(|g| StringJson {
                    sample_id: s.nodes.id[g.sample as usize],
                    value: g.value,
                    count: g.count,
                    total_size: g.total_size,
                    wasted_size: g.wasted_size,
                    retained_size: g.retained_size,
                    truncated: g.truncated,
                    length: g.length,
                })
                .collect(),
        })?;
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
    for g in &groups {
        let mut value = format!("{:?}", truncate(&g.value, SHOWN_CHARS));
        if g.truncated {
            value.push_str(" (truncated by V8)");
        }
        table.row(vec![
            value,
            g.count.to_string(),
            fmt_bytes(g.total_size as f64),
            fmt_bytes(g.wasted_size as f64),
            format!("@{}", s.nodes.id[g.sample as usize]),
        ]);
    }
    output::to_stdout(|out| table.write(out))?;
    Ok(ExitCode::SUCCESS)
}
