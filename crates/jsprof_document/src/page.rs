//! The page-load documents of a trace: `jsprof insights` ([`InsightsReport`]: Web Vitals per
//! navigation, then each insight with its evidence), `jsprof network` ([`NetworkReport`]: the
//! waterfall) and `jsprof timings` ([`TimingsReport`]: marks and measures); the service answers
//! the same types. The numbers come from `jsprof_pageload`, DevTools' trace engine's
//! rules; times are ms from the trace's origin (DevTools' trace bounds minimum), durations ms.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::{self as page, insights, vitals, PageStory, Request};

use crate::load::CpuInput;
use crate::{warnings_json, JsonWarning, ReportError, Result};

/// A time window: start and end in ms from the origin, and its length.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct WindowJson {
    pub start_ms: f64,
    pub end_ms: f64,
    pub dur_ms: f64,
}

/// A metric of a navigation: its value (from the navigation's start) and when it happened.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MetricJson {
    pub value_ms: f64,
    pub ts_ms: f64,
    /// `good`, `ok`, `bad` or `unclassified`.
    pub classification: String,
}

/// The LCP and its candidate.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LcpJson {
    pub value_ms: f64,
    pub ts_ms: f64,
    pub classification: String,
    /// `image` or `text`.
    #[serde(rename = "type")]
    pub lcp_type: Option<String>,
    pub node_id: Option<u64>,
    pub candidate_index: Option<u64>,
    /// The image's request, for an image LCP fetched over the network.
    pub request: Option<RequestRefJson>,
}

/// A request named by another document (an LCP image, a render-blocking request).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RequestRefJson {
    pub url: String,
    pub request_id: String,
    pub start_ms: f64,
    pub end_ms: f64,
    pub dur_ms: f64,
}

/// CLS: the score of the worst cluster of the navigation.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClsJson {
    pub score: f64,
    pub classification: String,
    pub worst_cluster: Option<ClusterJson>,
}

/// A layout-shift cluster (session window).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClusterJson {
    pub start_ms: f64,
    pub dur_ms: f64,
    pub score: f64,
    pub shifts: usize,
    pub worst_shift_ms: Option<f64>,
}

/// One interaction with its phases.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct InteractionJson {
    #[serde(rename = "type")]
    pub event_type: String,
    pub interaction_id: u64,
    pub start_ms: f64,
    pub dur_ms: f64,
    pub input_delay_ms: f64,
    pub processing_ms: f64,
    pub presentation_delay_ms: f64,
    pub processing_start_ms: f64,
    pub processing_end_ms: f64,
    /// Left off DevTools' Interactions track: nested in a longer interaction of its kind.
    pub nested: bool,
    /// Over 200 ms.
    pub long: bool,
}

/// INP: the longest interaction of the navigation.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct InpJson {
    pub value_ms: f64,
    pub classification: String,
    pub interaction: InteractionJson,
}

/// The Web Vitals and load markers of one navigation.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MetricsJson {
    pub fcp: Option<MetricJson>,
    pub fp: Option<MetricJson>,
    pub dcl: Option<MetricJson>,
    pub load: Option<MetricJson>,
    pub lcp: Option<LcpJson>,
    pub cls: ClsJson,
    pub inp: Option<InpJson>,
}

/// The LCP breakdown insight: where the LCP's time went.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LcpBreakdownJson {
    pub ttfb: WindowJson,
    /// Image LCPs only: from the first byte to the image's request.
    pub load_delay: Option<WindowJson>,
    /// Image LCPs only: the image's request, to its network finish.
    pub load_duration: Option<WindowJson>,
    pub render_delay: WindowJson,
}

/// What DevTools blames for one layout shift.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ShiftCausesJson {
    pub ts_ms: f64,
    pub score: f64,
    /// Font requests that finished within 500 ms before the shift's paint.
    pub web_fonts: Vec<String>,
    /// Frame ids of iframes created just before the shift's paint.
    pub iframes: Vec<String>,
    /// Images without width and height painted right after it.
    pub unsized_images: Vec<UnsizedImageJson>,
    /// Animations the compositor could not run that ended within 500 ms before the shift's
    /// paint: one entry per failure, as DevTools counts them.
    pub non_composited_animations: Vec<AnimationFailureJson>,
}

/// Why the compositor could not run an animation (a `compositeFailed` instant of it).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct AnimationFailureJson {
    /// The animation's name (a CSS animation's `animation-name`).
    pub name: Option<String>,
    /// DevTools' names of the failure's reasons, e.g. `UNSUPPORTED_CSS_PROPERTY`.
    pub failure_reasons: Vec<String>,
    /// The properties the compositor cannot animate, e.g. `margin-top`.
    pub unsupported_properties: Vec<String>,
    /// The animation's start and duration.
    pub animation_ts_ms: f64,
    pub animation_dur_ms: f64,
}

/// An image without width and height.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct UnsizedImageJson {
    pub node_id: u64,
    pub url: String,
}

/// A culprit of a cluster.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CulpritJson {
    /// `web_font`, `iframe`, `animation` or `unsized_image`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The image's URL for an unsized image.
    pub url: Option<String>,
}

/// The top culprits (at most three) of one cluster.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClusterCulpritsJson {
    pub cluster_start_ms: f64,
    pub culprits: Vec<CulpritJson>,
}

/// Layout shift culprits.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ClsCulpritsJson {
    /// `pass` (no shifts), `informative` (the worst cluster is good) or `fail`.
    pub state: String,
    /// Every shift of the navigation's clusters, in order.
    pub shifts: Vec<ShiftCausesJson>,
    pub clusters: Vec<ClusterCulpritsJson>,
    /// Every compositing failure of the navigation's animations, whether or not a shift followed.
    pub animation_failures: Vec<AnimationFailureJson>,
}

