//! Lantern's simulator (`simulation/Simulator.js`): replays a (part of a) page dependency graph
//! on a modelled network and CPU. A node starts once everything it depends on is done —
//! requests by their observed start (later for lower priority) as connections allow, tasks one
//! at a time — and time advances to the next node to finish, the in-flight requests sharing
//! the throughput. The engine's iteration order is kept throughout: it decides ties, and the
//! DNS cache is updated as each node's remaining time is estimated.

use super::connection::{ConnectionPool, DnsCache, PoolOptions, TcpConnection};
use super::error::LanternError;
use super::graph::LanternGraph;
use super::network_analyzer::NetworkAnalysis;
use super::subgraph::Subgraph;
use crate::dependency_graph::{
    is_non_network_protocol, DependencyGraph, LanternRequest, NodeId, NodeKind,
};
use crate::units::{js_max, js_min, js_round, ms_to_us, s_to_ms, us_to_ms};

/// Chromium's limit on delayable requests per client.
const DEFAULT_MAXIMUM_CONCURRENT_REQUESTS: f64 = 10.0;
/// A task over 10 s is rarely CPU bound: the estimate stops there (ms).
const DEFAULT_MAXIMUM_CPU_TASK_DURATION: f64 = 10_000.0;
const MAX_ITERATIONS: usize = 100_000;

/// The simulator's settings: the trace engine's "provided" throttling, the network as the
/// trace observed it and the CPU as it ran.
#[derive(Clone, Debug)]
pub struct Simulator {
    pub analysis: NetworkAnalysis,
    max_concurrent_requests: f64,
    cpu_slowdown: f64,
    layout_multiplier: f64,
}

/// When a node ran in a simulation (ms from the simulation's start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeTiming {
    pub start: f64,
    pub end: f64,
}

impl NodeTiming {
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

/// A simulation's result.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// When the last node finished (ms).
    pub time_ms: f64,
    /// Per node of the full graph (by index); `None` for nodes outside the simulated part.
    pub timings: Vec<Option<NodeTiming>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    NotReady,
    Ready,
    InProgress,
    Complete,
}

/// One node's progress (the engine's `SimulatorTimingMap` entry).
#[derive(Clone, Copy)]
struct Progress {
    state: State,
    start: f64,
    end: f64,
    elapsed: f64,
    overshoot: f64,
    bytes: f64,
    estimated: f64,
}

impl Simulator {
    /// `Simulator.createSimulator` with `throttlingMethod: 'provided'`, as the trace engine
    /// sets it up.
    pub fn new(analysis: NetworkAnalysis) -> Result<Self, LanternError> {
        if !analysis.rtt.is_finite() {
            return Err(LanternError::InvalidRtt(analysis.rtt));
        }
        if !analysis.throughput.is_finite() {
            return Err(LanternError::InvalidThroughput(analysis.throughput));
        }
        let saturated =
            TcpConnection::maximum_saturated_connections(analysis.rtt, analysis.throughput);
        let max = js_max(js_min(saturated, DEFAULT_MAXIMUM_CONCURRENT_REQUESTS), 1.0);
        Ok(Simulator {
            analysis,
            max_concurrent_requests: max,
            cpu_slowdown: 1.0,
            layout_multiplier: 1.0,
        })
    }

    /// The latency the simulation assumes (ms).
    pub fn rtt(&self) -> f64 {
        self.analysis.rtt
    }

    /// Replays `sub` (a part of `lg`'s graph) and returns when each node ran.
    pub fn simulate(&self, lg: &LanternGraph, sub: &Subgraph) -> Result<Simulation, LanternError> {
        Run::new(self, lg, sub, &lg.graph.requests)?.run()
    }

