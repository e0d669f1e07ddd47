//! Animations as DevTools' trace engine sees them (`AnimationHandler` and the pairing of nestable
//! async events in `helpers/Trace.js`' `matchEvents`), and the compositing failures its CLS culprits
//! insight reads from them (`getNonCompositedFailure`).
//!
//! The pairing is the engine's, quirks included, because which failures an animation carries
//! decides which shifts it is blamed for: begins are stacked per id (`cat:id:name`), an end takes
//! the latest begin, and the instants of that id are taken *from the back of the list* while the
//! list's *first* instant is not before the begin — so when one element animates twice under the
//! same id, the second animation gets none of its instants (the first animation's trailing
//! `idle` instant, earlier than the second begin, stops the loop), exactly as the engine computes.

use jsprof_profile::page_events::AnimationEvent;
use rustc_hash::FxHashMap as HashMap;

use crate::units::ns_to_us;

/// The compositor's failure reasons DevTools reports (`ACTIONABLE_FAILURE_REASONS`), by bit of
/// `compositeFailed`.
const FAILURE_REASONS: &[(u32, &str)] = &[
    (0, "ACCELERATED_ANIMATIONS_DISABLED"),
    (1, "EFFECT_SUPPRESSED_BY_DEVTOOLS"),
    (2, "INVALID_ANIMATION_OR_EFFECT"),
    (3, "EFFECT_HAS_UNSUPPORTED_TIMING_PARAMS"),
    (4, "EFFECT_HAS_NON_REPLACE_COMPOSITE_MODE"),
    (5, "TARGET_HAS_INVALID_COMPOSITING_STATE"),
    (6, "TARGET_HAS_INCOMPATIBLE_ANIMATIONS"),
    (7, "TARGET_HAS_CSS_OFFSET"),
    (9, "ANIMATION_AFFECTS_NON_CSS_PROPERTIES"),
    (
        10,
        "TRANSFORM_RELATED_PROPERTY_CANNOT_BE_ACCELERATED_ON_TARGET",
    ),
    (11, "TRANSFROM_BOX_SIZE_DEPENDENT"),
    (12, "FILTER_RELATED_PROPERTY_MAY_MOVE_PIXELS"),
    (13, "UNSUPPORTED_CSS_PROPERTY"),
    (15, "MIXED_KEYFRAME_VALUE_TYPES"),
    (16, "TIMELINE_SOURCE_HAS_INVALID_COMPOSITING_STATE"),
    (17, "ANIMATION_HAS_NO_VISIBLE_CHANGE"),
    (18, "AFFECTS_IMPORTANT_PROPERTY"),
    (19, "SVG_TARGET_HAS_INDEPENDENT_TRANSFORM_PROPERTY"),
];

/// One animation: a begin paired with its end (or, without an end, with its instants).
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// The begin's time and the span to the end (0 without one), in µs on the trace clock.
    pub ts: f64,
    pub dur: f64,
    /// The begin's `displayName` (the CSS animation's name).
    pub name: Option<String>,
    /// One per instant that says the compositor could not run it, in the engine's order.
    pub failures: Vec<Failure>,
}

impl Animation {
    pub fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

/// Why an animation ran on the main thread: one `compositeFailed` instant of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The animation's start and duration (µs) and name.
    pub animation_ts: f64,
    pub animation_dur: f64,
    pub name: Option<String>,
    /// The reasons DevTools names, in its order.
    pub reasons: Vec<&'static str>,
    pub unsupported_properties: Vec<String>,
}

fn failures_of(
    ts: f64,
    dur: f64,
    name: &Option<String>,
    instants: &[&AnimationEvent],
) -> Vec<Failure> {
    instants
        .iter()
        .filter_map(|e| {
            let mask = e.composite_failed.filter(|&m| m != 0)?;
            Some(Failure {
                animation_ts: ts,
                animation_dur: dur,
                name: name.clone(),
                reasons: FAILURE_REASONS
                    .iter()
                    .filter(|(bit, _)| mask & (1 << bit) != 0)
                    .map(|(_, r)| *r)
                    .collect(),
                unsupported_properties: e.unsupported_properties.clone(),
            })
        })
        .collect()
}

