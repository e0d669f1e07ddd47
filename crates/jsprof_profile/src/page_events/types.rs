//! The page-load events' plain data types, as [`super::PageEvents`] keeps them: one struct per
//! event (or family) with only the fields DevTools' trace engine reads. Re-exported from
//! [`crate::page_events`].

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
    /// LCP candidates: the element as the trace names it (`nodeName`: `IMG id='hero'`, `H1`).
    pub node_name: Option<String>,
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
    /// `UpdateLayoutTree` before it in the file (an index into [`super::PageEvents::reflows`]);
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