    /// Replays `sub` with `requests` in place of the graph's own (the same list, some fields
    /// changed): the insights' "what if" estimates, which the engine makes by editing its
    /// requests for one simulation and restoring them after.
    pub fn simulate_with_requests(
        &self,
        lg: &LanternGraph,
        sub: &Subgraph,
        requests: &[LanternRequest],
    ) -> Result<Simulation, LanternError> {
        debug_assert_eq!(requests.len(), lg.graph.requests.len());
        Run::new(self, lg, sub, requests)?.run()
    }
}

/// The Lantern request of a network node, from `requests` (the graph's or a changed copy).
fn request_of<'r>(
    g: &DependencyGraph,
    requests: &'r [LanternRequest],
    n: NodeId,
) -> Option<&'r LanternRequest> {
    match g.kind(n) {
        NodeKind::Network(l) => Some(&requests[*l]),
        NodeKind::Cpu { .. } => None,
    }
}

/// `computeNodeStartPosition`: the observed start, pushed back by low priority.
fn start_position(g: &DependencyGraph, r: Option<&LanternRequest>, n: NodeId) -> f64 {
    let start = g.start(n);
    match r {
        None => start,
        Some(r) => {
            let penalty = match r.priority.as_str() {
                "VeryHigh" => 0.0,
                "High" => 0.25,
                "Medium" => 0.5,
                "Low" => 1.0,
                "VeryLow" => 2.0,
                _ => 0.0,
            };
            start + ms_to_us(s_to_ms(penalty))
        }
    }
}

/// `isConnectionless`: from the disk cache, or not over the network.
fn is_connectionless(r: Option<&LanternRequest>) -> bool {
    r.is_some_and(|r| {
        r.from_disk_cache
            || is_non_network_protocol(&r.protocol)
            || is_non_network_protocol(&r.scheme)
    })
}

/// One simulation in progress.
struct Run<'a> {
    sim: &'a Simulator,
    lg: &'a LanternGraph,
    g: &'a DependencyGraph,
    /// The graph's requests, or the changed copy a "what if" simulation replays.
    requests: &'a [LanternRequest],
    sub: &'a Subgraph,
    pool: ConnectionPool,
    dns: DnsCache,
    progress: Vec<Progress>,
    /// Per node: its start position, whether it needs no connection, its origin's slot in the
    /// pool (asked at every step for every waiting node: worked out once).
    position: Vec<f64>,
    connectionless: Vec<bool>,
    slot: Vec<Option<usize>>,
    /// Ready to start, by start position (ties in the order they became ready).
    ready: Vec<NodeId>,
    in_progress: Vec<NodeId>,
    network_in_progress: usize,
    cpu_in_progress: usize,
}

impl<'a> Run<'a> {
    fn new(
        sim: &'a Simulator,
        lg: &'a LanternGraph,
        sub: &'a Subgraph,
        requests: &'a [LanternRequest],
    ) -> Result<Self, LanternError> {
        let g = &lg.graph;
        let records: Vec<usize> = sub
            .nodes()
            .into_iter()
            .filter_map(|n| match g.kind(n) {
                NodeKind::Network(l) => Some(*l),
                NodeKind::Cpu { .. } => None,
            })
            .collect();
        let a = &sim.analysis;
        let pool = ConnectionPool::new(
            &records,
            requests,
            &PoolOptions {
                rtt: a.rtt,
                throughput: a.throughput,
                additional_rtt_by_origin: &a.additional_rtt_by_origin,
                server_response_time_by_origin: &a.server_response_time_by_origin,
            },
        )?;
        let blank = Progress {
            state: State::NotReady,
            start: 0.0,
            end: 0.0,
            elapsed: 0.0,
            overshoot: 0.0,
            bytes: 0.0,
            estimated: 0.0,
        };
        let n = g.node_count();
        let ids = (0..n).map(NodeId::from_index);
        let request = |i| request_of(g, requests, i);
        let position = ids
            .clone()
            .map(|i| start_position(g, request(i), i))
            .collect();
        let connectionless = ids.clone().map(|i| is_connectionless(request(i))).collect();
        let slot = ids
            .map(|i| request(i).and_then(|r| pool.slot(&r.origin)))
            .collect();
        Ok(Run {
            sim,
            lg,
            g,
            requests,
            sub,
            position,
            connectionless,
            slot,
            pool,
            dns: DnsCache::new(a.rtt),
            progress: vec![blank; g.node_count()],
            ready: Vec::new(),
            in_progress: Vec::new(),
            network_in_progress: 0,
            cpu_in_progress: 0,
        })
    }

