//! The filter flags (`--focus`, `--exclude`, `--drop`, `--hide-idle`, `--collapse-packages`,
//! `--collapse-recursion`) and `tree --sandwich` on every sampled fixture. Expected values come from the unfiltered
//! `top`/`tree` (checked against DevTools' numbers elsewhere) by hand-written arithmetic: focus
//! keeps exactly the function's total, exclude and collapse keep the total.

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{
    argv, fixture_arg, fixtures, json_array, jsprof, jsprof_json, jsprof_ok, refused, report_data,
    temp_file,
};
use crate::views::{key, weights, Key, SAMPLED_FIXTURES};

fn top(path: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["top", "--json", "--limit", "0", path];
    args.extend_from_slice(extra);
    jsprof_json(&args)["functions"].as_array().unwrap().clone()
}

fn self_sum(rows: &[Value]) -> f64 {
    rows.iter().map(|f| weights(f).0).sum()
}

fn by_key(rows: &[Value]) -> HashMap<Key, (f64, f64)> {
    rows.iter().map(|f| (key(f), weights(f))).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// The heaviest function (by total) whose name is unique in the table, a plain identifier, and
/// not one of DevTools' pseudo-functions: `(name, its (self, total))`.
fn focus_target(rows: &[Value], nested: bool, path: &str) -> (String, (f64, f64)) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for f in rows {
        *count.entry(f["name"].as_str().unwrap()).or_default() += 1;
    }
    let roots: Vec<String> = if nested {
        let tree = jsprof_json(&["tree", "--json", "--max-depth", "1", path]);
        json_array(&tree["nodes"])
            .iter()
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect()
    } else {
        Vec::new()
    };
    let mut best: Option<(String, (f64, f64))> = None;
    for f in rows {
        let name = f["name"].as_str().unwrap();
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if !plain || count[name] != 1 || (nested && roots.iter().any(|r| r == name)) {
            continue;
        }
        let w = weights(f);
        if best.as_ref().is_none_or(|b| w.1 > b.1 .1) {
            best = Some((name.to_string(), w));
        }
    }
    best.unwrap_or_else(|| panic!("{path}: no function to focus on"))
}

/// Runs `check` on every sampled fixture: its name and its path as the CLI takes it.
fn each_sampled(mut check: impl FnMut(&str, &str)) {
    for input in SAMPLED_FIXTURES {
        let path = fixtures().join(input);
        check(input, path.to_str().unwrap());
    }
}

/// Each sampled fixture, its whole `top` table and the function the filters are tried on
/// (`focus_target`, one called by others when `nested`) with its self and total weights.
fn each_target(nested: bool, mut check: impl FnMut(&str, &str, &[Value], &str, (f64, f64))) {
    each_sampled(|input, path| {
        let (all, name, weights) = target_in(path, nested);
        check(input, path, &all, &name, weights);
    });
}

/// `path`'s whole `top` table and the function the filters are tried on (see [`each_target`]).
fn target_in(path: &str, nested: bool) -> (Vec<Value>, String, (f64, f64)) {
    let all = top(path, &[]);
    let (name, weights) = focus_target(&all, nested, path);
    (all, name, weights)
}

fn pattern(name: &str) -> String {
    format!("^{}$", name.replace('$', "\\$"))
}

#[test]
fn focus_keeps_exactly_the_time_under_the_function() {
    each_target(false, |input, path, _, name, (_, total)| {
        let re = pattern(name);
        let focused = top(path, &["--focus", &re]);
        // Everything left ran under `name`, and all of `name`'s time is left.
        assert!(
            close(self_sum(&focused), total),
            "{input}: focus {name}: {} kept, its total {total}",
            self_sum(&focused)
        );
        let row = focused.iter().find(|f| f["name"] == name).unwrap();
        assert!(close(weights(row).1, total), "{input}: {name}");
        // Re-rooted: the tree has the function as its only root.
        let tree = jsprof_json(&["tree", "--json", "--max-depth", "1", path, "--focus", &re]);
        let roots: Vec<&str> = json_array(&tree["nodes"])
            .iter()
            .map(|n| n["name"].as_str().unwrap())
            .collect();
        assert_eq!(roots, [name], "{input}");
    });
}

