//! Lantern's simulation of a navigation, as DevTools' trace engine sets it up
//! (`Processor.#createLanternContext`): the page dependency graph
//! ([`crate::page::dependency_graph`]), the network as the trace observed it
//! ([`network_analyzer`]), a simulator with the engine's "provided" throttling ([`simulator`],
//! [`connection`]) and the FCP and LCP estimates ([`metrics`]). The insights' savings come from
//! it: the render-blocking requests' ([`render_blocking_savings`]) and, through its graphs and
//! round trips, the network dependency tree's.
//!
//! When any step fails the engine drops the whole context and the insights that need it leave
//! their savings out; [`LanternError`] says which step, with the engine's message.
//!
//! ```no_run
//! # let bytes: &[u8] = b"";
//! let trace = jsprof_profile::read_trace(bytes).unwrap();
//! let story = jsprof_analysis::page::page_story(&trace);
//! let nav = &story.vitals.navigations[0];
//! let ctx = jsprof_analysis::page::lantern::lantern_context(&trace, &story.requests, &story.vitals, nav);
//! if let Ok(ctx) = ctx {
//!     println!("Lantern's FCP: {} ms", ctx.fcp.timing);
//! }
//! ```

pub mod connection;
pub mod metrics;
pub mod network_analyzer;
pub mod simulator;
pub mod subgraph;

use jsprof_profile::page_events::GraphEventName;
use jsprof_profile::TraceFile;

use super::dependency_graph::{dependency_graph, DependencyGraph, GraphError, NodeId, NodeKind};
use super::network::Request;
use super::us;
use super::vitals::{NavigationVitals, Vitals};
use metrics::MetricResult;
use simulator::{js_round, Simulator};
use subgraph::Subgraph;

/// Why the engine has no Lantern context for a navigation.
#[derive(Clone, Debug, PartialEq)]
pub enum LanternError {
    /// The dependency graph, or what the engine checks beside it.
    Graph(GraphError),
    InvalidRtt(f64),
    InvalidThroughput(f64),
    /// Every request to the origin went over a reused connection.
    NoConnection(String),
    /// A failure inside a simulation, with the engine's message.
    Simulation(&'static str),
}

impl LanternError {
    /// The engine's message.
    pub fn message(&self) -> String {
        match self {
            LanternError::Graph(g) => g.message().to_string(),
            LanternError::InvalidRtt(v) => format!("Invalid rtt {}", js_number(*v)),
            LanternError::InvalidThroughput(v) => format!("Invalid throughput {}", js_number(*v)),
            LanternError::NoConnection(o) => format!("Could not find a connection for origin: {o}"),
            LanternError::Simulation(m) => m.to_string(),
        }
    }
}

/// A non-finite number as JavaScript prints it.
fn js_number(v: f64) -> String {
    match v {
        v if v.is_nan() => "NaN".to_string(),
        f64::INFINITY => "Infinity".to_string(),
        f64::NEG_INFINITY => "-Infinity".to_string(),
        v => v.to_string(),
    }
}

impl From<GraphError> for LanternError {
    fn from(e: GraphError) -> Self {
        LanternError::Graph(e)
    }
}

/// What a task did, as Lantern's metrics ask it (its `childEvents`).
#[derive(Clone, Debug, Default)]
pub struct TaskFacts {
    pub layout: bool,
    pub paint: bool,
    pub parse: bool,
    /// The URLs its `EvaluateScript` events ran, first seen first.
    pub script_urls: Vec<String>,
}

/// The dependency graph with what its tasks did.
#[derive(Clone, Debug)]
pub struct LanternGraph {
    pub graph: DependencyGraph,
    /// Per node (requests get the default).
    tasks: Vec<TaskFacts>,
}

impl LanternGraph {
    pub fn new(graph: DependencyGraph, trace: &TraceFile) -> Self {
        let events = &trace.page.graph_events;
        let tasks = (0..graph.node_count())
            .map(|i| {
                let NodeKind::Cpu { events: list, .. } = graph.kind(NodeId::from_index(i)) else {
                    return TaskFacts::default();
                };
                let mut f = TaskFacts::default();
                for &e in list {
                    let e = &events[e];
                    match e.name {
                        GraphEventName::Layout => f.layout = true,
                        GraphEventName::Paint => f.paint = true,
                        GraphEventName::ParseHtml => f.parse = true,
                        GraphEventName::EvaluateScript => {
                            let url = e.data.as_ref().and_then(|d| d.url.as_deref());
                            if let Some(url) = url.filter(|u| !u.is_empty()) {
                                if !f.script_urls.iter().any(|u| u == url) {
                                    f.script_urls.push(url.to_string());
                                }
                            }
                        }
                        _ => {}
                    }
                }
                f
            })
            .collect();
        LanternGraph { graph, tasks }
    }

    pub fn task(&self, n: NodeId) -> &TaskFacts {
        &self.tasks[n.index()]
    }
}

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
    let main_pids = super::main_pids(&trace.page, vitals);
    let trace_end = trace.bounds.map_or(0.0, |(_, hi)| us(hi));
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

    use super::super::dependency_graph::node_id;

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
            let story = crate::page::page_story(&trace);
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