    fn mark_ready(&mut self, n: NodeId) {
        let position = self.position[n.index()];
        let at = self
            .ready
            .iter()
            .position(|&c| self.position[c.index()] > position)
            .unwrap_or(self.ready.len());
        self.ready.insert(at, n);
        self.progress[n.index()].state = State::Ready;
    }

    fn mark_in_progress(&mut self, n: NodeId, time: f64) {
        if let Some(k) = self.ready.iter().position(|&c| c == n) {
            self.ready.remove(k);
        }
        self.in_progress.push(n);
        match self.g.kind(n) {
            NodeKind::Network(_) => self.network_in_progress += 1,
            NodeKind::Cpu { .. } => self.cpu_in_progress += 1,
        }
        let p = &mut self.progress[n.index()];
        p.state = State::InProgress;
        p.start = time;
        p.elapsed = 0.0;
        p.overshoot = 0.0;
        p.bytes = 0.0;
    }

    fn mark_complete(&mut self, n: NodeId, time: f64) {
        self.in_progress.retain(|&c| c != n);
        match self.g.kind(n) {
            NodeKind::Network(_) => self.network_in_progress -= 1,
            NodeKind::Cpu { .. } => self.cpu_in_progress -= 1,
        }
        let p = &mut self.progress[n.index()];
        p.state = State::Complete;
        p.end = time;
        for &d in self.sub.dependents(n) {
            let done = self
                .sub
                .dependencies(d)
                .iter()
                .all(|&x| self.progress[x.index()].state == State::Complete);
            if done {
                self.mark_ready(d);
            }
        }
    }

    /// `startNodeIfPossible`.
    fn start_if_possible(&mut self, n: NodeId, time: f64) -> Result<(), LanternError> {
        match self.g.kind(n) {
            NodeKind::Cpu { .. } => {
                if self.cpu_in_progress == 0 {
                    self.mark_in_progress(n, time);
                }
                return Ok(());
            }
            NodeKind::Network(l) => {
                let l = *l;
                if !self.connectionless[n.index()] {
                    if self.network_in_progress as f64 >= self.sim.max_concurrent_requests {
                        return Ok(());
                    }
                    if self.pool.acquire(l, self.slot[n.index()])?.is_none() {
                        return Ok(());
                    }
                }
            }
        }
        self.mark_in_progress(n, time);
        Ok(())
    }

    /// `updateNetworkCapacity`: the in-flight requests share the throughput.
    fn update_network_capacity(&mut self) {
        if self.network_in_progress == 0 {
            return;
        }
        let share = self.sim.analysis.throughput / self.network_in_progress as f64;
        for k in 0..self.pool.in_use().len() {
            let c = self.pool.in_use()[k];
            self.pool.connections[c].throughput = share;
        }
    }

    /// The node's request, its Lantern index.
    fn lantern(&self, n: NodeId) -> usize {
        match self.g.kind(n) {
            NodeKind::Network(l) => *l,
            NodeKind::Cpu { .. } => unreachable!("only requests download"),
        }
    }

