//! A part of the dependency graph, as Lantern's `cloneWithRelationships` makes one: the nodes a
//! predicate keeps and every node on their way back to the root, with the edges between them.
//! The order matters — the simulator breaks ties by it — so a clone lists each node's
//! dependents in the order a breadth-first walk of the graph it came from meets them, and its
//! dependencies in the original order, as the engine's clone does.

use std::collections::VecDeque;

use super::error::LanternError;
use crate::dependency_graph::{DependencyGraph, NodeId};

/// Nodes of a [`DependencyGraph`] and edges among them. Node ids are the full graph's.
#[derive(Clone, Debug)]
pub struct Subgraph {
    root: NodeId,
    included: Vec<bool>,
    dependents: Vec<Vec<NodeId>>,
    dependencies: Vec<Vec<NodeId>>,
}

impl Subgraph {
    /// The whole graph.
    pub fn full(g: &DependencyGraph) -> Self {
        let n = g.node_count();
        let ids = (0..n).map(NodeId::from_index);
        Subgraph {
            root: g.root(),
            included: vec![true; n],
            dependents: ids.clone().map(|i| g.dependents(i).to_vec()).collect(),
            dependencies: ids.map(|i| g.dependencies(i).to_vec()).collect(),
        }
    }

    pub fn root(&self) -> NodeId {
        self.root
    }

    pub fn contains(&self, n: NodeId) -> bool {
        self.included[n.index()]
    }

    pub fn dependents(&self, n: NodeId) -> &[NodeId] {
        &self.dependents[n.index()]
    }

    pub fn dependencies(&self, n: NodeId) -> &[NodeId] {
        &self.dependencies[n.index()]
    }

    /// Breadth first from `from` along `next`, each node once (`traverse`).
    fn walk(&self, from: NodeId, mut next: impl FnMut(NodeId) -> Vec<NodeId>) -> Vec<NodeId> {
        let mut visited = vec![false; self.included.len()];
        visited[from.index()] = true;
        let mut queue = VecDeque::from([from]);
        let mut out = Vec::new();
        while let Some(n) = queue.pop_front() {
            out.push(n);
            for nx in next(n) {
                if !visited[nx.index()] {
                    visited[nx.index()] = true;
                    queue.push_back(nx);
                }
            }
        }
        out
    }

    /// Every node, breadth first from the root along the dependents.
    pub fn nodes(&self) -> Vec<NodeId> {
        self.walk(self.root, |n| self.dependents[n.index()].clone())
    }

    /// `node` and everything that depends on it, breadth first.
    pub fn descendants(&self, node: NodeId) -> Vec<NodeId> {
        self.walk(node, |n| self.dependents[n.index()].clone())
    }

    /// `cloneWithRelationships(predicate)` from the root.
    pub fn clone_with(&self, mut keep: impl FnMut(NodeId) -> bool) -> Result<Self, LanternError> {
        let order = self.nodes();
        let n = self.included.len();
        let mut cloned = vec![false; n];
        // Which walk last queued each node: one array for every walk up the dependencies.
        let mut queued_by = vec![usize::MAX; n];
        let mut queue = VecDeque::new();
        for (walk, &node) in order.iter().enumerate() {
            if cloned[node.index()] || !keep(node) {
                continue;
            }
            // The node and its ancestors not yet cloned, breadth first up the dependencies.
            queued_by[node.index()] = walk;
            queue.push_back(node);
            while let Some(x) = queue.pop_front() {
                cloned[x.index()] = true;
                for &p in &self.dependencies[x.index()] {
                    if !cloned[p.index()] && queued_by[p.index()] != walk {
                        queued_by[p.index()] = walk;
                        queue.push_back(p);
                    }
                }
            }
        }
        let mut out = Subgraph {
            root: self.root,
            included: cloned,
            dependents: vec![Vec::new(); n],
            dependencies: vec![Vec::new(); n],
        };
        for &node in &order {
            if !out.included[node.index()] {
                continue;
            }
            for &dep in &self.dependencies[node.index()] {
                if !out.included[dep.index()] {
                    return Err(LanternError::Simulation("Dependency somehow not cloned"));
                }
                if !out.dependencies[node.index()].contains(&dep) {
                    out.dependents[dep.index()].push(node);
                    out.dependencies[node.index()].push(dep);
                }
            }
        }
        if !out.included[self.root.index()] {
            return Err(LanternError::Simulation("Cloned graph missing node"));
        }
        Ok(out)
    }
}
