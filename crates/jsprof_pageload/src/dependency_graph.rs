//! Lantern's page dependency graph of a navigation, as DevTools' trace engine builds it
//! (`LanternComputationData.createGraph` and `lantern/graph/PageDependencyGraph.js`): a node per
//! request (a redirected request is one node per hop, from [`super::lantern_requests`]), a node
//! per main-thread task (`RunTask`), and the edges that say what waited for what — a request on
//! its initiator, a script's evaluation on its download, a timer on the task that set it, a
//! script-issued request on the task that issued it — with short tasks pruned away. The network
//! dependency tree ([`super::network_tree`]) walks it.
//!
//! The simulation the engine runs on the graph (the replay behind its FCP/LCP estimates, the
//! render-blocking savings and the preconnect candidates) is [`super::lantern`]; the engine
//! drops the graph when that context fails. Of the failures, those the trace decides before
//! any simulation are checked here (no FCP, no request to estimate throughput from, a trace too
//! old); a missing LCP (found after the FCP simulations, as the engine finds it) and the
//! simulator's failures there.
//!
//! What is left out, and why: Lantern's `fromWorker` also counts threads whose `thread_name`
//! metadata falls inside the navigation (metadata events carry `ts: 0`, so in practice none);
//! only `TracingSessionIdForWorker`'s threads are counted here. Main-thread events are kept by
//! the names Lantern reads, in file order; an unrelated event out of time order, which would end
//! the engine's collection of a task's children early, is not seen.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use jsprof_profile::page_events::{GraphEvent, GraphEventName, PageEvents};
use jsprof_profile::TraceFile;

pub use super::graph_error::GraphError;
pub use super::lantern_requests::LanternRequest;
use super::lantern_requests::{lantern_requests, network_initiators};
use super::network::Request;
use super::vitals::NavigationVitals;
use crate::units::{ms_to_us, ns_to_us};

/// A node of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    fn i(self) -> usize {
        self.0 as usize
    }

    /// The node's index, below [`DependencyGraph::node_count`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The node of index `i` (below [`DependencyGraph::node_count`]).
    pub fn from_index(i: usize) -> NodeId {
        NodeId(i as u32)
    }
}

/// What a node stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// Index into [`DependencyGraph::requests`].
    Network(usize),
    /// A main-thread task: its `RunTask` and the events in it (indices into the trace's
    /// [`PageEvents::graph_events`](jsprof_profile::page_events::PageEvents::graph_events)).
    Cpu { task: usize, events: Vec<usize> },
}

/// The page dependency graph of one navigation.
#[derive(Clone, Debug)]
pub struct DependencyGraph {
    pub requests: Vec<LanternRequest>,
    kinds: Vec<NodeKind>,
    /// µs.
    start: Vec<f64>,
    end: Vec<f64>,
    dependencies: Vec<Vec<NodeId>>,
    dependents: Vec<Vec<NodeId>>,
    /// Every (node, dependency) edge: whether one exists in O(1) (the lists keep the order the
    /// engine's traversals follow; pruning a chain of timer tasks moves thousands of edges).
    edges: HashSet<(NodeId, NodeId)>,
    root: NodeId,
    /// The main document's node (the last document request at the end of the root's
    /// redirects): the simulations' first-paint graphs always keep it.
    main_document: NodeId,
}

/// Strips a URL's fragment (Lantern's `equalWithExcludedFragments`).
fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// Lantern's `isNonNetworkProtocol` of a protocol or scheme.
pub(crate) fn is_non_network_protocol(protocol: &str) -> bool {
    let scheme = protocol.split(':').next().unwrap_or(protocol);
    matches!(
        scheme,
        "blob" | "data" | "intent" | "file" | "filesystem" | "chrome-extension"
    )
}

/// The graph's builder: the nodes and the engine's edge operations, in its order (the order of
/// each node's dependents decides the order of every traversal).
impl DependencyGraph {
    fn add_node(&mut self, kind: NodeKind, start: f64, end: f64) -> NodeId {
        self.kinds.push(kind);
        self.start.push(start);
        self.end.push(end);
        self.dependencies.push(Vec::new());
        self.dependents.push(Vec::new());
        NodeId((self.kinds.len() - 1) as u32)
    }