/// After `flag NAME`, the rows left (`kept`) have self times summing to `want`, and none is NAME.
fn assert_left_out(input: &str, flag: &str, name: &str, kept: &[Value], want: f64) {
    assert!(
        close(self_sum(kept), want),
        "{input}: {flag} {name}: {} kept, {want} expected",
        self_sum(kept)
    );
    assert!(
        !kept.iter().any(|f| f["name"] == name),
        "{input}: {flag} {name} is still a row"
    );
}

#[test]
fn drop_leaves_out_exactly_the_functions_total() {
    each_target(true, |input, path, all, name, (_, total)| {
        let dropped = top(path, &["--drop", &pattern(name)]);
        // What leaves the table is the function's total; it is gone, and no function gains.
        assert_left_out(input, "--drop", name, &dropped, self_sum(all) - total);
        let before = by_key(all);
        for f in &dropped {
            let (s, t) = weights(f);
            let (s0, t0) = before[&key(f)];
            assert!(
                s <= s0 + 1e-9 && t <= t0 + 1e-9,
                "{input}: {:?} grew",
                key(f)
            );
        }
        // Dropping and focusing on the same function split the profile in two.
        let focused = top(path, &["--focus", &pattern(name)]);
        assert!(
            close(self_sum(&dropped) + self_sum(&focused), self_sum(all)),
            "{input}: drop + focus {name}"
        );
    });
}

/// `tree --sandwich`: the function's row is `top`'s; its callers are Bottom-up's rows under it
/// (`tree --bottom-up`); its callees are the tree `--focus` re-roots at it — two code paths,
/// one answer.
#[test]
fn sandwich_is_top_bottom_up_and_focus() {
    each_target(true, |input, path, _, name, (self_ms, total)| {
        let re = pattern(name);
        let doc = jsprof_json(&["tree", "--json", path, "--sandwich", &re]);
        assert_eq!(doc["view"], "sandwich", "{input}");
        assert_eq!(doc["function"]["name"], name, "{input}");
        let w = weights(&doc["function"]);
        assert!(
            close(w.0, self_ms) && close(w.1, total),
            "{input}: {name}: {w:?}"
        );
        assert!(json_array(&doc["other_matches"]).is_empty(), "{input}");
        let nodes = |v: &Value| -> Vec<(String, u64, f64, f64)> {
            json_array(v)
                .iter()
                .map(|n| {
                    let (s, t) = weights(n);
                    (
                        n["name"].as_str().unwrap().to_string(),
                        n["depth"].as_u64().unwrap(),
                        s,
                        t,
                    )
                })
                .collect()
        };
        let same =
            |what: &str, got: &[(String, u64, f64, f64)], want: &[(String, u64, f64, f64)]| {
                assert_eq!(
                    got.len(),
                    want.len(),
                    "{input}: {what}: {got:?}\nvs {want:?}"
                );
                for (g, w) in got.iter().zip(want) {
                    assert!(
                        g.0 == w.0 && g.1 == w.1 && close(g.2, w.2) && close(g.3, w.3),
                        "{input}: {what}: {g:?} vs {w:?}"
                    );
                }
            };
        // Callers: the Bottom-up subtree of the function's root.
        let up = jsprof_json(&["tree", "--json", "--bottom-up", path]);
        let up = nodes(&up["nodes"]);
        let at = up.iter().position(|n| n.0 == name && n.1 == 0).unwrap();
        let end = up[at + 1..]
            .iter()
            .position(|n| n.1 == 0)
            .map_or(up.len(), |e| at + 1 + e);
        let callers = nodes(&doc["callers"]);
        same("callers", &callers, &up[at..end]);
        // Callees: the top-down tree focused on the function (filter + top-down, not the
        // sandwich's own walk).
        let focused = jsprof_json(&["tree", "--json", path, "--focus", &re]);
        same(
            "callees",
            &nodes(&doc["callees"]),
            &nodes(&focused["nodes"]),
        );
        assert!(close(nodes(&doc["callees"])[0].3, total), "{input}");
    });
    // A pattern that matches several functions takes the heaviest and names the others; one
    // that matches none is an error naming the flag.
    let path = &fixture_arg("cpu/node-mix.cpuprofile.gz");
    let doc = jsprof_json(&["tree", "--json", path, "--sandwich", "."]);
    let heaviest = top(path, &["--by", "total"]);
    assert!(close(weights(&doc["function"]).1, weights(&heaviest[0]).1));
    assert!(!json_array(&doc["other_matches"]).is_empty());
    let err = refused(&["tree", path, "--sandwich", "^no such function$"]);
    assert!(
        err.contains("--sandwich") && err.contains("node-mix"),
        "{err}"
    );
}

