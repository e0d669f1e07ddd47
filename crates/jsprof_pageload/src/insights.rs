//! The insights of a navigation beyond its Web Vitals, by the rules of DevTools' trace engine
//! (`models/trace/insights/*.js` of `@paulirish/trace_engine`): document latency, LCP request
//! discovery, DOM size, forced reflow, and third parties ([`super::third_parties`]), each with its
//! pass/fail state, and for forced reflow and DOM size the trace events the engine lists as
//! `relatedEvents` ([`RelatedEvent`], placed on their thread's timeline for the UI to outline).
//!
//! The network dependency tree is [`super::network_tree`], on Lantern's dependency graph
//! ([`super::dependency_graph`]); the render-blocking savings come from Lantern's simulation of
//! that graph ([`super::lantern`]), whose context is made once per navigation here and shared.
//! The LCP-discovery insight has no savings: the engine (`@paulirish/trace_engine` 0.0.65) sets
//! no `metricSavings` for it, so its image's `estimatedSavings` is always null. The page checks
//! are each a file of their own ([`super::viewport`], [`super::character_set`],
//! [`super::cache`], [`super::modern_http`], [`super::font_display`],
//! [`super::slow_css_selector`]), image delivery too ([`super::image_delivery`]); the savings
//! of cache, modern HTTP and image delivery come from the same Lantern context.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use jsprof_profile::page_events::{CallFrame, PageEvents, ReflowKind, Stamp};
use jsprof_profile::TraceFile;

use super::insight_common::{in_bounds, is_compressed, main_frame_pids};
pub use super::insight_common::{Related, RelatedEvent, State};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::{js_round, ns_to_us, us_to_ms};
use jsprof_analysis::is_js_invocation;
use jsprof_analysis::timeline::Timeline;

/// Document request latency (`DocumentLatency`).
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentLatency {
    pub state: State,
    /// Index into the story's requests: the request whose id is the navigation's id.
    pub request: usize,
    /// Server response time in whole ms (the engine rounds it).
    pub server_response_ms: f64,
    /// Time in redirects in whole ms.
    pub redirect_ms: f64,
    /// Bytes compression would save (0 when compressed, or under 1400 bytes).
    pub uncompressed_bytes: u64,
    pub no_redirects: bool,
    pub server_response_is_fast: bool,
    pub uses_compression: bool,
    /// FCP and LCP savings (the same number): a slow server's time past 100 ms plus redirects.
    pub savings_ms: f64,
}

/// LCP request discovery (`LCPDiscovery`), for an image LCP fetched over the network.
#[derive(Clone, Debug, PartialEq)]
pub struct LcpDiscovery {
    pub state: State,
    pub request: usize,
    /// The document's first byte (µs): the earliest the image could have been found.
    pub earliest_discovery: Option<f64>,
    /// `fetchpriority=high` on the image.
    pub priority_hinted: bool,
    /// Preloaded, or found by the parser in the document's HTML.
    pub request_discoverable: bool,
    /// Not `loading=lazy` (or preloaded).
    pub eagerly_loaded: bool,
}

/// An insight, by the key the insights document gives it (the engine's insight names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsightKey {
    InpBreakdown,
    LcpBreakdown,
    LcpDiscovery,
    ClsCulprits,
    RenderBlocking,
    NetworkDependencyTree,
    ImageDelivery,
    DocumentLatency,
    DomSize,
    ForcedReflow,
    FontDisplay,
    Cache,
    CharacterSet,
    ModernHttp,
    ThirdParties,
    LegacyJavaScript,
    DuplicatedJavaScript,
}