/// The trace's animations, sorted by start (the engine's `createMatchedSortedSyntheticEvents`).
pub fn animations(events: &[AnimationEvent]) -> Vec<Animation> {
    let mut sorted: Vec<&AnimationEvent> = events.iter().collect();
    sorted.sort_by_key(|e| e.at.ts);
    let key = |e: &AnimationEvent| (e.cat.clone(), e.id.clone());
    let mut begins: HashMap<(String, String), Vec<&AnimationEvent>> = HashMap::default();
    let mut instants: HashMap<(String, String), Vec<&AnimationEvent>> = HashMap::default();
    // (begin, end, instants), in the order the engine finds them.
    let mut groups: Vec<(
        &AnimationEvent,
        Option<&AnimationEvent>,
        Vec<&AnimationEvent>,
    )> = Vec::new();
    // Keys in the order their first begin came, for the second pass (a `Map`'s order).
    let mut begin_keys: Vec<(String, String)> = Vec::new();
    for e in sorted {
        let k = key(e);
        match e.ph {
            b'b' => {
                if !begins.contains_key(&k) {
                    begin_keys.push(k.clone());
                }
                begins.entry(k).or_default().push(e);
            }
            b'n' => instants.entry(k).or_default().push(e),
            b'e' => {
                let Some(begin) = begins.get_mut(&k).and_then(Vec::pop) else {
                    continue;
                };
                let mut taken = Vec::new();
                if let Some(list) = instants.get_mut(&k) {
                    while list.first().is_some_and(|first| first.at.ts >= begin.at.ts) {
                        if let Some(last) = list.pop() {
                            taken.push(last);
                        }
                    }
                }
                groups.push((begin, Some(e), taken));
            }
            _ => {}
        }
    }
    // Begins that never ended but have instants of their id.
    for k in &begin_keys {
        let Some(begin) = begins.get_mut(k).and_then(Vec::pop) else {
            continue;
        };
        if let Some(list) = instants.get(k).filter(|l| !l.is_empty()) {
            groups.push((begin, None, list.clone()));
        }
    }
    let mut out: Vec<Animation> = groups
        .into_iter()
        .filter_map(|(begin, end, instants)| {
            // The engine keeps a group whose end or one of whose instants has the begin's id,
            // which holds for every group made above; it drops one that would end before it began.
            let ts = begin.at.ts;
            let dur = end.map_or(0, |e| e.at.ts - ts);
            if dur < 0 {
                return None;
            }
            let (ts, dur) = (ns_to_us(ts), ns_to_us(dur));
            Some(Animation {
                ts,
                dur,
                name: begin.display_name.clone(),
                failures: failures_of(ts, dur, &begin.display_name, &instants),
            })
        })
        .collect();
    out.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::page_events::Stamp;

    fn ev(ph: u8, ts: i64, id: &str, failed: Option<u64>) -> AnimationEvent {
        AnimationEvent {
            at: Stamp { ts, pid: 1, tid: 1 },
            ph,
            cat: "devtools.timeline".to_string(),
            id: id.to_string(),
            display_name: (ph == b'b').then(|| format!("anim{id}")),
            composite_failed: failed,
            unsupported_properties: failed.map(|_| vec!["top".to_string()]).unwrap_or_default(),
        }
    }

    /// Two animations of one element under one id: the first gets its failing instant, the
    /// second none (the first's trailing instant stops the engine's loop); a begin without an end
    /// but with an instant is kept with a zero duration.
    #[test]
    fn pairs_as_the_engine_does() {
        let events = vec![
            ev(b'b', 1_000, "a", None),
            ev(b'n', 2_000, "a", Some(1 << 13 | 1 << 5)),
            ev(b'e', 5_000, "a", None),
            ev(b'n', 6_000, "a", None),
            ev(b'b', 9_000, "a", None),
            ev(b'n', 9_500, "a", Some(1 << 13)),
            ev(b'e', 12_000, "a", None),
            ev(b'b', 20_000, "z", None),
            ev(b'n', 21_000, "z", Some(1 << 8)),
        ];
        let a = animations(&events);
        assert_eq!(a.len(), 3);
        assert_eq!((a[0].ts, a[0].dur), (1.0, 4.0));
        assert_eq!(a[0].failures.len(), 1);
        assert_eq!(
            a[0].failures[0].reasons,
            vec![
                "TARGET_HAS_INVALID_COMPOSITING_STATE",
                "UNSUPPORTED_CSS_PROPERTY"
            ]
        );
        assert_eq!((a[1].ts, a[1].dur), (9.0, 3.0));
        assert!(a[1].failures.is_empty(), "{:?}", a[1]);
        // Bit 8 is not one DevTools names: a failure with no reasons, as the engine keeps it.
        assert_eq!((a[2].ts, a[2].dur), (20.0, 0.0));
        assert_eq!(a[2].failures[0].reasons, Vec::<&str>::new());
    }
}
