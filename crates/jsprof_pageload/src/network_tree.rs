//! The network dependency tree insight (critical request chains), by the rules of DevTools'
//! trace engine (`insights/NetworkDependencyTree.js`): walk the navigation's Lantern graph
//! ([`super::dependency_graph`]) in dependency order, keep each critical request whose
//! ancestors are all critical, and grow a tree of the chains from the root request; the
//! longest chain (from the first request's start to the last one's end) is the max critical
//! path latency, and any chain of two requests or more fails the insight. Also the origins the
//! page preconnected to (`<link rel=preconnect>` and the document's `Link` headers) and whether
//! any request used them.
//!
//! The preconnect *candidates* — origins the LCP needed, reached late over a fresh connection,
//! with the time a preconnect would have saved — come from the Lantern context
//! ([`super::lantern`]): its round trip per origin and its pessimistic LCP graph. One
//! difference from the engine: a request's initiator is the trace's (`initiator.url` or the
//! payload stack's top frame, a stylesheet trusted as the engine trusts it); the engine also
//! follows an async JS stack it rebuilds from the CPU samples to the script that scheduled the
//! request, which is not done here.

use std::cell::Cell;
use std::sync::OnceLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use jsprof_profile::TraceFile;

use super::dependency_graph::{is_non_network_protocol, DependencyGraph, NodeKind};
use super::insight_common::{in_bounds, State};
use super::lantern::{LanternContext, LanternError};
use super::network::Request;
use super::vitals::NavigationVitals;
use crate::units::{ms_to_us, us_to_ms};

/// One request of the tree, in the order the engine lists them (depth first, each request's
/// children by their longest chain, longest first).
#[derive(Clone, Debug, PartialEq)]
pub struct ChainNode {
    /// Index into the story's requests (a redirect hop shows as its request).
    pub request: usize,
    pub depth: usize,
    /// Index into [`NetworkDependencyTree::chain`] of the request this one waited for.
    pub parent: Option<usize>,
    /// From the chain's first request's start to this one's end (µs).
    pub time_from_initial: f64,
    /// On the longest chain.
    pub is_longest: bool,
}

/// Where a preconnect came from; serialized as the engine names it ([`Self::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PreconnectSource {
    /// `<link rel=preconnect>` (a `LinkPreconnect` event).
    #[serde(rename = "DOM")]
    Dom,
    /// The document's `Link` response header.
    ResponseHeader,
}

impl PreconnectSource {
    /// The engine's name.
    pub fn as_str(self) -> &'static str {
        match self {
            PreconnectSource::Dom => "DOM",
            PreconnectSource::ResponseHeader => "ResponseHeader",
        }
    }
}

impl std::fmt::Display for PreconnectSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An origin the page preconnected to.
// The insights document serializes it as it is: its docs are the JSON reference's.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "PreconnectedOriginJson")]
pub struct PreconnectedOrigin {
    pub url: String,
    /// No request of the navigation went to this origin.
    pub unused: bool,
    /// `DOM` (`<link rel=preconnect>`) or `ResponseHeader` (the document's `Link` header).
    #[schemars(with = "String")]
    pub source: PreconnectSource,
    /// The `Link` header's part, for `ResponseHeader`.
    pub header_text: Option<String>,
    /// Requests went to the origin but still paid for a connection (it is a preconnect
    /// candidate): the preconnect was likely unused, often for a `crossorigin` mismatch.
    pub crossorigin: bool,
}

/// An origin a preconnect would have helped (the engine's `preconnectCandidates`).
// The insights document serializes it as it is: its docs are the JSON reference's.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PreconnectCandidate {
    /// `ParsedURL.securityOrigin()` of its first request.
    pub origin: String,
    /// The connection setup a preconnect would have saved (ms): the simulator's round trip to
    /// the origin (twice for TLS), at most the time from the document's end to the request.
    pub wasted_ms: f64,
}

/// The network dependency tree insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkDependencyTree {
    /// `fail` when a chain has two requests or more.
    pub state: State,
    /// The longest chain, first start to last end (µs); 0 without a chain.
    pub max_critical_path_latency: f64,
    pub chain: Vec<ChainNode>,
    pub preconnected_origins: Vec<PreconnectedOrigin>,
    /// The engine's `relatedEvents`: each request of the chains (indices into the requests;
    /// a redirect hop is its own entry) in the order the chains first reached it.
    pub related: Vec<usize>,
    /// At most four, most time saved first; empty without a Lantern context.
    pub preconnect_candidates: Vec<PreconnectCandidate>,
    /// Why the engine has no Lantern context for the navigation (the chain is then empty).
    pub graph_error: Option<LanternError>,
}

