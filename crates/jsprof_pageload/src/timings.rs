//! User timings (`performance.mark`/`measure`, `console.time`, `console.timeStamp`) as DevTools'
//! `UserTimingsHandler` lists them, and long tasks (`RunTask` over 50 ms on a renderer's main
//! thread, DevTools' `LONG_TASK` warning).

use rustc_hash::FxHashMap as HashMap;

use crate::units::ns_to_us;
use jsprof_profile::page_events::{PageEvents, UserTimingKind};
use jsprof_profile::TraceFile;

/// A mark or a time stamp (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub name: String,
    pub ts: f64,
}

/// A measure or a `console.time` span (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub name: String,
    pub start: f64,
    pub end: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserTimings {
    pub marks: Vec<Mark>,
    pub measures: Vec<Span>,
    pub console_timings: Vec<Span>,
    pub timestamps: Vec<Mark>,
    /// Async halves that found no partner.
    pub unmatched: usize,
}

/// Pairs begin/end halves by (category kind, id, name), as the trace engine's
/// `createMatchedSortedSyntheticEvents` does; sorted by start, the longer first.
fn pair(page: &PageEvents, kind: UserTimingKind, unmatched: &mut usize) -> Vec<Span> {
    let mut events: Vec<_> = page
        .user_timings
        .iter()
        .filter(|u| u.kind == kind)
        .collect();
    events.sort_by_key(|u| u.at.ts);
    let mut open: HashMap<(&str, &str), Vec<f64>> = HashMap::default();
    let mut out = Vec::new();
    for u in events {
        let key = (u.id.as_str(), u.name.as_str());
        match u.ph {
            b'b' | b'S' => open.entry(key).or_default().push(ns_to_us(u.at.ts)),
            b'e' | b'F' => match open.get_mut(&key).and_then(Vec::pop) {
                Some(start) => out.push(Span {
                    name: u.name.clone(),
                    start,
                    end: ns_to_us(u.at.ts),
                }),
                None => *unmatched += 1,
            },
            _ => {}
        }
    }
    *unmatched += open.values().map(Vec::len).sum::<usize>();
    out.sort_by(|a, b| a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end)));
    out
}

/// The user timings of `page`.
pub fn user_timings(page: &PageEvents) -> UserTimings {
    let mut unmatched = 0;
    let measures = pair(page, UserTimingKind::Measure, &mut unmatched);
    let console_timings = pair(page, UserTimingKind::ConsoleTime, &mut unmatched);
    let marks_of = |kind: UserTimingKind| {
        let mut marks: Vec<Mark> = page
            .user_timings
            .iter()
            .filter(|u| u.kind == kind)
            .map(|u| Mark {
                name: u.message.clone().unwrap_or_else(|| u.name.clone()),
                ts: ns_to_us(u.at.ts),
            })
            .collect();
        marks.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        marks
    };
    UserTimings {
        marks: marks_of(UserTimingKind::Mark),
        measures,
        console_timings,
        timestamps: marks_of(UserTimingKind::TimeStamp),
        unmatched,
    }
}

/// One long task (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct LongTask {
    pub start: f64,
    pub dur: f64,
    pub pid: u64,
    pub tid: u64,
    /// On the main frame's renderer.
    pub main_frame: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LongTasks {
    pub items: Vec<LongTask>,
}

impl LongTasks {
    pub const THRESHOLD_US: f64 = 50_000.0;

    pub fn total(&self) -> f64 {
        self.items.iter().map(|t| t.dur).sum()
    }

    /// Total blocking time: each task's time past 50 ms.
    pub fn blocking(&self) -> f64 {
        self.items
            .iter()
            .map(|t| (t.dur - Self::THRESHOLD_US).max(0.0))
            .sum()
    }
}

/// `RunTask`s over 50 ms on the `CrRendererMain` threads, by time.
pub fn long_tasks(trace: &TraceFile, main_pids: &[u64]) -> LongTasks {
    let strings = &trace.profile.strings;
    let mut items = Vec::new();
    for t in trace.threads.iter().filter(|t| t.name == "CrRendererMain") {
        for e in &t.events {
            let dur = ns_to_us(e.dur);
            if dur > LongTasks::THRESHOLD_US && strings.get(e.name) == "RunTask" {
                items.push(LongTask {
                    start: ns_to_us(e.start),
                    dur,
                    pid: t.pid,
                    tid: t.tid,
                    main_frame: main_pids.contains(&t.pid),
                });
            }
        }
    }
    items.sort_by(|a, b| a.start.total_cmp(&b.start));
    LongTasks { items }
}