    /// `node.addDependency(dep)`.
    fn add_dependency(&mut self, node: NodeId, dep: NodeId) -> Result<(), GraphError> {
        if node == dep {
            return Err(GraphError::SelfDependency);
        }
        if !self.edges.insert((node, dep)) {
            return Ok(());
        }
        self.dependents[dep.i()].push(node);
        self.dependencies[node.i()].push(dep);
        Ok(())
    }

    /// `node.removeDependency(dep)`.
    fn remove_dependency(&mut self, node: NodeId, dep: NodeId) {
        if !self.edges.remove(&(node, dep)) {
            return;
        }
        if let Some(j) = self.dependents[dep.i()].iter().position(|&d| d == node) {
            self.dependents[dep.i()].remove(j);
        }
        if let Some(k) = self.dependencies[node.i()].iter().position(|&d| d == dep) {
            self.dependencies[node.i()].remove(k);
        }
    }

    /// `node.isDependentOn(other)`: whether `other` is `node` or among its dependencies,
    /// transitively.
    fn is_dependent_on(&self, node: NodeId, other: NodeId, seen: &mut Vec<bool>) -> bool {
        seen.clear();
        seen.resize(self.kinds.len(), false);
        let mut queue = std::collections::VecDeque::from([node]);
        seen[node.i()] = true;
        while let Some(n) = queue.pop_front() {
            if n == other {
                return true;
            }
            for &d in &self.dependencies[n.i()] {
                if !seen[d.i()] {
                    seen[d.i()] = true;
                    queue.push_back(d);
                }
            }
        }
        false
    }

    /// `node.canDependOn(other)`.
    fn can_depend_on(&self, node: NodeId, other: NodeId) -> bool {
        self.start[other.i()] <= self.start[node.i()]
    }

    /// `PageDependencyGraph.pruneNode`.
    fn prune(&mut self, node: NodeId) -> Result<(), GraphError> {
        // The node loses every dependency, first to last: its own list empties at once.
        let dependencies = std::mem::take(&mut self.dependencies[node.i()]);
        let dependents = self.dependents[node.i()].clone();
        for &dep in &dependencies {
            self.edges.remove(&(node, dep));
            if let Some(j) = self.dependents[dep.i()].iter().position(|&d| d == node) {
                self.dependents[dep.i()].remove(j);
            }
            for &d in &dependents {
                self.add_dependency(d, dep)?;
            }
        }
        for &d in &dependents {
            self.remove_dependency(d, node);
        }
        Ok(())
    }

    /// `BaseNode.findCycle` in one direction, as the engine walks it (a depth-first walk that
    /// reports a node met again while on the current path).
    fn has_cycle(&self, from: NodeId, dependents: bool) -> bool {
        let n = self.kinds.len();
        let mut visited = vec![false; n];
        let mut on_path = vec![false; n];
        let mut in_stack = vec![false; n];
        let mut depth_added = vec![0usize; n];
        let mut path: Vec<NodeId> = Vec::new();
        let mut to_visit = vec![from];
        in_stack[from.i()] = true;
        while let Some(cur) = to_visit.pop() {
            in_stack[cur.i()] = false;
            if on_path[cur.i()] {
                return true;
            }
            if visited[cur.i()] {
                continue;
            }
            while path.len() > depth_added[cur.i()] {
                if let Some(p) = path.pop() {
                    on_path[p.i()] = false;
                }
            }
            visited[cur.i()] = true;
            path.push(cur);
            on_path[cur.i()] = true;
            let next = match dependents {
                true => &self.dependents[cur.i()],
                false => &self.dependencies[cur.i()],
            };
            for &nx in next {
                if in_stack[nx.i()] {
                    continue;
                }
                to_visit.push(nx);
                in_stack[nx.i()] = true;
                depth_added[nx.i()] = path.len();
            }
        }
        false
    }

