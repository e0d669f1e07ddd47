//! `jsprof mcp` under an agent that misuses it (issue 33's Low items and its MCP acceptance
//! item), driven over raw JSON-RPC lines so that the bytes on the wire, the server's pid and its
//! memory can be read: a handle whose directory is swapped for a link after `open`, paths outside
//! the roots that exist and that do not, answers against `max_bytes`, a paged sandwich, HTTP
//! sessions that expire and are capped, a recorded command that reads stdin, and the memory of 40
//! filter sets under an address-space limit.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{argv, KillOnDrop};

/// A directory of this test's own (under the target directory: under no root but those given).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mcp-hard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(dir).unwrap()
}

/// `jsprof mcp` over stdio, spoken to line by line.
struct Mcp {
    child: KillOnDrop,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

/// A tool call's answer: the result and the bytes of its line on the wire.
struct Answer {
    result: Value,
    wire: usize,
}

impl Answer {
    fn doc(&self) -> &Value {
        assert_ne!(self.result["isError"], true, "tool failed: {}", self.result);
        &self.result["structuredContent"]
    }

    fn error(&self) -> String {
        assert_eq!(
            self.result["isError"], true,
            "expected an error: {}",
            self.result
        );
        self.result["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Mcp {
    fn start(roots: &[&Path], flags: &[&str]) -> Mcp {
        Mcp::start_env(roots, flags, &[])
    }

    fn start_env(roots: &[&Path], flags: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_jsprof"));
        cmd.arg("mcp");
        for root in roots {
            cmd.arg("--root").arg(root);
        }
        cmd.args(flags)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = KillOnDrop::spawn(&mut cmd, "jsprof mcp");
        let mut mcp = Mcp {
            input: child.stdin.take().unwrap(),
            output: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 0,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "jsprof-tests", "version": "1"}}),
        );
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.input, "{message}").unwrap();
        self.input.flush().unwrap();
    }

    /// The answer to one request, and the length of its line.
    fn request(&mut self, method: &str, params: Value) -> (Value, usize) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.output.read_line(&mut line).unwrap();
            assert!(n > 0, "jsprof mcp closed its output (it died?)");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{message}");
                return (message["result"].clone(), line.trim_end().len());
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Answer {
        let (result, wire) =
            self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        Answer { result, wire }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// A `.cpuprofile` of `stacks` (names, root first), one 100 µs sample per stack, each frame in
/// `file:///app/NAME.js`.
fn profile(stacks: &[Vec<String>]) -> String {
    let mut nodes = vec![
        json!({"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": []}),
    ];
    let mut index: std::collections::HashMap<(usize, String), usize> = Default::default();
    let mut samples = Vec::new();
    for stack in stacks {
        let mut at = 1;
        for name in stack {
            at = *index.entry((at, name.clone())).or_insert_with(|| {
                let id = nodes.len() + 1;
                nodes.push(json!({"id": id, "callFrame": {"functionName": name, "scriptId": "1", "url": format!("file:///app/{name}.js"), "lineNumber": 0, "columnNumber": 0}, "children": []}));
                nodes[at - 1]["children"]
                    .as_array_mut()
                    .unwrap()
                    .push(id.into());
                id
            });
        }
        samples.push(at);
    }
    let deltas = vec![100; samples.len()];
    json!({"nodes": nodes, "startTime": 0, "endTime": 100 * samples.len(), "samples": samples, "timeDeltas": deltas}).to_string()
}

fn stacks(names: &[&[&str]]) -> Vec<Vec<String>> {
    names
        .iter()
        .map(|s| s.iter().map(|n| n.to_string()).collect())
        .collect()
}

/// The functions of a `top` answer, by name, sorted.
fn names(top: &Answer) -> Vec<String> {
    let mut names: Vec<String> = top.doc()["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Issue 33 (Low): a handle re-resolved its path on every load, so a directory swapped for a
/// link after `open` made the next load read outside the roots. Now every load opens the file
/// again through the roots' checks and must find the same device and inode.
#[test]
fn a_handle_keeps_naming_the_file_open_checked() {
    let base = scratch("swap");
    let (root, outside) = (base.join("root"), base.join("outside"));
    for d in [root.join("d"), outside.join("d")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let inside = profile(&stacks(&[&["main", "insideWork"], &["main", "insideWork"]]));
    std::fs::write(root.join("d/app.cpuprofile"), &inside).unwrap();
    let secret = profile(&stacks(&[&["main", "outsideSecret"]]));
    std::fs::write(outside.join("d/app.cpuprofile"), &secret).unwrap();
    let mut mcp = Mcp::start(&[&root], &["--timeout", "600"]);
    assert_eq!(
        mcp.call("open", json!({"path": "d/app.cpuprofile"})).doc()["handle"],
        "h1"
    );

    // The directory becomes a link to one outside the roots holding a file of the same name.
    std::fs::rename(root.join("d"), root.join("d-was")).unwrap();
    std::os::unix::fs::symlink(outside.join("d"), root.join("d")).unwrap();
    // A new filter set makes the handle load the file again.
    let filtered = json!({"handle": "h1", "filters": {"exclude": ["^nothing$"]}});
    let refused = mcp.call("top", filtered.clone());
    let text = refused.error();
    assert!(
        text.starts_with("FORBIDDEN: h1 (d/app.cpuprofile) can no longer be read"),
        "{text}"
    );
    assert!(
        !refused.result.to_string().contains("outsideSecret"),
        "{}",
        refused.result
    );
    let refused = mcp.call("open", json!({"path": "d/app.cpuprofile"}));
    assert!(
        refused.error().contains("outside the directories"),
        "{}",
        refused.error()
    );

    // Back in place, the same file answers again.
    std::fs::remove_file(root.join("d")).unwrap();
    std::fs::rename(root.join("d-was"), root.join("d")).unwrap();
    assert_eq!(
        names(&mcp.call("top", filtered.clone())),
        ["insideWork", "main"]
    );

    // Another file put at its path (inside the roots) is not the handle's file either; opening
    // the path again gives it a handle of its own.
    let other = profile(&stacks(&[&["main", "replacement"]]));
    std::fs::write(root.join("d/new.cpuprofile"), other).unwrap();
    std::fs::rename(root.join("d/new.cpuprofile"), root.join("d/app.cpuprofile")).unwrap();
    let refused = mcp.call(
        "top",
        json!({"handle": "h1", "filters": {"exclude": ["^other$"]}}),
    );
    assert!(
        refused.error().contains("was replaced since it was opened"),
        "{}",
        refused.error()
    );
    assert_eq!(
        mcp.call("open", json!({"path": "d/app.cpuprofile"})).doc()["handle"],
        "h2"
    );
    assert_eq!(
        names(&mcp.call("top", json!({"handle": "h2"}))),
        ["main", "replacement"]
    );
}

/// Issue 33 (Low): `open` said "not found" for a missing path outside the roots and "outside"
/// for an existing one. Now the path is judged as written before the file system is asked, and a
/// missing path behind a link that leads out is outside too.
#[test]
fn outside_paths_are_refused_alike_whether_or_not_they_exist() {
    let base = scratch("exist");
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("real.cpuprofile"), profile(&stacks(&[&["a"]]))).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    let mut mcp = Mcp::start(&[&root], &[]);
    let mut refusal = |path: String| {
        let text = mcp.call("open", json!({"path": path})).error();
        text.replace(&path, "PATH")
    };
    let told = refusal(outside.join("real.cpuprofile").display().to_string());
    assert!(
        told.starts_with("FORBIDDEN: PATH is outside the directories"),
        "{told}"
    );
    for path in [
        outside.join("gone.cpuprofile").display().to_string(),
        "../outside/real.cpuprofile".into(),
        "../outside/gone.cpuprofile".into(),
        "out/real.cpuprofile".into(),
        "out/gone.cpuprofile".into(),
        "/no/such/dir/x.cpuprofile".into(),
    ] {
        assert_eq!(refusal(path.clone()), told, "{path}");
    }
}

/// A profile whose `hub` has `n` callers and `n` callees.
fn hub_profile(n: usize) -> String {
    let stacks: Vec<Vec<String>> = (0..n)
        .map(|i| {
            vec![
                "main".to_string(),
                format!("caller_{i}_with_a_long_name"),
                "hub".into(),
                format!("callee_{i}_with_a_long_name"),
            ]
        })
        .collect();
    profile(&stacks)
}

/// Issue 33 (Low): `sandwich` answered its whole document in one answer, and every answer
/// carried its page twice more (the JSON as text besides `structuredContent`): `max_bytes` 1 MiB
/// made 3 MB. Now `sandwich` pages one of its trees like the other tools, and an answer's bytes on
/// the wire — document, text and envelope — stay within `max_bytes`.
#[test]
fn sandwich_is_paged_and_answers_fit_max_bytes_on_the_wire() {
    let dir = scratch("pages");
    let hub = dir.join("hub.cpuprofile");
    std::fs::write(&hub, hub_profile(600)).unwrap();
    let wide = dir.join("wide.cpuprofile");
    let names: Vec<Vec<String>> = (0..20_000)
        .map(|i| vec![format!("handler_{i}_with_a_fairly_long_descriptive_name")])
        .collect();
    std::fs::write(&wide, profile(&names)).unwrap();
    let cli = crate::support::jsprof_json(&argv(
        "tree {} --sandwich ^hub$ --max-depth 3 --json",
        &[&hub],
    ));
    let mut mcp = Mcp::start(&[&dir], &["--timeout", "600"]);
    mcp.call("open", json!({"path": "hub.cpuprofile"})).doc();
    for list in ["callers", "callees"] {
        let mut items = Vec::new();
        let mut cursor = Value::Null;
        let mut pages = 0;
        loop {
            let a = mcp.call(
                "sandwich",
                json!({"handle": "h1", "function": "^hub$", "list": list, "max_items": 100,
                       "max_bytes": 16_000, "cursor": cursor}),
            );
            assert!(a.wire <= 16_000, "{list} page {pages}: {} bytes", a.wire);
            let doc = a.doc().clone();
            let other = if list == "callers" {
                "callees"
            } else {
                "callers"
            };
            assert!(doc.get(other).is_none());
            assert_eq!(
                doc["other_lists"][other],
                cli[other].as_array().unwrap().len()
            );
            assert_eq!(doc["function"], cli["function"]);
            items.extend(doc[list].as_array().unwrap().iter().cloned());
            pages += 1;
            cursor = doc["page"]["next_cursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        assert!(pages > 3, "{list}: {pages} pages");
        assert_eq!(&Value::Array(items), &cli[list], "{list}");
    }
    // Without `list`, the callers; within the default budget.
    let first = mcp.call("sandwich", json!({"handle": "h1", "function": "^hub$"}));
    assert_eq!(first.doc()["page"]["list"], "callers");
    assert!(first.wire <= 8000, "{}", first.wire);

    mcp.call("open", json!({"path": "wide.cpuprofile"})).doc();
    let big = mcp.call(
        "top",
        json!({"handle": "h2", "max_items": 10_000, "max_bytes": 1 << 20}),
    );
    let returned = big.doc()["page"]["returned"].as_u64().unwrap();
    println!(
        "a 1 MiB answer: {} bytes on the wire, {returned} rows",
        big.wire
    );
    assert!(big.wire <= 1 << 20, "{} bytes", big.wire);
    // The budget was what cut the page, and it was filled.
    assert!(
        returned < 10_000 && big.wire > 1 << 19,
        "{returned} rows, {} bytes",
        big.wire
    );
    // The document once (as structured content) and its text; not the JSON again as text.
    let content = big.result["content"].as_array().unwrap();
    assert_eq!(
        content.len(),
        1,
        "{:?}",
        content
            .iter()
            .map(|c| c["text"].as_str().unwrap().len())
            .collect::<Vec<_>>()
    );
}

/// One HTTP request to `addr`; the status, the `mcp-session-id` header and the body.
fn post_mcp(
    addr: &str,
    token: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut all = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stream, &mut all);
    let text = String::from_utf8_lossy(&all).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let session = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("mcp-session-id")
            .then(|| v.trim().to_string())
    });
    (status, session, body.to_string())
}

/// A new MCP session over HTTP, initialised; its id.
fn http_session(addr: &str, token: &str) -> String {
    let (status, id, body) = post_mcp(
        addr,
        token,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "jsprof-tests", "version": "1"}}}),
    );
    assert_eq!(status, 200, "{body}");
    let id = id.expect("a session id");
    let (status, _, body) = post_mcp(
        addr,
        token,
        Some(&id),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(status, 202, "{body}");
    id
}