    /// `estimateTimeRemaining`.
    fn estimate(&mut self, n: NodeId) -> Result<f64, LanternError> {
        let p = self.progress[n.index()];
        let estimated = match self.g.kind(n) {
            NodeKind::Cpu { .. } => {
                let layout = self.did_layout(n);
                let multiplier = if layout {
                    self.sim.layout_multiplier
                } else {
                    self.sim.cpu_slowdown
                };
                let duration = self.g.end(n) - self.g.start(n);
                let total = js_min(
                    js_round(us_to_ms(duration) * multiplier),
                    DEFAULT_MAXIMUM_CPU_TASK_DURATION,
                );
                total - p.elapsed
            }
            NodeKind::Network(l) => {
                let r = &self.requests[*l];
                let elapsed = if r.from_disk_cache {
                    let mb = r.resource_size / 1024.0 / 1024.0;
                    8.0 + 20.0 * mb - p.elapsed
                } else if is_non_network_protocol(&r.protocol) || is_non_network_protocol(&r.scheme)
                {
                    let mb = r.resource_size / 1024.0 / 1024.0;
                    2.0 + 10.0 * mb - p.elapsed
                } else {
                    let c = self.pool.active(*l)?;
                    let dns = self.dns.time_until_resolution(&r.host, p.start);
                    self.pool.connections[c]
                        .simulate_download_until(
                            r.transfer_size - p.bytes,
                            p.elapsed,
                            f64::INFINITY,
                            dns,
                        )
                        .time_elapsed
                };
                elapsed + p.overshoot
            }
        };
        self.progress[n.index()].estimated = estimated;
        Ok(estimated)
    }

    fn did_layout(&self, n: NodeId) -> bool {
        self.lg.task(n).layout
    }

    /// `updateProgressMadeInTimePeriod`.
    fn update_progress(&mut self, n: NodeId, period: f64, total: f64) -> Result<(), LanternError> {
        let p = self.progress[n.index()];
        let finished = p.estimated == period;
        let is_cpu = matches!(self.g.kind(n), NodeKind::Cpu { .. });
        if is_cpu || self.connectionless[n.index()] {
            if finished {
                self.mark_complete(n, total);
            } else {
                self.progress[n.index()].elapsed += period;
            }
            return Ok(());
        }
        let l = self.lantern(n);
        let r = &self.requests[l];
        let c = self.pool.active(l)?;
        let dns = self.dns.time_until_resolution(&r.host, p.start);
        let d = self.pool.connections[c].simulate_download_until(
            r.transfer_size - p.bytes,
            p.elapsed,
            period - p.overshoot,
            dns,
        );
        let conn = &mut self.pool.connections[c];
        conn.set_congestion_window(d.congestion_window);
        conn.set_h2_overflow_bytes(d.extra_bytes_downloaded);
        if finished {
            conn.set_warmed();
            self.pool.release(l);
            self.mark_complete(n, total);
        } else {
            let p = &mut self.progress[n.index()];
            p.elapsed += d.time_elapsed;
            p.overshoot += d.time_elapsed - period;
            p.bytes += d.bytes_downloaded;
        }
        Ok(())
    }

    fn run(mut self) -> Result<Simulation, LanternError> {
        let mut total = 0.0;
        let mut iteration = 0;
        self.mark_ready(self.sub.root());
        while !self.ready.is_empty() || !self.in_progress.is_empty() {
            for n in self.ready.clone() {
                self.start_if_possible(n, total)?;
            }
            if self.in_progress.is_empty() {
                return Err(LanternError::Simulation("Failed to start a node"));
            }
            self.update_network_capacity();
            let mut minimum = f64::INFINITY;
            for n in self.in_progress.clone() {
                minimum = js_min(minimum, self.estimate(n)?);
            }
            total += minimum;
            if !minimum.is_finite() || iteration > MAX_ITERATIONS {
                return Err(LanternError::Simulation(
                    "Simulation failed, depth exceeded",
                ));
            }
            iteration += 1;
            for n in self.in_progress.clone() {
                self.update_progress(n, minimum, total)?;
            }
        }
        let timings =
            self.progress
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    (self.sub.contains(NodeId::from_index(i)) && p.state == State::Complete)
                        .then_some(NodeTiming {
                            start: p.start,
                            end: p.end,
                        })
                })
                .collect();
        Ok(Simulation {
            time_ms: total,
            timings,
        })
    }
}
