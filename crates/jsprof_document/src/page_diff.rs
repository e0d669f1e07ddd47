//! Two builds of a page compared: `jsprof diff --base A/ --target B/` over two folders of runs
//! of a page load (`record --url … --runs N`). One load is noise, so each metric of
//! `insights DIR` ([`crate::page_runs`]) is compared as two distributions: the Hodges-Lehmann
//! shift (target − base: the median of every pairwise difference) with its distribution-free
//! 95 % interval, and the Mann-Whitney p-value adjusted with Benjamini-Hochberg over the
//! metrics (`jsprof_analysis::abtest::sample_tests`, the engine of `diff --base --target` on
//! profiles). A metric changed when its q-value is below alpha.
//!
//! Then the insights that changed: requests that became (or stopped being) render-blocking, on
//! the critical path or uncached — so in at least half the runs of one side and fewer than half
//! of the other's — third
//! parties whose main-thread time or transfer size grew significantly (a third party absent
//! from a run counts 0 there, tested as the metrics are, in a family of their own), the
//! long tasks' count, and the functions whose share of the main thread changed: the runs'
//! main-thread entries (the Performance panel's, the time the long tasks are made of) tested
//! per function as `diff --base --target --functions` tests them.

use std::collections::{BTreeMap, BTreeSet};

use jsprof_analysis::abtest::{ab_test, sample_tests, AbOptions, ProfileWeights, SampleTest};
use schemars::JsonSchema;
use serde::Serialize;

use crate::insights::{InsightsJson, InsightsReport};
use crate::page_runs::{runs_report, PageRunsReport, METRICS};

/// The confidence level of every interval.
pub const LEVEL: f64 = 0.95;

/// Two folders of page-load runs compared.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PageDiffReport {
    /// `page_diff`.
    pub kind: &'static str,
    pub base: PageSideJson,
    pub target: PageSideJson,
    /// A change is significant when its Benjamini-Hochberg q-value is below this.
    pub alpha: f64,
    /// The intervals' confidence level (0.95).
    pub level: f64,
    /// Per metric of `insights DIR` that both sides have, in its order (but `long_tasks`).
    pub metrics: Vec<MetricShiftJson>,
    /// The number of long tasks per run (the metric `long_tasks`), compared with the metrics
    /// in one family: a significant growth means new long tasks.
    pub long_tasks: MetricShiftJson,
    /// Requests that became or stopped being render-blocking.
    pub render_blocking: Vec<BlockingChangeJson>,
    /// Requests that came onto or left the critical path: the longest chain of requests the
    /// page waited on (the network dependency tree's), past the document.
    pub critical_path: Vec<BlockingChangeJson>,
    /// Requests that became or stopped being uncached: static resources with a cache
    /// lifetime too short for a repeat visit (the cache insight's).
    pub uncached: Vec<BlockingChangeJson>,
    /// Third parties (DevTools' entities) whose main-thread time or transfer size grew
    /// significantly, largest main-thread growth first.
    pub third_parties: Vec<ThirdPartyChangeJson>,
    /// Functions (matched by name and URL) whose self or total share of the main thread
    /// changed significantly by at least the noise floor, largest self shift first: what the
    /// new long tasks run. `diff --base --target --functions --json`'s `changes` on the same
    /// runs.
    pub functions: Vec<crate::abtest::AbFunctionJson>,
    /// What the sides' runs warned about (runs of another page, runs without a navigation).
    pub warnings: Vec<String>,
}

/// One side: what it was, its runs and the run to open.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PageSideJson {
    /// The folder or files as given.
    pub selection: String,
    pub runs: usize,
    /// The page's URL (its first run's).
    pub url: Option<String>,
    /// The file of the run closest to the side's FCP and LCP medians (`insights DIR`'s
    /// `median_run`).
    pub median_run: Option<String>,
}

/// One measure compared between the sides.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MetricShiftJson {
    /// `fcp_ms`, `lcp_ms`, … as in `insights DIR`; `long_tasks` for the count.
    pub metric: String,
    pub base_runs: usize,
    pub target_runs: usize,
    pub base_median: f64,
    pub target_median: f64,
    /// Hodges-Lehmann: the median of the differences target − base over every pair of runs.
    pub shift: f64,
    /// The shift's 95 % interval.
    pub shift_low: f64,
    pub shift_high: f64,
    /// Mann-Whitney, two-sided.
    pub p: f64,
    /// Benjamini-Hochberg over the metrics (and the long tasks' count).
    pub q: f64,
    /// q < alpha.
    pub significant: bool,
}