/// Document request latency: redirects, server response time, compression.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct DocumentLatencyJson {
    /// `pass` or `fail`.
    pub state: String,
    pub request: RequestRefJson,
    /// Whole ms, as DevTools rounds it.
    pub server_response_ms: f64,
    /// Whole ms spent in redirects.
    pub redirect_ms: f64,
    /// Bytes text compression would save (0 when compressed or under 1400 bytes).
    pub uncompressed_bytes: u64,
    pub no_redirects: bool,
    /// Under 600 ms.
    pub server_response_is_fast: bool,
    pub uses_compression: bool,
    /// FCP and LCP savings: the server's time past 100 ms when slow, plus redirects.
    pub savings_ms: f64,
}

/// LCP request discovery, for an image LCP fetched over the network.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LcpDiscoveryJson {
    /// `pass` or `fail`.
    pub state: String,
    pub request: RequestRefJson,
    /// The document's first byte: the earliest the image could have been requested.
    pub earliest_discovery_ms: Option<f64>,
    /// From then to the image's request.
    pub discovery_delay_ms: Option<f64>,
    /// `fetchpriority=high` applied.
    pub priority_hinted: bool,
    /// Preloaded or in the document's HTML.
    pub request_discoverable: bool,
    /// Not lazily loaded.
    pub eagerly_loaded: bool,
}

/// An event an insight points at (DevTools' `relatedEvents`): the UI outlines it where it is
/// drawn when the insight is selected — a request in the Network track, the interaction in the
/// Interactions track, a shift or cluster in the Layout shifts track, a trace event on its
/// thread's track. Listed apart from the navigations (a forced reflow may point at thousands),
/// so that a navigation's insights stay a few lines.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RelatedEventJson {
    /// The navigation, as `navigations[].id` names it.
    pub navigation: String,
    /// The insight, by its key in `navigations[].insights` (`inp_breakdown`, `lcp_breakdown`,
    /// `lcp_discovery`, `cls_culprits`, `render_blocking`, `network_dependency_tree`,
    /// `image_delivery`, `document_latency`, `font_display`, `dom_size`, `forced_reflow`,
    /// `cache`, `character_set`, `modern_http`, `third_parties`).
    pub insight: String,
    /// `related`: one of the insight's events; `top_level_call`: a call of a forced reflow's
    /// `top_level_function` that forced them (the Performance panel outlines both).
    pub role: &'static str,
    /// The event's name as DevTools' trace engine names it: `SyntheticNetworkRequest` (a
    /// request), `EventTiming` (an interaction), `largestContentfulPaint::Candidate`,
    /// `SyntheticLayoutShift`, `SyntheticLayoutShiftCluster`, or a trace event's own name
    /// (`Layout`, `UpdateLayoutTree`, `FunctionCall`).
    pub name: String,
    /// A request's id (`jsprof network`'s `request_id`); `null` for other events.
    pub request_id: Option<String>,
    /// The thread's process id, as `jsprof threads` lists it.
    pub pid: u64,
    /// The thread id, as `jsprof threads` lists it.
    pub tid: u64,
    pub start_ms: f64,
    pub dur_ms: f64,
    /// The thread's `timeline_id` (`jsprof threads`); `null` when its timeline does not hold
    /// the event.
    pub timeline_id: Option<u32>,
    /// The event's depth in that timeline (0: a top-level event), the flame chart's row.
    pub depth: Option<u32>,
}

/// A large layout (`Layout`) or style recalculation (`UpdateLayoutTree`).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LargeUpdateJson {
    /// `layout` or `style`.
    pub kind: String,
    pub ts_ms: f64,
    pub dur_ms: f64,
    /// Dirty objects (layout) or elements (style).
    pub size: u64,
}

/// DOM size: the largest DOM seen and the layouts and style recalculations it made slow.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct DomSizeJson {
    /// `pass`, or `informative` when there are large updates.
    pub state: String,
    pub ts_ms: Option<f64>,
    pub total_elements: Option<u64>,
    pub max_depth: Option<u64>,
    pub max_children: Option<u64>,
    /// Large updates (over 100 dirty objects or 300 elements, 40 ms or more), longest first,
    /// at most five.
    pub large_updates: Vec<LargeUpdateJson>,
    pub large_layout_updates: usize,
    pub large_style_recalcs: usize,
}

/// A JavaScript call frame (zero-based line and column, as DevTools shows them).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct CallFrameJson {
    pub function: String,
    pub url: String,
    pub script_id: String,
    pub line: i64,
    pub column: i64,
}

/// Reflow time forced from one place.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ReflowSourceJson {
    /// `null`: the reflows carried no stack.
    pub frame: Option<CallFrameJson>,
    pub total_ms: f64,
    pub reflows: usize,
}

/// Forced reflow: layouts and style recalculations JS forced synchronously.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ForcedReflowJson {
    /// `pass` or `fail`.
    pub state: String,
    pub reflow_events: usize,
    pub total_reflow_ms: f64,
    /// Per JS frame that forced them (the top of each reflow's stack), most time first.
    pub bottom_up: Vec<ReflowSourceJson>,
    /// The entry-point function call with the most forced reflow time (its line and column as
    /// the `FunctionCall` event writes them).
    pub top_level_function: Option<ReflowSourceJson>,
}

/// One entity (a company, or a site's root domain) of the page.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct EntityJson {
    pub entity: String,
    pub first_party: bool,
    pub transfer_size: u64,
    /// Self time on the main frame's main thread in the entity's scripts and events.
    pub main_thread_ms: f64,
}

/// Third parties: transfer size and main-thread time per entity.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ThirdPartiesJson {
    /// `pass`, or `informative` when any entity is not the first party.
    pub state: String,
    pub first_party: Option<String>,
    /// Every entity with main-thread time or transfer size: a company third-party-web knows by
    /// its name ("Google Analytics"), any other site by its root domain; most main-thread time
    /// first, then most transfer size, then by name.
    pub entities: Vec<EntityJson>,
}

