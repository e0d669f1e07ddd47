//! `[page]`: a page-load trace's metrics at its worst navigation, the p75 over a folder of runs,
//! and the shifts between two folders of runs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use jsprof_document::check::{CheckJson, Measure, Status};

use super::budget::PageBudget;
use super::{
    check, format, skip_abtest, skip_all_but_page, skipped, warnings_at, Args, Budgets, Outcome,
};
use crate::cmd::diff::GroupArgs;
use crate::output;

/// The `[page]` budgets on a trace: each metric at its worst navigation. A metric the trace does
/// not have (no LCP, no interaction) fails, as a missing function does: it would guard nothing.
pub(super) fn check_page(
    loaded: &jsprof_document::load::CpuInput,
    budget: &PageBudget,
    checks: &mut Vec<CheckJson>,
) -> Result<()> {
    if loaded.trace().is_none() {
        checks.push(skipped("page", "", Measure::Ms, "page-load traces only"));
        return Ok(());
    }
    for (_, subject, measure, _) in budget.p75() {
        checks.push(skipped(
            "page",
            subject,
            measure,
            "over runs: FILE a folder of page-load traces",
        ));
    }
    for (_, subject, _) in budget.shifts() {
        checks.push(skipped(
            "page",
            subject,
            Measure::Ms,
            "between runs: --base A/ --target B/",
        ));
    }
    if !budget.single() {
        return Ok(());
    }
    let story = jsprof_document::page::story(loaded)?;
    let v = &story.vitals;
    let worst = |f: &dyn Fn(&jsprof_pageload::NavigationVitals) -> Option<f64>| {
        v.navigations.iter().filter_map(f).reduce(f64::max)
    };
    let mut metric = |subject: &str, measure, value: Option<f64>, limit: Option<f64>, missing| {
        let Some(limit) = limit else { return };
        checks.push(match value {
            Some(value) => check("page", subject, measure, value, limit, None),
            None => CheckJson {
                status: Status::Fail,
                ..check("page", subject, measure, 0.0, limit, Some(missing))
            },
        });
    };
    let lcp = worst(&|n| n.lcp.as_ref().map(|l| l.metric.value / 1000.0));
    let inp = worst(&|n| n.inp.map(|i| v.interactions[i].dur() / 1000.0));
    metric(
        "LCP",
        Measure::Ms,
        lcp,
        budget.max_lcp_ms,
        "no LCP in the trace".to_string(),
    );
    metric(
        "INP",
        Measure::Ms,
        inp,
        budget.max_inp_ms,
        "no interaction in the trace".to_string(),
    );
    let cls = v.navigations.iter().map(|n| n.cls).reduce(f64::max);
    metric(
        "CLS",
        Measure::Score,
        Some(cls.unwrap_or(0.0)),
        budget.max_cls,
        String::new(),
    );
    metric(
        "long-task time",
        Measure::Ms,
        Some(story.long_tasks.total() / 1000.0),
        budget.max_long_task_ms,
        String::new(),
    );
    metric(
        "requests",
        Measure::Count,
        Some(story.requests.len() as f64),
        budget.max_requests.map(|m| m as f64),
        String::new(),
    );
    metric(
        "transfer size",
        Measure::Bytes,
        Some(story.requests.iter().map(|r| r.transfer_size).sum()),
        budget.max_transfer_size.map(|s| s.0 as f64),
        String::new(),
    );
    Ok(())
}