/// A request that became, or stopped being, what its list says (render-blocking, on the
/// critical path, uncached) in most runs of a side.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct BlockingChangeJson {
    pub url: String,
    /// `became` (blocking in the target's runs, not the base's) or `stopped`.
    pub change: &'static str,
    /// Runs of each side that list it.
    pub base_runs: usize,
    pub target_runs: usize,
}

/// A third party that grew.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ThirdPartyChangeJson {
    pub entity: String,
    pub base_main_thread_ms: f64,
    pub target_main_thread_ms: f64,
    /// The main-thread time's shift (Hodges-Lehmann) and its q-value.
    pub main_thread_shift_ms: f64,
    pub main_thread_q: f64,
    /// Median transfer sizes, bytes.
    pub base_transfer_size: f64,
    pub target_transfer_size: f64,
    pub transfer_shift_bytes: f64,
    pub transfer_q: f64,
    /// Runs of each side in which it appears.
    pub base_runs: usize,
    pub target_runs: usize,
}

/// A third party in each run of a side: (main-thread ms, transfer bytes, present).
type EntityRuns = Vec<(f64, f64, bool)>;

/// The measures of one side, per run.
struct Side<'a> {
    runs: &'a [(String, InsightsReport)],
    report: PageRunsReport,
}

impl Side<'_> {
    /// Per URL, the runs whose first navigation lists it (`urls` of that navigation's
    /// insights: the render-blocking requests, the critical path, the uncached ones).
    fn counted(&self, urls: fn(&InsightsJson) -> Vec<&str>) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for (_, r) in self.runs {
            let listed: BTreeSet<&str> = crate::page_runs::first_navigation(r)
                .map(|n| urls(&n.insights).into_iter().collect())
                .unwrap_or_default();
            for url in listed {
                *out.entry(url.to_string()).or_insert(0) += 1;
            }
        }
        out
    }

    /// Per third party, each run's (main-thread ms, transfer bytes); 0 where it is absent.
    fn third_parties(&self) -> BTreeMap<String, EntityRuns> {
        let mut names = BTreeSet::new();
        for e in self.runs.iter().flat_map(|(_, r)| entities(r)) {
            names.insert(e.entity.clone());
        }
        names
            .into_iter()
            .map(|name| {
                let per_run = self
                    .runs
                    .iter()
                    .map(|(_, r)| {
                        entities(r)
                            .find(|e| e.entity == name)
                            .map_or((0.0, 0.0, false), |e| {
                                (e.main_thread_ms, e.transfer_size as f64, true)
                            })
                    })
                    .collect();
                (name, per_run)
            })
            .collect()
    }
}

/// A run's third-party entities (not the first party).
fn entities(r: &InsightsReport) -> impl Iterator<Item = &crate::insights::EntityJson> {
    crate::page_runs::first_navigation(r)
        .and_then(|n| n.insights.third_parties.as_ref())
        .into_iter()
        .flat_map(|t| t.entities.iter())
        .filter(|e| !e.first_party)
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    crate::page_runs::quantile(&v, 0.5)
}

fn shift_row(metric: &str, base: &[f64], target: &[f64], t: &SampleTest) -> MetricShiftJson {
    MetricShiftJson {
        metric: metric.to_string(),
        base_runs: base.len(),
        target_runs: target.len(),
        base_median: median(base),
        target_median: median(target),
        shift: t.shift.estimate,
        shift_low: t.shift.low,
        shift_high: t.shift.high,
        p: t.test.p,
        q: t.q,
        significant: t.significant,
    }
}

