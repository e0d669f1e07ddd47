//! Web Vitals per navigation as DevTools' trace engine computes them: the page-load markers
//! (`PageLoadMetricsHandler`: FCP, FP, DCL, load, the LCP candidate with the highest index), the
//! layout-shift clusters and CLS (`LayoutShiftsHandler`), interactions and INP
//! (`UserInteractionsHandler` + the INP breakdown insight) and the LCP breakdown insight.

use rustc_hash::FxHashMap as HashMap;

use jsprof_profile::page_events::{MarkerKind, PageEvents};

use super::network::Request;
use crate::units::{ms_to_us, ns_to_us, us_to_ms};

/// A window on the trace clock (µs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub start: f64,
    pub end: f64,
}

impl Window {
    pub fn dur(&self) -> f64 {
        self.end - self.start
    }
}

/// A metric of a navigation: the time from the navigation's start and the event's time (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub value: f64,
    pub ts: f64,
    /// `good`, `ok`, `bad` or `unclassified`.
    pub classification: &'static str,
}

/// The LCP of a navigation: its candidate and, for an image, the image's request.
#[derive(Clone, Debug, PartialEq)]
pub struct Lcp {
    pub metric: Metric,
    pub lcp_type: Option<String>,
    pub node_id: Option<u64>,
    /// The element as the candidate event names it (`IMG id='hero'`).
    pub node_name: Option<String>,
    pub candidate_index: Option<u64>,
    /// Index into the requests of the image's request.
    pub request: Option<usize>,
    /// TTFB, load delay, load duration, render delay (the last three need an image request).
    pub subparts: Option<LcpSubparts>,
    /// The candidate event's (pid, tid).
    pub thread: (u64, u64),
}

/// The LCP breakdown insight's phases.
#[derive(Clone, Debug, PartialEq)]
pub struct LcpSubparts {
    pub ttfb: Window,
    pub load_delay: Option<Window>,
    pub load_duration: Option<Window>,
    pub render_delay: Window,
}

/// A layout-shift cluster (a session window).
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    pub window: Window,
    pub score: f64,
    /// Indices into [`Vitals::shifts`].
    pub shifts: Vec<usize>,
    pub worst_shift: Option<usize>,
    pub navigation_id: Option<String>,
}

/// One layout shift (after recent input ones are dropped).
#[derive(Clone, Debug, PartialEq)]
pub struct Shift {
    pub ts: f64,
    pub score: f64,
    pub weighted_score_delta: f64,
    pub cluster: usize,
    /// The `LayoutShift` event's (pid, tid).
    pub thread: (u64, u64),
}

/// One EventTiming interaction (DevTools' `SyntheticInteractionPair`). Times in µs.
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    pub event_type: String,
    pub interaction_id: u64,
    pub start: f64,
    pub end: f64,
    pub processing_start: f64,
    pub processing_end: f64,
    pub navigation_id: Option<String>,
    /// Dropped from DevTools' track: nested in a longer one of the same category.
    pub nested: bool,
    /// The `EventTiming` begin event's (pid, tid).
    pub thread: (u64, u64),
}

impl Interaction {
    pub fn dur(&self) -> f64 {
        self.end - self.start
    }
    pub fn input_delay(&self) -> f64 {
        self.processing_start - self.start
    }
    pub fn processing(&self) -> f64 {
        self.processing_end - self.processing_start
    }
    pub fn presentation_delay(&self) -> f64 {
        self.end - self.processing_end
    }
}

/// One main-frame navigation and its metrics (DevTools' insight set).
#[derive(Clone, Debug, PartialEq)]
pub struct NavigationVitals {
    /// `NAVIGATION_n`, or `NO_NAVIGATION` for a trace without one.
    pub id: String,
    pub url: String,
    pub frame: String,
    pub navigation_id: Option<String>,
    /// When the navigation started (µs); `None` for `NO_NAVIGATION`.
    pub ts: Option<f64>,
    pub bounds: Window,
    pub fcp: Option<Metric>,
    pub fp: Option<Metric>,
    pub dcl: Option<Metric>,
    pub load: Option<Metric>,
    pub lcp: Option<Lcp>,
    /// The largest cluster score of this navigation, and that cluster's index.
    pub cls: f64,
    pub worst_cluster: Option<usize>,
    /// Index into [`Vitals::interactions`] of the longest interaction in the bounds.
    pub inp: Option<usize>,
    /// The render-blocking requests insight's requests (indices into the requests), longest
    /// first.
    pub render_blocking: Vec<usize>,
}

