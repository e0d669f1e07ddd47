//! The report's range engine against the CLI. A `jsprof report` page computes the trees of a
//! range selection itself, from its embedded calls (`profileFromChart` in
//! `crates/jsprof_server/ui/source.js`), because it has no server to ask: a third implementation
//! of calls → trees beside Rust's. `tests/node/ui-engine.mjs` imports that very module under Node
//! and feeds it the chart embedded in the report; its top-down and bottom-up trees must be
//! `jsprof tree --json --range A..B [--bottom-up]`'s, node for node, within 0.001 ms.
//! Needs Node on PATH: with `CI` set its absence fails the test; locally it is skipped with a note.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{assert_ok, fixtures, json_array, jsprof_json};

/// The largest difference allowed between the page's and the CLI's times (ms). The report
/// embeds times rounded to the µs, and the page rounds its sums to the µs as well.
const TOLERANCE_MS: f64 = 0.001;

fn node(args: &[&str]) -> Option<Value> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node/ui-engine.mjs");
    let out = match Command::new("node").arg(&script).args(args).output() {
        Ok(out) => out,
        Err(e) => {
            crate::support::skip_without("node", &format!("cannot run it: {e}"));
            return None;
        }
    };
    assert_ok(&out, &format!("node ui-engine.mjs {args:?}"));
    Some(serde_json::from_slice(&out.stdout).expect("ui-engine.mjs prints JSON"))
}

/// A function as both sides name it.
fn function(n: &Value) -> String {
    format!(
        "{}\t{}\t{}\t{}",
        n["name"], n["url"], n["line"], n["column"]
    )
}

/// A tree's nodes by their path from the root (functions joined), with (self, total) in ms.
/// `parent` is the index of the parent node (the page) or its `id` (the CLI): in both, ids are
/// the nodes' positions in pre-order.
fn by_path(nodes: &[Value]) -> BTreeMap<String, (f64, f64)> {
    let mut paths: Vec<String> = Vec::with_capacity(nodes.len());
    let mut out = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(id) = n.get("id") {
            assert_eq!(
                id.as_u64(),
                Some(i as u64),
                "the CLI's ids are pre-order positions"
            );
        }
        let path = match n["parent"].as_u64() {
            Some(p) => format!("{}\n{}", paths[p as usize], function(n)),
            None => function(n),
        };
        let times = (
            n["self_ms"].as_f64().unwrap(),
            n["total_ms"].as_f64().unwrap(),
        );
        assert!(
            out.insert(path.clone(), times).is_none(),
            "two nodes at {path:?}"
        );
        paths.push(path);
    }
    out
}

/// Compares the page's tree with the CLI's: every node with time in one is in the other, with
/// the same self and total. Returns the largest difference seen.
fn compare(what: &str, page: &[Value], cli: &[Value]) -> f64 {
    let (page, cli) = (by_path(page), by_path(cli));
    let roots = cli.keys().filter(|p| !p.contains('\n')).count();
    assert!(roots > 0, "{what}: the CLI's tree is empty");
    let mut worst: f64 = 0.0;
    for (path, &(s, t)) in &cli {
        let Some(&(ps, pt)) = page.get(path) else {
            // A stack the range touches for less than the embedded precision.
            assert!(
                t < TOLERANCE_MS,
                "{what}: the page has no node {path:?} (CLI: self {s} ms, total {t} ms)"
            );
            continue;
        };
        worst = worst.max((ps - s).abs()).max((pt - t).abs());
        assert!(
            (ps - s).abs() <= TOLERANCE_MS && (pt - t).abs() <= TOLERANCE_MS,
            "{what}: {path:?}: the page says self {ps} ms, total {pt} ms; the CLI {s} ms, {t} ms"
        );
    }
    for (path, &(_, t)) in &page {
        assert!(
            cli.contains_key(path) || t < TOLERANCE_MS,
            "{what}: the CLI has no node {path:?} (page: total {t} ms)"
        );
    }
    worst
}

fn check(fixture: &str) {
    let file = fixtures().join(fixture);
    let file_arg = file.to_str().unwrap();
    let html = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "ui-engine-{}.html",
        Path::new(fixture).file_name().unwrap().to_string_lossy()
    ));
    let status = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(["report", file_arg, "-o"])
        .arg(&html)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "jsprof report {fixture}");
    let duration = jsprof_json(&["tree", file_arg, "--json", "--max-depth", "1"])["duration_ms"]
        .as_f64()
        .unwrap();
    // Three windows whose edges cut through calls (µs-exact, as the report's times are).
    let ranges: Vec<String> = [(0.1, 0.4), (0.37, 0.81), (0.5, 1.0)]
        .iter()
        .map(|(a, b)| format!("{:.3}..{:.3}", duration * a, duration * b))
        .collect();
    let mut args = vec!["trees", html.to_str().unwrap()];
    args.extend(ranges.iter().map(String::as_str));
    let Some(page) = node(&args) else { return };
    // Every call is embedded: a merged call would show as its caller's self time.
    assert_eq!(page["min_ms"], 0.0, "{fixture}: the report merged calls");
    assert_eq!(page["merged"], 0, "{fixture}: the report merged calls");
    for (range, answer) in ranges.iter().zip(json_array(&page["ranges"])) {
        for (tree, flag) in [("top_down", None), ("bottom_up", Some("--bottom-up"))] {
            let mut cli_args = vec!["tree", file_arg, "--json", "--range", range];
            cli_args.extend(flag);
            let cli = jsprof_json(&cli_args);
            let worst = compare(
                &format!("{fixture} {range} {tree}"),
                json_array(&answer[tree]),
                json_array(&cli["nodes"]),
            );
            eprintln!("{fixture} {range} {tree}: largest difference {worst:.6} ms");
        }
    }
}

#[test]
fn report_ranges_match_the_cli_on_node_profiles() {
    check("cpu/node-mix.cpuprofile.gz");
    check("cpu/tsc.cpuprofile.gz");
}

#[test]
fn report_ranges_match_the_cli_on_self_profiling_traces() {
    check("selfprofile/primes.jsprofile.json");
    check("selfprofile/mdn-example.jsprofile.json");
    check("selfprofile/primes.exported.cpuprofile");
}

/// On a trace the page's trees are the Performance panel's, as `jsprof tree`'s: JS calls and
/// engine events (`Layout`, `RunTask`, …) alike.
#[test]
fn report_ranges_match_the_cli_on_traces() {
    check("trace/primes.trace.json.gz");
    check("trace/page.trace.json.gz");
}

/// More than 2^20 functions: the page's trees once packed (parent node, function) into
/// `parent * 2^20 + function + 1`, which made two different nodes one.
#[test]
fn report_trees_key_nodes_past_a_million_functions() {
    if let Some(answer) = node(&["keys"]) {
        assert_eq!(answer["ok"], true);
    }
}
