//! Issue 36's per-realm heap: `jsprof heap contexts` and `heap summary --context` on a real Node
//! process with three JavaScript realms (`fixtures/record/realms.js`: 10,000 `RealmA` objects in
//! one `vm` context, a 50,000-element array in another, one `Shared` object both reach). Every
//! context's sizes and every per-context Summary row equal DevTools' (the heap oracle's
//! `--contexts` mode, DevTools' worker code); the planted objects land in the realm that the raw
//! snapshot says holds them; the CLI, the service and MCP give the same answers; and the UI's
//! Summary select shows what `heap summary --context` prints (`tests/node/ui-heap.mjs`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};

use crate::serve::{data_dir, serve};
use crate::support::{fixtures, fresh_dir, json_array, output_ok, run_oracle_with};

/// The realms' snapshot, written once for the file's tests (about 5 MB, 0.4 s).
pub(crate) fn snapshot() -> &'static Path {
    static SNAPSHOT: OnceLock<PathBuf> = OnceLock::new();
    SNAPSHOT.get_or_init(|| {
        let dir = fresh_dir("heap-contexts");
        let file = dir.join("realms.heapsnapshot");
        output_ok(
            Command::new("node")
                .arg(fixtures().join("record/realms.js"))
                .arg(&file),
            "node realms.js",
        );
        file
    })
}

/// `jsprof ARGS` run in the snapshot's directory (so that it is named as the service names its
/// import: by its file name), its stdout less the last newline.
fn cli(args: &[&str]) -> Vec<u8> {
    let dir = snapshot().parent().unwrap();
    let mut out = output_ok(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args(args)
            .current_dir(dir)
            .env("JSPROF_CACHE_DIR", dir.join("cache")),
        "jsprof",
    )
    .stdout;
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    out
}

fn cli_json(args: &[&str]) -> Value {
    serde_json::from_slice(&cli(args)).unwrap()
}

/// `heap summary --context C`, every class.
fn summary_in(context: &str) -> Value {
    cli_json(&[
        "heap",
        "summary",
        "realms.heapsnapshot",
        "--context",
        context,
        "--limit",
        "0",
        "--json",
    ])
}

/// The id of the native context whose script context declares `variable` (a script-scope
/// `let`), read from the raw snapshot: the `system / Context` with a `context` edge of that name,
/// then its `previous` edge, which V8 points at the script's native context.
pub(crate) fn realm_declaring(variable: &str) -> u64 {
    let v: Value = serde_json::from_slice(&std::fs::read(snapshot()).unwrap()).unwrap();
    let meta = &v["snapshot"]["meta"];
    let index_of =
        |list: &Value, name: &str| json_array(list).iter().position(|f| f == name).unwrap();
    let (nf, ef) = (
        json_array(&meta["node_fields"]).len(),
        json_array(&meta["edge_fields"]).len(),
    );
    let edge_types = &meta["edge_types"][0];
    let (context_edge, internal_edge) = (
        index_of(edge_types, "context") as u64,
        index_of(edge_types, "internal") as u64,
    );
    let edge_count = index_of(&meta["node_fields"], "edge_count");
    let id_field = index_of(&meta["node_fields"], "id");
    let nodes = json_array(&v["nodes"]);
    let edges = json_array(&v["edges"]);
    let strings = json_array(&v["strings"]);
    let named = |e: usize, kind: u64, name: &str| {
        edges[e] == kind && strings[edges[e + 1].as_u64().unwrap() as usize] == name
    };
    let mut first = 0;
    for node in nodes.chunks(nf) {
        let end = first + node[edge_count].as_u64().unwrap() as usize * ef;
        let declares = (first..end)
            .step_by(ef)
            .any(|e| named(e, context_edge, variable));
        if declares {
            let previous = (first..end)
                .step_by(ef)
                .find(|&e| named(e, internal_edge, "previous"))
                .expect("a script context has a previous context");
            let target = edges[previous + 2].as_u64().unwrap() as usize;
            return nodes[target + id_field].as_u64().unwrap();
        }
        first = end;
    }
    panic!("no script context declares {variable}");
}

