//! `jsprof heap edges FILE ID [--retainers]`: one object's outgoing edges (DevTools' Containment
//! view) or its direct retainers (the Retainers view), a page at a time, in DevTools' order.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_edges::{edges_report, EdgeDirection};

use super::{edge_table, load, object_line};
use crate::output;

#[derive(clap::Args)]
pub struct EdgesArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The object's id (the `@id` DevTools shows; the `@` may be given), or `root` for the
    /// snapshot's root (where the Containment view starts).
    #[arg(value_parser = parse_object)]
    pub id: Object,
    /// The edges that point at the object (the Retainers view) instead of its own.
    #[arg(long)]
    pub retainers: bool,
    /// Skip this many edges (pages).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// How many edges to list; 0 lists all.
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// An object named on the command line.
#[derive(Clone, Copy, Debug)]
pub enum Object {
    Root,
    Id(u32),
}

fn parse_object(text: &str) -> Result<Object, String> {
    if text.trim() == "root" {
        return Ok(Object::Root);
    }
    super::parse_node_id(text).map(Object::Id)
}

pub fn run(args: EdgesArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let (s, a) = (&loaded.snapshot, &loaded.analysis);
    let node = match args.id {
        Object::Root => s.root,
        Object::Id(id) => loaded.ordinal_of(id)?,
    };
    let direction = if args.retainers {
        EdgeDirection::Retainers
    } else {
        EdgeDirection::Containment
    };
    let limit = output::limit_or_all(args.limit);
    let mut report = edges_report(s, a, None, direction, node, args.offset, limit);
    let notes = loaded.map_objects(&mut report, &args.source_maps)?;
    report.warnings.extend(notes);
    loaded.emit(args.json, &report, |out| {
        writeln!(
            out,
            "{}; {} {}, {}–{} shown",
            object_line(&report.object),
            report.total,
            if args.retainers { "retainers" } else { "edges" },
            (report.offset + 1).min(report.offset + report.edges.len()),
            report.offset + report.edges.len(),
        )?;
        edge_table(
            if args.retainers { "Retainer" } else { "Object" },
            report.edges.iter().map(|e| (e.edge.as_str(), &e.object)),
        )
        .write(out)
    })
}