    pub fn node_count(&self) -> usize {
        self.kinds.len()
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    pub fn main_document(&self) -> NodeId {
        self.main_document
    }

    /// The node's start and end (µs): a request's renderer start and network end, a task's
    /// start and (corrected) end.
    pub fn start(&self, n: NodeId) -> f64 {
        self.start[n.i()]
    }

    pub fn end(&self, n: NodeId) -> f64 {
        self.end[n.i()]
    }

    pub fn kind(&self, n: NodeId) -> &NodeKind {
        &self.kinds[n.i()]
    }

    pub fn dependencies(&self, n: NodeId) -> &[NodeId] {
        &self.dependencies[n.i()]
    }

    pub fn dependents(&self, n: NodeId) -> &[NodeId] {
        &self.dependents[n.i()]
    }

    /// The Lantern request of a network node.
    pub fn request(&self, n: NodeId) -> Option<&LanternRequest> {
        match self.kinds[n.i()] {
            NodeKind::Network(r) => Some(&self.requests[r]),
            NodeKind::Cpu { .. } => None,
        }
    }

    /// `traverse` from the root: breadth first, each node once. `visit` gets the node and the
    /// node each node was reached from (so its path back to the root is `node`, `via[node]`,
    /// `via[via[node]]`, …); `next` chooses where to go from a node.
    pub fn traverse(
        &self,
        mut visit: impl FnMut(NodeId, &[Option<NodeId>]),
        mut next: impl FnMut(NodeId) -> Vec<NodeId>,
    ) {
        let mut visited = vec![false; self.kinds.len()];
        let mut via: Vec<Option<NodeId>> = vec![None; self.kinds.len()];
        visited[self.root.i()] = true;
        let mut queue = std::collections::VecDeque::from([self.root]);
        while let Some(node) = queue.pop_front() {
            visit(node, &via);
            for nx in next(node) {
                if visited[nx.i()] {
                    continue;
                }
                visited[nx.i()] = true;
                via[nx.i()] = Some(node);
                queue.push_back(nx);
            }
        }
    }
}

/// The main-thread task Lantern makes a CPU node of (`getCPUNodes`).
struct Task {
    /// Index of the `RunTask` event.
    task: usize,
    start: f64,
    end: f64,
    events: Vec<usize>,
}

fn is_task(e: &GraphEvent) -> bool {
    e.name == GraphEventName::RunTask && e.dur != 0
}

/// `getCPUNodes` over the main thread's events (indices into `all`).
fn tasks(all: &[GraphEvent], events: &[usize]) -> Vec<Task> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let task = events[i];
        let e = &all[task];
        i += 1;
        if !is_task(e) {
            continue;
        }
        let mut corrected = None;
        let mut children = Vec::new();
        let end = e.at.ts + e.dur;
        while i < events.len() && all[events[i]].at.ts < end {
            let c = &all[events[i]];
            if is_task(c) {
                corrected = Some(ns_to_us(c.at.ts) - 1.0);
                break;
            }
            children.push(events[i]);
            i += 1;
        }
        out.push(Task {
            task,
            start: ns_to_us(e.at.ts),
            end: corrected.unwrap_or(ns_to_us(e.at.ts) + ns_to_us(e.dur)),
            events: children,
        });
    }
    out
}