/// The URLs whose membership changed: listed in at least half the runs of one side and fewer
/// than half of the other's (`counts`: per side, per URL, the runs listing it; `runs`: each
/// side's runs).
fn url_changes(
    counts: [BTreeMap<String, usize>; 2],
    runs: (usize, usize),
) -> Vec<BlockingChangeJson> {
    let [base, target] = counts;
    let mostly = |listed: usize, of: usize| of > 0 && 2 * listed >= of;
    let urls: BTreeSet<&String> = base.keys().chain(target.keys()).collect();
    urls.into_iter()
        .filter_map(|url| {
            let (x, y) = (
                base.get(url).copied().unwrap_or(0),
                target.get(url).copied().unwrap_or(0),
            );
            let change = match (mostly(x, runs.0), mostly(y, runs.1)) {
                (false, true) => "became",
                (true, false) => "stopped",
                _ => return None,
            };
            Some(BlockingChangeJson {
                url: url.clone(),
                change,
                base_runs: x,
                target_runs: y,
            })
        })
        .collect()
}

/// A measure's values over the base's runs and over the target's.
type Pair = (Vec<f64>, Vec<f64>);

/// Each metric of [`METRICS`] that both sides' runs have (each run's values as
/// [`crate::page_runs::run_values`] reads them), compared in that order as one
/// Benjamini-Hochberg family. `diff --base A/ --target B/` and `lake diff --page-loads` both
/// compare with it, the second over the values the lake stored.
pub fn metric_shifts(
    base: &[BTreeMap<String, f64>],
    target: &[BTreeMap<String, f64>],
    alpha: f64,
) -> Vec<MetricShiftJson> {
    let column = |runs: &[BTreeMap<String, f64>], metric: &str| -> Vec<f64> {
        runs.iter().filter_map(|r| r.get(metric).copied()).collect()
    };
    let (names, family): (Vec<&str>, Vec<Pair>) = METRICS
        .iter()
        .map(|&m| (m, (column(base, m), column(target, m))))
        .filter(|(_, (b, t))| !b.is_empty() && !t.is_empty())
        .unzip();
    let tests = sample_tests(&family, alpha, LEVEL);
    names
        .iter()
        .zip(&family)
        .zip(&tests)
        .map(|((m, (b, t)), test)| shift_row(m, b, t, test))
        .collect()
}

/// A run's main-thread function weights (the default thread, matched by name and URL), as
/// `diff --base --target --functions` weighs a trace: what [`page_diff`] tests per function.
pub fn run_weights(input: &crate::load::CpuInput) -> crate::Result<ProfileWeights> {
    let spec = crate::diff::side_spec(input, &crate::load::ViewSpec::default());
    let w = input.weighted(&spec)?;
    Ok(ProfileWeights::of_thread(
        &w.profile,
        w.thread(),
        jsprof_analysis::DiffKey::NameUrl,
    ))
}

