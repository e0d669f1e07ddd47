//! The events each insight points at (DevTools' `relatedEvents`, which the Performance panel
//! outlines when the insight is selected), against the live trace engine
//! (`insights-oracle.mjs`'s `related` and `top_level_calls`): `jsprof insights --json`'s
//! `related_events` — requests, the interaction, the LCP candidate, layout shifts and clusters,
//! reflows and calls, each with its name, thread, start and duration, in the engine's order.

use serde_json::{json, Value};

use crate::support::{document, fixture_text, fixtures, run_oracle, temp_file};

/// Our insight keys and the engine's whose `related` events are compared.
const RELATED: &[(&str, &str)] = &[
    ("inp_breakdown", "INPBreakdown"),
    ("lcp_breakdown", "LCPBreakdown"),
    ("lcp_discovery", "LCPDiscovery"),
    ("cls_culprits", "CLSCulprits"),
    ("render_blocking", "RenderBlocking"),
    ("network_dependency_tree", "NetworkDependencyTree"),
    ("image_delivery", "ImageDelivery"),
    ("document_latency", "DocumentLatency"),
    ("font_display", "FontDisplay"),
    ("forced_reflow", "ForcedReflow"),
    ("dom_size", "DOMSize"),
    ("cache", "Cache"),
    ("character_set", "CharacterSet"),
    ("modern_http", "ModernHTTP"),
    // Every event the engine maps to a third-party entity: its requests with their network
    // events, and its renderer entries (JS calls included) on every thread of the page.
    ("third_parties", "ThirdParties"),
    ("legacy_javascript", "LegacyJavaScript"),
    ("duplicated_javascript", "DuplicatedJavaScript"),
];

/// Our insight key, role and the engine's insight and list: [`RELATED`] (role and list
/// `related`), and ForcedReflow's top-level calls.
fn compared() -> impl Iterator<Item = (&'static str, &'static str, &'static str, &'static str)> {
    RELATED
        .iter()
        .map(|&(ours, engine)| (ours, "related", engine, "related"))
        .chain([(
            "forced_reflow",
            "top_level_call",
            "ForcedReflow",
            "top_level_calls",
        )])
}

/// The engine's insights whose events the document does not list yet: none, today.
const NOT_LISTED: &[&str] = &[];

/// The oracle rounds its ms to 0.001 ms; ours are exact.
const MS: f64 = 0.001;

