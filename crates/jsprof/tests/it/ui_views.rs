//! Issue 19's views in the browser (`tests/node/ui-views.mjs`), each against what the CLI
//! prints: the sandwich (`jsprof tree --sandwich`), *Drop samples with this function*
//! (`jsprof top --drop`), the menu from the chart and the flame graph, and the page's polish
//! (dark theme, 1024 px header, resizable split, folding sidebar, DevTools' event titles).

use serde_json::{json, Value};

use crate::support::{argv, fixtures, json_array, jsprof_json};
use crate::ui::{report, view};

fn views(case: &str, url: &str, expected: &Value) {
    crate::ui::node_case("ui-views.mjs", case, url, expected);
}

fn top(file: &str, extra: &[&str]) -> Value {
    let mut args = vec!["top", file, "--json", "--limit", "0"];
    args.extend(extra);
    jsprof_json(&args)
}

/// The sandwich of `buildTree` (recursive, called from several places) is `jsprof tree
/// --sandwich`'s; the table beside it opens another function's.
#[test]
fn sandwich_is_the_clis() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let f = file.to_str().unwrap();
    let name = "buildTree";
    let sandwich = jsprof_json(&argv(
        "tree {} --sandwich ^buildTree$ --max-depth 2 --json",
        &[&f],
    ));
    assert_eq!(sandwich["function"]["name"], name);
    // Another named function, unique by name, near the top of the table by self.
    let all = top(f, &[]);
    let rows = json_array(&all["functions"]);
    let unique = |n: &str| rows.iter().filter(|r| r["name"] == n).count() == 1;
    let other = rows
        .iter()
        .find(|r| {
            let n = r["name"].as_str().unwrap();
            !n.is_empty() && !n.starts_with('(') && n != name && unique(n)
        })
        .unwrap();
    let expected =
        json!({"name": name, "sandwich": sandwich, "other": other["name"], "other_top": other});
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    views("sandwich", &v.url, &expected);
    drop(v);
    // The report cuts the same sandwich from its embedded calls.
    views("sandwich", &report(&file, "sandwich"), &expected);
}

/// Right-click → *Drop samples with this function*: the table is `jsprof top --drop`'s.
#[test]
fn drop_samples_from_a_node_is_top_drop() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let f = file.to_str().unwrap();
    let expected = json!({
        "name": "buildTree",
        "full": top(f, &[]),
        "drop": top(f, &["--drop", "^buildTree$"]),
    });
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    views("drop", &v.url, &expected);
}

/// Dark theme, the 1024 px header, the split and the sidebar on a trace, whose engine events
/// carry the Performance panel's titles in their tooltips.
#[test]
fn dark_theme_narrow_header_split_and_sidebar() {
    let file = fixtures().join("trace/primes.trace.json.gz");
    // DevTools' titles (its trace engine's `TimelineUIUtils` names) for events the trace has.
    let titles = [
        ("RunTask", "Task"),
        ("FunctionCall", "Function call"),
        ("EvaluateScript", "Evaluate script"),
        ("v8.compile", "Compile script"),
        ("ParseHTML", "Parse HTML"),
        ("UpdateLayoutTree", "Recalculate style"),
    ];
    let events = jsprof_json(&["events", file.to_str().unwrap(), "--json"]);
    let names: Vec<&str> = json_array(&events["events"])
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    let event = titles
        .iter()
        .find(|(n, _)| names.contains(n))
        .map(|(n, t)| json!({"name": n, "title": t}));
    assert!(event.is_some(), "the trace has none of {titles:?}");
    // The recorded thread's process, as `jsprof threads` names it.
    let threads = jsprof_json(&["threads", file.to_str().unwrap(), "--json"]);
    let process = threads["timelines"][0]["process"].clone();
    assert!(process.is_string(), "the trace names no process: {threads}");
    let Some(v) = view(&[file]) else { return };
    views(
        "polish",
        &v.url,
        &json!({"event": event, "process": process}),
    );
}

