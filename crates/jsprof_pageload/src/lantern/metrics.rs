//! Lantern's paint metrics (`lantern/metrics/FirstContentfulPaint.js`,
//! `LargestContentfulPaint.js`, `Metric.js`): the part of the graph a paint needed — in an
//! optimistic and a pessimistic reading — each simulated, and the estimate halfway between.
//! The render-blocking savings re-simulate the optimistic FCP graph without the blocking
//! requests.

use super::error::LanternError;
use super::graph::{LanternGraph, TaskFacts};
use super::simulator::{Simulation, Simulator};
use super::subgraph::Subgraph;
use crate::dependency_graph::{LanternRequest, NodeId, NodeKind};

/// A metric's graphs and simulations.
#[derive(Clone, Debug)]
pub struct MetricResult {
    /// The estimate (ms from the navigation's first request).
    pub timing: f64,
    pub optimistic_graph: Subgraph,
    pub pessimistic_graph: Subgraph,
    pub optimistic: Simulation,
    pub pessimistic: Simulation,
    pub optimistic_estimate: f64,
    pub pessimistic_estimate: f64,
}

/// `hasRenderBlockingPriority`.
fn has_render_blocking_priority(r: &LanternRequest) -> bool {
    let ty = r.resource_type.as_deref();
    match r.priority.as_str() {
        "VeryHigh" => true,
        "High" => matches!(ty, Some("Script" | "Document")),
        _ => false,
    }
}

/// `isNotLowPriorityImageNode`: low-priority images are usually off screen.
fn is_not_low_priority_image(lg: &LanternGraph, n: NodeId) -> bool {
    match lg.graph.request(n) {
        None => true,
        Some(r) => {
            r.resource_type.as_deref() != Some("Image")
                || !matches!(r.priority.as_str(), "Low" | "VeryLow")
        }
    }
}

/// `getFirstPaintBasedGraph`: the requests (by `treat`) and tasks a paint at `cutoff` (µs)
/// needed — a script whose evaluation started after the paint was not needed, the first
/// layout, paint and HTML parse always were.
fn first_paint_graph(
    lg: &LanternGraph,
    full: &Subgraph,
    cutoff: f64,
    treat: &dyn Fn(NodeId) -> bool,
    extra_tasks: Option<&dyn Fn(NodeId) -> bool>,
) -> Result<Subgraph, LanternError> {
    let g = &lg.graph;
    let order = full.nodes();
    // Tasks that started by the paint; the earliest evaluation of each script.
    let mut tasks: Vec<NodeId> = Vec::new();
    let mut first_eval: Vec<(&str, NodeId)> = Vec::new();
    for &n in &order {
        if !matches!(g.kind(n), NodeKind::Cpu { .. }) {
            continue;
        }
        if g.start(n) <= cutoff {
            tasks.push(n);
        }
        for url in &lg.task(n).script_urls {
            match first_eval.iter_mut().find(|(u, _)| u == url) {
                Some((_, existing)) => {
                    if g.start(n) < g.start(*existing) {
                        *existing = n;
                    }
                }
                None => first_eval.push((url.as_str(), n)),
            }
        }
    }
    tasks.sort_by(|&a, &b| g.start(a).total_cmp(&g.start(b)));
    // Scripts that loaded by the paint (`getScriptUrls`).
    let mut scripts: Vec<&str> = Vec::new();
    for &n in &order {
        let Some(r) = g.request(n) else {
            continue;
        };
        if r.resource_type.as_deref() != Some("Script") {
            continue;
        }
        if g.end(n) <= cutoff && treat(n) && !scripts.contains(&r.url.as_str()) {
            scripts.push(r.url.as_str());
        }
    }
    let mut needed_tasks: Vec<NodeId> = Vec::new();
    let mut not_blocking: Vec<&str> = Vec::new();
    for url in scripts {
        let Some(&(_, task)) = first_eval.iter().find(|(u, _)| *u == url) else {
            continue;
        };
        if tasks.contains(&task) {
            needed_tasks.push(task);
        } else {
            not_blocking.push(url);
        }
    }
    let facts = |pick: fn(&TaskFacts) -> bool| tasks.iter().copied().find(|&t| pick(lg.task(t)));
    needed_tasks.extend(facts(|f| f.layout));
    needed_tasks.extend(facts(|f| f.paint));
    needed_tasks.extend(facts(|f| f.parse));
    if let Some(extra) = extra_tasks {
        needed_tasks.extend(tasks.iter().copied().filter(|&t| extra(t)));
    }
    full.clone_with(|n| match g.request(n) {
        Some(r) => {
            let after_paint = g.end(n) > cutoff || g.start(n) > cutoff;
            if after_paint && n != g.main_document() {
                return false;
            }
            if not_blocking.contains(&r.url.as_str()) {
                return false;
            }
            treat(n)
        }
        None => needed_tasks.contains(&n),
    })
}

