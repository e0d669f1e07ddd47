//! Distance from the roots, as the Summary's "Distance" column shows it.
//!
//! A first breadth-first pass starts at the user roots (distance 1); a second starts at the root itself
//! with distance 100 000 000 (`baseSystemDistance`) for what only the GC roots hold. Unreached nodes keep
//! -5. Both passes skip weak edges and the edges DevTools' JS filter drops: the `sloppy_function_map`
//! of a native context, odd descriptor slots of `(map descriptors)` (crbug.com/413608), and the first
//! edge seen of each WeakMap ephemeron pair, so a value's distance is the larger of its key's and its
//! table's plus one (crbug.com/1290800). That last rule depends on visiting order: FIFO, edge order.

use std::collections::{HashSet, VecDeque};

use crate::bits::BitVec;
use crate::essential::WeakMapNames;
use crate::flags::is_user_root;
use crate::snapshot::{EdgeOrdinal, HeapSnapshot, NodeOrdinal, Types};

pub const NO_DISTANCE: i32 = -5;
pub const BASE_SYSTEM_DISTANCE: i32 = 100_000_000;

pub(crate) fn compute(s: &HeapSnapshot, types: &Types, names: &mut WeakMapNames) -> Vec<i32> {
    let n = s.nodes.len();
    let mut walk = Walk {
        distances: vec![NO_DISTANCE; n],
        reached: BitVec::new(n),
        queue: VecDeque::new(),
    };
    let mut filter = EdgeFilter {
        s,
        types,
        names,
        pending: HashSet::new(),
    };

    for e in s.nodes.edges(s.root) {
        let to = s.edges.to_node(e);
        if is_user_root(s, types, to) {
            walk.reach(to, 1);
        }
    }
    let seeded = !walk.queue.is_empty();
    walk.bfs(s, types, &mut filter);
    // The first pass leaves the queue empty.
    walk.reach(s.root, if seeded { BASE_SYSTEM_DISTANCE } else { 0 });
    walk.bfs(s, types, &mut filter);
    walk.distances
}

/// The breadth-first passes' state.
struct Walk {
    distances: Vec<i32>,
    /// Whether a node has a distance, as a bit: tested once per edge at random, and a bit vector
    /// stays in cache where `distances` (4 bytes a node) does not.
    reached: BitVec,
    /// A ring of the frontier only: a queue of every node reached (4 bytes a node) would sit
    /// beside the dominator arrays, which are computed at the same time.
    queue: VecDeque<NodeOrdinal>,
}

impl Walk {
    #[inline]
    fn reach(&mut self, node: NodeOrdinal, distance: i32) {
        self.distances[node.index()] = distance;
        self.reached.set(node.index());
        self.queue.push_back(node);
    }

    fn bfs(&mut self, s: &HeapSnapshot, types: &Types, filter: &mut EdgeFilter<'_, '_>) {
        while let Some(node) = self.queue.pop_front() {
            let distance = self.distances[node.index()] + 1;
            for e in s.nodes.edges(node) {
                if s.edges.kind(e) == types.edge_weak {
                    continue;
                }
                let child = s.edges.to_node(e);
                if self.reached.get(child.index()) || !filter.keep(node, e) {
                    continue;
                }
                self.reach(child, distance);
            }
        }
    }
}

struct EdgeFilter<'a, 'b> {
    s: &'a HeapSnapshot,
    types: &'a Types,
    names: &'b mut WeakMapNames,
    /// Ephemeron pairs of which one edge has been seen, by the part of the name both edges share.
    pending: HashSet<&'a [u8]>,
}

impl EdgeFilter<'_, '_> {
    fn keep(&mut self, node: NodeOrdinal, e: EdgeOrdinal) -> bool {
        let s = self.s;
        let t = self.types;
        let kind = s.nodes.kind(node);
        let edge_kind = s.edges.kind(e);
        let name = s.edges.name_or_index(e);
        let node_name = s.strings.bytes(s.nodes.name(node));
        if kind == t.hidden
            && t.edge_has_string_name(edge_kind)
            && s.strings.bytes(name) == b"sloppy_function_map"
            && node_name == b"system / NativeContext"
        {
            return false;
        }
        if kind == t.array && node_name == b"(map descriptors)" {
            let index = if t.edge_has_string_name(edge_kind) {
                js_parse_int(s.strings.bytes(name))
            } else {
                Some(name as i64)
            };
            return match index {
                Some(i) => i < 2 || i % 3 != 1,
                None => true,
            };
        }
        if edge_kind == t.edge_internal {
            if let Some(m) = self.names.get(s, name) {
                let shared = &s.strings.bytes(name)[m.shared_start..];
                if !self.pending.remove(shared) {
                    self.pending.insert(shared);
                    return false;
                }
            }
        }
        true
    }
}

/// JavaScript's `parseInt(text, 10)`: optional whitespace and sign, then leading digits; `None` for NaN.
pub(crate) fn js_parse_int(text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text)
        .ok()
        .map_or(text, |s| s.trim_start().as_bytes());
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let count = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if count == 0 {
        return None;
    }
    let value = digits[..count].iter().fold(0i64, |acc, &d| {
        acc.saturating_mul(10).saturating_add((d - b'0') as i64)
    });
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::js_parse_int;

    #[test]
    fn parse_int_like_javascript() {
        assert_eq!(js_parse_int(b"12abc"), Some(12));
        assert_eq!(js_parse_int(b"  -7"), Some(-7));
        assert_eq!(js_parse_int(b"abc"), None);
        assert_eq!(js_parse_int(b""), None);
    }
}