/// `[page]`'s p75 budgets over a folder of runs of a page load (`record --url … --runs N`):
/// each against the 75th percentile `insights DIR` reports. The other budgets need one file.
pub(super) fn check_runs(dir: &Path, budgets: &Budgets) -> Result<Outcome> {
    let page = budgets.page.as_ref().filter(|p| !p.p75().is_empty());
    let Some(page) = page else {
        bail!(
            "{}: a folder is a set of runs of a page load, checked by [page]'s p75 budgets \
             (lcp_p75_ms, fcp_p75_ms, cls_p75, tbt_p75_ms, inp_p75_ms), and the budget file has none",
            dir.display()
        );
    };
    let files = crate::input::files_in(dir)?;
    if files.is_empty() {
        bail!("{}: no traces in this folder", dir.display());
    }
    let runs = crate::cmd::insights::load_runs(&files, false)?;
    let report = jsprof_document::page_runs::runs_report(&runs.reports);
    let mut checks = Vec::new();
    for (metric, subject, measure, limit) in page.p75() {
        checks.push(match report.metrics.iter().find(|m| m.metric == metric) {
            Some(m) => check(
                "page",
                subject,
                measure,
                m.p75,
                limit,
                Some(format!(
                    "{} runs, median {}",
                    m.runs,
                    format(measure, m.median)
                )),
            ),
            None => CheckJson {
                status: Status::Fail,
                ..check(
                    "page",
                    subject,
                    measure,
                    0.0,
                    limit,
                    Some(format!("no run has {metric}")),
                )
            },
        });
    }
    if page.single() {
        checks.push(skipped(
            "page",
            "",
            Measure::Ms,
            "max_* budgets take one trace; over runs give *_p75",
        ));
    }
    for (_, subject, _) in page.shifts() {
        checks.push(skipped(
            "page",
            subject,
            Measure::Ms,
            "between runs: --base A/ --target B/",
        ));
    }
    skip_abtest(budgets, &mut checks);
    skip_all_but_page(
        budgets,
        &mut checks,
        "one file of their kind, not a folder of runs",
    );
    let warnings = warnings_at(&dir.display().to_string(), &report.warnings);
    Ok(("page_runs", warnings, checks))
}

/// `[page]`'s shift budgets over `--base A/ --target B/` when both are page-load runs: each
/// metric's Hodges-Lehmann shift as `diff --base --target` reports it, failing only when the
/// growth is significant (q < alpha) and larger than the budget. `None` when the groups are
/// not page loads.
pub(super) fn check_page_groups(args: &Args, budgets: &Budgets) -> Result<Option<Outcome>> {
    let Some(page) = &budgets.page else {
        return Ok(None);
    };
    let groups = GroupArgs {
        base: args.base.clone(),
        target: args.target.clone(),
        ..GroupArgs::default()
    };
    let (base, target) = groups.files()?;
    let Some((b, t)) = crate::cmd::diff::page_runs(&base, &target)? else {
        return Ok(None);
    };
    let options = jsprof_analysis::abtest::AbOptions {
        alpha: page.alpha.unwrap_or(0.05),
        ..jsprof_analysis::abtest::AbOptions::default()
    };
    let label = |files: &[PathBuf]| crate::cmd::diff::group_label(files);
    let report = jsprof_document::page_diff::page_diff(
        &b.reports,
        &t.reports,
        [&b.weights, &t.weights],
        (&label(&base), &label(&target)),
        options,
    );
    let mut checks = Vec::new();
    for (metric, subject, limit) in page.shifts() {
        let Some(m) = report.metrics.iter().find(|m| m.metric == metric) else {
            checks.push(CheckJson {
                status: Status::Fail,
                ..check(
                    "page",
                    subject,
                    Measure::Ms,
                    0.0,
                    limit,
                    Some(format!("{metric} is not in both groups' runs")),
                )
            });
            continue;
        };
        // The value is the significant growth: a shift the runs cannot tell from noise (or a
        // significant improvement) counts 0, and the note gives it.
        let grew = if m.significant { m.shift.max(0.0) } else { 0.0 };
        let note = format!(
            "shift {}{}, {:.0} % CI [{}, {}], q = {:.2e}{}",
            if m.shift > 0.0 { "+" } else { "" },
            output::fmt_ms(m.shift),
            report.level * 100.0,
            output::fmt_ms(m.shift_low),
            output::fmt_ms(m.shift_high),
            m.q,
            if m.significant {
                ""
            } else {
                ", not significant"
            }
        );
        checks.push(check("page", subject, Measure::Ms, grew, limit, Some(note)));
    }
    if !page.p75().is_empty() || page.single() {
        checks.push(skipped(
            "page",
            "",
            Measure::Ms,
            "p75 budgets take one folder of runs, max_* one trace",
        ));
    }
    if budgets.abtest.is_some() {
        checks.push(skipped(
            "abtest",
            "",
            Measure::SharePercent,
            "page loads: [page]'s shift budgets apply",
        ));
    }
    skip_all_but_page(budgets, &mut checks, "needs one FILE, not groups");
    let warnings = warnings_at("groups", &report.warnings);
    Ok(Some(("page_diff", warnings, checks)))
}
