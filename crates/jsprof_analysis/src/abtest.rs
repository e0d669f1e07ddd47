//! Group comparisons (A/B tests) of sampled profiles: which functions' shares of the profile
//! changed between a base group and a target group, with statistics that survive noise.
//!
//! Each profile contributes one observation per function: its *share*, the function's self (or
//! total) weight divided by the profile's weight on some function, so profiles of different
//! lengths compare. A function absent from a profile has share 0 there. Per function and per
//! share (self, total) the two groups are compared with the Mann-Whitney U test (two-sided, as
//! R's `wilcox.test(target, base)`): the exact null distribution when both groups have at most
//! [`EXACT_MAX`] profiles and no value is tied, else the normal approximation with the tie
//! correction and R's continuity correction (with ties the exact distribution depends on the tie
//! pattern, which R does not compute either). The p-values of every test run are adjusted with
//! Benjamini-Hochberg. The effect is the Hodges-Lehmann shift (the median of all pairwise
//! differences target − base) with its distribution-free confidence interval (order statistics
//! of the same differences), plus the difference of means. A change is reported only when its
//! q-value is below `alpha` AND the shift is at least the noise floor.
//!
//! Cost: per function O(n log n) for the ranks, and the shift's order statistics are found by
//! bisection over values with a two-pointer count (O(n) per step) instead of listing the n·m
//! differences, so groups of 10,000 profiles stay cheap. Functions present in fewer than
//! `min_profiles` profiles are not tested at all.

use std::collections::HashMap;

use jsprof_profile::{FrameId, Profile, ProfileKind, Samples, StackId, Thread, WeightUnit};

use crate::diff::key_table;
use crate::DiffKey;

/// Both groups at most this large and no ties: the exact distribution of U.
pub const EXACT_MAX: usize = 20;

/// A function as the groups match it: name, URL and (when matching whole functions) position.
pub type FunctionName = (String, String, Option<u32>, Option<u32>);

/// One profile's weights: per function (self, total), and the weight on some function.
#[derive(Clone, Debug, Default)]
pub struct ProfileWeights {
    pub functions: HashMap<FunctionName, (f64, f64)>,
    pub total: f64,
}

/// `Default`: alpha 0.05, noise floor 0.5 share points, functions in at least 3 profiles.
#[derive(Clone, Copy, Debug)]
pub struct AbOptions {
    /// Reported changes have a Benjamini-Hochberg q-value below this.
    pub alpha: f64,
    /// Reported changes shift the share by at least this much (a fraction: 0.005 = 0.5 points).
    pub noise_floor: f64,
    /// Functions present (weight > 0) in fewer profiles of both groups together are not tested.
    pub min_profiles: usize,
}

impl Default for AbOptions {
    fn default() -> Self {
        AbOptions {
            alpha: 0.05,
            noise_floor: 0.005,
            min_profiles: 3,
        }
    }
}

/// How the p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PMethod {
    Exact,
    Normal,
}

/// The Mann-Whitney U test of `target` against `base`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MannWhitney {
    /// R's W: the number of pairs (target, base) with target > base, ties counting one half.
    pub u: f64,
    /// Two-sided.
    pub p: f64,
    pub method: PMethod,
}

/// The Hodges-Lehmann shift (target − base) and its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shift {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    /// The interval's nominal level (e.g. 0.95).
    pub level: f64,
}

/// One share of one function compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareTest {
    pub base_mean: f64,
    pub target_mean: f64,
    pub test: MannWhitney,
    /// Benjamini-Hochberg over every test of the comparison.
    pub q: f64,
    pub shift: Shift,
    /// q < alpha and |shift| ≥ the noise floor.
    pub reported: bool,
}

impl ShareTest {
    pub fn mean_difference(&self) -> f64 {
        self.target_mean - self.base_mean
    }
}

/// One function tested: its self share and its total share.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTest {
    pub name: FunctionName,
    /// Profiles of each group where the function has weight.
    pub base_present: usize,
    pub target_present: usize,
    pub self_share: ShareTest,
    pub total_share: ShareTest,
}

impl FunctionTest {
    pub fn reported(&self) -> bool {
        self.self_share.reported || self.total_share.reported
    }
}