/// A Summary's rows by key as the oracle writes them: count, self, retained, distance (ours
/// shows a distance from the GC roots only, 100 000 000 and up, or none, as null).
fn rows(classes: &Value, ours: bool) -> Vec<(String, [Value; 4])> {
    json_array(classes)
        .iter()
        .map(|c| {
            let (self_key, retained_key) = if ours {
                ("self_size", "retained_size")
            } else {
                ("self", "retained")
            };
            let distance = match c["distance"].as_i64() {
                Some(d) if (0..100_000_000).contains(&d) => json!(d),
                _ => Value::Null,
            };
            (
                c["key"].as_str().unwrap().to_string(),
                [
                    c["count"].clone(),
                    c[self_key].clone(),
                    c[retained_key].clone(),
                    distance,
                ],
            )
        })
        .collect()
}

fn count_of(summary: &Value, class: &str) -> u64 {
    json_array(&summary["classes"])
        .iter()
        .filter(|c| c["name"] == class)
        .map(|c| c["count"].as_u64().unwrap())
        .sum()
}

#[test]
fn contexts_and_their_summaries_are_devtools() {
    let contexts = cli_json(&["heap", "contexts", "realms.heapsnapshot", "--json"]);
    let listed = json_array(&contexts["contexts"]);
    assert_eq!(listed.len(), 3, "{contexts}");

    // The planted objects, in the realms the raw snapshot says declare them.
    let (a, b) = (realm_declaring("keepA"), realm_declaring("big"));
    assert_ne!(a, b);
    let ids: Vec<u64> = listed.iter().map(|c| c["id"].as_u64().unwrap()).collect();
    assert!(ids.contains(&a) && ids.contains(&b), "{ids:?}: {a} {b}");
    for &id in &ids {
        let summary = summary_in(&format!("@{id}"));
        assert_eq!(summary["context"]["id"], id, "{summary}");
        let expected = if id == a { 10_000 } else { 0 };
        assert_eq!(count_of(&summary, "RealmA"), expected, "RealmA in @{id}");
        // Realm B's array owns its 50,000 elements (400,000 bytes) after DevTools' size transfer.
        let biggest_array = json_array(&summary["classes"])
            .iter()
            .filter(|c| c["name"] == "Array")
            .map(|c| c["self_size"].as_u64().unwrap())
            .max()
            .unwrap_or(0);
        assert_eq!(biggest_array >= 400_000, id == b, "Array in @{id}");
    }
    let shared = summary_in("shared");
    assert_eq!(shared["context"], json!({"owner": "shared"}));
    assert_eq!(count_of(&shared, "Shared"), 1, "{shared}");
    assert_eq!(count_of(&summary_in("none"), "Shared"), 0);

    // DevTools' numbers: each context's sizes, the totals, and each filtered Summary row.
    let Some(gold) = run_oracle_with("heap-oracle", &["--contexts"], snapshot()) else {
        return;
    };
    let gold_contexts = json_array(&gold["contexts"]);
    assert_eq!(listed.len(), gold_contexts.len());
    for (ours, theirs) in listed.iter().zip(gold_contexts) {
        for field in [
            "id",
            "name",
            "self_size",
            "retained_size",
            "attributed_size",
        ] {
            assert_eq!(ours[field], theirs[field], "{field}: {ours} {theirs}");
        }
        let summary = summary_in(&format!("@{}", ours["id"]));
        assert_eq!(
            rows(&summary["classes"], true),
            rows(&theirs["classes"], false),
            "the Summary of @{}",
            ours["id"]
        );
    }
    assert_eq!(contexts["shared_size"], gold["shared_size"]);
    assert_eq!(contexts["unattributed_size"], gold["unattributed_size"]);
    for (name, theirs) in [
        ("shared", &gold["shared_classes"]),
        ("none", &gold["unattributed_classes"]),
    ] {
        let ours = summary_in(name);
        assert!(!json_array(&ours["classes"]).is_empty(), "{name}");
        assert_eq!(
            rows(&ours["classes"], true),
            rows(theirs, false),
            "the {name} Summary"
        );
    }
}

