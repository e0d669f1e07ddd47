//! `[abtest]` over `--base A… --target B…` (files, folders or `--lake` selections): each function
//! whose share grew significantly, against the limit.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use jsprof_analysis::abtest::AbOptions;
use jsprof_analysis::DiffKey;
use jsprof_document::check::Measure;

use super::{check, page::check_page_groups, skipped, Args, Budgets, Outcome};
use crate::cmd::diff::{compare_groups, CompareArgs, GroupArgs};

/// `[abtest]` over `--base` / `--target`: one check per function whose share grew
/// significantly (its Hodges-Lehmann shift against the limit), or one passing check when none
/// did. Every other budget needs one file and is skipped.
pub(super) fn check_groups(args: &Args, budgets: &Budgets) -> Result<Outcome> {
    if args.lake.is_none()
        && budgets
            .page
            .as_ref()
            .is_some_and(|p| !p.shifts().is_empty())
    {
        if let Some(outcome) = check_page_groups(args, budgets)? {
            return Ok(outcome);
        }
    }
    let Some(b) = &budgets.abtest else {
        bail!(
            "{}: --base and --target take an [abtest] budget, and the file has none",
            args.budget.display()
        );
    };
    let groups = GroupArgs {
        base: args.base.clone(),
        target: args.target.clone(),
        stats: crate::cmd::diff::StatsArgs {
            alpha: b.alpha.unwrap_or(0.05),
            noise_floor: b.noise_floor_points.unwrap_or(0.5),
            ..Default::default()
        },
        ..GroupArgs::default()
    };
    let options = groups
        .options()
        .map_err(|e| anyhow!("{}: [abtest]: {e}", args.budget.display()))?;
    let options = AbOptions {
        min_profiles: 3,
        ..options
    };
    let (test, warnings) = match &args.lake {
        Some(lake) => (
            lake_groups(lake, &args.base, &args.target, options)?,
            Vec::new(),
        ),
        None => {
            let (base, target) = groups.files()?;
            let compare = CompareArgs::default();
            let g = compare_groups(&compare, DiffKey::NameUrl, &base, &target, options, false)?;
            (g.test, g.warnings)
        }
    };
    let mut checks = Vec::new();
    let limit = b.max_share_growth_points;
    for f in test.reported() {
        // The larger significant growth of the two shares.
        let grew = [&f.self_share, &f.total_share]
            .iter()
            .filter(|s| s.reported && s.shift.estimate > 0.0)
            .map(|s| s.shift.estimate * 100.0)
            .fold(f64::NAN, f64::max);
        if grew.is_nan() {
            continue;
        }
        let note = (!f.name.1.is_empty()).then(|| f.name.1.clone());
        checks.push(check(
            "abtest",
            &f.name.0,
            Measure::SharePercent,
            grew,
            limit,
            note,
        ));
    }
    if checks.is_empty() {
        checks.push(check(
            "abtest",
            "",
            Measure::SharePercent,
            0.0,
            limit,
            Some("no function's share grew significantly".to_string()),
        ));
    }
    for (present, name) in [
        (!budgets.function.is_empty(), "function"),
        (budgets.gc.is_some(), "gc"),
        (!budgets.class.is_empty(), "class"),
        (budgets.detached_dom.is_some(), "detached_dom"),
        (budgets.page.is_some(), "page"),
    ] {
        if present {
            checks.push(skipped(
                name,
                "",
                Measure::Count,
                "needs one FILE, not groups",
            ));
        }
    }
    Ok(("groups", warnings, checks))
}

/// `[abtest]` over two `--where` selections of a profile lake, as `jsprof lake diff` compares them.
#[cfg(feature = "lake")]
fn lake_groups(
    lake: &Path,
    base: &[PathBuf],
    target: &[PathBuf],
    options: AbOptions,
) -> Result<jsprof_analysis::abtest::AbTest> {
    let terms = |v: &[PathBuf]| -> Result<jsprof_lake::Selection> {
        let terms: Vec<String> = v.iter().map(|p| p.display().to_string()).collect();
        Ok(jsprof_lake::Selection::parse(&terms, None, None)?)
    };
    let (base, target) = (terms(base)?, terms(target)?);
    let (test, _) = crate::cmd::lake::lake_ab_test(lake, &base, &target, None, options)?;
    Ok(test)
}

#[cfg(not(feature = "lake"))]
fn lake_groups(
    _lake: &Path,
    _base: &[PathBuf],
    _target: &[PathBuf],
    _options: AbOptions,
) -> Result<jsprof_analysis::abtest::AbTest> {
    bail!("check --lake: {}", jsprof_server::WITHOUT_LAKE)
}