/// The comparison of two groups.
#[derive(Clone, Debug)]
pub struct AbTest {
    pub options: AbOptions,
    pub base_profiles: usize,
    pub target_profiles: usize,
    /// Functions tested; those with a reported change first (largest |self shift| first), then
    /// by q-value.
    pub functions: Vec<FunctionTest>,
    /// Functions seen but present in fewer than `min_profiles` profiles.
    pub untested: usize,
}

impl AbTest {
    pub fn reported(&self) -> impl Iterator<Item = &FunctionTest> {
        self.functions.iter().filter(|f| f.reported())
    }
}

/// Why two groups cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AbError {
    #[error("the {0} group has no profile with weight on some function")]
    EmptyGroup(&'static str),
    #[error("alpha must be in (0, 1), not {0}")]
    Alpha(String),
}

impl ProfileWeights {
    /// One thread's per-function self and total weights (matched by `key` as `jsprof diff`
    /// matches them) and its weight on some function.
    pub fn of_thread(profile: &Profile, thread: &Thread, key: DiffKey) -> ProfileWeights {
        let t = key_table(profile, thread, key);
        ProfileWeights {
            functions: t
                .rows
                .into_iter()
                .map(|(k, r)| (k, (r.self_weight as f64, r.total_weight as f64)))
                .collect(),
            total: t.total as f64,
        }
    }
}

/// One measure (a page load's LCP, a third party's bytes, …) compared between two groups of
/// runs: the values themselves, not shares of a profile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleTest {
    pub test: MannWhitney,
    /// Benjamini-Hochberg over the family the measure was tested in.
    pub q: f64,
    pub shift: Shift,
    /// q < alpha.
    pub significant: bool,
}

/// Tests a family of measures, each given as (base values, target values): per measure the
/// Mann-Whitney test of target against base and the Hodges-Lehmann shift with its `level`
/// interval, then Benjamini-Hochberg over the family's p-values (as [`ab_test`] does over a
/// comparison's functions).
pub fn sample_tests(family: &[(Vec<f64>, Vec<f64>)], alpha: f64, level: f64) -> Vec<SampleTest> {
    let tested: Vec<(MannWhitney, Shift)> = family
        .iter()
        .map(|(base, target)| {
            (
                mann_whitney(target, base),
                hodges_lehmann(target, base, level),
            )
        })
        .collect();
    let p: Vec<f64> = tested.iter().map(|(t, _)| t.p).collect();
    benjamini_hochberg(&p)
        .into_iter()
        .zip(tested)
        .map(|(q, (test, shift))| SampleTest {
            test,
            q,
            shift,
            significant: q < alpha,
        })
        .collect()
}

