//! `jsprof mcp` driven by the official MCP TypeScript SDK's client (tests/node/mcp-client.mjs),
//! as an editor or agent CLI launches it. Every number is checked against the CLI's `--json` for
//! the same question (which the other modules tie to DevTools' oracle), by running the CLI here.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::support::{argv, fixtures};

/// Numbers as JavaScript leaves them: the client parses `0.0` as the integer 0, so both sides
/// are compared with integral numbers as integers.
pub(crate) fn numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(numbers).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers(v))).collect()),
        other => other,
    }
}

/// `jsprof ARGS` (its `--json`), numbers as the client sees them.
fn cli_json(args: &[&str]) -> Value {
    numbers(crate::support::jsprof_json(args))
}

fn node_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node")
}

/// The SDK is installed by `.ci/run` (`npm ci`); locally its absence skips with a note.
pub(crate) fn sdk_missing() -> bool {
    if node_dir()
        .join("node_modules/@modelcontextprotocol/sdk")
        .exists()
    {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: run `npm ci` in {} first",
        node_dir().display()
    );
    eprintln!(
        "skipping the MCP client checks: run `npm install` in {}",
        node_dir().display()
    );
    true
}

pub(crate) fn repo() -> PathBuf {
    std::fs::canonicalize(fixtures().join("..")).unwrap()
}

/// A directory of this test's own files (under the target directory, so also under no root but
/// the ones the tests give).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mcp-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

/// Runs the client with `plan`'s transport and steps; one result per step.
pub(crate) fn client(plan: Value) -> Vec<Value> {
    let mut child = crate::support::KillOnDrop::spawn(
        Command::new("node")
            .arg(node_dir().join("mcp-client.mjs"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        "node mcp-client.mjs",
    );
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(plan.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the MCP client failed");
    serde_json::from_slice::<Vec<Value>>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
        .into_iter()
        .map(numbers)
        .collect()
}

/// `jsprof mcp` over stdio with the repository (and `extra` roots) as roots.
pub(crate) fn stdio(extra: &[&Path], flags: &[&str], steps: Value) -> Vec<Value> {
    // The per-call cap is a wall-clock limit; a debug build on a busy machine must not meet it.
    let mut args = vec![
        "mcp".to_string(),
        "--timeout".into(),
        "600".into(),
        "--root".into(),
        repo().display().to_string(),
    ];
    for root in extra {
        args.push("--root".into());
        args.push(root.display().to_string());
    }
    args.extend(flags.iter().map(|f| f.to_string()));
    client(json!({
        "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": args}},
        "steps": steps,
    }))
}

fn fixture(path: &str) -> String {
    fixtures().join(path).display().to_string()
}

fn open(path: &str) -> Value {
    json!({"op": "callTool", "name": "open", "arguments": {"path": fixture(path)}})
}

pub(crate) fn page_all(name: &str, arguments: Value) -> Value {
    json!({"op": "pageAll", "name": name, "arguments": arguments})
}

/// A successful tool answer's JSON document.
pub(crate) fn doc(result: &Value) -> &Value {
    assert_ne!(result["isError"], true, "tool failed: {result}");
    assert!(result.get("error").is_none(), "client error: {result}");
    &result["structuredContent"]
}

/// The error text of a failed tool call.
pub(crate) fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "expected an error: {result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

/// How many pages a `pageAll` took.
fn result_pages(result: &Value) -> usize {
    result["pages"].as_array().unwrap().len()
}

/// All pages' items, after checking that each page states the same total and that the pages
/// tile the list: every item exactly once, in order.
pub(crate) fn items(result: &Value) -> &Vec<Value> {
    assert!(result.get("items").is_some(), "paging failed: {result}");
    let pages = result["pages"].as_array().unwrap();
    let total = pages[0]["total"].as_u64().unwrap();
    let mut next = 0;
    for p in pages {
        assert_eq!(p["total"].as_u64().unwrap(), total);
        assert_eq!(p["offset"].as_u64().unwrap(), next, "{pages:?}");
        next += p["returned"].as_u64().unwrap();
    }
    assert_eq!(next, total);
    let items = result["items"].as_array().unwrap();
    assert_eq!(items.len() as u64, total);
    items
}

/// Tool `name` as a `tools/list` answer gives it.
fn listed_tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {list}"))
}

