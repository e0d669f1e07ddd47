//! The CSS selector cost insight (the trace engine's `SlowCSSSelector`): the selectors' matching
//! statistics of the navigation's style recalculations (`SelectorStats`, written when the
//! Performance panel's "CSS selector stats" is on), summed per selector and style sheet; the
//! insight informs when the slowest selector took 500 µs or more.
//!
//! Each `SelectorStats` belongs to the last `UpdateLayoutTree` before it in the file (the
//! engine's handler sees the events as written, every thread together); a later one for the
//! same recalculation replaces it.

use rustc_hash::FxHashMap as HashMap;

use jsprof_profile::page_events::SelectorTiming;
use jsprof_profile::TraceFile;

use super::insight_common::{in_bounds, State};
use super::vitals::NavigationVitals;
use crate::units::ns_to_us;

/// Elapsed time (µs) from which the slowest selector is worth showing.
const SLOW_SELECTOR: f64 = 500.0;

/// The CSS selector cost insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowCssSelector {
    /// `informative` when the slowest selector took 500 µs or more, else `pass`.
    pub state: State,
    /// µs.
    pub total_elapsed: f64,
    pub total_match_attempts: f64,
    pub total_match_count: f64,
    /// The selector with the most elapsed time, when it took 500 µs or more.
    pub top_elapsed: Option<SelectorTiming>,
    /// The selector with the most match attempts.
    pub top_match_attempts: Option<SelectorTiming>,
}

/// The engine's `reduce((a, b) => a[k] > b[k] ? a : b)`: the last of the largest.
fn top_by(list: &[SelectorTiming], key: fn(&SelectorTiming) -> f64) -> Option<SelectorTiming> {
    list.iter()
        .reduce(|a, b| if key(a) > key(b) { a } else { b })
        .cloned()
}

/// The CSS selector cost insight of `nav`.
pub fn slow_css_selector(trace: &TraceFile, nav: &NavigationVitals) -> SlowCssSelector {
    let page = &trace.page;
    // Per recalculation, its last stats, in first-seen order (the engine's Map).
    let mut per_recalc: Vec<(usize, &[SelectorTiming])> = Vec::new();
    let mut slot_of: HashMap<usize, usize> = HashMap::default();
    for s in &page.selector_stats {
        let Some(r) = s.recalc else { continue };
        match slot_of.get(&r) {
            Some(&slot) => per_recalc[slot].1 = &s.timings,
            None => {
                slot_of.insert(r, per_recalc.len());
                per_recalc.push((r, &s.timings));
            }
        }
    }
    // The recalculations' durations, from their threads.
    let mut durations: HashMap<(u64, u64, i64), i64> = HashMap::default();
    if !per_recalc.is_empty() {
        let strings = &trace.profile.strings;
        for t in &trace.threads {
            for e in &t.events {
                if strings.get(e.name) == "UpdateLayoutTree" {
                    durations.insert((t.pid, t.tid, e.start), e.dur);
                }
            }
        }
    }
    let mut by_selector: Vec<SelectorTiming> = Vec::new();
    // The engine's key: selector and style sheet joined by `_`.
    let mut index: HashMap<String, usize> = HashMap::default();
    for (r, timings) in per_recalc {
        let recalc = &page.reflows[r];
        let at = &recalc.at;
        let dur = durations
            .get(&(at.pid, at.tid, at.ts))
            .copied()
            .unwrap_or(0);
        if recalc.frame != nav.frame || !in_bounds(ns_to_us(at.ts), ns_to_us(dur), &nav.bounds) {
            continue;
        }
        for t in timings {
            let key = format!("{}_{}", t.selector, t.style_sheet_id);
            match index.get(&key) {
                Some(&i) => {
                    let s = &mut by_selector[i];
                    s.elapsed += t.elapsed;
                    s.fast_reject_count += t.fast_reject_count;
                    s.match_attempts += t.match_attempts;
                    s.match_count += t.match_count;
                }
                None => {
                    index.insert(key, by_selector.len());
                    by_selector.push(t.clone());
                }
            }
        }
    }
    let top_elapsed = top_by(&by_selector, |t| t.elapsed).filter(|t| t.elapsed >= SLOW_SELECTOR);
    let top_match_attempts = top_by(&by_selector, |t| t.match_attempts);
    SlowCssSelector {
        state: if top_elapsed.is_some() && top_match_attempts.is_some() {
            State::Informative
        } else {
            State::Pass
        },
        // Summed from +0 as the engine sums (Rust's `sum` of no floats is -0).
        total_elapsed: by_selector.iter().fold(0.0, |s, t| s + t.elapsed),
        total_match_attempts: by_selector.iter().fold(0.0, |s, t| s + t.match_attempts),
        total_match_count: by_selector.iter().fold(0.0, |s, t| s + t.match_count),
        top_elapsed,
        top_match_attempts,
    }
}