/// Compares the target group with the base group. Profiles without weight are left out.
pub fn ab_test(
    base: &[ProfileWeights],
    target: &[ProfileWeights],
    options: AbOptions,
) -> Result<AbTest, AbError> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        return Err(AbError::Alpha(options.alpha.to_string()));
    }
    let base: Vec<&ProfileWeights> = base.iter().filter(|p| p.total > 0.0).collect();
    let target: Vec<&ProfileWeights> = target.iter().filter(|p| p.total > 0.0).collect();
    if base.is_empty() {
        return Err(AbError::EmptyGroup("base"));
    }
    if target.is_empty() {
        return Err(AbError::EmptyGroup("target"));
    }
    // Each function's present shares per group: (self, total) per profile where it has weight.
    type Present = (Vec<(f64, f64)>, Vec<(f64, f64)>);
    let mut by_function: HashMap<&FunctionName, Present> = HashMap::new();
    for (side, group) in [(0, &base), (1, &target)] {
        for p in group.iter() {
            for (k, &(s, t)) in &p.functions {
                if s <= 0.0 && t <= 0.0 {
                    continue;
                }
                let e = by_function.entry(k).or_default();
                let v = if side == 0 { &mut e.0 } else { &mut e.1 };
                v.push((s / p.total, t / p.total));
            }
        }
    }
    let (n, m) = (base.len(), target.len());
    let mut untested = 0;
    let mut tests: Vec<(FunctionTest, [Vec<f64>; 4])> = Vec::new();
    for (k, (b, t)) in by_function {
        if b.len() + t.len() < options.min_profiles.max(1) {
            untested += 1;
            continue;
        }
        // Absent from a profile: share 0 there.
        let fill = |v: &[(f64, f64)], len: usize, pick: fn(&(f64, f64)) -> f64| {
            let mut out: Vec<f64> = v.iter().map(pick).collect();
            out.resize(len, 0.0);
            out.sort_by(f64::total_cmp);
            out
        };
        let bs = fill(&b, n, |x| x.0);
        let ts = fill(&t, m, |x| x.0);
        let bt = fill(&b, n, |x| x.1);
        let tt = fill(&t, m, |x| x.1);
        let share = |x: &[f64], y: &[f64]| ShareTest {
            base_mean: mean(y),
            target_mean: mean(x),
            test: mann_whitney_sorted(x, y),
            q: 1.0,
            shift: Shift {
                estimate: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
                level: 1.0 - options.alpha,
            },
            reported: false,
        };
        let f = FunctionTest {
            name: k.clone(),
            base_present: b.len(),
            target_present: t.len(),
            self_share: share(&ts, &bs),
            total_share: share(&tt, &bt),
        };
        tests.push((f, [bs, ts, bt, tt]));
    }
    // Benjamini-Hochberg over both shares of every function tested.
    let ps: Vec<f64> = tests
        .iter()
        .flat_map(|(f, _)| [f.self_share.test.p, f.total_share.test.p])
        .collect();
    let qs = benjamini_hochberg(&ps);
    for (i, (f, v)) in tests.iter_mut().enumerate() {
        for (j, (s, (x, y))) in [
            (&mut f.self_share, (&v[1], &v[0])),
            (&mut f.total_share, (&v[3], &v[2])),
        ]
        .into_iter()
        .enumerate()
        {
            s.q = qs[2 * i + j];
            // The shift's order statistics cost O(n) per bisection step: only for the tests that
            // can be reported (the others are not significant whatever their shift).
            if s.q < options.alpha {
                s.shift = hodges_lehmann_sorted(x, y, 1.0 - options.alpha);
                s.reported = s.shift.estimate.abs() >= options.noise_floor;
            }
        }
    }
    let mut functions: Vec<FunctionTest> = tests.into_iter().map(|(f, _)| f).collect();
    functions.sort_by(|a, b| {
        b.reported()
            .cmp(&a.reported())
            .then_with(|| {
                let shift = |f: &FunctionTest| {
                    let e = f.self_share.shift.estimate.abs();
                    if e.is_nan() {
                        0.0
                    } else {
                        e
                    }
                };
                shift(b).total_cmp(&shift(a))
            })
            .then_with(|| a.self_share.q.total_cmp(&b.self_share.q))
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(AbTest {
        options,
        base_profiles: n,
        target_profiles: m,
        functions,
        untested,
    })
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The Mann-Whitney U test of `x` (target) against `y` (base), two-sided.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> MannWhitney {
    let mut x = x.to_vec();
    let mut y = y.to_vec();
    x.sort_by(f64::total_cmp);
    y.sort_by(f64::total_cmp);
    mann_whitney_sorted(&x, &y)
}

/// [`mann_whitney`] of sorted samples: one merge gives the midranks.
fn mann_whitney_sorted(x: &[f64], y: &[f64]) -> MannWhitney {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return MannWhitney {
            u: 0.0,
            p: 1.0,
            method: PMethod::Normal,
        };
    }
    // Merge, handling each run of equal values at once: x's rank sum and Σ(t³ − t).
    let (mut i, mut j) = (0, 0);
    let mut rank_sum_x = 0.0;
    let mut ties = 0.0;
    let mut rank = 0.0; // ranks given so far
    while i < m || j < n {
        let v = match (x.get(i), y.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => unreachable!(),
        };
        let (mut cx, mut cy) = (0usize, 0usize);
        while i < m && x[i] == v {
            i += 1;
            cx += 1;
        }
        while j < n && y[j] == v {
            j += 1;
            cy += 1;
        }
        let t = (cx + cy) as f64;
        let midrank = rank + (t + 1.0) / 2.0;
        rank_sum_x += cx as f64 * midrank;
        rank += t;
        ties += t * t * t - t;
    }
    let (mf, nf) = (m as f64, n as f64);
    let u = rank_sum_x - mf * (mf + 1.0) / 2.0;
    if ties == 0.0 && m <= EXACT_MAX && n <= EXACT_MAX {
        let dist = u_distribution(m, n);
        let total: f64 = dist.iter().sum();
        let k = u.round() as usize;
        // R: P(U ≥ W) above the middle, P(U ≤ W) at or below it; doubled, at most 1.
        let tail: f64 = if u > mf * nf / 2.0 {
            dist[k..].iter().sum()
        } else {
            dist[..=k].iter().sum()
        };
        return MannWhitney {
            u,
            p: (2.0 * tail / total).min(1.0),
            method: PMethod::Exact,
        };
    }
    let big_n = mf + nf;
    let mu = mf * nf / 2.0;
    let var = mf * nf / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
    let p = if var <= 0.0 {
        1.0
    } else {
        let d = u - mu;
        // R's continuity correction is sign(d) / 2, and R's sign(0) is 0 (Rust's signum(0) is 1):
        // U at its mean has p = 1.
        let correction = if d == 0.0 { 0.0 } else { 0.5 * d.signum() };
        let z = (d - correction) / var.sqrt();
        (2.0 * normal_upper(z.abs())).min(1.0)
    };
    MannWhitney {
        u,
        p,
        method: PMethod::Normal,
    }
}

/// U's exact distributions by group sizes (m, n).
type UDistributions = HashMap<(usize, usize), std::rc::Rc<Vec<f64>>>;

thread_local! {
    /// Every function of a comparison has the same group sizes: one distribution serves all.
    static U_DISTRIBUTIONS: std::cell::RefCell<UDistributions> =
        std::cell::RefCell::new(HashMap::new());
}

/// The number of arrangements giving each U = 0..=m·n for samples of m and n without ties
/// (as f64: C(40, 20) ≈ 1.4e11 is exact there).
fn u_distribution(m: usize, n: usize) -> std::rc::Rc<Vec<f64>> {
    U_DISTRIBUTIONS.with(|c| {
        c.borrow_mut()
            .entry((m, n))
            .or_insert_with(|| std::rc::Rc::new(compute_u_distribution(m, n)))
            .clone()
    })
}

fn compute_u_distribution(m: usize, n: usize) -> Vec<f64> {
    // Adding the values in increasing order: an x placed after j y's adds j pairs x > y.
    // dp[a][b][u]: a x's and b y's placed; rolled over b.
    let max_u = m * n;
    let mut dp = vec![vec![vec![0.0f64; max_u + 1]; n + 1]; m + 1];
    dp[0][0][0] = 1.0;
    for a in 0..=m {
        for b in 0..=n {
            if a == 0 && b == 0 {
                continue;
            }
            let mut cell = vec![0.0; max_u + 1];
            if a > 0 {
                for u in b..=max_u {
                    cell[u] += dp[a - 1][b][u - b];
                }
            }
            if b > 0 {
                for (u, c) in cell.iter_mut().enumerate() {
                    *c += dp[a][b - 1][u];
                }
            }
            dp[a][b] = cell;
        }
    }
    std::mem::take(&mut dp[m][n])
}

/// Benjamini-Hochberg q-values (the adjusted p-values of R's `p.adjust(p, "BH")`), in the
/// order of `p`.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let k = p.len();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut q = vec![1.0; k];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p[i] * k as f64 / (rank + 1) as f64);
        q[i] = running.min(1.0);
    }
    q
}