#[test]
fn lists_tools_resources_and_prompts() {
    if sdk_missing() {
        return;
    }
    let r = stdio(
        &[],
        &[],
        json!([
            {"op": "listTools"},
            {"op": "listPrompts"},
            {"op": "getPrompt", "name": "find-leak", "arguments": {"base": "a", "target": "b", "final": "c"}},
            {"op": "getPrompt", "name": "find-slow", "arguments": {"path": "app.cpuprofile"}},
            open("cpu/node-mix.cpuprofile.gz"),
            {"op": "listResources"},
            {"op": "readResource", "uri": "jsprof://artifact/h1"},
            {"op": "readResource", "uri": "jsprof://artifact/h9"},
        ]),
    );
    let names: Vec<&str> = r[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for want in [
        "open",
        "top",
        "tree",
        "sandwich",
        "flame_chart",
        "events",
        "cpu_diff",
        "heap_summary",
        "heap_class",
        "heap_object",
        "heap_retainers",
        "heap_dominators",
        "heap_statistics",
        "heap_strings",
        "heap_detached",
        "heap_diff",
        "heap_leaks",
        "heap_process",
        "heap_contexts",
        "trace_insights",
        "trace_network",
        "trace_timings",
        "source",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    // Recording is offered only with --allow-record.
    assert!(!names.contains(&"record"));
    let top = listed_tool(&r[0], "top");
    // The compact list: names, types and values; the paging arguments are the instructions'.
    for arg in ["handle", "by", "thread", "range", "filters", "samples"] {
        assert!(
            top["inputSchema"]["properties"].get(arg).is_some(),
            "{arg}: {top}"
        );
    }
    assert_eq!(
        top["inputSchema"]["properties"]["by"]["enum"],
        json!(["self", "total"])
    );
    assert!(top["inputSchema"]["properties"].get("cursor").is_none());
    // What an agent pays for the list before asking anything.
    let listed = r[0]["tools"].to_string().len();
    assert!(listed <= 8 * 1024, "tools/list is {listed} bytes");
    let prompts: Vec<&str> = r[1]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["find-slow", "find-leak"]);
    let leak = r[2]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        leak.contains("heap_leaks") && leak.contains("heap_retainers"),
        "{leak}"
    );
    let slow = r[3]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        slow.contains("app.cpuprofile") && slow.contains("`top`"),
        "{slow}"
    );
    assert_eq!(doc(&r[4])["handle"], "h1");
    let resources = r[5]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0]["uri"], "jsprof://artifact/h1");
    let read: Value = serde_json::from_str(r[6]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(read["handle"], "h1");
    assert_eq!(read["kind"], "cpuprofile");
    assert!(
        r[7]["error"].as_str().unwrap().contains("no resource"),
        "{}",
        r[7]
    );

    let with_record = stdio(&[], &["--allow-record"], json!([{"op": "listTools"}]));
    assert!(with_record[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "record"));

    // `--full-schemas`: every argument documented, the paging ones too; the compact list names
    // the same arguments less those, so it never hides one a call can take.
    let full = stdio(&[], &["--full-schemas"], json!([{"op": "listTools"}]));
    let paging = ["cursor", "max_items", "max_bytes"];
    for (compact, whole) in r[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .zip(full[0]["tools"].as_array().unwrap())
    {
        assert_eq!(compact["name"], whole["name"]);
        let names = |t: &Value| -> Vec<String> {
            let mut n: Vec<String> = t["inputSchema"]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| !paging.contains(&k.as_str()))
                .cloned()
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(compact), names(whole), "{}", compact["name"]);
        assert_eq!(
            compact["inputSchema"]["required"], whole["inputSchema"]["required"],
            "{}",
            compact["name"]
        );
    }
    let full_top = listed_tool(&full[0], "top");
    for arg in ["cursor", "max_items", "max_bytes"] {
        assert!(
            full_top["inputSchema"]["properties"][arg]["description"].is_string(),
            "{arg}: {full_top}"
        );
    }
}

#[test]
fn cpu_answers_equal_the_cli_and_pages_tile() {
    if sdk_missing() {
        return;
    }
    let profile = fixture("cpu/node-mix.cpuprofile.gz");
    let trace = fixture("trace/page.trace.json.gz");
    let r = stdio(
        &[],
        &[],
        json!([
            open("cpu/node-mix.cpuprofile.gz"),
            open("trace/page.trace.json.gz"),
            page_all("top", json!({"handle": "h1", "max_items": 7})),
            page_all("top", json!({"handle": "h2", "by": "total", "range": "100..", "max_items": 50})),
            page_all("tree", json!({"handle": "h1", "max_depth": 10000, "max_items": 40})),
            page_all("tree", json!({"handle": "h1", "bottom_up": true, "max_depth": 2})),
            page_all("events", json!({"handle": "h1", "max_items": 100})),
            page_all("events", json!({"handle": "h2", "mode": "unique-types"})),
            page_all("flame_chart", json!({"handle": "h1", "window": "50..60", "max_items": 13})),
            page_all("cpu_diff", json!({"before": "h1", "after": "h2", "samples": true})),
            page_all("top", json!({"handle": "h1", "filters": {"focus": ["fib"]}})),
            {"op": "callTool", "name": "open", "arguments": {"path": profile}},
            page_all("tree", json!({"handle": "h1", "max_depth": 10000, "filters": {"focus_stack": [SUBTREE]}})),
        ]),
    );
    assert_eq!(doc(&r[0])["kind"], "cpuprofile");
    assert_eq!(doc(&r[1])["kind"], "trace");
    // The summary in `open` is `jsprof summary --json`'s, cut to its first rows.
    let summary = cli_json(&["summary", &profile, "--json"]);
    assert_eq!(doc(&r[0])["summary"]["duration_ms"], summary["duration_ms"]);
    assert_eq!(doc(&r[0])["summary"]["functions"], summary["functions"]);

    let cli_top = cli_json(&["top", &profile, "--json", "--limit", "0"]);
    assert_eq!(items(&r[2]), cli_top["functions"].as_array().unwrap());
    assert!(r[2]["pages"].as_array().unwrap().len() > 3);
    let cli_top = cli_json(&[
        "top", &trace, "--json", "--limit", "0", "--by", "total", "--range", "100..",
    ]);
    assert_eq!(items(&r[3]), cli_top["functions"].as_array().unwrap());
    assert_eq!(r[3]["first"]["duration_ms"], cli_top["duration_ms"]);

    let cli_tree = cli_json(&["tree", &profile, "--json"]);
    assert_eq!(items(&r[4]), cli_tree["nodes"].as_array().unwrap());
    let cli_bottom = cli_json(&["tree", &profile, "--json", "--bottom-up"]);
    let shallow: Vec<&Value> = cli_bottom["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"].as_u64().unwrap() < 2)
        .collect();
    assert_eq!(items(&r[5]).iter().collect::<Vec<_>>(), shallow);

    let cli_events = cli_json(&["events", &profile, "--json"]);
    assert_eq!(items(&r[6]), cli_events["events"].as_array().unwrap());
    let cli_types = cli_json(&["events", &trace, "--json", "--mode", "unique-types"]);
    assert_eq!(items(&r[7]), cli_types["events"].as_array().unwrap());
    let cli_window = cli_json(&["events", &profile, "--json", "--range", "50..60"]);
    assert_eq!(items(&r[8]), cli_window["events"].as_array().unwrap());
    assert!(!items(&r[8]).is_empty());

    let cli_diff = cli_json(&argv(
        "diff {} {} --samples --json --limit 0",
        &[&profile, &trace],
    ));
    assert_eq!(items(&r[9]), cli_diff["functions"].as_array().unwrap());
    assert_eq!(r[9]["first"]["noise_floor_ms"], cli_diff["noise_floor_ms"]);

    let cli_focus = cli_json(&["top", &profile, "--json", "--limit", "0", "--focus", "fib"]);
    assert_eq!(items(&r[10]), cli_focus["functions"].as_array().unwrap());
    // Opening the same file again gives the same handle.
    assert_eq!(doc(&r[11])["handle"], "h1");
    let cli_subtree = cli_json(&["tree", &profile, "--json", "--focus-stack", SUBTREE]);
    assert!(!cli_subtree["nodes"].as_array().unwrap().is_empty());
    assert_eq!(items(&r[12]), cli_subtree["nodes"].as_array().unwrap());
}