/// One request of the network dependency tree.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ChainRequestJson {
    pub url: String,
    pub request_id: String,
    /// 0 for the chain's first request (the document).
    pub depth: usize,
    /// Index into `chain` of the request this one waited for; `null` at depth 0.
    pub parent: Option<usize>,
    /// From the chain's first request's start to this request's end.
    pub time_from_initial_ms: f64,
    /// On the longest chain (the critical path).
    pub is_longest: bool,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// An origin the page preconnected to.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PreconnectedOriginJson {
    pub url: String,
    /// No request of the navigation went to this origin.
    pub unused: bool,
    /// `DOM` (`<link rel=preconnect>`) or `ResponseHeader` (the document's `Link` header).
    pub source: String,
    /// The `Link` header's part, for `ResponseHeader`.
    pub header_text: Option<String>,
    /// Requests went to the origin but still paid for a connection (it is a preconnect
    /// candidate): the preconnect was likely unused, often for a `crossorigin` mismatch.
    pub crossorigin: bool,
}

/// An origin a preconnect would have helped.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PreconnectCandidateJson {
    pub origin: String,
    /// The connection time a preconnect would have saved: Lantern's round trip to the origin
    /// (twice for TLS), at most the time from the document's end to the request.
    pub wasted_ms: f64,
}

/// A render-blocking request's estimated savings.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct WastedRequestJson {
    pub request_id: String,
    pub url: String,
    /// Its download time in the simulated first paint, whole ms.
    pub wasted_ms: f64,
}

/// The render-blocking insight's savings (its `metricSavings` and `requestIdToWastedMs`).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RenderBlockingSavingsJson {
    /// How much earlier the first contentful paint would come, whole ms (0 when no request
    /// wasted 50 ms or more).
    pub fcp_ms: f64,
    /// The same for LCP, 0 when the LCP is an image.
    pub lcp_ms: f64,
    /// The render-blocking requests that wasted 50 ms or more.
    pub requests: Vec<WastedRequestJson>,
}

/// Network dependency tree: chains of critical requests, each waiting for the one before.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct NetworkDependencyTreeJson {
    /// `fail` when a chain has two requests or more, else `pass`.
    pub state: String,
    /// The longest chain: its first request's start to its last request's end.
    pub max_critical_path_latency_ms: f64,
    /// Every chain as one tree, depth first; each request's children by their longest chain,
    /// longest first. A redirected document appears under itself (one entry per hop).
    pub chain: Vec<ChainRequestJson>,
    pub preconnected_origins: Vec<PreconnectedOriginJson>,
    /// Origins the LCP needed that a preconnect would have helped, most time saved first (at
    /// most four; none without a Lantern context).
    pub preconnect_candidates: Vec<PreconnectCandidateJson>,
    /// Why DevTools' trace engine has no Lantern context for this navigation — no dependency
    /// graph, or a failed simulation — with its message, e.g. `NO_LCP`: the chain is then
    /// empty and the render-blocking savings `null`.
    pub graph_error: Option<String>,
}

/// The insights computed for a navigation (DevTools' insight set). Each is `null` when it does
/// not apply (no LCP, no interaction).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct InsightsJson {
    pub lcp_breakdown: Option<LcpBreakdownJson>,
    /// The longest interaction, in phases.
    pub inp_breakdown: Option<InteractionJson>,
    /// Every layout-shift cluster of the navigation.
    pub cls_clusters: Vec<ClusterJson>,
    /// The render-blocking requests insight's requests, longest first.
    pub render_blocking: Vec<RequestRefJson>,
    /// What deferring or inlining the render-blocking requests would save, as DevTools' trace
    /// engine estimates it with Lantern's simulation; `null` where the engine has no Lantern
    /// context (`network_dependency_tree.graph_error` says why).
    pub render_blocking_savings: Option<RenderBlockingSavingsJson>,
    /// `null` without a document request for the navigation.
    pub document_latency: Option<DocumentLatencyJson>,
    pub cls_culprits: Option<ClsCulpritsJson>,
    /// `null` unless the LCP is an image with a request.
    pub lcp_discovery: Option<LcpDiscoveryJson>,
    pub dom_size: Option<DomSizeJson>,
    pub forced_reflow: Option<ForcedReflowJson>,
    pub third_parties: Option<ThirdPartiesJson>,
    /// `null` before the first navigation.
    pub network_dependency_tree: Option<NetworkDependencyTreeJson>,
    pub viewport: Option<crate::page_checks::ViewportJson>,
    pub character_set: Option<crate::page_checks::CharacterSetJson>,
    pub cache: Option<crate::page_checks::CacheJson>,
    pub modern_http: Option<crate::page_checks::ModernHttpJson>,
    /// Painted images a modern format, more compression, a video or a smaller file would
    /// shrink. The drawn size is the paint's, corrected from the host's device pixel ratio to
    /// the page's when the trace's metadata names the host's (`hostDPR`), as the engine does.
    pub image_delivery: Option<crate::page_checks::ImageDeliveryJson>,
    pub font_display: Option<crate::page_checks::FontDisplayJson>,
    pub slow_css_selector: Option<crate::page_checks::SlowCssSelectorJson>,
    pub legacy_javascript: Option<crate::page_scripts::LegacyJavaScriptJson>,
    pub duplicated_javascript: Option<crate::page_scripts::DuplicatedJavaScriptJson>,
}

/// One navigation of the main frame (or `NO_NAVIGATION`).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct NavigationJson {
    /// `NAVIGATION_n` or `NO_NAVIGATION`, as DevTools names its insight sets.
    pub id: String,
    pub url: String,
    pub frame_id: String,
    pub navigation_id: Option<String>,
    pub bounds: WindowJson,
    pub metrics: MetricsJson,
    pub insights: InsightsJson,
}

/// One layout shift.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ShiftJson {
    pub ts_ms: f64,
    pub score: f64,
    pub weighted_score_delta: f64,
    /// Index into the trace's clusters.
    pub cluster: usize,
}

/// One long task (a `RunTask` over 50 ms on a renderer's main thread).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LongTaskJson {
    pub ts_ms: f64,
    pub dur_ms: f64,
    pub pid: u64,
    pub tid: u64,
    pub main_frame: bool,
}