/// Compares the target's runs with the base's (each a run's name and its insights document;
/// `weights`, each side's runs' [`run_weights`] in the same order). `options.alpha` is every
/// test's; the noise floor and the fewest profiles apply to the functions.
pub fn page_diff(
    base: &[(String, InsightsReport)],
    target: &[(String, InsightsReport)],
    weights: [&[ProfileWeights]; 2],
    labels: (&str, &str),
    options: AbOptions,
) -> PageDiffReport {
    let alpha = options.alpha;
    let sides = [base, target].map(|runs| Side {
        runs,
        report: runs_report(runs),
    });
    let [b, t] = &sides;
    let values = |s: &Side| -> Vec<BTreeMap<String, f64>> {
        s.report.runs.iter().map(|r| r.values.clone()).collect()
    };
    let mut rows = metric_shifts(&values(b), &values(t), alpha);
    let at = rows
        .iter()
        .position(|m| m.metric == "long_tasks")
        .expect("every run counts its long tasks");
    let long_tasks = rows.remove(at);

    let (bn, tn) = (base.len(), target.len());
    let changed = |urls: fn(&InsightsJson) -> Vec<&str>| {
        url_changes([b.counted(urls), t.counted(urls)], (bn, tn))
    };
    let render_blocking = changed(|n| n.render_blocking.iter().map(|q| q.url.as_str()).collect());
    // The longest chain of requests the page waited on, past the document itself.
    let critical_path = changed(|n| {
        n.network_dependency_tree
            .iter()
            .flat_map(|t| &t.chain)
            .filter(|r| r.is_longest && r.depth > 0)
            .map(|r| r.url.as_str())
            .collect()
    });
    let uncached = changed(|n| {
        n.cache
            .iter()
            .flat_map(|c| &c.requests)
            .map(|r| r.request.url.as_str())
            .collect()
    });

    let (bt, tt) = (b.third_parties(), t.third_parties());
    let names: BTreeSet<&String> = bt.keys().chain(tt.keys()).collect();
    let zeros = |n: usize| vec![(0.0, 0.0, false); n];
    let per: Vec<(&String, EntityRuns, EntityRuns)> = names
        .into_iter()
        .map(|name| {
            (
                name,
                bt.get(name).cloned().unwrap_or_else(|| zeros(bn)),
                tt.get(name).cloned().unwrap_or_else(|| zeros(tn)),
            )
        })
        .collect();
    let column = |v: &[(f64, f64, bool)], bytes: bool| -> Vec<f64> {
        v.iter().map(|x| if bytes { x.1 } else { x.0 }).collect()
    };
    let third_family: Vec<(Vec<f64>, Vec<f64>)> = per
        .iter()
        .flat_map(|(_, x, y)| {
            [
                (column(x, false), column(y, false)),
                (column(x, true), column(y, true)),
            ]
        })
        .collect();
    let third_tests = sample_tests(&third_family, alpha, LEVEL);
    let mut third_parties: Vec<ThirdPartyChangeJson> = per
        .iter()
        .zip(third_tests.chunks(2))
        .zip(third_family.chunks(2))
        .filter_map(|(((name, x, y), tests), values)| {
            let (time, bytes) = (&tests[0], &tests[1]);
            let grew = |t: &SampleTest| t.significant && t.shift.estimate > 0.0;
            if !grew(time) && !grew(bytes) {
                return None;
            }
            Some(ThirdPartyChangeJson {
                entity: (*name).clone(),
                base_main_thread_ms: median(&values[0].0),
                target_main_thread_ms: median(&values[0].1),
                main_thread_shift_ms: time.shift.estimate,
                main_thread_q: time.q,
                base_transfer_size: median(&values[1].0),
                target_transfer_size: median(&values[1].1),
                transfer_shift_bytes: bytes.shift.estimate,
                transfer_q: bytes.q,
                base_runs: x.iter().filter(|r| r.2).count(),
                target_runs: y.iter().filter(|r| r.2).count(),
            })
        })
        .collect();
    third_parties.sort_by(|a, b| b.main_thread_shift_ms.total_cmp(&a.main_thread_shift_ms));

    let side = |s: &Side, selection: &str| PageSideJson {
        selection: selection.to_string(),
        runs: s.runs.len(),
        url: s.report.url.clone(),
        median_run: s.report.median_run.map(|i| s.report.runs[i].file.clone()),
    };
    let mut warnings: Vec<String> = Vec::new();
    for (s, label) in [(b, labels.0), (t, labels.1)] {
        warnings.extend(s.report.warnings.iter().map(|w| format!("{label}: {w}")));
    }
    // Two builds are often served from two origins (a port each, staging and production):
    // only another path is another page.
    let path = |url: &Option<String>| {
        url.as_deref().map(|u| {
            let rest = u.split_once("://").map_or(u, |(_, r)| r);
            rest.find('/').map_or("/", |i| &rest[i..]).to_string()
        })
    };
    if path(&b.report.url).is_some()
        && path(&t.report.url).is_some()
        && path(&b.report.url) != path(&t.report.url)
    {
        warnings.push(format!(
            "the sides load different pages: {} and {}",
            b.report.url.as_deref().unwrap_or(""),
            t.report.url.as_deref().unwrap_or("")
        ));
    }
    let functions = match ab_test(weights[0], weights[1], options) {
        Ok(test) => test.reported().map(crate::abtest::function_json).collect(),
        Err(e) => {
            warnings.push(format!("the functions were not compared: {e}"));
            Vec::new()
        }
    };
    PageDiffReport {
        kind: "page_diff",
        base: side(b, labels.0),
        target: side(t, labels.1),
        alpha,
        level: LEVEL,
        metrics: rows,
        long_tasks,
        render_blocking,
        critical_path,
        uncached,
        third_parties,
        functions,
        warnings,
    }
}
