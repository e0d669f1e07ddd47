//! `jsprof heap detached FILE`: detached DOM trees, their sizes and what keeps each alive.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use jsprof_heap::{
    detached_trees, edge_label, retaining_paths, DominatorTree, PathOptions, RetainerIndex,
};
use serde::Serialize;

use super::{fmt_id, fmt_path, load, truncate, ObjectJson};
use crate::output::{columns, fmt_bytes, JsonWarning};

#[derive(clap::Args)]
pub struct DetachedArgs {
    /// A `.heapsnapshot` (gzip too); `-` for stdin.
    pub file: PathBuf,
    /// How many trees to list; 0 lists all.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct PathStepJson {
    /// The edge as DevTools labels it.
    edge: String,
    id: u32,
    name: String,
    class: String,
}

#[derive(Serialize)]
struct TreeJson {
    root: ObjectJson,
    node_count: u64,
    retained_size: u64,
    /// The shortest retaining path of the tree's root, from the root side down to it; empty when the
    /// root holds it directly or nothing reaches it.
    retaining_path: Vec<PathStepJson>,
}

#[derive(Serialize)]
struct DetachedJson {
    kind: &'static str,
    warnings: Vec<JsonWarning>,
    trees: Vec<TreeJson>,
}

pub fn run(args: DetachedArgs) -> Result<ExitCode> {
    let loaded = load(&args.file)?;
    let s = &loaded.snapshot;
    let a = &loaded.analysis;
    let mut trees = detached_trees(s, a, &DominatorTree::new(s, a));
    if args.limit > 0 {
        trees.truncate(args.limit);
    }
    let index = RetainerIndex::new(s);
    let options = PathOptions {
        max_paths: 1,
        ..PathOptions::default()
    };
    let trees: Vec<TreeJson> = trees
        .into_iter()
        .map(|t| TreeJson {
            root: loaded.object_json(t.root),
            node_count: t.node_count,
            retained_size: t.retained_size,
            retaining_path: retaining_paths(s, a, &index, t.root, options)
                .into_iter()
                .next()
                .map(|p| {
                    p.edges
                        .iter()
                        .rev()
                        .map(|&e| {
                            let from = index.source(s, e);
                            PathStepJson {
                                edge: edge_label(s, e),
                                id: s.nodes.id(from),
                                name: jsprof_heap::display_name(s, from),
                                class: a.class_name(s, from),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let report = DetachedJson {
        kind: s.kind(),
        warnings: loaded.warnings_json(),
        trees,
    };
    loaded.emit(args.json, &report, |out| {
        if report.trees.is_empty() {
            eprintln!(
                "no detached DOM trees in {} (Node.js's own objects, `Detached Node / …` in the \
                 Summary, are not DOM and are not listed)",
                args.file.display()
            );
            return Ok(());
        }
        columns(&report.trees)
            .left("Detached tree", |t| truncate(&t.root.name, 40))
            .right("Id", |t| fmt_id(t.root.id))
            .right("Nodes", |t| t.node_count.to_string())
            .right("Retained size", |t| fmt_bytes(t.retained_size as f64))
            .left("Retained by", |t| {
                let steps = t.retaining_path.iter();
                fmt_path(steps.map(|step| (step.class.as_str(), step.edge.as_str())))
            })
            .write(out)
    })
}