/// The Lantern graph of `nav` (a main-frame navigation of `trace`), or why the engine has none.
/// `requests` are the story's, `trace_end` the trace's end (µs), `main_pids` the processes of
/// the main frame's navigations.
pub fn dependency_graph(
    trace: &TraceFile,
    requests: &[Request],
    nav: &NavigationVitals,
    trace_end: f64,
    main_pids: &[u64],
) -> Result<DependencyGraph, GraphError> {
    let page = &trace.page;
    let (Some(nav_ts), Some(nav_id)) = (nav.ts, nav.navigation_id.as_deref()) else {
        return Err(GraphError::NoNavigation);
    };
    let mut starts: Vec<f64> = page
        .navigations
        .iter()
        .filter(|n| n.frame == nav.frame)
        .map(|n| ns_to_us(n.at.ts))
        .collect();
    starts.sort_by(f64::total_cmp);
    if !page.navigations.iter().any(|n| n.navigation_id == nav_id) {
        return Err(GraphError::NoNavigation);
    }
    let window_end = starts
        .iter()
        .copied()
        .find(|&s| s > nav_ts)
        .unwrap_or(f64::INFINITY);
    if requests.is_empty() {
        return Err(GraphError::NoRequests);
    }
    let mut lantern = lantern_requests(trace, requests, trace_end, nav_ts, window_end)?;
    if lantern.is_empty() {
        return Err(GraphError::NoRequests);
    }

    let mut g = DependencyGraph {
        requests: Vec::new(),
        kinds: Vec::new(),
        start: Vec::new(),
        end: Vec::new(),
        dependencies: Vec::new(),
        dependents: Vec::new(),
        edges: HashSet::default(),
        root: NodeId(0),
        main_document: NodeId(0),
    };

    // getNetworkNodeOutput.
    let workers = &page.worker_threads;
    let mut ids: Vec<String> = lantern.iter().map(|l| l.request_id.clone()).collect();
    let mut node_of: Vec<Option<NodeId>> = vec![None; lantern.len()];
    let mut by_id: HashMap<String, NodeId> = HashMap::default();
    let mut by_url: HashMap<&str, Vec<NodeId>> = HashMap::default();
    let mut frame_doc: HashMap<&str, Option<NodeId>> = HashMap::default();
    let mut net_nodes: Vec<NodeId> = Vec::new();
    for (li, l) in lantern.iter().enumerate() {
        let r = &requests[l.raw];
        if r.mime_type.starts_with("video") || workers.contains(&r.tid) {
            continue;
        }
        while by_id.contains_key(&ids[li]) {
            ids[li].push_str(":duplicate");
        }
        let node = g.add_node(
            NodeKind::Network(li),
            ms_to_us(l.renderer_start_ms),
            ms_to_us(l.network_end_ms),
        );
        node_of[li] = Some(node);
        net_nodes.push(node);
        by_url.entry(l.url.as_str()).or_default().push(node);
        by_id.insert(ids[li].clone(), node);
        if !r.frame.is_empty()
            && l.resource_type.as_deref() == Some("Document")
            && l.document_url == l.url
        {
            let value = match frame_doc.contains_key(r.frame.as_str()) {
                true => None,
                false => Some(node),
            };
            frame_doc.insert(r.frame.as_str(), value);
        }
    }

    // collectMainThreadEvents + getCPUNodes.
    let main_threads: Vec<(u64, u64)> = main_pids
        .iter()
        .filter_map(|&pid| {
            ["CrRendererMain", "CrBrowserMain"].iter().find_map(|name| {
                trace
                    .threads
                    .iter()
                    .find(|t| t.pid == pid && t.name == *name)
                    .map(|t| (pid, t.tid))
            })
        })
        .collect();
    let events: Vec<usize> = page
        .graph_events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            let t = ns_to_us(e.at.ts);
            t >= nav_ts && t < window_end && main_threads.contains(&(e.at.pid, e.at.tid))
        })
        .map(|(i, _)| i)
        .collect();
    if !events
        .iter()
        .any(|&i| page.graph_events[i].name == GraphEventName::RunTask)
    {
        return Err(GraphError::NoTopLevelEvents);
    }
    let tasks = tasks(&page.graph_events, &events);

    // The root (the first request) and the main document (the last document at the end of
    // the first request's redirects).
    let requested = without_fragment(&lantern[0].url);
    let root_req = lantern
        .iter()
        .position(|l| without_fragment(&l.url) == requested)
        .ok_or(GraphError::RootNotFound)?;
    let root = node_of[root_req].ok_or(GraphError::RootNotFound)?;
    g.root = root;
    let mut main = 0;
    while let Some(d) = lantern[main].redirect_destination {
        main = d;
    }
    let main_url = without_fragment(&lantern[main].url);
    g.main_document = lantern
        .iter()
        .rposition(|l| {
            l.resource_type.as_deref() == Some("Document")
                && !requests[l.raw].failed
                && without_fragment(&l.url) == main_url
        })
        .and_then(|m| node_of[m])
        .ok_or(GraphError::MainDocumentNotFound)?;

    // linkNetworkNodes.
    let mut seen = Vec::new();
    for &node in &net_nodes {
        let NodeKind::Network(li) = g.kinds[node.i()] else {
            continue;
        };
        let l = &lantern[li];
        let direct_req = l.initiator_request.unwrap_or(root_req);
        let direct = by_id.get(&ids[direct_req]).copied().unwrap_or(root);
        let can_depend_on_initiator =
            !g.is_dependent_on(direct, node, &mut seen) && g.can_depend_on(node, direct);
        let initiators = network_initiators(&requests[l.raw]);
        if initiators.is_empty() && can_depend_on_initiator {
            g.add_dependency(node, direct)?;
        }
        for url in initiators {
            let parents = by_url.get(url).map_or(&[][..], Vec::as_slice);
            if parents.len() == 1
                && g.start[parents[0].i()] <= g.start[node.i()]
                && !g.is_dependent_on(parents[0], node, &mut seen)
            {
                g.add_dependency(node, parents[0])?;
            } else if can_depend_on_initiator {
                g.add_dependency(node, direct)?;
            }
        }
        if node != root && g.dependencies[node.i()].is_empty() && g.can_depend_on(node, root) {
            g.add_dependency(node, root)?;
        }
        if l.redirects.is_empty() {
            continue;
        }
        let chain: Vec<usize> = l.redirects.iter().copied().chain([li]).collect();
        for k in 1..chain.len() {
            let redirect = by_id.get(&ids[chain[k - 1]]).copied();
            let actual = by_id.get(&ids[chain[k]]).copied();
            if let (Some(actual), Some(redirect)) = (actual, redirect) {
                g.add_dependency(actual, redirect)?;
            }
        }
    }

    // linkCPUNodes.
    let cpu_nodes: Vec<NodeId> = tasks
        .into_iter()
        .map(|t| {
            g.add_node(
                NodeKind::Cpu {
                    task: t.task,
                    events: t.events,
                },
                t.start,
                t.end,
            )
        })
        .collect();
    let index = NetworkIndex {
        lantern: &lantern,
        by_id: &by_id,
        by_url: &by_url,
        frame_doc: &frame_doc,
    };
    link_cpu_nodes(&mut g, page, &index, &cpu_nodes)?;
    prune_short_tasks(&mut g, page, &cpu_nodes)?;
    if g.has_cycle(root, true) || g.has_cycle(root, false) {
        return Err(GraphError::Cycle);
    }

    // What else makes the engine give up on Lantern for this navigation.
    if nav.fcp.is_none() {
        return Err(GraphError::MissingFcp);
    }
    let has_throughput = lantern.iter().any(|l| {
        let r = &requests[l.raw];
        !l.url.starts_with("data:")
            && !r.failed
            && r.finished
            && l.status <= 300
            && l.transfer_size != 0.0
    });
    if !has_throughput {
        return Err(GraphError::NoThroughput);
    }
    // The engine renames duplicate request ids on its requests.
    for (l, id) in lantern.iter_mut().zip(ids) {
        l.request_id = id;
    }
    g.requests = lantern;
    Ok(g)
}

