//! What the insights share, so that each insight check imports it from here and none imports
//! [`super::insights`], which gathers the checks: an insight's verdict ([`State`]), the engine's
//! bounds test ([`in_bounds`]), the events an insight points at ([`RelatedEvent`], [`Related`]),
//! `isRequestCompressed` ([`is_compressed`]) and the processes of a navigation's frame
//! ([`main_frame_pids`]). [`super::insights`] re-exports the public types under their old paths.

use jsprof_analysis::timeline::{EventType, Timeline};
use jsprof_profile::page_events::PageEvents;
use jsprof_profile::{TraceEvent, TraceFile};

use super::vitals::{NavigationVitals, Window};
use crate::network::Request;
use crate::units::ns_to_us;

/// An insight's verdict, as the engine's `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Pass,
    Fail,
    /// Worth reading, but no rule failed (DOM size with large updates, third parties present).
    Informative,
}

impl State {
    /// `Pass` when `passes`, else `Fail`: the verdict of a check with no middle ground.
    pub fn pass_if(passes: bool) -> State {
        if passes {
            State::Pass
        } else {
            State::Fail
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            State::Pass => "pass",
            State::Fail => "fail",
            State::Informative => "informative",
        }
    }
}

/// A trace event an insight points at (the engine's `relatedEvents`), on its thread: what the
/// Performance panel outlines when the insight is selected.
#[derive(Clone, Debug, PartialEq)]
pub struct RelatedEvent {
    pub pid: u64,
    pub tid: u64,
    pub name: String,
    /// Start (µs, the trace's clock).
    pub ts: f64,
    /// Duration (µs).
    pub dur: f64,
    /// The thread's timeline ([`Timeline::id`]) and the event's depth in it, where the flame
    /// chart draws it; `None` when the timeline does not hold it.
    pub place: Option<(u32, u32)>,
}

impl RelatedEvent {
    /// An event known by its thread, name, start and duration (ns), placed in the timeline of
    /// its thread when that holds an event of the name at that start.
    pub(crate) fn placed(
        trace: &TraceFile,
        timelines: &[Timeline],
        pid: u64,
        tid: u64,
        name: &str,
        start: i64,
        dur: i64,
    ) -> Self {
        let strings = &trace.profile.strings;
        let place = timelines
            .iter()
            .find(|tl| tl.pid == Some(pid) && tl.tid == Some(tid))
            .and_then(|tl| {
                let from = tl.events.partition_point(|x| x.start < start);
                tl.events[from..]
                    .iter()
                    .take_while(|x| x.start == start)
                    .find(|x| x.kind != EventType::JsCall && strings.get(x.name) == name)
                    .map(|x| (tl.id, x.depth))
            });
        RelatedEvent {
            pid,
            tid,
            name: name.to_string(),
            ts: ns_to_us(start),
            dur: ns_to_us(dur),
            place,
        }
    }

    /// A JS call of timeline `tl` (the engine's `ProfileCall`), placed where the flame chart
    /// draws it.
    pub(crate) fn of_call(tl: &Timeline, call: &jsprof_analysis::Call) -> Self {
        let from = tl.events.partition_point(|x| x.start < call.start);
        let place = tl.events[from..]
            .iter()
            .take_while(|x| x.start == call.start)
            .find(|x| {
                x.kind == EventType::JsCall
                    && x.end == call.end()
                    && x.data == jsprof_analysis::timeline::EventData::Frame(call.frame)
            })
            .map(|x| (tl.id, x.depth));
        RelatedEvent {
            pid: tl.pid.unwrap_or_default(),
            tid: tl.tid.unwrap_or_default(),
            name: "ProfileCall".to_string(),
            ts: ns_to_us(call.start),
            dur: ns_to_us(call.dur),
            place,
        }
    }

    /// Event `e` of thread `thread` (an index into the trace's threads), placed in `timelines`.
    pub(crate) fn of(
        trace: &TraceFile,
        timelines: &[Timeline],
        thread: usize,
        e: &TraceEvent,
    ) -> Self {
        let t = &trace.threads[thread];
        // A trace's timelines are its threads in order; the events of one are in pre-order, so
        // sorted by start.
        let place = timelines
            .get(thread)
            .filter(|tl| tl.pid == Some(t.pid) && tl.tid == Some(t.tid))
            .and_then(|tl| {
                let from = tl.events.partition_point(|x| x.start < e.start);
                tl.events[from..]
                    .iter()
                    .take_while(|x| x.start == e.start)
                    .find(|x| x.name == e.name && x.kind != EventType::JsCall)
                    .map(|x| (tl.id, x.depth))
            });
        RelatedEvent {
            pid: t.pid,
            tid: t.tid,
            name: trace.profile.strings.get(e.name).to_string(),
            ts: ns_to_us(e.start),
            dur: ns_to_us(e.dur),
            place,
        }
    }
}

/// An entry of an insight's `relatedEvents`: what the Performance panel outlines when the
/// insight is selected.
#[derive(Clone, Debug, PartialEq)]
pub enum Related {
    /// A network request (the engine's `SyntheticNetworkRequest`): an index into the story's
    /// requests, drawn in the Network track.
    Request(usize),
    /// Any other event: a trace event on its thread's timeline, or one the page's tracks draw
    /// (the LCP candidate, an `EventTiming` interaction, a layout shift or shift cluster).
    Event(RelatedEvent),
}

/// The engine's `eventIsInBounds`: starts by the window's end, ends after its start.
pub(crate) fn in_bounds(ts: f64, dur: f64, b: &Window) -> bool {
    ts <= b.end && b.start < ts + dur
}

/// The engine's `isRequestCompressed`.
pub(crate) fn is_compressed(r: &Request) -> bool {
    const NAMES: [&str; 3] = [
        "content-encoding",
        "x-content-encoding-over-network",
        "x-original-content-encoding",
    ];
    r.response_headers.iter().any(|(n, v)| {
        NAMES.iter().any(|k| n.eq_ignore_ascii_case(k))
            && matches!(v.as_str(), "gzip" | "br" | "deflate" | "zstd")
    })
}

/// The processes the navigation's frame ran in (a cross-site navigation changes process): the
/// engine's main-frame processes, whose main threads the DOM-size and third-party insights read.
pub(crate) fn main_frame_pids(trace: &TraceFile, nav: &NavigationVitals) -> Vec<u64> {
    frame_pids(&trace.page, &nav.frame)
}

/// The processes `frame`'s navigations ran in: where that frame's main thread runs.
pub(crate) fn frame_pids(page: &PageEvents, frame: &str) -> Vec<u64> {
    page.navigations
        .iter()
        .filter(|n| n.frame == frame)
        .map(|n| n.at.pid)
        .collect()
}
