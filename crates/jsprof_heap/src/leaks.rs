//! Leak candidates from three snapshots of one process (memlab's baseline/target/final technique):
//! objects created between BASE and TARGET that are still alive in FINAL, grouped by class and by
//! the shape of their shortest retaining path in FINAL.
//!
//! Only objects, closures, native objects and regular expressions count (strings, numbers, code and
//! V8 internals come and go with any activity), and only those a root still reaches (a snapshot
//! taken without a full GC keeps dead objects, which are not leaks). An object whose dominator
//! chain leads, through objects made since BASE, to another candidate (not a mere `Array`, `Map`
//! or `Set`) is part of that candidate's leak (its retained size already counts it): it makes no
//! group of its own, so a leaked `CacheEntry` with its rows is one object of one group.
//!
//! A path's shape keeps the edge labels and the classes along it, with element indexes, hidden
//! indexes and numbered internal slots folded (`[]`, `{}`): the same leak reached through
//! `array[0]`, `array[1]`, … or through a `Map`'s or `Set`'s hash-table slots (`Map{table} →
//! (array){10910}`) is one group. Paths come from one shortest-path tree over the whole graph (each
//! node's parent is a retainer one step closer to the roots by DevTools' distance), so a group costs
//! one walk up the tree, not a search per object.

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::bits::BitVec;
use crate::edge_names::edge_label;
use crate::retaining_paths::edge_source;
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal, Types};
use crate::snapshot_order::Identities;
use crate::strings::wtf8_to_string;

/// One step of a leak path, from the root side: a node's class and the edge it holds the next by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeakStep {
    pub edge: String,
    pub class: String,
    /// Where the node's function is, for source maps.
    pub place: Option<Place>,
}

/// Where a closure's function or an object's constructor is (V8's `locations`: script id,
/// 0-based line and column) and the name it has there (a closure's function name, an object's
/// class): what a source map looks up.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub script_id: u32,
    pub line: u32,
    pub column: u32,
    pub name: String,
}

impl Place {
    /// The node's place; `None` for a synthetic node or one without a location.
    pub fn of(s: &HeapSnapshot, a: &Analysis, n: NodeOrdinal) -> Option<Place> {
        let types = s.types();
        let kind = s.nodes.kind(n);
        if kind == types.synthetic {
            return None;
        }
        let l = s.location(n)?;
        let name = if kind == types.closure {
            wtf8_to_string(s.strings.bytes(s.nodes.name(n)))
        } else {
            a.class_name(s, n)
        };
        Some(Place {
            script_id: l.script_id,
            line: l.line,
            column: l.column,
            name,
        })
    }
}

/// Leaked objects of one class, kept alive along one path shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakGroup {
    pub class: String,
    pub count: u64,
    /// The sum of the objects' retained sizes in FINAL.
    pub retained_size: u64,
    /// From the root side to the leaked object (the sample's path, folded); empty when the root
    /// holds the object directly.
    pub path: Vec<LeakStep>,
    /// The group's largest object (its ordinal in FINAL).
    pub sample: NodeOrdinal,
    /// Where the sample's function is, for source maps.
    pub place: Option<Place>,
}

/// No edge: the node is held by the root itself, or no root reaches it.
const NO_EDGE: EdgeOrdinal = EdgeOrdinal::new(u32::MAX);
/// A shape not computed yet.
const UNKNOWN: u32 = u32::MAX;
/// A folded edge name (element and hidden indexes, numbered internal slots).
const FOLDED: u32 = u32::MAX;

/// Groups the objects of `last` whose id is in `target` but not in `base`; largest retained first.
pub fn leaks(
    base: &HeapSnapshot,
    target: &HeapSnapshot,
    last: &HeapSnapshot,
    last_analysis: &Analysis,
) -> Vec<LeakGroup> {
    leaks_since(
        &Identities::of(base),
        &Identities::of(target),
        last,
        last_analysis,
    )
}

/// [`leaks`] with the earlier two snapshots known only by their ids: all it needs of them, so
/// that a caller holds one full graph, FINAL's, and not three.
pub fn leaks_since(
    base: &Identities,
    target: &Identities,
    last: &HeapSnapshot,
    last_analysis: &Analysis,
) -> Vec<LeakGroup> {
    group_new(base, Some(target), last, last_analysis)
}