impl InsightKey {
    pub fn as_str(self) -> &'static str {
        match self {
            InsightKey::InpBreakdown => "inp_breakdown",
            InsightKey::LcpBreakdown => "lcp_breakdown",
            InsightKey::LcpDiscovery => "lcp_discovery",
            InsightKey::ClsCulprits => "cls_culprits",
            InsightKey::RenderBlocking => "render_blocking",
            InsightKey::NetworkDependencyTree => "network_dependency_tree",
            InsightKey::ImageDelivery => "image_delivery",
            InsightKey::DocumentLatency => "document_latency",
            InsightKey::DomSize => "dom_size",
            InsightKey::ForcedReflow => "forced_reflow",
            InsightKey::FontDisplay => "font_display",
            InsightKey::Cache => "cache",
            InsightKey::CharacterSet => "character_set",
            InsightKey::ModernHttp => "modern_http",
            InsightKey::ThirdParties => "third_parties",
            InsightKey::LegacyJavaScript => "legacy_javascript",
            InsightKey::DuplicatedJavaScript => "duplicated_javascript",
        }
    }
}

/// Why an event is listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// One of the insight's `relatedEvents`.
    Related,
    /// A call of a forced reflow's top-level function (`topLevelFunctionCallEvents`).
    TopLevelCall,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Related => "related",
            Role::TopLevelCall => "top_level_call",
        }
    }
}

/// One event an insight of a navigation points at.
#[derive(Clone, Debug, PartialEq)]
pub struct InsightEvent {
    pub insight: InsightKey,
    pub role: Role,
    pub event: Related,
}

/// A large layout or style recalculation.
#[derive(Clone, Debug, PartialEq)]
pub struct LargeUpdate {
    /// The event, on its thread.
    pub event: RelatedEvent,
    pub kind: ReflowKind,
    /// Dirty objects (layout) or elements (style).
    pub size: u64,
}

/// The largest `DOMStats` of the navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct DomStatsAt {
    pub ts: f64,
    pub total_elements: u64,
    pub max_depth: Option<u64>,
    pub max_children: Option<u64>,
}

/// DOM size (`DOMSize`).
#[derive(Clone, Debug, PartialEq)]
pub struct DomSize {
    pub state: State,
    pub max_dom_stats: Option<DomStatsAt>,
    /// Layouts of over 100 dirty objects taking 40 ms or more.
    pub large_layout_updates: Vec<LargeUpdate>,
    /// Style recalculations of over 300 elements taking 40 ms or more.
    pub large_style_recalcs: Vec<LargeUpdate>,
}

/// Reflow time under one JS frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ReflowSource {
    /// Zero-based line and column, as DevTools shows them; `None`: no stack was recorded.
    pub frame: Option<CallFrame>,
    pub total: f64,
    pub count: usize,
}

/// Forced reflow (`ForcedReflow`): layouts and style recalculations run synchronously inside JS,
/// in tasks where they add up to 30 ms or more.
#[derive(Clone, Debug, PartialEq)]
pub struct ForcedReflow {
    pub state: State,
    pub events: usize,
    pub total: f64,
    /// Per JS frame that forced them (the top of the event's stack), in first-seen order.
    pub bottom_up: Vec<ReflowSource>,
    /// The top-level function call (the JS entry point) with the most reflow time.
    pub top_level: Option<ReflowSource>,
    /// The reflows, in the engine's order (its `relatedEvents`).
    pub related: Vec<RelatedEvent>,
    /// The `FunctionCall` events of `top_level`, each once, first seen first (the engine's
    /// `topLevelFunctionCallEvents`, which the Performance panel outlines beside the reflows).
    pub top_level_calls: Vec<RelatedEvent>,
}