/// A call path of node-mix (a line of its `export --folded`, cut): the MCP tools take it as the
/// CLI's `--focus-stack`.
const SUBTREE: &str = "(anonymous) node:internal/main/run_main_module:1:1;executeUserEntryPoint node:internal/modules/run_main:155:31;Module._load node:internal/modules/cjs/loader:1003:24";

#[test]
fn trace_insights_network_and_timings_equal_the_cli() {
    if sdk_missing() {
        return;
    }
    let trace = fixture("trace/pageload.trace.json.gz");
    let r = stdio(
        &[],
        &[],
        json!([
            open("trace/pageload.trace.json.gz"),
            page_all("trace_insights", json!({"handle": "h1", "max_items": 1})),
            page_all("trace_insights", json!({"handle": "h1", "list": "interactions", "max_items": 2})),
            page_all("trace_insights", json!({"handle": "h1", "list": "long_tasks", "max_items": 4})),
            page_all("trace_network", json!({"handle": "h1", "max_items": 3})),
            page_all("trace_timings", json!({"handle": "h1", "max_items": 1})),
            page_all("trace_timings", json!({"handle": "h1", "list": "marks"})),
            {"op": "callTool", "name": "trace_insights", "arguments": {"handle": "h1", "list": "bogus"}},
            open("cpu/node-mix.cpuprofile.gz"),
            {"op": "callTool", "name": "trace_network", "arguments": {"handle": "h2"}},
            page_all("trace_insights", json!({"handle": "h1", "list": "related_events", "max_items": 400})),
        ]),
    );
    let insights = cli_json(&["insights", &trace, "--json"]);
    // Every insight's related events reach the agent: the requests, the interaction, the LCP
    // candidate and the layout shift as well as the forced reflows.
    let related = insights["related_events"].as_array().unwrap();
    assert_eq!(items(&r[10]), related);
    for key in [
        "inp_breakdown",
        "lcp_breakdown",
        "cls_culprits",
        "render_blocking",
    ] {
        assert!(
            items(&r[10]).iter().any(|e| e["insight"] == key),
            "MCP related events lack {key}"
        );
    }
    assert_eq!(items(&r[1]), insights["navigations"].as_array().unwrap());
    assert!(!items(&r[1]).is_empty());
    // Every insight the CLI computes reaches the agent, the later ones included (document
    // latency, LCP discovery, DOM size, forced reflow, third parties, CLS culprits).
    let got = &items(&r[1])[0]["insights"];
    for key in [
        "lcp_breakdown",
        "inp_breakdown",
        "cls_clusters",
        "render_blocking",
        "document_latency",
        "cls_culprits",
        "lcp_discovery",
        "dom_size",
        "forced_reflow",
        "third_parties",
    ] {
        assert!(
            !got[key].is_null(),
            "MCP navigations lack insight {key}: {got}"
        );
        assert_eq!(
            got[key], insights["navigations"][0]["insights"][key],
            "{key}"
        );
    }
    // The lists not paged are counted, not sent.
    let first = &r[1]["first"];
    assert_eq!(
        first["other_lists"]["interactions"].as_u64().unwrap() as usize,
        insights["interactions"].as_array().unwrap().len()
    );
    assert!(first.get("interactions").is_none());
    assert_eq!(
        first["long_tasks"]["blocking_ms"],
        insights["long_tasks"]["blocking_ms"]
    );
    assert_eq!(items(&r[2]), insights["interactions"].as_array().unwrap());
    assert_eq!(
        items(&r[3]),
        insights["long_tasks"]["items"].as_array().unwrap()
    );
    assert!(items(&r[3]).len() > 4, "the long tasks span several pages");

    let network = cli_json(&["network", &trace, "--json"]);
    assert_eq!(items(&r[4]), network["requests"].as_array().unwrap());
    assert!(items(&r[4]).len() > 3);
    assert_eq!(r[4]["first"]["transfer_size"], network["transfer_size"]);

    let timings = cli_json(&["timings", &trace, "--json"]);
    assert_eq!(items(&r[5]), timings["measures"].as_array().unwrap());
    assert_eq!(items(&r[6]), timings["marks"].as_array().unwrap());
    assert!(!items(&r[6]).is_empty());

    assert!(error_text(&r[7]).contains("bad `list` `bogus`"), "{}", r[7]);
    // A CPU profile is not a trace: the same error as the CLI's, as a tool error.
    assert!(
        error_text(&r[9]).to_lowercase().contains("trace"),
        "{}",
        r[9]
    );
}

