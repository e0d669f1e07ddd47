//! Export → import round trips and "totals are the sum of the samples" on random profiles.
//!
//! The generator writes `.cpuprofile` / `.heapprofile` text (not model values), so the properties
//! go through the readers exactly as a file from disk does: random stack trees with recursion and
//! meta nodes, samples on any node (the root's too: gaps), time deltas that repeat and go back.
//! Only `.cpuprofile` and `.heapprofile` have readers; speedscope, pprof, folded and d3 are
//! export-only, so they have no round trip to check.

use std::collections::{BTreeMap, HashMap};

use jsprof_analysis::{
    apply_devtools_timing, bottom_up, clip, filter, function_table, time_origin, top_down,
    CallTree, CallTreeNode, Filters, TimeRange,
};
use jsprof_profile::export::cpuprofile_writer::write_cpuprofile;
use jsprof_profile::{Profile, Thread};
use proptest::prelude::*;
use regex::Regex;
use serde_json::{json, Value};

const NAMES: [&str; 9] = [
    "(program)",
    "(garbage collector)",
    "(idle)",
    "a",
    "b",
    "c",
    "d",
    "(anonymous)",
    "",
];
const URLS: [&str; 3] = [
    "file:///app/main.js",
    "file:///app/node_modules/lib/index.js",
    "",
];

/// One generated node: its parent (an earlier node; 0 is the root), name, url and position.
#[derive(Clone, Debug)]
struct NodeSpec {
    parent: usize,
    name: usize,
    url: usize,
    line: i64,
}

fn nodes_strategy() -> impl Strategy<Value = Vec<NodeSpec>> {
    (1usize..30).prop_flat_map(|n| {
        proptest::collection::vec(
            (
                any::<prop::sample::Index>(),
                0..NAMES.len(),
                0..URLS.len(),
                -1i64..4,
            ),
            n,
        )
        .prop_map(|specs| {
            let mut nodes = vec![NodeSpec {
                parent: usize::MAX,
                name: 0,
                url: 2,
                line: -1,
            }];
            for (i, (parent, name, url, line)) in specs.into_iter().enumerate() {
                let parent = parent.index(i + 1);
                // Meta names (program, GC, idle) only where V8 puts them: under the root.
                let name = if parent != 0 && name < 3 {
                    3 + name
                } else {
                    name
                };
                let (url, line) = if name < 3 { (2, -1) } else { (url, line) };
                nodes.push(NodeSpec {
                    parent,
                    name,
                    url,
                    line,
                });
            }
            nodes
        })
    })
}

fn call_frame(node: &NodeSpec, root: bool) -> Value {
    let name = if root { "(root)" } else { NAMES[node.name] };
    json!({"functionName": name, "scriptId": if node.url == 2 { "0" } else { "7" },
           "url": URLS[node.url], "lineNumber": node.line, "columnNumber": node.line.max(-1) * 3})
}

/// A `.cpuprofile` (modern `nodes` form) over `nodes` with samples `(node, delta µs)`.
fn cpuprofile_text(nodes: &[NodeSpec], samples: &[(prop::sample::Index, i64)]) -> String {
    let mut children = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate().skip(1) {
        children[n.parent].push(i as u64 + 1);
    }
    let nodes_json: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"id": i + 1, "callFrame": call_frame(n, i == 0), "children": children[i]}))
        .collect();
    let ids: Vec<u64> = samples
        .iter()
        .map(|(node, _)| node.index(nodes.len()) as u64 + 1)
        .collect();
    let deltas: Vec<i64> = samples.iter().map(|&(_, d)| d).collect();
    let end: i64 = 1_000 + deltas.iter().sum::<i64>().max(0);
    json!({"nodes": nodes_json, "startTime": 1_000, "endTime": end, "samples": ids, "timeDeltas": deltas})
        .to_string()
}

/// A `.heapprofile`: the same tree nested as `head`, each node with a self size.
fn heapprofile_text(nodes: &[NodeSpec], sizes: &[u32]) -> String {
    fn node(nodes: &[NodeSpec], sizes: &[u32], kids: &[Vec<usize>], i: usize) -> Value {
        let children: Vec<Value> = kids[i]
            .iter()
            .map(|&c| node(nodes, sizes, kids, c))
            .collect();
        json!({"callFrame": call_frame(&nodes[i], i == 0), "selfSize": sizes[i % sizes.len()],
               "id": i + 1, "children": children})
    }
    let mut kids = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate().skip(1) {
        kids[n.parent].push(i);
    }
    json!({"head": node(nodes, sizes, &kids, 0), "samples": []}).to_string()
}

