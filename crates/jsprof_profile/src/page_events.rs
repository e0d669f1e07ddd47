//! What a page-load trace says about the page itself, beside its threads: network requests,
//! navigations, paint and load markers, layout shifts, interactions (EventTiming), user timings
//! and screenshots. [`crate::read_trace_from`] hands each event with one of these names to
//! [`PageEvents::push`], which keeps only the fields DevTools' trace engine reads; the metrics
//! (FCP, LCP, CLS, INP, request timing) are derived in `jsprof_pageload`.
//!
//! Only these events have their `args` parsed, so a trace without them costs one name match per
//! event. Damage (an event without its request id, a screenshot whose base64 is broken) is
//! counted and reported once per kind, never fatal.

use serde_json::Value;

/// One event's common fields. Times are nanoseconds on the trace clock, like [`crate::TraceEvent`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamp {
    pub ts: i64,
    pub pid: u64,
    pub tid: u64,
}

/// `ResourceReceiveResponse`'s `timing` (the network stack's `ResourceTiming`): `request_time` in
/// seconds on the trace clock, the others milliseconds from it (`-1` when not applicable).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceTiming {
    pub request_time: f64,
    pub dns_start: f64,
    pub dns_end: f64,
    pub connect_start: f64,
    pub connect_end: f64,
    pub ssl_start: f64,
    pub ssl_end: f64,
    pub send_start: f64,
    pub send_end: f64,
    pub receive_headers_start: Option<f64>,
    pub receive_headers_end: f64,
    pub proxy_start: f64,
    pub proxy_end: f64,
}

/// The events of one network request, as DevTools' `NetworkRequestsHandler` gathers them.
#[derive(Clone, Debug, PartialEq)]
pub enum NetworkEvent {
    WillSendRequest,
    SendRequest(SendRequest),
    ReceiveResponse(Response),
    /// `encodedDataLength`: the bytes of this chunk on the wire.
    ReceivedData {
        encoded_data_length: f64,
    },
    Finish(Finish),
    ChangePriority {
        priority: String,
    },
    MarkAsCached,
    PreloadRenderBlockingStatusChange {
        render_blocking: Option<String>,
    },
}

/// `ResourceSendRequest`'s data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SendRequest {
    pub url: String,
    pub priority: String,
    pub frame: String,
    pub request_method: Option<String>,
    pub resource_type: Option<String>,
    pub render_blocking: Option<String>,
    pub fetch_priority_hint: Option<String>,
    pub is_link_preload: bool,
    /// `initiator.type` and `initiator.url`.
    pub initiator: Option<(String, Option<String>)>,
    /// `initiator.fetchType` (`script`, `link`, `xmlhttprequest`, `fetch`, …).
    pub fetch_type: Option<String>,
    /// The URLs of `args.data.stackTrace`'s frames, top first (empty strings kept): the script
    /// that issued the request, for Lantern's initiators.
    pub stack_trace: Vec<String>,
}

/// `ResourceReceiveResponse`'s data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    pub status: u32,
    pub mime_type: String,
    pub protocol: Option<String>,
    pub from_cache: bool,
    pub from_service_worker: bool,
    pub timing: Option<ResourceTiming>,
    /// The response headers (name, value), as written: the document-latency insight reads
    /// `Content-Encoding` from them.
    pub headers: Vec<(String, String)>,
    /// Whether `headers` was written at all (the cache insight skips responses without).
    pub has_headers: bool,
    /// `encodedDataLength` (the headers' bytes so far), 0 when absent.
    pub encoded_data_length: f64,
    /// Whether `connectionId` is present: Lantern refuses traces whose responses lack it.
    pub has_connection_id: bool,
    /// `connectionId` (0 when absent, as Lantern reads it) and `connectionReused`: Lantern's
    /// network analysis tells fresh connections from reused ones by them.
    pub connection_id: f64,
    pub connection_reused: bool,
}

/// `ResourceFinish`'s data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finish {
    /// Seconds on the trace clock; `None` when absent or zero.
    pub finish_time: Option<f64>,
    pub encoded_data_length: Option<f64>,
    pub decoded_body_length: f64,
    pub did_fail: bool,
}

/// A network event with its request id.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestEvent {
    pub at: Stamp,
    /// The event's duration (ns): a complete event's (`ResourceChangePriority` is one), else 0.
    pub dur: i64,
    pub request_id: String,
    pub event: NetworkEvent,
}

/// `navigationStart` (a main- or sub-frame navigation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Navigation {
    pub at: Stamp,
    pub frame: String,
    pub navigation_id: String,
    pub url: String,
    pub is_loading_main_frame: bool,
    pub is_outermost_main_frame: bool,
}

/// Which page-load marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    FirstPaint,
    FirstContentfulPaint,
    DomContentLoaded,
    Load,
    LcpCandidate,
    LcpInvalidate,
}

impl MarkerKind {
    /// The event name as written in the trace.
    pub fn event_name(self) -> &'static str {
        match self {
            MarkerKind::FirstPaint => "firstPaint",
            MarkerKind::FirstContentfulPaint => "firstContentfulPaint",
            MarkerKind::DomContentLoaded => "MarkDOMContent",
            MarkerKind::Load => "MarkLoad",
            MarkerKind::LcpCandidate => "largestContentfulPaint::Candidate",
            MarkerKind::LcpInvalidate => "largestContentfulPaint::Invalidate",
        }
    }
}