/// What `getNetworkNodeOutput` indexed: the Lantern requests, the network nodes by request id
/// and by URL, and each frame's document node (`None` when ambiguous).
struct NetworkIndex<'a> {
    lantern: &'a [LanternRequest],
    by_id: &'a HashMap<String, NodeId>,
    by_url: &'a HashMap<&'a str, Vec<NodeId>>,
    frame_doc: &'a HashMap<&'a str, Option<NodeId>>,
}

/// `linkCPUNodes`' first pass: the edges each task's events imply, and the root for a task
/// that depends on nothing.
fn link_cpu_nodes(
    g: &mut DependencyGraph,
    page: &PageEvents,
    index: &NetworkIndex,
    cpu_nodes: &[NodeId],
) -> Result<(), GraphError> {
    let (by_id, by_url, frame_doc, lantern) =
        (index.by_id, index.by_url, index.frame_doc, index.lantern);
    let root = g.root;
    let mut timers: HashMap<&str, NodeId> = HashMap::default();
    for &node in cpu_nodes {
        let NodeKind::Cpu { events, .. } = g.kinds[node.i()].clone() else {
            continue;
        };
        for &ei in &events {
            let e = &page.graph_events[ei];
            let Some(data) = e.data.as_deref() else {
                continue;
            };
            let stack = data.stack.iter().filter(|u| !u.is_empty());
            match e.name {
                GraphEventName::TimerInstall => {
                    if let Some(id) = data.timer_id.as_deref() {
                        timers.insert(id, node);
                    }
                    for url in stack {
                        depend_on_url(g, by_url, node, url)?;
                    }
                }
                GraphEventName::TimerFire => {
                    let installer = data.timer_id.as_deref().and_then(|id| timers.get(id));
                    if let Some(&installer) = installer {
                        if g.end[installer.i()] <= g.start[node.i()] {
                            g.add_dependency(node, installer)?;
                        }
                    }
                }
                GraphEventName::InvalidateLayout | GraphEventName::ScheduleStyleRecalculation => {
                    depend_on_frame(g, frame_doc, node, data.frame.as_deref())?;
                    for url in stack {
                        depend_on_url(g, by_url, node, url)?;
                    }
                }
                GraphEventName::EvaluateScript => {
                    depend_on_frame(g, frame_doc, node, data.frame.as_deref())?;
                    depend_on_url(g, by_url, node, data.url.as_deref().unwrap_or(""))?;
                    for url in stack {
                        depend_on_url(g, by_url, node, url)?;
                    }
                }
                GraphEventName::XhrReadyStateChange => {
                    if data.ready_state != Some(4) {
                        continue;
                    }
                    depend_on_url(g, by_url, node, data.url.as_deref().unwrap_or(""))?;
                    for url in stack {
                        depend_on_url(g, by_url, node, url)?;
                    }
                }
                GraphEventName::FunctionCall
                | GraphEventName::V8Compile
                | GraphEventName::ParseAuthorStyleSheet => {
                    depend_on_frame(g, frame_doc, node, data.frame.as_deref())?;
                    depend_on_url(g, by_url, node, data.url.as_deref().unwrap_or(""))?;
                }
                GraphEventName::ResourceSendRequest => {
                    depend_on_frame(g, frame_doc, node, data.frame.as_deref())?;
                    if let Some(&net) = data.request_id.as_ref().and_then(|id| by_id.get(id)) {
                        let NodeKind::Network(li) = g.kinds[net.i()] else {
                            unreachable!("request ids name network nodes");
                        };
                        let l = &lantern[li];
                        let ty = l.resource_type.as_deref().or_else(|| {
                            l.redirect_destination
                                .and_then(|d| lantern[d].resource_type.as_deref())
                        });
                        if g.start[net.i()] > g.start[node.i()]
                            && matches!(ty, Some("XHR" | "Fetch" | "Script"))
                        {
                            g.add_dependency(net, node)?;
                        }
                    }
                    for url in stack {
                        depend_on_url(g, by_url, node, url)?;
                    }
                }
                _ => {}
            }
        }
        if g.dependencies[node.i()].is_empty() && g.can_depend_on(node, root) {
            g.add_dependency(node, root)?;
        }
    }
    Ok(())
}

