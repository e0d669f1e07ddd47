//! What a page-load trace says about the page itself, beside its threads: network requests,
//! navigations, paint and load markers, layout shifts, interactions (EventTiming), user timings
//! and screenshots. [`crate::read_trace_from`] hands each event with one of these names to
//! [`PageEvents::push`], which keeps only the fields DevTools' trace engine reads; the metrics
//! (FCP, LCP, CLS, INP, request timing) are derived in `jsprof_pageload`.
//!
//! Only these events have their `args` parsed, so a trace without them costs one name match per
//! event. Damage (an event without its request id, a screenshot whose base64 is broken) is
//! counted and reported once per kind, never fatal.
//!
//! The data types are in `types.rs` (re-exported here); the handlers, one per family of events as
//! DevTools' trace engine has them, in `network` (requests) and `handlers` (the rest).

mod args;
mod handlers;
mod network;
mod types;

pub use types::*;

use serde_json::Value;

use GraphEventName as G;
use PageEvents as P;

/// The events Lantern's page dependency graph reads, and which: first those it reads by name
/// alone (tasks, and the first layout, paint and HTML parse), then those whose `args.data` it
/// reads too.
const GRAPH_EVENTS: &[(&str, GraphEventName)] = &[
    ("RunTask", G::RunTask),
    ("ThreadControllerImpl::RunTask", G::RunTask),
    ("ThreadControllerImpl::DoWork", G::RunTask),
    ("TaskQueueManager::ProcessTaskFromWorkQueue", G::RunTask),
    ("Layout", G::Layout),
    ("Paint", G::Paint),
    ("ParseHTML", G::ParseHtml),
    // Read with their data from here on.
    ("TimerInstall", G::TimerInstall),
    ("TimerFire", G::TimerFire),
    ("InvalidateLayout", G::InvalidateLayout),
    ("ScheduleStyleRecalculation", G::ScheduleStyleRecalculation),
    ("EvaluateScript", G::EvaluateScript),
    ("XHRReadyStateChange", G::XhrReadyStateChange),
    ("FunctionCall", G::FunctionCall),
    ("v8.compile", G::V8Compile),
    ("ParseAuthorStyleSheet", G::ParseAuthorStyleSheet),
    ("ResourceSendRequest", G::ResourceSendRequest),
];

/// How many of [`GRAPH_EVENTS`] Lantern reads by name alone.
const BY_NAME_ALONE: usize = 7;

/// The names Lantern reads by name alone, and which (two slices of one table, so that the
/// per-event checks scan only their own part).
const GRAPH_MARKS: &[(&str, GraphEventName)] = GRAPH_EVENTS.split_at(BY_NAME_ALONE).0;

/// The names whose `args.data` Lantern reads.
const GRAPH_DATA: &[(&str, GraphEventName)] = GRAPH_EVENTS.split_at(BY_NAME_ALONE).1;

/// Whether `name` is an event Lantern reads by name alone ([`PageEvents::push_graph_mark`]).
pub fn is_graph_mark(name: &str) -> bool {
    GRAPH_MARKS.iter().any(|(n, _)| *n == name)
}

