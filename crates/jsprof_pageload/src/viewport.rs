//! The viewport insight (the trace engine's `Viewport`): whether every frame the compositor
//! committed after the page's `<meta name=viewport>` was optimized for mobile. When one was
//! not, taps may wait up to 300 ms for a double-tap; the INP savings are the longest input
//! delay of the trace's slow pointer interactions, at most 300 ms.

use jsprof_profile::page_events::PageEvents;

use super::insight_common::{in_bounds, State};
use super::vitals::{is_long, Interaction, NavigationVitals};
use crate::units::ns_to_us;

/// Input delay from which a slow pointer interaction counts (µs).
const LONG_INPUT_DELAY: f64 = 50_000.0;

/// The viewport insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewport {
    /// `fail` when a committed frame was not mobile-optimized.
    pub state: State,
    /// `None`: no frame was committed in the navigation (the engine's `NO_LAYOUT` warning).
    pub mobile_optimized: Option<bool>,
    /// The navigation's first `ParseMetaViewport` in the file (µs).
    pub viewport_meta: Option<f64>,
    /// Pointer interactions over 200 ms whose input delay is 50 ms or more (indices into the
    /// vitals' interactions), when the viewport fails.
    pub long_pointer_interactions: Vec<usize>,
    /// INP savings (µs), when the viewport fails.
    pub inp_savings: Option<f64>,
}

/// The engine's `categoryOfInteraction(i) === 'POINTER'`.
fn is_pointer(i: &Interaction) -> bool {
    matches!(
        i.event_type.as_str(),
        "pointerdown" | "touchstart" | "pointerup" | "touchend" | "mousedown" | "mouseup" | "click"
    )
}

/// The viewport insight of `nav`. `interactions` are all of the trace's (the engine weighs
/// every slow interaction, not only the navigation's).
pub fn viewport(
    page: &PageEvents,
    interactions: &[Interaction],
    nav: &NavigationVitals,
) -> Viewport {
    let b = &nav.bounds;
    // The first in the file, as the engine's handlers see the events.
    let viewport_meta = page
        .viewport_metas
        .iter()
        .find(|(at, frame)| *frame == nav.frame && in_bounds(ns_to_us(at.ts), 0.0, b))
        .map(|(at, _)| ns_to_us(at.ts));
    // Frames committed before the meta was parsed do not count: the browser could not have
    // applied it yet.
    let mut frames = page.compositor_frames.iter().filter(|f| {
        let ts = ns_to_us(f.at.ts);
        f.frame == nav.frame && viewport_meta.is_none_or(|v| ts >= v) && in_bounds(ts, 0.0, b)
    });
    let Some(first) = frames.next() else {
        return Viewport {
            state: State::Pass,
            mobile_optimized: None,
            viewport_meta,
            long_pointer_interactions: Vec::new(),
            inp_savings: None,
        };
    };
    if first.is_mobile_optimized && frames.all(|f| f.is_mobile_optimized) {
        return Viewport {
            state: State::Pass,
            mobile_optimized: Some(true),
            viewport_meta,
            long_pointer_interactions: Vec::new(),
            inp_savings: None,
        };
    }
    let long: Vec<usize> = (0..interactions.len())
        .filter(|&i| {
            let x = &interactions[i];
            is_long(x) && is_pointer(x) && x.input_delay() >= LONG_INPUT_DELAY
        })
        .collect();
    let delay = long
        .iter()
        .map(|&i| interactions[i].input_delay())
        .fold(0.0, f64::max);
    Viewport {
        state: State::Fail,
        mobile_optimized: Some(false),
        viewport_meta,
        long_pointer_interactions: long,
        inp_savings: Some(delay.clamp(0.0, 300_000.0)),
    }
}
