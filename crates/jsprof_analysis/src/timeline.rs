//! Timelines: one per thread, a tree of typed events (the classic profiler service's `Timeline`
//! and `Event`), built from a trace's events and reconstructed JS calls, or from the calls of a
//! bare CPU profile.
//!
//! The tree is DevTools' own nesting: events sorted by start (longer first, calls before trace
//! events on ties), each event a child of the innermost earlier event that has not ended by its
//! start. Self time is duration minus the children's durations, as in DevTools' Bottom-up.
//! Events are stored in depth-first pre-order, so an event's id is its index + 1.
//!
//! Chrome's event names map onto the service's types as follows (anything else is `GENERIC`,
//! `RunTask` included):
//!
//! | Chrome trace event | type |
//! |---|---|
//! | `ParseHTML` | `DOCUMENT_PARSING` |
//! | `ParseAuthorStyleSheet` | `CSS_PARSING` |
//! | `v8.compile`, `v8.compileModule`, `CompileScript`, `CompileCode` | `SCRIPT_COMPILATION` |
//! | `EvaluateScript`, `v8.evaluateModule`, `FunctionCall`, `TimerFire`, `EventDispatch`, `FireAnimationFrame`, `RunMicrotasks` | `SCRIPT_THREAD_EVALUATION` |
//! | `ScheduleStyleRecalculation`, `InvalidateLayout` (instant) | `REFLOW` |
//! | `UpdateLayoutTree`, `RecalculateStyles` | `STYLE_RECALCULATION` |
//! | `Layout` | `LAYOUT` |
//! | `Paint`, `PaintImage`, `PrePaint`, `Layerize`, `Commit` | `PAINT` |
//! | `MajorGC`, `MinorGC`, `V8.GC*`, `BlinkGC.*` | `GC` |
//! | reconstructed calls | `JS_CALL` (`(garbage collector)` → `GC`, `(program)`/`(idle)` → `GENERIC`) |

use jsprof_profile::{
    FrameId, FrameKind, Profile, StringId, Thread, TraceEvent, TraceFile, GC_NAME,
};

use crate::profile_calls::{devtools_order, frame_calls, trace_calls, Call};

/// The service's event types plus `JS_CALL` and `GC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    DocumentParsing,
    CssParsing,
    ScriptCompilation,
    ScriptThreadEvaluation,
    Reflow,
    StyleRecalculation,
    CssSelectorMatching,
    Layout,
    Paint,
    Generic,
    JsCall,
    Gc,
}

impl EventType {
    pub const ALL: [EventType; 12] = [
        EventType::DocumentParsing,
        EventType::CssParsing,
        EventType::ScriptCompilation,
        EventType::ScriptThreadEvaluation,
        EventType::Reflow,
        EventType::StyleRecalculation,
        EventType::CssSelectorMatching,
        EventType::Layout,
        EventType::Paint,
        EventType::Generic,
        EventType::JsCall,
        EventType::Gc,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::DocumentParsing => "DOCUMENT_PARSING",
            EventType::CssParsing => "CSS_PARSING",
            EventType::ScriptCompilation => "SCRIPT_COMPILATION",
            EventType::ScriptThreadEvaluation => "SCRIPT_THREAD_EVALUATION",
            EventType::Reflow => "REFLOW",
            EventType::StyleRecalculation => "STYLE_RECALCULATION",
            EventType::CssSelectorMatching => "CSS_SELECTOR_MATCHING",
            EventType::Layout => "LAYOUT",
            EventType::Paint => "PAINT",
            EventType::Generic => "GENERIC",
            EventType::JsCall => "JS_CALL",
            EventType::Gc => "GC",
        }
    }

    /// Parses a type name (case-insensitive, `-` accepted for `_`).
    pub fn parse(s: &str) -> Option<EventType> {
        let norm = s.trim().to_ascii_uppercase().replace('-', "_");
        EventType::ALL.into_iter().find(|t| t.as_str() == norm)
    }

    /// The type of a Chrome trace event, by name.
    pub fn of_trace_event(name: &str) -> EventType {
        match name {
            "ParseHTML" => EventType::DocumentParsing,
            "ParseAuthorStyleSheet" => EventType::CssParsing,
            "v8.compile" | "v8.compileModule" | "CompileScript" | "CompileCode" => {
                EventType::ScriptCompilation
            }
            "EvaluateScript" | "v8.evaluateModule" | "FunctionCall" | "TimerFire"
            | "EventDispatch" | "FireAnimationFrame" | "RunMicrotasks" => {
                EventType::ScriptThreadEvaluation
            }
            "ScheduleStyleRecalculation" | "InvalidateLayout" => EventType::Reflow,
            "UpdateLayoutTree" | "RecalculateStyles" => EventType::StyleRecalculation,
            "Layout" => EventType::Layout,
            "Paint" | "PaintImage" | "PrePaint" | "Layerize" | "Commit" => EventType::Paint,
            "MajorGC" | "MinorGC" => EventType::Gc,
            _ if name.starts_with("V8.GC") || name.starts_with("BlinkGC.") => EventType::Gc,
            _ => EventType::Generic,
        }
    }
}