/// Everything of the page-load story that is about time and Web Vitals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vitals {
    pub main_frame: String,
    pub navigations: Vec<NavigationVitals>,
    pub shifts: Vec<Shift>,
    pub clusters: Vec<Cluster>,
    pub interactions: Vec<Interaction>,
    /// Page-load markers of the main frame, by time: (event name, µs).
    pub markers: Vec<(&'static str, f64)>,
}

const MAX_CLUSTER_DURATION: f64 = 5_000_000.0;
const MAX_SHIFT_TIME_DELTA: f64 = 1_000_000.0;
const LONG_INTERACTION: f64 = 200_000.0;

fn classify(value_us: f64, good_ms: f64, ok_ms: f64) -> &'static str {
    let ms = us_to_ms(value_us);
    if ms <= good_ms {
        "good"
    } else if ms <= ok_ms {
        "ok"
    } else {
        "bad"
    }
}

/// INP's classification (≤ 200 ms good, ≤ 500 ms ok).
pub fn classify_inp(value_us: f64) -> &'static str {
    classify(value_us, 200.0, 500.0)
}

/// CLS's classification (< 0.1 good, < 0.25 ok).
pub fn classify_cls(score: f64) -> &'static str {
    if score < 0.1 {
        "good"
    } else if score < 0.25 {
        "ok"
    } else {
        "bad"
    }
}