/// A paint or load marker: the frame, and for paints and LCP candidates the navigation id.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub at: Stamp,
    pub kind: MarkerKind,
    pub frame: String,
    pub navigation_id: Option<String>,
    /// LCP candidates: `candidateIndex`, `type` (`image`, `text`), `nodeId`, `size`.
    pub candidate_index: Option<u64>,
    pub lcp_type: Option<String>,
    pub node_id: Option<u64>,
    pub size: Option<f64>,
    /// LCP candidates: the element's `loading` attribute (`lazy`, `eager`, ``).
    pub loading_attr: Option<String>,
}

/// A `LayoutShift` (shifts after recent input are dropped when read, as DevTools drops them).
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutShift {
    pub at: Stamp,
    pub frame: String,
    pub score: f64,
    pub weighted_score_delta: f64,
}

/// An `EventTiming` begin (`b`, with its data) or end (`e`).
#[derive(Clone, Debug, PartialEq)]
pub struct EventTiming {
    pub at: Stamp,
    pub id: String,
    pub begin: Option<EventTimingData>,
}

/// The data of an `EventTiming` begin: times in ms on the page's performance clock.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventTimingData {
    pub event_type: String,
    pub interaction_id: u64,
    pub duration: f64,
    pub time_stamp: f64,
    pub processing_start: f64,
    pub processing_end: f64,
    pub frame: String,
}

/// Which user timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserTimingKind {
    /// `performance.mark` (`blink.user_timing`, phase `R` or `I`).
    Mark,
    /// `performance.measure` begin or end (`blink.user_timing`, async phase).
    Measure,
    /// `console.time`/`timeEnd` (`blink.console`, async phase).
    ConsoleTime,
    /// `console.timeStamp` (`TimeStamp`).
    TimeStamp,
}

/// A user timing event. Async begin/end halves are paired in the analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct UserTiming {
    pub at: Stamp,
    pub kind: UserTimingKind,
    pub name: String,
    pub ph: u8,
    /// `id` or `id2.local`/`id2.global` of an async event.
    pub id: String,
    /// `console.timeStamp`'s message.
    pub message: Option<String>,
}

/// A `Screenshot` of the filmstrip.
#[derive(Clone, Debug, PartialEq)]
pub struct Screenshot {
    pub at: Stamp,
    /// The JPEG as base64; `None` when missing or not valid base64 (a warning says so).
    pub image: Option<String>,
}

/// A JavaScript call frame as a trace event's args write it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallFrame {
    pub function: String,
    pub url: String,
    pub script_id: String,
    pub line: i64,
    pub column: i64,
}

/// Which part of a reflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReflowKind {
    /// `Layout` (`args.beginData.dirtyObjects`).
    Layout,
    /// `UpdateLayoutTree`, the style recalculation (`args.elementCount`).
    RecalcStyle,
}

/// A `Layout` or `UpdateLayoutTree` event's args: what DevTools' DOM size and forced reflow
/// insights read. Its duration is the thread event's at the same stamp.
#[derive(Clone, Debug, PartialEq)]
pub struct Reflow {
    pub at: Stamp,
    pub kind: ReflowKind,
    pub frame: String,
    /// Layout: dirty objects; style recalculation: elements.
    pub size: u64,
    /// The top frame of `args.beginData.stackTrace` (line and column 1-based, as written): the
    /// JS that forced it.
    pub stack_top: Option<CallFrame>,
}

/// One `Animation` event (a nestable async begin `b`, instant `n` or end `e`, category
/// `devtools.timeline`): what DevTools' trace engine pairs into an animation and reads for
/// compositing failures.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationEvent {
    pub at: Stamp,
    pub ph: u8,
    pub cat: String,
    /// `id`, else `id2.global`, else `id2.local` (the engine's `extractId`).
    pub id: String,
    /// A begin's `args.data.displayName`.
    pub display_name: Option<String>,
    /// An instant's `args.data.compositeFailed`: a mask of the compositor's failure reasons.
    pub composite_failed: Option<u64>,
    /// An instant's `args.data.unsupportedProperties`.
    pub unsupported_properties: Vec<String>,
}

/// A `DOMStats` event: the DOM's size when it was taken.
#[derive(Clone, Debug, PartialEq)]
pub struct DomStats {
    pub at: Stamp,
    pub frame: String,
    pub total_elements: u64,
    pub max_depth: Option<u64>,
    pub max_children: Option<u64>,
}

/// `BeginCommitCompositorFrame`: whether the frame's viewport was optimized for mobile (the
/// viewport insight).
#[derive(Clone, Debug, PartialEq)]
pub struct CompositorFrame {
    pub at: Stamp,
    pub frame: String,
    pub is_mobile_optimized: bool,
}

