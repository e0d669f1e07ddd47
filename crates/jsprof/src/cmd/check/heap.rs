//! `[[class]]` and `[detached_dom]` on one heap snapshot.

use std::path::Path;

use anyhow::Result;
use jsprof_document::check::Measure;
use jsprof_heap::{detached_trees, summary, DominatorTree, SortBy};

use super::{check, skipped, Budgets, Outcome};
use crate::output::{self, JsonWarning};

pub(super) fn check_heap(path: &Path, budgets: &Budgets) -> Result<Outcome> {
    let loaded = crate::cmd::heap::load(path)?;
    let (snapshot, analysis) = (&loaded.snapshot, &loaded.analysis);
    let mut checks = Vec::new();
    if budgets.leaks.is_some() {
        checks.push(skipped(
            "leaks",
            "",
            Measure::Count,
            "a series of snapshots only (SNAP1 SNAP2 … or a directory)",
        ));
    }
    for f in &budgets.function {
        checks.push(skipped(
            "function",
            &f.name,
            Measure::TotalMs,
            "CPU profiles only",
        ));
    }
    if budgets.gc.is_some() {
        checks.push(skipped(
            "gc",
            "",
            Measure::SharePercent,
            "CPU profiles only",
        ));
    }
    if budgets.page.is_some() {
        checks.push(skipped("page", "", Measure::Ms, "page-load traces only"));
    }
    if !budgets.class.is_empty() {
        let rows = summary(snapshot, analysis, SortBy::Retained);
        for c in &budgets.class {
            let matching: Vec<_> = rows.iter().filter(|r| r.name == c.name).collect();
            let note = match matching.len() {
                0 => Some("no such class in the snapshot".to_string()),
                1 => None,
                n => Some(format!("{n} classes of this name, summed")),
            };
            let sum = |of: fn(&&jsprof_heap::ClassRow) -> u64| {
                matching.iter().map(of).sum::<u64>() as f64
            };
            for (limit, measure, value) in [
                (
                    c.max_retained_size.map(|s| s.0),
                    Measure::RetainedSize,
                    sum(|r| r.retained_size),
                ),
                (c.max_count, Measure::Count, sum(|r| r.count)),
            ] {
                if let Some(limit) = limit {
                    checks.push(check(
                        "class",
                        &c.name,
                        measure,
                        value,
                        limit as f64,
                        note.clone(),
                    ));
                }
            }
        }
    }
    if let Some(d) = &budgets.detached_dom {
        let trees: Vec<_> =
            detached_trees(snapshot, analysis, &DominatorTree::new(snapshot, analysis))
                .into_iter()
                .filter(|t| {
                    !jsprof_heap::display_name(snapshot, t.root).starts_with("Detached Node / ")
                })
                .collect();
        let nodes: u64 = trees.iter().map(|t| t.node_count).sum();
        let note = trees.first().map(|t| {
            format!(
                "{} trees; largest: {} ({} nodes, {})",
                trees.len(),
                jsprof_heap::display_name(snapshot, t.root),
                t.node_count,
                output::fmt_bytes(t.retained_size as f64)
            )
        });
        checks.push(check(
            "detached_dom",
            "",
            Measure::Nodes,
            nodes as f64,
            d.max_nodes as f64,
            note,
        ));
    }
    let warnings = snapshot
        .warnings
        .iter()
        .map(|w| JsonWarning {
            at: w.at.clone(),
            message: w.message.clone(),
        })
        .collect();
    Ok(("heapsnapshot", warnings, checks))
}