/// The engine's `ParsedURL` pattern: scheme, user, host, port, path, query, fragment.
fn url_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(([A-Za-z][A-Za-z0-9+.-]*)://",
            r"(?:([A-Za-z0-9\-._~%!$&'()*+,;=:]*)@)?",
            r"((?:\[::\d?\])|(?:[^\s/:]*))",
            r"(?::([\d]+))?)",
            r"(/[^#?]*)?(?:\?([^#]*))?(?:#(.*))?$"
        ))
        .expect("the URL pattern compiles")
    })
}

/// `ParsedURL.securityOrigin()`: `scheme://host[:port]` (a blob's inner scheme), `data:` for
/// data URLs, and the engine's own answers for what it cannot parse.
pub fn security_origin(url: &str) -> String {
    let blob = url.starts_with("blob:");
    let rest = if blob { &url[5..] } else { url };
    match url_regex().captures(rest) {
        Some(c) => {
            let scheme = c.get(2).map_or("", |m| m.as_str()).to_ascii_lowercase();
            let host = c.get(4).map_or("", |m| m.as_str());
            match c.get(5).map(|m| m.as_str()).filter(|p| !p.is_empty()) {
                Some(port) => format!("{scheme}://{host}:{port}"),
                None => format!("{scheme}://{host}"),
            }
        }
        None if url.starts_with("data:") => "data:".to_string(),
        // A blob the pattern cannot read has no inner scheme: JavaScript writes `undefined`.
        None if blob => "undefined://".to_string(),
        None => "://".to_string(),
    }
}

/// One part of a `Link` header (`handleLinkResponseHeaderPart`): its URL when it says
/// `rel=preconnect`.
fn link_header_part(part: &str) -> Option<String> {
    if part.is_empty() {
        return None;
    }
    let url_end = part.find('>')?;
    if !part.starts_with('<') || url_end == 0 {
        return None;
    }
    let url = part[1..url_end].trim();
    if url.is_empty() {
        return None;
    }
    let params = part[url_end + 1..].trim();
    for param in params.split(';') {
        let param = param.trim();
        let Some(eq) = param.find('=') else {
            continue;
        };
        let name = param[..eq].trim().to_lowercase();
        let mut value = param[eq + 1..].trim();
        if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
            value = &value[1..value.len() - 1];
        }
        if name == "rel" && value == "preconnect" {
            return Some(url.to_string());
        }
    }
    None
}

/// The `rel=preconnect` URLs of a `Link` header value, with the part that named each
/// (`handleLinkResponseHeader`).
pub fn link_header_preconnects(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < value.len() {
        let Some(first_url_end) = value[i..].find('>').map(|k| k + i) else {
            break;
        };
        let part_end = value[first_url_end..]
            .find(',')
            .map_or(value.len(), |k| k + first_url_end);
        let part = value[i..part_end].trim();
        i = part_end + 1;
        if let Some(url) = link_header_part(part) {
            out.push((url, part.to_string()));
        }
    }
    out
}

/// The engine's `isCritical`: the navigation's document; else not preloaded, not an image,
/// XHR, fetch, event stream or iframe, with an initiator, and high priority or render-blocking.
fn is_critical(r: &Request, nav: &NavigationVitals) -> bool {
    if nav.navigation_id.as_deref() == Some(r.request_id.as_str()) {
        return true;
    }
    if r.is_link_preload {
        return false;
    }
    let is_iframe = r.resource_type == "Document" && r.frame != nav.frame;
    if matches!(
        r.resource_type.as_str(),
        "Image" | "XHR" | "Fetch" | "EventSource"
    ) || is_iframe
        || r.mime_type.starts_with("image/")
    {
        return false;
    }
    if r.initiator_url().is_none() {
        return false;
    }
    matches!(r.priority.as_str(), "VeryHigh" | "High" | "Medium") || r.is_render_blocking()
}

/// A node of the tree while it grows.
struct TreeNode {
    /// Index into the graph's Lantern requests (a redirect hop is its own node).
    lantern: usize,
    time: f64,
    children: Vec<usize>,
    is_longest: bool,
}

