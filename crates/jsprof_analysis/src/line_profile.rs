//! Per-line self time, as DevTools' Sources gutter shows it after a CPU profile was recorded
//! or loaded.
//!
//! V8 counts, for every node of a `.cpuprofile`, how many of the node's hits fell on each line
//! of its function (`positionTicks`; they add up to the node's `hitCount`). DevTools turns a
//! tick into time with one figure for the whole profile — its span from the first sample to
//! where the last ends, divided by the nodes' hit counts summed (the number of samples when the
//! nodes have no `hitCount`) — and adds the ticks of every node by (script URL, line); nodes
//! without a URL are left out. The span is the one `apply_devtools_timing` computes, so these
//! numbers are the gutter's to the float. V8 counts hits apart from the `samples` array, and
//! the two can differ (a quarter fewer hits than samples in `fixtures/cpu/tsc.cpuprofile.gz`):
//! a function's lines then do not add up to its self time in `top`, in DevTools as here.
//!
//! The ticks are only a node's **self** samples: V8 records no line for a caller's frame, so
//! a line's total (self plus the calls made from it) is not in the data, and the ticks are
//! counts for the whole recording: a time range cannot clip them.
//!
//! ```
//! use jsprof_analysis::line_profile;
//! use jsprof_profile::{Profile, ProfileKind, Thread, WeightUnit};
//!
//! let mut p = Profile::new(ProfileKind::CpuProfile);
//! let f = p.intern_frame("f", "file:///a.js", Some(1), Some(1), "1");
//! let s = p.stacks.push(None, f, 2);
//! let mut t = Thread::new(WeightUnit::Nanoseconds);
//! t.samples_mut().push(0, Some(s));
//! t.samples_mut().push(1_000_000, Some(s));
//! t.set_samples_end(Some(2_000_000));
//! t.push_position_tick(s, 3, 2);
//! p.threads.push(t);
//! let lines = line_profile(&p, &p.threads[0], |_| true);
//! assert_eq!(lines.tick_ns, 1_000_000.0);
//! assert_eq!((lines.scripts[0].lines[0].line, lines.scripts[0].lines[0].ticks), (3, 2));
//! ```

use std::collections::BTreeMap;

use jsprof_profile::{FrameId, Profile, StringId, Thread};

/// The ticks of one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTicks {
    /// 1-based, in the frame's file (the original file where a source map moved the frame).
    pub line: u32,
    pub ticks: u64,
}

/// The lines of one script, by line.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptLines {
    pub url: StringId,
    pub lines: Vec<LineTicks>,
}

/// Line ticks of a thread and what one tick weighs.
#[derive(Clone, Debug, PartialEq)]
pub struct LineProfile {
    /// What one tick weighs, in the thread's unit (ns): the profile's span over its hits.
    pub tick_ns: f64,
    /// Scripts in URL order, each with its lines in line order.
    pub scripts: Vec<ScriptLines>,
    /// Ticks summed over every selected frame, lines with no URL included (DevTools drops those
    /// from the gutter; the sum lets a caller check the ticks against the samples).
    pub ticks: u64,
}

impl LineProfile {
    /// The weight of `ticks` ticks, in the thread's unit.
    pub fn weight(&self, ticks: u64) -> f64 {
        ticks as f64 * self.tick_ns
    }
}