/// The long tasks of the trace.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct LongTasksJson {
    pub count: usize,
    pub total_ms: f64,
    /// Total blocking time: the time of each past 50 ms.
    pub blocking_ms: f64,
    pub items: Vec<LongTaskJson>,
}

/// The filmstrip.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ScreenshotsJson {
    pub count: usize,
    pub first_ts_ms: Option<f64>,
    pub last_ts_ms: Option<f64>,
    /// Screenshots whose image could not be read.
    pub broken: usize,
}

/// A page-load marker of the main frame (`firstContentfulPaint`, `MarkLoad`, …).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MarkerJson {
    pub name: String,
    pub ts_ms: f64,
}

/// `jsprof insights TRACE --json`: Web Vitals per navigation, then the evidence.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct InsightsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub duration_ms: f64,
    pub main_frame_url: Option<String>,
    pub navigations: Vec<NavigationJson>,
    pub page_load_markers: Vec<MarkerJson>,
    pub layout_shifts: Vec<ShiftJson>,
    pub clusters: Vec<ClusterJson>,
    pub interactions: Vec<InteractionJson>,
    pub long_tasks: LongTasksJson,
    pub screenshots: ScreenshotsJson,
    pub requests: usize,
    /// The events the insights point at, per navigation, insight by insight in the trace
    /// engine's baseline order (INP breakdown, LCP breakdown, LCP discovery, CLS culprits,
    /// render-blocking, network dependency tree, image delivery, document latency, font
    /// display, DOM size, forced reflow, cache, character set, modern HTTP, third parties),
    /// each insight's events in DevTools' order: e.g. a forced reflow's reflows then its
    /// top-level calls, a DOM size's large layouts then its large style recalculations.
    pub related_events: Vec<RelatedEventJson>,
}

/// One request of the waterfall.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct RequestJson {
    pub url: String,
    pub request_id: String,
    /// When the request was issued (the first `ResourceWillSendRequest`/`ResourceSendRequest`).
    pub start_ms: f64,
    /// DevTools' bar end: the `ResourceFinish` event.
    pub end_ms: f64,
    pub dur_ms: f64,
    /// When the network stack finished receiving it.
    pub finish_ms: f64,
    pub send_start_ms: f64,
    /// Response headers received (first byte of the body).
    pub download_start_ms: f64,
    pub queueing_ms: f64,
    pub stalled_ms: f64,
    /// Time to first byte from the request being sent (`receiveHeadersStart - sendEnd`).
    pub server_response_ms: f64,
    pub waiting_ms: f64,
    pub download_ms: f64,
    pub priority: String,
    pub initial_priority: String,
    pub fetch_priority_hint: String,
    pub mime_type: String,
    pub resource_type: String,
    pub method: Option<String>,
    pub transfer_size: u64,
    pub decoded_body_size: u64,
    pub status: u32,
    pub protocol: String,
    /// `blocking`, `in_body_parser_blocking`, `non_blocking`, …
    pub render_blocking: String,
    pub from_cache: bool,
    pub failed: bool,
    pub finished: bool,
    pub frame: String,
    pub initiator_type: Option<String>,
    pub initiator_url: Option<String>,
    pub redirects: Vec<String>,
}

/// `jsprof network TRACE --json`: every request, in DevTools' order.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct NetworkReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub requests: Vec<RequestJson>,
    pub transfer_size: u64,
}

/// A mark (or `console.timeStamp`).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MarkJson {
    pub name: String,
    pub start_ms: f64,
}

/// A measure (or `console.time` span).
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct MeasureJson {
    pub name: String,
    pub start_ms: f64,
    pub dur_ms: f64,
}

/// `jsprof timings TRACE --json`: user timings.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct TimingsReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub marks: Vec<MarkJson>,
    pub measures: Vec<MeasureJson>,
    pub console_timings: Vec<MeasureJson>,
    pub console_timestamps: Vec<MarkJson>,
}

/// The page story of a trace input, or an error naming the input when it is not a trace.
pub fn story(input: &CpuInput) -> Result<PageStory> {
    match input.trace() {
        Some(trace) => Ok(page::page_story(trace)),
        None => Err(ReportError::Input(format!(
            "{}: not a Chrome trace; insights, network and timings read a Performance-panel trace",
            input.name
        ))),
    }
}

/// Converts µs on the trace clock to ms from the origin, and lengths to ms.
pub(crate) struct Clock {
    origin: f64,
}

