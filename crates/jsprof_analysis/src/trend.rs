//! Trend verdicts for a short series of measurements (a leak group's size across N heap
//! snapshots): does it keep growing, did it grow and stop (or saw), or did it grow once?
//!
//! **The test.** Mann-Kendall (Mann 1945; Kendall, *Rank Correlation Methods*, 1975): S is the
//! number of later-larger pairs minus later-smaller pairs, one-sided for an increase. It assumes
//! nothing about the shape of the growth (a leak rarely grows linearly: it follows traffic) and
//! nothing about the distribution of the noise, and it is exact on the few points a snapshot
//! series has: without ties S's null distribution is that of `M − 2 × inversions` of a random
//! permutation (Mahonian numbers), computed here exactly for any n; with ties (common: a group's
//! count is an integer that often stays put) the normal approximation with Kendall's
//! tie-corrected variance and a continuity correction, as R's `Kendall::MannKendall` and
//! `pymannkendall` do. A rank correlation with time (Spearman) would serve as well; Mann-Kendall
//! pairs naturally with Sen's slope (Sen 1968, the median of the pairwise slopes), the robust
//! rate reported beside it, which one outlying snapshot cannot swing.
//!
//! **Keeps growing** needs more than a significant trend: a series that rose and levelled off
//! (a cache filling up to its bound) has one too. The *recent half* (the last ⌈n/2⌉ points, at
//! least 3) must also rise on its own: Sen's slope over it above zero and Kendall's tau over it at
//! least 0.5 (three of four of its pairs ordered upward, ties counting against).
//!
//! **Grew once** (a warm-up): of the series' total rise above its first value, one step between
//! consecutive points made at least 80 %. Anything else that rose is **bounded**: it grew over
//! several steps and then stayed or sawed (caches, pools, LRUs).

use crate::abtest::normal_upper;

/// The share of the total rise one step must make for a one-off.
pub const ONE_OFF_SHARE: f64 = 0.8;
/// Kendall's tau over the recent half that "still rising" needs.
pub const RECENT_TAU: f64 = 0.5;

/// Mann-Kendall's test for an increasing trend over `xs` (equally spaced, in order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MannKendall {
    /// Later-larger pairs minus later-smaller pairs.
    pub s: i64,
    /// Kendall's tau-a: S over the number of pairs (0 with fewer than two points).
    pub tau: f64,
    /// One-sided p-value of S under no trend (P(S' ≥ S)); exact without ties.
    pub p_value: f64,
}

/// Mann-Kendall over `xs`; a series of fewer than three points is never significant (p = 1).
pub fn mann_kendall(xs: &[f64]) -> MannKendall {
    let n = xs.len();
    let pairs = (n * n.saturating_sub(1) / 2) as i64;
    let mut s = 0i64;
    for i in 0..n {
        for j in i + 1..n {
            s += match xs[j].partial_cmp(&xs[i]) {
                Some(std::cmp::Ordering::Greater) => 1,
                Some(std::cmp::Ordering::Less) => -1,
                _ => 0,
            };
        }
    }
    let tau = if pairs == 0 {
        0.0
    } else {
        s as f64 / pairs as f64
    };
    if n < 3 {
        return MannKendall {
            s,
            tau,
            p_value: 1.0,
        };
    }
    let ties = tie_groups(xs);
    let p_value = if ties.is_empty() {
        exact_upper(n, s)
    } else {
        let nf = n as f64;
        let mut var = nf * (nf - 1.0) * (2.0 * nf + 5.0);
        for t in ties {
            let t = t as f64;
            var -= t * (t - 1.0) * (2.0 * t + 5.0);
        }
        let var = var / 18.0;
        if var <= 0.0 {
            // All values equal: no evidence of anything.
            1.0
        } else {
            upper_z(s, var)
        }
    };
    MannKendall {
        s,
        tau,
        p_value: p_value.clamp(0.0, 1.0),
    }
}

/// P(Z ≥ (S − 1)/σ), the continuity-corrected normal tail (S ≤ 0 uses S + 1, as usual).
fn upper_z(s: i64, var: f64) -> f64 {
    let corrected = if s > 0 {
        s - 1
    } else if s < 0 {
        s + 1
    } else {
        0
    };
    normal_upper(corrected as f64 / var.sqrt())
}

