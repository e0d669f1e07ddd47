//! The budget file: its sections as types (`[[function]]`, `[gc]`, `[page]`, `[[class]]`,
//! `[detached_dom]`, `[leaks]`, `[abtest]`), its reading and checking, and the help that shows it.

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use jsprof_document::check::Measure;
use serde::Deserialize;

use crate::output;

/// The budget file's format, shown by `jsprof check --help` (the example is a file that parses).
pub const BUDGET_HELP: &str = "\
The budget file (TOML); every section is optional, and any may repeat where marked [[…]]:

  [[function]]                # CPU profiles and traces
  name = \"render\"             # the function's name, exactly
  url = \"app.js\"              # optional: a substring of its URL, to tell same-named ones apart
  max_total_ms = 50           # and/or max_self_ms = 20

  [gc]                        # CPU profiles and traces
  max_share_percent = 10      # (garbage collector) self time over the profile's duration

  [page]                      # page-load traces (the worst navigation)
  max_lcp_ms = 2500           # and/or max_inp_ms, max_cls, max_long_task_ms, max_requests,
  max_cls = 0.1               # max_transfer_size (\"2 MB\")
  lcp_p75_ms = 2500           # FILE a folder of runs (record --url URL --runs N): the 75th
  fcp_p75_ms = 1800           # percentile over them (and cls_p75, tbt_p75_ms, inp_p75_ms)
  max_lcp_shift_ms = 50       # --base A/ --target B/, folders of runs: fails only on a growth
  max_fcp_shift_ms = 50       # that is significant (q < alpha) and larger (Hodges-Lehmann)
  alpha = 0.05                # optional, for the shifts (default 0.05)

  [[class]]                   # heap snapshots
  name = \"Cache\"              # the Summary's class (constructor) name
  max_retained_size = \"20 MB\" # bytes, or B/KB/MB/GB (1 KB = 1024 B); and/or max_count = 1000

  [detached_dom]              # heap snapshots
  max_nodes = 0               # detached DOM nodes in all detached trees; 0 = none at all

  [leaks]                     # a series of 3 to 50 heap snapshots: SNAP1 SNAP2 … or a directory
  max_growing_groups = 0      # groups `jsprof heap leaks` calls growing; and/or
  max_growth_per_snapshot = \"1 MB\" # each growing group's retained growth per snapshot
  alpha = 0.05                # optional: the trend test's significance level (default 0.05)

  [abtest]                    # two groups: --base A… --target B… instead of FILE
  max_share_growth_points = 2 # no function's share grew significantly by more than 2 points
  alpha = 0.05                # optional: significance of the Benjamini-Hochberg q-value
  noise_floor_points = 0.5    # optional: shifts smaller than this are noise