impl Clock {
    pub(crate) fn ts(&self, us: f64) -> f64 {
        (us - self.origin) / 1000.0
    }
    fn related(
        &self,
        story: &PageStory,
        navigation: &str,
        e: &insights::InsightEvent,
    ) -> RelatedEventJson {
        let json = |name: &str, pid, tid, ts, dur| RelatedEventJson {
            navigation: navigation.to_string(),
            insight: e.insight.as_str().to_string(),
            role: e.role.as_str(),
            name: name.to_string(),
            request_id: None,
            pid,
            tid,
            start_ms: self.ts(ts),
            dur_ms: dur / 1000.0,
            timeline_id: None,
            depth: None,
        };
        match &e.event {
            insights::Related::Request(i) => {
                let r = &story.requests[*i];
                RelatedEventJson {
                    request_id: Some(r.request_id.clone()),
                    ..json(
                        "SyntheticNetworkRequest",
                        r.pid,
                        r.tid,
                        r.start,
                        r.end - r.start,
                    )
                }
            }
            insights::Related::Event(x) => RelatedEventJson {
                timeline_id: x.place.map(|p| p.0),
                depth: x.place.map(|p| p.1),
                ..json(&x.name, x.pid, x.tid, x.ts, x.dur)
            },
        }
    }
    fn window(&self, w: &vitals::Window) -> WindowJson {
        WindowJson {
            start_ms: self.ts(w.start),
            end_ms: self.ts(w.end),
            dur_ms: w.dur() / 1000.0,
        }
    }
    fn metric(&self, m: &vitals::Metric) -> MetricJson {
        MetricJson {
            value_ms: m.value / 1000.0,
            ts_ms: self.ts(m.ts),
            classification: m.classification.to_string(),
        }
    }
    pub(crate) fn request_ref(&self, r: &Request) -> RequestRefJson {
        RequestRefJson {
            url: r.url.clone(),
            request_id: r.request_id.clone(),
            start_ms: self.ts(r.start),
            end_ms: self.ts(r.end),
            dur_ms: (r.end - r.start) / 1000.0,
        }
    }
    fn cluster(&self, story: &PageStory, c: &vitals::Cluster) -> ClusterJson {
        ClusterJson {
            start_ms: self.ts(c.window.start),
            dur_ms: c.window.dur() / 1000.0,
            score: c.score,
            shifts: c.shifts.len(),
            worst_shift_ms: c.worst_shift.map(|s| self.ts(story.vitals.shifts[s].ts)),
        }
    }
    fn interaction(&self, i: &vitals::Interaction) -> InteractionJson {
        InteractionJson {
            event_type: i.event_type.clone(),
            interaction_id: i.interaction_id,
            start_ms: self.ts(i.start),
            dur_ms: i.dur() / 1000.0,
            input_delay_ms: i.input_delay() / 1000.0,
            processing_ms: i.processing() / 1000.0,
            presentation_delay_ms: i.presentation_delay() / 1000.0,
            processing_start_ms: self.ts(i.processing_start),
            processing_end_ms: self.ts(i.processing_end),
            nested: i.nested,
            long: vitals::is_long(i),
        }
    }
}

fn call_frame_json(f: &jsprof_profile::page_events::CallFrame) -> CallFrameJson {
    CallFrameJson {
        function: f.function.clone(),
        url: f.url.clone(),
        script_id: f.script_id.clone(),
        line: f.line,
        column: f.column,
    }
}

fn animation_failure(c: &Clock, f: &jsprof_pageload::animations::Failure) -> AnimationFailureJson {
    AnimationFailureJson {
        name: f.name.clone(),
        failure_reasons: f.reasons.iter().map(|r| r.to_string()).collect(),
        unsupported_properties: f.unsupported_properties.clone(),
        animation_ts_ms: c.ts(f.animation_ts),
        animation_dur_ms: f.animation_dur / 1000.0,
    }
}

fn reflow_source_json(s: &insights::ReflowSource) -> ReflowSourceJson {
    ReflowSourceJson {
        frame: s.frame.as_ref().map(call_frame_json),
        total_ms: s.total / 1000.0,
        reflows: s.count,
    }
}

/// The JSON of the insights beyond the Web Vitals.
fn more_insights_json(
    c: &Clock,
    story: &PageStory,
    ins: &insights::NavigationInsights,
    out: &mut InsightsJson,
) {
    out.document_latency = ins.document_latency.as_ref().map(|d| DocumentLatencyJson {
        state: d.state.as_str().to_string(),
        request: c.request_ref(&story.requests[d.request]),
        server_response_ms: d.server_response_ms,
        redirect_ms: d.redirect_ms,
        uncompressed_bytes: d.uncompressed_bytes,
        no_redirects: d.no_redirects,
        server_response_is_fast: d.server_response_is_fast,
        uses_compression: d.uses_compression,
        savings_ms: d.savings_ms,
    });
    out.cls_culprits = ins.cls_culprits.as_ref().map(|cc| ClsCulpritsJson {
        state: cc.state.as_str().to_string(),
        shifts: cc
            .shifts
            .iter()
            .map(|s| {
                let shift = &story.vitals.shifts[s.shift];
                ShiftCausesJson {
                    ts_ms: c.ts(shift.ts),
                    score: shift.score,
                    web_fonts: s
                        .causes
                        .web_fonts
                        .iter()
                        .map(|&r| story.requests[r].url.clone())
                        .collect(),
                    iframes: s.causes.iframes.clone(),
                    unsized_images: s
                        .causes
                        .unsized_images
                        .iter()
                        .map(|(node_id, url)| UnsizedImageJson {
                            node_id: *node_id,
                            url: url.clone(),
                        })
                        .collect(),
                    non_composited_animations: s
                        .causes
                        .non_composited_animations
                        .iter()
                        .map(|f| animation_failure(c, f))
                        .collect(),
                }
            })
            .collect(),
        clusters: cc
            .clusters
            .iter()
            .map(|k| ClusterCulpritsJson {
                cluster_start_ms: c.ts(story.vitals.clusters[k.cluster].window.start),
                culprits: k
                    .culprits
                    .iter()
                    .map(|(kind, url)| CulpritJson {
                        kind: kind.as_str().to_string(),
                        url: url.clone(),
                    })
                    .collect(),
            })
            .collect(),
        animation_failures: cc
            .animation_failures
            .iter()
            .map(|f| animation_failure(c, f))
            .collect(),
    });
    out.lcp_discovery = ins.lcp_discovery.as_ref().map(|d| {
        let r = &story.requests[d.request];
        LcpDiscoveryJson {
            state: d.state.as_str().to_string(),
            request: c.request_ref(r),
            earliest_discovery_ms: d.earliest_discovery.map(|t| c.ts(t)),
            discovery_delay_ms: d.earliest_discovery.map(|t| (r.start - t) / 1000.0),
            priority_hinted: d.priority_hinted,
            request_discoverable: d.request_discoverable,
            eagerly_loaded: d.eagerly_loaded,
        }
    });
    out.dom_size = ins.dom_size.as_ref().map(|d| {
        let mut large: Vec<LargeUpdateJson> = d
            .large_layout_updates
            .iter()
            .chain(&d.large_style_recalcs)
            .map(|u| LargeUpdateJson {
                kind: match u.kind {
                    jsprof_profile::page_events::ReflowKind::Layout => "layout",
                    jsprof_profile::page_events::ReflowKind::RecalcStyle => "style",
                }
                .to_string(),
                ts_ms: c.ts(u.event.ts),
                dur_ms: u.event.dur / 1000.0,
                size: u.size,
            })
            .collect();
        // Longest first, stably (the engine's sort), the first five.
        large.sort_by(|a, b| b.dur_ms.total_cmp(&a.dur_ms));
        large.truncate(5);
        let m = d.max_dom_stats.as_ref();
        DomSizeJson {
            state: d.state.as_str().to_string(),
            ts_ms: m.map(|m| c.ts(m.ts)),
            total_elements: m.map(|m| m.total_elements),
            max_depth: m.and_then(|m| m.max_depth),
            max_children: m.and_then(|m| m.max_children),
            large_updates: large,
            large_layout_updates: d.large_layout_updates.len(),
            large_style_recalcs: d.large_style_recalcs.len(),
        }
    });
    out.forced_reflow = ins.forced_reflow.as_ref().map(|f| {
        let mut bottom_up: Vec<ReflowSourceJson> =
            f.bottom_up.iter().map(reflow_source_json).collect();
        bottom_up.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms));
        ForcedReflowJson {
            state: f.state.as_str().to_string(),
            reflow_events: f.events,
            total_reflow_ms: f.total / 1000.0,
            bottom_up,
            top_level_function: f.top_level.as_ref().map(reflow_source_json),
        }
    });
    out.third_parties = ins.third_parties.as_ref().map(|t| ThirdPartiesJson {
        state: t.state.as_str().to_string(),
        first_party: t.first_party.clone(),
        entities: t
            .entities
            .iter()
            .map(|e| EntityJson {
                entity: e.name.clone(),
                first_party: e.first_party,
                transfer_size: e.transfer_size.max(0.0) as u64,
                main_thread_ms: e.main_thread / 1000.0,
            })
            .collect(),
    });
    out.render_blocking_savings =
        ins.render_blocking_savings
            .as_ref()
            .map(|s| RenderBlockingSavingsJson {
                fcp_ms: s.fcp_ms,
                lcp_ms: s.lcp_ms,
                requests: s
                    .wasted_ms
                    .iter()
                    .map(|&(r, ms)| WastedRequestJson {
                        request_id: story.requests[r].request_id.clone(),
                        url: story.requests[r].url.clone(),
                        wasted_ms: ms,
                    })
                    .collect(),
            });
    out.network_dependency_tree = ins
        .network_dependency_tree
        .as_ref()
        .map(|t| network_tree_json(c, story, t));
    crate::page_checks::page_checks_json(c, story, ins, out);
}