#[test]
fn exclude_charges_callers_and_keeps_the_total() {
    each_target(true, |input, path, all, name, _| {
        let excluded = top(path, &["--exclude", &pattern(name)]);
        assert_left_out(input, "--exclude", name, &excluded, self_sum(all));
    });
}

#[test]
fn collapse_recursion_keeps_every_self_time() {
    each_sampled(|input, path| {
        let all = by_key(&top(path, &[]));
        let collapsed = by_key(&top(path, &["--collapse-recursion"]));
        // A function seen only between two calls of a recursive one leaves the table; it had no
        // self time there.
        for (k, (s, _)) in &all {
            let now = collapsed.get(k).map_or(0.0, |w| w.0);
            assert!(close(now, *s), "{input}: {k:?}");
        }
        assert!(collapsed.keys().all(|k| all.contains_key(k)), "{input}");
    });
}

#[test]
fn collapse_packages_sums_each_package() {
    // tsc's compiler lives in node_modules/ts5: one frame `ts5` gets all its functions' self.
    let path = &fixture_arg("cpu/tsc.cpuprofile.gz");
    let all = top(path, &[]);
    let collapsed = top(path, &["--collapse-packages"]);
    assert!(close(self_sum(&collapsed), self_sum(&all)));
    let in_ts5: f64 = all
        .iter()
        .filter(|f| f["url"].as_str().unwrap().contains("/node_modules/ts5/"))
        .map(|f| weights(f).0)
        .sum();
    assert!(in_ts5 > 0.0);
    let ts5 = collapsed.iter().find(|f| f["name"] == "ts5").unwrap();
    assert!(
        close(weights(ts5).0, in_ts5),
        "{} vs {in_ts5}",
        weights(ts5).0
    );
    assert!(ts5["url"].as_str().unwrap().ends_with("/node_modules/ts5"));
    assert!(!collapsed
        .iter()
        .any(|f| f["url"].as_str().unwrap().contains("/node_modules/ts5/")));
    // Functions outside packages keep their self time.
    let all = by_key(&all);
    for f in &collapsed {
        if !f["url"].as_str().unwrap().contains("node_modules") {
            assert!(close(weights(f).0, all[&key(f)].0), "{f}");
        }
    }
}

#[test]
fn hide_idle_leaves_out_idle_only() {
    let path = &fixture_arg("cpu/tsc.cpuprofile.gz");
    let all = top(path, &[]);
    assert!(all.iter().any(|f| f["name"] == "(idle)"));
    let hidden = top(path, &["--hide-idle"]);
    let all = by_key(&all);
    assert_eq!(hidden.len() + 1, all.len());
    for f in &hidden {
        assert_ne!(f["name"], "(idle)");
        assert!(close(weights(f).0, all[&key(f)].0), "{f}");
    }
}