/// The Hodges-Lehmann shift of `x` (target) over `y` (base): the median of the m·n differences
/// x − y, and its distribution-free `level` confidence interval (the order statistics that the
/// U distribution's critical value names, as R's `wilcox.test(conf.int = TRUE)` exact case;
/// the normal approximation of that critical value for larger groups).
pub fn hodges_lehmann(x: &[f64], y: &[f64], level: f64) -> Shift {
    let mut x = x.to_vec();
    let mut y = y.to_vec();
    x.sort_by(f64::total_cmp);
    y.sort_by(f64::total_cmp);
    hodges_lehmann_sorted(&x, &y, level)
}

fn hodges_lehmann_sorted(x: &[f64], y: &[f64], level: f64) -> Shift {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return Shift {
            estimate: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
            level,
        };
    }
    let k = (m * n) as u64;
    let estimate = if k % 2 == 1 {
        kth_difference(x, y, k / 2 + 1)
    } else {
        (kth_difference(x, y, k / 2) + kth_difference(x, y, k / 2 + 1)) / 2.0
    };
    // The lower bound is the c-th smallest difference, the upper the c-th largest.
    let alpha = 1.0 - level;
    let c = if m <= EXACT_MAX && n <= EXACT_MAX {
        // R: qu = qwilcox(alpha/2, m, n), the smallest u with P(U ≤ u) ≥ alpha/2; at least 1.
        let dist = u_distribution(m, n);
        let total: f64 = dist.iter().sum();
        let mut acc = 0.0;
        let mut qu = dist.len() as u64 - 1;
        for (u, d) in dist.iter().enumerate() {
            acc += d;
            if acc / total >= alpha / 2.0 {
                qu = u as u64;
                break;
            }
        }
        qu.max(1)
    } else {
        let (mf, nf) = (m as f64, n as f64);
        let z = normal_quantile(1.0 - alpha / 2.0);
        let c = (mf * nf / 2.0 - z * (mf * nf * (mf + nf + 1.0) / 12.0).sqrt()).floor();
        (c.max(1.0) as u64).min(k)
    };
    Shift {
        estimate,
        low: kth_difference(x, y, c),
        high: kth_difference(x, y, k + 1 - c),
        level,
    }
}