/// Groups every object of `last` whose id is not in `base` (made since BASE, whenever), as
/// [`leaks`] groups the ones made before TARGET: the groups of one snapshot of a series, each
/// compared with the series' first. Largest retained first.
pub fn new_object_groups(
    base: &Identities,
    last: &HeapSnapshot,
    last_analysis: &Analysis,
) -> Vec<LeakGroup> {
    group_new(base, None, last, last_analysis)
}

/// The objects of `last` made since `base` (and, with `target`, before it), grouped.
fn group_new(
    base: &Identities,
    target: Option<&Identities>,
    last: &HeapSnapshot,
    last_analysis: &Analysis,
) -> Vec<LeakGroup> {
    let s = last;
    let a = last_analysis;
    let n = s.nodes.len();
    let types = s.types();
    let kinds = [types.object, types.closure, types.native, types.regexp];

    // Objects made since BASE (any kind), and the candidates among them: made before TARGET too.
    let mut new = BitVec::new(n);
    let mut candidate = BitVec::new(n);
    for i in 0..n {
        let id = s.nodes.id[i];
        if base.contains(id) {
            continue;
        }
        new.set(i);
        if target.is_none_or(|t| t.contains(id))
            && kinds.contains(&s.nodes.kind[i])
            && reachable(a.distances[i])
            && i != s.root.index()
        {
            candidate.set(i);
        }
    }

    let parent = shortest_path_tree(s, a);
    let mut shapes = Shapes::new(n);
    let mut keys = ClassKeys::default();
    let mut groups: Vec<LeakGroup> = Vec::new();
    let mut group_of: HashMap<(ClassKey, u32), usize> = HashMap::new();
    let mut inside = InsideLeak::new(n);
    for i in 0..n {
        if !candidate.get(i) || inside.check(s, a, &new, &candidate, NodeOrdinal::from_index(i)) {
            continue;
        }
        let node = NodeOrdinal::from_index(i);
        let class = keys.of(s, a, &types, node);
        let shape = shapes.of(s, a, &types, &parent, node, &mut keys);
        let slot = *group_of.entry((class, shape)).or_insert_with(|| {
            groups.push(LeakGroup {
                class: String::new(),
                count: 0,
                retained_size: 0,
                path: Vec::new(),
                sample: node,
                place: None,
            });
            groups.len() - 1
        });
        let g = &mut groups[slot];
        g.count += 1;
        g.retained_size += a.retained[i];
        if a.retained[i] > a.retained[g.sample.index()] {
            g.sample = node;
        }
    }
    for g in &mut groups {
        g.class = display_class(s, a, &types, g.sample);
        g.place = Place::of(s, a, g.sample);
        g.path = path_of(s, a, &types, &parent, g.sample);
    }
    // The most retained first, then the most objects, then by sample.
    groups.sort_by(|x, y| {
        (Reverse(x.retained_size), Reverse(x.count), x.sample).cmp(&(
            Reverse(y.retained_size),
            Reverse(y.count),
            y.sample,
        ))
    });
    groups
}

fn reachable(distance: i32) -> bool {
    distance >= 0
}

/// One retaining edge per node, from a retainer one step closer to the roots (DevTools' distance,
/// so a path through user roots is preferred to one through `(GC roots)`); [`NO_EDGE`] for the
/// nodes the root holds and for unreachable ones. Weak edges never retain; the root's own edges end
/// a path, as in the Retainers view. One pass over the edges.
fn shortest_path_tree(s: &HeapSnapshot, a: &Analysis) -> Vec<EdgeOrdinal> {
    let types = s.types();
    let n = s.nodes.len();
    let mut parent = vec![NO_EDGE; n];
    for from in 0..n {
        if from == s.root.index() {
            continue;
        }
        let d = a.distances[from];
        if !reachable(d) {
            continue;
        }
        for e in s.nodes.edges(NodeOrdinal::from_index(from)) {
            let kind = s.edges.kind(e);
            if kind == types.edge_weak || kind == types.edge_invisible {
                continue;
            }
            let to = s.edges.to_node(e);
            if parent[to.index()] == NO_EDGE && a.distances[to.index()] == d + 1 && to != s.root {
                parent[to.index()] = e;
            }
        }
    }
    // A node the root holds ends its path even when another retainer is one step closer by a
    // system distance (`(GC roots)` at 100 000 001 holding what a user root also holds).
    for e in s.nodes.edges(s.root) {
        parent[s.edges.to_node(e).index()] = NO_EDGE;
    }
    parent
}