/// `findMaxLeafNode`'s time.
fn max_leaf_time(nodes: &[TreeNode], n: usize) -> f64 {
    let node = &nodes[n];
    let Some(&first) = node.children.first() else {
        return node.time;
    };
    let mut max = nodes[first].time;
    for &c in &node.children {
        let leaf = max_leaf_time(nodes, c);
        if leaf > max {
            max = leaf;
        }
    }
    max
}

/// `sortRecursively`: each node's children by their longest leaf, longest first (the roots
/// stay in order).
fn sort_children(nodes: &mut Vec<TreeNode>, list: &[usize]) {
    for &n in list {
        if nodes[n].children.is_empty() {
            continue;
        }
        let mut children = std::mem::take(&mut nodes[n].children);
        let keys: Vec<f64> = children.iter().map(|&c| max_leaf_time(nodes, c)).collect();
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| keys[b].total_cmp(&keys[a]));
        children = order.into_iter().map(|k| children[k]).collect();
        sort_children(nodes, &children);
        nodes[n].children = children;
    }
}

/// The chains of `graph` (`generateNetworkDependencyTree`): the tree flattened depth first,
/// the longest chain's latency (µs), whether any chain has two requests, and the requests in
/// the order the chains first reached them (its `relatedEvents`).
fn chains(
    graph: &DependencyGraph,
    requests: &[Request],
    nav: &NavigationVitals,
) -> (Vec<ChainNode>, f64, bool, Vec<usize>) {
    let mut nodes: Vec<TreeNode> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let mut max_time = 0.0;
    let mut fail = false;
    let mut longest: Vec<usize> = Vec::new();
    // Lantern requests, first reached first (the engine's `relatedEvents` map, keyed by them).
    let mut reached: Vec<usize> = Vec::new();
    let mut was_reached = vec![false; graph.requests.len()];
    let raw = |li: usize| &requests[graph.requests[li].raw];
    let ends = |li: usize| {
        let r = raw(li);
        (r.start, r.start + (r.end - r.start))
    };
    let mut add_chain = |path: Vec<usize>| {
        if path.len() >= 2 {
            fail = true;
        }
        let initial = ends(path[0]).0;
        let total = ends(*path.last().expect("a chain has a request")).1 - initial;
        if total > max_time {
            max_time = total;
            longest = path.clone();
        }
        let mut parent: Option<usize> = None;
        for &li in &path {
            if !std::mem::replace(&mut was_reached[li], true) {
                reached.push(li);
            }
            let list = match parent {
                Some(p) => &nodes[p].children,
                None => &roots,
            };
            let found = list.iter().copied().find(|&n| nodes[n].lantern == li);
            let n = match found {
                Some(n) => n,
                None => {
                    nodes.push(TreeNode {
                        lantern: li,
                        time: ends(li).1 - initial,
                        children: Vec::new(),
                        is_longest: false,
                    });
                    let n = nodes.len() - 1;
                    match parent {
                        Some(p) => nodes[p].children.push(n),
                        None => roots.push(n),
                    }
                    n
                }
            };
            parent = Some(n);
        }
    };

    let seen: Vec<Cell<bool>> = (0..graph.node_count()).map(|_| Cell::new(false)).collect();
    let critical = |li: usize| is_critical(raw(li), nav);
    graph.traverse(
        |node, via| {
            seen[node.index()].set(true);
            let NodeKind::Network(li) = *graph.kind(node) else {
                return;
            };
            if !critical(li) {
                return;
            }
            // The traversal path's network requests, from the root.
            let mut network_path: Vec<usize> =
                std::iter::successors(Some(node), |n| via[n.index()])
                    .filter_map(|n| match *graph.kind(n) {
                        NodeKind::Network(l) => Some(l),
                        NodeKind::Cpu { .. } => None,
                    })
                    .collect();
            network_path.reverse();
            if network_path.iter().any(|&l| !critical(l)) {
                return;
            }
            let l = &graph.requests[li];
            let scheme = l.url.split(':').next().unwrap_or("").to_ascii_lowercase();
            if is_non_network_protocol(&raw(li).protocol) || is_non_network_protocol(&scheme) {
                return;
            }
            add_chain(network_path);
        },
        |node| {
            graph
                .dependents(node)
                .iter()
                .copied()
                .filter(|&d| graph.dependencies(d).iter().all(|p| seen[p.index()].get()))
                .collect()
        },
    );

    // Mark the longest chain.
    let mut list = roots.clone();
    for &li in &longest {
        match list.iter().copied().find(|&n| nodes[n].lantern == li) {
            Some(n) => {
                nodes[n].is_longest = true;
                list = nodes[n].children.clone();
            }
            None => break,
        }
    }
    sort_children(&mut nodes, &roots);

    let mut chain = Vec::new();
    fn walk(
        nodes: &[TreeNode],
        list: &[usize],
        depth: usize,
        parent: Option<usize>,
        graph: &DependencyGraph,
        chain: &mut Vec<ChainNode>,
    ) {
        for &n in list {
            chain.push(ChainNode {
                request: graph.requests[nodes[n].lantern].raw,
                depth,
                parent,
                time_from_initial: nodes[n].time,
                is_longest: nodes[n].is_longest,
            });
            let me = chain.len() - 1;
            walk(nodes, &nodes[n].children, depth + 1, Some(me), graph, chain);
        }
    }
    walk(&nodes, &roots, 0, None, graph, &mut chain);
    let related = reached.iter().map(|&li| graph.requests[li].raw).collect();
    (chain, max_time, fail, related)
}

