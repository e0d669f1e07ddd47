//! `[[function]]` and `[gc]` on a CPU profile or trace (and `[page]` on a page-load trace).

use std::path::Path;

use anyhow::{bail, Result};
use jsprof_analysis::{function_table, summarize, weight_where};
use jsprof_document::check::{Measure, Status};
use jsprof_document::load::{Pipeline, ViewSpec};
use jsprof_profile::WeightUnit;

use super::page::check_page;
use super::{check, skipped, Args, Budgets, Outcome};
use crate::cmd::top::warnings_json;
use crate::load::load_cpu;
use crate::output;

pub(super) fn check_cpu(args: &Args, file: &Path, budgets: &Budgets) -> Result<Outcome> {
    let loaded = load_cpu(file, &Pipeline::default())?;
    // The functions' numbers are `jsprof top`'s: a trace thread's entries, as DevTools shows them.
    let weighted = loaded.weighted(&ViewSpec {
        thread: args.thread.clone(),
        ..ViewSpec::default()
    })?;
    let profile = &*weighted.profile;
    let thread = weighted.thread();
    if thread.weight_unit() == WeightUnit::Bytes {
        bail!(
            "{}: a heap profile weighs bytes; budgets take CPU profiles, traces and heap snapshots",
            loaded.name
        );
    }
    let mut checks = Vec::new();
    for f in &budgets.function {
        let (self_w, total_w) = weight_where(profile, thread, |frame| {
            profile.strings.get(frame.name) == f.name
                && f.url
                    .as_deref()
                    .is_none_or(|u| profile.strings.get(frame.url).contains(u))
        });
        let note = (total_w == 0).then(|| "not in the profile".to_string());
        for (limit, measure, weight) in [
            (f.max_total_ms, Measure::TotalMs, total_w),
            (f.max_self_ms, Measure::SelfMs, self_w),
        ] {
            if let Some(limit) = limit {
                let ms = jsprof_profile::ns_to_ms(weight);
                checks.push(check("function", &f.name, measure, ms, limit, note.clone()));
            }
        }
        // A budget for a function the profile does not have guards nothing (a renamed function,
        // a typo): it fails, so CI says so instead of passing silently.
        if note.is_some() {
            for c in checks.iter_mut().filter(|c| c.subject == f.name) {
                c.status = Status::Fail;
            }
        }
    }
    if let Some(gc) = &budgets.gc {
        let table = function_table(profile, thread);
        let s = summarize(profile, thread, &table);
        let span = s.end - s.start;
        let share = if span > 0 {
            s.meta.gc as f64 * 100.0 / span as f64
        } else {
            0.0
        };
        checks.push(check(
            "gc",
            "",
            Measure::SharePercent,
            share,
            gc.max_share_percent,
            Some(format!(
                "{} of GC",
                output::fmt_ms(jsprof_profile::ns_to_ms(s.meta.gc))
            )),
        ));
    }
    if let Some(page) = &budgets.page {
        check_page(&loaded, page, &mut checks)?;
    }
    for c in &budgets.class {
        checks.push(skipped(
            "class",
            &c.name,
            Measure::RetainedSize,
            "heap snapshots only",
        ));
    }
    if budgets.detached_dom.is_some() {
        checks.push(skipped(
            "detached_dom",
            "",
            Measure::Nodes,
            "heap snapshots only",
        ));
    }
    Ok((profile.kind.as_str(), warnings_json(profile), checks))
}
