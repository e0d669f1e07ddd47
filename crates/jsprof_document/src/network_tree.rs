//! The network dependency tree insight of `jsprof insights`: the critical request chains, the
//! preconnected origins and the preconnect candidates.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_pageload::network_tree::{self, PreconnectCandidate, PreconnectedOrigin};
use jsprof_pageload::units::us_to_ms;
use jsprof_pageload::PageStory;

use crate::page_common::Clock;

/// One request of the network dependency tree.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct ChainRequestJson {
    pub url: String,
    pub request_id: String,
    /// 0 for the chain's first request (the document).
    pub depth: usize,
    /// Index into `chain` of the request this one waited for; `null` at depth 0.
    pub parent: Option<usize>,
    /// From the chain's first request's start to this request's end.
    pub time_from_initial_ms: f64,
    /// On the longest chain (the critical path).
    pub is_longest: bool,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// The old name of [`PreconnectedOrigin`], which the document now serializes as the engine
/// keeps it.
pub type PreconnectedOriginJson = PreconnectedOrigin;

/// Network dependency tree: chains of critical requests, each waiting for the one before.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct NetworkDependencyTreeJson {
    /// `fail` when a chain has two requests or more, else `pass`.
    pub state: String,
    /// The longest chain: its first request's start to its last request's end.
    pub max_critical_path_latency_ms: f64,
    /// Every chain as one tree, depth first; each request's children by their longest chain,
    /// longest first. A redirected document appears under itself (one entry per hop).
    pub chain: Vec<ChainRequestJson>,
    pub preconnected_origins: Vec<PreconnectedOrigin>,
    /// Origins the LCP needed that a preconnect would have helped, most time saved first (at
    /// most four; none without a Lantern context).
    pub preconnect_candidates: Vec<PreconnectCandidate>,
    /// Why DevTools' trace engine has no Lantern context for this navigation — no dependency
    /// graph, or a failed simulation — with its message, e.g. `NO_LCP`: the chain is then
    /// empty and the render-blocking savings `null`.
    pub graph_error: Option<String>,
}

pub(crate) fn network_tree_json(
    c: &Clock,
    story: &PageStory,
    t: &network_tree::NetworkDependencyTree,
) -> NetworkDependencyTreeJson {
    NetworkDependencyTreeJson {
        state: t.state.as_str().to_string(),
        max_critical_path_latency_ms: us_to_ms(t.max_critical_path_latency),
        chain: t
            .chain
            .iter()
            .map(|n| {
                let r = &story.requests[n.request];
                ChainRequestJson {
                    url: r.url.clone(),
                    request_id: r.request_id.clone(),
                    depth: n.depth,
                    parent: n.parent,
                    time_from_initial_ms: us_to_ms(n.time_from_initial),
                    is_longest: n.is_longest,
                    start_ms: c.ts(r.start),
                    end_ms: c.ts(r.end),
                }
            })
            .collect(),
        preconnected_origins: t.preconnected_origins.clone(),
        preconnect_candidates: t.preconnect_candidates.clone(),
        graph_error: t.graph_error.as_ref().map(|e| e.message()),
    }
}