#[test]
fn every_view_takes_the_filters() {
    let path = &fixture_arg("cpu/tsc.cpuprofile.gz");
    let (all, name, (_, total_ms)) = target_in(path, false);
    let re = pattern(&name);

    // Folded stacks: every stack but the gaps starts at the function; they add up to its total.
    let folded = temp_file("focus.folded", b"");
    jsprof_ok(&argv(
        "export {} -f folded -o {} --focus {}",
        &[&path, &folded, &re],
    ));
    let text = std::fs::read_to_string(&folded).unwrap();
    let mut under = 0.0;
    for line in text.lines() {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        if stack == "(root)" {
            continue;
        }
        assert!(stack.starts_with(&format!("{name} ")), "{line}");
        under += w.parse::<f64>().unwrap();
    }
    assert!(
        (under / 1e3 - total_ms).abs() < 0.002,
        "{under} µs vs {total_ms} ms"
    );

    // Timeline events: the function's outermost calls add up to its total.
    let events = jsprof_json(&argv(
        "events {} --json --mode unique-events --focus {}",
        &[&path, &re],
    ));
    let ev = json_array(&events["events"]);
    let f = ev.iter().find(|e| e["name"] == name.as_str()).unwrap();
    assert!((f["total_ms"].as_f64().unwrap() - total_ms).abs() < 1e-3);
    let names: std::collections::HashSet<&str> =
        all.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(ev
        .iter()
        .all(|e| names.contains(e["name"].as_str().unwrap())));

    // SVGs are written.
    for cmd in ["flamegraph", "flamechart"] {
        let svg = temp_file(&format!("focus-{cmd}.svg"), b"");
        jsprof_ok(&argv(
            "{} {} -o {} --focus {} --hide-idle",
            &[&cmd, &path, &svg, &re],
        ));
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(
            text.contains(&format!(">{name}<")) || text.contains(&name),
            "{cmd}"
        );
    }

    // A bad pattern is a usage error naming it.
    let err = refused(&["top", path, "--focus", "("]);
    assert!(err.contains("bad regular expression `(`"), "{err}");
}

/// The JS calls of a trace's unique events: name → (total ms, hits).
fn trace_calls(path: &str, extra: &[&str]) -> HashMap<String, (f64, u64)> {
    let mut args = vec!["events", "--json", "--mode", "unique-events", path];
    args.extend_from_slice(extra);
    let doc = jsprof_json(&args);
    let mut out = HashMap::new();
    let mut todo: Vec<&Value> = json_array(&doc["events"]).iter().collect();
    while let Some(e) = todo.pop() {
        if e["type"] == "JS_CALL" {
            let name = e["name"].as_str().unwrap().to_string();
            out.insert(
                name,
                (e["total_ms"].as_f64().unwrap(), e["hits"].as_u64().unwrap()),
            );
        }
        if let Some(c) = e["children"].as_array() {
            todo.extend(c);
        }
    }
    out
}

/// Focus on a trace: the trace engine's calls of the focused function are exactly the
/// unfiltered ones (same total, same count), functions never called under it are gone, and
/// events tagged with a `sampleTraceId` (page.trace has them) take the filtered stacks. A focus
/// that matches nothing leaves no JS calls (it used to panic on the stale tagged stacks).
#[test]
fn focus_on_a_trace_keeps_the_focused_calls() {
    for (file, focus, outside) in [
        ("trace/page.trace.json.gz", "branchB", "touchDom"),
        ("trace/primes.trace.json.gz", "sortBig", "isPrime"),
    ] {
        let path = &fixture_arg(file);
        let all = trace_calls(path, &[]);
        let re = format!("^{focus}$");
        let focused = trace_calls(path, &["--focus", &re]);
        let (want, got) = (all[focus], focused[focus]);
        assert!(
            close(want.0, got.0) && want.1 == got.1,
            "{file}: {focus} unfiltered {want:?}, focused {got:?}"
        );
        assert!(all.contains_key(outside), "{file}: {outside} unfiltered");
        assert!(
            !focused.contains_key(outside),
            "{file}: {outside} is not under {focus}"
        );
        for (name, (total, _)) in &focused {
            assert!(
                *total <= want.0 + 1e-6,
                "{file}: {name} ({total} ms) outside {focus} ({} ms)",
                want.0
            );
        }
        let none = trace_calls(path, &["--focus", "^no such function$"]);
        assert!(none.is_empty(), "{file}: {none:?}");
    }
}

