//! `jsprof heap leaks S1 S2 … SN` (or a directory from `record --heap-snapshot --every`): leak
//! verdicts over a series of snapshots of one process.
//!
//! Each snapshot after the first is grouped as `heap leaks` groups FINAL (jsprof_heap's
//! [`new_object_groups`]): its objects made since the first snapshot, by class and retaining-path
//! shape. A group is the same group in every snapshot where its class and folded path read the
//! same, so each group has a series of counts and retained sizes, 0 where absent (and in the
//! first snapshot, by construction). Each series gets a verdict from
//! [`jsprof_analysis::trend`]: *growing* (Mann-Kendall, one-sided, significant at `alpha`, and
//! still rising over the recent half), *one-off* (one step made ≥ 80 % of the rise), *bounded*
//! (rose over several steps, then stayed or sawed). A group is growing when its count or its
//! retained size is; each series is tested on its own, without adjustment for the number of
//! groups (a six-snapshot series' smallest p-value is 1/720: a family-wise correction over
//! hundreds of groups would never find a leak; the recent-half condition is what keeps a cache
//! that filled up from being called a leak).
//!
//! Streaming: [`LeakSeries::add`] takes one snapshot's graph at a time and keeps of it only its
//! groups' sums; of the first it keeps its ids ([`Identities`]), which every later one is
//! compared with. So N snapshots of any size cost one graph's memory, not N.

use std::collections::HashMap;

use jsprof_analysis::trend::{classify, series_trend, SeriesTrend, Verdict};
use jsprof_heap::{max_node_id, new_object_groups, Analysis, HeapSnapshot, Identities};
use schemars::JsonSchema;
use serde::Serialize;

use crate::heap::{warnings_named, InSource, LeakStepJson};
use crate::source_maps::SourceMaps;
use crate::JsonWarning;

/// The fewest and most snapshots a series takes.
pub const MIN_SNAPSHOTS: usize = 3;
pub const MAX_SNAPSHOTS: usize = 50;

/// How the snapshots were put in order.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesOrder {
    /// Indexes into the given snapshots, first taken first.
    pub order: Vec<usize>,
    /// `name_timestamp` (Node's `Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ` names), `name_number` (the
    /// last number in each name: `record --every`'s `STEM-1`, `STEM-2`, …) or `given`.
    pub by: &'static str,
    /// Seconds since the first snapshot, in `order`, when known.
    pub times: Option<Vec<f64>>,
    /// `name_timestamp` or `mtime` (the files' modification times, when they rise strictly along
    /// the order); `None` when no times are known.
    pub times_from: Option<&'static str>,
}