/// `MetaCharsetCheck`: where the parser found `<meta charset>` (the character set insight).
#[derive(Clone, Debug, PartialEq)]
pub struct CharsetCheck {
    pub at: Stamp,
    /// `args.data.frame`; older Chromes write the event without data.
    pub frame: Option<String>,
    /// `found-in-first-1024-bytes`, `found-after-first-1024-bytes`, `not-found`.
    pub disposition: Option<String>,
}

/// `BeginRemoteFontLoad`: a web font's request (`pid.id`) and its `font-display`.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteFont {
    pub at: Stamp,
    /// `args.id` as its JSON text: the font's request is `{pid}.{id}`.
    pub id: String,
    pub display: String,
    pub url: Option<String>,
    /// The family name of the last `RemoteFontLoaded` of its URL after it in the file.
    pub name: Option<String>,
}

/// One selector's matching cost in a style recalculation (`SelectorStats`'
/// `selector_timings`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelectorTiming {
    pub selector: String,
    pub style_sheet_id: String,
    /// µs.
    pub elapsed: f64,
    pub fast_reject_count: f64,
    pub match_attempts: f64,
    pub match_count: f64,
}

/// A `SelectorStats` event (written when the Performance panel's "CSS selector stats" is on):
/// the selectors matched by a style recalculation.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectorStats {
    pub at: Stamp,
    /// The style recalculation it belongs to, as DevTools' trace engine pairs them: the last
    /// `UpdateLayoutTree` before it in the file (an index into [`PageEvents::reflows`]);
    /// `None` when there was none, or it was an end (`E`) event, which has no frame.
    pub recalc: Option<usize>,
    pub timings: Vec<SelectorTiming>,
}

/// A frame's URL from some time on (`TracingStartedInBrowser`'s frames,
/// `FrameCommittedInBrowser`, `CommitLoad`): DevTools' `rendererProcessesByFrame`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameUrl {
    pub ts: i64,
    pub frame: String,
    pub process_id: u64,
    pub url: String,
}

/// Which event a [`GraphEvent`] is: the names Lantern's page dependency graph
/// (`PageDependencyGraph.getCPUNodes`/`linkCPUNodes`) reads on the main thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphEventName {
    /// `RunTask` (or its older names): a CPU node.
    RunTask,
    Layout,
    Paint,
    ParseHtml,
    TimerInstall,
    TimerFire,
    InvalidateLayout,
    ScheduleStyleRecalculation,
    EvaluateScript,
    XhrReadyStateChange,
    FunctionCall,
    V8Compile,
    ParseAuthorStyleSheet,
    ResourceSendRequest,
}

/// The names of the events Lantern reads only by name (tasks and the first layout, paint and
/// parse), and which.
const GRAPH_MARKS: &[(&str, GraphEventName)] = &[
    ("RunTask", GraphEventName::RunTask),
    ("ThreadControllerImpl::RunTask", GraphEventName::RunTask),
    ("ThreadControllerImpl::DoWork", GraphEventName::RunTask),
    (
        "TaskQueueManager::ProcessTaskFromWorkQueue",
        GraphEventName::RunTask,
    ),
    ("Layout", GraphEventName::Layout),
    ("Paint", GraphEventName::Paint),
    ("ParseHTML", GraphEventName::ParseHtml),
];

/// The names whose `args.data` Lantern reads.
const GRAPH_DATA: &[(&str, GraphEventName)] = &[
    ("TimerInstall", GraphEventName::TimerInstall),
    ("TimerFire", GraphEventName::TimerFire),
    ("InvalidateLayout", GraphEventName::InvalidateLayout),
    (
        "ScheduleStyleRecalculation",
        GraphEventName::ScheduleStyleRecalculation,
    ),
    ("EvaluateScript", GraphEventName::EvaluateScript),
    ("XHRReadyStateChange", GraphEventName::XhrReadyStateChange),
    ("FunctionCall", GraphEventName::FunctionCall),
    ("v8.compile", GraphEventName::V8Compile),
    (
        "ParseAuthorStyleSheet",
        GraphEventName::ParseAuthorStyleSheet,
    ),
    ("ResourceSendRequest", GraphEventName::ResourceSendRequest),
];

/// Whether `name` is an event Lantern reads by name alone ([`PageEvents::push_graph_mark`]).
pub fn is_graph_mark(name: &str) -> bool {
    GRAPH_MARKS.iter().any(|(n, _)| *n == name)
}

/// One event of a thread as Lantern's page dependency graph reads it (any thread: the graph
/// keeps the main frame's main thread). `data` is `None` when the event had no `args.data`.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphEvent {
    pub at: Stamp,
    /// `dur` as written (0 when absent).
    pub dur: i64,
    pub name: GraphEventName,
    pub data: Option<Box<GraphEventData>>,
}

/// What Lantern reads of a [`GraphEvent`]'s `args.data`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphEventData {
    pub frame: Option<String>,
    /// `url` (`styleSheetUrl` for `ParseAuthorStyleSheet`).
    pub url: Option<String>,
    /// `timerId` as its JSON text.
    pub timer_id: Option<String>,
    pub request_id: Option<String>,
    pub ready_state: Option<i64>,
    /// The URLs of `stackTrace`'s frames.
    pub stack: Vec<String>,
}