/// What an event carries besides its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventData {
    None,
    /// A JS call: the function's frame (url, line, column).
    Frame(FrameId),
    /// A trace event's type-specific datum (URL, DOM event type).
    Detail(StringId),
}

/// One event of a timeline. Times are nanoseconds on the input's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineEvent {
    pub kind: EventType,
    pub name: StringId,
    pub start: i64,
    pub end: i64,
    /// Duration minus the children's durations (DevTools' self time; may be negative when a
    /// child outlasts its parent, as in DevTools).
    pub self_time: i64,
    /// Index of the parent event.
    pub parent: Option<u32>,
    pub depth: u32,
    pub child_count: u32,
    /// Index one past the last descendant.
    pub subtree_end: u32,
    pub data: EventData,
}

impl TimelineEvent {
    pub fn duration(&self) -> i64 {
        self.end - self.start
    }
}

/// A thread's timeline.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// 1-based, in the order of [`timelines`].
    pub id: u32,
    pub pid: Option<u64>,
    pub tid: Option<u64>,
    pub name: String,
    /// Samples of the thread's CPU profile (0 without one).
    pub samples: usize,
    /// Index into `Profile::threads` of the thread's samples.
    pub profile_thread: Option<usize>,
    /// The time origin (0 ms) of the input (ns).
    pub origin: i64,
    /// Events in depth-first pre-order.
    pub events: Vec<TimelineEvent>,
    /// The reconstructed calls, in the order they were made.
    pub calls: Vec<Call>,
}

/// An entry to nest: a trace event or a call.
struct Entry {
    kind: EventType,
    name: StringId,
    start: i64,
    dur: i64,
    data: EventData,
}

fn call_entry(profile: &Profile, call: &Call) -> Entry {
    let frame = profile.frames.get(call.frame);
    let kind = if frame.kind == FrameKind::Meta {
        if profile.strings.get(frame.name) == GC_NAME {
            EventType::Gc
        } else {
            EventType::Generic
        }
    } else {
        EventType::JsCall
    };
    Entry {
        kind,
        name: frame.name,
        start: call.start,
        dur: call.dur,
        data: EventData::Frame(call.frame),
    }
}

fn trace_entry(profile: &Profile, e: &TraceEvent) -> Entry {
    Entry {
        kind: EventType::of_trace_event(profile.strings.get(e.name)),
        name: e.name,
        start: e.start,
        dur: e.dur,
        data: if e.detail == jsprof_profile::StringTable::EMPTY {
            EventData::None
        } else {
            EventData::Detail(e.detail)
        },
    }
}