fn network_tree_json(
    c: &Clock,
    story: &PageStory,
    t: &page::network_tree::NetworkDependencyTree,
) -> NetworkDependencyTreeJson {
    NetworkDependencyTreeJson {
        state: t.state.as_str().to_string(),
        max_critical_path_latency_ms: t.max_critical_path_latency / 1000.0,
        chain: t
            .chain
            .iter()
            .map(|n| {
                let r = &story.requests[n.request];
                ChainRequestJson {
                    url: r.url.clone(),
                    request_id: r.request_id.clone(),
                    depth: n.depth,
                    parent: n.parent,
                    time_from_initial_ms: n.time_from_initial / 1000.0,
                    is_longest: n.is_longest,
                    start_ms: c.ts(r.start),
                    end_ms: c.ts(r.end),
                }
            })
            .collect(),
        preconnected_origins: t
            .preconnected_origins
            .iter()
            .map(|p| PreconnectedOriginJson {
                url: p.url.clone(),
                unused: p.unused,
                source: p.source.as_str().to_string(),
                header_text: p.header_text.clone(),
                crossorigin: p.crossorigin,
            })
            .collect(),
        preconnect_candidates: t
            .preconnect_candidates
            .iter()
            .map(|p| PreconnectCandidateJson {
                origin: p.origin.clone(),
                wasted_ms: p.wasted_ms,
            })
            .collect(),
        graph_error: t.graph_error.as_ref().map(|e| e.message()),
    }
}

fn navigation_json(c: &Clock, story: &PageStory, n: &vitals::NavigationVitals) -> NavigationJson {
    let v = &story.vitals;
    let lcp = n.lcp.as_ref().map(|l| LcpJson {
        value_ms: l.metric.value / 1000.0,
        ts_ms: c.ts(l.metric.ts),
        classification: l.metric.classification.to_string(),
        lcp_type: l.lcp_type.clone(),
        node_id: l.node_id,
        candidate_index: l.candidate_index,
        request: l.request.map(|r| c.request_ref(&story.requests[r])),
    });
    let inp = n.inp.map(|i| {
        let x = &v.interactions[i];
        InpJson {
            value_ms: x.dur() / 1000.0,
            classification: vitals::classify_inp(x.dur()).to_string(),
            interaction: c.interaction(x),
        }
    });
    let lcp_breakdown =
        n.lcp
            .as_ref()
            .and_then(|l| l.subparts.as_ref())
            .map(|s| LcpBreakdownJson {
                ttfb: c.window(&s.ttfb),
                load_delay: s.load_delay.as_ref().map(|w| c.window(w)),
                load_duration: s.load_duration.as_ref().map(|w| c.window(w)),
                render_delay: c.window(&s.render_delay),
            });
    let cls_clusters = v
        .clusters
        .iter()
        .filter(|cl| cl.navigation_id == n.navigation_id)
        .map(|cl| c.cluster(story, cl))
        .collect();
    let render_blocking = n
        .render_blocking
        .iter()
        .map(|&r| c.request_ref(&story.requests[r]))
        .collect();
    NavigationJson {
        id: n.id.clone(),
        url: n.url.clone(),
        frame_id: n.frame.clone(),
        navigation_id: n.navigation_id.clone(),
        bounds: c.window(&n.bounds),
        metrics: MetricsJson {
            fcp: n.fcp.as_ref().map(|m| c.metric(m)),
            fp: n.fp.as_ref().map(|m| c.metric(m)),
            dcl: n.dcl.as_ref().map(|m| c.metric(m)),
            load: n.load.as_ref().map(|m| c.metric(m)),
            lcp,
            cls: ClsJson {
                score: n.cls,
                classification: vitals::classify_cls(n.cls).to_string(),
                worst_cluster: n.worst_cluster.map(|w| c.cluster(story, &v.clusters[w])),
            },
            inp,
        },
        insights: InsightsJson {
            lcp_breakdown,
            inp_breakdown: n.inp.map(|i| c.interaction(&v.interactions[i])),
            cls_clusters,
            render_blocking,
            render_blocking_savings: None,
            document_latency: None,
            cls_culprits: None,
            lcp_discovery: None,
            dom_size: None,
            forced_reflow: None,
            third_parties: None,
            network_dependency_tree: None,
            viewport: None,
            character_set: None,
            cache: None,
            modern_http: None,
            image_delivery: None,
            font_display: None,
            slow_css_selector: None,
            legacy_javascript: None,
            duplicated_javascript: None,
        },
    }
}

