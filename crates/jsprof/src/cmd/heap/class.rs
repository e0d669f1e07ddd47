//! `jsprof heap class FILE KEY`: one Summary class's objects (DevTools' expanded Summary row), in
//! one order, a page at a time — the rows the UI shows when it scrolls to `--offset`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use jsprof_document::heap_class::{
    class_objects_report, find_class, sort_objects, ObjectOrder, ObjectsQuery,
};

use super::{fmt_distance, fmt_id, load, object_places, truncate};
use crate::output::{self, columns, fmt_bytes};

#[derive(clap::Args)]
pub struct ClassArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The class: its Summary key (`heap summary --json`'s `key`, e.g. `,Object`) or its name
    /// when only one class has it.
    pub class: String,
    /// Order of the objects, largest first.
    #[arg(long, value_enum, default_value_t = Order::Retained)]
    pub sort: Order,
    /// Smallest first: the order read backwards.
    #[arg(long)]
    pub ascending: bool,
    /// Skip this many objects (the position the UI scrolled to).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// How many objects to list; 0 lists all.
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Order {
    Retained,
    #[value(name = "self")]
    SelfSize,
    Distance,
    Id,
}

impl From<Order> for ObjectOrder {
    fn from(o: Order) -> ObjectOrder {
        match o {
            Order::Retained => ObjectOrder::Retained,
            Order::SelfSize => ObjectOrder::SelfSize,
            Order::Distance => ObjectOrder::Distance,
            Order::Id => ObjectOrder::Id,
        }
    }
}

pub fn run(args: ClassArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let (s, a) = (&loaded.snapshot, &loaded.analysis);
    let classes = jsprof_heap::class_members(s, a);
    let (row, members) = find_class(&loaded.name, &classes, &args.class)?;
    let order = ObjectOrder::from(args.sort);
    let mut sorted = members.clone();
    sort_objects(s, a, &mut sorted, order);
    let limit = output::limit_or_all(args.limit);
    let mut report = class_objects_report(
        s,
        a,
        (&row.key, &row.name),
        &sorted,
        ObjectsQuery {
            order,
            ascending: args.ascending,
            offset: args.offset,
            limit,
        },
    );
    let notes = loaded.map_objects(&mut report, &args.source_maps)?;
    report.warnings.extend(notes);
    loaded.emit(args.json, &report, |out| {
        writeln!(
            out,
            "{} (key `{}`): {} objects, {}–{} shown",
            truncate(&report.name, 60),
            report.key,
            report.total,
            (report.offset + 1).min(report.offset + report.objects.len()),
            report.offset + report.objects.len(),
        )?;
        let table = columns(report.objects.iter().enumerate())
            .right("#", |(i, _)| (report.offset + i + 1).to_string())
            .left("Object", |(_, o)| truncate(&o.name, 60))
            .right("Id", |(_, o)| fmt_id(o.id))
            .right("Distance", |(_, o)| fmt_distance(o.distance))
            .right("Self size", |(_, o)| fmt_bytes(o.self_size as f64))
            .right("Retained size", |(_, o)| fmt_bytes(o.retained_size as f64));
        object_places(table, |(_, o)| o).write(out)
    })
}
