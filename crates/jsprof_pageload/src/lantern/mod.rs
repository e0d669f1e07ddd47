//! Lantern's simulation of a navigation, as DevTools' trace engine sets it up
//! (`Processor.#createLanternContext`): the page dependency graph
//! ([`crate::dependency_graph`]), the network as the trace observed it
//! ([`network_analyzer`]), a simulator with the engine's "provided" throttling ([`simulator`],
//! [`connection`]) and the FCP and LCP estimates ([`metrics`]). The insights' savings come from
//! it: the render-blocking requests' ([`render_blocking_savings`]), those of sending fewer
//! bytes ([`metric_savings_for_wasted_bytes`]) and, through its graphs and round trips, the
//! network dependency tree's.
//!
//! When any step fails the engine drops the whole context and the insights that need it leave
//! their savings out; [`LanternError`] says which step, with the engine's message.
//!
//! ```no_run
//! # let bytes: &[u8] = b"";
//! let trace = jsprof_profile::read_trace(bytes).unwrap();
//! let story = jsprof_pageload::page_story(&trace);
//! let nav = &story.vitals.navigations[0];
//! let ctx = jsprof_pageload::lantern::lantern_context(&trace, &story.requests, &story.vitals, nav);
//! if let Ok(ctx) = ctx {
//!     println!("Lantern's FCP: {} ms", ctx.fcp.timing);
//! }
//! ```

pub mod connection;
mod error;
mod graph;
pub mod metrics;
pub mod network_analyzer;
pub mod simulator;
pub mod subgraph;

use jsprof_profile::TraceFile;

use super::dependency_graph::{dependency_graph, GraphError, LanternRequest, NodeId, NodeKind};
use super::network::Request;
use super::vitals::{NavigationVitals, Vitals};
use schemars::JsonSchema;
use serde::Serialize;

use crate::insight_common::frame_pids;
use crate::units::{js_max, js_round, ns_to_us};
pub use error::LanternError;
pub use graph::{LanternGraph, TaskFacts};
use metrics::MetricResult;
use simulator::Simulator;
use subgraph::Subgraph;

/// The engine's Lantern context of a navigation.
#[derive(Clone, Debug)]
pub struct LanternContext {
    pub graph: LanternGraph,
    pub simulator: Simulator,
    pub fcp: MetricResult,
    pub lcp: MetricResult,
}

/// The Lantern context of `nav` (a main-frame navigation), or why the engine has none.
pub fn lantern_context(
    trace: &TraceFile,
    requests: &[Request],
    vitals: &Vitals,
    nav: &NavigationVitals,
) -> Result<LanternContext, LanternError> {
    let main_pids = frame_pids(&trace.page, &vitals.main_frame);
    let trace_end = trace.bounds.map_or(0.0, |(_, hi)| ns_to_us(hi));
    let graph = dependency_graph(trace, requests, nav, trace_end, &main_pids)?;
    let fcp_ts = nav.fcp.as_ref().ok_or(GraphError::MissingFcp)?.ts;
    let analysis = network_analyzer::analyze(&graph.requests).ok_or(GraphError::NoThroughput)?;
    let simulator = Simulator::new(analysis)?;
    let lg = LanternGraph::new(graph, trace);
    let full = Subgraph::full(&lg.graph);
    let fcp = metrics::first_contentful_paint(&simulator, &lg, &full, fcp_ts)?;
    // The engine finds no LCP only when it builds the LCP graphs, after FCP's simulations.
    let lcp_ts = nav.lcp.as_ref().ok_or(GraphError::MissingLcp)?.metric.ts;
    let lcp = metrics::largest_contentful_paint(&simulator, &lg, &full, lcp_ts, &fcp)?;
    metrics::interactive_simulations(&simulator, &lg, &full)?;
    Ok(LanternContext {
        graph: lg,
        simulator,
        fcp,
        lcp,
    })
}

/// What deferring the render-blocking requests would save (the engine's `RenderBlocking`
/// insight's `metricSavings` and `requestIdToWastedMs`), in whole ms as it rounds them.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderBlockingSavings {
    pub fcp_ms: f64,
    /// FCP's savings, or 0 when the LCP is an image (blocking requests seldom delay it then).
    pub lcp_ms: f64,
    /// Per render-blocking request (index into the story's requests) its simulated download
    /// time, when 50 ms or more (shorter ones are left out, as the engine leaves them).
    pub wasted_ms: Vec<(usize, f64)>,
}

/// Requests that load in under this many ms may not block at all (`MINIMUM_WASTED_MS`).
const MINIMUM_WASTED_MS: f64 = 50.0;