/// The insights document of a trace.
pub fn insights_report(input: &CpuInput) -> Result<InsightsReport> {
    let story = story(input)?;
    Ok(insights_of(input, &story))
}

/// [`insights_report`] over a story already read.
pub fn insights_of(input: &CpuInput, story: &PageStory) -> InsightsReport {
    let c = Clock {
        origin: story.bounds.start,
    };
    let v = &story.vitals;
    let lt = &story.long_tasks;
    let mut related_events = Vec::new();
    let shared = input.trace().map(insights::TraceShared::new);
    let navigations = v
        .navigations
        .iter()
        .map(|n| {
            let mut json = navigation_json(&c, story, n);
            if let (Some(trace), Some(shared)) = (input.trace(), &shared) {
                let ins = insights::navigation_insights(
                    trace,
                    &story.requests,
                    &story.vitals,
                    n,
                    input.timelines(),
                    shared,
                );
                more_insights_json(&c, story, &ins, &mut json.insights);
                crate::page_scripts::page_scripts_json(
                    &c,
                    &trace.page,
                    story,
                    &ins,
                    &mut json.insights,
                );
                related_events.extend(ins.related.iter().map(|e| c.related(story, &json.id, e)));
            }
            json
        })
        .collect();
    InsightsReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        duration_ms: story.bounds.dur() / 1000.0,
        // DevTools names the page by its first main-frame navigation's URL (before redirects),
        // else by the frame's URL when tracing started.
        main_frame_url: v
            .navigations
            .iter()
            .find(|n| n.navigation_id.is_some())
            .map(|n| {
                input
                    .trace()
                    .and_then(|t| {
                        t.page
                            .navigations
                            .iter()
                            .find(|e| Some(&e.navigation_id) == n.navigation_id.as_ref())
                    })
                    .map_or_else(|| n.url.clone(), |e| e.url.clone())
            })
            .or_else(|| {
                input
                    .trace()
                    .and_then(|t| t.page.main_frame.as_ref())
                    .map(|(_, url)| url.clone())
            }),
        navigations,
        page_load_markers: v
            .markers
            .iter()
            .map(|(name, ts)| MarkerJson {
                name: name.to_string(),
                ts_ms: c.ts(*ts),
            })
            .collect(),
        layout_shifts: v
            .shifts
            .iter()
            .map(|s| ShiftJson {
                ts_ms: c.ts(s.ts),
                score: s.score,
                weighted_score_delta: s.weighted_score_delta,
                cluster: s.cluster,
            })
            .collect(),
        clusters: v.clusters.iter().map(|cl| c.cluster(story, cl)).collect(),
        interactions: v.interactions.iter().map(|i| c.interaction(i)).collect(),
        long_tasks: LongTasksJson {
            count: lt.items.len(),
            total_ms: lt.total() / 1000.0,
            blocking_ms: lt.blocking() / 1000.0,
            items: lt
                .items
                .iter()
                .map(|t| LongTaskJson {
                    ts_ms: c.ts(t.start),
                    dur_ms: t.dur / 1000.0,
                    pid: t.pid,
                    tid: t.tid,
                    main_frame: t.main_frame,
                })
                .collect(),
        },
        screenshots: ScreenshotsJson {
            count: story.screenshots.len(),
            first_ts_ms: story.screenshots.first().map(|s| c.ts(s.0)),
            last_ts_ms: story.screenshots.last().map(|s| c.ts(s.0)),
            broken: story.screenshots.iter().filter(|s| !s.1).count(),
        },
        requests: story.requests.len(),
        related_events,
    }
}

/// The network document of a trace.
pub fn network_report(input: &CpuInput) -> Result<NetworkReport> {
    let story = story(input)?;
    let c = Clock {
        origin: story.bounds.start,
    };
    let requests: Vec<RequestJson> = story
        .requests
        .iter()
        .map(|r| RequestJson {
            url: r.url.clone(),
            request_id: r.request_id.clone(),
            start_ms: c.ts(r.start),
            end_ms: c.ts(r.end),
            dur_ms: (r.end - r.start) / 1000.0,
            finish_ms: c.ts(r.finish),
            send_start_ms: c.ts(r.send_start),
            download_start_ms: c.ts(r.download_start),
            queueing_ms: r.queueing / 1000.0,
            stalled_ms: r.stalled / 1000.0,
            server_response_ms: r.server_response_time / 1000.0,
            waiting_ms: r.waiting / 1000.0,
            download_ms: r.download / 1000.0,
            priority: r.priority.clone(),
            initial_priority: r.initial_priority.clone(),
            fetch_priority_hint: r.fetch_priority_hint.clone(),
            mime_type: r.mime_type.clone(),
            resource_type: r.resource_type.clone(),
            method: r.request_method.clone(),
            transfer_size: r.transfer_size.max(0.0) as u64,
            decoded_body_size: r.decoded_body_length.max(0.0) as u64,
            status: r.status,
            protocol: r.protocol.clone(),
            render_blocking: r.render_blocking.clone(),
            from_cache: r.from_cache,
            failed: r.failed,
            finished: r.finished,
            frame: r.frame.clone(),
            initiator_type: r.initiator.as_ref().map(|(t, _)| t.clone()),
            initiator_url: r.initiator.as_ref().and_then(|(_, u)| u.clone()),
            redirects: r.redirects.clone(),
        })
        .collect();
    Ok(NetworkReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        transfer_size: requests.iter().map(|r| r.transfer_size).sum(),
        requests,
    })
}