#[test]
fn tree_expands_one_path() {
    if sdk_missing() {
        return;
    }
    let profile = fixture("cpu/node-mix.cpuprofile.gz");
    let cli = cli_json(&["tree", &profile, "--json"]);
    let nodes = cli["nodes"].as_array().unwrap();
    // A node three levels down, and the path to it.
    let deep = nodes.iter().find(|n| n["depth"] == 3).unwrap();
    let id = deep["id"].as_u64().unwrap();
    let r = stdio(
        &[],
        &[],
        json!([
            open("cpu/node-mix.cpuprofile.gz"),
            page_all("tree", json!({"handle": "h1", "node": id, "max_depth": 2})),
            {"op": "callTool", "name": "tree", "arguments": {"handle": "h1", "node": 999_999}},
        ]),
    );
    let shown = items(&r[1]);
    let mut want = Vec::new();
    let mut at = Some(id);
    while let Some(i) = at {
        want.push(&nodes[i as usize]);
        at = nodes[i as usize]["parent"].as_u64();
    }
    want.reverse();
    want.extend(nodes.iter().filter(|n| n["parent"].as_u64() == Some(id)));
    assert_eq!(shown.iter().collect::<Vec<_>>(), want);
    assert!(error_text(&r[2]).contains("no tree node 999999"));
}

/// The sandwich tool with its default `max_depth` is `jsprof tree --sandwich RE --max-depth 3
/// --json`, filters included; a pattern that matches nothing is a clear error.
#[test]
fn sandwich_equals_the_cli() {
    if sdk_missing() {
        return;
    }
    let profile = fixture("cpu/node-mix.cpuprofile.gz");
    let sandwich = |filters: &[&str]| {
        let mut args = vec![
            "tree",
            &profile,
            "--sandwich",
            "^buildTree$",
            "--max-depth",
            "3",
        ];
        args.extend_from_slice(filters);
        args.push("--json");
        cli_json(&args)
    };
    let cli = sandwich(&[]);
    let hidden = sandwich(&["--hide-idle"]);
    let r = stdio(
        &[],
        &[],
        json!([
            open("cpu/node-mix.cpuprofile.gz"),
            page_all("sandwich", json!({"handle": "h1", "function": "^buildTree$", "max_items": 3})),
            page_all("sandwich", json!({"handle": "h1", "function": "^buildTree$", "list": "callees", "max_items": 3})),
            page_all("sandwich", json!({"handle": "h1", "function": "^buildTree$", "list": "callees", "filters": {"hide_idle": true}})),
            {"op": "callTool", "name": "sandwich", "arguments": {"handle": "h1", "function": "^no such$"}},
        ]),
    );
    // Each tree paged (the other counted in `other_lists`), the rest of the document as the CLI's.
    for (result, list, other, cli) in [
        (&r[1], "callers", "callees", &cli),
        (&r[2], "callees", "callers", &cli),
        (&r[3], "callees", "callers", &hidden),
    ] {
        assert_eq!(items(result), cli[list].as_array().unwrap(), "{list}");
        let mut first = result["first"].clone();
        let first = first.as_object_mut().unwrap();
        assert_eq!(
            first.remove("other_lists").unwrap()[other],
            cli[other].as_array().unwrap().len()
        );
        first.remove("page");
        first.remove(list);
        let mut rest = cli.as_object().unwrap().clone();
        rest.remove("callers");
        rest.remove("callees");
        assert_eq!(first, &rest);
    }
    assert!(result_pages(&r[1]) > 1);
    assert!(
        cli["callers"].as_array().unwrap().len() > 1
            && cli["callees"].as_array().unwrap().len() > 1
    );
    assert!(
        error_text(&r[4]).contains("no sampled function"),
        "{}",
        error_text(&r[4])
    );
}