/// The insights of one navigation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavigationInsights {
    pub document_latency: Option<DocumentLatency>,
    pub lcp_discovery: Option<LcpDiscovery>,
    pub dom_size: Option<DomSize>,
    pub forced_reflow: Option<ForcedReflow>,
    pub third_parties: Option<super::third_parties::ThirdParties>,
    pub cls_culprits: Option<super::cls_culprits::ClsCulprits>,
    /// `None` for the trace's stretch before any navigation.
    pub network_dependency_tree: Option<super::network_tree::NetworkDependencyTree>,
    pub viewport: Option<super::viewport::Viewport>,
    pub character_set: Option<super::character_set::CharacterSet>,
    pub cache: Option<super::cache::Cache>,
    pub modern_http: Option<super::modern_http::ModernHttp>,
    pub image_delivery: Option<super::image_delivery::ImageDelivery>,
    pub font_display: Option<super::font_display::FontDisplay>,
    pub slow_css_selector: Option<super::slow_css_selector::SlowCssSelector>,
    pub legacy_javascript: Option<super::legacy_javascript::LegacyJavaScript>,
    pub duplicated_javascript: Option<super::duplicated_javascript::DuplicatedJavaScript>,
    /// The events every insight of the navigation points at (the engine's `relatedEvents`),
    /// insight by insight in the engine's baseline order of insights (its sidebar then ranks them
    /// by estimated savings), each insight's events in the engine's order.
    pub related: Vec<InsightEvent>,
    /// The render-blocking requests' savings (Lantern's simulation); `None` where the engine
    /// has no Lantern context, or no navigation.
    pub render_blocking_savings: Option<super::lantern::RenderBlockingSavings>,
}

/// What the insights of every navigation of a trace read that does not depend on the
/// navigation: made once per trace ([`TraceShared::new`]), not once per navigation.
pub struct TraceShared {
    /// The page's scripts' source maps, resolved and parsed (the script insights).
    pub script_maps: Vec<Option<super::script_maps::SourceMap>>,
}

impl TraceShared {
    pub fn new(trace: &TraceFile) -> Self {
        TraceShared {
            script_maps: super::script_maps::script_source_maps(&trace.page),
        }
    }
}

/// The insights of `nav`. `timelines` are the trace's (third parties' main-thread time; where
/// the related events are drawn); `shared` is [`TraceShared::new`] of the same trace.
pub fn navigation_insights(
    trace: &TraceFile,
    requests: &[Request],
    vitals: &super::vitals::Vitals,
    nav: &NavigationVitals,
    timelines: &[Timeline],
    shared: &TraceShared,
) -> NavigationInsights {
    let page = &trace.page;
    let nav_event = nav.navigation_id.as_ref().and_then(|id| {
        page.navigations
            .iter()
            .find(|n| &n.navigation_id == id && n.frame == nav.frame)
    });
    let doc = nav
        .navigation_id
        .as_ref()
        .and_then(|id| requests.iter().position(|r| &r.request_id == id));
    let lantern = nav
        .ts
        .map(|_| super::lantern::lantern_context(trace, requests, vitals, nav));
    let image_lcp = nav.lcp.as_ref().is_some_and(|l| l.request.is_some());
    let ctx = lantern.as_ref().and_then(|l| l.as_ref().ok());
    let script_maps = &shared.script_maps;
    let mut ins = NavigationInsights {
        render_blocking_savings: lantern.as_ref().and_then(|l| {
            let ctx = l.as_ref().ok()?;
            super::lantern::render_blocking_savings(ctx, requests, &nav.render_blocking, image_lcp)
                .ok()
        }),
        document_latency: doc.map(|d| document_latency(requests, d)),
        lcp_discovery: doc.and_then(|d| lcp_discovery(page, requests, nav, d)),
        dom_size: Some(dom_size(
            trace,
            timelines,
            nav,
            nav_event.map(|n| (n.at.pid, n.at.tid)),
        )),
        forced_reflow: Some(forced_reflow(trace, timelines, nav)),
        cls_culprits: Some(super::cls_culprits::cls_culprits(
            trace, requests, vitals, nav,
        )),
        third_parties: Some(super::third_parties::third_parties(
            trace, requests, nav, timelines,
        )),
        network_dependency_tree: lantern.as_ref().map(|l| {
            super::network_tree::network_dependency_tree(trace, requests, nav, l.as_ref())
        }),
        viewport: Some(super::viewport::viewport(page, &vitals.interactions, nav)),
        character_set: Some(super::character_set::character_set(page, requests, nav)),
        cache: Some(super::cache::cache(requests, nav, ctx)),
        modern_http: Some(super::modern_http::modern_http(
            requests,
            nav,
            nav_event
                .map(|n| n.url.as_str())
                .or(page.main_frame.as_ref().map(|(_, url)| url.as_str()))
                .unwrap_or(""),
            ctx,
        )),
        image_delivery: Some(super::image_delivery::image_delivery(
            trace, requests, nav, ctx,
        )),
        font_display: Some(super::font_display::font_display(page, requests, nav)),
        slow_css_selector: Some(super::slow_css_selector::slow_css_selector(trace, nav)),
        legacy_javascript: Some(super::legacy_javascript::legacy_javascript(
            page,
            requests,
            nav,
            script_maps,
            ctx,
        )),
        duplicated_javascript: Some(super::duplicated_javascript::duplicated_javascript(
            page,
            requests,
            nav,
            script_maps,
            ctx,
        )),
        related: Vec::new(),
    };
    ins.related = related_events(vitals, nav, &ins);
    ins
}

