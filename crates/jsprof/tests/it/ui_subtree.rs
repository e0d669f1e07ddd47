//! "Focus on subtree only" (issue 19's last transform from a node) in the browser
//! (`tests/node/ui-subtree.mjs`): right-click a node of the Call tree, the flame graph, Bottom-up
//! or the flame chart, and the page's tree is `jsprof tree --focus-stack PATH`'s (or
//! `--focus-stack-inverted`'s), node by node; the address reopens it; Undo removes it. The paths
//! are read from `jsprof tree --json`, the expected trees printed by the CLI, whose focus other
//! tests (`filters::focus_stack_*`) tie to the unfiltered tree's nodes.

use serde_json::{json, Value};

use crate::filters::{folded_label, node_path};
use crate::support::{argv, fixtures, json_array, jsprof_json};
use crate::ui::view;

const FILE: &str = "cpu/node-mix.cpuprofile.gz";

fn case(case: &str, url: &str, expected: &Value) {
    crate::ui::node_case("ui-subtree.mjs", case, url, expected);
}

fn tree(extra: &[&str]) -> Value {
    let file = fixtures().join(FILE);
    let mut args = vec!["tree", "--json", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    jsprof_json(&args)
}

fn nodes(answer: &Value) -> &[Value] {
    json_array(&answer["nodes"])
}

/// The labels of node `id`'s path, from its tree's root.
fn labels(answer: &Value, id: u64) -> Vec<String> {
    node_path(nodes(answer), id)
        .iter()
        .map(|n| folded_label(n))
        .collect()
}

/// The shallowest node of function `name` `levels` below its first call, and its id.
fn node_of(answer: &Value, name: &str, levels: u64) -> u64 {
    let depth = |n: &Value| n["depth"].as_u64().unwrap();
    let of = |n: &&Value| n["name"] == name;
    let first = nodes(answer).iter().filter(of).map(depth).min().unwrap();
    let n = nodes(answer)
        .iter()
        .filter(of)
        .find(|n| depth(n) == first + levels)
        .unwrap_or_else(|| panic!("no {name} at depth {}", first + levels));
    n["id"].as_u64().unwrap()
}

/// From the Call tree: buildTree three calls into its recursion — a node whose total is not the
/// function's (that is what tells the subtree from *Focus on function*).
#[test]
fn subtree_from_the_call_tree_is_the_clis_and_the_address_keeps_it() {
    let full = tree(&[]);
    let id = node_of(&full, "buildTree", 2);
    let path = labels(&full, id);
    let focused = tree(&["--focus-stack", &path.join(";")]);
    let function_total: f64 =
        jsprof_json(&argv("top --json --limit 0 {}", &[&fixtures().join(FILE)]))["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "buildTree")
            .unwrap()["total_ms"]
            .as_f64()
            .unwrap();
    let node_total = nodes(&full).iter().find(|n| n["id"] == id).unwrap()["total_ms"]
        .as_f64()
        .unwrap();
    assert!(
        node_total < function_total - 0.1,
        "{node_total} vs {function_total}: pick another node"
    );
    let Some(v) = view(&[fixtures().join(FILE)]) else {
        return;
    };
    case(
        "tree",
        &v.url,
        &json!({"path": path, "full": full, "focused": focused}),
    );
}

/// The node of `nodes` with the most `weight` (`total_ms`, `self_ms`).
fn heaviest<'a>(nodes: impl Iterator<Item = &'a Value>, weight: &str) -> &'a Value {
    nodes
        .max_by(|a, b| {
            a[weight]
                .as_f64()
                .unwrap()
                .total_cmp(&b[weight].as_f64().unwrap())
        })
        .unwrap()
}

/// From the flame graph's widest `fib` frame, a Bottom-up node (the heaviest caller of the
/// heaviest function) and the flame chart's widest call of a function with one call path.
#[test]
fn subtree_from_the_flame_graph_bottom_up_and_flame_chart() {
    let full = tree(&[]);
    let Some(v) = view(&[fixtures().join(FILE)]) else {
        return;
    };

    let fib = heaviest(
        nodes(&full).iter().filter(|n| n["name"] == "fib"),
        "total_ms",
    );
    let path = labels(&full, fib["id"].as_u64().unwrap());
    let focused = tree(&["--focus-stack", &path.join(";")]);
    case("graph", &v.url, &json!({"path": path, "focused": focused}));

    let bottom = tree(&["--bottom-up", "--max-depth", "2"]);
    let caller = heaviest(nodes(&bottom).iter().filter(|n| n["depth"] == 1), "self_ms");
    let path = labels(&bottom, caller["id"].as_u64().unwrap());
    let focused = tree(&[
        "--bottom-up",
        "--max-depth",
        "2",
        "--focus-stack-inverted",
        &path.join(";"),
    ]);
    case("bottom", &v.url, &json!({"path": path, "focused": focused}));

    // The deepest function over half the profile that has one node: its calls in the chart
    // all have that path.
    let count = |name: &Value| nodes(&full).iter().filter(|n| n["name"] == *name).count();
    let one = nodes(&full)
        .iter()
        .filter(|n| n["total_percent"].as_f64().unwrap() > 50.0 && count(&n["name"]) == 1)
        .max_by_key(|n| n["depth"].as_u64().unwrap())
        .unwrap();
    let path = labels(&full, one["id"].as_u64().unwrap());
    let focused = tree(&["--focus-stack", &path.join(";")]);
    case(
        "chart",
        &v.url,
        &json!({"name": one["name"], "focused": focused}),
    );
}

/// On a trace the tables are the Performance panel's entries (engine events and JS calls): the
/// flame chart's call of a function with one path there focuses on that path too.
#[test]
fn subtree_from_a_traces_flame_chart() {
    let file = fixtures().join("trace/primes.trace.json.gz");
    let f = file.to_str().unwrap();
    let full = jsprof_json(&["tree", "--json", f]);
    let count = |name: &Value| nodes(&full).iter().filter(|n| n["name"] == *name).count();
    let one = nodes(&full)
        .iter()
        .filter(|n| n["total_percent"].as_f64().unwrap() > 20.0 && count(&n["name"]) == 1)
        .max_by_key(|n| n["depth"].as_u64().unwrap())
        .expect("a function with one path over 20 %");
    assert!(
        one["depth"].as_u64() > Some(2),
        "{one}: under engine events"
    );
    let path = labels(&full, one["id"].as_u64().unwrap());
    let focused = jsprof_json(&["tree", "--json", f, "--focus-stack", &path.join(";")]);
    let Some(v) = view(&[file]) else { return };
    case(
        "chart",
        &v.url,
        &json!({"name": one["name"], "focused": focused}),
    );
}
