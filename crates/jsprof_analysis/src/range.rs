//! `--range START..END`: a time window as a model transform. Every command clips the profile
//! once and then runs its usual view over the result, so the window means the same everywhere.
//!
//! Times are **clipped** (DevTools' range selection): a sample straddling an edge keeps only the
//! part of its duration inside the window. The clipped thread stays a timed thread — each kept
//! sample starts at `max(time, START)` and the last ends at `min(end, END)` — so its implicit
//! weights ([`jsprof_profile::Thread::weights`]) are exactly the clipped durations and exporters
//! that write times (`.cpuprofile`) still can.

use std::fmt;

use jsprof_profile::{ms_to_ns, Profile, Samples, Thread, WeightUnit};

/// A window in nanoseconds relative to the profile's time origin; `None` = open on that side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// Why a window could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// `START..END` did not parse.
    Syntax(String),
    /// The profile's weights are not times (a `.heapprofile` weighs bytes).
    NotTimed,
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeError::Syntax(s) => write!(
                f,
                "bad range `{s}`: expected START..END in milliseconds, either side may be empty (e.g. `100..250.5`, `..30`)"
            ),
            RangeError::NotTimed => {
                f.write_str("--range needs a profile over time; this one weighs bytes")
            }
        }
    }
}

impl std::error::Error for RangeError {}

impl TimeRange {
    /// The whole profile.
    pub const ALL: TimeRange = TimeRange {
        start: None,
        end: None,
    };

    /// Parses `START..END` in milliseconds (`12.5..`, `..40`, `3..4`).
    pub fn parse_ms(text: &str) -> Result<TimeRange, RangeError> {
        let bad = || RangeError::Syntax(text.to_string());
        let (a, b) = text.trim().split_once("..").ok_or_else(bad)?;
        let side = |s: &str| -> Result<Option<i64>, RangeError> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            let ms: f64 = s.parse().map_err(|_| bad())?;
            if !ms.is_finite() || ms.abs() > 1e12 {
                return Err(bad());
            }
            Ok(Some(ms_to_ns(ms)))
        };
        let range = TimeRange {
            start: side(a)?,
            end: side(b)?,
        };
        if let (Some(s), Some(e)) = (range.start, range.end) {
            if e < s {
                return Err(bad());
            }
        }
        Ok(range)
    }

    pub fn is_all(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

/// The profile's time origin (0 ms) on its own clock: the earliest first sample of its threads
/// (DevTools' profile start for `.cpuprofile` and JS Self-Profiling traces).
pub fn time_origin(profile: &Profile) -> i64 {
    profile
        .threads
        .iter()
        .filter(|t| !t.samples().is_empty())
        .map(Thread::start_time)
        .min()
        .or_else(|| profile.threads.first().map(Thread::start_time))
        .unwrap_or(0)
}

/// The profile restricted to `range`, relative to `origin` (ns on the profile's clock: usually
/// [`time_origin`]; for a Chrome trace, DevTools' trace bounds minimum). The whole range returns
/// a plain copy; a profile whose weights are not times is refused unless the range is whole.
pub fn clip(profile: &Profile, range: TimeRange, origin: i64) -> Result<Profile, RangeError> {
    if range.is_all() {
        return Ok(profile.clone());
    }
    if profile
        .threads
        .iter()
        .any(|t| t.weight_unit() != WeightUnit::Nanoseconds)
    {
        return Err(RangeError::NotTimed);
    }
    let lo = range.start.map_or(i64::MIN, |s| origin.saturating_add(s));
    let hi = range.end.map_or(i64::MAX, |e| origin.saturating_add(e));
    let mut clipped = Profile {
        kind: profile.kind,
        strings: profile.strings.clone(),
        frames: profile.frames.clone(),
        stacks: profile.stacks.clone(),
        threads: Vec::with_capacity(profile.threads.len()),
        warnings: profile.warnings.clone(),
    };
    for thread in &profile.threads {
        clipped.threads.push(clip_thread(thread, lo, hi));
    }
    Ok(clipped)
}

/// One timed thread clipped to `[lo, hi]` (absolute ns). Stacks are kept as they are; line
/// ticks are whole-profile counts and cannot be clipped, so [`Thread::with_samples`] drops them.
fn clip_thread(thread: &Thread, lo: i64, hi: i64) -> Thread {
    let explicit = thread.samples().explicit_weights().is_some();
    let mut samples = if explicit {
        Samples::weighted()
    } else {
        Samples::default()
    };
    let mut last_end = None;
    let (times, stacks) = (thread.samples().time(), thread.samples().stack());
    for (i, duration) in thread.weights().enumerate() {
        let begin = times[i];
        let finish = begin.saturating_add(duration.max(0));
        let (cs, ce) = (begin.max(lo), finish.min(hi));
        // A zero-length sample inside the window is kept (it is still a sample).
        let keep = cs < ce || (duration == 0 && lo <= begin && begin < hi);
        if !keep {
            continue;
        }
        if explicit {
            samples.push_weighted(cs, stacks[i], ce - cs);
        } else {
            samples.push(cs, stacks[i]);
        }
        last_end = Some(ce);
    }
    // Kept samples are contiguous in time, so each one's clipped duration is the gap to the next
    // and the last one's ends the thread.
    let mut out = thread.with_samples(samples, last_end);
    let start = thread.start_time().max(lo);
    let end = thread.end_time().min(hi);
    out.set_declared_range(Some(start.min(end)), Some(end.max(start)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::ProfileKind;

    fn timed(times: &[i64], end: i64) -> Profile {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let f = p.intern_frame("f", "", None, None, "");
        let s = p.stacks.push(None, f, 2);
        let mut t = Thread::new(WeightUnit::Nanoseconds);
        t.set_samples_end(Some(end));
        for &x in times {
            t.samples_mut().push(x, Some(s));
        }
        p.threads.push(t);
        p
    }

    #[test]
    fn parses_ranges() {
        assert_eq!(
            TimeRange::parse_ms("1.5..2").unwrap(),
            TimeRange {
                start: Some(1_500_000),
                end: Some(2_000_000)
            }
        );
        assert_eq!(TimeRange::parse_ms("..").unwrap(), TimeRange::ALL);
        assert_eq!(TimeRange::parse_ms("..3").unwrap().end, Some(3_000_000));
        assert!(TimeRange::parse_ms("3").is_err());
        assert!(TimeRange::parse_ms("4..3").is_err());
        assert!(TimeRange::parse_ms("a..3").is_err());
    }

    #[test]
    fn clips_straddling_samples() {
        // Samples at 100, 110, 130 ns; the last lasts until 150.
        let p = timed(&[100, 110, 130], 150);
        let r = TimeRange {
            start: Some(5),
            end: Some(35),
        };
        let c = clip(&p, r, time_origin(&p)).unwrap();
        let t = &c.threads[0];
        assert_eq!(t.samples().time(), [105, 110, 130]);
        assert_eq!(t.weights().collect::<Vec<_>>(), vec![5, 20, 5]);
        assert_eq!(t.end_time() - t.start_time(), 30);
    }

    #[test]
    fn empty_window_has_no_samples() {
        let p = timed(&[100, 110], 120);
        let c = clip(
            &p,
            TimeRange {
                start: Some(50),
                end: Some(60),
            },
            100,
        )
        .unwrap();
        assert!(c.threads[0].samples().is_empty());
        assert_eq!(c.threads[0].weights().sum::<i64>(), 0);
    }
}
