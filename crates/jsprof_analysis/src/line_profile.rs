//! Per-line self time, as DevTools' Sources gutter shows it after a CPU profile or a
//! Performance-panel trace was recorded or loaded (`LineLevelProfile.Performance`).
//!
//! **A `.cpuprofile`.** V8 counts, for every node of a `.cpuprofile`, how many of the node's hits fell on each line
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
//! **A trace.** V8 writes a position with every sample of a trace (`ProfileChunk`'s `lines` and
//! `columns`, [`Thread::sample_positions`]) and DevTools adds, for every sample but the first
//! that has both a line and a column, the time **since the previous sample** (not a tick, not
//! the sample's own duration) to that line of the sample's script. The i-th position goes with
//! the i-th sample in time order, as DevTools pairs them (see [`Thread::sample_positions`]).
//! Again only the top frame's line is known, and a sample with no script URL is left out. As
//! the times are the previous intervals, a function's lines add up to about its self time, not
//! exactly: each of its runs is shifted by one sample.
//!
//! ```
//! use jsprof_analysis::{line_profile, LineSource};
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
//! let (source, lines) = line_profile(&p, &p.threads[0], |_| true);
//! assert_eq!(source, LineSource::PositionTicks { tick_ns: 1_000_000.0 });
//! let line = lines.scripts[0].lines[0];
//! assert_eq!((line.line, line.ticks, line.weight), (3, 2, 2_000_000.0));
//! ```

use std::collections::BTreeMap;

use jsprof_profile::{FrameId, Profile, SamplePosition, StringId, Thread};

/// The cost of one line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineTicks {
    /// 1-based, in the frame's file (the original file where a source map moved the frame).
    pub line: u32,
    /// `positionTicks` ticks, or a trace's samples counted on the line.
    pub ticks: u64,
    /// The line's self time in the thread's unit (ns), as DevTools' gutter adds it up.
    pub weight: f64,
}

/// The lines of one script, by line.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptLines {
    pub url: StringId,
    pub lines: Vec<LineTicks>,
}

/// Where a thread's line costs come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LineSource {
    /// No line data: a profile without `positionTicks`, a trace without `lines`, a thread
    /// rebuilt by a range.
    None,
    /// A `.cpuprofile`'s `positionTicks`, each tick weighing `tick_ns`: the profile's span over
    /// its hits.
    PositionTicks { tick_ns: f64 },
    /// A trace's per-sample positions, each sample weighing the time since the previous one.
    SamplePositions,
}

impl LineSource {
    /// Where `thread`'s line costs come from.
    pub fn of(thread: &Thread) -> LineSource {
        if thread.sample_positions().is_some() {
            return LineSource::SamplePositions;
        }
        if thread.position_ticks().is_empty() {
            return LineSource::None;
        }
        let hits = thread.hit_count().unwrap_or(thread.samples().len() as u64);
        let span = thread.end_time() - thread.start_time();
        LineSource::PositionTicks {
            tick_ns: if hits == 0 {
                0.0
            } else {
                span as f64 / hits as f64
            },
        }
    }
}

/// The line costs of a group of frames (one function's).
#[derive(Clone, Debug, PartialEq)]
pub struct LineProfile {
    /// Scripts in URL order, each with its lines in line order.
    pub scripts: Vec<ScriptLines>,
    /// Ticks (or counted samples) summed over the group's frames, lines with no URL included
    /// (DevTools drops those from the gutter; the sum lets a caller check the ticks against the
    /// samples).
    pub ticks: u64,
    /// Their weight, in the thread's unit, lines with no URL included.
    pub weight: f64,
}

/// The line costs of the frames `select` accepts (the top frame of each ticked stack or
/// sample), per script and line, and where they come from.
pub fn line_profile(
    profile: &Profile,
    thread: &Thread,
    mut select: impl FnMut(FrameId) -> bool,
) -> (LineSource, LineProfile) {
    let (source, mut groups) = line_profiles(profile, thread, 1, |f| select(f).then_some(0));
    (source, groups.pop().expect("one group"))
}