#[test]
fn heap_answers_equal_the_cli() {
    if sdk_missing() {
        return;
    }
    let small = fixture("heap/node-small.heapsnapshot.gz");
    let detached = fixture("heap/detached.heapsnapshot.gz");
    let (base, last) = (
        fixture("heap/leak-1-baseline.heapsnapshot.gz"),
        fixture("heap/leak-3-final.heapsnapshot.gz"),
    );
    let summary = cli_json(&["heap", "summary", &small, "--json", "--limit", "0"]);
    let biggest = &summary["classes"][0];
    let strings = cli_json(&["heap", "strings", &small, "--json", "--limit", "0"]);
    let some_id = strings["strings"][0]["sample_id"].as_u64().unwrap();
    let r = stdio(
        &[],
        &[],
        json!([
            open("heap/node-small.heapsnapshot.gz"),
            open("heap/detached.heapsnapshot.gz"),
            open("heap/leak-1-baseline.heapsnapshot.gz"),
            open("heap/leak-3-final.heapsnapshot.gz"),
            page_all("heap_summary", json!({"handle": "h1", "max_items": 200})),
            {"op": "callTool", "name": "heap_statistics", "arguments": {"handle": "h1"}},
            {"op": "callTool", "name": "heap_object", "arguments": {"handle": "h1", "id": format!("@{some_id}")}},
            page_all("heap_retainers", json!({"handle": "h1", "id": some_id, "paths": 3})),
            page_all("heap_strings", json!({"handle": "h1", "max_items": 50})),
            page_all("heap_detached", json!({"handle": "h2"})),
            page_all("heap_diff", json!({"base": "h3", "target": "h4", "max_items": 100})),
            page_all("heap_class", json!({"handle": "h1", "key": biggest["key"], "max_items": 500})),
            page_all("heap_dominators", json!({"handle": "h1", "max_items": 100})),
        ]),
    );
    assert_eq!(items(&r[4]), summary["classes"].as_array().unwrap());
    assert_eq!(r[4]["first"]["statistics"], summary["statistics"]);
    let stats = cli_json(&["heap", "stats", &small, "--json"]);
    assert_eq!(doc(&r[5]), &stats);
    let node = cli_json(&["heap", "node", &small, &some_id.to_string(), "--json"]);
    assert_eq!(doc(&r[6]), &node);
    let retainers = cli_json(&argv(
        "heap retainers {} {} --paths 3 --json",
        &[&small, &some_id.to_string()],
    ));
    assert_eq!(items(&r[7]), retainers["paths"].as_array().unwrap());
    assert_eq!(r[7]["first"]["object"], retainers["object"]);
    // Values over 500 characters are cut in the answer; everything else is the CLI's.
    let ours = items(&r[8]);
    let cli = strings["strings"].as_array().unwrap();
    assert_eq!(ours.len(), cli.len());
    for (o, c) in ours.iter().zip(cli) {
        for k in [
            "count",
            "total_size",
            "wasted_size",
            "retained_size",
            "sample_id",
            "truncated",
        ] {
            assert_eq!(o[k], c[k], "{k}");
        }
        let value = c["value"].as_str().unwrap();
        // `value_cut` is written only where a value was cut.
        assert_eq!(o.get("value_cut").is_some(), value.chars().count() > 500);
        assert!(value.starts_with(o["value"].as_str().unwrap()));
    }
    let cli_detached = cli_json(&["heap", "detached", &detached, "--json", "--limit", "0"]);
    let ours = items(&r[9]);
    let theirs = cli_detached["trees"].as_array().unwrap();
    assert!(!theirs.is_empty());
    assert_eq!(ours.len(), theirs.len());
    for (o, c) in ours.iter().zip(theirs) {
        assert_eq!(o["root"], c["root"]);
        assert_eq!(o["node_count"], c["node_count"]);
        assert_eq!(o["retained_size"], c["retained_size"]);
    }
    let diff = cli_json(&["heap", "diff", &base, &last, "--json", "--limit", "0"]);
    assert_eq!(items(&r[10]), diff["classes"].as_array().unwrap());
    // A class's objects: as many as the Summary counts, largest retained first.
    let objects = items(&r[11]);
    assert_eq!(objects.len() as u64, biggest["count"].as_u64().unwrap());
    let retained: u64 = objects
        .iter()
        .map(|o| o["retained_size"].as_u64().unwrap())
        .sum();
    assert!(retained >= biggest["retained_size"].as_u64().unwrap());
    assert!(objects
        .windows(2)
        .all(|w| w[0]["retained_size"].as_u64() >= w[1]["retained_size"].as_u64()));
    // The root's dominated objects are the CLI's dominator tree's first level.
    let dominators = cli_json(&argv(
        "heap dominators {} --json --limit 0 --depth 1",
        &[&small],
    ));
    let first_level: Vec<Value> = dominators["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut object = c.clone();
            let o = object.as_object_mut().unwrap();
            o.remove("children");
            o.remove("omitted_children");
            object
        })
        .collect();
    assert!(!first_level.is_empty());
    assert_eq!(items(&r[12]), &first_level);
}

