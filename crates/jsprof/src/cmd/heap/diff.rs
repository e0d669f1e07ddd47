//! `jsprof heap diff BASE TARGET`: DevTools' Comparison, plus each class's retained-size change.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap::{DiffSide, Named};
use jsprof_document::heap_query::HeapDiffQuery;
use jsprof_heap::{max_node_id, InterfaceDefinition, Warning};

use super::{fmt_id, fmt_signed_bytes, load, truncate, Loaded};
use crate::input;
use crate::output::{self, columns};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier snapshot.
    pub base: PathBuf,
    /// The later snapshot of the same process.
    pub target: PathBuf,
    #[command(flatten)]
    pub query: HeapDiffQuery,
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
    if let Some(key) = &args.class {
        return class_run(&args, key);
    }
    let base_name = input::display_name(&args.base);
    let target_name = input::display_name(&args.target);
    // One graph at a time (issue 17): the target is read and reduced to what the comparison
    // needs of it (ids, self sizes and classes), then the base is read and reduced in turn.
    let target = load(&args.target)?;
    let target_max = max_node_id(&target.snapshot);
    let mut target = Side::target(&target_name, target);
    let base = load(&args.base)?;
    // V8's object ids only grow over a process's life: a base with newer ids was taken later.
    let reordered = max_node_id(&base.snapshot) > target_max;
    let mut order_warning = None;
    let base = if reordered {
        order_warning = Some(format!(
            "{base_name} was given as the base but its object ids are newer than {target_name}'s \
             (V8's ids only grow): using {target_name} as the base and {base_name} as the target"
        ));
        // The base is classified by the target's interface definitions: the snapshot read first
        // is read again for that (from its index when it has one).
        let new_target = Side::target(&base_name, base);
        let again = load(&args.target)?;
        let base = Side::base(&target_name, again, &new_target.interfaces);
        target = new_target;
        base
    } else {
        Side::base(&base_name, base, &target.interfaces)
    };
    let (base_shown, target_shown) = (base.side.name, target.side.name);
    let (base_warnings, target_warnings) = (base.warnings, target.warnings);
    let (mut report, unrelated) =
        jsprof_document::heap::diff_report_of(base.side, &target.side, args.query.limit);
    put_first(&mut report.warnings, &order_warning);
    output::emit(args.json, &report, |out| {
        output::warn(base_shown, &base_warnings);
        output::warn(target_shown, &target_warnings);
        if let Some(message) = &order_warning {
            output::print_warnings("heap diff", [("", message.as_str())]);
        }
        if let Some(message) = &unrelated {
            output::print_warnings(target_shown, [("", message.as_str())]);
        }
        writeln!(out, "{base_shown} → {target_shown}")?;
        columns(&report.classes)
            .left("Class", |c| truncate(&c.name, 60))
            .right("# New", |c| c.new_count.to_string())
            .right("# Deleted", |c| c.deleted_count.to_string())
            .right("# Delta", |c| format!("{:+}", c.count_delta))
            .right("Alloc. size", |c| output::fmt_bytes(c.alloc_size as f64))
            .right("Freed size", |c| output::fmt_bytes(c.freed_size as f64))
            .right("Size delta", |c| fmt_signed_bytes(c.size_delta))
            .right("Retained delta", |c| fmt_signed_bytes(c.retained_delta))
            .write(out)
    })
}

/// One snapshot of the comparison once its graph is gone.
struct Side<'a> {
    side: DiffSide<'a>,
    /// Its interface definitions, by which the base is classified when this is the target.
    interfaces: Vec<InterfaceDefinition>,
    /// For the human output, which names the file beside each.
    warnings: Vec<Warning>,
}

impl<'a> Side<'a> {
    fn target(name: &'a str, loaded: Loaded) -> Side<'a> {
        Side {
            side: DiffSide::target(name, &loaded.snapshot, &loaded.analysis),
            interfaces: loaded.analysis.interfaces,
            warnings: loaded.snapshot.warnings,
        }
    }

    fn base(
        name: &'a str,
        mut loaded: Loaded,
        target_interfaces: &[InterfaceDefinition],
    ) -> Side<'a> {
        let side = DiffSide::base(
            name,
            &mut loaded.snapshot,
            &mut loaded.analysis,
            target_interfaces,
        );
        Side {
            side,
            interfaces: Vec::new(),
            warnings: loaded.snapshot.warnings,
        }
    }
}

/// `--class KEY`: both snapshots whole (the objects of one class need both graphs), in process
/// order.
fn class_run(args: &DiffArgs, key: &str) -> Result<ExitCode> {
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
    class_objects(args, key, &mut base, &target, order_warning)
}

/// `--class KEY`: the new and deleted objects of one class.
fn class_objects(
    args: &DiffArgs,
    key: &str,
    base: &mut Loaded,
    target: &Loaded,
    order_warning: Option<String>,
) -> Result<ExitCode> {
    let limit = output::limit_or_all(args.query.limit);
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
    put_first(&mut report.warnings, &order_warning);
    output::emit(args.json, &report, |out| {
        base.print_warnings();
        target.print_warnings();
        if let Some(message) = &order_warning {
            output::print_warnings("heap diff", [("", message.as_str())]);
        }
        for (title, side) in [("New", &report.new), ("Deleted", &report.deleted)] {
            writeln!(
                out,
                "{title} {} objects: {} (from {})",
                report.name,
                side.total,
                side.offset + 1
            )?;
            columns(&side.objects)
                .left("Object", |o| truncate(&o.name, 60))
                .right("Id", |o| fmt_id(o.id))
                .right("Self size", |o| output::fmt_bytes(o.self_size as f64))
                .right("Retained size", |o| {
                    output::fmt_bytes(o.retained_size as f64)
                })
                .write(out)?;
        }
        Ok(())
    })
}

/// The warning that the snapshots were given newest first leads the report's warnings.
fn put_first(warnings: &mut Vec<jsprof_document::JsonWarning>, order_warning: &Option<String>) {
    if let Some(message) = order_warning {
        warnings.insert(
            0,
            jsprof_document::JsonWarning {
                at: String::new(),
                message: message.clone(),
            },
        );
    }
}