/// The events each insight of `nav` points at, as the engine's insights list them: INP
/// breakdown its interaction; LCP breakdown the LCP candidate and its image request; LCP
/// discovery the same when the image was requested; CLS culprits the shifts and the worst
/// cluster; render-blocking, the network dependency tree and image delivery their requests;
/// document latency
/// the document's request; DOM size its large updates; forced reflow its reflows, then the
/// top-level function's calls.
fn related_events(
    vitals: &super::vitals::Vitals,
    nav: &NavigationVitals,
    ins: &NavigationInsights,
) -> Vec<InsightEvent> {
    use InsightKey as K;
    fn add(
        out: &mut Vec<InsightEvent>,
        insight: InsightKey,
        role: Role,
        events: impl IntoIterator<Item = Related>,
    ) {
        out.extend(events.into_iter().map(|event| InsightEvent {
            insight,
            role,
            event,
        }));
    }
    let event = |thread: (u64, u64), name: &str, ts: f64, dur: f64| {
        Related::Event(RelatedEvent {
            pid: thread.0,
            tid: thread.1,
            name: name.to_string(),
            ts,
            dur,
            place: None,
        })
    };
    let mut out = Vec::new();
    let interaction = nav.inp.map(|i| {
        let x = &vitals.interactions[i];
        event(x.thread, "EventTiming", x.start, x.dur())
    });
    add(&mut out, K::InpBreakdown, Role::Related, interaction);
    let lcp: Vec<Related> = nav
        .lcp
        .iter()
        .flat_map(|l| {
            let candidate = event(
                l.thread,
                "largestContentfulPaint::Candidate",
                l.metric.ts,
                0.0,
            );
            std::iter::once(candidate).chain(l.request.map(Related::Request))
        })
        .collect();
    add(&mut out, K::LcpBreakdown, Role::Related, lcp.clone());
    if ins.lcp_discovery.is_some() {
        add(&mut out, K::LcpDiscovery, Role::Related, lcp);
    }
    if let Some(c) = &ins.cls_culprits {
        let shifts = c.related(vitals).into_iter().map(Related::Event);
        add(&mut out, K::ClsCulprits, Role::Related, shifts);
    }
    let blocking = nav.render_blocking.iter().copied().map(Related::Request);
    add(&mut out, K::RenderBlocking, Role::Related, blocking);
    if let Some(t) = &ins.network_dependency_tree {
        let chain = t.related.iter().copied().map(Related::Request);
        add(&mut out, K::NetworkDependencyTree, Role::Related, chain);
    }
    if let Some(d) = &ins.image_delivery {
        let images = d.images.iter().map(|m| Related::Request(m.request));
        add(&mut out, K::ImageDelivery, Role::Related, images);
    }
    if let Some(d) = &ins.document_latency {
        let doc = Related::Request(d.request);
        add(&mut out, K::DocumentLatency, Role::Related, [doc]);
    }
    if let Some(f) = &ins.font_display {
        let fonts = f.fonts.iter().map(|f| Related::Request(f.request));
        add(&mut out, K::FontDisplay, Role::Related, fonts);
    }
    if let Some(d) = &ins.dom_size {
        let updates = d.large_layout_updates.iter().chain(&d.large_style_recalcs);
        let updates = updates.map(|u| Related::Event(u.event.clone()));
        add(&mut out, K::DomSize, Role::Related, updates);
    }
    if let Some(f) = &ins.forced_reflow {
        let reflows = f.related.iter().cloned().map(Related::Event);
        add(&mut out, K::ForcedReflow, Role::Related, reflows);
        let calls = f.top_level_calls.iter().cloned().map(Related::Event);
        add(&mut out, K::ForcedReflow, Role::TopLevelCall, calls);
    }
    if let Some(c) = &ins.cache {
        let cached = c.requests.iter().map(|r| Related::Request(r.request));
        add(&mut out, K::Cache, Role::Related, cached);
    }
    if let Some(doc) = ins.character_set.as_ref().and_then(|c| c.request) {
        add(
            &mut out,
            K::CharacterSet,
            Role::Related,
            [Related::Request(doc)],
        );
    }
    if let Some(m) = &ins.modern_http {
        let http1 = m.http1_requests.iter().copied().map(Related::Request);
        add(&mut out, K::ModernHttp, Role::Related, http1);
    }
    if let Some(t) = &ins.third_parties {
        add(&mut out, K::ThirdParties, Role::Related, t.related.clone());
    }
    if let Some(l) = &ins.legacy_javascript {
        let requests = l.related.iter().copied().map(Related::Request);
        add(&mut out, K::LegacyJavaScript, Role::Related, requests);
    }
    if let Some(d) = &ins.duplicated_javascript {
        let requests = d.related.iter().copied().map(Related::Request);
        add(&mut out, K::DuplicatedJavaScript, Role::Related, requests);
    }
    out
}

