//! Heap pages for the browser UI: a class's objects and a node's dominator-tree children one page
//! at a time, retaining paths with one shared retainer index, detached DOM trees, and the
//! precomputed heap document `jsprof report` embeds.

use std::collections::HashMap;

use crate::heap::{object_json, summary_report, ObjectJson, PathJson, SummaryReport};
use jsprof_heap::{
    class_members, detached_trees, Analysis, DominatorTree, HeapSnapshot, NodeOrdinal, PathOptions,
    RetainerIndex, SortBy,
};
use schemars::JsonSchema;
use serde::Serialize;

/// One page of objects.
#[derive(Serialize, JsonSchema)]
pub struct ObjectsPage {
    /// How many there are in all.
    pub total: usize,
    pub offset: usize,
    pub objects: Vec<ObjectJson>,
}

/// A page of `nodes` (already in the order to show).
pub fn page(
    s: &HeapSnapshot,
    a: &Analysis,
    nodes: &[NodeOrdinal],
    offset: usize,
    limit: usize,
) -> ObjectsPage {
    ObjectsPage {
        total: nodes.len(),
        offset,
        objects: nodes
            .iter()
            .skip(offset)
            .take(limit)
            .map(|&n| object_json(s, a, n))
            .collect(),
    }
}

/// Sorts `nodes` largest retained first (then by ordinal, so the order is stable).
pub fn by_retained(a: &Analysis, nodes: &mut [NodeOrdinal]) {
    nodes.sort_by(|&x, &y| {
        a.retained[y.index()]
            .cmp(&a.retained[x.index()])
            .then(x.cmp(&y))
    });
}

/// Every class's objects by Summary key, in node order (the service computes this once per
/// snapshot and sorts a class when it is first asked for).
pub fn classes_by_key(s: &HeapSnapshot, a: &Analysis) -> HashMap<String, Vec<NodeOrdinal>> {
    class_members(s, a)
        .into_iter()
        .map(|(row, members)| (row.key, members))
        .collect()
}

/// A page of the nodes `node` immediately dominates, largest retained first.
pub fn dominated_page(
    s: &HeapSnapshot,
    a: &Analysis,
    tree: &DominatorTree,
    node: NodeOrdinal,
    offset: usize,
    limit: usize,
) -> ObjectsPage {
    page(s, a, tree.children(node), offset, limit)
}

/// The shortest retaining paths of `node`.
pub fn paths_json(
    s: &HeapSnapshot,
    a: &Analysis,
    index: &RetainerIndex,
    node: NodeOrdinal,
    max_paths: usize,
) -> Vec<PathJson> {
    let options = PathOptions {
        max_paths,
        ..PathOptions::default()
    };
    crate::heap::paths_json(s, a, index, node, options)
}

/// One detached DOM tree.
#[derive(Serialize, JsonSchema)]
pub struct DetachedJson {
    pub root: ObjectJson,
    pub node_count: u64,
    pub retained_size: u64,
}

/// The detached DOM trees, largest first, at most `limit`.
pub fn detached(
    s: &HeapSnapshot,
    a: &Analysis,
    tree: &DominatorTree,
    limit: usize,
) -> Vec<DetachedJson> {
    detached_trees(s, a, tree)
        .into_iter()
        .take(limit)
        .map(|t| DetachedJson {
            root: object_json(s, a, t.root),
            node_count: t.node_count,
            retained_size: t.retained_size,
        })
        .collect()
}

/// An object with its retaining paths, as the report embeds it.
#[derive(Serialize, JsonSchema)]
pub struct ObjectWithPaths {
    #[serde(flatten)]
    pub object: ObjectJson,
    pub paths: Vec<PathJson>,
}

/// A class's largest objects in the report.
#[derive(Serialize, JsonSchema)]
pub struct ClassObjects {
    pub key: String,
    pub total: usize,
    pub objects: Vec<ObjectWithPaths>,
}