/// The page's events, in file order.
#[derive(Clone, Debug, Default)]
pub struct PageEvents {
    pub requests: Vec<RequestEvent>,
    pub navigations: Vec<Navigation>,
    pub markers: Vec<Marker>,
    pub layout_shifts: Vec<LayoutShift>,
    pub event_timings: Vec<EventTiming>,
    pub user_timings: Vec<UserTiming>,
    pub screenshots: Vec<Screenshot>,
    /// `LargestImagePaint::Candidate`: (when, pid, `DOMNodeId`, `imageUrl`) — how DevTools finds
    /// the request of an image LCP.
    pub image_paints: Vec<(Stamp, u64, String)>,
    /// `TracingStartedInBrowser`'s outermost main frame: (frame id, url).
    pub main_frame: Option<(String, String)>,
    /// `Layout` and `UpdateLayoutTree` events' args.
    pub reflows: Vec<Reflow>,
    pub dom_stats: Vec<DomStats>,
    /// `FunctionCall` events with a call frame in `args.data`.
    pub function_calls: Vec<(Stamp, CallFrame)>,
    /// `PaintImage` (complete events): (when, `nodeId`, `url`) — the layout-shift culprits'
    /// images.
    pub paint_images: Vec<(Stamp, u64, String)>,
    /// `PaintImage` (complete events) with a `url`: what the image delivery insight reads.
    pub painted_images: Vec<PaintedImage>,
    /// The earliest `PaintTimingVisualizer::Viewport`: (when, its `dpr`) — the page's device
    /// pixel ratio, emulated or not (DevTools' `devicePixelRatio`).
    pub viewport_dpr: Option<(i64, Option<f64>)>,
    /// The trace's `metadata.hostDPR`: the device pixel ratio of the screen DevTools ran on,
    /// which it writes to a saved trace; with [`PageEvents::viewport_dpr`] it corrects the
    /// images' drawn sizes for an emulated one.
    pub host_dpr: Option<f64>,
    /// `LayoutImageUnsized`: (when, `nodeId`) — an image without width and height.
    pub unsized_images: Vec<(Stamp, u64)>,
    /// `domLoading`: (when, frame) — a frame's document starting to load.
    pub dom_loading: Vec<(Stamp, String)>,
    /// `Animation` async events, in file order.
    pub animations: Vec<AnimationEvent>,
    /// Each frame's URL over time (DevTools' `rendererProcessesByFrame`).
    pub frame_urls: Vec<FrameUrl>,
    /// `TracingSessionIdForWorker`'s `workerThreadId`s.
    pub worker_threads: Vec<u64>,
    /// `LinkPreconnect`'s `url`s: `<link rel=preconnect>`.
    pub link_preconnects: Vec<String>,
    /// Tasks and the events in them that Lantern's dependency graph reads, in file order.
    pub graph_events: Vec<GraphEvent>,
    /// `ParseMetaViewport`: (when, frame) — a `<meta name=viewport>` parsed.
    pub viewport_metas: Vec<(Stamp, String)>,
    pub compositor_frames: Vec<CompositorFrame>,
    pub charset_checks: Vec<CharsetCheck>,
    pub remote_fonts: Vec<RemoteFont>,
    pub selector_stats: Vec<SelectorStats>,
    /// The scripts V8 compiled, from its source rundown (their source text included).
    pub scripts: crate::page_scripts::Scripts,
    /// Events of a known name that lacked what makes them usable, per name.
    skipped: Vec<(&'static str, usize)>,
    broken_screenshots: usize,
    /// The last `UpdateLayoutTree` so far (see [`SelectorStats::recalc`]).
    last_recalc: Option<usize>,
}

/// One event as the handlers read it: what [`PageEvents::push_timed`] was given, its `args`
/// parsed once (`null` when absent) and their `data` (`null` when absent).
#[derive(Clone, Copy)]
struct Event<'a> {
    name: &'a str,
    cat: &'a str,
    ph: u8,
    /// ns; 0 for all but complete events.
    dur: i64,
    /// Its `id` or `id2` (as JSON text).
    id: Option<&'a str>,
    args: &'a Value,
    data: &'a Value,
}