/// `jsprof report --focus` bakes the filter into every embedded view: the trees are re-rooted
/// at the function with exactly its total, the chart's top-level calls are its calls, and the
/// subtitle says so. A heap snapshot refuses filters.
#[test]
fn report_takes_the_filters() {
    let path = &fixture_arg("cpu/node-mix.cpuprofile.gz");
    let (_, name, (_, total_ms)) = target_in(path, true);
    let re = pattern(&name);
    let data = report_data(&[path, "--focus", &re]);
    assert!(
        data["subtitle"]
            .as_str()
            .unwrap()
            .contains(&format!("focus {re}")),
        "{}",
        data["subtitle"]
    );
    let name_of = |doc: &Value, f: u64| -> String {
        let s = doc["functions"][f as usize][0].as_u64().unwrap();
        doc["strings"][s as usize].as_str().unwrap().to_string()
    };
    let p = &data["profile"];
    let nodes = &p["top_down"]["nodes"];
    let roots: Vec<usize> = (0..nodes["p"].as_array().unwrap().len())
        .filter(|&i| nodes["p"][i] == -1)
        .collect();
    assert_eq!(roots.len(), 1, "one root, {name}");
    assert_eq!(name_of(p, nodes["f"][roots[0]].as_u64().unwrap()), name);
    let kept = nodes["t"][roots[0]].as_f64().unwrap();
    assert!(
        (kept - total_ms).abs() <= 0.001,
        "report focus kept {kept} ms, {name}'s total is {total_ms} ms"
    );
    let chart = &data["chart"];
    let ev = &chart["events"];
    let n = json_array(&ev["p"]).len();
    assert!(n > 0);
    for i in (0..n).filter(|&i| ev["p"][i] == -1 && ev["f"][i].as_i64().unwrap() >= 0) {
        assert_eq!(name_of(chart, ev["f"][i].as_u64().unwrap()), name);
    }
    let snapshot = fixtures().join("heap/node-small.heapsnapshot.gz");
    let out = jsprof(&argv("report {} --focus x -o -", &[&snapshot]));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not to a heap snapshot"));
}

/// A tree node's frame as `--focus-stack` takes it: `export --folded`'s label, built here from
/// the JSON's fields (`name url:line:column`, `(anonymous)`, `;` written `:`).
pub fn folded_label(n: &Value) -> String {
    let name = n["name"].as_str().unwrap();
    let mut label = if name.is_empty() { "(anonymous)" } else { name }.to_string();
    let url = n["url"].as_str().unwrap();
    if !url.is_empty() {
        label.push(' ');
        label.push_str(url);
        if let Some(line) = n["line"].as_u64() {
            label.push_str(&format!(":{line}"));
            if let Some(column) = n["column"].as_u64() {
                label.push_str(&format!(":{column}"));
            }
        }
    }
    label.replace(';', ":").replace(['\n', '\r'], " ")
}

/// A chain of tree nodes, root first, as `--focus-stack` takes it: their folded labels joined
/// with `;`.
fn folded_path(chain: &[&Value]) -> String {
    chain
        .iter()
        .map(|n| folded_label(n))
        .collect::<Vec<_>>()
        .join(";")
}

/// The path of node `id` in a `tree --json` answer, from its root: its nodes, root first.
pub fn node_path(nodes: &[Value], id: u64) -> Vec<&Value> {
    let by_id: HashMap<u64, &Value> = nodes
        .iter()
        .map(|n| (n["id"].as_u64().unwrap(), n))
        .collect();
    let mut path = vec![by_id[&id]];
    while let Some(p) = path.last().unwrap()["parent"].as_u64() {
        path.push(by_id[&p]);
    }
    path.reverse();
    path
}

/// The root nodes of a tree answer's `nodes`.
fn roots_of(nodes: &[Value]) -> Vec<&Value> {
    nodes.iter().filter(|n| n["parent"].is_null()).collect()
}

