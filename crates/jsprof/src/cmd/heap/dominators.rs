//! `jsprof heap dominators FILE`: the dominator tree with retained sizes, largest first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_document::heap_source_maps::{ListsObjects, Placed};
use jsprof_heap::{DominatorTree, NodeOrdinal};
use serde::Serialize;

use super::{fmt_distance, fmt_id, load, object_places, truncate, Loaded, ObjectJson};
use crate::output::{columns, fmt_bytes, fmt_percent, JsonWarning};

#[derive(clap::Args)]
pub struct DominatorsArgs {
    /// A `.heapsnapshot` or `.heaptimeline` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// Start from this object (default: the root); `@297807` or `297807`.
    #[arg(long, value_parser = super::parse_node_id)]
    pub id: Option<u32>,
    /// Levels below the start to show.
    #[arg(long, default_value_t = 3)]
    pub depth: usize,
    /// Hide objects retaining less than this many bytes.
    #[arg(long, default_value_t = 0)]
    pub min_size: u64,
    /// Children shown per object (largest first); 0 shows all.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Originals beside DevTools' names (docs/heap.md, "Source maps").
    #[command(flatten)]
    pub source_maps: crate::transform_args::SourceMapArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct TreeJson {
    #[serde(flatten)]
    object: ObjectJson,
    children: Vec<TreeJson>,
    /// Dominated objects left out by `--depth`, `--min-size` or `--limit`.
    omitted_children: usize,
}

#[derive(Serialize)]
struct DominatorsJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    root: TreeJson,
}

fn build(
    loaded: &Loaded,
    tree: &DominatorTree,
    n: NodeOrdinal,
    depth: usize,
    args: &DominatorsArgs,
) -> TreeJson {
    let all = tree.children(n);
    let mut children = Vec::new();
    if depth < args.depth {
        for &c in all {
            if loaded.analysis.retained[c.index()] < args.min_size
                || (args.limit > 0 && children.len() >= args.limit)
            {
                break;
            }
            children.push(build(loaded, tree, c, depth + 1, args));
        }
    }
    TreeJson {
        object: loaded.object_json(n),
        omitted_children: all.len() - children.len(),
        children,
    }
}

/// The tree under `node` in the table's order (depth first), each node with its depth.
impl ListsObjects for TreeJson {
    fn each_object(&mut self, f: &mut dyn FnMut(&mut dyn Placed)) {
        f(&mut self.object);
        self.children.each_object(f);
    }
}

fn rows<'a>(node: &'a TreeJson, depth: usize, rows: &mut Vec<(usize, &'a TreeJson)>) {
    rows.push((depth, node));
    for child in &node.children {
        self::rows(child, depth + 1, rows);
    }
}

pub fn run(args: DominatorsArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let s = &loaded.snapshot;
    let start = match args.id {
        Some(id) => loaded.ordinal_of(id)?,
        None => s.root,
    };
    let tree = DominatorTree::new(s, &loaded.analysis);
    let root = build(&loaded, &tree, start, 0, &args);
    let mut report = DominatorsJson {
        kind: s.kind(),
        warnings: loaded.warnings_json(),
        root,
    };
    let notes = loaded.map_objects(&mut report.root, &args.source_maps)?;
    report.warnings.extend(notes);
    loaded.emit(args.json, &report, |out| {
        let total = loaded.analysis.total_size;
        let mut all = Vec::new();
        rows(&report.root, 0, &mut all);
        let table = columns(all)
            .left("Object", |(depth, node)| {
                let mut name =
                    format!("{}{}", "  ".repeat(*depth), truncate(&node.object.name, 60));
                if node.omitted_children > 0 && !node.children.is_empty() {
                    name.push_str(&format!(" (+{} more)", node.omitted_children));
                }
                name
            })
            .left("Class", |(_, n)| truncate(&n.object.class, 30))
            .right("Id", |(_, n)| fmt_id(n.object.id))
            .right("Distance", |(_, n)| fmt_distance(n.object.distance))
            .right("Self size", |(_, n)| fmt_bytes(n.object.self_size as f64))
            .right("Retained size", |(_, n)| {
                fmt_bytes(n.object.retained_size as f64)
            })
            .right("Retained %", move |(_, n)| {
                fmt_percent(if total == 0 {
                    0.0
                } else {
                    n.object.retained_size as f64 * 100.0 / total as f64
                })
            });
        object_places(table, |(_, n)| &n.object).write(out)
    })
}