/// The line costs of `groups` groups of frames at once (`group(frame)`: the frame's group, if
/// any; asked once per frame), in one pass over the thread: every function of a view costs
/// no more than one.
pub fn line_profiles(
    profile: &Profile,
    thread: &Thread,
    groups: usize,
    mut group: impl FnMut(FrameId) -> Option<usize>,
) -> (LineSource, Vec<LineProfile>) {
    let source = LineSource::of(thread);
    let mut memo: Vec<Option<Option<usize>>> = vec![None; profile.frames.len()];
    let mut group_of = |frame: FrameId| *memo[frame.index()].get_or_insert_with(|| group(frame));
    let mut acc = vec![Acc::default(); groups];
    match source {
        LineSource::None => {}
        LineSource::PositionTicks { tick_ns } => {
            for &(stack, line, n) in thread.position_ticks() {
                let frame = profile.stacks.frame(stack);
                if let Some(g) = group_of(frame) {
                    acc[g].add(profile, frame, line, u64::from(n), 0);
                }
            }
            // A tick's weight is one float for the whole profile: multiply once per line.
            for a in &mut acc {
                a.scale(tick_ns);
            }
        }
        LineSource::SamplePositions => {
            let positions = thread.sample_positions().unwrap_or_default();
            let time = thread.samples().time();
            let stacks = thread.samples().stack();
            for i in 1..positions.len().min(stacks.len()) {
                let SamplePosition { line, .. } = positions[i];
                if !positions[i].is_some() {
                    continue;
                }
                let Some(stack) = stacks[i] else { continue };
                let frame = profile.stacks.frame(stack);
                if let Some(g) = group_of(frame) {
                    acc[g].add(profile, frame, line, 1, time[i] - time[i - 1]);
                }
            }
        }
    }
    let profiles = acc.into_iter().map(|a| a.finish(profile)).collect();
    (source, profiles)
}

#[derive(Clone, Default)]
struct Acc {
    /// (url, line) → (ticks, ns); the weight of ticks is set by `scale`.
    by_line: BTreeMap<(StringId, u32), (u64, f64)>,
    ticks: u64,
    weight: f64,
}

impl Acc {
    fn add(&mut self, profile: &Profile, frame: FrameId, line: u32, ticks: u64, ns: i64) {
        self.ticks += ticks;
        self.weight += ns as f64;
        let url = profile.frames.get(frame).url;
        if profile.strings.get(url).is_empty() {
            return;
        }
        let e = self.by_line.entry((url, line)).or_default();
        e.0 += ticks;
        e.1 += ns as f64;
    }

    fn scale(&mut self, tick_ns: f64) {
        self.weight = self.ticks as f64 * tick_ns;
        for (ticks, w) in self.by_line.values_mut() {
            *w = *ticks as f64 * tick_ns;
        }
    }

    fn finish(self, profile: &Profile) -> LineProfile {
        let mut rows: Vec<_> = self.by_line.into_iter().collect();
        // Scripts in URL order (the map is in string-id order).
        rows.sort_by(|a, b| {
            let s = &profile.strings;
            s.get(a.0 .0).cmp(s.get(b.0 .0)).then(a.0 .1.cmp(&b.0 .1))
        });
        let mut scripts: Vec<ScriptLines> = Vec::new();
        for ((url, line), (ticks, weight)) in rows {
            let l = LineTicks {
                line,
                ticks,
                weight,
            };
            match scripts.last_mut() {
                Some(s) if s.url == url => s.lines.push(l),
                _ => scripts.push(ScriptLines {
                    url,
                    lines: vec![l],
                }),
            }
        }
        LineProfile {
            scripts,
            ticks: self.ticks,
            weight: self.weight,
        }
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
        let (source, all) = line_profile(&p, t, |_| true);
        assert_eq!(source, LineSource::PositionTicks { tick_ns: 2_250.0 });
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
        assert_eq!(all.scripts[0].lines[2].weight, 4_500.0);
        assert_eq!(all.weight, 5.0 * 2_250.0);
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
        let (_, lines) = line_profile(&p, t, |fr| crate::FunctionKey::of(&p, fr) == key);
        assert_eq!(lines.ticks, 3);
        assert_eq!(lines.scripts.len(), 1);
        // f's self time is its samples' own durations (1 + 3 + 1 µs), the lines' the average.
        assert_eq!(f.self_weight, 5_000);
        assert_eq!(lines.weight, 6_750.0);
    }

    #[test]
    fn a_tick_is_the_span_over_the_files_hit_counts() {
        let mut p = profile();
        p.threads[0].set_hit_count(Some(9));
        apply_devtools_timing(&mut p);
        let (source, _) = line_profile(&p, &p.threads[0], |_| true);
        assert_eq!(
            source,
            LineSource::PositionTicks {
                tick_ns: 11_250.0 / 9.0
            }
        );
    }

