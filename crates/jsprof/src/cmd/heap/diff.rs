//! `jsprof heap diff BASE TARGET`: DevTools' Comparison, plus each class's retained-size change.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap::Named;

use super::{fmt_signed_bytes, load, truncate};
use crate::output::{self, Align, Table};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier snapshot.
    pub base: PathBuf,
    /// The later snapshot of the same process.
    pub target: PathBuf,
    /// How many classes to list (largest size delta first); 0 lists all. With --class: how many
    /// new and how many deleted objects.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// List the new and deleted objects of this class (a row's `key`, as `--json` prints it:
    /// `,Name`, or `script,line,column,Name` for a class split by where it was defined) instead of
    /// the classes; largest self size first.
    #[arg(long, value_name = "KEY")]
    pub class: Option<String>,
    /// With --class: skip this many objects of each list (pages).
    #[arg(long, default_value_t = 0, requires = "class")]
    pub offset: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let mut base = load(&args.base)?;
    let mut target = load(&args.target)?;
    // V8's object ids only grow over a process's life: a base with newer ids was taken later.
    let reordered = jsprof_heap::process_order(&[&base.snapshot, &target.snapshot]) != [0, 1];
    let mut order_warning = None;
    if reordered {
        order_warning = Some(format!(
            "{} was given as the base but its object ids are newer than {}'s (V8's ids only grow): \
             using {} as the base and {} as the target",
            base.name, target.name, target.name, base.name
        ));
        std::mem::swap(&mut base, &mut target);
    }
    if let Some(key) = &args.class {
        return class_objects(&args, key, &mut base, &target, order_warning);
    }
    let (mut report, unrelated) = jsprof_document::heap::diff_report(
        Named {
            name: &base.name,
            snapshot: &mut base.snapshot,
            analysis: &mut base.analysis,
        },
        Named {
            name: &target.name,
            snapshot: &target.snapshot,
            analysis: &target.analysis,
        },
        args.limit,
    );
    if let Some(message) = &order_warning {
        report.warnings.insert(
            0,
            jsprof_document::JsonWarning {
                at: String::new(),
                message: message.clone(),
            },
        );
    }
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let classes = report.classes;
    base.print_warnings();
    target.print_warnings();
    if let Some(message) = &order_warning {
        output::print_warnings("heap diff", [("", message.as_str())]);
    }
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

/// `--class KEY`: the new and deleted objects of one class.
fn class_objects(
    args: &DiffArgs,
    key: &str,
    base: &mut super::Loaded,
    target: &super::Loaded,
    order_warning: Option<String>,
) -> Result<ExitCode> {
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    let mut report = jsprof_document::heap_changes::class_changes_report(
        Named {
            name: &base.name,
            snapshot: &mut base.snapshot,
            analysis: &mut base.analysis,
        },
        Named {
            name: &target.name,
            snapshot: &target.snapshot,
            analysis: &target.analysis,
        },
        key,
        args.offset,
        limit,
    )?;
    if let Some(message) = &order_warning {
        report.warnings.insert(
            0,
            jsprof_document::JsonWarning {
                at: String::new(),
                message: message.clone(),
            },
        );
    }
    if args.json {
        output::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    base.print_warnings();
    target.print_warnings();
    if let Some(message) = &order_warning {
        output::print_warnings("heap diff", [("", message.as_str())]);
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for (title, side) in [("New", &report.new), ("Deleted", &report.deleted)] {
        writeln!(
            out,
            "{title} {} objects: {} (from {})",
            report.name,
            side.total,
            side.offset + 1
        )?;
        let mut table = Table::new(&[
            ("Object", Align::Left),
            ("Id", Align::Right),
            ("Self size", Align::Right),
            ("Retained size", Align::Right),
        ]);
        for o in &side.objects {
            table.row(vec![
                truncate(&o.name, 60),
                format!("@{}", o.id),
                output::fmt_bytes(o.self_size as f64),
                output::fmt_bytes(o.retained_size as f64),
            ]);
        }
        table.write(&mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
