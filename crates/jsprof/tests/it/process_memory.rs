//! The whole process's memory (issue 36): `record --heap-snapshot` takes every isolate of a Node
//! process — the main thread and each worker — with each isolate's `process.memoryUsage()`
//! beside its snapshot; `heap process` reconciles them; `heap leaks` finds each isolate's leak
//! in its own snapshots (three each worker writes with Node's own names: taken by the program,
//! they do not depend on how fast a busy machine snapshots).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{fixture_arg, json_array, jsprof, jsprof_json};

const BUFFER_BYTES: u64 = 64 * 1024;
const MAIN_CACHE_BYTES: u64 = 8 << 20;

fn read_json(path: &Path) -> Value {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&text).unwrap()
}

fn owner_bytes(isolate: &Value, class: &str) -> Option<u64> {
    json_array(&isolate["owners"])
        .iter()
        .find(|o| o["class"] == class)
        .map(|o| o["bytes"].as_u64().unwrap())
}

/// `heap leaks BASE TARGET FINAL` over three snapshots: the classes of its leaked groups.
fn leaked_classes(files: &[PathBuf]) -> Vec<String> {
    assert_eq!(files.len(), 3, "{files:?}");
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut args = vec!["heap", "leaks"];
    args.extend(names.iter().map(String::as_str));
    args.extend(["--json", "--limit", "0"]);
    let report = jsprof_json(&args);
    json_array(&report["groups"])
        .iter()
        .map(|g| g["class"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_isolate_is_snapshotted_reconciled_and_searched_for_its_own_leak() {
    let dir = crate::support::fresh_dir("process-memory");
    let out = dir.join("out");
    let memlog = dir.join("memlog");
    // The workers' own snapshots go to the program's working directory.
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    // The leaks grow for 2.5 s; the recording lasts 6 s and snapshots every isolate at its end,
    // once what the program logged last holds (a worker's own snapshots, on a busy machine, can
    // hold its last step back by seconds).
    let v = crate::record::record_within(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args([
                "record",
                "--heap-snapshot",
                "--duration",
                "6",
                "--json",
                "-o",
            ])
            .arg(&out)
            .arg("--")
            .arg("node")
            .arg(fixture_arg("record/workers-leak.js"))
            .current_dir(&own)
            .env("RUN_MS", "2500")
            .env("MEMLOG", &memlog)
            .env("WORKER_SNAPSHOTS", "1"),
        180,
        "jsprof record --heap-snapshot over a process with two workers",
    );
    let artifacts = crate::record::artifacts(&v);
    let snapshots: Vec<&PathBuf> = artifacts
        .iter()
        .filter(|(k, _)| k == "heap-snapshot")
        .map(|(_, p)| p)
        .collect();
    // One snapshot of each isolate, its memory usage beside it.
    let workers: Vec<&Value> = json_array(&v["artifacts"])
        .iter()
        .filter(|a| a["kind"] == "heap-snapshot")
        .map(|a| &a["worker"])
        .collect();
    assert_eq!(workers.len(), 3, "main and two workers: {v}");
    assert_eq!(workers.iter().filter(|w| w.is_null()).count(), 1, "{v}");
    for s in &snapshots {
        let name = s.file_name().unwrap().to_str().unwrap();
        let memory = s.with_file_name(name.replace(".heapsnapshot", ".memory.json"));
        assert!(
            artifacts
                .iter()
                .any(|(k, p)| k == "memory-usage" && *p == memory),
            "no memory usage beside {name}: {v}"
        );
        let m = read_json(&memory);
        assert_eq!(m["snapshot"], name);
        assert!(m["memory_usage"]["rss"].as_u64().unwrap() > 0, "{m}");
    }

    let report = jsprof_json(&["heap", "process", out.to_str().unwrap(), "--json"]);
    assert_eq!(report["kind"], "process-memory");
    let processes = json_array(&report["processes"]);
    assert_eq!(processes.len(), 1, "{report}");
    let p = &processes[0];
    assert_eq!(p["pid"], v["program"]["pid"], "{p}");
    let isolates = json_array(&p["isolates"]);
    assert_eq!(isolates.len(), 3, "{p}");
    assert_eq!(isolates[0]["isolate"], "main");
    let log = |name: &str| read_json(&PathBuf::from(format!("{}-{name}.json", memlog.display())));
    let (mut heaps, mut external) = (0, 0);
    for i in isolates {
        let m = &i["memory_usage"];
        heaps += m["heapTotal"].as_u64().unwrap();
        external += m["external"].as_u64().unwrap();
        // The snapshot's V8 heap and memoryUsage's heapUsed right after it: one heap, two
        // bookkeepings, and what the isolate allocated in between (its 100 ms log): 5 %.
        let js = i["js_heap"].as_f64().unwrap();
        let used = m["heapUsed"].as_f64().unwrap();
        assert!((js - used).abs() <= 0.05 * used, "{i}");
        // The backing stores the snapshot shows are what Node counts as arrayBuffers (0.5 %).
        let buffers = i["external_buffers"].as_f64().unwrap();
        let array_buffers = m["arrayBuffers"].as_f64().unwrap();
        assert!(
            (buffers - array_buffers).abs() <= 0.005 * array_buffers,
            "{i}"
        );
        // And what the program itself measured once its leak stopped growing.
        let kind = match owner_bytes(i, "BufferLeak") {
            Some(_) => "buffers",
            None if i["isolate"] == "main" => "main",
            None => "map",
        };
        let own = log(kind);
        let own_buffers = own["arrayBuffers"].as_f64().unwrap();
        assert!(
            (buffers - own_buffers).abs() <= 0.005 * own_buffers,
            "{i} vs {own}"
        );
        match kind {
            // Each BufferLeak owns one 64 KiB Buffer: as many as the program counted.
            "buffers" => assert_eq!(
                owner_bytes(i, "BufferLeak"),
                Some(own["entries"].as_u64().unwrap() * BUFFER_BYTES),
                "{i} vs {own}"
            ),
            "main" => assert_eq!(owner_bytes(i, "MainCache"), Some(MAIN_CACHE_BYTES), "{i}"),
            _ => assert_eq!(owner_bytes(i, "MapLeak"), None, "{i}"),
        }
    }
    // The process: RSS and what no isolate explains, from the same readings.
    assert_eq!(p["js_heaps"].as_u64(), Some(heaps));
    assert_eq!(p["external"].as_u64(), Some(external));
    let rss = p["rss"].as_i64().unwrap();
    assert_eq!(
        p["unexplained"].as_i64(),
        Some(rss - heaps as i64 - external as i64)
    );
    // The program's own last RSS reading, taken while it idled after the recording's last
    // snapshots, at most 100 ms from jsprof's (snapshots make and free memory): within 30 %.
    let own_rss = log("main")["rss"].as_f64().unwrap();
    assert!(
        (rss as f64 - own_rss).abs() <= 0.3 * own_rss,
        "{rss} vs {own_rss}"
    );

    // The service (`jsprof view` of the three snapshots: each a session, each snapshot's memory
    // usage beside the user's file) gives the CLI's bytes, and the UI's Process tab its rows.
    let mut files: Vec<&PathBuf> = snapshots.clone();
    files.sort();
    let mut args = vec!["view", "--no-open", "--port", "0"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let view = crate::serve::start(&args);
    let sessions = view.get("/api/sessions").json();
    let ids: Vec<&str> = json_array(&sessions["sessions"])
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3, "{sessions}");
    let with: Vec<String> = ids[1..].iter().map(|id| format!("{id}/1")).collect();
    let served = view
        .get(&format!(
            "/api/ui/sessions/{}/artifacts/1/heap/process?with={}",
            ids[0],
            with.join(",")
        ))
        .expect(200, "heap process");
    let mut cli_args = vec!["heap", "process", "--json"];
    cli_args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let cli = crate::support::jsprof_ok(&cli_args).stdout;
    assert_eq!(
        String::from_utf8_lossy(&served.body),
        String::from_utf8_lossy(cli.trim_ascii_end()),
        "the service's heap process is the CLI's"
    );
    let r = view.get(&format!(
        "/api/ui/sessions/{}/artifacts/1/heap/process?with={}/1",
        ids[0], "0000000000000000"
    ));
    assert_eq!(r.status, 404, "an unknown snapshot: {}", r.message());
    drop(view);
    let cli: Value = serde_json::from_slice(&cli).unwrap();
    let owned: Vec<PathBuf> = files.iter().map(|f| f.to_path_buf()).collect();
    if let Some(v) = crate::ui::view(&owned) {
        crate::ui::node_case("ui-heap.mjs", "process", &v.url, &cli);
    }
    // The report of one isolate's snapshot embeds its `heap process FILE --limit 10`.
    let one = files[0].to_str().unwrap();
    let views = crate::serve::report_views(files[0]);
    let alone = crate::support::jsprof_ok(&["heap", "process", one, "--limit", "10", "--json"]);
    assert_eq!(
        String::from_utf8_lossy(&views["heap_process"]),
        String::from_utf8_lossy(alone.stdout.trim_ascii_end()),
        "the report's process view is the CLI's"
    );
    // The report of the recording's directory embeds every isolate (`heap process DIR --limit
    // 10`) and opens on the main thread's snapshot: its other views are that file's report's.
    let mut whole = crate::serve::report_views(&out);
    let all = crate::support::jsprof_ok(&[
        "heap",
        "process",
        out.to_str().unwrap(),
        "--limit",
        "10",
        "--json",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&whole.remove("heap_process").expect("a process view")),
        String::from_utf8_lossy(all.stdout.trim_ascii_end()),
        "the recording's report's process view is the CLI's"
    );
    let main_file = files
        .iter()
        .find(|f| !f.to_str().unwrap().contains("-worker"))
        .expect("the main thread's snapshot");
    let mut main_views = crate::serve::report_views(main_file);
    main_views.remove("heap_process");
    assert_eq!(
        whole.keys().collect::<Vec<_>>(),
        main_views.keys().collect::<Vec<_>>()
    );
    assert!(
        whole == main_views,
        "the recording's report opens on the main thread's snapshot"
    );
    // Or on a worker's, named as `heap process` names it.
    let worker_file = files
        .iter()
        .find(|f| f.to_str().unwrap().contains("-worker"))
        .expect("a worker's snapshot");
    let stem = worker_file.file_stem().unwrap().to_str().unwrap();
    let worker = &stem[stem.rfind("-worker").unwrap() + 1..];
    let html = crate::support::temp_file("recording-worker.html", b"");
    crate::support::jsprof_ok(&[
        "report",
        out.to_str().unwrap(),
        "--isolate",
        worker,
        "-o",
        html.to_str().unwrap(),
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    let open = r#"<script id="jsprof-data" type="application/json">"#;
    let start = page.find(open).unwrap() + open.len();
    let data: Value =
        serde_json::from_str(&page[start..start + page[start..].find("</script>").unwrap()])
            .unwrap();
    assert_eq!(
        data["name"].as_str(),
        worker_file.file_name().unwrap().to_str(),
        "the report of {worker}"
    );
    let refused = jsprof(&["report", out.to_str().unwrap(), "--isolate", "worker 99"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("the recording has main, worker "), "{err}");
    // MCP's heap_process over the three handles: the CLI's document.
    if !crate::mcp::sdk_missing() {
        let root = std::fs::canonicalize(&out).unwrap();
        let mut steps: Vec<Value> = files
            .iter()
            .map(|f| serde_json::json!({"op": "callTool", "name": "open", "arguments": {"path": std::fs::canonicalize(f).unwrap().display().to_string()}}))
            .collect();
        steps.push(serde_json::json!({"op": "callTool", "name": "heap_process", "arguments": {"handles": ["h3", "h1", "h2"]}}));
        let r = crate::mcp::client(serde_json::json!({
            "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": [
                "mcp", "--timeout", "600", "--root", root.display().to_string()
            ]}},
            "steps": steps,
        }));
        assert_eq!(
            crate::mcp::doc(&r[3]),
            &crate::mcp::numbers(cli.clone()),
            "MCP heap_process"
        );
    }

    // Each leak in its own isolate: the workers' own snapshots (Node's names,
    // Heap.DATE.TIME.PID.TID.SEQ), three a worker, told apart by the thread id.
    let mut by_thread: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in std::fs::read_dir(&own).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let parts: Vec<&str> = name.split('.').collect();
        assert_eq!((parts.len(), parts[0]), (7, "Heap"), "{name}");
        by_thread.entry(parts[4].to_string()).or_default().push(f);
    }
    assert_eq!(by_thread.len(), 2, "{by_thread:?}");
    let leaks: BTreeMap<&str, Vec<String>> = by_thread
        .values_mut()
        .map(|files| {
            files.sort();
            let classes = leaked_classes(files);
            let kind = if classes.iter().any(|c| c == "BufferLeak") {
                "buffers"
            } else {
                "map"
            };
            (kind, classes)
        })
        .collect();
    assert_eq!(leaks.len(), 2, "{leaks:?}");
    assert!(leaks["map"].iter().any(|c| c == "MapLeak"), "{leaks:?}");
    assert!(!leaks["map"].iter().any(|c| c == "BufferLeak"), "{leaks:?}");
    assert!(
        !leaks["buffers"].iter().any(|c| c == "MapLeak"),
        "{leaks:?}"
    );

    // A series is one isolate's: the folder of both workers' snapshots is refused, naming each
    // thread's files.
    let refused = jsprof(&["heap", "leaks", own.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("the snapshots of 2 isolates"), "{err}");
    for thread in by_thread.keys() {
        assert!(err.contains(&format!("worker {thread} of")), "{err}");
    }
}