    /// A trace thread: `f` at 0, 10, 25 µs (file order 10, 0, 25 — V8's deltas can go back),
    /// `g` at 40 µs, `(program)`-like samples without a position; positions paired by index
    /// with the samples in time order, as DevTools pairs them.
    fn trace() -> Profile {
        let mut p = Profile::new(ProfileKind::Trace);
        let root = p.intern_frame("(root)", "", None, None, "0");
        let f = p.intern_frame("f", "https://a.test/a.js", Some(1), Some(1), "7");
        let g = p.intern_frame("g", "https://a.test/a.js", Some(9), Some(1), "7");
        let eval = p.intern_frame("h", "", Some(1), Some(1), "8");
        let r = p.stacks.push(None, root, 1);
        let sf = p.stacks.push(Some(r), f, 2);
        let sg = p.stacks.push(Some(sf), g, 3);
        let se = p.stacks.push(Some(r), eval, 4);
        let mut t = Thread::new(WeightUnit::Samples);
        for (time, s) in [
            (10_000, Some(sf)),
            (0, Some(sf)),
            (25_000, Some(sf)),
            (40_000, Some(sg)),
            (41_000, Some(se)),
            (50_000, None),
        ] {
            t.samples_mut().push(time, s);
        }
        let at = |line, column| SamplePosition { line, column };
        t.set_sample_positions(Some(vec![
            at(2, 5),
            at(3, 1),
            at(4, 0), // no column: DevTools skips it
            at(10, 3),
            at(2, 2), // no URL: left out of the lines, kept in the function's sum
            at(5, 5), // on the root: no script
        ]));
        p.threads.push(t);
        p
    }

    #[test]
    fn a_trace_line_takes_the_time_since_the_previous_sample() {
        let mut p = trace();
        apply_devtools_timing(&mut p);
        let t = &p.threads[0];
        assert_eq!(
            t.samples().time(),
            [0, 10_000, 25_000, 40_000, 41_000, 50_000]
        );
        let (source, all) = line_profile(&p, t, |_| true);
        assert_eq!(source, LineSource::SamplePositions);
        // Sample 0 is never counted; sample 1 (f, 10 µs) takes position 1 (line 3) and the
        // 10 µs since sample 0; sample 2 has no column; sample 3 (g) line 10, 15 µs;
        // sample 4 (no URL) 1 µs in the sum only; sample 5 is on the root.
        let lines: Vec<(u32, u64, f64)> = all.scripts[0]
            .lines
            .iter()
            .map(|l| (l.line, l.ticks, l.weight))
            .collect();
        assert_eq!(lines, [(3, 1, 10_000.0), (10, 1, 15_000.0)]);
        assert_eq!((all.ticks, all.weight), (3, 26_000.0));
        let (_, g) = line_profile(&p, t, |fr| p.frame_name(fr) == "g");
        assert_eq!((g.ticks, g.weight), (1, 15_000.0));
    }

    #[test]
    fn groups_are_one_pass_of_single_selections() {
        let mut p = trace();
        apply_devtools_timing(&mut p);
        let t = &p.threads[0];
        let names = ["f", "g", "h"];
        let (_, groups) = line_profiles(&p, t, names.len(), |fr| {
            names.iter().position(|n| *n == p.frame_name(fr))
        });
        for (name, g) in names.iter().zip(&groups) {
            let (_, one) = line_profile(&p, t, |fr| p.frame_name(fr) == *name);
            assert_eq!(&one, g, "{name}");
        }
    }

    #[test]
    fn a_filter_that_changes_a_samples_top_drops_its_position() {
        let mut p = trace();
        apply_devtools_timing(&mut p);
        let t = &p.threads[0];
        let g = p
            .stacks
            .ids()
            .find(|&s| p.frame_name(p.stacks.frame(s)) == "g");
        let g = g.unwrap();
        let parent = p.stacks.parent(g).unwrap();
        let merged = t.map_stacks(|s| {
            if s == g {
                jsprof_profile::MappedStack::OtherLeaf(parent)
            } else {
                jsprof_profile::MappedStack::SameLeaf(s)
            }
        });
        let (_, all) = line_profile(&p, &merged, |_| true);
        assert_eq!(all.scripts[0].lines.len(), 1);
        assert_eq!(all.scripts[0].lines[0].line, 3);
    }
}