/// The Web Vitals of `page`, whose trace bounds are `bounds` (µs).
pub fn vitals(page: &PageEvents, requests: &[Request], bounds: Window) -> Vitals {
    let main_frame = page
        .main_frame
        .as_ref()
        .map(|(f, _)| f.clone())
        .or_else(|| page.navigations.first().map(|n| n.frame.clone()))
        .unwrap_or_default();
    // Navigations per frame, first of each id (DevTools drops a repeated navigation id).
    let mut navs: Vec<&jsprof_profile::page_events::Navigation> = Vec::new();
    {
        let mut sorted: Vec<_> = page.navigations.iter().collect();
        sorted.sort_by_key(|n| n.at.ts);
        for n in sorted {
            if !navs.iter().any(|m| m.navigation_id == n.navigation_id) {
                navs.push(n);
            }
        }
    }
    let main_navs: Vec<_> = navs.iter().filter(|n| n.frame == main_frame).collect();
    let nav_before = |frame: &str, ts: i64| {
        navs.iter()
            .rfind(|n| n.frame == frame && n.at.ts <= ts)
            .copied()
    };

    // Page-load metrics per navigation id.
    #[derive(Default)]
    struct Scores {
        fcp: Option<(Metric, usize)>,
        fp: Option<(Metric, usize)>,
        dcl: Option<(Metric, usize)>,
        load: Option<(Metric, usize)>,
        lcp: Option<(Metric, usize)>,
    }
    let mut scores: HashMap<&str, Scores> = HashMap::default();
    let mut markers: Vec<_> = page.markers.iter().enumerate().collect();
    markers.sort_by_key(|(_, m)| m.at.ts);
    for &(i, m) in &markers {
        let nav = match m.kind {
            MarkerKind::FirstPaint
            | MarkerKind::FirstContentfulPaint
            | MarkerKind::LcpCandidate => m
                .navigation_id
                .as_deref()
                .and_then(|id| navs.iter().find(|n| n.navigation_id == id).copied()),
            MarkerKind::DomContentLoaded | MarkerKind::Load => nav_before(&m.frame, m.at.ts),
            MarkerKind::LcpInvalidate => None,
        };
        let Some(nav) = nav else { continue };
        if nav.frame != m.frame {
            continue;
        }
        let value = ns_to_us(m.at.ts) - ns_to_us(nav.at.ts);
        let metric = |classification| Metric {
            value,
            ts: ns_to_us(m.at.ts),
            classification,
        };
        let s = scores.entry(nav.navigation_id.as_str()).or_default();
        match m.kind {
            MarkerKind::FirstContentfulPaint => {
                s.fcp = Some((metric(classify(value, 1800.0, 3000.0)), i))
            }
            MarkerKind::FirstPaint => s.fp = Some((metric("unclassified"), i)),
            MarkerKind::DomContentLoaded => s.dcl = Some((metric("unclassified"), i)),
            MarkerKind::Load => s.load = Some((metric("unclassified"), i)),
            MarkerKind::LcpCandidate => {
                let Some(index) = m.candidate_index.filter(|&c| c > 0) else {
                    continue;
                };
                let newer = match &s.lcp {
                    None => true,
                    Some((_, last)) => page.markers[*last].candidate_index.unwrap_or(0) < index,
                };
                if newer {
                    s.lcp = Some((metric(classify(value, 2500.0, 4000.0)), i));
                }
            }
            MarkerKind::LcpInvalidate => {}
        }
    }

    // DevTools' page-load markers: the main frame's navigations and the events its metrics
    // chose, by time; on a tie the LCP comes first (the engine lists the LCP events before the
    // others, then sorts stably), then file order.
    let mut chosen: Vec<(i64, bool, usize, &'static str)> = main_navs
        .iter()
        .map(|n| (n.at.ts, true, 0, "navigationStart"))
        .collect();
    for n in &main_navs {
        if let Some(s) = scores.get(n.navigation_id.as_str()) {
            for (_, i) in [&s.fcp, &s.fp, &s.dcl, &s.load, &s.lcp]
                .into_iter()
                .flatten()
            {
                let m = &page.markers[*i];
                let not_lcp = m.kind != MarkerKind::LcpCandidate;
                chosen.push((m.at.ts, not_lcp, i + 1, m.kind.event_name()));
            }
        }
    }
    chosen.sort();
    let marker_list = chosen
        .into_iter()
        .map(|(ts, _, _, name)| (name, ns_to_us(ts)))
        .collect();

    let (shifts, clusters) = layout_shifts(page, &main_navs, bounds);
    let interactions = interactions(page, &navs);

    // Insight sets: one per main-frame navigation, bounded by the next; the time before the
    // first is DevTools' `NO_NAVIGATION` set only when there is no navigation at all here (a
    // short lead-in with nothing in it is dropped).
    let mut sets: Vec<(
        String,
        Option<&&jsprof_profile::page_events::Navigation>,
        Window,
    )> = Vec::new();
    if main_navs.is_empty() {
        sets.push(("NO_NAVIGATION".to_string(), None, bounds));
    }
    for (i, n) in main_navs.iter().enumerate() {
        let end = main_navs
            .get(i + 1)
            .map_or(bounds.end, |m| ns_to_us(m.at.ts));
        sets.push((
            format!("NAVIGATION_{i}"),
            Some(*n),
            Window {
                start: ns_to_us(n.at.ts),
                end,
            },
        ));
    }
    let navigations = sets
        .into_iter()
        .map(|(id, nav, window)| {
            let nav_id = nav.map(|n| n.navigation_id.clone());
            let s = nav.and_then(|n| scores.remove(n.navigation_id.as_str()));
            let s = s.unwrap_or_default();
            let lcp = s.lcp.map(|(metric, i)| {
                let m = &page.markers[i];
                let nav = nav.expect("an LCP has a navigation");
                let request = lcp_request(page, requests, m, ns_to_us(nav.at.ts));
                let doc = requests.iter().find(|r| r.request_id == nav.navigation_id);
                let subparts = doc.and_then(|d| {
                    lcp_subparts(
                        d,
                        &metric,
                        ns_to_us(nav.at.ts),
                        request.map(|r| &requests[r]),
                    )
                });
                Lcp {
                    metric,
                    lcp_type: m.lcp_type.clone(),
                    node_id: m.node_id,
                    node_name: m.node_name.clone(),
                    candidate_index: m.candidate_index,
                    request,
                    subparts,
                    thread: (m.at.pid, m.at.tid),
                }
            });
            let mut worst_cluster = None;
            let mut cls = 0.0;
            for (ci, c) in clusters.iter().enumerate() {
                let mine = match &nav_id {
                    Some(id) => c.navigation_id.as_deref() == Some(id),
                    None => c.navigation_id.is_none(),
                };
                if mine && c.score > cls {
                    cls = c.score;
                    worst_cluster = Some(ci);
                }
            }
            let inp = longest_interaction(&interactions, window);
            let render_blocking = match (nav, &s.fp) {
                (Some(n), Some((fp, _))) => render_blocking(requests, &navs, n, fp.ts),
                _ => Vec::new(),
            };
            NavigationVitals {
                id,
                url: nav.map_or_else(
                    || {
                        page.main_frame
                            .as_ref()
                            .map(|(_, u)| u.clone())
                            .unwrap_or_default()
                    },
                    // The engine's `finalDisplayUrlByNavigationId`: the document request's
                    // last URL, after its redirects.
                    |n| {
                        requests
                            .iter()
                            .find(|r| {
                                r.request_id == n.navigation_id && r.resource_type == "Document"
                            })
                            .map_or_else(|| n.url.clone(), |r| r.url.clone())
                    },
                ),
                frame: nav.map_or(main_frame.clone(), |n| n.frame.clone()),
                navigation_id: nav_id,
                ts: nav.map(|n| ns_to_us(n.at.ts)),
                bounds: window,
                fcp: s.fcp.map(|(m, _)| m),
                fp: s.fp.map(|(m, _)| m),
                dcl: s.dcl.map(|(m, _)| m),
                load: s.load.map(|(m, _)| m),
                lcp,
                cls,
                worst_cluster,
                inp,
                render_blocking,
            }
        })
        .collect();
    Vitals {
        main_frame,
        navigations,
        shifts,
        clusters,
        interactions,
        markers: marker_list,
    }
}

/// The image request of an image LCP (DevTools' `LargestImagePaintHandler`): the first request
/// after the navigation and before the image's paint whose URL (or a redirect's) is the image's.
fn lcp_request(
    page: &PageEvents,
    requests: &[Request],
    lcp: &jsprof_profile::page_events::Marker,
    nav_ts: f64,
) -> Option<usize> {
    let node = lcp.node_id.filter(|&n| n != 0)?;
    // The last image paint of that node in that process wins (a map keyed by node).
    let (at, _, url) = page
        .image_paints
        .iter()
        .filter(|(at, n, _)| *n == node && at.pid == lcp.at.pid)
        .max_by_key(|(at, _, _)| at.ts)?;
    let mut by_time: Vec<usize> = (0..requests.len()).collect();
    by_time.sort_by(|&a, &b| requests[a].start.total_cmp(&requests[b].start));
    let end = ns_to_us(at.ts);
    for i in by_time {
        let r = &requests[i];
        if r.start < nav_ts {
            continue;
        }
        if r.start >= end {
            break;
        }
        if &r.url == url || r.redirects.iter().any(|u| u == url) {
            return Some(i);
        }
    }
    None
}

/// The LCP breakdown: TTFB from the navigation to the document's first byte, then (for an image)
/// the load delay, the load duration and the render delay.
fn lcp_subparts(
    doc: &Request,
    lcp: &Metric,
    nav_ts: f64,
    image: Option<&Request>,
) -> Option<LcpSubparts> {
    let first_byte = if doc.protocol == "file" {
        Some(doc.start)
    } else {
        doc.first_byte
    }?;
    let ttfb = Window {
        start: nav_ts,
        end: first_byte,
    };
    Some(match image {
        None => LcpSubparts {
            ttfb,
            load_delay: None,
            load_duration: None,
            render_delay: Window {
                start: first_byte,
                end: lcp.ts,
            },
        },
        Some(r) => LcpSubparts {
            ttfb,
            load_delay: Some(Window {
                start: first_byte,
                end: r.start,
            }),
            load_duration: Some(Window {
                start: r.start,
                end: r.finish,
            }),
            render_delay: Window {
                start: r.finish,
                end: lcp.ts,
            },
        },
    })
}

/// Layout shifts into clusters (session windows): a new cluster after a gap over 1 s, when the
/// cluster would pass 5 s, or after a main-frame navigation.
fn layout_shifts(
    page: &PageEvents,
    navs: &[&&jsprof_profile::page_events::Navigation],
    bounds: Window,
) -> (Vec<Shift>, Vec<Cluster>) {
    let mut events: Vec<_> = page.layout_shifts.iter().collect();
    events.sort_by_key(|s| s.at.ts);
    let mut shifts: Vec<Shift> = Vec::new();
    let mut clusters: Vec<Cluster> = Vec::new();
    let Some(first) = events.first() else {
        return (shifts, clusters);
    };
    let nav_ts: Vec<f64> = navs.iter().map(|n| ns_to_us(n.at.ts)).collect();
    let mut first_shift = ns_to_us(first.at.ts);
    let mut last_shift = first_shift;
    let mut last_nav: Option<usize> = None;
    for e in events {
        let ts = ns_to_us(e.at.ts);
        let duration_exceeded = ts - first_shift > MAX_CLUSTER_DURATION;
        let gap_exceeded = ts - last_shift > MAX_SHIFT_TIME_DELTA;
        let current_nav = nav_ts.iter().rposition(|&n| n < ts);
        let navigated = last_nav != current_nav && current_nav.is_some();
        if duration_exceeded || gap_exceeded || navigated || clusters.is_empty() {
            let by_duration = if duration_exceeded {
                first_shift + MAX_CLUSTER_DURATION
            } else {
                f64::INFINITY
            };
            let by_gap = if gap_exceeded {
                last_shift + MAX_SHIFT_TIME_DELTA
            } else {
                f64::INFINITY
            };
            let by_nav = current_nav
                .filter(|_| navigated)
                .map_or(f64::INFINITY, |n| nav_ts[n]);
            if let Some(c) = clusters.last_mut() {
                c.window.end = by_duration.min(by_gap).min(by_nav);
            }
            clusters.push(Cluster {
                window: Window { start: ts, end: ts },
                score: 0.0,
                shifts: Vec::new(),
                worst_shift: None,
                navigation_id: current_nav.map(|n| navs[n].navigation_id.clone()),
            });
            first_shift = ts;
        }
        let ci = clusters.len() - 1;
        let c = &mut clusters[ci];
        c.score += e.weighted_score_delta;
        c.shifts.push(shifts.len());
        c.window.end = ts;
        shifts.push(Shift {
            ts,
            score: e.score,
            weighted_score_delta: e.weighted_score_delta,
            cluster: ci,
            thread: (e.at.pid, e.at.tid),
        });
        last_shift = ts;
        last_nav = current_nav;
    }
    let last = clusters.len() - 1;
    for (ci, c) in clusters.iter_mut().enumerate() {
        if ci == last {
            let by_duration = MAX_CLUSTER_DURATION + c.window.start;
            let by_gap = c.window.end + MAX_SHIFT_TIME_DELTA;
            // DevTools tests the next navigation's index for truthiness, so a next navigation
            // at index 0 does not end the cluster.
            let next = nav_ts.iter().position(|&n| n > c.window.end);
            let by_nav = match next {
                Some(i) if i > 0 => nav_ts[i],
                _ => f64::INFINITY,
            };
            c.window.end = by_duration.min(by_gap).min(bounds.end).min(by_nav);
        }
        let mut largest = 0.0;
        for &s in &c.shifts {
            if shifts[s].weighted_score_delta > largest {
                largest = shifts[s].weighted_score_delta;
                c.worst_shift = Some(s);
            }
        }
    }
    (shifts, clusters)
}

/// Interactions from EventTiming begin/end pairs with an interaction id and a duration of at
/// least 1 ms; nested ones (same end, same category, later start) are marked and widen the
/// processing window of the one kept, as DevTools does.
fn interactions(
    page: &PageEvents,
    navs: &[&jsprof_profile::page_events::Navigation],
) -> Vec<Interaction> {
    let mut events: Vec<_> = page
        .event_timings
        .iter()
        .filter(|e| match &e.begin {
            Some(b) => b.duration >= 1.0 && b.interaction_id != 0,
            None => true,
        })
        .collect();
    events.sort_by_key(|e| e.at.ts);
    let mut open: HashMap<&str, Vec<&jsprof_profile::page_events::EventTiming>> =
        HashMap::default();
    let mut out: Vec<Interaction> = Vec::new();
    for e in events {
        match &e.begin {
            Some(_) => open.entry(e.id.as_str()).or_default().push(e),
            None => {
                let Some(b) = open.get_mut(e.id.as_str()).and_then(Vec::pop) else {
                    continue;
                };
                let d = b.begin.as_ref().expect("a begin has data");
                if d.event_type.is_empty()
                    || d.time_stamp == 0.0
                    || d.processing_start == 0.0
                    || d.processing_end == 0.0
                {
                    continue;
                }
                let begin_ts = ns_to_us(b.at.ts);
                let nav = navs
                    .iter()
                    .rfind(|n| n.frame == d.frame && n.at.ts <= b.at.ts);
                out.push(Interaction {
                    event_type: d.event_type.clone(),
                    interaction_id: d.interaction_id,
                    start: begin_ts,
                    end: ns_to_us(e.at.ts),
                    processing_start: ms_to_us(d.processing_start) - ms_to_us(d.time_stamp)
                        + begin_ts,
                    processing_end: ms_to_us(d.processing_end) - ms_to_us(d.time_stamp) + begin_ts,
                    navigation_id: nav.map(|n| n.navigation_id.clone()),
                    nested: true,
                    thread: (b.at.pid, b.at.tid),
                });
            }
        }
    }
    // DevTools sorts by start, the longer first on a tie.
    out.sort_by(|a, b| a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end)));
    let category = |t: &str| match t {
        "pointerdown" | "touchstart" | "pointerup" | "touchend" | "mousedown" | "mouseup"
        | "click" => 0,
        "keydown" | "keypress" | "keyup" => 1,
        _ => 2,
    };
    // Per (category, end): the kept interaction.
    let mut kept: HashMap<(u8, u64), usize> = HashMap::default();
    for i in 0..out.len() {
        let key = (category(&out[i].event_type), out[i].end.to_bits());
        let Some(&k) = kept.get(&key) else {
            kept.insert(key, i);
            continue;
        };
        let (cur_start, cur_id) = (out[k].start, out[k].interaction_id);
        let earlier = out[i].start < cur_start;
        let same_but_busier = out[i].start == cur_start
            && out[i].interaction_id == cur_id
            && out[i].processing() > out[k].processing();
        if earlier || same_but_busier {
            kept.insert(key, i);
        }
        // The previously kept one takes the widest processing window.
        if out[i].processing_start < out[k].processing_start {
            out[k].processing_start = out[i].processing_start;
        }
        if out[i].processing_end > out[k].processing_end {
            out[k].processing_end = out[i].processing_end;
        }
    }
    for &k in kept.values() {
        out[k].nested = false;
    }
    out
}