/// The line ticks of the frames `select` accepts (the top frame of each ticked stack), per
/// script and line. Every thread of a `.cpuprofile` has them; other inputs have none and give
/// an empty profile.
pub fn line_profile(
    profile: &Profile,
    thread: &Thread,
    mut select: impl FnMut(FrameId) -> bool,
) -> LineProfile {
    let hits = thread.hit_count().unwrap_or(thread.samples().len() as u64);
    let span = thread.end_time() - thread.start_time();
    let tick_ns = if hits == 0 {
        0.0
    } else {
        span as f64 / hits as f64
    };
    let mut by_line: BTreeMap<(&str, StringId, u32), u64> = BTreeMap::new();
    let mut ticks = 0;
    for &(stack, line, n) in thread.position_ticks() {
        let frame = profile.stacks.frame(stack);
        if !select(frame) {
            continue;
        }
        ticks += n as u64;
        let url = profile.frames.get(frame).url;
        let name = profile.strings.get(url);
        if name.is_empty() {
            continue;
        }
        *by_line.entry((name, url, line)).or_default() += n as u64;
    }
    let mut scripts: Vec<ScriptLines> = Vec::new();
    for ((_, url, line), ticks) in by_line {
        match scripts.last_mut() {
            Some(s) if s.url == url => s.lines.push(LineTicks { line, ticks }),
            _ => scripts.push(ScriptLines {
                url,
                lines: vec![LineTicks { line, ticks }],
            }),
        }
    }
    LineProfile {
        tick_ns,
        scripts,
        ticks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{apply_devtools_timing, function_table};
    use jsprof_profile::{ProfileKind, WeightUnit};

    /// Two functions in one script, one in another; `f` on two stacks (called from `main` and
    /// from `g`), so its lines add up across nodes as DevTools' gutter adds them.
    fn profile() -> Profile {
        let mut p = Profile::new(ProfileKind::CpuProfile);
        let root = p.intern_frame("(root)", "", None, None, "0");
        let main = p.intern_frame("main", "file:///a.js", Some(1), Some(1), "1");
        let f = p.intern_frame("f", "file:///a.js", Some(10), Some(11), "1");
        let g = p.intern_frame("g", "file:///b.js", Some(2), Some(1), "2");
        let r = p.stacks.push(None, root, 1);
        let sm = p.stacks.push(Some(r), main, 2);
        let sf = p.stacks.push(Some(sm), f, 3);
        let sg = p.stacks.push(Some(sm), g, 4);
        let sgf = p.stacks.push(Some(sg), f, 5);
        let mut t = Thread::new(WeightUnit::Samples);
        // Uneven intervals: one tick is the *average* sample, not any sample's own duration.
        for (time, s) in [(0, sf), (1_000, sf), (4_000, sgf), (5_000, sg), (9_000, sm)] {
            t.samples_mut().push(time, Some(s));
        }
        t.push_position_tick(sf, 11, 1);
        t.push_position_tick(sf, 12, 1);
        t.push_position_tick(sgf, 12, 1);
        t.push_position_tick(sg, 3, 1);
        t.push_position_tick(sm, 2, 1);
        p.threads.push(t);
        p
    }

    #[test]
    fn a_tick_is_the_average_sample_and_lines_add_up_across_nodes() {
        let mut p = profile();
        apply_devtools_timing(&mut p);
        let t = &p.threads[0];
        // 5 samples over 0..9 µs, the last lasting the average interval (9/4 µs): 11.25 µs.
        assert_eq!(t.end_time() - t.start_time(), 11_250);
        let all = line_profile(&p, t, |_| true);
        assert_eq!(all.tick_ns, 2_250.0);
        assert_eq!(all.ticks, 5);
        let a = p.strings.get(all.scripts[0].url);
        assert_eq!(a, "file:///a.js");
        let lines: Vec<(u32, u64)> = all.scripts[0]
            .lines
            .iter()
            .map(|l| (l.line, l.ticks))
            .collect();
        assert_eq!(lines, [(2, 1), (11, 1), (12, 2)]);
        assert_eq!(p.strings.get(all.scripts[1].url), "file:///b.js");
        assert_eq!(all.weight(2), 4_500.0);
    }

    #[test]
    fn one_function_ticks_equal_its_self_samples() {
        let mut p = profile();
        apply_devtools_timing(&mut p);
        let t = &p.threads[0];
        let table = function_table(&p, t);
        let f = table
            .rows
            .iter()
            .find(|r| p.strings.get(r.key.name) == "f")
            .unwrap();
        let key = f.key;
        let lines = line_profile(&p, t, |fr| crate::FunctionKey::of(&p, fr) == key);
        assert_eq!(lines.ticks, 3);
        assert_eq!(lines.scripts.len(), 1);
        // f's self time is its samples' own durations (1 + 3 + 1 µs), the lines' the average.
        assert_eq!(f.self_weight, 5_000);
        assert_eq!(lines.weight(lines.ticks), 6_750.0);
    }

    #[test]
    fn a_tick_is_the_span_over_the_files_hit_counts() {
        let mut p = profile();
        p.threads[0].set_hit_count(Some(9));
        apply_devtools_timing(&mut p);
        let lines = line_profile(&p, &p.threads[0], |_| true);
        assert_eq!(lines.tick_ns, 11_250.0 / 9.0);
    }
}
