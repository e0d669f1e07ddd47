//! Issue 36's heap answers at the service and MCP as at the CLI: `heap advisors` (service
//! `…/heap/advisors`, MCP `heap_advisors`) and the verdicts over a series of snapshots (service
//! `…/heap/leaks?series=`, MCP `heap_leaks` with the handles), and `heap redact` (service
//! `…/heap/redacted`). The service gives the CLI's bytes; MCP gives the CLI's document, paged.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::serve::{data_dir, serve};
use crate::support::{fixtures, fresh_dir};

const SNAPSHOTS: [&str; 3] = [
    "leak-1-baseline.heapsnapshot.gz",
    "leak-2-target.heapsnapshot.gz",
    "leak-3-final.heapsnapshot.gz",
];

/// `jsprof ARGS` run in `dir` (so that files are named as the service names its imports: by
/// their file names), its stdout less the last newline.
fn cli_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .current_dir(dir)
        .env("JSPROF_CACHE_DIR", dir.join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v = out.stdout;
    if v.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

fn same(what: &str, a: &[u8], b: &[u8]) {
    assert!(
        a == b,
        "{what}: the answers differ\n  {}\n  {}",
        String::from_utf8_lossy(&a[..a.len().min(600)]),
        String::from_utf8_lossy(&b[..b.len().min(600)])
    );
}

#[test]
fn advisors_and_leak_series_are_the_clis_at_the_service_and_mcp() {
    // The snapshots copied under one modification time, so that the CLI, like the service (which
    // has no file times), orders them by the numbers in their names and gives no rates per hour.
    let dir = fresh_dir("heap-doors");
    let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    for name in SNAPSHOTS {
        let to = dir.join(name);
        std::fs::copy(fixtures().join("heap").join(name), &to).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    let s = serve(&data_dir("heap-doors"), &[]);
    let ids: Vec<String> = SNAPSHOTS
        .iter()
        .map(|n| {
            s.import(&dir.join(n))["session_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();

    // Advisors: the defaults, everything, and a saving floor.
    for (query, flags) in [
        ("", vec![]),
        (
            "?limit=0&min_saving=0",
            vec!["--limit", "0", "--min-saving", "0"],
        ),
        (
            "?limit=5&min_saving=4096",
            vec!["--limit", "5", "--min-saving", "4096"],
        ),
    ] {
        for (id, name) in ids.iter().zip(SNAPSHOTS) {
            let r = s
                .get(&format!(
                    "/api/ui/sessions/{id}/artifacts/1/heap/advisors{query}"
                ))
                .expect(200, query);
            let mut args = vec!["heap", "advisors", name, "--json"];
            args.extend(&flags);
            same(
                &format!("{name} advisors{query}"),
                r.body.trim_ascii_end(),
                &cli_in(&dir, &args),
            );
        }
    }

    // A series ending with the final snapshot, the earlier ones given out of order: put in order
    // by their names at both doors.
    let series = format!("{}/1,{}/1", ids[1], ids[0]);
    for (query, flags) in [
        ("&all=1&limit=0", vec!["--all", "--limit", "0"]),
        (
            "&alpha=0.2&min_retained=1000",
            vec!["--alpha", "0.2", "--min-retained", "1000"],
        ),
    ] {
        let r = s
            .get(&format!(
                "/api/ui/sessions/{}/artifacts/1/heap/leaks?series={series}{query}",
                ids[2]
            ))
            .expect(200, query);
        let mut args = vec![
            "heap",
            "leaks",
            SNAPSHOTS[2],
            SNAPSHOTS[1],
            SNAPSHOTS[0],
            "--series",
            "--json",
        ];
        args.extend(&flags);
        let cli = cli_in(&dir, &args);
        let doc: Value = serde_json::from_slice(&cli).unwrap();
        assert_eq!(doc["order"], "name_number", "{doc}");
        assert_eq!(doc["times_from"], Value::Null, "{doc}");
        same(
            &format!("leaks series{query}"),
            r.body.trim_ascii_end(),
            &cli,
        );
    }
    // Bad series: a clear 400 naming what was expected.
    for (query, words) in [
        (format!("series={}/1", ids[0]), "3 to 50 snapshots"),
        (format!("series={}", ids[0]), "SESSION_ID/ARTIFACT_ID"),
        (
            format!("series={}/1,{}/1&base={}/1", ids[0], ids[1], ids[0]),
            "not both",
        ),
        (
            format!("base={}/1&target={}/1&alpha=0.1", ids[0], ids[1]),
            "belongs to a series",
        ),
    ] {
        let r = s.get(&format!(
            "/api/ui/sessions/{}/artifacts/1/heap/leaks?{query}",
            ids[2]
        ));
        assert_eq!(r.status, 400, "{query}");
        let message = r.json()["message"].as_str().unwrap().to_string();
        assert!(message.contains(words), "{query}: {message}");
    }

    // A snapshot safe to share, downloaded: the bytes `heap redact` writes, with and without
    // --numbers; a bad flag is refused by name.
    for (query, flags) in [("", vec![]), ("?numbers=1", vec!["--numbers"])] {
        let r = s
            .get(&format!(
                "/api/ui/sessions/{}/artifacts/1/heap/redacted{query}",
                ids[2]
            ))
            .expect(200, query);
        let out = dir.join(format!("redacted{}.heapsnapshot", flags.len()));
        let mut args = vec!["heap", "redact", SNAPSHOTS[2], "-o", out.to_str().unwrap()];
        args.extend(&flags);
        cli_in(&dir, &args);
        same(
            &format!("redacted{query}"),
            &r.body,
            &std::fs::read(&out).unwrap(),
        );
        assert!(
            r.head
                .contains("filename=\"leak-3-final.redacted.heapsnapshot\""),
            "{}",
            r.head
        );
    }
    let r = s.get(&format!(
        "/api/ui/sessions/{}/artifacts/1/heap/redacted?numbers=yes",
        ids[2]
    ));
    assert_eq!(r.status, 400);
    assert!(r.json()["message"].as_str().unwrap().contains("numbers"));

    // MCP: heap_advisors is the CLI's document with every finding; heap_leaks over the three
    // handles as a series gives the CLI's groups.
    if crate::mcp::sdk_missing() {
        return;
    }
    let root = std::fs::canonicalize(&dir).unwrap();
    let mut steps: Vec<Value> = SNAPSHOTS
        .iter()
        .map(|n| json!({"op": "callTool", "name": "open", "arguments": {"path": root.join(n).display().to_string()}}))
        .collect();
    steps.push(crate::mcp::page_all(
        "heap_advisors",
        json!({"handle": "h3", "min_saving": 0}),
    ));
    steps.push(crate::mcp::page_all(
        "heap_leaks",
        json!({"handles": ["h1", "h2", "h3"], "series": true, "all": true}),
    ));
    let r = crate::mcp::client(json!({
        "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": [
            "mcp", "--timeout", "600", "--root", root.display().to_string()
        ]}},
        "steps": steps,
    }));
    let want: Value = serde_json::from_slice(&cli_in(
        &dir,
        &[
            "heap",
            "advisors",
            SNAPSHOTS[2],
            "--limit",
            "0",
            "--min-saving",
            "0",
            "--json",
        ],
    ))
    .unwrap();
    let advice = crate::mcp::items(&r[3]);
    assert!(!advice.is_empty());
    assert_eq!(
        Value::Array(advice.clone()),
        crate::mcp::numbers(want["advice"].clone()),
        "MCP heap_advisors"
    );
    let groups = crate::mcp::items(&r[4]);
    let cli: Value = serde_json::from_slice(&cli_in(
        &dir,
        &[
            "heap",
            "leaks",
            SNAPSHOTS[0],
            SNAPSHOTS[1],
            SNAPSHOTS[2],
            "--series",
            "--all",
            "--limit",
            "0",
            "--json",
        ],
    ))
    .unwrap();
    assert!(!groups.is_empty());
    assert_eq!(
        Value::Array(groups.clone()),
        crate::mcp::numbers(cli["groups"].clone()),
        "MCP heap_leaks"
    );
    assert_eq!(r[4]["first"]["verdicts"], cli["verdicts"]);
}