/// The engine's `getCompressionSavings`: a share of the decoded size by MIME type, 0 under
/// 1400 bytes.
fn compression_savings(r: &Request) -> u64 {
    if is_compressed(r) {
        return 0;
    }
    let size = r.decoded_body_length;
    let share = match r.mime_type.as_str() {
        "text/css" => 0.8,
        "text/html" | "text/javascript" => 0.67,
        "text/plain"
        | "text/xml"
        | "text/x-component"
        | "application/javascript"
        | "application/json"
        | "application/manifest+json"
        | "application/vnd.api+json"
        | "application/xml"
        | "application/xhtml+xml"
        | "application/rss+xml"
        | "application/atom+xml"
        | "application/vnd.ms-fontobject"
        | "application/x-font-ttf"
        | "application/x-font-opentype"
        | "application/x-font-truetype"
        | "image/svg+xml"
        | "image/x-icon"
        | "image/vnd.microsoft.icon"
        | "font/ttf"
        | "font/eot"
        | "font/otf"
        | "font/opentype" => 0.5,
        _ => 0.0,
    };
    let savings = js_round(size * share);
    if savings < 1400.0 {
        0
    } else {
        savings as u64
    }
}

fn document_latency(requests: &[Request], d: usize) -> DocumentLatency {
    const TOO_SLOW_MS: f64 = 600.0;
    const TARGET_MS: f64 = 100.0;
    let r = &requests[d];
    let server = js_round(us_to_ms(r.server_response_time));
    let redirect = js_round(us_to_ms(r.redirection_duration));
    let slow = server > TOO_SLOW_MS;
    let savings = if slow {
        (server - TARGET_MS).max(0.0)
    } else {
        0.0
    } + redirect;
    let uncompressed = compression_savings(r);
    let (no_redirects, fast, compressed) = (redirect == 0.0, !slow, uncompressed == 0);
    DocumentLatency {
        state: State::pass_if(no_redirects && fast && compressed),
        request: d,
        server_response_ms: server,
        redirect_ms: redirect,
        uncompressed_bytes: uncompressed,
        no_redirects,
        server_response_is_fast: fast,
        uses_compression: compressed,
        savings_ms: savings,
    }
}