/// The heap part of `jsprof report`.
#[derive(Serialize, JsonSchema)]
pub struct HeapDoc {
    pub summary: SummaryReport,
    /// For the largest classes: their largest objects with retaining paths.
    pub objects: Vec<ClassObjects>,
    pub detached: Vec<DetachedJson>,
    /// The root's dominator-tree children (the report's Dominators view).
    pub dominators: Vec<ObjectJson>,
    /// The dominator tree beneath them, breadth-first within a budget: so the report's view can
    /// be walked a few levels down, not only looked at.
    pub dominated: Vec<DominatedJson>,
}

/// The children of one embedded dominator-tree node (largest retained first).
#[derive(Serialize, JsonSchema)]
pub struct DominatedJson {
    /// The node's id.
    pub id: u32,
    /// How many children it has in all.
    pub total: usize,
    pub objects: Vec<ObjectJson>,
}

/// Objects of the dominator tree the report embeds below the root's children, and per node.
const DOMINATED_BUDGET: usize = 4000;
const DOMINATED_PER_NODE: usize = 20;

/// The dominator tree under the root's first `roots` children, breadth-first: each node's
/// largest children, until the budget is spent.
fn dominated(
    s: &HeapSnapshot,
    a: &Analysis,
    tree: &DominatorTree,
    roots: &[NodeOrdinal],
) -> Vec<DominatedJson> {
    let mut out = Vec::new();
    let mut spent = 0;
    let mut queue: std::collections::VecDeque<NodeOrdinal> = roots.iter().copied().collect();
    while let Some(n) = queue.pop_front() {
        if spent >= DOMINATED_BUDGET {
            break;
        }
        let children = tree.children(n);
        if children.is_empty() {
            continue;
        }
        let take = DOMINATED_PER_NODE.min(DOMINATED_BUDGET - spent);
        spent += take;
        queue.extend(children.iter().take(take).copied());
        out.push(DominatedJson {
            id: object_json(s, a, n).id,
            total: children.len(),
            objects: children
                .iter()
                .take(take)
                .map(|&c| object_json(s, a, c))
                .collect(),
        });
    }
    out
}

/// What the report embeds of a snapshot.
#[derive(Clone, Copy, Debug)]
pub struct HeapDocLimits {
    pub classes: usize,
    /// Classes whose objects are embedded (largest retained first).
    pub classes_with_objects: usize,
    pub objects_per_class: usize,
    /// Objects per class whose retaining paths are embedded.
    pub objects_with_paths: usize,
    pub paths: usize,
}

impl Default for HeapDocLimits {
    fn default() -> Self {
        HeapDocLimits {
            classes: 2000,
            classes_with_objects: 60,
            objects_per_class: 20,
            objects_with_paths: 5,
            paths: 3,
        }
    }
}

/// The report's heap document.
pub fn heap_doc(s: &HeapSnapshot, a: &Analysis, limits: HeapDocLimits) -> HeapDoc {
    let summary = summary_report(s, a, SortBy::Retained, limits.classes);
    let members = class_members(s, a);
    let index = RetainerIndex::new(s);
    let mut objects = Vec::new();
    for class in summary.classes.iter().take(limits.classes_with_objects) {
        let Some((_, list)) = members.iter().find(|(row, _)| row.key == class.key) else {
            continue;
        };
        let mut list = list.clone();
        by_retained(a, &mut list);
        objects.push(ClassObjects {
            key: class.key.clone(),
            total: list.len(),
            objects: list
                .iter()
                .take(limits.objects_per_class)
                .enumerate()
                .map(|(i, &n)| ObjectWithPaths {
                    object: object_json(s, a, n),
                    paths: if i < limits.objects_with_paths {
                        paths_json(s, a, &index, n, limits.paths)
                    } else {
                        Vec::new()
                    },
                })
                .collect(),
        });
    }
    let tree = DominatorTree::new(s, a);
    HeapDoc {
        summary,
        objects,
        detached: detached(s, a, &tree, 200),
        dominators: tree
            .children(s.root)
            .iter()
            .take(200)
            .map(|&n| object_json(s, a, n))
            .collect(),
        dominated: dominated(
            s,
            a,
            &tree,
            &tree.children(s.root)[..tree.children(s.root).len().min(200)],
        ),
    }
}
