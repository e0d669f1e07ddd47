//! The layout-shift culprits insight (`CLSCulprits`) as DevTools' trace engine finds them: each
//! shift of the navigation is matched to the `PrePaint` it happened in, and that paint to what
//! came just before it — a web font that finished loading within 500 ms, an iframe the page
//! created, an image without width and height painted next, or an animation the compositor could
//! not run that ended within 500 ms before it ([`super::animations`]).

use jsprof_profile::TraceFile;

use super::animations::{animations, Failure};
use super::insight_common::{in_bounds, RelatedEvent, State};
use super::vitals::{self, NavigationVitals, Vitals, Window};
use crate::network::Request;
use crate::units::ns_to_us;

/// What the engine blames for one shift.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RootCauses {
    /// Font requests (indexes into the story's requests).
    pub web_fonts: Vec<usize>,
    /// Frame ids of iframes created just before.
    pub iframes: Vec<String>,
    /// (DOM node id, image URL) of unsized images.
    pub unsized_images: Vec<(u64, String)>,
    /// Compositing failures of animations that ended just before, one per failing instant as
    /// the engine counts them.
    pub non_composited_animations: Vec<Failure>,
}

/// One shift of the navigation with its root causes.
#[derive(Clone, Debug, PartialEq)]
pub struct ShiftCauses {
    /// Index into [`Vitals::shifts`].
    pub shift: usize,
    pub causes: RootCauses,
}

/// The kind of a culprit, as the engine names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CulpritKind {
    WebFont,
    Iframe,
    Animation,
    UnsizedImage,
}

impl CulpritKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CulpritKind::WebFont => "web_font",
            CulpritKind::Iframe => "iframe",
            CulpritKind::Animation => "animation",
            CulpritKind::UnsizedImage => "unsized_image",
        }
    }
}

/// The top culprits of one cluster (at most three).
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterCulprits {
    /// Index into [`Vitals::clusters`].
    pub cluster: usize,
    /// (kind, URL: the image's for an unsized image).
    pub culprits: Vec<(CulpritKind, Option<String>)>,
}

/// The insight.
#[derive(Clone, Debug, PartialEq)]
pub struct ClsCulprits {
    /// `pass` without shifts, `informative` when the worst cluster is good, else `fail`.
    pub state: State,
    pub shifts: Vec<ShiftCauses>,
    pub clusters: Vec<ClusterCulprits>,
    /// Every compositing failure of the navigation's animations, blamed for a shift or not
    /// (the engine's `animationFailures`).
    pub animation_failures: Vec<Failure>,
    /// The navigation's cluster with the highest score (index into [`Vitals::clusters`]).
    pub worst_cluster: Option<usize>,
}

impl ClsCulprits {
    /// The engine's `relatedEvents`: every shift of the navigation's clusters, in order, then
    /// the worst cluster (its window, on its first shift's thread).
    pub fn related(&self, vitals: &Vitals) -> Vec<RelatedEvent> {
        let shift = |s: &vitals::Shift, name: &str, dur: f64| RelatedEvent {
            pid: s.thread.0,
            tid: s.thread.1,
            name: name.to_string(),
            ts: s.ts,
            dur,
            place: None,
        };
        let shifts = self
            .shifts
            .iter()
            .map(|s| shift(&vitals.shifts[s.shift], "SyntheticLayoutShift", 0.0));
        let worst = self.worst_cluster.and_then(|c| {
            let c = &vitals.clusters[c];
            let first = &vitals.shifts[*c.shifts.first()?];
            Some(RelatedEvent {
                ts: c.window.start,
                ..shift(first, "SyntheticLayoutShiftCluster", c.window.dur())
            })
        });
        shifts.chain(worst).collect()
    }
}

/// A `PrePaint` (µs).
#[derive(Clone, Copy)]
struct Span {
    ts: f64,
    dur: f64,
}