/// The render-blocking insight's savings: each blocking request's time in the optimistic FCP
/// simulation, and FCP simulated again without the blocking requests and what waited for them.
pub fn render_blocking_savings(
    ctx: &LanternContext,
    requests: &[Request],
    blocking: &[usize],
    image_lcp: bool,
) -> Result<RenderBlockingSavings, LanternError> {
    let lg = &ctx.graph;
    let g = &lg.graph;
    let fcp = &ctx.fcp;
    let mut deferred = vec![false; g.node_count()];
    let mut wasted_ms = Vec::new();
    for &b in blocking {
        let id = requests[b].request_id.as_str();
        // The last simulated node of the request's id (`getNodesAndTimingByRequestId`).
        let found = fcp
            .optimistic
            .timings
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let n = NodeId::from_index(i);
                Some((n, (*t)?, g.request(n)?))
            })
            .rfind(|(_, _, r)| r.request_id == id);
        let Some((node, timing, _)) = found else {
            continue;
        };
        for d in fcp.optimistic_graph.descendants(node) {
            deferred[d.index()] = true;
        }
        let wasted = js_round(timing.duration());
        if wasted >= MINIMUM_WASTED_MS {
            wasted_ms.push((b, wasted));
        }
    }
    let mut fcp_ms = 0.0;
    if !wasted_ms.is_empty() {
        let before = fcp
            .optimistic
            .timings
            .iter()
            .flatten()
            .fold(f64::NEG_INFINITY, |m, t| m.max(t.end));
        let minimal = fcp.optimistic_graph.clone_with(|n| !deferred[n.index()])?;
        let after = ctx.simulator.simulate(lg, &minimal)?.time_ms;
        fcp_ms = js_round((before - after).max(0.0));
    }
    Ok(RenderBlockingSavings {
        fcp_ms,
        lcp_ms: if image_lcp { 0.0 } else { fcp_ms },
        wasted_ms,
    })
}

/// An insight's estimated savings (the engine's `metricSavings`), from its Lantern simulation
/// of the first and largest contentful paints.
// The documents serialize it as it is: its docs are the JSON reference's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct MetricSavings {
    /// How much earlier the first contentful paint would come (ms, rounded as the engine
    /// rounds it).
    pub fcp_ms: f64,
    /// The same for the largest contentful paint.
    pub lcp_ms: f64,
}

/// The engine rounds byte-savings estimates to this many ms (`GRAPH_SAVINGS_PRECISION`).
const GRAPH_SAVINGS_PRECISION: f64 = 50.0;

/// What sending fewer bytes would save (the engine's `metricSavingsForWastedBytes`): the
/// optimistic FCP and LCP graphs simulated again with each listed request's transfer size
/// less its wasted bytes (floored at 0), the difference rounded to 50 ms. `wasted` holds
/// (index into the story's requests, bytes); a later entry for a request replaces an earlier
/// one, and 0 or NaN bytes change nothing, as in the engine's map. Nothing listed saves
/// nothing.
pub fn metric_savings_for_wasted_bytes(
    ctx: &LanternContext,
    requests: &[Request],
    wasted: &[(usize, f64)],
) -> Result<MetricSavings, LanternError> {
    if wasted.is_empty() {
        return Ok(MetricSavings::default());
    }
    let by_id: rustc_hash::FxHashMap<&str, f64> = wasted
        .iter()
        .map(|&(i, bytes)| (requests[i].request_id.as_str(), bytes))
        .collect();
    let mut changed = ctx.graph.graph.requests.clone();
    for r in &mut changed {
        // `if (!wastedBytes) return`: 0 and NaN leave the request as it was.
        let Some(&bytes) = by_id.get(r.request_id.as_str()) else {
            continue;
        };
        if bytes == 0.0 || bytes.is_nan() {
            continue;
        }
        r.transfer_size = js_max(r.transfer_size - bytes, 0.0);
    }
    let (fcp, lcp) = paint_graph_savings(ctx, &changed)?;
    let round = |ms: f64| js_round(ms / GRAPH_SAVINGS_PRECISION) * GRAPH_SAVINGS_PRECISION;
    Ok(MetricSavings {
        fcp_ms: round(fcp),
        lcp_ms: round(lcp),
    })
}