/// `linkCPUNodes`' second pass: short tasks (under 10 ms, but the first layout, paint and HTML
/// parse) that are not highly connected leave the graph, their edges rewired past them.
fn prune_short_tasks(
    g: &mut DependencyGraph,
    page: &PageEvents,
    cpu_nodes: &[NodeId],
) -> Result<(), GraphError> {
    // Prune short tasks, keeping the first layout, paint and parse.
    const SIGNIFICANT_DUR: f64 = 10_000.0;
    let (mut layout, mut paint, mut parse) = (false, false, false);
    for &node in cpu_nodes {
        let NodeKind::Cpu { events, .. } = &g.kinds[node.i()] else {
            continue;
        };
        let has = |name| events.iter().any(|&e| page.graph_events[e].name == name);
        let mut first = false;
        if !layout && has(GraphEventName::Layout) {
            (first, layout) = (true, true);
        }
        if !paint && has(GraphEventName::Paint) {
            (first, paint) = (true, true);
        }
        if !parse && has(GraphEventName::ParseHtml) {
            (first, parse) = (true, true);
        }
        if first || g.end[node.i()] - g.start[node.i()] >= SIGNIFICANT_DUR {
            continue;
        }
        if g.dependencies[node.i()].len() == 1 || g.dependents[node.i()].len() <= 1 {
            g.prune(node)?;
        }
    }
    Ok(())
}

/// `addDependencyOnUrl`: the task depends on the request for `url` that ended closest before it
/// (up to 100 ms after its start: a script may run before its download is done).
fn depend_on_url(
    g: &mut DependencyGraph,
    by_url: &HashMap<&str, Vec<NodeId>>,
    node: NodeId,
    url: &str,
) -> Result<(), GraphError> {
    if url.is_empty() {
        return Ok(());
    }
    let mut best: Option<NodeId> = None;
    let mut min = f64::INFINITY;
    for &c in by_url.get(url).map_or(&[][..], Vec::as_slice) {
        if g.start[node.i()] <= g.start[c.i()] {
            return Ok(());
        }
        let distance = g.start[node.i()] - g.end[c.i()];
        if distance >= -100_000.0 && distance < min {
            best = Some(c);
            min = distance;
        }
    }
    match best {
        Some(b) => g.add_dependency(node, b),
        None => Ok(()),
    }
}