#[test]
fn bad_requests_get_clear_errors_and_the_server_goes_on() {
    if sdk_missing() {
        return;
    }
    let outside = std::fs::canonicalize(std::env::temp_dir())
        .unwrap()
        .join(format!(
            "jsprof-mcp-outside-{}.cpuprofile",
            std::process::id()
        ));
    std::fs::copy(fixtures().join("cpu/node-mix.cpuprofile.gz"), &outside).unwrap();
    let inside = scratch("errors");
    // A link inside a root to a file outside it is outside.
    let link = inside.join("link.cpuprofile");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let r = stdio(
        &[&inside],
        &[],
        json!([
            {"op": "callTool", "name": "open", "arguments": {"path": outside.display().to_string()}},
            {"op": "callTool", "name": "open", "arguments": {"path": link.display().to_string()}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h7"}},
            open("cpu/node-mix.cpuprofile.gz"),
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "filters": {"focus": ["(unclosed"]}}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "max_items": 1_000_000_000u64}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "max_bytes": 1u64 << 40}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "cursor": "c5.00"}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "colour": "red"}},
            {"op": "callTool", "name": "heap_summary", "arguments": {"handle": "h1"}},
            {"op": "callTool", "name": "record", "arguments": {"command": ["node", "-e", "1"]}},
            {"op": "callTool", "name": "events", "arguments": {"handle": "h1", "mode": "sideways"}},
            {"op": "callTool", "name": "heap_leaks", "arguments": {"handles": ["h1"]}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "range": "9..3"}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "max_items": 2}},
            {"op": "callTool", "name": "tree", "arguments": {"handle": "h1", "cursor": {"$ref": [14, "structuredContent", "page", "next_cursor"]}}},
            {"op": "listTools"},
        ]),
    );
    let _ = std::fs::remove_file(&outside);
    // Step, and what its error says. Step 15 is refused because a cursor of one question is
    // not good for another.
    let errors: &[(usize, &str)] = &[
        (0, "outside the directories"),
        (1, "outside the directories"),
        (2, "no handle `h7`"),
        (4, "bad `(unclosed`: regex parse error"),
        (5, "TOO_LARGE: max_items"),
        (6, "TOO_LARGE: max_bytes"),
        (7, "bad cursor"),
        (8, "unknown argument `colour`"),
        (9, "not a heap snapshot"),
        (10, "--allow-record"),
        (11, "unknown mode `sideways`"),
        (12, "three or more"),
        (13, "9..3"),
        (15, "bad cursor"),
    ];
    for &(step, said) in errors {
        let text = error_text(&r[step]);
        // The TOO_LARGE code opens its message.
        let ok = if said.starts_with("TOO_LARGE") {
            text.starts_with(said)
        } else {
            text.contains(said)
        };
        assert!(ok, "step {step}: {said:?} not in {}", r[step]);
    }
    assert!(r[16]["tools"].as_array().is_some_and(|t| !t.is_empty()));
    assert_eq!(r[8]["structuredContent"]["error"], "BAD_REQUEST");
}

/// A `.cpuprofile` with `functions` distinct functions under the root, one sample each: several
/// MB of JSON whose function table has as many rows.
fn wide_profile(functions: usize) -> String {
    let mut nodes = vec![
        json!({"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": (2..functions + 2).collect::<Vec<_>>()}),
    ];
    for i in 0..functions {
        nodes.push(json!({"id": i + 2, "callFrame": {"functionName": format!("handler_{i}_with_a_fairly_long_descriptive_name"), "scriptId": "1", "url": format!("file:///srv/app/src/module_{}/handlers/generated_file_{i}.js", i % 97), "lineNumber": i % 1000, "columnNumber": 4}}));
    }
    let samples: Vec<usize> = (2..functions + 2).collect();
    let deltas: Vec<u64> = samples.iter().map(|i| 100 + (*i as u64 % 7) * 10).collect();
    json!({"nodes": nodes, "startTime": 0, "endTime": deltas.iter().sum::<u64>(), "samples": samples, "timeDeltas": deltas}).to_string()
}