/// Nests `n` entries as DevTools does and stores them in pre-order. `key(i)` is entry `i`'s
/// (start, duration, is a call), `entry(i)` the entry itself. The entries are sorted as indices
/// (ties keep index order) and made one at a time, so no copy of them all is held beside the
/// output: that copy (40 B an event and call) was the peak of reading a big trace.
fn nest(
    n: usize,
    key: impl Fn(usize) -> (i64, i64, bool),
    entry: impl Fn(usize) -> Entry,
) -> Vec<TimelineEvent> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| devtools_order(key(a as usize), key(b as usize)));
    let mut out: Vec<TimelineEvent> = Vec::with_capacity(n);
    let mut stack: Vec<u32> = Vec::new();
    for e in order.into_iter().map(|i| entry(i as usize)) {
        while let Some(&top) = stack.last() {
            let t = &out[top as usize];
            // Zero-length events never hold children (DevTools treats them as instants).
            if t.end <= e.start || t.end == t.start {
                let top = stack.pop().unwrap();
                out[top as usize].subtree_end = out.len() as u32;
            } else {
                break;
            }
        }
        let parent = stack.last().copied();
        let index = out.len() as u32;
        if let Some(p) = parent {
            let p = &mut out[p as usize];
            p.child_count += 1;
            p.self_time -= e.dur;
        }
        out.push(TimelineEvent {
            kind: e.kind,
            name: e.name,
            start: e.start,
            end: e.start + e.dur,
            self_time: e.dur,
            parent,
            depth: stack.len() as u32,
            child_count: 0,
            subtree_end: index + 1,
            data: e.data,
        });
        stack.push(index);
    }
    let len = out.len() as u32;
    for s in stack {
        out[s as usize].subtree_end = len;
    }
    out
}

/// The timelines of a trace: one per thread with events or samples, the sampled threads first
/// (timeline id = position in `profile.threads` + 1), then the others by (pid, tid).
/// `trace.profile` must have been timed with [`crate::apply_devtools_timing`].
pub fn trace_timelines(trace: &TraceFile) -> Vec<Timeline> {
    trace_timelines_with(trace, &trace.profile)
}

/// As [`trace_timelines`], with the calls reconstructed from `profile` instead of the trace's own
/// samples: the same samples transformed (filtered), whose threads and frames are the trace's.
pub fn trace_timelines_with(trace: &TraceFile, profile: &Profile) -> Vec<Timeline> {
    let origin = trace.origin();
    let mut out = Vec::new();
    for thread in &trace.threads {
        let samples_thread: Option<&Thread> = thread.profile_thread.map(|p| &profile.threads[p]);
        let calls = match samples_thread {
            Some(t) => trace_calls(profile, t, thread),
            None => Vec::new(),
        };
        let events = &thread.events;
        let at = |i: usize| match events.get(i) {
            Some(e) => Err(e),
            None => Ok(&calls[i - events.len()]),
        };
        let nested = nest(
            events.len() + calls.len(),
            |i| match at(i) {
                Err(e) => (e.start, e.dur, false),
                Ok(c) => (c.start, c.dur, true),
            },
            |i| match at(i) {
                Err(e) => trace_entry(profile, e),
                Ok(c) => call_entry(profile, c),
            },
        );
        out.push(Timeline {
            id: out.len() as u32 + 1,
            pid: Some(thread.pid),
            tid: Some(thread.tid),
            name: thread.name.clone(),
            samples: samples_thread.map_or(0, |t| t.samples().len()),
            profile_thread: thread.profile_thread,
            origin,
            events: nested,
            calls,
        });
    }
    out
}

/// The timelines of a bare CPU profile (one per sampled thread): its `forEachFrame` calls.
/// `profile` must have been timed with [`crate::apply_devtools_timing`].
pub fn profile_timelines(profile: &Profile) -> Vec<Timeline> {
    profile
        .threads
        .iter()
        .enumerate()
        .map(|(i, thread)| {
            let calls = frame_calls(profile, thread);
            let events = nest(
                calls.len(),
                |i| (calls[i].start, calls[i].dur, true),
                |i| call_entry(profile, &calls[i]),
            );
            Timeline {
                id: i as u32 + 1,
                pid: thread.pid(),
                tid: thread.tid(),
                name: thread.name().to_string(),
                samples: thread.samples().len(),
                profile_thread: Some(i),
                origin: thread.start_time(),
                events,
                calls,
            }
        })
        .collect()
}
