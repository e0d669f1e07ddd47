//! What `jsprof report` embeds of a snapshot's Containment view: the pages the UI's
//! `…/heap/edges/{node}` route answers (`jsprof heap edges FILE NODE --limit N --json`), for the
//! snapshot's root and, within a budget, a few levels down the largest children: enough to walk
//! the biggest paths of a report opened from disk, with no server to ask for the rest.

use std::collections::{HashSet, VecDeque};

use jsprof_heap::{containment_edges, Analysis, HeapSnapshot, NodeOrdinal};

use crate::heap_edges::{edges_report, EdgeDirection, EdgesReport};

/// How much of the Containment tree a report embeds.
#[derive(Clone, Copy, Debug)]
pub struct ContainmentLimits {
    /// Edges per page: the UI's page (heapviews.js' `EDGE_PAGE`), so that an embedded page is the
    /// page the live view would have asked for.
    pub edges_per_page: usize,
    /// Pages (objects whose edges are embedded), the root's included.
    pub pages: usize,
    /// Of each embedded page, how many of its first (largest retained) objects open in turn.
    pub opened_per_page: usize,
    /// Levels below the root.
    pub depth: usize,
}

impl Default for ContainmentLimits {
    fn default() -> Self {
        ContainmentLimits {
            edges_per_page: 50,
            pages: 80,
            opened_per_page: 4,
            depth: 6,
        }
    }
}

/// The root's first page of outgoing edges, then breadth-first the first page of each of the
/// largest objects below it (each object once, however many edges reach it), until `limits` are
/// spent. Each page is exactly `edges_report`'s for that object, offset 0.
pub fn containment_pages(
    s: &HeapSnapshot,
    a: &Analysis,
    limits: ContainmentLimits,
) -> Vec<EdgesReport> {
    let page = |n: NodeOrdinal| {
        edges_report(
            s,
            a,
            None,
            EdgeDirection::Containment,
            n,
            0,
            limits.edges_per_page,
        )
    };
    let mut seen = HashSet::from([s.root]);
    let mut queue = VecDeque::from([(s.root, 0usize)]);
    let mut pages = Vec::new();
    while let Some((n, depth)) = queue.pop_front() {
        if pages.len() >= limits.pages {
            break;
        }
        let report = page(n);
        if depth < limits.depth {
            // The page's objects, in its order (`containment_edges` is the order `edges_report`
            // lists them in).
            let targets = containment_edges(s, a, n)
                .into_iter()
                .take(limits.edges_per_page)
                .map(|e| s.edges.to_node(e));
            let opened = targets
                .zip(&report.edges)
                .filter(|(_, e)| e.edge_count > 0)
                .map(|(o, _)| o)
                .filter(|&o| seen.insert(o))
                .take(limits.opened_per_page);
            queue.extend(opened.map(|o| (o, depth + 1)));
        }
        pages.push(report);
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leak_final() -> jsprof_heap::Opened {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/heap/leak-3-final.heapsnapshot.gz");
        let read = || {
            let reader = crate::text::open_reader(&path).expect("the fixture reads");
            jsprof_heap::read_snapshot_with(reader, jsprof_heap::ReadOptions::default())
        };
        jsprof_heap::open_analysed(None, None, read, &mut |_| {}).expect("the fixture opens")
    }

    /// Every page is the edges route's page of its object (offset 0), the root's first; each
    /// object has one page, and is the root or an object listed on an earlier page no deeper than
    /// the depth allows; the budget holds: one level down, the root and the 3 largest of its
    /// objects with edges; six levels down, the 12 pages of the budget.
    #[test]
    fn pages_are_the_edge_routes_pages_down_from_the_root_within_the_budget() {
        let opened = leak_final();
        let (s, a) = (&opened.snapshot, &opened.analysis);
        for (depth, budget, expected) in [(1, 100, 4), (6, 12, 12)] {
            let limits = ContainmentLimits {
                pages: budget,
                opened_per_page: 3,
                depth,
                ..ContainmentLimits::default()
            };
            let pages = containment_pages(s, a, limits);
            assert_eq!(pages.len(), expected, "{limits:?}");
            check_pages(s, a, &pages, limits);
        }
    }

    fn check_pages(
        s: &HeapSnapshot,
        a: &Analysis,
        pages: &[EdgesReport],
        limits: ContainmentLimits,
    ) {
        assert_eq!(pages[0].object.id, s.nodes.id(s.root));
        let mut depth_of = std::collections::HashMap::from([(pages[0].object.id, 0)]);
        for (i, page) in pages.iter().enumerate() {
            let id = page.object.id;
            let depth = *depth_of
                .get(&id)
                .unwrap_or_else(|| panic!("page {i}, @{id}, is reached from no earlier page"));
            assert!(depth <= limits.depth, "@{id} is {depth} deep");
            let node = s.find_id(id).unwrap();
            let route = edges_report(s, a, None, EdgeDirection::Containment, node, 0, 50);
            assert_eq!(
                serde_json::to_string(page).unwrap(),
                serde_json::to_string(&route).unwrap()
            );
            for e in &page.edges {
                depth_of.entry(e.object.id).or_insert(depth + 1);
            }
        }
        let mut ids: Vec<u32> = pages.iter().map(|p| p.object.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), pages.len(), "each object once");
    }
}
