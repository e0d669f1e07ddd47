//! Leak candidates from three snapshots of one process (memlab's baseline/target/final technique):
//! objects created between BASE and TARGET that are still alive in FINAL, grouped by class and by
//! the shape of their shortest retaining path in FINAL.
//!
//! Only objects, closures, native objects and regular expressions count (strings, numbers, code and
//! V8 internals come and go with any activity). A path's shape keeps the edge labels and the classes
//! along it, with element and hidden indexes dropped (`[]`, `{}`), so the same leak reached through
//! `array[0]`, `array[1]`, … is one group.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::edge_names::edge_label;
use crate::retaining_paths::{edge_source, retaining_paths, PathOptions, RetainerIndex};
use crate::snapshot::{HeapSnapshot, NodeOrdinal};

/// One step of a leak path, from the root side: a node's class and the edge it holds the next by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeakStep {
    pub edge: String,
    pub class: String,
}

/// Leaked objects of one class, kept alive along one path shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakGroup {
    pub class: String,
    pub count: u64,
    /// The sum of the objects' retained sizes in FINAL.
    pub retained_size: u64,
    /// From the root side to the leaked object; empty when no root reaches it.
    pub path: Vec<LeakStep>,
    /// One of the objects (its ordinal in FINAL).
    pub sample: NodeOrdinal,
}

fn sorted_ids(s: &HeapSnapshot) -> Vec<u32> {
    let mut ids = s.nodes.id.clone();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Groups the objects of `last` whose id is in `target` but not in `base`; largest retained first.
pub fn leaks(
    base: &HeapSnapshot,
    target: &HeapSnapshot,
    last: &HeapSnapshot,
    last_analysis: &Analysis,
) -> Vec<LeakGroup> {
    let base_ids = sorted_ids(base);
    let target_ids = sorted_ids(target);
    let types = last.types();
    let kinds = [types.object, types.closure, types.native, types.regexp];
    let index = RetainerIndex::new(last);
    let options = PathOptions {
        max_paths: 1,
        ..PathOptions::default()
    };
    let mut groups: Vec<LeakGroup> = Vec::new();
    let mut group_of: HashMap<(String, Vec<LeakStep>), usize> = HashMap::new();
    for n in 0..last.nodes.len() as NodeOrdinal {
        if !kinds.contains(&last.nodes.kind[n as usize]) {
            continue;
        }
        let id = last.nodes.id[n as usize];
        if target_ids.binary_search(&id).is_err() || base_ids.binary_search(&id).is_ok() {
            continue;
        }
        let path = retaining_paths(last, last_analysis, &index, n, options)
            .into_iter()
            .next()
            .map(|p| {
                p.edges
                    .iter()
                    .rev()
                    .map(|&e| LeakStep {
                        edge: path_edge(last, e),
                        class: last_analysis.class_name(last, edge_source(last, e)),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let class = last_analysis.class_name(last, n);
        let key = (class, path);
        let slot = match group_of.get(&key) {
            Some(&i) => i,
            None => {
                group_of.insert(key.clone(), groups.len());
                groups.push(LeakGroup {
                    class: key.0,
                    count: 0,
                    retained_size: 0,
                    path: key.1,
                    sample: n,
                });
                groups.len() - 1
            }
        };
        groups[slot].count += 1;
        groups[slot].retained_size += last_analysis.retained[n as usize];
    }
    groups.sort_by(|x, y| {
        y.retained_size
            .cmp(&x.retained_size)
            .then(y.count.cmp(&x.count))
            .then(x.sample.cmp(&y.sample))
    });
    groups
}

/// The edge's label without element or hidden indexes.
fn path_edge(s: &HeapSnapshot, e: u32) -> String {
    let types = s.types();
    let kind = s.edges.kind[e as usize];
    if kind == types.edge_element {
        "[]".to_string()
    } else if kind == types.edge_hidden {
        "{}".to_string()
    } else {
        edge_label(s, e)
    }
}