/// The user-timings document of a trace.
pub fn timings_report(input: &CpuInput) -> Result<TimingsReport> {
    let trace = input.trace().ok_or_else(|| {
        ReportError::Input(format!(
            "{}: not a Chrome trace; user timings are read from a Performance-panel trace",
            input.name
        ))
    })?;
    let t = page::timings::user_timings(&trace.page);
    let c = Clock {
        origin: trace.origin() as f64 / 1000.0,
    };
    let mark = |m: &page::timings::Mark| MarkJson {
        name: m.name.clone(),
        start_ms: c.ts(m.ts),
    };
    let span = |s: &page::timings::Span| MeasureJson {
        name: s.name.clone(),
        start_ms: c.ts(s.start),
        dur_ms: (s.end - s.start) / 1000.0,
    };
    let mut warnings = warnings_json(input.warnings());
    if t.unmatched > 0 {
        warnings.push(JsonWarning {
            at: "traceEvents".to_string(),
            message: format!(
                "{} measure or console.time halves without their partner were left out",
                t.unmatched
            ),
        });
    }
    Ok(TimingsReport {
        kind: input.profile().kind.as_str(),
        warnings,
        marks: t.marks.iter().map(mark).collect(),
        measures: t.measures.iter().map(span).collect(),
        console_timings: t.console_timings.iter().map(span).collect(),
        console_timestamps: t.timestamps.iter().map(mark).collect(),
    })
}

/// A page load in one line: what `summary` of a trace says about the page.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct PageSummaryJson {
    /// The first navigation's URL.
    pub url: String,
    pub lcp_ms: Option<f64>,
    pub lcp_rating: Option<String>,
    pub cls: f64,
    pub cls_rating: String,
    pub inp_ms: Option<f64>,
    pub inp_rating: Option<String>,
    /// The insights that fail, in the order DevTools' Insights sidebar lists them
    /// (`lcp_discovery`, `cls_culprits`, `render_blocking`, `document_latency`, `forced_reflow`),
    /// then the page checks (`image_delivery`, `font_display`, `viewport`, `cache`,
    /// `character_set`, `modern_http`).
    pub failing_insights: Vec<String>,
    /// The first of `failing_insights`, with its evidence in a few words.
    pub worst_insight: Option<String>,
}

/// The page summary of a trace with a navigation; `None` for any other input.
pub fn page_summary(input: &CpuInput) -> Option<PageSummaryJson> {
    let trace = input.trace()?;
    if trace.page.navigations.is_empty() {
        return None;
    }
    let story = page::page_story(trace);
    let report = insights_of(input, &story);
    let n = report
        .navigations
        .iter()
        .find(|n| n.navigation_id.is_some())?;
    let (m, i) = (&n.metrics, &n.insights);
    let mut failing: Vec<(String, String)> = Vec::new();
    let mut fail = |name: &str, state: &str, why: String| {
        if state == "fail" {
            failing.push((name.to_string(), why));
        }
    };
    if let Some(d) = &i.lcp_discovery {
        let mut missing = Vec::new();
        if !d.request_discoverable {
            missing.push("not discoverable in the HTML");
        }
        if !d.priority_hinted {
            missing.push("no fetchpriority=high");
        }
        if !d.eagerly_loaded {
            missing.push("lazily loaded");
        }
        fail("lcp_discovery", &d.state, missing.join(", "));
    }
    if let Some(c) = &i.cls_culprits {
        let kinds: Vec<&str> = c
            .clusters
            .iter()
            .flat_map(|k| k.culprits.iter().map(|x| x.kind.as_str()))
            .collect();
        fail(
            "cls_culprits",
            &c.state,
            match kinds.is_empty() {
                true => format!("CLS {:.3}", m.cls.score),
                false => format!("CLS {:.3}: {}", m.cls.score, kinds.join(", ")),
            },
        );
    }
    if let Some(r) = i.render_blocking.first() {
        let saves = match &i.render_blocking_savings {
            Some(s) if s.fcp_ms > 0.0 => format!(", deferring them saves {} ms of FCP", s.fcp_ms),
            _ => String::new(),
        };
        fail(
            "render_blocking",
            "fail",
            format!(
                "{} requests, the longest {:.1} ms ({}){saves}",
                i.render_blocking.len(),
                r.dur_ms,
                r.url
            ),
        );
    }
    if let Some(d) = &i.document_latency {
        fail(
            "document_latency",
            &d.state,
            format!(
                "server {} ms, redirects {} ms, compression {}",
                d.server_response_ms,
                d.redirect_ms,
                if d.uses_compression { "on" } else { "off" }
            ),
        );
    }
    if let Some(f) = &i.forced_reflow {
        fail(
            "forced_reflow",
            &f.state,
            format!("{} reflows, {:.1} ms", f.reflow_events, f.total_reflow_ms),
        );
    }
    crate::page_checks::failing_page_checks(i, &mut fail);
    crate::page_scripts::failing_script_insights(i, &mut fail);
    Some(PageSummaryJson {
        url: n.url.clone(),
        lcp_ms: m.lcp.as_ref().map(|l| l.value_ms),
        lcp_rating: m.lcp.as_ref().map(|l| l.classification.clone()),
        cls: m.cls.score,
        cls_rating: m.cls.classification.clone(),
        inp_ms: m.inp.as_ref().map(|x| x.value_ms),
        inp_rating: m.inp.as_ref().map(|x| x.classification.clone()),
        worst_insight: failing.first().map(|(n, why)| format!("{n}: {why}")),
        failing_insights: failing.into_iter().map(|(n, _)| n).collect(),
    })
}