/// Whether a candidate belongs to another candidate's leak: its dominator chain, through objects
/// made since BASE (a `Map`'s table may be reallocated after TARGET), reaches a candidate that is
/// not a collection. A new `Array`, `Map` or `Set` holding leaked objects does not swallow them:
/// the listeners pushed into a fresh `_events.message` array are the leak, 120 of one function,
/// and the array is a group of its own. Memoized, since chains share their tops.
struct InsideLeak {
    /// 0 unknown, 1 inside a leak, 2 not: for the chain from the node up, the node included.
    state: Vec<u8>,
    stack: Vec<NodeOrdinal>,
}

impl InsideLeak {
    fn new(n: usize) -> InsideLeak {
        InsideLeak {
            state: vec![0; n],
            stack: Vec::new(),
        }
    }

    fn check(
        &mut self,
        s: &HeapSnapshot,
        a: &Analysis,
        new: &BitVec,
        candidate: &BitVec,
        n: NodeOrdinal,
    ) -> bool {
        let mut x = a.idom[n.index()];
        let answer = loop {
            let i = x.index();
            if !new.get(i) || a.idom[i] == x {
                break false;
            }
            if candidate.get(i) && !is_collection(s, a, x) {
                break true;
            }
            match self.state[i] {
                1 => break true,
                2 => break false,
                _ => {}
            }
            self.stack.push(x);
            x = a.idom[i];
        };
        for x in self.stack.drain(..) {
            self.state[x.index()] = if answer { 1 } else { 2 };
        }
        answer
    }
}

/// JavaScript's collections, whose elements are each a leak of their own.
fn is_collection(s: &HeapSnapshot, a: &Analysis, n: NodeOrdinal) -> bool {
    matches!(
        s.strings.bytes(a.classes[n.index()]),
        b"Array" | b"Map" | b"Set"
    )
}

/// A class as grouping sees it: the Summary's class, or for a closure its function's name and
/// location, numbered by [`ClassKeys`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ClassKey {
    Class(u32),
    /// A synthetic node by its name: `(GC roots)`, `(Global handles)`, … (all of class
    /// `(synthetic)` in the Summary, which would say nothing in a path).
    Synthetic(u32),
    Closure(u32),
}

/// Numbers closures by (name, script, line, column): every closure is of class `Function` in the
/// Summary, but a leak of listeners is a leak of one function's closures.
#[derive(Default)]
struct ClassKeys {
    closures: HashMap<(u32, u32, u32, u32), u32>,
}

impl ClassKeys {
    fn of(&mut self, s: &HeapSnapshot, a: &Analysis, types: &Types, n: NodeOrdinal) -> ClassKey {
        let kind = s.nodes.kind(n);
        if kind == types.synthetic {
            return ClassKey::Synthetic(s.nodes.name(n));
        }
        if kind != types.closure {
            return ClassKey::Class(a.classes[n.index()]);
        }
        let name = s.nodes.name(n);
        let key = match s.location(n) {
            Some(l) => (name, l.script_id, l.line, l.column),
            None => (name, u32::MAX, 0, 0),
        };
        let next = self.closures.len() as u32;
        ClassKey::Closure(*self.closures.entry(key).or_insert(next))
    }
}

/// The class shown for a node: the Summary's class, a synthetic node's name, or for a closure its
/// function's name (`(anonymous)` when it has none) and where it was defined, `name
/// file.js:LINE:COL` (1-based).
fn display_class(s: &HeapSnapshot, a: &Analysis, types: &Types, n: NodeOrdinal) -> String {
    let kind = s.nodes.kind(n);
    if kind == types.synthetic {
        return wtf8_to_string(s.strings.bytes(s.nodes.name(n)));
    }
    if kind != types.closure {
        return a.class_name(s, n);
    }
    let name = wtf8_to_string(s.strings.bytes(s.nodes.name(n)));
    let name = if name.is_empty() {
        "(anonymous)".to_string()
    } else {
        name
    };
    let Some(l) = s.location(n) else {
        return name;
    };
    let script = script_name(s, types, n).unwrap_or_else(|| format!("script {}", l.script_id));
    format!("{name} {script}:{}:{}", l.line + 1, l.column + 1)
}

