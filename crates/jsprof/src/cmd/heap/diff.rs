//! `jsprof heap diff BASE TARGET`: DevTools' Comparison, plus each class's retained-size change.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_heap::compare;
use serde::Serialize;

use super::{fmt_signed_bytes, load, truncate};
use crate::output::{self, Align, JsonWarning, Table};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier snapshot.
    pub base: PathBuf,
    /// The later snapshot of the same process.
    pub target: PathBuf,
    /// How many classes to list (largest size delta first); 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct ClassJson {
    key: String,
    name: String,
    new_count: u64,
    deleted_count: u64,
    count_delta: i64,
    alloc_size: u64,
    freed_size: u64,
    size_delta: i64,
    retained_delta: i64,
}

#[derive(Serialize)]
struct DiffJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    classes: Vec<ClassJson>,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let mut base = load(&args.base)?;
    let target = load(&args.target)?;
    let comparison = compare(
        &mut base.snapshot,
        &mut base.analysis,
        &target.snapshot,
        &target.analysis,
    );
    let mut warnings = base.warnings_json_named();
    warnings.extend(target.warnings_json_named());
    let unrelated = (!comparison.ids_match()).then(|| {
        format!(
            "{} and {} share no object ids ({} ids in common, {} of them naming the same object): \
             they are not snapshots of one process, so the counts below compare unrelated objects",
            base.name, target.name, comparison.shared_ids, comparison.same_object_ids
        )
    });
    if let Some(message) = &unrelated {
        warnings.push(JsonWarning {
            at: String::new(),
            message: message.clone(),
        });
    }
    let mut classes = comparison.classes;
    if args.limit > 0 {
        classes.truncate(args.limit);
    }
    if args.json {
        output::print_json(&DiffJson {
            kind: target.snapshot.kind(),
            warnings,
            classes: classes
                .into_iter()
                .map(|c| ClassJson {
                    key: c.key,
                    name: c.name,
                    new_count: c.new_count,
                    deleted_count: c.deleted_count,
                    count_delta: c.count_delta,
                    alloc_size: c.alloc_size,
                    freed_size: c.freed_size,
                    size_delta: c.size_delta,
                    retained_delta: c.retained_delta,
                })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    base.print_warnings();
    target.print_warnings();
    if let Some(message) = &unrelated {
        output::print_warnings(&target.name, [("", message.as_str())]);
    }
    let mut table = Table::new(&[
        ("Class", Align::Left),
        ("# New", Align::Right),
        ("# Deleted", Align::Right),
        ("# Delta", Align::Right),
        ("Alloc. size", Align::Right),
        ("Freed size", Align::Right),
        ("Size delta", Align::Right),
        ("Retained delta", Align::Right),
    ]);
    for c in &classes {
        table.row(vec![
            truncate(&c.name, 60),
            c.new_count.to_string(),
            c.deleted_count.to_string(),
            format!("{:+}", c.count_delta),
            output::fmt_bytes(c.alloc_size as f64),
            output::fmt_bytes(c.freed_size as f64),
            fmt_signed_bytes(c.size_delta),
            fmt_signed_bytes(c.retained_delta),
        ]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    writeln!(out, "{} → {}", base.name, target.name)?;
    table.write(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
