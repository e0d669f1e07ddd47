//! A trace thread as DevTools' Performance panel weighs it: its Call tree and Bottom-up are made of
//! the thread's *entries* — the reconstructed JS calls nested with the trace's own events
//! (`FunctionCall`, `Layout`, `Paint`, `RunTask`, …, each an entry of its own) — not of the CPU
//! samples. [`entries_profile`] turns a [`Timeline`] into an ordinary weighted [`Profile`] so that
//! every view (function table, both call trees, flame graph, diff) is computed by the one engine
//! that serves `.cpuprofile` files, with no second tree builder:
//!
//! - each entry becomes a stack (its frame on top of its nearest enclosing entry's stack): a JS call
//!   keeps its function's frame, a trace event becomes a [`FrameKind::Native`] frame named after the
//!   event (DevTools groups native entries by name);
//! - each entry becomes one sample weighing its *self* time: its duration clipped to the window, less
//!   its children's clipped durations (so a sum over a subtree is the clipped duration of its root,
//!   and a function's total counting recursion once is the duration of its outermost entries —
//!   DevTools' `BottomUpRootNode` rule);
//! - the time no entry covers becomes one sample on the bare root, so that the weights add up to the
//!   window, the base of every percentage, as a `.cpuprofile`'s gaps do;
//! - instants (zero-length events) and entries outside the window weigh nothing and are left out.
//!
//! The window is DevTools' range selection: the trace bounds by default, so that events which began
//! before the trace's first timestamp count only from there, as in the Performance panel.

use rustc_hash::FxHashMap as HashMap;

use jsprof_profile::{
    Frame, FrameId, FrameKind, Profile, ProfileKind, Samples, StackId, StringTable, Thread,
    WeightUnit,
};

use crate::timeline::{EventData, Timeline};

/// The entries of `timeline` within `window` (absolute ns, `[start, end]`) as a one-thread
/// profile weighted in nanoseconds. `profile` is the one `timeline` was built from (its strings and
/// frames are reused, so frame ids of calls stay valid).
pub fn entries_profile(profile: &Profile, timeline: &Timeline, window: (i64, i64)) -> Profile {
    let (lo, hi) = (window.0, window.1.max(window.0));
    let mut out = Profile::new(ProfileKind::Trace);
    out.strings = profile.strings.clone();
    out.frames = profile.frames.clone();
    out.warnings = profile.warnings.clone();

    let events = &timeline.events;
    let n = events.len();
    let mut native: HashMap<jsprof_profile::StringId, FrameId> = HashMap::default();
    let mut interned: HashMap<(Option<StackId>, FrameId), StackId> = HashMap::default();
    // Per event: its stack when it is an entry that weighs something, and its clipped duration.
    let mut stack_of: Vec<Option<StackId>> = vec![None; n];
    let mut clipped = vec![0i64; n];
    // The nearest enclosing event that is an entry (events are in pre-order: parents first).
    let mut entry_parent: Vec<Option<u32>> = vec![None; n];
    let mut self_weight = vec![0i64; n];
    let mut covered = 0i64;
    for (i, e) in events.iter().enumerate() {
        let parent_entry = e.parent.and_then(|p| {
            if stack_of[p as usize].is_some() {
                Some(p)
            } else {
                entry_parent[p as usize]
            }
        });
        entry_parent[i] = parent_entry;
        let c = (e.end.min(hi) - e.start.max(lo)).max(0);
        if e.end <= e.start || c == 0 {
            continue;
        }
        let frame = match e.data {
            EventData::Frame(frame) => frame,
            EventData::None | EventData::Detail(_) => *native.entry(e.name).or_insert_with(|| {
                out.frames.intern(Frame {
                    name: e.name,
                    url: StringTable::EMPTY,
                    line: None,
                    column: None,
                    script_id: StringTable::EMPTY,
                    kind: FrameKind::Native,
                    original: None,
                })
            }),
        };
        let parent_stack = parent_entry.and_then(|p| stack_of[p as usize]);
        let stack = *interned.entry((parent_stack, frame)).or_insert_with(|| {
            out.stacks
                .push(parent_stack, frame, out.stacks.len() as u64 + 1)
        });
        stack_of[i] = Some(stack);
        clipped[i] = c;
        self_weight[i] += c;
        match parent_entry {
            Some(p) => self_weight[p as usize] -= c,
            None => covered += c,
        }
    }

    let mut thread = Thread::new(WeightUnit::Nanoseconds);
    thread.set_identity(timeline.name.clone(), timeline.pid, timeline.tid);
    *thread.samples_mut() = Samples::weighted();
    let samples = thread.samples_mut();
    samples.push_weighted(lo, None, (hi - lo) - covered);
    for (i, e) in events.iter().enumerate() {
        if let Some(stack) = stack_of[i] {
            samples.push_weighted(e.start.max(lo), Some(stack), self_weight[i]);
        }
    }
    thread.set_declared_range(Some(lo), Some(hi));
    thread.set_samples_end(Some(hi));
    out.threads.push(thread);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{EventType, TimelineEvent};

    fn event(
        name: jsprof_profile::StringId,
        start: i64,
        end: i64,
        parent: Option<u32>,
        data: EventData,
    ) -> TimelineEvent {
        TimelineEvent {
            kind: EventType::Generic,
            name,
            start,
            end,
            self_time: 0,
            parent,
            depth: 0,
            child_count: 0,
            subtree_end: 0,
            data,
        }
    }

    #[test]
    fn entries_weigh_their_clipped_self_time_and_the_gaps_fill_the_window() {
        let mut p = Profile::new(ProfileKind::Trace);
        let f = p.intern_frame("f", "file:///a.js", Some(1), Some(1), "1");
        let task = p.strings.intern("RunTask");
        let paint = p.strings.intern("Paint");
        let mark = p.strings.intern("Mark");
        let name_f = p.frames.get(f).name;
        let timeline = Timeline {
            id: 1,
            pid: None,
            tid: None,
            name: "main".into(),
            samples: 0,
            profile_thread: None,
            origin: 0,
            events: vec![
                // RunTask [-10, 100] holding f [20, 60] holding Paint [30, 40], and an instant.
                event(task, -10, 100, None, EventData::None),
                event(name_f, 20, 60, Some(0), EventData::Frame(f)),
                event(paint, 30, 40, Some(1), EventData::None),
                event(mark, 70, 70, Some(0), EventData::None),
            ],
            calls: Vec::new(),
        };
        let out = entries_profile(&p, &timeline, (0, 200));
        let table = crate::function_table(&out, &out.threads[0]);
        assert_eq!(table.total_weight, 200);
        let row = |name: &str| {
            table
                .rows
                .iter()
                .find(|r| out.strings.get(r.key.name) == name)
                .map(|r| (r.self_weight, r.total_weight))
        };
        // RunTask clipped to [0, 100]: 100 total, 60 self.
        assert_eq!(row("RunTask"), Some((60, 100)));
        assert_eq!(row("f"), Some((30, 40)));
        assert_eq!(row("Paint"), Some((10, 10)));
        assert_eq!(row("Mark"), None);
    }
}