/// The series' order from the snapshots' names (their file names; directories ignored) and,
/// for times, their files' modification times in seconds (any epoch). A snapshot file carries
/// no wall-clock time of its own, so names and files are all there is: Node's own names hold
/// the time they were written, `record --every`'s a sequence number; otherwise the order given.
pub fn series_order(names: &[&str], mtimes: &[Option<f64>]) -> SeriesOrder {
    let n = names.len();
    let stems: Vec<&str> = names.iter().map(|n| stem(n)).collect();
    let node_times: Vec<Option<(f64, u64)>> = stems.iter().map(|s| node_name_time(s)).collect();
    let numbers: Vec<Option<u64>> = stems.iter().map(|s| last_number(s)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    let by = if node_times.iter().all(Option::is_some) {
        order.sort_by(|&a, &b| {
            let (ta, sa) = node_times[a].unwrap();
            let (tb, sb) = node_times[b].unwrap();
            ta.total_cmp(&tb).then(sa.cmp(&sb))
        });
        "name_timestamp"
    } else if numbers.iter().all(Option::is_some) && distinct(&numbers) {
        order.sort_by_key(|&i| numbers[i]);
        "name_number"
    } else {
        "given"
    };
    let rising = |t: &[f64]| t.windows(2).all(|w| w[1] > w[0]);
    let since_first = |t: Vec<f64>| t.iter().map(|x| x - t[0]).collect::<Vec<f64>>();
    let from_mtimes: Option<Vec<f64>> = order
        .iter()
        .map(|&i| mtimes.get(i).copied().flatten())
        .collect();
    let from_names: Option<Vec<f64>> = order.iter().map(|&i| node_times[i].map(|t| t.0)).collect();
    let (times, times_from) = match (from_names, from_mtimes) {
        (Some(t), _) if rising(&t) => (Some(since_first(t)), Some("name_timestamp")),
        (_, Some(t)) if rising(&t) => (Some(since_first(t)), Some("mtime")),
        _ => (None, None),
    };
    SeriesOrder {
        order,
        by,
        times,
        times_from,
    }
}

fn distinct(v: &[Option<u64>]) -> bool {
    let mut s: Vec<u64> = v.iter().flatten().copied().collect();
    s.sort_unstable();
    s.windows(2).all(|w| w[0] != w[1])
}

/// The file name without its directory and its `.heapsnapshot` / `.heaptimeline` / `.gz`.
fn stem(name: &str) -> &str {
    let mut s = name.rsplit(['/', '\\']).next().unwrap_or(name);
    for ext in [".gz", ".heapsnapshot", ".heaptimeline", ".json"] {
        s = s.strip_suffix(ext).unwrap_or(s);
    }
    s
}

/// Node's own snapshot names (`v8.writeHeapSnapshot()`, `--heapsnapshot-signal`,
/// `--heapsnapshot-near-heap-limit`): `Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ`, local time. Seconds
/// (of a day count: only differences matter) and the sequence number.
fn node_name_time(stem: &str) -> Option<(f64, u64)> {
    let parts: Vec<&str> = stem.split('.').collect();
    let [heap, date, time, pid, tid, seq] = parts.as_slice() else {
        return None;
    };
    let digits = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit());
    if *heap != "Heap" || !digits(date, 8) || !digits(time, 6) {
        return None;
    }
    let num = |s: &str| s.parse::<u64>().ok();
    num(pid)?;
    num(tid)?;
    let seq = num(seq)?;
    let (y, m, d) = (num(&date[..4])?, num(&date[4..6])?, num(&date[6..])?);
    let (hh, mm, ss) = (num(&time[..2])?, num(&time[2..4])?, num(&time[4..])?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let days = days_from_civil(y as i64, m as i64, d as i64);
    Some((
        (days * 86_400) as f64 + (hh * 3600 + mm * 60 + ss) as f64,
        seq,
    ))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The last run of digits in a name (`app-07` → 7).
fn last_number(stem: &str) -> Option<u64> {
    let end = stem.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = stem[..end]
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    stem[start..end].parse().ok()
}

/// What to list.
#[derive(Clone, Copy, Debug)]
pub struct LeakSeriesOptions {
    /// The one-sided Mann-Kendall p-value below which a trend is significant.
    pub alpha: f64,
    /// List every group, not only the growing ones.
    pub all: bool,
    /// Hide groups retaining less than this many bytes at their largest.
    pub min_retained: u64,
    /// At most this many groups; 0 lists all.
    pub limit: usize,
}

impl Default for LeakSeriesOptions {
    fn default() -> Self {
        LeakSeriesOptions {
            alpha: 0.05,
            all: false,
            min_retained: 0,
            limit: 0,
        }
    }
}

/// One snapshot of the series.
#[derive(Serialize, JsonSchema)]
pub struct LeakSeriesSnapshotJson {
    pub name: String,
    /// Milliseconds since the first snapshot, when known (see the report's `times_from`).
    pub time_ms: Option<f64>,
    /// Its largest heap-object id: V8's only grow, so these rise along a process's series.
    pub max_node_id: u32,
    /// Objects made since the first snapshot (in the groups: reachable objects, closures,
    /// native objects and regular expressions, not counting those inside another's leak).
    pub new_objects: u64,
}

/// The trend of one series of a group.
#[derive(Serialize, JsonSchema)]
pub struct LeakTrendJson {
    /// Mann-Kendall's S: later-larger pairs minus later-smaller pairs.
    pub s: i64,
    /// One-sided p-value of S under no trend (exact without ties; else the tie-corrected normal
    /// approximation).
    pub p_value: f64,
    /// Sen's slope: per snapshot.
    pub per_snapshot: f64,
    /// Sen's slope against the snapshots' times, per hour; null when times are unknown.
    pub per_hour: Option<f64>,
    /// Kendall's tau over the recent half (the last ⌈n/2⌉ snapshots, at least 3).
    pub recent_tau: f64,
    /// The largest rise between consecutive snapshots over the whole rise (≥ 0.8: one-off).
    pub largest_step_share: f64,
    /// This series' own verdict (the group is growing when either series is).
    pub verdict: &'static str,
}

/// One group: objects of one class along one path shape, across the series.
#[derive(Serialize, JsonSchema)]
pub struct LeakSeriesGroupJson {
    /// `growing`, `bounded`, `one-off` or `flat` (never present; only with groups of zero size).
    pub verdict: &'static str,
    /// As in `heap leaks`: the Summary's class, a closure's function and where it was defined.
    pub class: String,
    /// As in `heap leaks`: from the root side, indexes folded (the sample's path).
    pub path: Vec<LeakStepJson>,
    /// Objects in each snapshot, in the series' order.
    pub count: Vec<u64>,
    /// Their retained size in each snapshot.
    pub retained_size: Vec<u64>,
    pub count_trend: LeakTrendJson,
    pub retained_trend: LeakTrendJson,
    /// The largest object of the last snapshot that has the group (its id there, and that
    /// snapshot's index in `snapshots`).
    pub sample_id: u32,
    pub sample_snapshot: usize,
    /// As in `heap leaks`: where a source map places the class or closure.
    #[serde(flatten)]
    pub original: InSource,
    #[serde(skip)]
    #[schemars(skip)]
    pub place: Option<jsprof_heap::Place>,
}

#[derive(Serialize, JsonSchema, Default)]
pub struct VerdictCounts {
    pub growing: usize,
    pub bounded: usize,
    pub one_off: usize,
}

/// `jsprof heap leaks S1 … SN --json` (four or more snapshots, a directory, or `--series`).
#[derive(Serialize, JsonSchema)]
pub struct LeakSeriesReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    /// How the snapshots were ordered: `name_timestamp`, `name_number` or `given`.
    pub order: &'static str,
    /// Where the times came from: `name_timestamp`, `mtime`, or null (no per-hour rates).
    pub times_from: Option<&'static str>,
    /// The significance level of the trend test.
    pub alpha: f64,
    /// In the series' order.
    pub snapshots: Vec<LeakSeriesSnapshotJson>,
    /// Verdicts over every group found.
    pub verdicts: VerdictCounts,
    /// Groups listed (growing ones, or all with `all`, above `min_retained`), before `limit`.
    pub total: usize,
    /// Growing first, then by retained size in the last snapshot, largest first.
    pub groups: Vec<LeakSeriesGroupJson>,
}

type GroupKey = (String, Vec<(String, String)>);

struct GroupAcc {
    class: String,
    place: Option<jsprof_heap::Place>,
    path: Vec<LeakStepJson>,
    count: Vec<u64>,
    retained: Vec<u64>,
    sample_id: u32,
    sample_snapshot: usize,
}

/// The series being read, one snapshot at a time.
#[derive(Default)]
pub struct LeakSeries {
    baseline: Option<(String, Identities)>,
    kind: &'static str,
    snapshots: Vec<LeakSeriesSnapshotJson>,
    warnings: Vec<JsonWarning>,
    groups: Vec<GroupAcc>,
    index: HashMap<GroupKey, usize>,
    /// Every snapshot's scripts (by id: one process's ids name one script), for the groups'
    /// source maps.
    scripts: Vec<jsprof_heap::scripts::Script>,
}

impl LeakSeries {
    pub fn new() -> LeakSeries {
        LeakSeries::default()
    }

    /// How many snapshots were added.
    pub fn len(&self) -> usize {
        self.snapshots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
    }

    /// Adds the next snapshot (in the series' order) with its time in seconds since the first.
    pub fn add(&mut self, name: &str, time_s: Option<f64>, s: &HeapSnapshot, a: &Analysis) {
        let k = self.snapshots.len();
        self.kind = s.kind();
        for script in &a.scripts {
            if let Err(at) = self.scripts.binary_search_by_key(&script.id, |x| x.id) {
                self.scripts.insert(at, script.clone());
            }
        }
        self.warnings.extend(warnings_named(name, s));
        let max_node_id = max_node_id(s);
        if let Some(previous) = self.snapshots.last() {
            if max_node_id < previous.max_node_id {
                self.warnings.push(JsonWarning {
                    at: String::new(),
                    message: format!(
                        "{name} holds lower object ids than {} before it (V8's only grow): the \
                         series is out of the process's order; give the snapshots in the order \
                         taken",
                        previous.name
                    ),
                });
            }
        }
        let mut new_objects = 0;
        if let Some((first, baseline)) = &self.baseline {
            if !baseline.same_process_as(s) {
                self.warnings.push(JsonWarning {
                    at: String::new(),
                    message: format!(
                        "{first} and {name} are not snapshots of one process (their object \
                         ids name different objects): objects cannot be followed from one \
                         to the other"
                    ),
                });
            }
            for g in new_object_groups(baseline, s, a) {
                new_objects += g.count;
                let key: GroupKey = (
                    g.class.clone(),
                    g.path
                        .iter()
                        .map(|p| (p.class.clone(), p.edge.clone()))
                        .collect(),
                );
                let slot = match self.index.get(&key) {
                    Some(&slot) => slot,
                    None => {
                        self.groups.push(GroupAcc {
                            class: g.class.clone(),
                            place: g.place.clone(),
                            path: g.path.iter().cloned().map(LeakStepJson::of).collect(),
                            count: Vec::new(),
                            retained: Vec::new(),
                            sample_id: 0,
                            sample_snapshot: 0,
                        });
                        self.index.insert(key, self.groups.len() - 1);
                        self.groups.len() - 1
                    }
                };
                let acc = &mut self.groups[slot];
                acc.count.resize(k + 1, 0);
                acc.retained.resize(k + 1, 0);
                acc.count[k] += g.count;
                acc.retained[k] += g.retained_size;
                acc.sample_id = s.nodes.id(g.sample);
                acc.sample_snapshot = k;
            }
        } else {
            self.baseline = Some((name.to_string(), Identities::of(s)));
        }
        self.snapshots.push(LeakSeriesSnapshotJson {
            name: name.to_string(),
            time_ms: time_s.map(|t| t * 1000.0),
            max_node_id,
            new_objects,
        });
    }

    /// The verdicts, with `order` (how the series was ordered) and the options; the groups
    /// listed are placed by their scripts' source maps as `maps` allows (a map that cannot be had
    /// is a warning).
    pub fn report(
        self,
        by: &'static str,
        times_from: Option<&'static str>,
        options: LeakSeriesOptions,
        maps: &SourceMaps,
    ) -> LeakSeriesReport {
        let scripts = self.scripts;
        let n = self.snapshots.len();
        let times: Option<Vec<f64>> = self
            .snapshots
            .iter()
            .map(|s| s.time_ms.map(|t| t / 1000.0))
            .collect();
        let times_from = times.as_ref().and(times_from);
        let mut verdicts = VerdictCounts::default();
        let mut groups: Vec<LeakSeriesGroupJson> = self
            .groups
            .into_iter()
            .map(|mut g| {
                g.count.resize(n, 0);
                g.retained.resize(n, 0);
                let count_trend = trend_json(&g.count, times.as_deref(), options.alpha);
                let retained_trend = trend_json(&g.retained, times.as_deref(), options.alpha);
                let verdict =
                    if count_trend.verdict == "growing" || retained_trend.verdict == "growing" {
                        "growing"
                    } else {
                        retained_trend.verdict
                    };
                match verdict {
                    "growing" => verdicts.growing += 1,
                    "bounded" => verdicts.bounded += 1,
                    "one-off" => verdicts.one_off += 1,
                    _ => {}
                }
                LeakSeriesGroupJson {
                    verdict,
                    class: g.class,
                    path: g.path,
                    count: g.count,
                    retained_size: g.retained,
                    count_trend,
                    retained_trend,
                    sample_id: g.sample_id,
                    sample_snapshot: g.sample_snapshot,
                    original: InSource::default(),
                    place: g.place,
                }
            })
            .filter(|g| options.all || g.verdict == "growing")
            .filter(|g| g.retained_size.iter().copied().max().unwrap_or(0) >= options.min_retained)
            .collect();
        groups.sort_by(|a, b| {
            (b.verdict == "growing")
                .cmp(&(a.verdict == "growing"))
                .then(b.retained_size.last().cmp(&a.retained_size.last()))
                .then(b.count.last().cmp(&a.count.last()))
                .then(a.class.cmp(&b.class))
        });
        let total = groups.len();
        if options.limit > 0 {
            groups.truncate(options.limit);
        }
        let mut report = LeakSeriesReport {
            kind: if self.kind.is_empty() {
                "heapsnapshot"
            } else {
                self.kind
            },
            warnings: self.warnings,
            order: by,
            times_from,
            alpha: options.alpha,
            snapshots: self.snapshots,
            verdicts,
            total,
            groups,
        };
        let notes = crate::heap_source_maps::map_objects(&mut report, &scripts, maps)
            .unwrap_or_else(|e| {
                vec![JsonWarning {
                    at: String::new(),
                    message: e.to_string(),
                }]
            });
        report.warnings.extend(notes);
        report
    }
}

fn trend_json(series: &[u64], times: Option<&[f64]>, alpha: f64) -> LeakTrendJson {
    let ys: Vec<f64> = series.iter().map(|&v| v as f64).collect();
    let t: SeriesTrend = series_trend(&ys);
    let verdict: Verdict = classify(&t, t.test.p_value < alpha);
    LeakTrendJson {
        s: t.test.s,
        p_value: t.test.p_value,
        per_snapshot: t.slope,
        per_hour: times.map(|ts| {
            let hours: Vec<f64> = ts.iter().map(|s| s / 3600.0).collect();
            jsprof_analysis::trend::sen_slope(&hours, &ys)
        }),
        recent_tau: t.recent_tau,
        largest_step_share: t.largest_step_share,
        verdict: verdict.as_str(),
    }
}

/// A p-value as the text doors show it: three decimals, or two significant digits below 0.001.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

/// A leak path as one line, root side first: each step's class then its edge, joined by ` → `
/// (`global.app → Object.leak → Map{table} → (array){}`).
pub fn path_text(path: &[LeakStepJson]) -> String {
    path.iter()
        .map(|s| format!("{}{}", s.class, s.edge))
        .collect::<Vec<_>>()
        .join(" → ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_node_names_then_numbers_then_as_given() {
        let o = series_order(
            &[
                "d/Heap.20260101.120010.77.0.003.heapsnapshot",
                "d/Heap.20260101.115959.77.0.001.heapsnapshot",
                "d/Heap.20260101.120000.77.0.002.heapsnapshot",
            ],
            &[None, None, None],
        );
        assert_eq!(o.order, [1, 2, 0]);
        assert_eq!(o.by, "name_timestamp");
        assert_eq!(o.times, Some(vec![0.0, 1.0, 11.0]));
        assert_eq!(o.times_from, Some("name_timestamp"));

        let o = series_order(
            &[
                "run-10.heapsnapshot",
                "run-9.heapsnapshot",
                "run-11.heapsnapshot.gz",
            ],
            &[Some(100.0), Some(50.0), Some(170.5)],
        );
        assert_eq!(o.order, [1, 0, 2]);
        assert_eq!(o.by, "name_number");
        assert_eq!(o.times, Some(vec![0.0, 50.0, 120.5]));
        assert_eq!(o.times_from, Some("mtime"));

        // A name without a number, or mtimes that do not rise: the order given, no times.
        let o = series_order(&["a-1", "b", "c-3"], &[Some(3.0), Some(2.0), Some(1.0)]);
        assert_eq!((o.order, o.by, o.times), (vec![0, 1, 2], "given", None));
    }

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }
}