impl Span {
    fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

/// The first of `sorted` (by time) that starts after `after` (the engine's `getNextEvent`).
fn next_after(sorted: &[Span], after: f64) -> Option<usize> {
    let i = sorted.partition_point(|s| s.ts <= after);
    (i < sorted.len()).then_some(i)
}

/// The engine's `isInRootCauseWindow`: the cause ended before the paint, at most 500 ms before.
fn in_root_cause_window(cause_end: f64, paint: &Span) -> bool {
    cause_end < paint.ts && cause_end >= paint.ts - 500_000.0
}

/// The culprits of `nav`'s shifts.
pub fn cls_culprits(
    trace: &TraceFile,
    requests: &[Request],
    vitals: &Vitals,
    nav: &NavigationVitals,
) -> ClsCulprits {
    let b: &Window = &nav.bounds;
    let page = &trace.page;
    let strings = &trace.profile.strings;
    let mut pre_paints: Vec<Span> = Vec::new();
    let mut child_frames: Vec<Span> = Vec::new();
    for t in &trace.threads {
        for e in &t.events {
            let span = Span {
                ts: ns_to_us(e.start),
                dur: ns_to_us(e.dur),
            };
            if !in_bounds(span.ts, span.dur, b) {
                continue;
            }
            match strings.get(e.name) {
                "PrePaint" => pre_paints.push(span),
                "RenderFrameImpl::createChildFrame" => child_frames.push(span),
                _ => {}
            }
        }
    }
    pre_paints.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    child_frames.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    let mut paint_images: Vec<(f64, u64, &str)> = page
        .paint_images
        .iter()
        .map(|(at, node, url)| (ns_to_us(at.ts), *node, url.as_str()))
        .filter(|(ts, _, _)| in_bounds(*ts, 0.0, b))
        .collect();
    paint_images.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut dom_loading: Vec<(f64, &str)> = page
        .dom_loading
        .iter()
        .map(|(at, f)| (ns_to_us(at.ts), f.as_str()))
        .filter(|(ts, _)| in_bounds(*ts, 0.0, b))
        .collect();
    dom_loading.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut unsized_nodes: Vec<(f64, u64)> = page
        .unsized_images
        .iter()
        .map(|(at, node)| (ns_to_us(at.ts), *node))
        .filter(|(ts, _)| in_bounds(*ts, 0.0, b))
        .collect();
    unsized_nodes.sort_by(|a, b| a.0.total_cmp(&b.0));

    // The navigation's clusters and their shifts, in order.
    let clusters: Vec<usize> = (0..vitals.clusters.len())
        .filter(|&c| vitals.clusters[c].navigation_id == nav.navigation_id)
        .collect();
    let shifts: Vec<usize> = clusters
        .iter()
        .flat_map(|&c| vitals.clusters[c].shifts.iter().copied())
        .collect();
    let mut causes: Vec<RootCauses> = vec![RootCauses::default(); shifts.len()];
    // The shifts inside each paint, by paint (in time order).
    let mut by_paint: Vec<(usize, Vec<usize>)> = Vec::new();
    for (p, pp) in pre_paints.iter().enumerate() {
        let inside: Vec<usize> = (0..shifts.len())
            .filter(|&k| {
                let ts = vitals.shifts[shifts[k]].ts;
                ts >= pp.ts && ts <= pp.end()
            })
            .collect();
        if !inside.is_empty() {
            by_paint.push((p, inside));
        }
    }
    let shifts_of = |p: usize| by_paint.iter().find(|(q, _)| *q == p).map(|(_, s)| s);

    for f in &child_frames {
        let Some(p) = next_after(&pre_paints, f.end()) else {
            continue;
        };
        let Some(inside) = shifts_of(p) else {
            continue;
        };
        let dom = dom_loading
            .iter()
            .find(|(ts, _)| *ts >= f.ts && *ts <= f.end());
        if let Some((_, frame)) = dom {
            for &k in inside {
                causes[k].iframes.push(frame.to_string());
            }
        }
    }
    let mut fonts: Vec<usize> = (0..requests.len())
        .filter(|&i| {
            let r = &requests[i];
            r.resource_type == "Font"
                && r.mime_type.starts_with("font")
                && in_bounds(r.start, r.end - r.start, b)
        })
        .collect();
    fonts.sort_by(|&a, &b| requests[a].start.total_cmp(&requests[b].start));
    for i in fonts {
        let r = &requests[i];
        let Some(p) = next_after(&pre_paints, r.end) else {
            continue;
        };
        if !in_root_cause_window(r.end, &pre_paints[p]) {
            continue;
        }
        if let Some(inside) = shifts_of(p) {
            for &k in inside {
                causes[k].web_fonts.push(i);
            }
        }
    }
    let mut animation_failures = Vec::new();
    for a in animations(&page.animations) {
        if !in_bounds(a.ts, a.dur, b) {
            continue;
        }
        animation_failures.extend(a.failures.iter().cloned());
        let Some(p) = next_after(&pre_paints, a.end()) else {
            continue;
        };
        if !in_root_cause_window(a.end(), &pre_paints[p]) {
            continue;
        }
        if let Some(inside) = shifts_of(p) {
            for &k in inside {
                causes[k]
                    .non_composited_animations
                    .extend(a.failures.iter().cloned());
            }
        }
    }
    for (p, inside) in &by_paint {
        let after = pre_paints[*p].end();
        let i = paint_images.partition_point(|(ts, _, _)| *ts <= after);
        let Some(&(_, node, url)) = paint_images.get(i) else {
            continue;
        };
        if !unsized_nodes.iter().any(|(_, n)| *n == node) {
            continue;
        }
        for &k in inside {
            causes[k].unsized_images.push((node, url.to_string()));
        }
    }

    let culprits = clusters
        .iter()
        .map(|&c| {
            let mut out: Vec<(CulpritKind, Option<String>)> = Vec::new();
            for &s in &vitals.clusters[c].shifts {
                let Some(k) = shifts.iter().position(|&x| x == s) else {
                    continue;
                };
                let rc = &causes[k];
                let room = |out: &Vec<_>| out.len() < 3;
                for _ in &rc.web_fonts {
                    if room(&out) {
                        out.push((CulpritKind::WebFont, None));
                    }
                }
                for _ in &rc.iframes {
                    if room(&out) {
                        out.push((CulpritKind::Iframe, None));
                    }
                }
                for _ in &rc.non_composited_animations {
                    if room(&out) {
                        out.push((CulpritKind::Animation, None));
                    }
                }
                for (_, url) in &rc.unsized_images {
                    if room(&out) {
                        out.push((CulpritKind::UnsizedImage, Some(url.clone())));
                    }
                }
                if !room(&out) {
                    break;
                }
            }
            ClusterCulprits {
                cluster: c,
                culprits: out,
            }
        })
        .collect();
    // The worst cluster by score (the first of equals, as the engine's stable sort keeps it).
    let mut worst_cluster: Option<usize> = None;
    for &c in &clusters {
        if worst_cluster.is_none_or(|w| vitals.clusters[c].score > vitals.clusters[w].score) {
            worst_cluster = Some(c);
        }
    }
    ClsCulprits {
        state: match worst_cluster.map(|c| vitals.clusters[c].score) {
            None => State::Pass,
            Some(s) if vitals::classify_cls(s) == "good" => State::Informative,
            Some(_) => State::Fail,
        },
        shifts: shifts
            .into_iter()
            .zip(causes)
            .map(|(shift, causes)| ShiftCauses { shift, causes })
            .collect(),
        clusters: culprits,
        animation_failures,
        worst_cluster,
    }
}