/// Sizes of the groups of equal values (those of two or more).
fn tie_groups(xs: &[f64]) -> Vec<usize> {
    let mut sorted: Vec<f64> = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut groups = Vec::new();
    let mut run = 1;
    for w in sorted.windows(2) {
        if w[0] == w[1] {
            run += 1;
        } else {
            if run > 1 {
                groups.push(run);
            }
            run = 1;
        }
    }
    if run > 1 {
        groups.push(run);
    }
    groups
}

/// P(S' ≥ s) for S' of n distinct values in random order: S' = M − 2I with I the permutation's
/// inversions, whose distribution is built one element at a time (the k-th adds 0..k − 1
/// inversions, uniformly).
fn exact_upper(n: usize, s: i64) -> f64 {
    let m = n * (n - 1) / 2;
    let mut dist = vec![1.0f64];
    for k in 1..=n {
        let mut next = vec![0.0; dist.len() + k - 1];
        for (i, &p) in dist.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            let share = p / k as f64;
            for slot in &mut next[i..i + k] {
                *slot += share;
            }
        }
        dist = next;
    }
    // S' ≥ s ⇔ I ≤ (M − s) / 2.
    let limit = (m as i64 - s).div_euclid(2);
    if limit < 0 {
        return 0.0;
    }
    dist.iter().take(limit as usize + 1).sum()
}

/// Sen's slope: the median of (y_j − y_i)/(x_j − x_i) over the pairs with x_i < x_j; 0 with no
/// such pair.
pub fn sen_slope(xs: &[f64], ys: &[f64]) -> f64 {
    let mut slopes = Vec::new();
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            let dx = xs[j] - xs[i];
            if dx > 0.0 {
                slopes.push((ys[j] - ys[i]) / dx);
            } else if dx < 0.0 {
                slopes.push((ys[i] - ys[j]) / -dx);
            }
        }
    }
    median(&mut slopes)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        (v[k / 2 - 1] + v[k / 2]) / 2.0
    }
}

/// What a series did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A significant upward trend that is still rising in the recent half.
    Growing,
    /// Rose over several steps, then stayed or sawed.
    Bounded,
    /// One step made most of the rise.
    OneOff,
    /// Never rose above its first value.
    Flat,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Growing => "growing",
            Verdict::Bounded => "bounded",
            Verdict::OneOff => "one-off",
            Verdict::Flat => "flat",
        }
    }
}

/// The trend of one series, as [`classify`] saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesTrend {
    pub test: MannKendall,
    /// Sen's slope per step (per snapshot) over the whole series.
    pub slope: f64,
    /// Sen's slope per step over the recent half.
    pub recent_slope: f64,
    /// Kendall's tau over the recent half.
    pub recent_tau: f64,
    /// The largest rise between consecutive points, over the whole rise above the first point
    /// (0 when it never rose).
    pub largest_step_share: f64,
}

/// The recent half's length: ⌈n/2⌉, at least 3 (all of a shorter series).
pub fn recent_len(n: usize) -> usize {
    n.div_ceil(2).max(3).min(n)
}

/// Mann-Kendall, Sen's slopes and the step shares of `ys` (equally spaced points, in order).
pub fn series_trend(ys: &[f64]) -> SeriesTrend {
    let steps: Vec<f64> = (0..ys.len()).map(|i| i as f64).collect();
    let r = recent_len(ys.len());
    let recent = &ys[ys.len() - r..];
    let rise =
        ys.iter().copied().fold(f64::NEG_INFINITY, f64::max) - ys.first().copied().unwrap_or(0.0);
    let largest_step = ys.windows(2).map(|w| w[1] - w[0]).fold(0.0f64, f64::max);
    SeriesTrend {
        test: mann_kendall(ys),
        slope: sen_slope(&steps, ys),
        recent_slope: sen_slope(&steps[..r], recent),
        recent_tau: mann_kendall(recent).tau,
        largest_step_share: if rise > 0.0 && rise.is_finite() {
            largest_step / rise
        } else {
            0.0
        },
    }
}