/// The last segment of a closure's script URL ([`crate::scripts::closure_script`]).
fn script_name(s: &HeapSnapshot, types: &Types, closure: NodeOrdinal) -> Option<String> {
    let script = crate::scripts::closure_script(s, types, closure)?;
    let url = wtf8_to_string(s.strings.bytes(s.nodes.name(script)));
    if url.is_empty() || url.starts_with("system /") || url.starts_with('(') {
        return None;
    }
    let last = url.trim_end_matches('/').rsplit('/').next().unwrap_or(&url);
    Some(last.to_string())
}

/// Whether an edge's name is an index to fold: element and hidden edges, and internal edges named
/// by a number (the slots of a `Map`'s or `Set`'s hash table).
fn folded(s: &HeapSnapshot, types: &Types, e: EdgeOrdinal) -> bool {
    let kind = s.edges.kind(e);
    if kind == types.edge_element || kind == types.edge_hidden {
        return true;
    }
    if kind == types.edge_internal {
        let name = s.strings.bytes(s.edges.name_or_index(e));
        return !name.is_empty() && name.iter().all(u8::is_ascii_digit);
    }
    false
}

/// Path shapes, interned: a node's shape is its parent's shape plus the retaining step (retainer's
/// class, edge kind, edge name or [`FOLDED`]), numbered on first sight.
struct Shapes {
    of_node: Vec<u32>,
    ids: HashMap<(u32, ClassKey, u8, u32), u32>,
    stack: Vec<NodeOrdinal>,
}

impl Shapes {
    fn new(n: usize) -> Shapes {
        Shapes {
            of_node: vec![UNKNOWN; n],
            ids: HashMap::new(),
            stack: Vec::new(),
        }
    }

    fn of(
        &mut self,
        s: &HeapSnapshot,
        a: &Analysis,
        types: &Types,
        parent: &[EdgeOrdinal],
        n: NodeOrdinal,
        keys: &mut ClassKeys,
    ) -> u32 {
        // Walk up to a node whose shape is known or that ends a path (0 = the empty path). The walk
        // ends: along parents the distance falls by one each step.
        let mut x = n;
        let mut known = 0;
        loop {
            if self.of_node[x.index()] != UNKNOWN {
                known = self.of_node[x.index()];
                break;
            }
            if parent[x.index()] == NO_EDGE {
                break;
            }
            self.stack.push(x);
            x = edge_source(s, parent[x.index()]);
        }
        if self.of_node[x.index()] == UNKNOWN {
            self.of_node[x.index()] = known;
        }
        while let Some(y) = self.stack.pop() {
            let e = parent[y.index()];
            let from = edge_source(s, e);
            let name = if folded(s, types, e) {
                FOLDED
            } else {
                s.edges.name_or_index(e)
            };
            let step = (known, keys.of(s, a, types, from), s.edges.kind(e), name);
            let len = self.ids.len() as u32 + 1;
            known = *self.ids.entry(step).or_insert(len);
            self.of_node[y.index()] = known;
        }
        known
    }
}

/// The sample's path from the root side, each edge labelled as DevTools does with indexes folded.
fn path_of(
    s: &HeapSnapshot,
    a: &Analysis,
    types: &Types,
    parent: &[EdgeOrdinal],
    n: NodeOrdinal,
) -> Vec<LeakStep> {
    let mut steps = Vec::new();
    let mut x = n;
    while parent[x.index()] != NO_EDGE {
        let e = parent[x.index()];
        let from = edge_source(s, e);
        steps.push(LeakStep {
            edge: path_edge(s, types, e),
            class: display_class(s, a, types, from),
            place: Place::of(s, a, from),
        });
        x = from;
    }
    steps.reverse();
    steps
}

/// The edge's label with element indexes as `[]` and hidden or numbered internal slots as `{}`.
fn path_edge(s: &HeapSnapshot, types: &Types, e: EdgeOrdinal) -> String {
    let kind = s.edges.kind(e);
    if folded(s, types, e) {
        if kind == types.edge_element {
            "[]".to_string()
        } else {
            "{}".to_string()
        }
    } else {
        edge_label(s, e)
    }
}