/// Search in the tables: the count of matching functions is `jsprof top`'s, of matching Call tree
/// nodes `jsprof tree --min-percent 0.01`'s (the page leaves out nodes under 0.01 %).
#[test]
fn table_search_counts_highlights_and_steps() {
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let f = file.to_str().unwrap();
    let pattern = "buildTree";
    let re = regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .unwrap();
    let count = |doc: &Value, list: &str| {
        json_array(&doc[list])
            .iter()
            .filter(|r| {
                re.is_match(r["name"].as_str().unwrap()) || re.is_match(r["url"].as_str().unwrap())
            })
            .count()
    };
    let functions = count(&top(f, &[]), "functions");
    let tree = jsprof_json(&["tree", f, "--min-percent", "0.01", "--json"]);
    let top_down = count(&tree, "nodes");
    assert!(
        functions >= 1 && top_down > functions,
        "{functions} {top_down}"
    );
    let Some(v) = view(std::slice::from_ref(&file)) else {
        return;
    };
    views(
        "search",
        &v.url,
        &json!({"pattern": pattern, "functions": functions, "top_down": top_down}),
    );
}

/// A `.cpuprofile` whose functions live at long URLs (a bundler's `webpack://` path, a deep
/// `node_modules` file, a query string), as real Node and browser profiles have.
fn long_url_profile() -> std::path::PathBuf {
    let path =
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-long-urls.cpuprofile");
    let urls = [
        "",
        "webpack:///./src/features/checkout/components/payment-form/validation/rules/credit-card-number.ts",
        "file:///home/someone/projects/a-big-monorepo/packages/application-server/node_modules/@scope/some-very-long-package-name/dist/esm/internal/deeply/nested/path/scheduler-worker.js",
        "https://cdn.example.com/assets/vendor/analytics/v3.14.159/bundle.min.js?build=2026-11-26T07:00:00Z&cache=abcdef0123456789",
    ];
    let names = [
        "(root)",
        "validateCardNumber",
        "runScheduledWork",
        "trackEvent",
    ];
    let nodes: Vec<Value> = (0..4)
        .map(|i| {
            json!({
                "id": i + 1,
                "callFrame": {"functionName": names[i], "scriptId": i.to_string(), "url": urls[i],
                              "lineNumber": if i == 0 { -1 } else { 10 * i as i64 }, "columnNumber": if i == 0 { -1 } else { 4 }},
                "children": if i == 0 { vec![2, 3, 4] } else { vec![] },
            })
        })
        .collect();
    let samples: Vec<usize> = (0..300).map(|k| 2 + (k % 3)).collect();
    crate::ui::write_cpuprofile(&path, &nodes, &samples);
    path
}

/// Nothing cut where it matters at 1024 px: each Location keeps its file, line and column whole
/// (`jsprof top --json`'s url/line/column) while the directory gives way, placeholders fit, and
/// a mouse click leaves no focus ring.
#[test]
fn locations_and_placeholders_are_not_cut_off() {
    let file = long_url_profile();
    let top = top(file.to_str().unwrap(), &[]);
    let locations: Vec<Value> = json_array(&top["functions"])
        .iter()
        .filter(|f| !f["url"].as_str().unwrap_or("").is_empty())
        .map(|f| {
            let url = f["url"].as_str().unwrap();
            let location = format!("{url}:{}:{}", f["line"], f["column"]);
            // The file's name and the position; the directory and the query may give way.
            let path = url.split(['?', '#']).next().unwrap();
            let base = &path[path.rfind('/').map_or(0, |i| i + 1)..];
            let file = format!("{base}:{}:{}", f["line"], f["column"]);
            json!({"name": f["name"], "location": location, "file": file})
        })
        .collect();
    assert_eq!(locations.len(), 3, "{top}");
    let Some(v) = view(&[file]) else { return };
    views("uncut", &v.url, &json!({ "locations": locations }));
}