/// The status of `tools/list` in session `id` (404 once the session is gone).
fn ask(addr: &str, token: &str, id: &str) -> u16 {
    let (status, _, body) = post_mcp(
        addr,
        token,
        Some(id),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert!(status != 200 || body.contains("\"tools\""), "{body}");
    status
}

/// Issue 33 (Low): MCP's HTTP sessions never expired. Now a session ends after
/// `--mcp-session-idle` without a request, and past `--mcp-max-sessions` a new session ends the
/// one asked least recently; either way its client gets 404 and starts anew.
#[test]
fn http_sessions_expire_when_idle_and_are_capped() {
    let repo = crate::mcp::repo().display().to_string();
    let s = crate::serve::serve(
        &crate::serve::data_dir("mcp-sessions"),
        &[
            "--mcp-root",
            &repo,
            "--mcp-session-idle",
            "2",
            "--mcp-max-sessions",
            "2",
        ],
    );
    let (addr, token) = (s.addr.as_str(), s.token.as_str());
    let first = http_session(addr, token);
    let second = http_session(addr, token);
    assert_eq!(ask(addr, token, &first), 200);
    // A third session ends the least recently asked: the second.
    let third = http_session(addr, token);
    assert_eq!(ask(addr, token, &second), 404);
    assert_eq!(ask(addr, token, &first), 200);
    // A session asked often stays; one left alone for the idle time ends.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(3500) {
        assert_eq!(ask(addr, token, &third), 200);
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(ask(addr, token, &first), 404);
    assert_eq!(ask(addr, token, &third), 200);
    // A new client is served as ever.
    let fourth = http_session(addr, token);
    assert_eq!(ask(addr, token, &fourth), 200);
}

/// Issue 33 (Low): `record`'s command inherited the server's standard input — on stdio the MCP
/// channel — and its working directory. Now it reads an empty input and runs in the root that
/// holds the record directory (or `dir`, under a root), and the session goes on.
#[test]
fn a_recorded_command_reads_no_mcp_channel_and_runs_under_the_roots() {
    if !crate::serve::have_node() {
        return;
    }
    let root = scratch("record");
    let out = root.join("recordings");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(root.join("app")).unwrap();
    let script = root.join("app/reads-stdin.js");
    std::fs::write(
        &script,
        "const fs = require('fs');\n\
         const got = fs.readFileSync(0);\n\
         fs.writeFileSync(__dirname + '/stdin-bytes', String(got.length));\n\
         fs.writeFileSync(__dirname + '/cwd', process.cwd());\n\
         const end = Date.now() + 300; let x = 0; while (Date.now() < end) x++;\n",
    )
    .unwrap();
    let mut mcp = Mcp::start(
        &[&root],
        &[
            "--timeout",
            "600",
            "--allow-record",
            "--record-dir",
            out.to_str().unwrap(),
        ],
    );
    let command = json!(["node", script.display().to_string()]);
    let recorded = mcp.call("record", json!({"command": command, "seconds": 20}));
    assert_eq!(
        recorded.doc()["stop"],
        "ProgramFinished",
        "{}",
        recorded.result
    );
    let read = |name: &str| std::fs::read_to_string(root.join("app").join(name)).unwrap();
    assert_eq!(read("stdin-bytes"), "0", "the command read the MCP channel");
    assert_eq!(read("cwd"), root.display().to_string());
    // The channel is intact: the next calls answer.
    let top = mcp.call("top", json!({"handle": "h1"}));
    assert!(top.doc()["page"]["total"].as_u64().unwrap() > 0);
    // `dir` chooses another directory under the roots; one outside is refused.
    let recorded = mcp.call(
        "record",
        json!({"command": command, "seconds": 20, "dir": "app"}),
    );
    recorded.doc();
    assert_eq!(read("cwd"), root.join("app").display().to_string());
    let refused = mcp.call("record", json!({"command": command, "dir": "/"}));
    assert!(
        refused.error().contains("outside the directories"),
        "{}",
        refused.error()
    );
}

/// `KEY: N kB` of /proc/PID/status, in bytes.
fn status_bytes(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/status"));
    let kb: u64 = line[key.len() + 1..]
        .trim()
        .trim_end_matches(" kB")
        .trim()
        .parse()
        .unwrap();
    kb * 1024
}

/// CPU seconds a process has used (user + system).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// A CPU profile of a few MB whose parsed copy is mostly samples: 100 functions in 20 chains,
/// `samples` samples taking the chains' leaves in turn.
fn sample_heavy_profile(samples: usize) -> String {
    let chains: Vec<Vec<String>> = (0..20)
        .map(|c| (0..5).map(|d| format!("fn_{c}_{d}")).collect())
        .collect();
    let mut doc: Value = serde_json::from_str(&profile(&chains)).unwrap();
    let leaves = doc["samples"].as_array().unwrap().clone();
    doc["samples"] = (0..samples)
        .map(|i| leaves[i % leaves.len()].clone())
        .collect();
    doc["timeDeltas"] = vec![100; samples].into();
    doc["endTime"] = (100 * samples).into();
    doc.to_string()
}

/// Issue 33, finding 5 (acceptance): every filter set kept a copy of the input for good (40 on a
/// 24 MB profile: 62 MB → 5.9 GB), and a call that timed out was discarded and computed again on
/// every retry. Now 40 filter sets answer under an address-space limit of 20 copies above what
/// the server held after its first four (so 40 unevicted copies cannot fit, the bounded cache —
/// the unfiltered input, four filtered copies, 16 answers — can), and the peak RSS stays within
/// 12 copies of the RSS after `open`; and under a 1 ms cap a call that timed out is answered once
/// computed, with one load's CPU time. The profile is small (about 1 MB of samples; a copy in
/// memory is about 6 MB) because a debug build parses some 20 MB/s and 40 loads must take
/// seconds; the limits scale with the copy measured.
#[test]
fn forty_filter_sets_run_in_bounded_memory_and_a_timed_out_call_is_answered() {
    let dir = scratch("memory");
    let path = dir.join("samples.cpuprofile");
    std::fs::write(&path, sample_heavy_profile(250_000)).unwrap();
    let bytes = std::fs::metadata(&path).unwrap().len();
    // Two malloc arenas: the address space then follows the heap rather than per-thread
    // reservations, on any number of cores.
    let env = [("MALLOC_ARENA_MAX", "2")];
    let mut mcp = Mcp::start_env(&[&dir], &["--timeout", "600"], &env);
    let pid = mcp.pid();
    mcp.call("open", json!({"path": "samples.cpuprofile"}))
        .doc();
    let opened = status_bytes(pid, "VmRSS");
    let filtered = |i: usize| json!({"handle": "h1", "max_items": 1, "filters": {"exclude": [format!("^nothing_{i}$")]}});
    // What a filtered copy costs: the growth over the four the cache keeps, none evicted yet.
    for i in 0..4 {
        mcp.call("top", filtered(i)).doc();
    }
    let copy = (status_bytes(pid, "VmRSS").saturating_sub(opened) / 4).max(1 << 20);
    let limit = status_bytes(pid, "VmSize") + 20 * copy;
    let set = Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg(format!("--as={limit}"))
        .status()
        .expect("run prlimit (util-linux)");
    assert!(set.success());
    for i in 4..40 {
        let top = mcp.call("top", filtered(i));
        assert_eq!(
            top.doc()["page"]["returned"],
            1,
            "filter set {i}: {}",
            top.result
        );
    }
    let peak = status_bytes(pid, "VmHWM");
    println!(
        "{} MB profile: {} MB after open, a copy {} MB, peak over 40 filter sets {} MB",
        bytes >> 20,
        opened >> 20,
        copy >> 20,
        peak >> 20
    );
    assert!(
        peak <= opened + 12 * copy,
        "peak RSS {peak} past {opened} + 12 × {copy}"
    );
    drop(mcp);

    // A bigger file under a 1 ms cap: the first call times out, the retries wait for the one
    // computation, and the answer comes. (The reader is built optimised in the tests too: the
    // 1.7 MB file above loads in a few ms, the 7 MB one here in tens.)
    std::fs::write(dir.join("slow.cpuprofile"), sample_heavy_profile(1_000_000)).unwrap();
    let mut base = Mcp::start_env(&[&dir], &["--timeout", "600"], &env);
    base.call("open", json!({"path": "slow.cpuprofile"})).doc();
    let once = cpu_seconds(base.pid());
    drop(base);
    let mut mcp = Mcp::start_env(&[&dir], &["--timeout", "0.001"], &env);
    let first = mcp.call("open", json!({"path": "slow.cpuprofile"}));
    assert!(first.error().starts_with("TIMEOUT:"), "{}", first.error());
    let started = Instant::now();
    let mut retries = 0;
    let answered = loop {
        std::thread::sleep(Duration::from_millis(50));
        let a = mcp.call("open", json!({"path": "slow.cpuprofile"}));
        retries += 1;
        if a.result["isError"] != true {
            break a;
        }
        assert!(a.error().starts_with("TIMEOUT:"), "{}", a.error());
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never answered"
        );
    };
    assert_eq!(answered.doc()["handle"], "h1");
    let spent = cpu_seconds(mcp.pid());
    println!("answered after {retries} retries: {spent:.2} s of CPU (one load: {once:.2} s)");
    assert!(
        spent < 2.0 * once + 0.5,
        "{spent:.2} s of CPU for what takes {once:.2} s: computed more than once"
    );
}