Budgets that do not apply to FILE's kind are skipped; a file none of whose budgets applies is an
error. A function the profile does not contain fails (\"not in the profile\").
Exit status: 0 every budget holds, 1 one is exceeded, 2 FILE or the budget file cannot be read.
Example: jsprof check app.cpuprofile --budget budget.toml";

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct Budgets {
    #[serde(default)]
    pub(super) function: Vec<FunctionBudget>,
    pub(super) gc: Option<GcBudget>,
    #[serde(default)]
    pub(super) class: Vec<ClassBudget>,
    pub(super) detached_dom: Option<DetachedBudget>,
    pub(super) page: Option<PageBudget>,
    pub(super) abtest: Option<AbTestBudget>,
    pub(super) leaks: Option<LeaksBudget>,
}

/// `[leaks]`: over a series of snapshots, the groups `heap leaks` calls growing.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct LeaksBudget {
    pub(super) max_growing_groups: Option<u64>,
    pub(super) max_growth_per_snapshot: Option<Size>,
    pub(super) alpha: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct AbTestBudget {
    pub(super) max_share_growth_points: f64,
    pub(super) alpha: Option<f64>,
    pub(super) noise_floor_points: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct PageBudget {
    pub(super) max_lcp_ms: Option<f64>,
    pub(super) max_inp_ms: Option<f64>,
    pub(super) max_cls: Option<f64>,
    pub(super) max_long_task_ms: Option<f64>,
    pub(super) max_requests: Option<u64>,
    pub(super) max_transfer_size: Option<Size>,
    /// Over a folder of runs (FILE a directory of page-load traces): the metric's 75th
    /// percentile, as `insights DIR` computes it.
    fcp_p75_ms: Option<f64>,
    lcp_p75_ms: Option<f64>,
    cls_p75: Option<f64>,
    tbt_p75_ms: Option<f64>,
    inp_p75_ms: Option<f64>,
    /// With --base A/ --target B/ (folders of runs): the largest significant growth allowed
    /// (the Hodges-Lehmann shift of `diff --base --target`, failing only when its q-value is
    /// below `alpha`).
    pub(super) max_fcp_shift_ms: Option<f64>,
    pub(super) max_lcp_shift_ms: Option<f64>,
    /// The shifts' significance (default 0.05).
    pub(super) alpha: Option<f64>,
}

impl PageBudget {
    /// The p75 budgets over runs: (metric of `insights DIR`, subject, measure, limit).
    pub(super) fn p75(&self) -> Vec<(&'static str, &'static str, Measure, f64)> {
        [
            ("fcp_ms", "FCP p75", Measure::Ms, self.fcp_p75_ms),
            ("lcp_ms", "LCP p75", Measure::Ms, self.lcp_p75_ms),
            ("cls", "CLS p75", Measure::Score, self.cls_p75),
            ("tbt_ms", "TBT p75", Measure::Ms, self.tbt_p75_ms),
            ("inp_ms", "INP p75", Measure::Ms, self.inp_p75_ms),
        ]
        .into_iter()
        .filter_map(|(m, s, u, l)| Some((m, s, u, l?)))
        .collect()
    }

    /// The shift budgets between two folders of runs: (metric, subject, limit).
    pub(super) fn shifts(&self) -> Vec<(&'static str, &'static str, f64)> {
        [
            ("fcp_ms", "FCP shift", self.max_fcp_shift_ms),
            ("lcp_ms", "LCP shift", self.max_lcp_shift_ms),
        ]
        .into_iter()
        .filter_map(|(m, s, l)| Some((m, s, l?)))
        .collect()
    }

    /// Whether it has a budget for one trace.
    pub(super) fn single(&self) -> bool {
        self.max_lcp_ms.is_some()
            || self.max_inp_ms.is_some()
            || self.max_cls.is_some()
            || self.max_long_task_ms.is_some()
            || self.max_requests.is_some()
            || self.max_transfer_size.is_some()
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct FunctionBudget {
    pub(super) name: String,
    pub(super) url: Option<String>,
    pub(super) max_total_ms: Option<f64>,
    pub(super) max_self_ms: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct GcBudget {
    pub(super) max_share_percent: f64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct ClassBudget {
    pub(super) name: String,
    pub(super) max_retained_size: Option<Size>,
    pub(super) max_count: Option<u64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct DetachedBudget {
    #[serde(default)]
    pub(super) max_nodes: u64,
}

/// Bytes: an integer, or a string with a unit (`"20 MB"`).
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(try_from = "SizeText")]
pub(super) struct Size(pub(super) u64);

#[derive(Deserialize)]
#[serde(untagged)]
enum SizeText {
    Bytes(u64),
    Text(String),
}

impl TryFrom<SizeText> for Size {
    type Error = String;
    fn try_from(v: SizeText) -> Result<Size, String> {
        match v {
            SizeText::Bytes(b) => Ok(Size(b)),
            SizeText::Text(t) => parse_size(&t).map(Size),
        }
    }
}

fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("bad size `{text}`: expected e.g. 20 MB, 512 KB or 1048576"))?;
    let Some(shift) = crate::size_arg::unit_shift(unit) else {
        return Err(format!(
            "bad size `{text}`: the unit must be B, KB, MB or GB"
        ));
    };
    Ok((value * (1u64 << shift) as f64).round() as u64)
}

/// A value of a measure for the text report, with its unit.
pub(super) fn format(measure: Measure, v: f64) -> String {
    match measure {
        Measure::TotalMs | Measure::SelfMs => output::fmt_ms(v),
        Measure::SharePercent => output::fmt_percent(v),
        Measure::RetainedSize => output::fmt_bytes(v),
        Measure::Count | Measure::Nodes => format!("{v:.0}"),
        Measure::Ms => output::fmt_ms(v),
        Measure::Score => format!("{v:.3}"),
        Measure::Bytes => output::fmt_bytes(v),
    }
}

pub(super) fn read_budgets(path: &Path) -> Result<Budgets> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the budget file {}", path.display()))?;
    let budgets: Budgets = toml::from_str(&text)
        .map_err(|e| anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
    for f in &budgets.function {
        if f.max_total_ms.is_none() && f.max_self_ms.is_none() {
            bail!(
                "{}: the budget of function `{}` sets neither max_total_ms nor max_self_ms",
                path.display(),
                f.name
            );
        }
    }
    for c in &budgets.class {
        if c.max_retained_size.is_none() && c.max_count.is_none() {
            bail!(
                "{}: the budget of class `{}` sets neither max_retained_size nor max_count",
                path.display(),
                c.name
            );
        }
    }
    if let Some(p) = &budgets.page {
        if !p.single() && p.p75().is_empty() && p.shifts().is_empty() {
            bail!(
                "{}: [page] sets no budget (max_lcp_ms, max_inp_ms, max_cls, max_long_task_ms, \
                 max_requests, max_transfer_size; over runs lcp_p75_ms, fcp_p75_ms, cls_p75, \
                 tbt_p75_ms, inp_p75_ms; between runs max_lcp_shift_ms, max_fcp_shift_ms)",
                path.display()
            );
        }
        if let Some(a) = p.alpha {
            if !(a > 0.0 && a < 1.0) {
                bail!(
                    "{}: [page] alpha must be between 0 and 1, not {a}",
                    path.display()
                );
            }
        }
    }
    if let Some(l) = &budgets.leaks {
        if l.max_growing_groups.is_none() && l.max_growth_per_snapshot.is_none() {
            bail!(
                "{}: [leaks] sets no budget (max_growing_groups, max_growth_per_snapshot)",
                path.display()
            );
        }
        if l.alpha.is_some_and(|a| !(a > 0.0 && a < 1.0)) {
            bail!(
                "{}: [leaks] alpha must be between 0 and 1 (e.g. 0.05)",
                path.display()
            );
        }
    }
    Ok(budgets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_size("20 MB"), Ok(20 * 1024 * 1024));
        assert_eq!(parse_size("1.5KB"), Ok(1536));
        assert_eq!(parse_size("512"), Ok(512));
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("MB").is_err());
    }
}