/// `addDependencyOnFrame`: the task depends on its frame's document request.
fn depend_on_frame(
    g: &mut DependencyGraph,
    frame_doc: &HashMap<&str, Option<NodeId>>,
    node: NodeId,
    frame: Option<&str>,
) -> Result<(), GraphError> {
    let Some(Some(net)) = frame
        .filter(|f| !f.is_empty())
        .and_then(|f| frame_doc.get(f))
    else {
        return Ok(());
    };
    if g.start[net.i()] >= g.start[node.i()] {
        return Ok(());
    }
    g.add_dependency(node, *net)
}

/// The node's id as the engine names it (the request id, or `tid.ts` for a task): what the tests
/// here and the simulator's match nodes against Lantern's dumps by.
#[cfg(test)]
pub(crate) fn node_id(trace: &TraceFile, g: &DependencyGraph, n: NodeId) -> String {
    match g.kind(n) {
        NodeKind::Network(l) => g.requests[*l].request_id.clone(),
        NodeKind::Cpu { task, .. } => {
            let e = &trace.page.graph_events[*task];
            format!("{}.{}", e.at.tid, ns_to_us(e.at.ts))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node and edge of the graph, in the engine's order, against Lantern's own graph of
    /// the recorded page loads (`tools/oracle/lantern-oracle.mjs`).
    #[test]
    fn graphs_match_lanterns_on_the_recorded_page_loads() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/trace");
        let read = |name: &str| -> Vec<u8> {
            let mut out = Vec::new();
            let f = std::fs::File::open(dir.join(name)).unwrap();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(f), &mut out).unwrap();
            out
        };
        for name in ["pageload", "pageload-shifts", "pageload-bgimage"] {
            let trace =
                jsprof_profile::read_trace(&read(&format!("{name}.trace.json.gz"))[..]).unwrap();
            let want: serde_json::Value =
                serde_json::from_slice(&read(&format!("{name}.trace.lantern.json.gz"))).unwrap();
            let story = crate::page_story(&trace);
            let main_pids: Vec<u64> = trace
                .page
                .navigations
                .iter()
                .filter(|n| n.frame == story.vitals.main_frame)
                .map(|n| n.at.pid)
                .collect();
            let graphs: Vec<DependencyGraph> = story
                .vitals
                .navigations
                .iter()
                .filter(|n| n.ts.is_some())
                .map(|nav| {
                    dependency_graph(&trace, &story.requests, nav, story.bounds.end, &main_pids)
                        .unwrap()
                })
                .collect();
            let want_graphs = want["graphs"].as_array().unwrap();
            assert_eq!(graphs.len(), want_graphs.len(), "{name}: graphs");
            for (g, w) in graphs.iter().zip(want_graphs) {
                let mut ours = Vec::new();
                g.traverse(
                    |n, _| {
                        let deps: Vec<String> = g
                            .dependencies(n)
                            .iter()
                            .map(|&d| node_id(&trace, g, d))
                            .collect();
                        let url = g.request(n).map(|r| r.url.clone());
                        ours.push((
                            node_id(&trace, g, n),
                            url,
                            g.start[n.i()],
                            g.end[n.i()],
                            deps,
                        ));
                    },
                    |n| g.dependents(n).to_vec(),
                );
                let nodes = w["nodes"].as_array().unwrap();
                let ids: Vec<&str> = ours.iter().map(|o| o.0.as_str()).collect();
                let want_ids: Vec<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
                assert_eq!(ids, want_ids, "{name}: nodes in traversal order");
                for (o, n) in ours.iter().zip(nodes) {
                    let at = format!("{name} node {}", o.0);
                    assert_eq!(o.1.as_deref(), n["url"].as_str(), "{at} url");
                    assert!(
                        (o.2 - n["start_us"].as_f64().unwrap()).abs() < 1e-3,
                        "{at} start"
                    );
                    assert!(
                        (o.3 - n["end_us"].as_f64().unwrap()).abs() < 1e-3,
                        "{at} end"
                    );
                    let want_deps: Vec<&str> = n["dependencies"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_str().unwrap())
                        .collect();
                    assert_eq!(o.4, want_deps, "{at} dependencies");
                }
            }
        }
    }

    #[test]
    fn non_network_protocols_are_lanterns() {
        for (protocol, non_network) in [
            ("data", true),
            ("blob:", true),
            ("h2", false),
            ("http/1.1", false),
        ] {
            assert_eq!(is_non_network_protocol(protocol), non_network, "{protocol}");
        }
    }
}