/// A family's handler: what it keeps of one event.
type Handler = fn(&mut PageEvents, &Event<'_>, Stamp);

/// The names [`PageEvents::push`] takes (besides the categories of user timings), each with its
/// family's handler as DevTools' trace engine organises them; `None` where the name's only
/// reader is Lantern's graph ([`GRAPH_EVENTS`]). One list serves both [`wanted`] and the
/// dispatch, so that a name cannot be wanted and then left unhandled (`P` is [`PageEvents`]).
const HANDLERS: &[(&str, Option<Handler>)] = &[
    ("PaintTimingVisualizer::Viewport", Some(P::push_image)),
    // The network requests (`NetworkRequestsHandler`).
    ("ResourceWillSendRequest", Some(P::push_request)),
    ("ResourceSendRequest", Some(P::push_request)),
    ("ResourceReceiveResponse", Some(P::push_request)),
    ("ResourceReceivedData", Some(P::push_request)),
    ("ResourceFinish", Some(P::push_request)),
    ("ResourceChangePriority", Some(P::push_request)),
    ("ResourceMarkAsCached", Some(P::push_request)),
    ("PreloadRenderBlockingStatusChange", Some(P::push_request)),
    // Navigations and the page-load markers (`MetaHandler`, `PageLoadMetricsHandler`).
    ("navigationStart", Some(P::push_navigation)),
    ("firstPaint", Some(P::push_marker)),
    ("firstContentfulPaint", Some(P::push_marker)),
    ("MarkDOMContent", Some(P::push_marker)),
    ("MarkLoad", Some(P::push_marker)),
    ("largestContentfulPaint::Candidate", Some(P::push_marker)),
    ("largestContentfulPaint::Invalidate", Some(P::push_marker)),
    ("LayoutShift", Some(P::push_layout_shift)),
    ("EventTiming", Some(P::push_event_timing)),
    ("TimeStamp", Some(P::push_user_timing)),
    ("Screenshot", Some(P::push_screenshot)),
    ("TracingStartedInBrowser", Some(P::push_frames)),
    ("LargestImagePaint::Candidate", Some(P::push_image)),
    ("Layout", Some(P::push_reflow)),
    ("UpdateLayoutTree", Some(P::push_reflow)),
    ("DOMStats", Some(P::push_dom_stats)),
    ("FunctionCall", Some(P::push_function_call)),
    ("PaintImage", Some(P::push_image)),
    ("LayoutImageUnsized", Some(P::push_image)),
    // Written as a Navigation Timing mark (`blink.user_timing`), so handled before the user
    // timings leave it out.
    ("domLoading", Some(P::push_dom_loading)),
    ("Animation", Some(P::push_animation)),
    ("FrameCommittedInBrowser", Some(P::push_frames)),
    ("CommitLoad", Some(P::push_frames)),
    ("TracingSessionIdForWorker", Some(P::push_frames)),
    ("LinkPreconnect", Some(P::push_preconnect)),
    ("TimerInstall", None),
    ("TimerFire", None),
    ("InvalidateLayout", None),
    ("ScheduleStyleRecalculation", None),
    ("EvaluateScript", None),
    ("XHRReadyStateChange", None),
    ("v8.compile", None),
    ("ParseAuthorStyleSheet", None),
    ("ParseMetaViewport", Some(P::push_document)),
    ("BeginCommitCompositorFrame", Some(P::push_document)),
    ("MetaCharsetCheck", Some(P::push_document)),
    ("BeginRemoteFontLoad", Some(P::push_font)),
    ("RemoteFontLoaded", Some(P::push_font)),
    ("SelectorStats", Some(P::push_selector_stats)),
];

/// Whether an event is one the page model keeps: one of its names, or a user timing.
pub fn wanted(name: &str, cat: &str) -> bool {
    HANDLERS.iter().any(|(n, _)| *n == name)
        || cat == "blink.user_timing"
        || cat == "blink.console"
        || crate::page_scripts::wanted(name, cat)
}

impl PageEvents {
    /// Keeps a task, layout, paint or HTML parse for Lantern's dependency graph (the names
    /// [`is_graph_mark`] accepts); their args are not read.
    pub fn push_graph_mark(&mut self, name: &str, at: Stamp, dur: i64) {
        if let Some(&(_, g)) = GRAPH_MARKS.iter().find(|(n, _)| *n == name) {
            self.graph_events.push(GraphEvent {
                at,
                dur,
                name: g,
                data: None,
            });
        }
    }

    /// Counts an event of a known name that lacked what makes it usable.
    fn skip(&mut self, name: &'static str) {
        match self.skipped.iter_mut().find(|(n, _)| *n == name) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((name, 1)),
        }
    }

    /// `v`, counting an event that lacked it under `what` when it is `None`.
    fn required<T>(&mut self, v: Option<T>, what: &'static str) -> Option<T> {
        if v.is_none() {
            self.skip(what);
        }
        v
    }

    /// Keeps what DevTools reads of one event (for which [`wanted`] said yes). `args` is the raw
    /// JSON text of its `args`; `id` its `id` or `id2`.
    pub fn push(
        &mut self,
        name: &str,
        cat: &str,
        ph: u8,
        at: Stamp,
        id: Option<&str>,
        args: Option<&str>,
    ) {
        self.push_timed(name, cat, ph, at, 0, id, args);
    }

    /// As [`PageEvents::push`], with the event's duration (ns; 0 for all but complete events).
    /// Hands the event to its family's handler (`HANDLERS`); a name without one may still be
    /// a user timing.
    #[allow(clippy::too_many_arguments)]
    pub fn push_timed(
        &mut self,
        name: &str,
        cat: &str,
        ph: u8,
        at: Stamp,
        dur: i64,
        id: Option<&str>,
        args: Option<&str>,
    ) {
        let mut args: Value = match args.map(serde_json::from_str) {
            Some(Ok(v)) => v,
            Some(Err(_)) => {
                self.skip("events with unreadable args");
                return;
            }
            None => Value::Null,
        };
        if crate::page_scripts::wanted(name, cat) {
            self.scripts.push(name, cat, ph, &at, &mut args);
            return;
        }
        if name == "FunctionCall" {
            self.scripts.push(name, cat, ph, &at, &mut args);
        }
        let data = args.get("data").unwrap_or(&Value::Null);
        if let Some(&(_, g)) = GRAPH_DATA.iter().find(|(n, _)| *n == name) {
            self.push_graph_data(g, &at, data);
        }
        let e = Event {
            name,
            cat,
            ph,
            dur,
            id,
            args: &args,
            data,
        };
        let handler = if name.starts_with("Resource") {
            // Any `Resource…` name is a network event.
            Some(P::push_request as Handler)
        } else {
            HANDLERS
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|&(_, h)| h)
        };
        match handler {
            Some(handler) => handler(self, &e, at),
            // Another name may still be a user timing.
            None => self.push_user_timing(&e, at),
        }
    }

    /// What was skipped, one line per kind: (JSON path, message).
    pub fn warnings(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .skipped
            .iter()
            .map(|(what, n)| {
                (
                    "traceEvents".to_string(),
                    format!("{n} {what} were skipped"),
                )
            })
            .collect();
        if self.broken_screenshots > 0 {
            out.push((
                "traceEvents".to_string(),
                format!(
                    "{} screenshots without a valid base64 `args.snapshot`; their images were left out",
                    self.broken_screenshots
                ),
            ));
        }
        out
    }

    /// Whether the trace held any page event (a page load rather than a bare CPU trace).
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
            && self.navigations.is_empty()
            && self.markers.is_empty()
            && self.layout_shifts.is_empty()
            && self.event_timings.is_empty()
            && self.user_timings.is_empty()
            && self.screenshots.is_empty()
    }
}

