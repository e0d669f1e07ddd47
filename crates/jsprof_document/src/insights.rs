//! `jsprof insights TRACE --json` ([`InsightsReport`]): Web Vitals per navigation, then each
//! insight with its evidence and the events it points at. The page checks' parts are
//! [`crate::page_checks`]' and [`crate::page_scripts`]', the network dependency tree's
//! [`crate::network_tree`]'.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::units::us_to_ms;
use jsprof_pageload::{insights, vitals, PageStory};

use crate::load::CpuInput;
use crate::network_tree::{network_tree_json, NetworkDependencyTreeJson};
use crate::page_checks::page_checks_json;
use crate::page_common::{story, Clock, RequestRefJson};
use crate::page_scripts::page_scripts_json;
use crate::{warnings_json, JsonWarning, Result};

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
    /// The LCP element as the candidate event names it: its tag, then its id or class
    /// (`IMG id='hero'`, `H1`), as DevTools names it from a trace.
    pub node_name: Option<String>,
    pub candidate_index: Option<u64>,
    /// The image's request, for an image LCP fetched over the network.
    pub request: Option<RequestRefJson>,
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

/// The insights computed for a navigation (DevTools' insight set). Each is `null` when it does
/// not apply (no LCP, no interaction).
#[derive(Serialize, JsonSchema, Clone, Debug, Default, PartialEq)]
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
    /// The requests' transfer sizes summed, in bytes (each request's encoded data length, what
    /// the Network panel counts as "transferred").
    pub transfer_size: f64,
    /// The events the insights point at, per navigation, insight by insight in the trace
    /// engine's baseline order (INP breakdown, LCP breakdown, LCP discovery, CLS culprits,
    /// render-blocking, network dependency tree, image delivery, document latency, font
    /// display, DOM size, forced reflow, cache, character set, modern HTTP, third parties),
    /// each insight's events in DevTools' order: e.g. a forced reflow's reflows then its
    /// top-level calls, a DOM size's large layouts then its large style recalculations.
    pub related_events: Vec<RelatedEventJson>,
}

impl Clock {
    pub(crate) fn related(
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
            dur_ms: us_to_ms(dur),
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
    pub(crate) fn window(&self, w: &vitals::Window) -> WindowJson {
        WindowJson {
            start_ms: self.ts(w.start),
            end_ms: self.ts(w.end),
            dur_ms: us_to_ms(w.dur()),
        }
    }
    pub(crate) fn metric(&self, m: &vitals::Metric) -> MetricJson {
        MetricJson {
            value_ms: us_to_ms(m.value),
            ts_ms: self.ts(m.ts),
            classification: m.classification.to_string(),
        }
    }
    pub(crate) fn cluster(&self, story: &PageStory, c: &vitals::Cluster) -> ClusterJson {
        ClusterJson {
            start_ms: self.ts(c.window.start),
            dur_ms: us_to_ms(c.window.dur()),
            score: c.score,
            shifts: c.shifts.len(),
            worst_shift_ms: c.worst_shift.map(|s| self.ts(story.vitals.shifts[s].ts)),
        }
    }
    pub(crate) fn interaction(&self, i: &vitals::Interaction) -> InteractionJson {
        InteractionJson {
            event_type: i.event_type.clone(),
            interaction_id: i.interaction_id,
            start_ms: self.ts(i.start),
            dur_ms: us_to_ms(i.dur()),
            input_delay_ms: us_to_ms(i.input_delay()),
            processing_ms: us_to_ms(i.processing()),
            presentation_delay_ms: us_to_ms(i.presentation_delay()),
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
        animation_dur_ms: us_to_ms(f.animation_dur),
    }
}

fn reflow_source_json(s: &insights::ReflowSource) -> ReflowSourceJson {
    ReflowSourceJson {
        frame: s.frame.as_ref().map(call_frame_json),
        total_ms: us_to_ms(s.total),
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
            discovery_delay_ms: d.earliest_discovery.map(|t| us_to_ms(r.start - t)),
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
                dur_ms: us_to_ms(u.event.dur),
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
            total_reflow_ms: us_to_ms(f.total),
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
                main_thread_ms: us_to_ms(e.main_thread),
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
    page_checks_json(c, story, ins, out);
}

fn navigation_json(c: &Clock, story: &PageStory, n: &vitals::NavigationVitals) -> NavigationJson {
    let v = &story.vitals;
    let lcp = n.lcp.as_ref().map(|l| LcpJson {
        value_ms: us_to_ms(l.metric.value),
        ts_ms: c.ts(l.metric.ts),
        classification: l.metric.classification.to_string(),
        lcp_type: l.lcp_type.clone(),
        node_id: l.node_id,
        node_name: l.node_name.clone(),
        candidate_index: l.candidate_index,
        request: l.request.map(|r| c.request_ref(&story.requests[r])),
    });
    let inp = n.inp.map(|i| {
        let x = &v.interactions[i];
        InpJson {
            value_ms: us_to_ms(x.dur()),
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
            // The rest need the trace: `more_insights_json` fills them.
            ..InsightsJson::default()
        },
    }
}

/// A Web Vital's rating as every door's text writes it: the words DevTools shows for the trace
/// engine's `good`, `ok` and `bad` (the UI's labels are the same words, capitalized; the JSON
/// keeps the engine's values).
pub fn rating_text(classification: &str) -> &str {
    match classification {
        "ok" => "needs improvement",
        "bad" => "poor",
        other => other,
    }
}

/// A CLS score as every door's text writes it.
pub fn cls_text(score: f64) -> String {
    format!("{score:.3}")
}

/// The insights document of a trace.
pub fn insights_report(input: &CpuInput) -> Result<InsightsReport> {
    let story = story(input)?;
    Ok(insights_of(input, &story))
}

/// [`insights_report`] over a story already read.
pub fn insights_of(input: &CpuInput, story: &PageStory) -> InsightsReport {
    let c = Clock::new(story.bounds.start);
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
                page_scripts_json(&c, &trace.page, story, &ins, &mut json.insights);
                related_events.extend(ins.related.iter().map(|e| c.related(story, &json.id, e)));
            }
            json
        })
        .collect();
    InsightsReport {
        kind: input.profile().kind.as_str(),
        warnings: warnings_json(input.warnings()),
        duration_ms: us_to_ms(story.bounds.dur()),
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
            total_ms: us_to_ms(lt.total()),
            blocking_ms: us_to_ms(lt.blocking()),
            items: lt
                .items
                .iter()
                .map(|t| LongTaskJson {
                    ts_ms: c.ts(t.start),
                    dur_ms: us_to_ms(t.dur),
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
        transfer_size: story.requests.iter().map(|r| r.transfer_size).sum(),
        related_events,
    }
}