/// Nodes worth focusing on: the heaviest at a few depths and the heaviest of the deepest.
fn subtree_targets(nodes: &[Value], weight: impl Fn(&Value) -> f64) -> Vec<u64> {
    let max_depth = nodes
        .iter()
        .map(|n| n["depth"].as_u64().unwrap())
        .max()
        .unwrap();
    let mut ids = Vec::new();
    for depth in [0, 1, 2, 4, max_depth / 2, max_depth] {
        let best = nodes
            .iter()
            .filter(|n| n["depth"].as_u64() == Some(depth) && weight(n) > 0.0)
            .max_by(|a, b| weight(a).total_cmp(&weight(b)));
        if let Some(n) = best {
            let id = n["id"].as_u64().unwrap();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// The children of `ids` (nodes of one answer), summed per function: (self, total).
fn children_of(nodes: &[Value], ids: &[u64]) -> HashMap<Key, (f64, f64)> {
    let mut out: HashMap<Key, (f64, f64)> = HashMap::new();
    for n in nodes {
        if n["parent"].as_u64().is_some_and(|p| ids.contains(&p)) {
            let (s, t) = weights(n);
            let e = out.entry(key(n)).or_default();
            e.0 += s;
            e.1 += t;
        }
    }
    out
}

fn same_children(
    got: &HashMap<Key, (f64, f64)>,
    want: &HashMap<Key, (f64, f64)>,
    self_only: bool,
) -> Result<(), String> {
    let significant = |m: &HashMap<Key, (f64, f64)>| -> Vec<Key> {
        let mut k: Vec<Key> = m
            .iter()
            .filter(|(_, w)| !self_only || w.0 > 0.0)
            .map(|(k, _)| k.clone())
            .collect();
        k.sort();
        k
    };
    if significant(got) != significant(want) {
        return Err(format!(
            "children {:?} vs {:?}",
            significant(got),
            significant(want)
        ));
    }
    for k in significant(want) {
        let (g, w) = (got[&k], want[&k]);
        if !close(g.0, w.0) || (!self_only && !close(g.1, w.1)) {
            return Err(format!("child {k:?}: {g:?} vs {w:?}"));
        }
    }
    Ok(())
}

/// `focused`, a focus on node `id` of the answer `tree` (`--focus-stack`, or with `inverted`
/// `--focus-stack-inverted` on a Bottom-up tree), kept exactly the node: the loader's warnings
/// and no more; its roots (with `inverted`, those with self time: every kept sample now ends in
/// the node's function) are the node's function with the node's total (not checked when
/// inverted) and self; their children are the node's children (with `inverted`, by self time).
fn assert_focus_kept(what: &str, tree: &Value, id: u64, focused: &Value, inverted: bool) {
    let nodes = json_array(&tree["nodes"]);
    let node = *node_path(nodes, id).last().unwrap();
    assert_eq!(focused["warnings"], tree["warnings"], "{what}");
    let fnodes = json_array(&focused["nodes"]);
    let mut roots = roots_of(fnodes);
    if inverted {
        roots.retain(|r| weights(r).0 > 0.0);
    }
    assert!(!roots.is_empty(), "{what}");
    for r in &roots {
        assert_eq!(key(r), key(node), "{what}: a root of the focus");
    }
    if !inverted {
        let kept: f64 = roots.iter().map(|r| weights(r).1).sum();
        assert!(
            close(kept, weights(node).1),
            "{what}: kept {kept}, the node's total {}",
            weights(node).1
        );
    }
    let own: f64 = roots.iter().map(|r| weights(r).0).sum();
    assert!(
        close(own, weights(node).0),
        "{what}: kept self {own}, the node's self {}",
        weights(node).0
    );
    let root_ids: Vec<u64> = roots.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    same_children(
        &children_of(fnodes, &root_ids),
        &children_of(nodes, &[id]),
        inverted,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// `--focus-stack PATH` keeps exactly the Call tree node's samples: on every sampled fixture and
/// for nodes at several depths, the focused tree's root is the node's function with the node's
/// total (`top`'s sum of self agrees), and its children are the node's children. Expected values
/// are the unfiltered `jsprof tree --json`'s nodes — another code path than the filter.
#[test]
fn focus_stack_keeps_exactly_the_nodes_subtree() {
    each_sampled(|input, path| {
        let tree = jsprof_json(&["tree", "--json", path]);
        let nodes = json_array(&tree["nodes"]);
        let targets = subtree_targets(nodes, |n| weights(n).1);
        assert!(targets.len() >= 3, "{input}: {targets:?}");
        for id in targets {
            let chain = node_path(nodes, id);
            let node = *chain.last().unwrap();
            let stack = folded_path(&chain);
            let focused = jsprof_json(&["tree", "--json", path, "--focus-stack", &stack]);
            assert_focus_kept(&format!("{input}: {stack}"), &tree, id, &focused, false);
            let table = top(path, &["--focus-stack", &stack]);
            assert!(
                close(self_sum(&table), weights(node).1),
                "{input}: top --focus-stack {stack}"
            );
        }
    });
}

/// `--focus-stack-inverted PATH` keeps exactly the Bottom-up node's self: the samples whose stack
/// ends with the path read from the leaf. Their new top frame is the node's function, with that
/// self, and its callers beneath carry the self time the node's callers had.
#[test]
fn focus_stack_inverted_keeps_exactly_the_bottom_up_nodes_self() {
    each_sampled(|input, path| {
        let tree = jsprof_json(&["tree", "--bottom-up", "--json", "--max-depth", "4", path]);
        let nodes = json_array(&tree["nodes"]);
        let targets = subtree_targets(
            &nodes
                .iter()
                .filter(|n| n["depth"].as_u64() < Some(3))
                .cloned()
                .collect::<Vec<_>>(),
            |n| weights(n).0,
        );
        assert!(targets.len() >= 2, "{input}: {targets:?}");
        for id in targets {
            let chain = node_path(nodes, id);
            let stack = folded_path(&chain);
            let focused = jsprof_json(&argv(
                "tree --bottom-up --json --max-depth 2 {} --focus-stack-inverted {}",
                &[&path, &stack],
            ));
            assert_focus_kept(&format!("{input}: {stack}"), &tree, id, &focused, true);
        }
    });
}

/// A line of `export --folded`, less its count, is a path; a path no stack has leaves an empty
/// answer and a warning that names the frame that did not match — exit 0, no error, no panic.
#[test]
fn focus_stack_takes_folded_lines_and_warns_on_a_path_that_matches_nothing() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let f = file.to_str().unwrap();
    let out = jsprof(&["export", f, "-f", "folded", "-o", "-"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let deepest = text
        .lines()
        .filter(|l| !l.starts_with("(root) "))
        .max_by_key(|l| l.matches(';').count())
        .unwrap();
    let (stack, count) = deepest.rsplit_once(' ').unwrap();
    let focused = jsprof_json(&["tree", "--json", f, "--focus-stack", stack]);
    assert_eq!(focused["warnings"], serde_json::json!([]), "{stack}");
    let root = &focused["nodes"][0];
    assert_eq!(folded_label(root), stack.rsplit(';').next().unwrap());
    let count_ms = count.parse::<f64>().unwrap() / 1000.0;
    assert!(
        weights(root).1 + 0.001 >= count_ms,
        "{stack}: {} < {count_ms}",
        weights(root).1
    );

    // The whole line (with its count), then a frame that is nowhere.
    let whole = format!("{stack} {count}");
    for (path, says) in [
        (
            whole.as_str(),
            "a folded line's count is not part of the path",
        ),
        ("main;nowhere", "no stack starts with `main`"),
    ] {
        let answer = jsprof_json(&["tree", "--json", f, "--focus-stack", path]);
        assert_eq!(answer["nodes"], serde_json::json!([]), "{path}");
        let w = &answer["warnings"][0];
        assert_eq!(w["at"], "focus_stack");
        assert!(w["message"].as_str().unwrap().contains(says), "{w}");
        let out = jsprof(&["top", f, "--focus-stack", path]);
        assert!(out.status.success(), "{path}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("nothing is left") && err.contains(says),
            "{err}"
        );
    }
}

/// The service takes the paths as the CLI's flags (`focus_stack`, `focus_stack_inverted`, both
/// repeatable, as `drop` now is too) and answers byte for byte what the CLI prints, on a profile
/// and on a trace's entries.
#[test]
fn the_service_takes_focus_stack_as_the_cli_does() {
    use crate::serve::{cli, data_dir, serve};
    let s = serve(&data_dir("focus-stack"), &[]);
    for name in ["cpu/node-mix.cpuprofile.gz", "trace/primes.trace.json.gz"] {
        let file = fixtures().join(name);
        let path = file.to_str().unwrap();
        let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
        let tree = jsprof_json(&["tree", "--json", path]);
        let nodes = json_array(&tree["nodes"]);
        // The heaviest node two levels down, then one of its children read in the focused tree.
        let target = subtree_targets(nodes, |n| weights(n).1)[2];
        let outer: Vec<String> = node_path(nodes, target)
            .iter()
            .map(|n| folded_label(n))
            .collect();
        let child = nodes
            .iter()
            .find(|n| n["parent"].as_u64() == Some(target))
            .unwrap();
        let inner = format!("{};{}", outer.last().unwrap(), folded_label(child));
        let outer = outer.join(";");
        let bottom = jsprof_json(&["tree", "--json", "--bottom-up", "--max-depth", "2", path]);
        let caller = json_array(&bottom["nodes"])
            .iter()
            .find(|n| n["depth"] == 1)
            .unwrap();
        let leaf_first = node_path(json_array(&bottom["nodes"]), caller["id"].as_u64().unwrap())
            .iter()
            .map(|n| folded_label(n))
            .collect::<Vec<_>>()
            .join(";");
        let cases: Vec<(String, Vec<&str>)> = vec![
            (
                format!("tree?focus_stack={}", crate::support::encode(&outer)),
                vec!["tree", path, "--json", "--focus-stack", &outer],
            ),
            (
                format!(
                    "top?limit=0&focus_stack={}&focus_stack={}",
                    crate::support::encode(&outer),
                    crate::support::encode(&inner)
                ),
                argv(
                    "top {} --json --limit 0 --focus-stack {} --focus-stack {}",
                    &[&path, &outer, &inner],
                ),
            ),
            (
                format!(
                    "tree?bottom_up=1&focus_stack_inverted={}",
                    crate::support::encode(&leaf_first)
                ),
                argv(
                    "tree {} --json --bottom-up --focus-stack-inverted {}",
                    &[&path, &leaf_first],
                ),
            ),
            (
                "top?limit=0&drop=fib&drop=sorters&focus_stack=nowhere".into(),
                argv(
                    "top {} --json --limit 0 --drop fib --drop sorters --focus-stack nowhere",
                    &[&path],
                ),
            ),
        ];
        for (query, args) in cases {
            let r = s
                .get(&format!("/api/sessions/{id}/artifacts/1/{query}"))
                .expect(200, &format!("{name} {query}"));
            assert!(
                r.body == cli(&args),
                "{name}: {query} differs from `jsprof {}`",
                args.join(" ")
            );
        }
    }
}

/// On a trace the path comes from the entries' tree (JS calls inside engine events); the CPU
/// samples, which the flame chart's and `events`' JS calls are made of, keep the JS under the
/// node: every JS call left is a function of the focused entries tree, the node's own among
/// them, and no warning says the samples lost everything.
#[test]
fn focus_stack_on_a_trace_keeps_the_js_under_the_node_in_the_samples() {
    let file = fixtures().join("trace/primes.trace.json.gz");
    let f = file.to_str().unwrap();
    let tree = jsprof_json(&["tree", "--json", f]);
    let nodes = json_array(&tree["nodes"]);
    // The heaviest named JS function (engine events have no line) entered from an engine event.
    let engine = |n: &Value| n["url"] == "" && n["line"].is_null();
    let by_id: HashMap<u64, &Value> = nodes
        .iter()
        .map(|n| (n["id"].as_u64().unwrap(), n))
        .collect();
    let node = nodes
        .iter()
        .filter(|n| !engine(n) && n["name"] != "")
        .filter(|n| n["parent"].as_u64().is_some_and(|p| engine(by_id[&p])))
        .max_by(|a, b| weights(a).1.total_cmp(&weights(b).1))
        .unwrap();
    let chain = node_path(nodes, node["id"].as_u64().unwrap());
    let stack = folded_path(&chain);
    let focused = jsprof_json(&["tree", "--json", f, "--focus-stack", &stack]);
    let names: std::collections::HashSet<&str> = json_array(&focused["nodes"])
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    let events = jsprof_json(&argv(
        "events {} --json --mode unique-events --focus-stack {}",
        &[&f, &stack],
    ));
    assert_eq!(events["warnings"], tree["warnings"], "{stack}");
    let calls: Vec<&str> = json_array(&events["events"])
        .iter()
        .filter(|e| e["type"] == "JS_CALL")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        calls.contains(&node["name"].as_str().unwrap()),
        "{stack}: {calls:?}"
    );
    for c in &calls {
        assert!(
            names.contains(c),
            "{stack}: the JS call {c} is not under the node"
        );
    }
    let all = jsprof_json(&["events", f, "--json", "--mode", "unique-events"]);
    let before = json_array(&all["events"])
        .iter()
        .filter(|e| e["type"] == "JS_CALL")
        .count();
    assert!(
        calls.len() < before,
        "{stack}: the focus kept every JS call ({before})"
    );
}