/// Our events (`{name, pid, tid, start_ms, dur_ms}`) are DevTools' (`{name, pid, tid, ts_ms,
/// dur_ms}`), one for one, in the same order.
#[track_caller]
pub(crate) fn same_events(ours: &Value, want: &Value, at: &str) -> usize {
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
pub(crate) fn listed(doc: &Value, id: &str, insight: &str, role: &str) -> Value {
    let all = doc["related_events"].as_array().unwrap();
    all.iter()
        .filter(|e| e["navigation"] == id && e["insight"] == insight && e["role"] == role)
        .cloned()
        .collect()
}

#[test]
fn insights_point_at_the_trace_engines_events() {
    let mut seen = 0;
    for name in crate::page_loads::PAGE_LOADS {
        let file = fixtures().join(format!("{name}.json.gz"));
        let Some(want) = run_oracle("insights-oracle", &file) else {
            return;
        };
        let ours = document("insights", &file.to_string_lossy());
        let mut listed_here = 0;
        for n in ours["navigations"].as_array().unwrap() {
            let id = n["id"].as_str().unwrap();
            let wi = &want["insights"][id];
            let at = format!("{name} {id}");
            for (insight, role, engine, theirs) in compared() {
                let n = same_events(
                    &listed(&ours, id, insight, role),
                    &wi[engine][theirs],
                    &format!("{at} {engine} {theirs}"),
                );
                seen += n;
                listed_here += n;
            }
            // Every other insight of the engine points at nothing, or is one of those known
            // not to be listed.
            for (engine, m) in wi.as_object().unwrap() {
                let compared = RELATED.iter().any(|c| c.1 == engine);
                let empty = m["related"].as_array().is_none_or(|a| a.is_empty());
                assert!(
                    compared || empty || NOT_LISTED.contains(&engine.as_str()),
                    "{at}: {engine} points at {} events the document does not list",
                    m["related"]
                );
            }
        }
        // Nothing else is listed; every trace event of a thread is placed on its timeline, and
        // every request is one of `jsprof network`'s.
        let all = ours["related_events"].as_array().unwrap();
        assert_eq!(all.len(), listed_here, "{name}: related events");
        let network = document("network", &file.to_string_lossy());
        let requests = network["requests"].as_array().unwrap();
        for e in all {
            match e["name"].as_str().unwrap() {
                "SyntheticNetworkRequest" => {
                    let r = requests
                        .iter()
                        .find(|r| r["request_id"] == e["request_id"])
                        .unwrap_or_else(|| panic!("{name}: {e} is no request of the network"));
                    assert_eq!(r["start_ms"], e["start_ms"], "{name}: {e}");
                }
                "EventTiming"
                | "largestContentfulPaint::Candidate"
                | "SyntheticLayoutShift"
                | "SyntheticLayoutShiftCluster" => {
                    assert!(
                        e["timeline_id"].is_null() && e["request_id"].is_null(),
                        "{e}"
                    )
                }
                _ => assert!(
                    e["timeline_id"].is_u64() && e["depth"].is_u64(),
                    "{name}: {e}"
                ),
            }
        }
    }
    // pageload.trace forces 500 reflows from one call: the comparison above is not empty.
    assert!(seen > 500, "only {seen} related events compared");
}

/// Two third parties, one a company third-party-web knows: the recorded page load with its
/// slow script served from Google Analytics' domain. The engine lists each entity's events
/// after the other's, in its own order of the entities; the document lists the same.
#[test]
fn the_events_of_several_third_parties_are_the_engines() {
    let text = fixture_text("trace/pageload.trace.json.gz");
    // The page load's scripts and image moved to third parties' domains, so that up to four
    // entities (besides the widget's localhost) come in an order that is neither their
    // main-thread time's nor their transfer size's: the engine lists their events in the order
    // its bottom-up tree met them.
    let moves: &[&[(&str, &str)]] = &[
        &[("slow.js", "https://www.google-analytics.com/slow.js")],
        &[
            ("slow.js", "https://www.google-analytics.com/slow.js"),
            ("app.js", "https://cdn.jsdelivr.net/npm/app.js"),
        ],
        &[
            ("app.js", "https://www.google-analytics.com/app.js"),
            ("hero.png", "https://images.ctfassets.net/hero.png"),
        ],
    ];
    for (k, edits) in moves.iter().enumerate() {
        let mut text = text.clone();
        for (from, to) in *edits {
            let from = format!("http://127.0.0.1:8790/{from}");
            assert!(text.contains(&from), "the fixture no longer loads {from}");
            text = text.replace(&from, to);
        }
        let name = format!("third-parties-{k}.trace.json");
        let path = temp_file(&name, text.as_bytes());
        let ours = document("insights", path.to_str().unwrap());
        let entities: Vec<&str> = ours["navigations"][0]["insights"]["third_parties"]["entities"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["first_party"] == false)
            .map(|e| e["entity"].as_str().unwrap())
            .collect();
        assert_eq!(entities.len(), edits.len() + 1, "{edits:?}: {entities:?}");
        let Some(want) = run_oracle("insights-oracle", &path) else {
            return;
        };
        let id = ours["navigations"][0]["id"].as_str().unwrap();
        let n = same_events(
            &listed(&ours, id, "third_parties", "related"),
            &want["insights"][id]["ThirdParties"]["related"],
            &format!("third parties {edits:?}"),
        );
        assert!(n > 22, "{edits:?}: only {n} events");
    }
}

/// The page load with its `RequestAnimationFrame` and `TimerInstall` events' stacks moved to
/// Facebook's domain: instant events, which the engine's bottom-up tree makes no node for, so
/// Facebook is no entity of the insight (neither in its table nor in its events).
#[test]
fn an_entity_seen_only_in_instant_events_is_no_third_party() {
    let mut trace: Value =
        serde_json::from_str(&fixture_text("trace/pageload.trace.json.gz")).unwrap();
    let mut moved = 0;
    for e in trace["traceEvents"].as_array_mut().unwrap() {
        if e["ph"] == "I" && (e["name"] == "RequestAnimationFrame" || e["name"] == "TimerInstall") {
            let args = e["args"]
                .to_string()
                .replace("http://127.0.0.1:8790/", "https://connect.facebook.net/");
            e["args"] = serde_json::from_str(&args).unwrap();
            moved += 1;
        }
    }
    assert!(moved >= 4, "the fixture's instant events moved: {moved}");
    let path = temp_file(
        "instant-third-party.trace.json",
        trace.to_string().as_bytes(),
    );
    let ours = document("insights", path.to_str().unwrap());
    let id = ours["navigations"][0]["id"].as_str().unwrap().to_string();
    let entities = |list: &Value| -> Vec<Value> {
        let list = list.as_array().unwrap().iter();
        list.map(|e| {
            json!([
                e["entity"],
                e["first_party"],
                e["transfer_size"],
                e["main_thread_ms"]
            ])
        })
        .collect()
    };
    let ours_list = entities(&ours["navigations"][0]["insights"]["third_parties"]["entities"]);
    assert!(
        !ours_list.iter().any(|e| e[0] == "Facebook"),
        "{ours_list:?}"
    );
    let Some(want) = run_oracle("insights-oracle", &path) else {
        return;
    };
    let tp = &want["insights"][id.as_str()]["ThirdParties"];
    assert_eq!(ours_list, entities(&tp["entities"]));
    same_events(
        &listed(&ours, &id, "third_parties", "related"),
        &tp["related"],
        "third parties",
    );
}