/// The network dependency tree of `nav`, on its Lantern context (`lantern`).
pub fn network_dependency_tree(
    trace: &TraceFile,
    requests: &[Request],
    nav: &NavigationVitals,
    lantern: Result<&LanternContext, &LanternError>,
) -> NetworkDependencyTree {
    let page = &trace.page;
    let (chain, max_time, fail, related, graph_error) = match lantern {
        Ok(ctx) => {
            let (c, m, f, r) = chains(&ctx.graph.graph, requests, nav);
            (c, m, f, r, None)
        }
        Err(e) => (Vec::new(), 0.0, false, Vec::new(), Some(e.clone())),
    };

    let context: Vec<&Request> = requests
        .iter()
        .filter(|r| in_bounds(r.start, r.end - r.start, &nav.bounds))
        .collect();
    let doc = nav
        .navigation_id
        .as_ref()
        .and_then(|id| requests.iter().rev().find(|r| &r.request_id == id));
    let preconnect_candidates = match (lantern, doc) {
        (Ok(ctx), Some(doc)) => preconnect_candidates(ctx, requests, &context, doc),
        _ => Vec::new(),
    };
    let unused = |url: &str| {
        let origin = security_origin(url);
        !context.iter().any(|r| security_origin(&r.url) == origin)
    };
    let crossorigin = |url: &str| {
        let origin = security_origin(url);
        preconnect_candidates.iter().any(|c| c.origin == origin)
    };
    let mut preconnected_origins: Vec<PreconnectedOrigin> = page
        .link_preconnects
        .iter()
        .map(|url| PreconnectedOrigin {
            url: url.clone(),
            unused: unused(url),
            source: PreconnectSource::Dom,
            header_text: None,
            crossorigin: crossorigin(url),
        })
        .collect();
    for (name, value) in doc.map_or(&[][..], |d| d.response_headers.as_slice()) {
        if !name.eq_ignore_ascii_case("link") {
            continue;
        }
        for (url, text) in link_header_preconnects(value) {
            preconnected_origins.push(PreconnectedOrigin {
                unused: unused(&url),
                crossorigin: crossorigin(&url),
                url,
                source: PreconnectSource::ResponseHeader,
                header_text: Some(text),
            });
        }
    }

    NetworkDependencyTree {
        state: if fail { State::Fail } else { State::Pass },
        max_critical_path_latency: max_time,
        chain,
        preconnected_origins,
        preconnect_candidates,
        graph_error,
        related,
    }
}

/// A socket a preconnect opened stays usable this long (Chrome keeps an unused one 10 s; the
/// engine allows 5 s more), ms.
const PRECONNECT_SOCKET_MAX_IDLE_MS: f64 = 15_000.0;
/// Savings under this are not worth a preconnect (ms).
const PRECONNECT_IGNORE_THRESHOLD_MS: f64 = 50.0;
const TOO_MANY_PRECONNECTS: usize = 4;

/// The request that initiated `r` as the trace names it (`NetworkRequestsHandler`'s
/// initiator map): the last request for its initiator's URL (the payload stack's top frame
/// without one).
fn initiator_request<'a>(requests: &'a [Request], r: &Request) -> Option<&'a Request> {
    let url = r.initiator_url()?;
    requests.iter().rev().find(|q| q.url == url)
}

/// The WHATWG origin of `url` (`null` for opaque ones), `None` when it does not parse.
fn url_origin(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .map(|u| u.origin().ascii_serialization())
}

