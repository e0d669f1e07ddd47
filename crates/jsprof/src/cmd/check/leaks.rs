//! `[leaks]` over a series of heap snapshots: the groups `heap leaks` calls growing.

use std::path::Path;

use anyhow::{bail, Result};
use jsprof_document::check::Measure;

use super::{check, skip_abtest, skipped, Args, Budgets, Outcome};

/// `[leaks]` over a series of snapshots (FILE and the rest, or a directory): one check of the
/// number of growing groups, and one per growing group of its retained growth per snapshot (or
/// one passing check when none grows). Every other budget needs one file and is skipped.
pub(super) fn check_leaks(args: &Args, file: &Path, budgets: &Budgets) -> Result<Outcome> {
    let Some(b) = &budgets.leaks else {
        bail!(
            "{}: a series of heap snapshots takes a [leaks] budget, and the file has none",
            args.budget.display()
        );
    };
    let mut given = vec![file.to_path_buf()];
    given.extend(args.more.iter().cloned());
    let (files, _) = crate::cmd::heap::leaks::series_files(&given)?;
    if files.len() < jsprof_document::leak_series::MIN_SNAPSHOTS {
        bail!(
            "[leaks] takes a series of {} to {} heap snapshots; {} given",
            jsprof_document::leak_series::MIN_SNAPSHOTS,
            jsprof_document::leak_series::MAX_SNAPSHOTS,
            files.len()
        );
    }
    let report = crate::cmd::heap::leaks::series_report(
        &files,
        jsprof_document::leak_series::LeakSeriesOptions {
            alpha: b.alpha.unwrap_or(0.05),
            ..Default::default()
        },
        // Budgets name DevTools' classes; the originals are not read.
        &jsprof_document::source_maps::SourceMaps::off(),
    )?;
    let mut checks = Vec::new();
    let growing = &report.groups;
    let name = |g: &jsprof_document::leak_series::LeakSeriesGroupJson| {
        if g.path.is_empty() {
            g.class.clone()
        } else {
            let path = jsprof_document::leak_series::path_text(&g.path);
            format!("{} via {path}", g.class)
        }
    };
    if let Some(limit) = b.max_growing_groups {
        let note = (!growing.is_empty()).then(|| {
            let names: Vec<String> = growing.iter().take(3).map(|g| g.class.clone()).collect();
            format!(
                "{}{}",
                names.join(", "),
                if growing.len() > 3 { ", …" } else { "" }
            )
        });
        checks.push(check(
            "leaks",
            "",
            Measure::Count,
            growing.len() as f64,
            limit as f64,
            note,
        ));
    }
    if let Some(limit) = b.max_growth_per_snapshot {
        if growing.is_empty() {
            checks.push(check(
                "leaks",
                "any group",
                Measure::RetainedSize,
                0.0,
                limit.0 as f64,
                Some("no growing group".to_string()),
            ));
        }
        for g in growing {
            let rate = g.retained_trend.per_snapshot.max(0.0).round();
            checks.push(check(
                "leaks",
                &name(g),
                Measure::RetainedSize,
                rate,
                limit.0 as f64,
                Some(format!(
                    "p = {}, {} objects in the last snapshot",
                    jsprof_document::leak_series::p_text(
                        g.retained_trend.p_value.min(g.count_trend.p_value)
                    ),
                    g.count.last().copied().unwrap_or(0)
                )),
            ));
        }
    }
    let one_file = "one file only, not a series";
    for f in &budgets.function {
        checks.push(skipped("function", &f.name, Measure::TotalMs, one_file));
    }
    if budgets.gc.is_some() {
        checks.push(skipped("gc", "", Measure::SharePercent, one_file));
    }
    if budgets.page.is_some() {
        checks.push(skipped("page", "", Measure::Ms, one_file));
    }
    for c in &budgets.class {
        checks.push(skipped("class", &c.name, Measure::RetainedSize, one_file));
    }
    if budgets.detached_dom.is_some() {
        checks.push(skipped("detached_dom", "", Measure::Nodes, one_file));
    }
    skip_abtest(budgets, &mut checks);
    Ok(("heapsnapshot", report.warnings, checks))
}