/// Deltas in µs: mostly forward, often equal (0), sometimes backwards.
fn delta() -> impl Strategy<Value = i64> {
    prop_oneof![6 => 1i64..2_000, 2 => Just(0i64), 1 => -1_500i64..0]
}

fn samples_strategy() -> impl Strategy<Value = Vec<(prop::sample::Index, i64)>> {
    proptest::collection::vec((any::<prop::sample::Index>(), delta()), 0..80)
}

fn load(text: &str) -> Profile {
    let mut p = jsprof_profile::read(text.as_bytes()).expect("a generated profile loads");
    apply_devtools_timing(&mut p);
    p
}

/// A function by its strings, so two profiles (two string tables) compare.
type Key = (String, String, Option<u32>, Option<u32>);

fn key_of(p: &Profile, k: &jsprof_analysis::FunctionKey) -> Key {
    (
        p.strings.get(k.name).to_string(),
        p.strings.get(k.url).to_string(),
        k.line,
        k.column,
    )
}

/// Function → (self, total, samples).
fn table(p: &Profile) -> (BTreeMap<Key, (i64, i64, u64)>, i64) {
    let t = function_table(p, &p.threads[0]);
    let rows = t
        .rows
        .iter()
        .map(|r| {
            (
                key_of(p, &r.key),
                (r.self_weight, r.total_weight, r.samples),
            )
        })
        .collect();
    (rows, t.total_weight)
}

/// The top-down tree as (path of functions → self, total), independent of node order.
fn tree_paths(p: &Profile, tree: &CallTree) -> BTreeMap<Vec<Key>, (i64, i64)> {
    let mut out = BTreeMap::new();
    let mut todo: Vec<(u32, Vec<Key>)> = tree.roots.iter().map(|&r| (r, Vec::new())).collect();
    while let Some((i, mut path)) = todo.pop() {
        let n = &tree.nodes[i as usize];
        path.push(key_of(p, &n.function));
        for &c in &n.children {
            todo.push((c, path.clone()));
        }
        out.insert(path, (n.self_weight, n.total_weight));
    }
    out
}

fn export_cpuprofile(p: &Profile) -> String {
    let mut out = Vec::new();
    write_cpuprofile(&mut out, p, &p.threads[0]).expect("writing to memory");
    String::from_utf8(out).expect("the writer writes UTF-8")
}

/// The invariants every view relies on, for one thread: each tree and the table account for
/// every sample's weight exactly once.
/// The sum of `weight` over the nodes `ids` of `tree`.
fn sum_of(tree: &CallTree, ids: &[u32], weight: impl Fn(&CallTreeNode) -> i64) -> i64 {
    ids.iter().map(|&n| weight(&tree.nodes[n as usize])).sum()
}