#[test]
fn first_answers_fit_in_8_kb_and_say_how_to_get_more() {
    if sdk_missing() {
        return;
    }
    let dir = scratch("big");
    let path = dir.join("wide.cpuprofile");
    std::fs::write(&path, wide_profile(30_000)).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 5 << 20);
    let r = stdio(
        &[&dir],
        &[],
        json!([
            {"op": "callTool", "name": "open", "arguments": {"path": path.display().to_string()}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1"}},
            {"op": "callTool", "name": "tree", "arguments": {"handle": "h1"}},
            {"op": "callTool", "name": "events", "arguments": {"handle": "h1"}},
            {"op": "callTool", "name": "top", "arguments": {"handle": "h1", "max_items": 500, "max_bytes": 260_000}},
        ]),
    );
    for (i, result) in r.iter().enumerate().take(4) {
        let bytes = doc(result).to_string().len();
        assert!(bytes <= 8000, "answer {i} is {bytes} bytes");
    }
    // `open`: the summary of all the functions, with its five first.
    assert_eq!(doc(&r[0])["summary"]["functions"], 30_000);
    assert_eq!(
        doc(&r[0])["summary"]["top_functions"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    // The lists: a page, the total, and how to get the rest.
    for (i, result) in r.iter().enumerate().take(4).skip(1) {
        let page = &doc(result)["page"];
        assert!(page["total"].as_u64().unwrap() >= 30_000, "{i}: {page}");
        assert!(page["returned"].as_u64().unwrap() > 0, "{i}: {page}");
        assert!(page["next_cursor"].is_string(), "{i}");
        assert!(page["more"].as_str().unwrap().contains("cursor"), "{i}");
    }
    assert_eq!(doc(&r[1])["page"]["total"], 30_000);
    // The text is a summary of the page, not a second copy: its first rows, read from the same
    // JSON rows, and how many more the page holds.
    let text = r[1]["content"][0]["text"].as_str().unwrap();
    let read_out: Vec<&str> = text.lines().filter(|l| l.contains(" self ")).collect();
    assert_eq!(read_out.len(), 5, "{text}");
    let first = &doc(&r[1])["functions"][0];
    assert!(
        read_out[0].starts_with(&format!(
            "  {} self {}",
            first["name"].as_str().unwrap(),
            jsprof_document::units::fmt_ms(first["self_ms"].as_f64().unwrap())
        )),
        "{text}"
    );
    let returned = doc(&r[1])["page"]["returned"].as_u64().unwrap();
    assert!(
        text.contains(&format!("… {} more on this page", returned - 5)),
        "{text}"
    );
    // Asked for more, it gives more, still within what was asked (the budget holds the text too).
    let big = doc(&r[4]);
    assert_eq!(big["page"]["returned"], 500);
    assert!(big.to_string().len() <= 260_000);
}

/// The CPU profile of a small leaking program, recorded now with Node's own `--cpu-prof`: the
/// snapshots' program is not in the repository, so this one stands in as "the code".
fn leaking_program(dir: &Path) -> (PathBuf, PathBuf) {
    let source = dir.join("sessions.js");
    std::fs::write(
        &source,
        "class Session { constructor(user) { this.user = user; this.buffer = new Array(1000).fill(user); } }\n\
         const sessionsLeak = [];\n\
         function openSession(user) {\n\
         \x20 const session = new Session(user);\n\
         \x20 sessionsLeak.push(session);\n\
         \x20 let spin = 0; const end = Date.now() + 40; while (Date.now() < end) spin++;\n\
         \x20 return spin;\n\
         }\n\
         for (let i = 0; i < 6; i++) openSession('user' + i);\n",
    )
    .unwrap();
    let status = Command::new("node")
        .args([
            "--cpu-prof",
            "--cpu-prof-interval",
            "100",
            "--cpu-prof-name",
            "sessions.cpuprofile",
        ])
        .arg("--cpu-prof-dir")
        .arg(dir)
        .arg(&source)
        .status()
        .expect("node");
    assert!(status.success());
    (source, dir.join("sessions.cpuprofile"))
}

#[test]
fn an_agent_finds_the_leak_end_to_end() {
    if sdk_missing() {
        return;
    }
    let dir = scratch("agent");
    let (source, profile) = leaking_program(&dir);
    let r = stdio(
        &[&dir],
        &[],
        json!([
            // 0-2: the snapshot triple.
            open("heap/leak-1-baseline.heapsnapshot.gz"),
            open("heap/leak-2-target.heapsnapshot.gz"),
            open("heap/leak-3-final.heapsnapshot.gz"),
            // 3: the leak groups.
            {"op": "callTool", "name": "heap_leaks", "arguments": {"handles": ["h1", "h2", "h3"]}},
            // 4: why the top group's sample is alive.
            {"op": "callTool", "name": "heap_retainers", "arguments": {"handle": "h3", "id": {"$ref": [3, "structuredContent", "groups", 0, "sample_id"]}, "paths": 1}},
            // 5-6: the program's profile, and the allocating function's code.
            {"op": "callTool", "name": "open", "arguments": {"path": profile.display().to_string()}},
            {"op": "callTool", "name": "source", "arguments": {"handle": "h4", "function": "openSession", "context": 2}},
        ]),
    );
    let last = fixture("heap/leak-3-final.heapsnapshot.gz");
    let cli = cli_json(&argv(
        "heap leaks {} {} {} --json --limit 0",
        &[
            &fixture("heap/leak-1-baseline.heapsnapshot.gz"),
            &fixture("heap/leak-2-target.heapsnapshot.gz"),
            &last,
        ],
    ));
    let leaks = doc(&r[3]);
    assert_eq!(leaks["total"], cli["total"]);
    assert_eq!(leaks["groups"][0], cli["groups"][0]);
    assert_eq!(leaks["groups"][0]["class"], "Session");
    let sample = cli["groups"][0]["sample_id"].to_string();
    let retainers = cli_json(&argv(
        "heap retainers {} {} --paths 1 --json",
        &[&last, &sample],
    ));
    let path = &doc(&r[4])["paths"][0];
    assert_eq!(path, &retainers["paths"][0]);
    assert!(
        path["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["edge"] == ".sessionsLeak" || s["edge_name"] == "sessionsLeak"),
        "{path}"
    );
    let found = &doc(&r[6])["functions"][0];
    assert_eq!(found["name"], "openSession");
    assert_eq!(found["line"], 3);
    let file_lines: Vec<&str> = std::fs::read_to_string(&source)
        .unwrap()
        .leak()
        .lines()
        .collect();
    let lines = found["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 5);
    for l in lines {
        let n = l["line"].as_u64().unwrap() as usize;
        assert_eq!(l["text"], file_lines[n - 1]);
    }
    assert!(lines
        .iter()
        .any(|l| l["text"].as_str().unwrap().contains("new Session(user)")));
    // Its time is top's.
    let top = cli_json(&["top", profile.to_str().unwrap(), "--json", "--limit", "0"]);
    let row = top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "openSession")
        .unwrap();
    assert_eq!(found["self_ms"], row["self_ms"]);
    assert_eq!(found["total_ms"], row["total_ms"]);
    // Its per-line self time is `jsprof lines`'s (the busy loop on line 6 the hottest).
    let cli_lines = cli_json(&argv(
        "lines {} --function ^openSession$ --no-source --json",
        &[&profile],
    ));
    let want = &cli_lines["functions"][0];
    assert!(want["ticks"].as_u64().unwrap() > 0, "{want}");
    for k in ["ticks", "lines_self_ms", "hottest_line"] {
        assert_eq!(found[k], want[k], "{k}");
    }
    assert_eq!(found["line_costs"], want["lines"]);
    assert_eq!(found["hottest_line"], 6);
}

#[test]
fn http_transport_answers_behind_the_token_and_origin_checks() {
    if sdk_missing() {
        return;
    }
    let repo = repo().display().to_string();
    let s = crate::serve::serve(&crate::serve::data_dir("mcp"), &["--mcp-root", &repo]);
    let url = format!("http://{}/mcp", s.addr);
    let steps = json!([
        open("cpu/node-mix.cpuprofile.gz"),
        page_all("top", json!({"handle": "h1", "max_items": 30})),
    ]);
    let auth = format!("Bearer {}", s.token);
    let r = client(
        json!({"transport": {"http": {"url": url, "headers": {"Authorization": auth}}}, "steps": steps}),
    );
    assert_eq!(doc(&r[0])["handle"], "h1");
    let cli = cli_json(&argv(
        "top {} --json --limit 0",
        &[&fixture("cpu/node-mix.cpuprofile.gz")],
    ));
    assert_eq!(items(&r[1]), cli["functions"].as_array().unwrap());

    // No token, a wrong one, a foreign Origin: the connection is refused before any tool runs.
    for (headers, refusal) in [
        (json!({}), "UNAUTHORIZED"),
        (json!({"Authorization": "Bearer wrong"}), "UNAUTHORIZED"),
        (
            json!({"Authorization": auth, "Origin": "http://evil.example"}),
            "FORBIDDEN",
        ),
    ] {
        let r =
            client(json!({"transport": {"http": {"url": url, "headers": headers}}, "steps": []}));
        let error = r[0]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{headers}: {r:?}"));
        assert!(error.contains(refusal), "{headers}: {error}");
    }
}

#[test]
fn record_is_offered_only_when_allowed_and_records_a_node_command() {
    if sdk_missing() {
        return;
    }
    let dir = scratch("record");
    let script = dir.join("spin.js");
    // A hot function for a second, then a child process it starts: the tool records the
    // first process, and the child must run (unrecorded) rather than wait for a debugger.
    std::fs::write(
        &script,
        "function spinHot(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x++; return x; }\n\
         spinHot(1200);\n\
         require('child_process').execFileSync(process.execPath, ['-e', 'process.exitCode = 0']);\n\
         require('fs').writeFileSync(__dirname + '/child-ran', '');\n",
    )
    .unwrap();
    let script = script.display().to_string();
    let record_dir = dir.display().to_string();
    let call = json!({"op": "callTool", "name": "record", "arguments": {
        "command": ["node", script], "seconds": 30
    }});
    // Without the flag the tool does not exist.
    let refused = stdio(&[&dir], &[], json!([call.clone()]));
    assert!(
        error_text(&refused[0]).contains("--allow-record"),
        "{}",
        refused[0]
    );

    let r = stdio(
        &[&dir],
        &["--allow-record", "--record-dir", &record_dir],
        json!([
            call,
            page_all("top", json!({"handle": "h1", "max_items": 50}))
        ]),
    );
    let recorded = doc(&r[0]);
    assert_eq!(recorded["stop"], "ProgramFinished", "{recorded}");
    // The child ran, unrecorded, to its end: it neither waited for a debugger nor failed.
    assert!(
        dir.join("child-ran").exists(),
        "the child process did not run"
    );
    let files = recorded["files"].as_array().unwrap();
    let profile = files
        .iter()
        .find(|f| f["kind"] == "cpuprofile")
        .unwrap_or_else(|| panic!("no CPU profile among {files:?}"));
    let path = profile["path"].as_str().unwrap();
    assert!(path.starts_with(&record_dir), "{path} outside {record_dir}");
    // The recorded file answers as the CLI does, and the hot function is on top.
    let cli_top = cli_json(&["top", path, "--json", "--limit", "0"]);
    assert_eq!(items(&r[1]), cli_top["functions"].as_array().unwrap());
    assert!(
        cli_top["functions"]
            .as_array()
            .unwrap()
            .iter()
            .take(3)
            .any(|f| f["name"] == "spinHot"),
        "{cli_top}"
    );
}

/// `source` on a Chromium trace: the function's line costs are `jsprof lines`'s, from the
/// trace's per-sample lines.
#[test]
fn source_on_a_trace_gives_the_clis_line_costs() {
    if sdk_missing() {
        return;
    }
    let trace = "trace/primes.trace.json.gz";
    let r = stdio(
        &[],
        &[],
        json!([
            open(trace),
            {"op": "callTool", "name": "source", "arguments": {"handle": "h1", "function": "sortBig"}},
        ]),
    );
    let found = &doc(&r[1])["functions"][0];
    let cli = cli_json(&argv(
        "lines {} --function ^sortBig$ --no-source --json",
        &[&fixture(trace)],
    ));
    assert_eq!(cli["line_source"], "sample_lines");
    let want = &cli["functions"][0];
    assert!(want["ticks"].as_u64().unwrap() > 100, "{want}");
    for k in ["ticks", "lines_self_ms", "hottest_line"] {
        assert_eq!(found[k], want[k], "{k}");
    }
    assert_eq!(found["line_costs"], want["lines"]);
    assert_eq!(found["line_source"], "sample_lines");
    // The text an agent reads says what the numbers count: samples, not V8's line ticks.
    let text = r[1]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("({} samples with a line = ", want["ticks"])),
        "{text}"
    );
}