/// How much earlier the optimistic FCP and LCP graphs end when replayed with `changed` (the
/// graph's requests, some of them changed), in ms, unrounded: the savings of the insights that
/// edit requests and simulate again (`estimateSavingsWithGraphs`, modern HTTP's
/// `computeWasteWithGraph`). The engine simulates each graph before and after; before is the
/// metric's own optimistic simulation (the simulator is deterministic), and a graph none of
/// whose requests changed is not replayed: it ends when it did.
pub fn paint_graph_savings(
    ctx: &LanternContext,
    changed: &[LanternRequest],
) -> Result<(f64, f64), LanternError> {
    let lg = &ctx.graph;
    let g = &lg.graph;
    let differs: Vec<bool> = g
        .requests
        .iter()
        .zip(changed)
        .map(|(a, b)| a != b)
        .collect();
    let savings = |m: &MetricResult| -> Result<f64, LanternError> {
        let touched = (0..g.node_count()).map(NodeId::from_index).any(|n| {
            m.optimistic_graph.contains(n)
                && matches!(g.kind(n), NodeKind::Network(l) if differs[*l])
        });
        if !touched {
            return Ok(0.0);
        }
        let after = ctx
            .simulator
            .simulate_with_requests(lg, &m.optimistic_graph, changed)?
            .time_ms;
        Ok(m.optimistic.time_ms - after)
    };
    Ok((savings(&ctx.fcp)?, savings(&ctx.lcp)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn read(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/trace");
        let mut out = Vec::new();
        let f = std::fs::File::open(dir.join(name)).unwrap();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(f), &mut out).unwrap();
        out
    }

    use crate::dependency_graph::node_id;

    #[track_caller]
    fn close(ours: f64, want: &Value, what: &str) {
        let want = want.as_f64().unwrap_or_else(|| panic!("{what}: {want}"));
        assert!(
            (ours - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{what}: ours {ours}, Lantern {want}"
        );
    }

    /// Every simulated node's start and end, and the simulation's end.
    fn assert_simulation(
        trace: &TraceFile,
        lg: &LanternGraph,
        ours: &simulator::Simulation,
        want: &Value,
        at: &str,
    ) {
        close(ours.time_ms, &want["time_ms"], &format!("{at} time"));
        let nodes = want["nodes"].as_array().unwrap();
        let simulated: Vec<(String, simulator::NodeTiming)> = ours
            .timings
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((NodeId::from_index(i), (*t)?)))
            .map(|(n, t)| (node_id(trace, &lg.graph, n), t))
            .collect();
        assert_eq!(simulated.len(), nodes.len(), "{at}: simulated nodes");
        for w in nodes {
            let id = w["id"].as_str().unwrap();
            let (_, t) = simulated
                .iter()
                .find(|(n, _)| n == id)
                .unwrap_or_else(|| panic!("{at}: {id} not simulated"));
            close(t.start, &w["start_ms"], &format!("{at} {id} start"));
            close(t.end, &w["end_ms"], &format!("{at} {id} end"));
        }
    }

    fn pageload_context() -> (Vec<Request>, LanternContext) {
        let trace = jsprof_profile::read_trace(&read("pageload.trace.json.gz")[..]).unwrap();
        let story = crate::page_story(&trace);
        let nav = story.vitals.navigations.iter().find(|n| n.ts.is_some());
        let ctx = lantern_context(&trace, &story.requests, &story.vitals, nav.unwrap()).unwrap();
        (story.requests, ctx)
    }

    /// Shrinking requests the paints waited for saves time, in the engine's 50 ms steps, and
    /// leaves the context's own simulations as they were; nothing listed, or bytes of a
    /// request outside the graphs, save nothing.
    #[test]
    fn wasted_bytes_savings_resimulate_the_paint_graphs() {
        let (requests, ctx) = pageload_context();
        let none = metric_savings_for_wasted_bytes(&ctx, &requests, &[]).unwrap();
        assert_eq!(none, MetricSavings::default());

        let in_graph = |i: usize| {
            let g = &ctx.graph.graph;
            let id = requests[i].request_id.as_str();
            (0..g.node_count()).any(|n| {
                let n = NodeId::from_index(n);
                ctx.lcp.optimistic_graph.contains(n)
                    && g.request(n).is_some_and(|r| r.request_id == id)
            })
        };
        let outside = (0..requests.len()).find(|&i| !in_graph(i)).unwrap();
        let big = [(outside, 1e9)];
        let none = metric_savings_for_wasted_bytes(&ctx, &requests, &big).unwrap();
        assert_eq!(none, MetricSavings::default());

        // On the recorded localhost network bytes cost next to nothing: slow it to a 150 ms
        // round trip at 1.6 Mbit/s (Lighthouse's mobile throttling).
        let mut slow = ctx.clone();
        let mut analysis = ctx.simulator.analysis.clone();
        analysis.throughput = 1.6e6;
        analysis.rtt = 150.0;
        slow.simulator = simulator::Simulator::new(analysis).unwrap();
        for m in [&mut slow.fcp, &mut slow.lcp] {
            m.optimistic = slow
                .simulator
                .simulate(&slow.graph, &m.optimistic_graph)
                .unwrap();
        }
        // Every byte of every request in the LCP graph: the paints wait on CPU alone.
        let all: Vec<(usize, f64)> = (0..requests.len())
            .filter(|&i| in_graph(i))
            .map(|i| (i, f64::INFINITY))
            .collect();
        let sim = |c: &LanternContext, m: &MetricResult| {
            c.simulator
                .simulate(&c.graph, &m.optimistic_graph)
                .unwrap()
                .time_ms
        };
        let s = metric_savings_for_wasted_bytes(&slow, &requests, &all).unwrap();
        let (fcp, lcp) = (sim(&slow, &slow.fcp), sim(&slow, &slow.lcp));
        // FCP's few small requests cost round trips, not bytes; the LCP image costs bytes.
        assert!(
            s.fcp_ms >= 0.0 && s.lcp_ms > s.fcp_ms,
            "{s:?} of {fcp}, {lcp}"
        );
        assert_eq!(s.lcp_ms % GRAPH_SAVINGS_PRECISION, 0.0);
        assert_eq!(s.fcp_ms % GRAPH_SAVINGS_PRECISION, 0.0);
        assert!(s.lcp_ms <= js_round(lcp / 50.0) * 50.0, "{s:?} of {lcp}");
        assert_eq!(sim(&slow, &slow.lcp), lcp, "the context is left as it was");
        // Replayed, a metric's graph ends when its own simulation did.
        for m in [&ctx.fcp, &ctx.lcp] {
            assert_eq!(sim(&ctx, m), m.optimistic.time_ms);
        }
        // Half the bytes of the same requests save less, but not nothing.
        let half: Vec<(usize, f64)> = all
            .iter()
            .map(|&(i, _)| (i, requests[i].transfer_size / 2.0))
            .collect();
        let h = metric_savings_for_wasted_bytes(&slow, &requests, &half).unwrap();
        assert!(h.lcp_ms > 0.0 && h.lcp_ms < s.lcp_ms, "{h:?} < {s:?}");
        // 0 and NaN bytes change nothing, as the engine's `if (!wastedBytes)`.
        let zero: Vec<(usize, f64)> = all.iter().map(|&(i, _)| (i, 0.0)).collect();
        let s = metric_savings_for_wasted_bytes(&slow, &requests, &zero).unwrap();
        assert_eq!(s, MetricSavings::default());
    }

    /// The network analysis, and each node of the FCP and LCP simulations (optimistic and
    /// pessimistic) with the estimates, against Lantern's own on the recorded page loads
    /// (`tools/oracle/lantern-oracle.mjs`, goldens `*.trace.lantern.json.gz`).
    #[test]
    fn simulations_match_lanterns_on_the_recorded_page_loads() {
        let mut compared = 0;
        for name in [
            "pageload",
            "pageload-shifts",
            "pageload-bgimage",
            "pageload-anim",
        ] {
            let trace =
                jsprof_profile::read_trace(&read(&format!("{name}.trace.json.gz"))[..]).unwrap();
            let want: Value =
                serde_json::from_slice(&read(&format!("{name}.trace.lantern.json.gz"))).unwrap();
            let story = crate::page_story(&trace);
            let navs: Vec<&NavigationVitals> = story
                .vitals
                .navigations
                .iter()
                .filter(|n| n.ts.is_some())
                .collect();
            let graphs = want["graphs"].as_array().unwrap();
            assert_eq!(navs.len(), graphs.len(), "{name}: navigations");
            for (nav, w) in navs.into_iter().zip(graphs) {
                let at = format!("{name} {}", nav.id);
                let ctx = lantern_context(&trace, &story.requests, &story.vitals, nav);
                let w = &w["lantern"];
                let ctx = match (ctx, w.is_null()) {
                    (Ok(ctx), false) => ctx,
                    (Err(_), true) => continue,
                    (ctx, _) => panic!("{at}: ours {:?}, Lantern's {w}", ctx.err()),
                };
                let a = &ctx.simulator.analysis;
                let wn = &w["network"];
                close(a.rtt, &wn["rtt_ms"], &format!("{at} rtt"));
                close(
                    a.throughput,
                    &wn["throughput_bps"],
                    &format!("{at} throughput"),
                );
                for (key, ours) in [
                    ("additional_rtt_by_origin", &a.additional_rtt_by_origin),
                    (
                        "server_response_time_by_origin",
                        &a.server_response_time_by_origin,
                    ),
                ] {
                    let want = wn[key].as_object().unwrap();
                    assert_eq!(ours.len() + 1, want.len(), "{at} {key}: origins");
                    for (origin, v) in ours {
                        close(*v, &want[origin], &format!("{at} {key} {origin}"));
                    }
                }
                for (m, ours) in [("fcp", &ctx.fcp), ("lcp", &ctx.lcp)] {
                    let wm = &w[m];
                    close(ours.timing, &wm["timing_ms"], &format!("{at} {m}"));
                    let g = &ctx.graph;
                    assert_simulation(&trace, g, &ours.optimistic, &wm["optimistic"], &at);
                    assert_simulation(&trace, g, &ours.pessimistic, &wm["pessimistic"], &at);
                }
                compared += 1;
            }
        }
        assert!(compared >= 4, "every recorded page load is simulated");
    }
}