fn lcp_discovery(
    page: &PageEvents,
    requests: &[Request],
    nav: &NavigationVitals,
    d: usize,
) -> Option<LcpDiscovery> {
    let lcp = nav.lcp.as_ref()?;
    let i = lcp.request?;
    let (doc, img) = (&requests[d], &requests[i]);
    let initiated_by_doc = img
        .initiator
        .as_ref()
        .is_some_and(|(t, u)| t == "parser" && u.as_deref() == Some(doc.url.as_str()));
    let candidate = page.markers.iter().find(|m| {
        m.kind == jsprof_profile::page_events::MarkerKind::LcpCandidate
            && m.navigation_id == nav.navigation_id
            && m.candidate_index == lcp.candidate_index
            && m.node_id == lcp.node_id
    });
    let lazy = candidate.is_some_and(|m| m.loading_attr.as_deref() == Some("lazy"));
    // The engine's `calculateDocFirstByteTs`: `file:` documents have no timing.
    let first_byte = if doc.protocol == "file" {
        Some(doc.start)
    } else {
        doc.first_byte
    };
    let priority_hinted = img.fetch_priority_hint == "high";
    let request_discoverable = img.is_link_preload || initiated_by_doc;
    let eagerly_loaded = !lazy || img.is_link_preload;
    Some(LcpDiscovery {
        state: State::pass_if(priority_hinted && request_discoverable && eagerly_loaded),
        request: i,
        earliest_discovery: first_byte,
        priority_hinted,
        request_discoverable,
        eagerly_loaded,
    })
}

/// The main thread of a renderer (the engine's `ThreadType.MAIN_THREAD`).
/// `items` by their event's (pid, tid, ts): how a page event's args are found for the thread
/// event at the same stamp (a reflow's, a function call's).
fn by_stamp<'a, T>(
    items: impl Iterator<Item = (&'a Stamp, &'a T)>,
) -> HashMap<(u64, u64, i64), &'a T> {
    items.map(|(at, x)| ((at.pid, at.tid, at.ts), x)).collect()
}

fn is_main_thread(name: &str) -> bool {
    name == "CrRendererMain"
}