/// `generatePreconnectCandidates`: per origin other than the document's whose first request
/// the LCP needed, went over a fresh connection and was made within 15 s of the document's
/// end, the connection time it paid.
fn preconnect_candidates(
    ctx: &LanternContext,
    requests: &[Request],
    context: &[&Request],
    doc: &Request,
) -> Vec<PreconnectCandidate> {
    let g = &ctx.graph.graph;
    let lcp_graph = &ctx.lcp.pessimistic_graph;
    let lcp_urls: Vec<&str> = lcp_graph
        .nodes()
        .into_iter()
        .filter_map(|n| g.request(n).map(|r| r.url.as_str()))
        .collect();
    let Some(main_origin) = url_origin(&doc.url) else {
        return Vec::new();
    };
    let mut by_origin: Vec<(String, Vec<&Request>)> = Vec::new();
    for &r in context {
        let Some(t) = &r.timing else {
            continue;
        };
        if t.connect_end < 0.0 || t.connect_start < 0.0 {
            continue;
        }
        if initiator_request(requests, r).is_some_and(|i| std::ptr::eq(i, doc)) {
            continue;
        }
        let Some(origin) = url_origin(&r.url) else {
            continue;
        };
        if origin == "null" || origin == main_origin || !lcp_urls.contains(&r.url.as_str()) {
            continue;
        }
        // Already connected: no DNS or connection time.
        let no_setup = t.dns_start == -1.0
            && t.dns_end == -1.0
            && t.connect_start == -1.0
            && t.connect_end == -1.0;
        if no_setup || (t.dns_end - t.dns_start == 0.0 && t.connect_end - t.connect_start == 0.0) {
            continue;
        }
        if us_to_ms((r.send_start - doc.finish).max(0.0)) >= PRECONNECT_SOCKET_MAX_IDLE_MS {
            continue;
        }
        match by_origin.iter_mut().find(|(o, _)| *o == origin) {
            Some((_, list)) => list.push(r),
            None => by_origin.push((origin, vec![r])),
        }
    }
    let analysis = &ctx.simulator.analysis;
    let mut out: Vec<PreconnectCandidate> = Vec::new();
    for (_, list) in by_origin {
        let first = list[0];
        let Some(t) = &first.timing else {
            continue;
        };
        let origin = security_origin(&first.url);
        let additional = analysis
            .additional_rtt_by_origin
            .get(&origin)
            .copied()
            .unwrap_or(0.0);
        let mut connection_time = analysis.rtt + additional;
        let https = first
            .url
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("https:"));
        if https {
            connection_time *= 2.0;
        }
        let between = first.send_start - doc.finish + ms_to_us(t.dns_start);
        let wasted_ms = connection_time.min(us_to_ms(between));
        if wasted_ms < PRECONNECT_IGNORE_THRESHOLD_MS {
            continue;
        }
        out.push(PreconnectCandidate { origin, wasted_ms });
    }
    out.sort_by(|a, b| b.wasted_ms.total_cmp(&a.wasted_ms));
    out.truncate(TOO_MANY_PRECONNECTS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers_name_their_preconnects() {
        // The engine's own example (`handleLinkResponseHeader`'s documentation).
        let v = r#"</style.css>; rel=preload; as=style, <https://example.com>; rel="preconnect""#;
        assert_eq!(
            link_header_preconnects(v),
            vec![(
                "https://example.com".to_string(),
                r#"<https://example.com>; rel="preconnect""#.to_string()
            )]
        );
        assert!(link_header_preconnects("").is_empty());
        assert!(link_header_preconnects("<>; rel=preconnect").is_empty());
        assert!(link_header_preconnects("https://a.test; rel=preconnect").is_empty());
        assert_eq!(
            link_header_preconnects("<https://a.test>;REL=preconnect,<https://b.test>")
                .into_iter()
                .map(|(u, _)| u)
                .collect::<Vec<_>>(),
            vec!["https://a.test"]
        );
    }

    #[test]
    fn security_origins_are_the_engines() {
        assert_eq!(security_origin("https://a.test/x?y#z"), "https://a.test");
        assert_eq!(security_origin("HTTP://a.test:8080/"), "http://a.test:8080");
        assert_eq!(security_origin("data:text/plain,hi"), "data:");
        assert_eq!(security_origin("blob:https://a.test/123"), "https://a.test");
    }
}
