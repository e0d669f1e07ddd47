//! `jsprof heap retainers FILE ID`: why an object is alive, as DevTools' Retainers view shows it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap::RetainersOptions;

use super::{edge_table, fmt_distance, load, object_line};

#[derive(clap::Args)]
pub struct RetainersArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// The object's id (the `@id` DevTools shows; the `@` may be given).
    #[arg(value_parser = super::parse_node_id)]
    pub id: u32,
    #[command(flatten)]
    pub options: RetainersOptions,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: RetainersArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let node = loaded.ordinal_of(args.id)?;
    let options = args.options;
    let mut report =
        jsprof_document::heap::retainers_report(&loaded.snapshot, &loaded.analysis, node, options);
    let notes = loaded.map_objects(&mut report, &args.source_maps)?;
    report.warnings.extend(notes);
    loaded.emit(args.json, &report, |out| {
        let (object, paths) = (&report.object, &report.paths);
        writeln!(out, "{}", object_line(object))?;
        if paths.is_empty() {
            // Unreachable objects have no path at all; a reachable one farther than the search
            // goes has one that was not followed.
            if object.distance == jsprof_heap::distances::NO_DISTANCE {
                writeln!(out, "no retaining path: nothing the roots reach holds it")?;
            } else {
                writeln!(
                    out,
                    "no retaining path within --max-depth {} steps: it is farther from the roots \
                     (distance {}); raise --max-depth to see one",
                    args.options.max_depth,
                    fmt_distance(object.distance)
                )?;
            }
        }
        for (i, path) in paths.iter().enumerate() {
            writeln!(out)?;
            writeln!(out, "Path {} ({} steps):", i + 1, path.steps.len())?;
            let table = edge_table(
                "Retainer",
                path.steps
                    .iter()
                    .map(|step| (step.edge.as_str(), &step.retainer)),
            );
            table.write(out)?;
        }
        Ok(())
    })
}