/// The k-th smallest (1-based) of the differences x_i − y_j, x and y sorted, without listing
/// them: bisection over values, each step counting the differences ≤ a value in O(m + n).
fn kth_difference(x: &[f64], y: &[f64], k: u64) -> f64 {
    // (count ≤ d, largest difference ≤ d, smallest difference > d)
    let count = |d: f64| -> (u64, f64, f64) {
        let mut c = 0u64;
        let mut below = f64::NEG_INFINITY;
        let mut above = f64::INFINITY;
        // For x ascending, the y's with x − y ≤ d are y ≥ x − d, a suffix starting at p that
        // only moves right.
        let mut p = 0usize;
        for &xi in x {
            while p < y.len() && xi - y[p] > d {
                p += 1;
            }
            c += (y.len() - p) as u64;
            if p < y.len() {
                below = below.max(xi - y[p]);
            }
            if p > 0 {
                above = above.min(xi - y[p - 1]);
            }
        }
        (c, below, above)
    };
    let mut hi = x[x.len() - 1] - y[0];
    let mut lo = x[0] - y[y.len() - 1];
    // Invariant: answer in (lo, hi], count(lo) < k, hi a difference.
    let (c, _, _) = count(lo);
    if c >= k {
        return lo;
    }
    for _ in 0..2000 {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            return hi;
        }
        let (c, below, above) = count(mid);
        if c >= k {
            hi = below;
        } else {
            lo = mid;
            if above >= hi {
                return hi;
            }
        }
    }
    hi
}