/// The verdict on a series whose trend test is judged at `significant` (a p-value or q-value
/// already compared with alpha by the caller, who may adjust for many series).
pub fn classify(t: &SeriesTrend, significant: bool) -> Verdict {
    if significant && t.slope > 0.0 && t.recent_slope > 0.0 && t.recent_tau >= RECENT_TAU {
        Verdict::Growing
    } else if t.largest_step_share <= 0.0 {
        Verdict::Flat
    } else if t.largest_step_share >= ONE_OFF_SHARE {
        Verdict::OneOff
    } else {
        Verdict::Bounded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_values_match_kendalls_table() {
        // n = 4, S = 6 (strictly increasing): 1/24. n = 5, S = 10: 1/120; S = 8: 5/120 (one
        // inversion: 4 permutations, plus the identity).
        assert!((mann_kendall(&[1.0, 2.0, 3.0, 4.0]).p_value - 1.0 / 24.0).abs() < 1e-12);
        assert!((mann_kendall(&[1.0, 2.0, 3.0, 4.0, 5.0]).p_value - 1.0 / 120.0).abs() < 1e-12);
        assert!((mann_kendall(&[2.0, 1.0, 3.0, 4.0, 5.0]).p_value - 5.0 / 120.0).abs() < 1e-12);
        // Kendall's table (1975, Appendix Table 1): n = 6, S = 11 → 0.028 (two inversions: 1 +
        // 5 + 14 = 20 of 720 = 0.0278).
        let p = mann_kendall(&[1.0, 3.0, 2.0, 5.0, 4.0, 6.0]).p_value;
        assert!((p - 20.0 / 720.0).abs() < 1e-12, "{p}");
        // Three points are never significant at 0.05.
        assert!((mann_kendall(&[1.0, 2.0, 3.0]).p_value - 1.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn ties_use_the_corrected_variance() {
        // 0, 5, 5, 5, 5, 5: S = 5; var = (6·5·17 − 5·4·15)/18 = 11.667; z = 4/3.416 = 1.171.
        let t = mann_kendall(&[0.0, 5.0, 5.0, 5.0, 5.0, 5.0]);
        assert_eq!(t.s, 5);
        assert!((t.p_value - normal_upper(4.0 / (210.0f64 / 18.0).sqrt())).abs() < 1e-12);
    }

    #[test]
    fn sen_slope_is_the_median_pairwise_slope() {
        // Six of the ten pairwise slopes are 10; the outlying last point makes the other four.
        let x = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(sen_slope(&x, &[0.0, 10.0, 20.0, 30.0, 1000.0]), 10.0);
        // 10, 10, 10, 33.3, 45, 80: the middle two averaged.
        let x = [0.0, 1.0, 2.0, 3.0];
        let s = sen_slope(&x, &[0.0, 10.0, 20.0, 100.0]);
        assert!((s - (10.0 + 100.0 / 3.0) / 2.0).abs() < 1e-12, "{s}");
        assert_eq!(sen_slope(&x, &[5.0, 5.0, 5.0, 5.0]), 0.0);
    }

    #[test]
    fn verdicts_on_the_three_shapes() {
        let verdict = |ys: &[f64]| {
            let t = series_trend(ys);
            classify(&t, t.test.p_value < 0.05)
        };
        assert_eq!(
            verdict(&[0.0, 10.0, 20.0, 30.0, 40.0, 50.0]),
            Verdict::Growing
        );
        // Bursty but still rising at the end.
        assert_eq!(
            verdict(&[0.0, 10.0, 10.0, 25.0, 25.0, 40.0, 41.0]),
            Verdict::Growing
        );
        // A cache filling up to its bound, then sawing.
        assert_eq!(
            verdict(&[0.0, 30.0, 50.0, 50.0, 49.0, 50.0]),
            Verdict::Bounded
        );
        assert_eq!(
            verdict(&[0.0, 30.0, 60.0, 60.0, 60.0, 60.0]),
            Verdict::Bounded
        );
        assert_eq!(
            verdict(&[0.0, 80.0, 80.0, 80.0, 80.0, 80.0]),
            Verdict::OneOff
        );
        assert_eq!(verdict(&[0.0, 0.0, 0.0, 0.0]), Verdict::Flat);
    }
}