fn dom_size(
    trace: &TraceFile,
    timelines: &[Timeline],
    nav: &NavigationVitals,
    nav_at: Option<(u64, u64)>,
) -> DomSize {
    const MIN_DUR: f64 = 40_000.0;
    let b = &nav.bounds;
    let strings = &trace.profile.strings;
    let reflows = by_stamp(trace.page.reflows.iter().map(|r| (&r.at, r)));
    let main_frame_pids = main_frame_pids(trace, nav);
    let mut layouts = Vec::new();
    let mut styles = Vec::new();
    for (ti, t) in trace.threads.iter().enumerate() {
        if !is_main_thread(&t.name) {
            continue;
        }
        // The engine compares the thread id only, in any renderer.
        match nav_at {
            Some((_, tid)) if t.tid != tid => continue,
            None if !main_frame_pids.contains(&t.pid) => continue,
            _ => {}
        }
        let (Some(first), Some(last)) = (t.events.first(), t.events.last()) else {
            continue;
        };
        if !(b.start <= ns_to_us(last.end()) && b.end >= ns_to_us(first.start)) {
            continue;
        }
        for e in &t.events {
            let (ts, dur) = (ns_to_us(e.start), ns_to_us(e.dur));
            if dur < MIN_DUR || !in_bounds(ts, dur, b) {
                continue;
            }
            let (kind, threshold, out) = match strings.get(e.name) {
                "Layout" => (ReflowKind::Layout, 100, &mut layouts),
                "UpdateLayoutTree" => (ReflowKind::RecalcStyle, 300, &mut styles),
                _ => continue,
            };
            let Some(r) = reflows.get(&(t.pid, t.tid, e.start)) else {
                continue;
            };
            if r.size > threshold {
                out.push(LargeUpdate {
                    event: RelatedEvent::of(trace, timelines, ti, e),
                    kind,
                    size: r.size,
                });
            }
        }
    }
    let mut max: Option<&jsprof_profile::page_events::DomStats> = None;
    for s in &trace.page.dom_stats {
        if s.frame != nav.frame || !in_bounds(ns_to_us(s.at.ts), 0.0, b) {
            continue;
        }
        if nav_at.is_some_and(|(pid, _)| s.at.pid != pid) {
            continue;
        }
        if max.is_none_or(|m| s.total_elements > m.total_elements) {
            max = Some(s);
        }
    }
    DomSize {
        state: if layouts.is_empty() && styles.is_empty() {
            State::Pass
        } else {
            State::Informative
        },
        max_dom_stats: max.map(|s| DomStatsAt {
            ts: ns_to_us(s.at.ts),
            total_elements: s.total_elements,
            max_depth: s.max_depth,
            max_children: s.max_children,
        }),
        large_layout_updates: layouts,
        large_style_recalcs: styles,
    }
}

/// A trace event in the engine's global walk.
#[derive(Clone, Copy)]
struct Item {
    start: i64,
    end: i64,
    thread: u32,
    index: u32,
}

/// The `FORCED_REFLOW` warnings of the engine's `WarningsHandler`: it walks every event of the
/// trace, all threads together, in time order (longer first on ties), with one stack of open
/// events and one of open JS invocations; a `Layout` or `UpdateLayoutTree` inside a JS
/// invocation is a forced reflow, and the reflows between two top-level events are kept when
/// they add up to 30 ms or more. Returns (thread, event index) pairs.
fn forced_reflow_events(trace: &TraceFile) -> Vec<(u32, u32)> {
    const THRESHOLD: i64 = 30_000_000;
    let strings = &trace.profile.strings;
    let mut items: Vec<Item> = Vec::new();
    for (ti, t) in trace.threads.iter().enumerate() {
        for (i, e) in t.events.iter().enumerate() {
            items.push(Item {
                start: e.start,
                end: e.end(),
                thread: ti as u32,
                index: i as u32,
            });
        }
    }
    items.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut all: Vec<i64> = Vec::new(); // open events' ends
    let mut js: Vec<i64> = Vec::new();
    let mut pending: Vec<(u32, u32, i64)> = Vec::new();
    let mut out = Vec::new();
    for it in items {
        let e = &trace.threads[it.thread as usize].events[it.index as usize];
        let name = strings.get(e.name);
        while all.last().is_some_and(|&end| it.start > end) {
            all.pop();
        }
        all.push(it.end);
        while js.last().is_some_and(|&end| it.start > end) {
            js.pop();
        }
        if is_js_invocation(name) {
            js.push(it.end);
        }
        if !js.is_empty() && (name == "Layout" || name == "UpdateLayoutTree") {
            pending.push((it.thread, it.index, e.dur));
            continue;
        }
        if all.len() == 1 {
            if pending.iter().map(|p| p.2).sum::<i64>() >= THRESHOLD {
                out.extend(pending.iter().map(|p| (p.0, p.1)));
            }
            pending.clear();
        }
    }
    out
}

/// A call frame with DevTools' zero-based line and column (trace payload stacks are 1-based).
fn zero_based(f: &CallFrame) -> CallFrame {
    CallFrame {
        line: f.line - 1,
        column: f.column - 1,
        ..f.clone()
    }
}