/// A stamp at `ts` on thread 1 of process 1, for tests.
#[cfg(test)]
pub(crate) fn stamp_at(ts: i64) -> Stamp {
    Stamp { ts, pid: 1, tid: 1 }
}

#[cfg(test)]
mod tests {
    use super::stamp_at as at;
    use super::*;

    #[test]
    fn painted_images_keep_their_sizes_and_breakpoints() {
        let mut page = PageEvents::default();
        let img = r#"{"data": {"nodeId": 7, "url": "a.png", "width": 800, "height": 450, "srcWidth": 1200, "srcHeight": 675, "isCSS": false, "isPicture": false, "srcsetAttribute": "a-800.png 800w"}}"#;
        page.push("PaintImage", "x", b'X', at(1), None, Some(img));
        // No URL (a canvas, a generated image): a layout-shift culprit's paint, not an image's.
        let canvas = r#"{"data": {"nodeId": 8, "width": 10, "height": 10}}"#;
        page.push("PaintImage", "x", b'X', at(2), None, Some(canvas));
        assert_eq!(page.paint_images.len(), 2);
        let p = &page.painted_images;
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].width, p[0].height), (800.0, 450.0));
        assert_eq!((p[0].src_width, p[0].src_height), (1200.0, 675.0));
        assert!(p[0].has_breakpoints && !p[0].is_css);
        // The page's device pixel ratio: the earliest viewport's, as the engine sorts by time.
        let viewport = |dpr: f64| format!(r#"{{"data": {{"dpr": {dpr}, "viewport_rect": []}}}}"#);
        for (ts, dpr) in [(5, 2.0), (3, 1.5), (3, 3.0)] {
            let args = viewport(dpr);
            let name = "PaintTimingVisualizer::Viewport";
            page.push(name, "loading", b'I', at(ts), None, Some(&args));
        }
        assert_eq!(page.viewport_dpr, Some((3, Some(1.5))));
    }

    #[test]
    fn broken_screenshot_base64_is_a_warning_not_an_image() {
        let mut page = PageEvents::default();
        let args = r#"{"source_id": 1, "snapshot": "not base64 !!"}"#;
        page.push("Screenshot", "x", b'I', at(1), None, Some(args));
        page.push(
            "Screenshot",
            "x",
            b'I',
            at(2),
            None,
            Some(r#"{"source_id": 1, "snapshot": "/9j/4AAQ"}"#),
        );
        assert_eq!(page.screenshots.len(), 2);
        assert_eq!(page.screenshots[0].image, None);
        assert_eq!(page.screenshots[1].image.as_deref(), Some("/9j/4AAQ"));
        assert_eq!(page.warnings().len(), 1);
    }

    #[test]
    fn selector_stats_belong_to_the_recalculation_before_them_in_the_file() {
        let mut page = PageEvents::default();
        let stats = r#"{"selector_stats": {"selector_timings": [{"selector": "a", "style_sheet_id": "1", "elapsed (us)": 5, "match_attempts": 2, "match_count": 1, "fast_reject_count": 0}]}}"#;
        page.push("SelectorStats", "x", b'X', at(1), None, Some(stats));
        let recalc = r#"{"beginData": {"frame": "F"}, "elementCount": 3}"#;
        page.push("UpdateLayoutTree", "x", b'X', at(10), None, Some(recalc));
        // Written after the recalculation, though earlier in time.
        page.push("SelectorStats", "x", b'X', at(5), None, Some(stats));
        page.push("UpdateLayoutTree", "x", b'E', at(20), None, None);
        page.push("SelectorStats", "x", b'X', at(21), None, Some(stats));
        // Without statistics: not kept.
        page.push("SelectorStats", "x", b'X', at(22), None, Some("{}"));
        let recalcs: Vec<_> = page.selector_stats.iter().map(|s| s.recalc).collect();
        assert_eq!(recalcs, [None, Some(0), None]);
        assert_eq!(page.selector_stats[1].timings[0].elapsed, 5.0);
        assert_eq!(page.selector_stats[1].timings[0].selector, "a");
    }

    #[test]
    fn a_font_is_named_by_the_loads_of_its_url_after_it() {
        let mut page = PageEvents::default();
        let loaded = |name: &str| format!(r#"{{"url": "f.woff2", "name": "{name}"}}"#);
        page.push(
            "RemoteFontLoaded",
            "x",
            b'I',
            at(1),
            None,
            Some(&loaded("Early")),
        );
        let begin = r#"{"id": 7, "display": "block", "url": "f.woff2"}"#;
        page.push("BeginRemoteFontLoad", "x", b'I', at(2), None, Some(begin));
        page.push(
            "BeginRemoteFontLoad",
            "x",
            b'I',
            at(3),
            None,
            Some(r#"{"display": "auto"}"#),
        );
        page.push(
            "RemoteFontLoaded",
            "x",
            b'I',
            at(4),
            None,
            Some(&loaded("Inter")),
        );
        assert_eq!(page.remote_fonts.len(), 1);
        assert_eq!(page.remote_fonts[0].id, "7");
        assert_eq!(page.remote_fonts[0].name.as_deref(), Some("Inter"));
        assert_eq!(
            page.warnings().len(),
            1,
            "the font without an id is counted"
        );
    }

    #[test]
    fn network_event_without_request_id_is_counted() {
        let mut page = PageEvents::default();
        page.push(
            "ResourceFinish",
            "x",
            b'I',
            at(1),
            None,
            Some(r#"{"data": {}}"#),
        );
        page.push("ResourceFinish", "x", b'I', at(1), None, Some("{not json"));
        assert!(page.requests.is_empty());
        let w = page.warnings();
        assert_eq!(w.len(), 2, "{w:?}");
    }

    #[test]
    fn lanterns_events_keep_file_order_and_their_data() {
        let mut page = PageEvents::default();
        page.push_graph_mark("RunTask", at(10), 50);
        page.push(
            "EvaluateScript",
            "devtools.timeline",
            b'X',
            at(12),
            None,
            Some(r#"{"data": {"url": "https://a.test/app.js", "frame": "F1"}}"#),
        );
        page.push(
            "TimerInstall",
            "devtools.timeline",
            b'I',
            at(13),
            None,
            Some(r#"{"data": {"timerId": 7, "stackTrace": [{"url": "https://a.test/x.js"}, {"url": ""}]}}"#),
        );
        page.push(
            "TimerFire",
            "devtools.timeline",
            b'X',
            at(70),
            None,
            Some("{}"),
        );
        page.push_graph_mark("NotATask", at(80), 5);
        let names: Vec<GraphEventName> = page.graph_events.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                GraphEventName::RunTask,
                GraphEventName::EvaluateScript,
                GraphEventName::TimerInstall,
                GraphEventName::TimerFire
            ]
        );
        assert_eq!(page.graph_events[0].dur, 50);
        let eval = page.graph_events[1].data.as_deref().unwrap();
        assert_eq!(eval.url.as_deref(), Some("https://a.test/app.js"));
        assert_eq!(eval.frame.as_deref(), Some("F1"));
        let timer = page.graph_events[2].data.as_deref().unwrap();
        assert_eq!(timer.timer_id.as_deref(), Some("7"));
        assert_eq!(timer.stack, ["https://a.test/x.js", ""]);
        // No `args.data`: Lantern skips the event.
        assert!(page.graph_events[3].data.is_none());
    }

    #[test]
    fn frames_urls_come_from_tracing_start_and_commits() {
        let mut page = PageEvents::default();
        page.push(
            "TracingStartedInBrowser",
            "x",
            b'I',
            at(1),
            None,
            Some(r#"{"data": {"frames": [{"frame": "F", "processId": 5, "url": "about:blank"}]}}"#),
        );
        page.push(
            "FrameCommittedInBrowser",
            "x",
            b'I',
            at(2),
            None,
            Some(r#"{"data": {"frame": "F", "processId": 5, "url": "https://a.test/"}}"#),
        );
        let urls: Vec<(&str, u64, &str)> = page
            .frame_urls
            .iter()
            .map(|f| (f.frame.as_str(), f.process_id, f.url.as_str()))
            .collect();
        assert_eq!(urls, [("F", 5, "about:blank"), ("F", 5, "https://a.test/")]);
    }

    #[test]
    fn navigation_timing_marks_are_not_user_timings() {
        let mut page = PageEvents::default();
        page.push("fetchStart", "blink.user_timing", b'R', at(1), None, None);
        page.push("app:start", "blink.user_timing", b'I', at(2), None, None);
        page.push(
            "domLoading",
            "blink.user_timing,rail",
            b'R',
            at(3),
            None,
            None,
        );
        assert_eq!(page.user_timings.len(), 1);
        assert_eq!(page.user_timings[0].name, "app:start");
        assert_eq!(page.user_timings[0].kind, UserTimingKind::Mark);
    }
}
