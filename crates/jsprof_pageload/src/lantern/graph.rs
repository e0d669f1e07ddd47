//! The page dependency graph as Lantern's simulations and metrics read it: each task node with
//! what it did.

use jsprof_profile::page_events::GraphEventName;
use jsprof_profile::TraceFile;

use crate::dependency_graph::{DependencyGraph, NodeId, NodeKind};

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