/// `Metric.compute` with FCP's and LCP's coefficients (half optimistic, half pessimistic).
fn compute(
    sim: &Simulator,
    lg: &LanternGraph,
    optimistic_graph: Subgraph,
    pessimistic_graph: Subgraph,
    estimate: &dyn Fn(&Simulation) -> f64,
) -> Result<MetricResult, LanternError> {
    let optimistic = sim.simulate(lg, &optimistic_graph)?;
    let pessimistic = sim.simulate(lg, &pessimistic_graph)?;
    let optimistic_estimate = estimate(&optimistic);
    let pessimistic_estimate = estimate(&pessimistic);
    Ok(MetricResult {
        timing: 0.5 * optimistic_estimate + 0.5 * pessimistic_estimate,
        optimistic_graph,
        pessimistic_graph,
        optimistic,
        pessimistic,
        optimistic_estimate,
        pessimistic_estimate,
    })
}

/// Lantern's FCP: the optimistic graph leaves out script-initiated requests.
pub fn first_contentful_paint(
    sim: &Simulator,
    lg: &LanternGraph,
    full: &Subgraph,
    fcp_ts: f64,
) -> Result<MetricResult, LanternError> {
    let g = &lg.graph;
    let blocking = |n: NodeId| g.request(n).is_some_and(has_render_blocking_priority);
    let optimistic = first_paint_graph(
        lg,
        full,
        fcp_ts,
        &|n| blocking(n) && g.request(n).is_some_and(|r| r.initiator_type != "script"),
        None,
    )?;
    let pessimistic = first_paint_graph(lg, full, fcp_ts, &blocking, None)?;
    compute(sim, lg, optimistic, pessimistic, &|s| s.time_ms)
}

/// Lantern's LCP: everything but low-priority images (optimistic) or everything and every
/// layout (pessimistic) by the LCP; the simulated end of the last such node; never before FCP.
pub fn largest_contentful_paint(
    sim: &Simulator,
    lg: &LanternGraph,
    full: &Subgraph,
    lcp_ts: f64,
    fcp: &MetricResult,
) -> Result<MetricResult, LanternError> {
    let optimistic = first_paint_graph(
        lg,
        full,
        lcp_ts,
        &|n| is_not_low_priority_image(lg, n),
        None,
    )?;
    let pessimistic = first_paint_graph(lg, full, lcp_ts, &|_| true, Some(&|t| lg.task(t).layout))?;
    let estimate = |s: &Simulation| {
        s.timings
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (NodeId::from_index(i), t)))
            .filter(|&(n, _)| is_not_low_priority_image(lg, n))
            .fold(f64::NEG_INFINITY, |m, (_, t)| m.max(t.end))
    };
    let mut result = compute(sim, lg, optimistic, pessimistic, &estimate)?;
    result.timing = result.timing.max(fcp.timing);
    Ok(result)
}

/// The simulations of Lantern's Interactive and Total Blocking Time metrics, which the engine
/// runs too: only whether they succeed matters here (a failure drops the engine's context).
pub fn interactive_simulations(
    sim: &Simulator,
    lg: &LanternGraph,
    full: &Subgraph,
) -> Result<(), LanternError> {
    let g = &lg.graph;
    let optimistic = full.clone_with(|n| match g.request(n) {
        None => g.end(n) - g.start(n) > 20_000.0,
        Some(r) => {
            let ty = r.resource_type.as_deref();
            ty != Some("Image")
                && (ty == Some("Script") || matches!(r.priority.as_str(), "High" | "VeryHigh"))
        }
    })?;
    sim.simulate(lg, &optimistic)?;
    sim.simulate(lg, full)?;
    Ok(())
}