/// A `PaintImage`'s `args.data` as DevTools' image delivery insight reads it (sizes NaN when
/// absent, as the engine's arithmetic on a missing field gives).
#[derive(Clone, Debug, PartialEq)]
pub struct PaintedImage {
    /// The paint's event; its duration is the thread event's at the same stamp.
    pub at: Stamp,
    pub url: String,
    /// The drawn size (`width`, `height`).
    pub width: f64,
    pub height: f64,
    /// The image file's size (`srcWidth`, `srcHeight`).
    pub src_width: f64,
    pub src_height: f64,
    /// A CSS background (`isCSS`).
    pub is_css: bool,
    /// A `<picture>` or a non-empty `srcset`: the page offers sizes to choose from.
    pub has_breakpoints: bool,
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

/// The event names [`PageEvents::push`] takes (besides the categories of user timings).
const NAMES: &[&str] = &[
    "PaintTimingVisualizer::Viewport",
    "ResourceWillSendRequest",
    "ResourceSendRequest",
    "ResourceReceiveResponse",
    "ResourceReceivedData",
    "ResourceFinish",
    "ResourceChangePriority",
    "ResourceMarkAsCached",
    "PreloadRenderBlockingStatusChange",
    "navigationStart",
    "firstPaint",
    "firstContentfulPaint",
    "MarkDOMContent",
    "MarkLoad",
    "largestContentfulPaint::Candidate",
    "largestContentfulPaint::Invalidate",
    "LayoutShift",
    "EventTiming",
    "TimeStamp",
    "Screenshot",
    "TracingStartedInBrowser",
    "LargestImagePaint::Candidate",
    "Layout",
    "UpdateLayoutTree",
    "DOMStats",
    "FunctionCall",
    "PaintImage",
    "LayoutImageUnsized",
    "domLoading",
    "Animation",
    "FrameCommittedInBrowser",
    "CommitLoad",
    "TracingSessionIdForWorker",
    "LinkPreconnect",
    "TimerInstall",
    "TimerFire",
    "InvalidateLayout",
    "ScheduleStyleRecalculation",
    "EvaluateScript",
    "XHRReadyStateChange",
    "v8.compile",
    "ParseAuthorStyleSheet",
    "ParseMetaViewport",
    "BeginCommitCompositorFrame",
    "MetaCharsetCheck",
    "BeginRemoteFontLoad",
    "RemoteFontLoaded",
    "SelectorStats",
];

/// Whether an event is one the page model keeps: one of its names, or a user timing.
pub fn wanted(name: &str, cat: &str) -> bool {
    NAMES.contains(&name)
        || cat == "blink.user_timing"
        || cat == "blink.console"
        || crate::page_scripts::wanted(name, cat)
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

fn f64_at(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_f64()
}

fn bool_at(v: &Value, path: &[&str]) -> bool {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn call_frame(v: &Value) -> Option<CallFrame> {
    let n = |k: &str| v.get(k).and_then(Value::as_i64);
    Some(CallFrame {
        function: string(str_at(v, &["functionName"])),
        url: str_at(v, &["url"])?.to_string(),
        script_id: match v.get("scriptId") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        },
        line: n("lineNumber")?,
        column: n("columnNumber")?,
    })
}

fn string(v: Option<&str>) -> String {
    v.unwrap_or_default().to_string()
}

fn timing_of(t: &Value) -> Option<ResourceTiming> {
    let f = |k: &str| t.get(k).and_then(Value::as_f64);
    Some(ResourceTiming {
        request_time: f("requestTime")?,
        dns_start: f("dnsStart").unwrap_or(-1.0),
        dns_end: f("dnsEnd").unwrap_or(-1.0),
        connect_start: f("connectStart").unwrap_or(-1.0),
        connect_end: f("connectEnd").unwrap_or(-1.0),
        ssl_start: f("sslStart").unwrap_or(-1.0),
        ssl_end: f("sslEnd").unwrap_or(-1.0),
        send_start: f("sendStart").unwrap_or(0.0),
        send_end: f("sendEnd").unwrap_or(0.0),
        receive_headers_start: f("receiveHeadersStart"),
        receive_headers_end: f("receiveHeadersEnd").unwrap_or(0.0),
        proxy_start: f("proxyStart").unwrap_or(-1.0),
        proxy_end: f("proxyEnd").unwrap_or(-1.0),
    })
}

/// Whether `s` is standard base64 (padding optional, as Chrome writes it with padding).
fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        && body.len() % 4 != 1
}

/// The URLs of `v.stackTrace`'s frames.
fn stack_urls(v: &Value) -> Vec<String> {
    v.get("stackTrace")
        .and_then(Value::as_array)
        .map(|s| s.iter().map(|f| string(str_at(f, &["url"]))).collect())
        .unwrap_or_default()
}

/// What Lantern reads of a `name` event's `args.data`.
fn graph_data(name: GraphEventName, data: &Value) -> GraphEventData {
    let url_key = match name {
        GraphEventName::ParseAuthorStyleSheet => "styleSheetUrl",
        _ => "url",
    };
    GraphEventData {
        frame: str_at(data, &["frame"]).map(str::to_string),
        url: str_at(data, &[url_key]).map(str::to_string),
        timer_id: data.get("timerId").map(Value::to_string),
        request_id: str_at(data, &["requestId"]).map(str::to_string),
        ready_state: data.get("readyState").and_then(Value::as_i64),
        stack: stack_urls(data),
    }
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

    fn push_frame_url(&mut self, ts: i64, f: &Value) {
        self.frame_urls.push(FrameUrl {
            ts,
            frame: string(str_at(f, &["frame"])),
            process_id: f.get("processId").and_then(Value::as_u64).unwrap_or(0),
            url: string(str_at(f, &["url"])),
        });
    }

    fn skip(&mut self, name: &'static str) {
        match self.skipped.iter_mut().find(|(n, _)| *n == name) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((name, 1)),
        }
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
            self.graph_events.push(GraphEvent {
                at: at.clone(),
                dur: 0,
                name: g,
                data: data.is_object().then(|| Box::new(graph_data(g, data))),
            });
        }
        let frame_of = |v: &Value| {
            string(
                str_at(v, &["frame"])
                    .or(str_at(v, &["data", "frame"]))
                    .or(str_at(v, &["data", "page"])),
            )
        };
        if name.starts_with("Resource") || name == "PreloadRenderBlockingStatusChange" {
            let Some(request_id) = str_at(data, &["requestId"]) else {
                self.skip("network events without `args.data.requestId`");
                return;
            };
            let event = match name {
                "ResourceWillSendRequest" => NetworkEvent::WillSendRequest,
                "ResourceSendRequest" => {
                    let Some(url) = str_at(data, &["url"]) else {
                        self.skip("`ResourceSendRequest` without `args.data.url`");
                        return;
                    };
                    NetworkEvent::SendRequest(SendRequest {
                        url: url.to_string(),
                        priority: string(str_at(data, &["priority"])),
                        frame: string(str_at(data, &["frame"])),
                        request_method: str_at(data, &["requestMethod"]).map(str::to_string),
                        resource_type: str_at(data, &["resourceType"]).map(str::to_string),
                        render_blocking: str_at(data, &["renderBlocking"]).map(str::to_string),
                        fetch_priority_hint: str_at(data, &["fetchPriorityHint"])
                            .map(str::to_string),
                        is_link_preload: bool_at(data, &["isLinkPreload"]),
                        initiator: str_at(data, &["initiator", "type"]).map(|t| {
                            (
                                t.to_string(),
                                str_at(data, &["initiator", "url"]).map(str::to_string),
                            )
                        }),
                        fetch_type: str_at(data, &["initiator", "fetchType"]).map(str::to_string),
                        stack_trace: stack_urls(data),
                    })
                }
                "ResourceReceiveResponse" => NetworkEvent::ReceiveResponse(Response {
                    status: f64_at(data, &["statusCode"]).unwrap_or(0.0) as u32,
                    mime_type: string(str_at(data, &["mimeType"])),
                    protocol: str_at(data, &["protocol"]).map(str::to_string),
                    from_cache: bool_at(data, &["fromCache"]),
                    from_service_worker: bool_at(data, &["fromServiceWorker"]),
                    timing: data.get("timing").and_then(timing_of),
                    encoded_data_length: f64_at(data, &["encodedDataLength"]).unwrap_or(0.0),
                    has_connection_id: data.get("connectionId").is_some(),
                    connection_id: f64_at(data, &["connectionId"]).unwrap_or(0.0),
                    connection_reused: bool_at(data, &["connectionReused"]),
                    has_headers: data.get("headers").is_some_and(|h| !h.is_null()),
                    headers: data
                        .get("headers")
                        .and_then(Value::as_array)
                        .map(|hs| {
                            hs.iter()
                                .filter_map(|h| {
                                    Some((
                                        str_at(h, &["name"])?.to_string(),
                                        str_at(h, &["value"])?.to_string(),
                                    ))
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                }),
                "ResourceReceivedData" => NetworkEvent::ReceivedData {
                    encoded_data_length: f64_at(data, &["encodedDataLength"]).unwrap_or(0.0),
                },
                "ResourceFinish" => NetworkEvent::Finish(Finish {
                    finish_time: f64_at(data, &["finishTime"]).filter(|&t| t != 0.0),
                    encoded_data_length: f64_at(data, &["encodedDataLength"]),
                    decoded_body_length: f64_at(data, &["decodedBodyLength"]).unwrap_or(0.0),
                    did_fail: bool_at(data, &["didFail"]),
                }),
                "ResourceChangePriority" => NetworkEvent::ChangePriority {
                    priority: string(str_at(data, &["priority"])),
                },
                "ResourceMarkAsCached" => NetworkEvent::MarkAsCached,
                "PreloadRenderBlockingStatusChange" => {
                    NetworkEvent::PreloadRenderBlockingStatusChange {
                        render_blocking: str_at(data, &["renderBlocking"]).map(str::to_string),
                    }
                }
                _ => return,
            };
            self.requests.push(RequestEvent {
                at,
                dur,
                request_id: request_id.to_string(),
                event,
            });
            return;
        }
        let marker = match name {
            "firstPaint" => Some(MarkerKind::FirstPaint),
            "firstContentfulPaint" => Some(MarkerKind::FirstContentfulPaint),
            "MarkDOMContent" => Some(MarkerKind::DomContentLoaded),
            "MarkLoad" => Some(MarkerKind::Load),
            "largestContentfulPaint::Candidate" => Some(MarkerKind::LcpCandidate),
            "largestContentfulPaint::Invalidate" => Some(MarkerKind::LcpInvalidate),
            _ => None,
        };
        if let Some(kind) = marker {
            // DevTools reads DCL and load's frame from `args.data.frame`, the paints' from
            // `args.frame`.
            let frame = match kind {
                MarkerKind::DomContentLoaded | MarkerKind::Load => str_at(data, &["frame"]),
                _ => str_at(&args, &["frame"]),
            };
            let Some(frame) = frame else {
                self.skip("page-load markers without a frame");
                return;
            };
            self.markers.push(Marker {
                at,
                kind,
                frame: frame.to_string(),
                navigation_id: str_at(data, &["navigationId"]).map(str::to_string),
                candidate_index: data.get("candidateIndex").and_then(Value::as_u64),
                lcp_type: str_at(data, &["type"]).map(str::to_string),
                node_id: data.get("nodeId").and_then(Value::as_u64),
                size: f64_at(data, &["size"]),
                loading_attr: str_at(data, &["loadingAttr"]).map(str::to_string),
            });
            return;
        }
        match name {
            "navigationStart" => {
                // Navigations to about:blank and the like have no `documentLoaderURL`; DevTools
                // does not count them.
                let (Some(url), Some(frame), Some(id)) = (
                    str_at(data, &["documentLoaderURL"]).filter(|u| !u.is_empty()),
                    str_at(&args, &["frame"]),
                    str_at(data, &["navigationId"]),
                ) else {
                    return;
                };
                self.navigations.push(Navigation {
                    at,
                    frame: frame.to_string(),
                    navigation_id: id.to_string(),
                    url: url.to_string(),
                    is_loading_main_frame: bool_at(data, &["isLoadingMainFrame"]),
                    is_outermost_main_frame: bool_at(data, &["isOutermostMainFrame"]),
                });
                return;
            }
            "LayoutShift" => {
                if bool_at(data, &["had_recent_input"]) {
                    return;
                }
                let (Some(score), Some(weighted)) = (
                    f64_at(data, &["score"]),
                    f64_at(data, &["weighted_score_delta"]),
                ) else {
                    self.skip("`LayoutShift` without `score`/`weighted_score_delta`");
                    return;
                };
                self.layout_shifts.push(LayoutShift {
                    frame: frame_of(&args),
                    at,
                    score,
                    weighted_score_delta: weighted,
                });
                return;
            }
            "EventTiming" => {
                let Some(id) = id else {
                    self.skip("`EventTiming` without an id");
                    return;
                };
                let begin = match ph {
                    b'b' => {
                        let f = |k: &str| f64_at(data, &[k]).unwrap_or(0.0);
                        data.is_object().then(|| EventTimingData {
                            event_type: string(str_at(data, &["type"])),
                            interaction_id: data
                                .get("interactionId")
                                .and_then(Value::as_u64)
                                .unwrap_or(0),
                            duration: f("duration"),
                            time_stamp: f("timeStamp"),
                            processing_start: f("processingStart"),
                            processing_end: f("processingEnd"),
                            frame: frame_of(&args),
                        })
                    }
                    b'e' => None,
                    _ => return,
                };
                self.event_timings.push(EventTiming {
                    at,
                    id: id.to_string(),
                    begin,
                });
                return;
            }
            "Screenshot" => {
                // The modern form (with `source_id`); DevTools reads the legacy one (an object
                // snapshot on a `ph: O` event) elsewhere.
                if args.get("source_id").is_none() && ph != b'O' {
                    return;
                }
                let image = match str_at(&args, &["snapshot"]) {
                    Some(s) if is_base64(s) => Some(s.to_string()),
                    _ => {
                        self.broken_screenshots += 1;
                        None
                    }
                };
                self.screenshots.push(Screenshot { at, image });
                return;
            }
            "TracingStartedInBrowser" => {
                let frames = data.get("frames").and_then(Value::as_array);
                let main = frames.and_then(|fs| {
                    fs.iter().find(|f| {
                        bool_at(f, &["isOutermostMainFrame"])
                            || (f.get("isOutermostMainFrame").is_none()
                                && f.get("parent").is_none())
                    })
                });
                if let Some(f) = main {
                    self.main_frame =
                        Some((string(str_at(f, &["frame"])), string(str_at(f, &["url"]))));
                }
                for f in frames.into_iter().flatten() {
                    self.push_frame_url(at.ts, f);
                }
                return;
            }
            "FrameCommittedInBrowser" => {
                if data.is_object() {
                    self.push_frame_url(at.ts, data);
                }
                return;
            }
            "CommitLoad" => {
                if data.is_object() {
                    self.frame_urls.push(FrameUrl {
                        ts: at.ts,
                        frame: string(str_at(data, &["frame"])),
                        process_id: at.pid,
                        url: string(str_at(data, &["url"])),
                    });
                }
                return;
            }
            "TracingSessionIdForWorker" => {
                if let Some(tid) = data.get("workerThreadId").and_then(Value::as_u64) {
                    self.worker_threads.push(tid);
                }
                return;
            }
            "LinkPreconnect" => {
                if let Some(url) = str_at(data, &["url"]) {
                    self.link_preconnects.push(url.to_string());
                }
                return;
            }
            "LargestImagePaint::Candidate" => {
                if let (Some(node), Some(url)) = (
                    data.get("DOMNodeId").and_then(Value::as_u64),
                    str_at(data, &["imageUrl"]),
                ) {
                    self.image_paints.push((at, node, url.to_string()));
                }
                return;
            }
            "Layout" | "UpdateLayoutTree" => {
                if name == "UpdateLayoutTree" {
                    self.last_recalc = (ph != b'E').then_some(self.reflows.len());
                }
                // A `B`/`X` begin carries the args; an `E` only the end data.
                if ph == b'E' {
                    return;
                }
                let begin = args.get("beginData").unwrap_or(&Value::Null);
                let (kind, size) = match name {
                    "Layout" => (ReflowKind::Layout, f64_at(begin, &["dirtyObjects"])),
                    _ => (ReflowKind::RecalcStyle, f64_at(&args, &["elementCount"])),
                };
                self.reflows.push(Reflow {
                    at,
                    kind,
                    frame: string(str_at(begin, &["frame"]).or(str_at(data, &["frame"]))),
                    size: size.unwrap_or(0.0).max(0.0) as u64,
                    stack_top: begin
                        .get("stackTrace")
                        .and_then(Value::as_array)
                        .and_then(|s| s.first())
                        .and_then(call_frame),
                });
                return;
            }
            "DOMStats" => {
                let Some(total) = data.get("totalElements").and_then(Value::as_u64) else {
                    self.skip("`DOMStats` without `args.data.totalElements`");
                    return;
                };
                self.dom_stats.push(DomStats {
                    at,
                    frame: string(str_at(data, &["frame"])),
                    total_elements: total,
                    max_depth: data.pointer("/maxDepth/depth").and_then(Value::as_u64),
                    max_children: data
                        .pointer("/maxChildren/numChildren")
                        .and_then(Value::as_u64),
                });
                return;
            }
            "PaintTimingVisualizer::Viewport" => {
                // The engine reads the first in time (ties in file order).
                if self.viewport_dpr.is_none_or(|(ts, _)| at.ts < ts) {
                    self.viewport_dpr = Some((at.ts, f64_at(data, &["dpr"])));
                }
                return;
            }
            "PaintImage" => {
                if ph == b'X' {
                    let node = data.get("nodeId").and_then(Value::as_u64).unwrap_or(0);
                    let url = string(str_at(data, &["url"]));
                    if !url.is_empty() {
                        let num = |k: &str| data.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
                        let yes = |k: &str| data.get(k).and_then(Value::as_bool) == Some(true);
                        let srcset =
                            str_at(data, &["srcsetAttribute"]).is_some_and(|s| !s.is_empty());
                        self.painted_images.push(PaintedImage {
                            at: at.clone(),
                            url: url.clone(),
                            width: num("width"),
                            height: num("height"),
                            src_width: num("srcWidth"),
                            src_height: num("srcHeight"),
                            is_css: yes("isCSS"),
                            has_breakpoints: yes("isPicture") || srcset,
                        });
                    }
                    self.paint_images.push((at, node, url));
                }
                return;
            }
            // The engine's `isAnimation`: another category's `Animation` is not one.
            "Animation"
                if cat.contains("devtools.timeline") && matches!(ph, b'b' | b'e' | b'n') =>
            {
                let id = match id {
                    Some(raw) if raw.starts_with('{') => {
                        let id2: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                        str_at(&id2, &["global"])
                            .or(str_at(&id2, &["local"]))
                            .map(str::to_string)
                    }
                    Some(id) => Some(id.to_string()),
                    None => None,
                };
                let Some(id) = id else {
                    self.skip("`Animation` events without an `id` or `id2`");
                    return;
                };
                self.animations.push(AnimationEvent {
                    at,
                    ph,
                    cat: cat.to_string(),
                    id,
                    display_name: str_at(data, &["displayName"]).map(str::to_string),
                    composite_failed: data.get("compositeFailed").and_then(Value::as_u64),
                    unsupported_properties: data
                        .get("unsupportedProperties")
                        .and_then(Value::as_array)
                        .map(|ps| {
                            ps.iter()
                                .filter_map(|p| p.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default(),
                });
                return;
            }
            "LayoutImageUnsized" => {
                if let Some(node) = data.get("nodeId").and_then(Value::as_u64) {
                    self.unsized_images.push((at, node));
                }
                return;
            }
            // Written as a Navigation Timing mark (`blink.user_timing`), so matched before the
            // user timings leave it out.
            "domLoading" => {
                if let Some(frame) = str_at(&args, &["frame"]) {
                    self.dom_loading.push((at, frame.to_string()));
                }
                return;
            }
            "ParseMetaViewport" => {
                if let Some(frame) = str_at(data, &["frame"]) {
                    self.viewport_metas.push((at, frame.to_string()));
                }
                return;
            }
            "BeginCommitCompositorFrame" => {
                if let Some(frame) = str_at(&args, &["frame"]) {
                    self.compositor_frames.push(CompositorFrame {
                        at,
                        frame: frame.to_string(),
                        is_mobile_optimized: bool_at(&args, &["is_mobile_optimized"]),
                    });
                }
                return;
            }
            "MetaCharsetCheck" => {
                self.charset_checks.push(CharsetCheck {
                    at,
                    frame: str_at(data, &["frame"]).map(str::to_string),
                    disposition: str_at(data, &["disposition"]).map(str::to_string),
                });
                return;
            }
            "BeginRemoteFontLoad" => {
                let Some(id) = args.get("id").filter(|v| !v.is_null()) else {
                    self.skip("`BeginRemoteFontLoad` without `args.id`");
                    return;
                };
                self.remote_fonts.push(RemoteFont {
                    at,
                    id: match id {
                        Value::String(s) => s.clone(),
                        v => v.to_string(),
                    },
                    display: string(str_at(&args, &["display"])),
                    url: str_at(&args, &["url"]).map(str::to_string),
                    name: None,
                });
                return;
            }
            "SelectorStats" => {
                let Some(list) = args
                    .pointer("/selector_stats/selector_timings")
                    .and_then(Value::as_array)
                else {
                    return;
                };
                let n = |t: &Value, k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                let timings = list
                    .iter()
                    .map(|t| SelectorTiming {
                        selector: string(str_at(t, &["selector"])),
                        style_sheet_id: string(str_at(t, &["style_sheet_id"])),
                        elapsed: n(t, "elapsed (us)"),
                        fast_reject_count: n(t, "fast_reject_count"),
                        match_attempts: n(t, "match_attempts"),
                        match_count: n(t, "match_count"),
                    })
                    .collect();
                self.selector_stats.push(SelectorStats {
                    at,
                    recalc: self.last_recalc,
                    timings,
                });
                return;
            }
            "RemoteFontLoaded" => {
                // Names every font of that URL seen so far, as the engine's handler does.
                let url = str_at(&args, &["url"]);
                let name = str_at(&args, &["name"]);
                for f in self.remote_fonts.iter_mut() {
                    if f.url.as_deref() == url {
                        f.name = name.map(str::to_string);
                    }
                }
                return;
            }
            "FunctionCall" => {
                if ph != b'E' {
                    if let Some(f) = call_frame(data) {
                        self.function_calls.push((at, f));
                    }
                }
                return;
            }
            "TimeStamp" if ph == b'I' || ph == b'i' => {
                self.user_timings.push(UserTiming {
                    at,
                    kind: UserTimingKind::TimeStamp,
                    name: name.to_string(),
                    ph,
                    id: String::new(),
                    message: str_at(data, &["message"]).map(str::to_string),
                });
                return;
            }
            _ => {}
        }
        let is_async = matches!(ph, b'b' | b'e' | b'n' | b'S' | b'F' | b'T' | b'p');
        let kind = match cat {
            "blink.user_timing" if is_async => UserTimingKind::Measure,
            "blink.user_timing" if matches!(ph, b'R' | b'I') => UserTimingKind::Mark,
            "blink.console" if is_async => UserTimingKind::ConsoleTime,
            _ => return,
        };
        // Navigation Timing's own marks are written as user timings; DevTools leaves them out.
        if NAV_TIMING_NAMES.contains(&name) {
            return;
        }
        self.user_timings.push(UserTiming {
            at,
            kind,
            name: name.to_string(),
            ph,
            id: id.unwrap_or_default().to_string(),
            message: None,
        });
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

/// Navigation and Resource Timing's marks, which Blink writes in `blink.user_timing` and DevTools'
/// `UserTimingsHandler` ignores.
const NAV_TIMING_NAMES: &[&str] = &[
    "workerStart",
    "redirectStart",
    "redirectEnd",
    "fetchStart",
    "domainLookupStart",
    "domainLookupEnd",
    "connectStart",
    "connectEnd",
    "secureConnectionStart",
    "requestStart",
    "responseStart",
    "responseEnd",
    "navigationStart",
    "unloadEventStart",
    "unloadEventEnd",
    "commitNavigationEnd",
    "domLoading",
    "domInteractive",
    "domContentLoadedEventStart",
    "domContentLoadedEventEnd",
    "domComplete",
    "loadEventStart",
    "loadEventEnd",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: i64) -> Stamp {
        Stamp { ts, pid: 1, tid: 1 }
    }

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
        page.push(
            "PaintTimingVisualizer::Viewport",
            "loading",
            b'I',
            at(5),
            None,
            Some(&viewport(2.0)),
        );
        page.push(
            "PaintTimingVisualizer::Viewport",
            "loading",
            b'I',
            at(3),
            None,
            Some(&viewport(1.5)),
        );
        page.push(
            "PaintTimingVisualizer::Viewport",
            "loading",
            b'I',
            at(3),
            None,
            Some(&viewport(3.0)),
        );
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