fn forced_reflow(
    trace: &TraceFile,
    timelines: &[Timeline],
    nav: &NavigationVitals,
) -> ForcedReflow {
    let b = &nav.bounds;
    let reflows = by_stamp(trace.page.reflows.iter().map(|r| (&r.at, r)));
    let calls = by_stamp(trace.page.function_calls.iter().map(|(at, f)| (at, f)));
    let strings = &trace.profile.strings;
    let mut bottom_up: Vec<ReflowSource> = Vec::new();
    // Per entry point: its reflow time and its `FunctionCall` events.
    let mut top: Vec<(ReflowSource, Vec<RelatedEvent>)> = Vec::new();
    let mut related = Vec::new();
    // The `FunctionCall` events already listed under their entry point, by (thread, start).
    let mut calls_seen: HashSet<(u32, i64)> = HashSet::default();
    let mut events = 0;
    let mut total = 0.0;
    for (ti, ei) in forced_reflow_events(trace) {
        let t = &trace.threads[ti as usize];
        let e = &t.events[ei as usize];
        let Some(r) = reflows.get(&(t.pid, t.tid, e.start)) else {
            continue;
        };
        let (ts, dur) = (ns_to_us(e.start), ns_to_us(e.dur));
        if r.frame != nav.frame || !in_bounds(ts, dur, b) {
            continue;
        }
        events += 1;
        total += dur;
        related.push(RelatedEvent::of(trace, timelines, ti as usize, e));
        let frame = r.stack_top.as_ref().map(zero_based);
        let key = |f: &Option<CallFrame>, g: &Option<CallFrame>| match (f, g) {
            (Some(f), Some(g)) => {
                f.script_id == g.script_id && f.line == g.line && f.column == g.column
            }
            (None, None) => true,
            _ => false,
        };
        match bottom_up.iter_mut().find(|s| key(&s.frame, &frame)) {
            Some(s) => {
                s.total += dur;
                s.count += 1;
            }
            None => bottom_up.push(ReflowSource {
                frame,
                total: dur,
                count: 1,
            }),
        }
        // The entry point: the innermost enclosing trace event on the thread that is not a
        // reflow, when it is a `FunctionCall` with a frame (the engine climbs the JS calls to
        // the first trace event and takes it when it is such a call).
        let parent = t.events[..ei as usize]
            .iter()
            .rev()
            .find(|p| p.start <= e.start && p.end() >= e.end() && p.dur > 0)
            .filter(|p| strings.get(p.name) == "FunctionCall")
            .and_then(|p| Some((p, calls.get(&(t.pid, t.tid, p.start))?)));
        if let Some((call, f)) = parent {
            let f = Some((*f).clone());
            let call = calls_seen
                .insert((ti, call.start))
                .then(|| RelatedEvent::of(trace, timelines, ti as usize, call));
            match top.iter_mut().find(|(s, _)| key(&s.frame, &f)) {
                Some((s, calls)) => {
                    s.total += dur;
                    s.count += 1;
                    calls.extend(call);
                }
                None => top.push((
                    ReflowSource {
                        frame: f,
                        total: dur,
                        count: 1,
                    },
                    call.into_iter().collect(),
                )),
            }
        }
    }
    // The first of the largest wins, as the engine's strict `>` keeps it.
    let mut top_level: Option<(ReflowSource, Vec<RelatedEvent>)> = None;
    for s in top {
        if top_level.as_ref().is_none_or(|t| s.0.total > t.0.total) {
            top_level = Some(s);
        }
    }
    let (top_level, top_level_calls) = match top_level {
        Some((s, calls)) => (Some(s), calls),
        None => (None, Vec::new()),
    };
    ForcedReflow {
        state: State::pass_if(bottom_up.is_empty()),
        events,
        total,
        bottom_up,
        top_level,
        related,
        top_level_calls,
    }
}