#[test]
fn every_door_gives_the_same_context_answers() {
    let dir = snapshot().parent().unwrap();
    let contexts = cli(&["heap", "contexts", "realms.heapsnapshot", "--json"]);
    let doc: Value = serde_json::from_slice(&contexts).unwrap();
    let realm = doc["contexts"][1]["id"].as_u64().unwrap();
    let at = format!("@{realm}");
    let summary = cli(&[
        "heap",
        "summary",
        "realms.heapsnapshot",
        "--context",
        &at,
        "--sort",
        "count",
        "--limit",
        "0",
        "--json",
    ]);

    // The service: the same bytes; a context that is not one is refused, naming what is.
    let s = serve(&data_dir("heap-contexts"), &[]);
    let id = s.import(snapshot())["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let base = format!("/api/sessions/{id}/artifacts/1/heap");
    let r = s.get(&format!("{base}/contexts")).expect(200, "contexts");
    assert_eq!(r.body.trim_ascii_end(), &contexts[..], "…/heap/contexts");
    let r = s
        .get(&format!(
            "{base}/summary?context=%40{realm}&sort=count&limit=0"
        ))
        .expect(200, "summary?context=");
    assert_eq!(
        r.body.trim_ascii_end(),
        &summary[..],
        "…/heap/summary?context="
    );
    let r = s
        .get(&format!("{base}/summary?context=main"))
        .expect(400, "main");
    assert!(r.message().contains("shared or none"), "{}", r.message());
    let r = s
        .get(&format!("{base}/summary?context=1"))
        .expect(404, "@1");
    assert!(r.message().contains(&at), "{}", r.message());
    let r = s
        .get(&format!("{base}/contexts?limit=3"))
        .expect(400, "limit");
    assert!(r.message().contains("limit"), "{}", r.message());

    // The report: `heap contexts` and each context's `heap summary --context C --limit 2000`
    // (its Summary's rows), byte for byte, the shared and unattributed objects' too.
    let views = crate::serve::report_views(snapshot());
    assert_eq!(views["heap_contexts"], contexts, "the report's contexts");
    let embedded: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_slice(&views["heap_context_summaries"]).unwrap();
    let mut keys: Vec<String> = json_array(&doc["contexts"])
        .iter()
        .map(|c| c["id"].to_string())
        .chain(["shared".into(), "none".into()])
        .collect();
    keys.sort();
    assert_eq!(embedded.keys().cloned().collect::<Vec<_>>(), keys);
    for (key, summary) in &embedded {
        let context = if key.parse::<u32>().is_ok() {
            format!("@{key}")
        } else {
            key.clone()
        };
        let cli = cli(&[
            "heap",
            "summary",
            "realms.heapsnapshot",
            "--context",
            &context,
            "--limit",
            "2000",
            "--json",
        ]);
        assert_eq!(
            summary.get().as_bytes(),
            &cli[..],
            "the report's Summary of context {key}"
        );
    }

    // MCP: the CLI's classes, paged; an id that is not a context's is refused with the list;
    // heap_contexts is the CLI's document.
    if crate::mcp::sdk_missing() {
        return;
    }
    let root = std::fs::canonicalize(dir).unwrap();
    let r = crate::mcp::client(json!({
        "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": [
            "mcp", "--timeout", "600", "--root", root.display().to_string()
        ]}},
        "steps": [
            {"op": "callTool", "name": "open", "arguments": {"path": root.join("realms.heapsnapshot").display().to_string()}},
            crate::mcp::page_all("heap_summary", json!({"handle": "h1", "context": at, "sort": "count"})),
            {"op": "callTool", "name": "heap_summary", "arguments": {"handle": "h1", "context": 1}},
            {"op": "callTool", "name": "heap_contexts", "arguments": {"handle": "h1"}},
        ],
    }));
    assert_eq!(
        crate::mcp::doc(&r[3]),
        &crate::mcp::numbers(doc.clone()),
        "MCP heap_contexts"
    );
    let summary: Value = serde_json::from_slice(&summary).unwrap();
    assert_eq!(
        Value::Array(crate::mcp::items(&r[1]).clone()),
        crate::mcp::numbers(summary["classes"].clone()),
        "MCP heap_summary with a context"
    );
    let refused = crate::mcp::error_text(&r[2]);
    for c in json_array(&doc["contexts"]) {
        assert!(refused.contains(&format!("@{}", c["id"])), "{refused}");
    }
}

/// The heap Summary's "JavaScript context" select (`ui-heap.mjs contexts`): its options are
/// `heap contexts`' contexts, and choosing one shows `heap summary --context`'s rows, a class
/// expanding to that context's objects only.
#[test]
fn the_summarys_context_select_is_heap_summary_context() {
    let contexts = cli_json(&["heap", "contexts", "realms.heapsnapshot", "--json"]);
    let realm = realm_declaring("keepA");
    let report = summary_in(&format!("@{realm}"));
    assert!(count_of(&report, "RealmA") > 0);
    let expected = json!({"contexts": contexts, "report": report, "class": "RealmA"});
    let Some(v) = crate::ui::view(&[snapshot().to_path_buf()]) else {
        return;
    };
    crate::ui::node_case("ui-heap.mjs", "contexts", &v.url, &expected);
}