/// Whether an interaction is long (over 200 ms), as DevTools flags it.
pub fn is_long(i: &Interaction) -> bool {
    i.dur() > LONG_INTERACTION
}

/// The INP breakdown insight's longest interaction: per interaction id the longest kept
/// interaction inside `bounds`, then the longest of those.
fn longest_interaction(interactions: &[Interaction], bounds: Window) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, x) in interactions.iter().enumerate() {
        if x.nested || x.start < bounds.start || x.end > bounds.end {
            continue;
        }
        if best.is_none_or(|b| x.dur() > interactions[b].dur()) {
            best = Some(i);
        }
    }
    best.filter(|&b| interactions[b].dur() > 0.0)
}

/// DevTools' render-blocking requests insight: requests of the navigation's frame, marked
/// render-blocking, finished by the first paint, belonging to that navigation; a request
/// blocking only in the body parser counts when its priority is VeryHigh (or High for a script).
fn render_blocking(
    requests: &[Request],
    navs: &[&jsprof_profile::page_events::Navigation],
    nav: &jsprof_profile::page_events::Navigation,
    first_paint: f64,
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        if r.frame != nav.frame || !r.is_render_blocking() || r.finish > first_paint {
            continue;
        }
        if r.render_blocking == "in_body_parser_blocking" {
            let blocking_script = r.resource_type == "Script" && r.priority == "High";
            if r.priority != "VeryHigh" && !blocking_script {
                continue;
            }
        }
        // The request's navigation: the last of its frame at or before its start (µs, as
        // DevTools compares the synthetic event's `ts`).
        let own = navs
            .iter()
            .rfind(|n| n.frame == r.frame && ns_to_us(n.at.ts) <= r.start);
        if own.is_some_and(|o| o.navigation_id == nav.navigation_id) {
            out.push(i);
        }
    }
    // Longest first; a stable sort keeps DevTools' order on a tie.
    out.sort_by(|&a, &b| {
        let d = |r: &Request| r.end - r.start;
        d(&requests[b]).total_cmp(&d(&requests[a]))
    });
    out
}