fn check_totals(p: &Profile, thread: &Thread) -> Result<(), TestCaseError> {
    let weights: Vec<i64> = thread.weights().collect();
    let sum: i64 = weights.iter().sum();
    let gaps: i64 = thread
        .samples()
        .stack()
        .iter()
        .zip(&weights)
        .filter(|(s, _)| s.is_none())
        .map(|(_, w)| w)
        .sum();
    prop_assert!(
        weights.iter().all(|&w| w >= 0),
        "negative weight {weights:?}"
    );

    let table = function_table(p, thread);
    prop_assert_eq!(table.total_weight, sum);
    prop_assert_eq!(
        table.rows.iter().map(|r| r.self_weight).sum::<i64>() + gaps,
        sum
    );

    let td = top_down(p, thread);
    prop_assert_eq!(td.total_weight, sum);
    prop_assert_eq!(td.root_weight, gaps);
    let root_totals = sum_of(&td, &td.roots, |n| n.total_weight);
    prop_assert_eq!(root_totals + gaps, sum);
    prop_assert_eq!(
        td.nodes.iter().map(|n| n.self_weight).sum::<i64>() + gaps,
        sum
    );
    for n in &td.nodes {
        let kids = sum_of(&td, &n.children, |n| n.total_weight);
        prop_assert_eq!(
            n.total_weight,
            n.self_weight + kids,
            "top-down node {:?}",
            n
        );
    }

    let bu = bottom_up(p, thread);
    prop_assert_eq!(bu.total_weight, sum);
    prop_assert_eq!(bu.root_weight, gaps);
    let root_selves = sum_of(&bu, &bu.roots, |n| n.self_weight);
    prop_assert_eq!(root_selves + gaps, sum);
    // Bottom-up roots are the function table, row for row.
    let rows: HashMap<_, _> = table
        .rows
        .iter()
        .map(|r| (r.key, (r.self_weight, r.total_weight)))
        .collect();
    prop_assert_eq!(bu.roots.len(), rows.len());
    for &r in &bu.roots {
        let n = &bu.nodes[r as usize];
        prop_assert_eq!(
            rows.get(&n.function),
            Some(&(n.self_weight, n.total_weight))
        );
    }
    // A caller path carries part of the weight that reached its callee, never more.
    for n in &bu.nodes {
        for &c in &n.children {
            prop_assert!(bu.nodes[c as usize].total_weight <= n.total_weight);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Writing a timed profile as `.cpuprofile` and reading it back gives the same function table
    /// and the same top-down tree: the writer leaves DevTools' timing in a form the timing rules,
    /// applied again, leave alone.
    #[test]
    fn cpuprofile_export_import_keeps_the_numbers(nodes in nodes_strategy(), samples in samples_strategy()) {
        let first = load(&cpuprofile_text(&nodes, &samples));
        let exported = export_cpuprofile(&first);
        let second = load(&exported);
        prop_assert_eq!(table(&first), table(&second), "exported: {}", exported);
        prop_assert_eq!(
            tree_paths(&first, &top_down(&first, &first.threads[0])),
            tree_paths(&second, &top_down(&second, &second.threads[0]))
        );
        // And a second export is byte for byte the first: the round trip is a fixed point.
        prop_assert_eq!(export_cpuprofile(&second), exported);
    }

    /// The same for a sampling heap profile (bytes, no times), written as `.heapprofile`.
    #[test]
    fn heapprofile_export_import_keeps_the_numbers(
        nodes in nodes_strategy(),
        sizes in proptest::collection::vec(prop_oneof![Just(0u32), 1u32..1_000_000], 1..8),
    ) {
        let first = load(&heapprofile_text(&nodes, &sizes));
        let second = load(&export_cpuprofile(&first));
        prop_assert_eq!(table(&first), table(&second));
    }

    /// Totals equal the sum of the samples for the table and both trees, on the profile as read
    /// and under every transform: each filter alone, all together, and a time window.
    #[test]
    fn totals_are_the_sum_of_samples_under_every_transform(
        nodes in nodes_strategy(),
        samples in samples_strategy(),
        window in (0i64..40_000_000, 0i64..40_000_000),
    ) {
        let p = load(&cpuprofile_text(&nodes, &samples));
        check_totals(&p, &p.threads[0])?;
        let focus = || vec![Regex::new("^b$").unwrap()];
        let exclude = || vec![Regex::new("^(c|\\(idle\\))$").unwrap()];
        let transforms = [
            Filters { focus: focus(), ..Filters::default() },
            Filters { exclude: exclude(), ..Filters::default() },
            Filters { hide_idle: true, ..Filters::default() },
            Filters { drop: vec![Regex::new("^c$").unwrap()], ..Filters::default() },
            Filters { collapse_packages: true, ..Filters::default() },
            Filters { collapse_recursion: true, ..Filters::default() },
            Filters {
                focus: focus(),
                exclude: exclude(),
                hide_idle: true,
                drop: vec![Regex::new("^a$").unwrap()],
                collapse_packages: true,
                collapse_recursion: true,
                ..Filters::default()
            },
        ];
        for filters in &transforms {
            let q = filter(&p, filters);
            check_totals(&q, &q.threads[0])?;
        }
        // Subtree focuses on a sampled stack's own path: its upper half, and its leaf with the
        // caller (Bottom-up).
        if let Some(leaf) = p.threads[0].samples().stack().iter().flatten().next() {
            let mut path: Vec<String> = p
                .stacks
                .frames_leaf_first(Some(*leaf))
                .map(|f| jsprof_profile::export::folded::folded_label(&p, f))
                .collect();
            let inverted: Vec<String> = path.iter().take(2).cloned().collect();
            path.reverse();
            path.truncate(path.len().div_ceil(2));
            for filters in [
                Filters { focus_stack: vec![path], ..Filters::default() },
                Filters { focus_stack_inverted: vec![inverted], ..Filters::default() },
            ] {
                let q = filter(&p, &filters);
                check_totals(&q, &q.threads[0])?;
                prop_assert!(q.warnings.len() == p.warnings.len(), "{:?}", q.warnings);
            }
        }
        let (a, b) = window;
        let range = TimeRange { start: Some(a.min(b)), end: Some(a.max(b)) };
        let clipped = clip(&p, range, time_origin(&p)).expect("a timed profile clips");
        check_totals(&clipped, &clipped.threads[0])?;
        // A window never holds more than the whole.
        let whole: i64 = p.threads[0].weights().sum();
        prop_assert!(clipped.threads[0].weights().sum::<i64>() <= whole);
    }
}