/// P(Z > z) for a standard normal Z.
pub fn normal_upper(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The standard normal quantile (P. J. Acklam's approximation, relative error < 1.2e-9),
/// polished by one Newton step on [`normal_upper`].
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Newton on Φ(x) = p, Φ(x) = 1 − upper(x).
    let e = (1.0 - normal_upper(x)) - p;
    let density = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    x - e / density
}

/// Merges a group of profiles into one (each profile's samples one after another, with explicit
/// weights) for the group's flame graph: the weights add up, so a function's share of the merged
/// profile is its share of the group's total.
pub struct GroupMerge {
    profile: Profile,
    samples: Samples,
    stacks: HashMap<(Option<StackId>, FrameId), StackId>,
    unit: Option<WeightUnit>,
    time: i64,
}

impl Default for GroupMerge {
    fn default() -> Self {
        GroupMerge {
            profile: Profile::new(ProfileKind::CpuProfile),
            samples: Samples::weighted(),
            stacks: HashMap::new(),
            unit: None,
            time: 0,
        }
    }
}

impl GroupMerge {
    /// Adds one thread's samples. Threads weighing bytes and time do not mix: `false`, and
    /// nothing added.
    pub fn add(&mut self, profile: &Profile, thread: &Thread) -> bool {
        let unit = thread.weight_unit();
        if *self.unit.get_or_insert(unit) != unit {
            return false;
        }
        // Each source stack once, parents before children (ids grow from the root).
        let mut map: Vec<Option<StackId>> = vec![None; profile.stacks.len()];
        for s in profile.stacks.ids() {
            let f = profile.frames.get(profile.stacks.frame(s));
            let frame = self.profile.intern_frame(
                profile.strings.get(f.name),
                profile.strings.get(f.url),
                f.line,
                f.column,
                profile.strings.get(f.script_id),
            );
            let parent = profile.stacks.parent(s).and_then(|p| map[p.index()]);
            let next = self.profile.stacks.len() as u64 + 1;
            let stacks = &mut self.profile.stacks;
            let id = *self
                .stacks
                .entry((parent, frame))
                .or_insert_with(|| stacks.push(parent, frame, next));
            map[s.index()] = Some(id);
        }
        for (i, w) in thread.weights().enumerate() {
            let stack = thread.samples().stack()[i].and_then(|s| map[s.index()]);
            self.samples.push_weighted(self.time, stack, w);
            self.time += w.max(0);
        }
        true
    }

    /// The merged profile (one thread).
    pub fn finish(mut self) -> Profile {
        let unit = self.unit.unwrap_or(WeightUnit::Nanoseconds);
        let thread = Thread::new(unit).with_samples(self.samples, Some(self.time));
        self.profile.threads.push(thread);
        self.profile
    }
}

#[cfg(test)]
mod tests {

    /// R: `wilcox.test(c(11, 12, 13, 14, 15), c(1, 2, 3, 4, 5), conf.int = TRUE)`: W = 25,
    /// p = 0.007937, estimate 10, 95 % interval [7, 13]; `p.adjust(c(0.007937, 1), "BH")`.
    #[test]
    fn a_family_of_measures_is_tested_and_adjusted() {
        let base = vec![1.0, 2.0, 3.0, 4.0, 5.0];
        let target = vec![11.0, 12.0, 13.0, 14.0, 15.0];
        let same = vec![5.0, 4.0, 3.0, 2.0, 1.0];
        let t = sample_tests(&[(base.clone(), target), (base, same)], 0.05, 0.95);
        assert_eq!(t[0].test.u, 25.0);
        assert!((t[0].test.p - 0.007937).abs() < 1e-6, "{}", t[0].test.p);
        assert_eq!(
            (t[0].shift.estimate, t[0].shift.low, t[0].shift.high),
            (10.0, 7.0, 13.0)
        );
        assert!((t[0].q - 0.015873).abs() < 1e-6 && t[0].significant);
        assert_eq!(t[1].test.p, 1.0);
        assert_eq!(t[1].q, 1.0);
        assert!(!t[1].significant);
        assert_eq!(t[1].shift.estimate, 0.0);
    }
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!(
            (a - b).abs() <= tol * b.abs().max(1e-300),
            "{a} vs {b} (rel tol {tol})"
        );
    }

    // Expected values come from an independent Python computation from the definitions
    // (enumerating all C(N, m) rank sets for the exact null, the textbook tie-corrected normal
    // approximation with continuity correction, the median of the listed pairwise
    // differences), not from this code.

    #[test]
    fn exact_small_groups_without_ties() {
        let x = [0.31, 0.62, 0.44, 0.90, 0.57];
        let y = [0.12, 0.25, 0.38, 0.29, 0.50, 0.05];
        let t = mann_whitney(&x, &y);
        assert_eq!(t.method, PMethod::Exact);
        assert_eq!(t.u, 27.0);
        close(t.p, 0.030303030303030304, 1e-12);
        // Swapping the groups mirrors U and keeps the two-sided p.
        let t = mann_whitney(&y, &x);
        assert_eq!(t.u, 3.0);
        close(t.p, 0.030303030303030304, 1e-12);
        let s = hodges_lehmann(&x, &y, 0.95);
        close(s.estimate, 0.3, 1e-12);
        close(s.low, 0.02, 1e-12);
        close(s.high, 0.61, 1e-12);
    }

    #[test]
    fn normal_approximation_with_ties() {
        let x = [3.0, 5.0, 5.0, 8.0, 9.0, 9.0, 9.0, 12.0];
        let y = [1.0, 2.0, 2.0, 3.0, 5.0, 6.0, 7.0, 7.0, 7.0, 10.0];
        let t = mann_whitney(&x, &y);
        assert_eq!(t.method, PMethod::Normal);
        assert_eq!(t.u, 58.5);
        close(t.p, 0.10717487430395523, 1e-9);
    }

    #[test]
    fn normal_approximation_for_large_groups() {
        let x: Vec<f64> = (0..25).map(|i| 0.1 * i as f64).collect();
        let y: Vec<f64> = (0..30).map(|i| 0.1 * i as f64 + 0.55).collect();
        let t = mann_whitney(&x, &y);
        assert_eq!(t.method, PMethod::Normal);
        assert_eq!(t.u, 190.0);
        close(t.p, 0.001817006281075087, 1e-9);
        let s = hodges_lehmann(&x, &y, 0.95);
        close(s.estimate, -0.8, 1e-9);
        close(s.low, -1.25, 1e-9);
        close(s.high, -0.35, 1e-9);
    }

    #[test]
    fn benjamini_hochberg_by_hand() {
        // Sorted 0.01, 0.03, 0.04, 0.2 → ·4/rank 0.04, 0.06, 0.0533…, 0.2 → running minimum
        // from the top: 0.04, 0.0533…, 0.0533…, 0.2.
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.2]);
        close(q[0], 0.04, 1e-12);
        close(q[1], 0.16 / 3.0, 1e-12);
        close(q[2], 0.16 / 3.0, 1e-12);
        close(q[3], 0.2, 1e-12);
    }

    #[test]
    fn normal_quantiles() {
        close(normal_quantile(0.975), 1.959963984540054, 1e-12);
        close(normal_quantile(0.5).abs() + 1.0, 1.0, 1e-12);
        close(normal_quantile(0.001), -3.090232306167813, 1e-10);
    }

    #[test]
    fn kth_difference_matches_listing() {
        // Ties and repeated values included.
        let x = [0.0, 0.0, 0.1, 0.1, 0.3, 0.7];
        let y = [0.0, 0.1, 0.1, 0.2, 0.5];
        let mut all: Vec<f64> = x
            .iter()
            .flat_map(|a| y.iter().map(move |b| a - b))
            .collect();
        all.sort_by(f64::total_cmp);
        for k in 1..=all.len() as u64 {
            assert_eq!(kth_difference(&x, &y, k), all[k as usize - 1], "k = {k}");
        }
    }

    fn group(shares: &[&[(&str, f64)]]) -> Vec<ProfileWeights> {
        shares
            .iter()
            .map(|p| ProfileWeights {
                functions: p
                    .iter()
                    .map(|&(n, w)| ((n.to_string(), String::new(), None, None), (w, w)))
                    .collect(),
                total: 100.0,
            })
            .collect()
    }

    #[test]
    fn reports_only_significant_changes_above_the_floor() {
        // Twelve runs each: `hot` and `cold` at their level plus a small, repeating jitter.
        let runs = |hot: f64, cold: f64| -> Vec<Vec<(&str, f64)>> {
            (0..12)
                .map(|i| {
                    vec![
                        ("hot", hot + (i % 4) as f64 * 0.1),
                        ("cold", cold + (i % 3) as f64 * 0.1),
                    ]
                })
                .collect()
        };
        let (base, target) = (runs(10.0, 5.0), runs(14.0, 5.2));
        let b: Vec<&[(&str, f64)]> = base.iter().map(|v| v.as_slice()).collect();
        let t: Vec<&[(&str, f64)]> = target.iter().map(|v| v.as_slice()).collect();
        let r = ab_test(&group(&b), &group(&t), AbOptions::default()).unwrap();
        let reported: Vec<&str> = r.reported().map(|f| f.name.0.as_str()).collect();
        // cold moved by 0.2 points: significant but under the 0.5-point floor.
        assert_eq!(reported, ["hot"]);
        let cold = r.functions.iter().find(|f| f.name.0 == "cold").unwrap();
        assert!(cold.self_share.q < 0.05);
        close(cold.self_share.shift.estimate, 0.002, 1e-6);
        let hot = &r.functions[0];
        close(hot.self_share.shift.estimate, 0.04, 1e-6);
        close(hot.self_share.mean_difference(), 0.04, 1e-6);
        // The same group against itself: nothing.
        let r = ab_test(&group(&b), &group(&b), AbOptions::default()).unwrap();
        assert_eq!(r.reported().count(), 0);
        assert!(ab_test(&[], &group(&b), AbOptions::default()).is_err());
    }
}
