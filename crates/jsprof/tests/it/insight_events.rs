//! The trace events each insight points at (DevTools' `relatedEvents`, which the Performance
//! panel outlines when the insight is selected), against the live trace engine
//! (`insights-oracle.mjs`'s `related` and `top_level_calls`): `jsprof insights --json`'s
//! `related_events`.

use serde_json::Value;

use crate::support::{fixtures, jsprof_json, run_oracle};

/// Recorded page loads (`tools/gen/pageload-*.js`).
const PAGE_LOADS: &[&str] = &[
    "trace/pageload.trace.json.gz",
    "trace/pageload-shifts.trace.json.gz",
    "trace/pageload-bgimage.trace.json.gz",
];

/// The oracle rounds its ms to 0.001 ms; ours are exact.
const MS: f64 = 0.001;

/// Our events (`{name, pid, tid, start_ms, dur_ms}`) are DevTools' (`{name, pid, tid, ts_ms,
/// dur_ms}`), one for one, in the same order.
#[track_caller]
fn same_events(ours: &Value, want: &Value, at: &str) -> usize {
    let (ours, want) = (ours.as_array().unwrap(), want.as_array().unwrap());
    assert_eq!(ours.len(), want.len(), "{at}: count");
    for (k, (o, w)) in ours.iter().zip(want).enumerate() {
        assert_eq!(o["name"], w["name"], "{at}[{k}] name");
        assert_eq!(o["pid"], w["pid"], "{at}[{k}] pid");
        assert_eq!(o["tid"], w["tid"], "{at}[{k}] tid");
        for (ours, theirs) in [("start_ms", "ts_ms"), ("dur_ms", "dur_ms")] {
            let (a, b) = (o[ours].as_f64().unwrap(), w[theirs].as_f64().unwrap());
            assert!(
                (a - b).abs() <= MS,
                "{at}[{k}] {ours}: ours {a}, DevTools {b}"
            );
        }
    }
    ours.len()
}

/// The events of `insight` in role `role` on navigation `id`, from the document's list.
fn listed(doc: &Value, id: &str, insight: &str, role: &str) -> Value {
    let all = doc["related_events"].as_array().unwrap();
    all.iter()
        .filter(|e| e["navigation"] == id && e["insight"] == insight && e["role"] == role)
        .cloned()
        .collect()
}

#[test]
fn insights_point_at_the_trace_engines_events() {
    let mut seen = 0;
    for name in PAGE_LOADS {
        let file = fixtures().join(name);
        let Some(want) = run_oracle("insights-oracle", &file) else {
            return;
        };
        let ours = jsprof_json(&["insights", &file.to_string_lossy(), "--json"]);
        let mut listed_here = 0;
        for n in ours["navigations"].as_array().unwrap() {
            let id = n["id"].as_str().unwrap();
            let wi = &want["insights"][id];
            let at = format!("{name} {id}");
            for (insight, role, engine, theirs) in [
                ("forced_reflow", "related", "ForcedReflow", "related"),
                (
                    "forced_reflow",
                    "top_level_call",
                    "ForcedReflow",
                    "top_level_calls",
                ),
                ("dom_size", "related", "DOMSize", "related"),
            ] {
                let n = same_events(
                    &listed(&ours, id, insight, role),
                    &wi[engine][theirs],
                    &format!("{at} {engine} {theirs}"),
                );
                seen += n;
                listed_here += n;
            }
        }
        // Nothing else is listed (and every event is placed on its thread's timeline).
        let all = ours["related_events"].as_array().unwrap();
        assert_eq!(all.len(), listed_here, "{name}: related events");
        for e in all {
            assert!(
                e["timeline_id"].is_u64() && e["depth"].is_u64(),
                "{name}: {e}"
            );
        }
    }
    // pageload.trace forces 500 reflows from one call: the comparison above is not empty.
    assert!(seen > 500, "only {seen} related events compared");
}
