//! `jsprof serve` driven over HTTP: the life cycle of a recording against a real Node process,
//! imports of every fixture kind, heap endpoints against the CLI, a SIGKILL and restart, and the
//! security checks. Servers bind 127.0.0.1 only.
//!
//! Node is required for the recording tests; with `CI` set, a missing Node fails them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{
    argv, fixtures, json_array, jsprof, jsprof_json, node_with_inspector, temp_file, KillOnDrop,
};

/// A running `jsprof serve`, killed on drop.
pub(crate) struct Serve {
    pub(crate) child: KillOnDrop,
    pub(crate) addr: String,
    pub(crate) token: String,
    pub(crate) data: PathBuf,
}

pub(crate) fn data_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

pub(crate) fn serve(data: &Path, extra: &[&str]) -> Serve {
    serve_env(data, extra, &[])
}

/// [`serve`] with environment variables set for the server.
pub(crate) fn serve_env(data: &Path, extra: &[&str], env: &[(&str, &str)]) -> Serve {
    let mut args = vec![
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut s = start_env(&args, env);
    s.data = data.to_path_buf();
    s
}

/// `jsprof serve` on `data` with `extra` flags, which must refuse to start: its exit code and
/// stderr. One still running after 30 s (it started) is killed and fails, naming `what`.
pub(crate) fn serve_refused(data: &Path, extra: &[&str], what: &str) -> (Option<i32>, String) {
    let child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(data)
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
        "jsprof serve",
    );
    let out = crate::support::output_within(child, Duration::from_secs(30), what);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts `jsprof ARGS` (`serve` or `view`) and reads the URL it prints.
pub(crate) fn start(args: &[&str]) -> Serve {
    start_env(args, &[])
}

fn start_env(args: &[&str], env: &[(&str, &str)]) -> Serve {
    let child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
        "jsprof serve",
    );
    serving(child, Path::new(""))
}

/// The server `child` (`jsprof serve` or `view`, stdout piped) once it printed its URL, with
/// `data` as its data directory. One that printed nothing fails with its stderr when that is
/// piped; a piped stderr is otherwise drained on a thread of its own, so that a full pipe never
/// blocks the server.
pub(crate) fn serving(mut child: KillOnDrop, data: &Path) -> Serve {
    let line = crate::support::first_line(&mut child);
    if line.is_empty() {
        let status = child.wait().unwrap();
        let mut err = String::new();
        if let Some(mut stderr) = child.stderr.take() {
            let _ = stderr.read_to_string(&mut err);
        }
        panic!("serve did not start ({status}): {err}");
    }
    if let Some(mut stderr) = child.stderr.take() {
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    }
    let rest = line
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("serve printed `{line}`"));
    let (addr, query) = rest.split_once("/?token=").expect("URL with the token");
    Serve {
        child,
        addr: addr.to_string(),
        token: query.to_string(),
        data: data.to_path_buf(),
    }
}

/// An HTTP answer.
pub(crate) struct Reply {
    pub(crate) status: u16,
    /// The status line and the headers.
    pub(crate) head: String,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(500)])
            )
        })
    }

    /// The value of the header `name` (any case).
    #[cfg_attr(not(feature = "lake"), allow(dead_code))]
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }

    /// The error document's `message`, or "".
    #[cfg_attr(not(feature = "lake"), allow(dead_code))]
    pub(crate) fn message(&self) -> String {
        self.json()["message"].as_str().unwrap_or("").to_string()
    }

    /// This answer when its status is `status`; otherwise a panic naming `what` and showing the
    /// body.
    pub(crate) fn expect(self, status: u16, what: &str) -> Reply {
        assert_eq!(
            self.status,
            status,
            "{what}: {}",
            String::from_utf8_lossy(&self.body)
        );
        self
    }
}

fn decode_chunked(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..end]).unwrap().trim(), 16).unwrap();
        body = &body[end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

/// One request with `Connection: close`; `headers` are sent as given (no token added).
pub(crate) fn raw(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    raw_on(
        TcpStream::connect(addr).unwrap(),
        method,
        path,
        headers,
        body,
    )
}

/// [`raw`] over a connection the caller opened.
pub(crate) fn raw_on(
    mut stream: TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("transfer-encoding"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before the whole body is sent.
    let _ = stream.write_all(body);
    let mut all = Vec::new();
    let _ = stream.read_to_end(&mut all);
    let split = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP answer: {}", String::from_utf8_lossy(&all)));
    let head = String::from_utf8_lossy(&all[..split]).to_string();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut body = all[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = decode_chunked(&body);
    }
    Reply { status, head, body }
}

impl Serve {
    pub(crate) fn request(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        let auth = format!("Bearer {}", self.token);
        raw(
            &self.addr,
            method,
            path,
            &[("Host", &self.addr), ("Authorization", &auth)],
            body,
        )
    }

    pub(crate) fn get(&self, path: &str) -> Reply {
        self.request("GET", path, b"")
    }

    /// [`Serve::get`], which must answer 200 (a failure names the path and shows the body).
    pub(crate) fn get_ok(&self, path: &str) -> Reply {
        self.get(path).expect(200, path)
    }

    pub(crate) fn post_json(&self, path: &str, body: Value) -> Reply {
        self.request("POST", path, body.to_string().as_bytes())
    }

    pub(crate) fn import(&self, file: &Path) -> Value {
        let bytes = std::fs::read(file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let r = self.request("POST", &format!("/api/sessions/import?name={name}"), &bytes);
        assert_eq!(
            r.status,
            201,
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&r.body)
        );
        r.json()
    }
}

/// A start refused because the target is already being recorded: 409 with the reason.
pub(crate) fn assert_already_recording(r: &Reply, what: &str) {
    assert_eq!(
        r.status,
        409,
        "{what}: {}",
        String::from_utf8_lossy(&r.body)
    );
    let message = r.json()["message"].as_str().unwrap().to_string();
    assert!(message.contains("already in progress"), "{what}: {message}");
}

/// Whether Node is here; with `CI` set its absence is a failure.
pub(crate) fn have_node() -> bool {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::support::skip_without("node", "install Node 20");
    }
    ok
}

/// `jsprof ARGS` stdout, which must succeed.
pub(crate) fn cli(args: &[&str]) -> Vec<u8> {
    let out = jsprof(args);
    assert!(
        out.status.success(),
        "jsprof {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The file of a session's artifact, found in the data directory.
fn artifact_file(data: &Path, session: &str, ext: &str) -> PathBuf {
    let dir = data.join("sessions").join(session);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(ext))
        .unwrap_or_else(|| panic!("no {ext} in {}", dir.display()))
}

fn assert_events_equal_cli(s: &Serve, session: &str, timeline: u64, file: &Path) {
    let file = file.to_str().unwrap();
    let cases: [(&str, Vec<&str>); 8] = [
        ("", vec![]),
        ("mode=all", vec!["--mode", "all"]),
        ("mode=unique-types", vec!["--mode", "unique-types"]),
        ("mode=unique-events", vec!["--mode", "unique-events"]),
        ("mode=reduce-all", vec!["--mode", "reduce-all"]),
        (
            "mode=all&max_depth=1",
            vec!["--mode", "all", "--max-depth", "1"],
        ),
        (
            "mode=unique-events&range=5..50",
            vec!["--mode", "unique-events", "--range", "5..50"],
        ),
        (
            "types=JS_CALL,GC&mode=all&event_id=1",
            vec!["--type", "JS_CALL,GC", "--event", "1"],
        ),
    ];
    for (query, flags) in cases {
        let r = s
            .get(&format!(
                "/api/sessions/{session}/timelines/{timeline}/events?{query}"
            ))
            .expect(200, query);
        let timeline_arg = timeline.to_string();
        let mut args = vec!["events", file, "--json", "--thread", &timeline_arg];
        args.extend(flags);
        let expected = cli(&args);
        assert!(
            r.body == expected,
            "{query}: the service's events differ from `jsprof {}`",
            args.join(" ")
        );
    }
}

#[test]
fn serve_records_a_node_process_over_its_whole_life_cycle() {
    if !have_node() {
        return;
    }
    let (_node, addr) = node_with_inspector(60_000);
    let s = serve(&data_dir("life"), &[]);
    let r = s
        .post_json(
            "/api/sessions",
            json!({"target": addr, "record": ["cpu"], "interval_us": 200}),
        )
        .expect(201, "");
    let session = r.json();
    let id = session["session_id"].as_str().unwrap().to_string();
    assert_eq!(session["state"], "recording");
    assert_eq!(session["record"], json!(["cpu"]));

    // One recording per target, whichever way it is named.
    let again = s.post_json("/api/sessions", json!({"target": addr}));
    assert_eq!(again.status, 409);
    assert_eq!(again.json()["error"], "BAD_REQUEST");
    assert!(again.json()["message"]
        .as_str()
        .unwrap()
        .contains("profiling already in progress on"));
    let listed = s.get("/api/sessions").json();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), 1);

    let release = s.request("DELETE", &format!("/api/sessions/{id}"), b"");
    assert_eq!(release.status, 409);
    assert_eq!(release.json()["error"], "BAD_REQUEST");
    let early = s.get(&format!("/api/sessions/{id}/timelines/1/events"));
    assert_eq!(early.status, 404);

    std::thread::sleep(Duration::from_millis(1500));
    let stopped = s
        .request("POST", &format!("/api/sessions/{id}/stop"), b"")
        .expect(200, "");
    let stopped = stopped.json();
    assert_eq!(stopped["state"], "stopped");
    assert!(stopped["stopped_at"].is_string());
    let timelines = stopped["timelines"].as_array().unwrap();
    assert_eq!(timelines.len(), 1, "{stopped}");
    let timeline = timelines[0]["timeline_id"].as_u64().unwrap();
    let artifacts = stopped["artifacts"].as_array().unwrap();
    assert_eq!(artifacts[0]["kind"], "cpu");
    assert!(artifacts[0]["bytes"].as_u64().unwrap() > 0);
    assert_eq!(s.get(&format!("/api/sessions/{id}")).json(), stopped);

    let file = artifact_file(&s.data, &id, ".cpuprofile");
    assert_events_equal_cli(&s, &id, timeline, &file);
    let top = s.get(&format!("/api/sessions/{id}/artifacts/1/top?limit=0"));
    assert_eq!(
        top.body,
        cli(&["top", file.to_str().unwrap(), "--json", "--limit", "0"])
    );
    assert!(top.json()["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["name"] == "hotFunction"));
    let tree = s.get(&format!(
        "/api/sessions/{id}/artifacts/1/tree?bottom_up=true&max_depth=3"
    ));
    assert_eq!(
        tree.body,
        cli(&[
            "tree",
            file.to_str().unwrap(),
            "--json",
            "--bottom-up",
            "--max-depth",
            "3"
        ])
    );
    // `sandwich=RE`: byte for byte the CLI's `tree --sandwich RE --json`; a pattern matching
    // nothing is a 404 saying so; a bad pattern or `bottom_up` with it a 400.
    let sandwich = s.get(&format!(
        "/api/sessions/{id}/artifacts/1/tree?sandwich=hotFunction&max_depth=3"
    ));
    assert_eq!(sandwich.status, 200);
    assert_eq!(
        sandwich.body,
        cli(&[
            "tree",
            file.to_str().unwrap(),
            "--json",
            "--sandwich",
            "hotFunction",
            "--max-depth",
            "3"
        ])
    );
    let none = s
        .get(&format!(
            "/api/sessions/{id}/artifacts/1/tree?sandwich=%5Eno%20such%24"
        ))
        .expect(404, "");
    assert!(none.json()["message"]
        .as_str()
        .unwrap()
        .contains("no sampled function"));
    for bad in ["sandwich=(", "sandwich=hotFunction&bottom_up=1"] {
        s.get(&format!("/api/sessions/{id}/artifacts/1/tree?{bad}"))
            .expect(400, bad);
    }

    // The target is free again.
    let second = s.post_json("/api/sessions", json!({"target": addr}));
    assert_eq!(second.status, 201);
    let second_id = second.json()["session_id"].as_str().unwrap().to_string();
    assert_eq!(
        s.request("POST", &format!("/api/sessions/{second_id}/stop"), b"")
            .status,
        200
    );

    let twice = s.request("POST", &format!("/api/sessions/{id}/stop"), b"");
    assert_eq!(twice.status, 409);
    assert_eq!(twice.json()["error"], "BAD_REQUEST");
    let gone = s.request("DELETE", &format!("/api/sessions/{id}"), b"");
    assert_eq!(gone.status, 200);
    assert!(!s.data.join("sessions").join(&id).exists());
    assert_eq!(s.get(&format!("/api/sessions/{id}")).status, 404);
    assert_eq!(
        s.request("DELETE", &format!("/api/sessions/{id}"), b"")
            .status,
        404
    );
    assert_eq!(
        s.get(&format!("/api/sessions/{id}/timelines/1/events"))
            .status,
        404
    );
    let all = s.request("DELETE", "/api/sessions", b"").json();
    assert_eq!(all["released"], json!([second_id]));

    // Nothing listens there: 404, and a bad spec is a 400.
    let unknown = s
        .post_json("/api/sessions", json!({"target": "127.0.0.1:1"}))
        .expect(404, "");
    assert_eq!(unknown.json()["error"], "NOT_FOUND");
    let bad = s.post_json("/api/sessions", json!({"target": "node app.js"}));
    assert_eq!(bad.status, 400);
    let bad = s.post_json("/api/sessions", json!({"target": addr, "record": ["gpu"]}));
    assert_eq!(bad.status, 400);
}

/// The fixtures of every kind jsprof reads.
const IMPORTS: [(&str, &str); 7] = [
    ("cpu/node-mix.cpuprofile.gz", "cpu"),
    ("selfprofile/primes.jsprofile.json", "cpu"),
    ("selfprofile/mdn-example.exported.cpuprofile", "cpu"),
    ("trace/primes.trace.json.gz", "trace"),
    ("heapprofile/tsc.heapprofile", "heap-sampling"),
    ("heap/node-small.heapsnapshot.gz", "heap-snapshot"),
    ("heap/alloc-known.heaptimeline.gz", "heap-snapshot"),
];

#[test]
fn serve_imports_every_fixture_kind() {
    let s = serve(&data_dir("import"), &[]);
    for (name, kind) in IMPORTS {
        let file = fixtures().join(name);
        let session = s.import(&file);
        let id = session["session_id"].as_str().unwrap();
        assert_eq!(session["state"], "stopped", "{name}");
        assert_eq!(session["source"], "imported");
        assert_eq!(session["artifacts"][0]["kind"], kind, "{name}");
        let path = file.to_str().unwrap();
        match kind {
            "cpu" | "trace" => {
                let timelines = session["timelines"].as_array().unwrap();
                assert!(!timelines.is_empty(), "{name}");
                let threads: Value =
                    serde_json::from_slice(&cli(&["threads", path, "--json"])).unwrap();
                assert_eq!(
                    timelines.len(),
                    threads["timelines"].as_array().unwrap().len(),
                    "{name}"
                );
                let t = timelines[0]["timeline_id"].as_u64().unwrap();
                let r = s.get(&format!(
                    "/api/sessions/{id}/timelines/{t}/events?mode=unique-events"
                ));
                assert_eq!(
                    r.body,
                    cli(&[
                        "events",
                        path,
                        "--json",
                        "--mode",
                        "unique-events",
                        "--thread",
                        &t.to_string()
                    ]),
                    "{name}"
                );
                let top = s.get(&format!("/api/sessions/{id}/artifacts/1/top"));
                assert_eq!(top.body, cli(&["top", path, "--json"]), "{name}");
            }
            "heap-sampling" => {
                assert!(session["timelines"].as_array().unwrap().is_empty());
                let top = s.get(&format!(
                    "/api/sessions/{id}/artifacts/1/top?by=total&limit=10"
                ));
                assert_eq!(
                    top.body,
                    cli(&["top", path, "--json", "--by", "total", "--limit", "10"]),
                    "{name}"
                );
                let events = s.get(&format!("/api/sessions/{id}/timelines/1/events"));
                assert_eq!(events.status, 404);
            }
            _ => {
                let summary = s.get(&format!("/api/sessions/{id}/artifacts/1/heap/summary"));
                assert_eq!(
                    summary.body,
                    cli(&["heap", "summary", path, "--json"]),
                    "{name}"
                );
                let top = s.get(&format!("/api/sessions/{id}/artifacts/1/top"));
                assert_eq!(top.status, 400);
            }
        }
    }
    let listed = s.get("/api/sessions").json();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), IMPORTS.len());

    // What is not a profile is refused cleanly, and leaves nothing behind.
    for junk in [&b"hello"[..], b"{\"nodes\": [", b"\x1f\x8b\x08\x00garbage"] {
        let r = s
            .request("POST", "/api/sessions/import?name=junk", junk)
            .expect(400, "");
        assert_eq!(r.json()["error"], "BAD_REQUEST");
    }
    assert_eq!(s.request("POST", "/api/sessions/import", b"").status, 400);
    let listed = s.get("/api/sessions").json();
    assert_eq!(listed["sessions"].as_array().unwrap().len(), IMPORTS.len());
    let dirs = std::fs::read_dir(s.data.join("sessions")).unwrap().count();
    assert_eq!(dirs, IMPORTS.len());
}

#[test]
fn serve_heap_endpoints_equal_the_cli() {
    let s = serve(&data_dir("heap"), &[]);
    let base_file = fixtures().join("heap/leak-1-baseline.heapsnapshot.gz");
    let file = fixtures().join("heap/leak-3-final.heapsnapshot.gz");
    let base = s.import(&base_file)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
    let (path, base_path) = (file.to_str().unwrap(), base_file.to_str().unwrap());
    let at = |rest: &str| format!("/api/sessions/{id}/artifacts/1/heap/{rest}");
    assert_eq!(
        s.get(&at("summary?sort=self&limit=0")).body,
        cli(&["heap", "summary", path, "--json", "--sort", "self", "--limit", "0"])
    );
    assert_eq!(
        s.get(&at("node/79193")).body,
        cli(&["heap", "node", path, "79193", "--json"])
    );
    assert_eq!(
        s.get(&at("retainers/79193?paths=3")).body,
        cli(&["heap", "retainers", path, "79193", "--json", "--paths", "3"])
    );
    let missing = s.get(&at("node/4294967295"));
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"], "NOT_FOUND");
    let diff = s.get(&at(&format!("diff?base={base}/1&limit=0"))).json();
    let expected: Value = serde_json::from_slice(&cli(&[
        "heap", "diff", base_path, path, "--json", "--limit", "0",
    ]))
    .unwrap();
    assert_eq!(diff["classes"], expected["classes"]);
    assert_eq!(diff["kind"], expected["kind"]);
    assert_eq!(
        diff["warnings"].as_array().unwrap().len(),
        expected["warnings"].as_array().unwrap().len()
    );
    assert_eq!(s.get(&at("diff")).status, 400);
    assert_eq!(s.get(&at("diff?base=../../etc/1")).status, 400);
}

/// The heap views a user clicks through (a class's pages in every order, the root's dominated
/// objects, an object's retaining paths and retainer edges) answer the CLI's bytes whether the
/// service builds their indexes in the background as the snapshot loads (the requests racing
/// that build) or on first use (`JSPROF_HEAP_PREPARE=0`), with the largest class prepared as
/// the classes of millions are (`JSPROF_HEAP_PREPARE_MIN_MEMBERS`).
#[test]
fn heap_views_answer_the_same_with_and_without_the_background_build() {
    let file = fixtures().join("heap/leak-3-final.heapsnapshot.gz");
    let path = file.to_str().unwrap();
    let largest = jsprof_json(&[
        "heap", "summary", path, "--sort", "count", "--limit", "1", "--json",
    ]);
    let key = largest["classes"][0]["key"].as_str().unwrap().to_string();
    let count = largest["classes"][0]["count"].as_u64().unwrap();
    let id = 79193;
    let encoded: String = key
        .bytes()
        .map(|b| match b.is_ascii_alphanumeric() {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect();
    let mut expected: Vec<(String, Vec<u8>)> = Vec::new();
    for (sort, offset) in [
        ("retained", 0),
        ("retained", count / 2),
        ("self", 0),
        ("distance", 7),
        ("id", 0),
    ] {
        let offset = offset.to_string();
        expected.push((
            format!(
                "ui:class?key={}&sort={sort}&offset={offset}&limit=20",
                encoded
            ),
            cli(&[
                "heap", "class", path, &key, "--sort", sort, "--offset", &offset, "--limit", "20",
                "--json",
            ]),
        ));
    }
    expected.push((
        format!("api:retainers/{id}?paths=3"),
        cli(&argv(
            "heap retainers {} {} --json --paths 3",
            &[&path, &id.to_string()],
        )),
    ));
    expected.push((
        format!("ui:edges/{id}?retainers=1&offset=0&limit=30"),
        cli(&argv(
            "heap edges {} {} --retainers --limit 30 --json",
            &[&path, &id.to_string()],
        )),
    ));
    let min_members = count.to_string();
    let mut dominated = Vec::new();
    for prepare in ["1", "0"] {
        let s = serve_env(
            &data_dir(&format!("prepare-{prepare}")),
            &[],
            &[
                ("JSPROF_HEAP_PREPARE", prepare),
                ("JSPROF_HEAP_PREPARE_MIN_MEMBERS", &min_members),
            ],
        );
        let session = s.import(&file)["session_id"].as_str().unwrap().to_string();
        for (query, bytes) in &expected {
            let url = match query.split_once(':').unwrap() {
                ("ui", rest) => format!("/api/ui/sessions/{session}/artifacts/1/heap/{rest}"),
                (_, rest) => format!("/api/sessions/{session}/artifacts/1/heap/{rest}"),
            };
            let r = s.get(&url).expect(200, query);
            assert!(
                r.body.trim_ascii_end() == bytes.trim_ascii_end(),
                "JSPROF_HEAP_PREPARE={prepare} {query}: not the CLI's answer\n  {}\n  {}",
                String::from_utf8_lossy(&r.body[..r.body.len().min(300)]),
                String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
            );
        }
        let r = s.get(&format!(
            "/api/ui/sessions/{session}/artifacts/1/heap/dominated/root?offset=0&limit=50"
        ));
        assert_eq!(r.status, 200);
        dominated.push(r.body);
    }
    assert_eq!(dominated[0], dominated[1], "the root's dominated objects");
}

#[test]
fn serve_keeps_stopped_sessions_across_a_sigkill_and_fails_the_cut_recording() {
    if !have_node() {
        return;
    }
    let data = data_dir("crash");
    // An idle Node: its heap snapshots (one a second at most) stay small and quick.
    let (_node, port, _) =
        crate::hostile_serve::node_inspector("127.0.0.1:0", crate::hostile_serve::IDLE);
    let addr = format!("127.0.0.1:{port}");
    let mut s = serve(&data, &[]);
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let imported = s.import(&file);
    let kept = imported["session_id"].as_str().unwrap().to_string();
    let r = s
        .post_json(
            "/api/sessions",
            json!({"target": addr, "record": ["cpu", "heap-snapshot"], "snapshot_every_s": 1}),
        )
        .expect(201, "");
    let cut = r.json()["session_id"].as_str().unwrap().to_string();
    // Wait for a periodic snapshot to be saved.
    let dir = data.join("sessions").join(&cut);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_dir(&dir).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".heapsnapshot"))
    }) {
        assert!(Instant::now() < deadline, "no snapshot saved");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SIGKILL: no chance to clean up.
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    drop(s);

    let s = serve(&data, &[]);
    let after = s.get(&format!("/api/sessions/{kept}")).json();
    assert_eq!(after, imported);
    let t = after["timelines"][0]["timeline_id"].as_u64().unwrap();
    assert_eq!(
        s.get(&format!(
            "/api/sessions/{kept}/timelines/{t}/events?mode=unique-types"
        ))
        .body,
        cli(&[
            "events",
            file.to_str().unwrap(),
            "--json",
            "--mode",
            "unique-types"
        ])
    );
    let failed = s.get(&format!("/api/sessions/{cut}")).json();
    assert_eq!(failed["state"], "failed", "{failed}");
    assert!(failed["error"]
        .as_str()
        .unwrap()
        .contains("stopped while recording"));
    let artifacts = failed["artifacts"].as_array().unwrap();
    assert!(
        !artifacts.is_empty() && artifacts.iter().all(|a| a["kind"] == "heap-snapshot"),
        "{failed}"
    );
    assert!(!std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with(".partial")));
    let summary = s.get(&format!("/api/sessions/{cut}/artifacts/1/heap/summary"));
    assert_eq!(summary.status, 200);
    // The failed session is not recording: stop is refused, release works.
    assert_eq!(
        s.request("POST", &format!("/api/sessions/{cut}/stop"), b"")
            .status,
        409
    );
    assert_eq!(
        s.request("DELETE", &format!("/api/sessions/{cut}"), b"")
            .status,
        200
    );
    // And the target can be recorded again.
    let again = s.post_json("/api/sessions", json!({"target": addr}));
    assert_eq!(again.status, 201);
}

#[test]
fn serve_checks_host_token_and_origin_on_every_request() {
    let s = serve(&data_dir("security"), &[]);
    let auth = format!("Bearer {}", s.token);
    s.get_ok("/api/sessions");
    // The token in the URL works too.
    let by_url = raw(
        &s.addr,
        "GET",
        &format!("/api/sessions?token={}", s.token),
        &[("Host", &s.addr)],
        b"",
    );
    assert_eq!(by_url.status, 200);
    let port = s.addr.rsplit(':').next().unwrap();
    let localhost = format!("localhost:{port}");
    assert_eq!(
        raw(
            &s.addr,
            "GET",
            "/api/sessions",
            &[("Host", &localhost), ("Authorization", &auth)],
            b""
        )
        .status,
        200
    );

    // DNS rebinding: a page of evil.example resolving to 127.0.0.1.
    let evil = format!("evil.example:{port}");
    for host in [evil.as_str(), "127.0.0.1", "localhost:1"] {
        let r = raw(
            &s.addr,
            "GET",
            "/api/sessions",
            &[("Host", host), ("Authorization", &auth)],
            b"",
        );
        assert_eq!(r.status, 403, "{host}");
        assert_eq!(r.json()["error"], "FORBIDDEN");
    }
    // No token, a wrong one, an empty one, on every kind of route.
    for path in [
        "/api/sessions",
        "/api/openapi.json",
        "/",
        "/api/sessions/0123456789abcdef",
        "/nowhere",
    ] {
        let r = raw(&s.addr, "GET", path, &[("Host", &s.addr)], b"");
        assert_eq!(r.status, 401, "{path}");
        assert_eq!(r.json()["error"], "UNAUTHORIZED");
    }
    for bad in ["Bearer wrong", "Bearer ", "Basic abc"] {
        let r = raw(
            &s.addr,
            "GET",
            "/api/sessions",
            &[("Host", &s.addr), ("Authorization", bad)],
            b"",
        );
        assert_eq!(r.status, 401, "{bad}");
    }
    let r = raw(
        &s.addr,
        "POST",
        "/api/sessions?token=nope",
        &[("Host", &s.addr)],
        b"{\"target\":\"127.0.0.1:9229\"}",
    );
    assert_eq!(r.status, 401);
    // Cross-origin requests, even with the token (a page cannot read it, but be strict).
    let own = format!("http://{}", s.addr);
    for origin in [
        "http://evil.example",
        "null",
        "https://127.0.0.1:1",
        own.replace("http", "https").as_str(),
    ] {
        let r = raw(
            &s.addr,
            "POST",
            "/api/sessions",
            &[
                ("Host", &s.addr),
                ("Authorization", &auth),
                ("Origin", origin),
            ],
            b"{}",
        );
        assert_eq!(r.status, 403, "{origin}");
    }
    let r = raw(
        &s.addr,
        "GET",
        "/api/sessions",
        &[
            ("Host", &s.addr),
            ("Authorization", &auth),
            ("Origin", &own),
        ],
        b"",
    );
    assert_eq!(r.status, 200);

    // Ids are validated, never used as paths.
    for path in [
        "/api/sessions/..%2F..%2Fcatalogue.sqlite",
        "/api/sessions/..",
        "/api/sessions/0123456789ABCDEF",
        "/api/sessions/0123456789abcdef%00",
        "/api/sessions/0123456789abcdef/artifacts/..%2F1/top",
        "/api/sessions/0123456789abcdef/artifacts/1/heap/node/..%2F..",
        "/api/sessions/0123456789abcdef/timelines/1%2F..%2F2/events",
    ] {
        let r = s.get(path).expect(400, path);
        assert_eq!(r.json()["error"], "BAD_REQUEST");
    }
    assert_eq!(s.get("/api/sessions/0123456789abcdef").status, 404);
    // Remote CDP targets need --allow-remote-targets.
    for target in [
        "10.1.2.3:9229",
        "ws://example.com:9229/abc",
        "chrome:192.168.1.1:9222",
    ] {
        let r = s.post_json("/api/sessions", json!({"target": target}));
        assert_eq!(r.status, 400, "{target}");
        assert!(r.json()["message"]
            .as_str()
            .unwrap()
            .contains("--allow-remote-targets"));
    }
    // Unknown parameters and bodies are refused with the contract's shape.
    assert_eq!(s.get("/api/sessions?bogus=1").status, 400);
    let r = s.request("POST", "/api/sessions", b"not json");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "BAD_REQUEST");
    let r = s.post_json(
        "/api/sessions",
        json!({"target": "127.0.0.1:9229", "command": "rm -rf /"}),
    );
    assert_eq!(r.status, 400);

    let doc = s.get("/api/openapi.json").json();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/api/sessions",
        "/api/sessions/import",
        "/api/sessions/{id}",
        "/api/sessions/{id}/stop",
        "/api/sessions/{id}/timelines/{timeline}/events",
        "/api/sessions/{id}/artifacts/{artifact}/heap/diff",
    ] {
        assert!(doc["paths"][path].is_object(), "{path}");
    }
}

#[test]
fn serve_refuses_a_public_address_without_a_token() {
    let out = jsprof(&argv(
        "serve --addr 0.0.0.0:0 --data-dir {}",
        &[&data_dir("public")],
    ));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without --token"), "{err}");
    assert!(out.stdout.is_empty());
    // Nor does it accept a short token.
    let out = jsprof(&argv(
        "serve --addr 127.0.0.1:0 --token abc --data-dir {}",
        &[&data_dir("short")],
    ));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn serve_refuses_oversized_uploads_cleanly() {
    let s = serve(&data_dir("upload"), &["--max-upload", "2K"]);
    let auth = format!("Bearer {}", s.token);
    let big = vec![b' '; 4096];
    let r = s.request("POST", "/api/sessions/import", &big);
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"], "TOO_LARGE");
    // Without a Content-Length: counted while streamed.
    let mut chunked = Vec::new();
    for _ in 0..8 {
        chunked.extend_from_slice(b"200\r\n");
        chunked.extend_from_slice(&[b' '; 512]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = raw(
        &s.addr,
        "POST",
        "/api/sessions/import",
        &[
            ("Host", &s.addr),
            ("Authorization", &auth),
            ("Transfer-Encoding", "chunked"),
        ],
        &chunked,
    );
    assert_eq!(r.status, 413);
    // A small file still goes through, and nothing of the refused ones is left.
    s.import(&fixtures().join("selfprofile/mdn-example.jsprofile.json"));
    let uploads = s.data.join("uploads");
    assert_eq!(std::fs::read_dir(&uploads).map_or(0, |d| d.count()), 0);
    assert_eq!(
        s.get("/api/sessions").json()["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn serve_saves_recordings_in_progress_when_terminated() {
    if !have_node() {
        return;
    }
    let data = data_dir("sigterm");
    let (_node, addr) = node_with_inspector(60_000);
    let mut s = serve(&data, &[]);
    let r = s
        .post_json(
            "/api/sessions",
            json!({"target": addr, "record": ["cpu", "heap-sampling"]}),
        )
        .expect(201, "");
    let id = r.json()["session_id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(800));
    // SIGTERM (as a service manager stops it): the recording is collected before the exit.
    let pid = s.child.id() as i32;
    // SAFETY: kill(2) on our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status}");
    drop(s);
    let s = serve(&data, &[]);
    let session = s.get(&format!("/api/sessions/{id}")).json();
    assert_eq!(session["state"], "stopped", "{session}");
    let kinds: Vec<&str> = json_array(&session["artifacts"])
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["cpu", "heap-sampling"]);
    assert_eq!(session["timelines"].as_array().unwrap().len(), 1);
}

#[test]
fn serve_records_by_pid_and_knows_the_pid_and_its_address_are_one_target() {
    if !have_node() {
        return;
    }
    let _guard = crate::record::PORT_9229
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let node = crate::support::node_hot(30_000);
    // SIGUSR1 before Node installs its handler would kill it: give it a moment to start.
    std::thread::sleep(Duration::from_millis(1000));
    let s = serve(&data_dir("pid"), &["--allow-pid-targets"]);
    let r = s
        .post_json(
            "/api/sessions",
            json!({"target": format!("pid:{}", node.id())}),
        )
        .expect(201, "");
    let id = r.json()["session_id"].as_str().unwrap().to_string();
    // SIGUSR1 opened its inspector on 127.0.0.1:9229: the same target by address is refused.
    let again = s.post_json("/api/sessions", json!({"target": "127.0.0.1:9229"}));
    assert_already_recording(&again, "127.0.0.1:9229");
    std::thread::sleep(Duration::from_millis(500));
    let stopped = s
        .request("POST", &format!("/api/sessions/{id}/stop"), b"")
        .expect(200, "");
    assert_eq!(stopped.json()["state"], "stopped");
    let top = s
        .get(&format!("/api/sessions/{id}/artifacts/1/top?limit=0"))
        .json();
    assert!(top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["name"] == "hotFunction"));
    assert_eq!(
        s.post_json("/api/sessions", json!({"target": "pid:999999999"}))
            .status,
        404
    );
}

/// The filters as query parameters: the service's `top`, `tree` and `events` answer byte for
/// byte what the CLI prints with the same flags, and the UI's trees and chart are made of the
/// filtered samples (focus keeps exactly the focused function's total, every drawn call sits
/// under it). A bad pattern is a 400 that names the parameter.
#[test]
fn serve_applies_the_cli_filters() {
    let s = serve(&data_dir("filters"), &[]);
    let cases: [(&str, &[&str]); 6] = [
        ("focus=%5EbuildTree%24", &["--focus", "^buildTree$"]),
        ("exclude=sorters", &["--exclude", "sorters"]),
        ("hide_idle=1", &["--hide-idle"]),
        ("collapse_recursion=1", &["--collapse-recursion"]),
        ("collapse_packages=true", &["--collapse-packages"]),
        (
            "focus=work&exclude=fib&hide_idle=1",
            &["--focus", "work", "--exclude", "fib", "--hide-idle"],
        ),
    ];
    for name in ["cpu/node-mix.cpuprofile.gz", "trace/primes.trace.json.gz"] {
        let file = fixtures().join(name);
        let path = file.to_str().unwrap();
        let session = s.import(&file);
        let id = session["session_id"].as_str().unwrap();
        let t = session["timelines"][0]["timeline_id"].as_u64().unwrap();
        let thread = t.to_string();
        for (query, flags) in cases {
            let check = |endpoint: String, args: Vec<&str>| {
                let r = s.get(&endpoint).expect(200, &format!("{name} {endpoint}"));
                assert!(
                    r.body == cli(&args),
                    "{name}: {endpoint} differs from `jsprof {}`",
                    args.join(" ")
                );
            };
            fn with<'a>(args: &[&'a str], flags: &[&'a str]) -> Vec<&'a str> {
                let mut v = args.to_vec();
                v.extend_from_slice(flags);
                v
            }
            check(
                format!("/api/sessions/{id}/artifacts/1/top?limit=0&{query}"),
                with(&["top", path, "--json", "--limit", "0"], flags),
            );
            check(
                format!("/api/sessions/{id}/artifacts/1/tree?bottom_up=1&{query}"),
                with(&["tree", path, "--json", "--bottom-up"], flags),
            );
            check(
                format!("/api/sessions/{id}/timelines/{t}/events?mode=unique-events&{query}"),
                with(
                    &[
                        "events",
                        path,
                        "--json",
                        "--mode",
                        "unique-events",
                        "--thread",
                        &thread,
                    ],
                    flags,
                ),
            );
        }
    }

    // The UI: focus on buildTree keeps its total, to the table's rounding.
    let file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
    let top: Value =
        serde_json::from_slice(&cli(&argv("top {} --json --limit 0", &[&file]))).unwrap();
    let build_tree = top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "buildTree")
        .expect("buildTree in node-mix");
    let want = build_tree["total_ms"].as_f64().unwrap();
    let ui = format!("/api/ui/sessions/{id}/artifacts/1/profile?focus=%5EbuildTree%24");
    let doc = s.get(&ui).json();
    let nodes = &doc["top_down"]["nodes"];
    let name_of = |doc: &Value, f: u64| -> String {
        let s = doc["functions"][f as usize][0].as_u64().unwrap();
        doc["strings"][s as usize].as_str().unwrap().to_string()
    };
    let roots: Vec<usize> = (0..nodes["p"].as_array().unwrap().len())
        .filter(|&i| nodes["p"][i] == -1)
        .collect();
    assert_eq!(roots.len(), 1, "focus re-roots at buildTree: {roots:?}");
    assert_eq!(
        name_of(&doc, nodes["f"][roots[0]].as_u64().unwrap()),
        "buildTree"
    );
    let kept = nodes["t"][roots[0]].as_f64().unwrap();
    assert!(
        (kept - want).abs() <= 0.002,
        "focus kept {kept} ms, buildTree's total is {want} ms"
    );
    // The chart: every top-level call is buildTree; without the filter, others are too.
    let chart = s.get(&format!(
        "/api/ui/sessions/{id}/chart?width=2000&focus=%5EbuildTree%24"
    ));
    assert_eq!(chart.status, 200);
    let chart = chart.json();
    let ev = &chart["events"];
    let mut top_level = 0;
    for i in 0..ev["p"].as_array().unwrap().len() {
        if ev["p"][i] == -1 && ev["f"][i].as_i64().unwrap() >= 0 {
            top_level += 1;
            assert_eq!(name_of(&chart, ev["f"][i].as_u64().unwrap()), "buildTree");
        }
    }
    assert!(top_level > 0, "no buildTree call drawn");
    let all = s
        .get(&format!("/api/ui/sessions/{id}/chart?width=2000"))
        .json();
    let ev = &all["events"];
    assert!(
        (0..ev["p"].as_array().unwrap().len()).any(|i| ev["p"][i] == -1
            && ev["f"][i].as_i64().unwrap() >= 0
            && name_of(&all, ev["f"][i].as_u64().unwrap()) != "buildTree"),
        "unfiltered, the chart has other top-level calls"
    );

    // The UI's diff filters both sides: as `jsprof diff --focus checksum`.
    let before = fixtures().join("diff/before.cpuprofile.gz");
    let after = fixtures().join("diff/after.cpuprofile.gz");
    let b = s.import(&before)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let a = s.import(&after)["session_id"].as_str().unwrap().to_string();
    let ui = s
        .get(&format!(
            "/api/ui/sessions/{a}/artifacts/1/diff?base={b}/1&focus=checksum"
        ))
        .json();
    let want: Value = serde_json::from_slice(&cli(&argv(
        "diff {} {} --json --focus checksum",
        &[&before, &after],
    )))
    .unwrap();
    let rows = |v: &Value| -> Vec<(String, f64, f64)> {
        v["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    f["delta_self_ms"].as_f64().unwrap(),
                    f["delta_total_ms"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(rows(&ui), rows(&want), "the UI's filtered diff");
    assert_eq!(ui["before_total_ms"], want["before_total_ms"]);
    assert_eq!(ui["after_total_ms"], want["after_total_ms"]);
    assert!(ui["svg"].as_str().unwrap().contains("(focus checksum)"));

    // Bad patterns and flags are refused, naming the parameter.
    for (endpoint, what) in [
        (
            format!("/api/sessions/{id}/artifacts/1/top?focus=%28"),
            "focus",
        ),
        (
            format!("/api/ui/sessions/{id}/chart?exclude=%5B"),
            "exclude",
        ),
        (
            format!("/api/ui/sessions/{id}/artifacts/1/profile?hide_idle=maybe"),
            "hide_idle",
        ),
    ] {
        let r = s.get(&endpoint);
        assert_eq!(r.status, 400, "{endpoint}");
        let message = r.json()["message"].as_str().unwrap().to_string();
        assert!(
            message.contains(&format!("`{what}`")),
            "{endpoint}: {message}"
        );
    }
}

/// The embedded `views` of a `jsprof report` page: each document's JSON text as the page carries
/// it, with the page's own escapes (`<` as `\u003c`, U+2028/2029) undone.
pub(crate) fn report_views(file: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    // A name of its own per call: tests run side by side in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = temp_file(&format!("one-answer-report-{n}.html"), b"");
    cli(&argv("report {} -o {}", &[&file, &out]));
    let html = std::fs::read_to_string(&out).unwrap();
    let open = r#"<script id="jsprof-data" type="application/json">"#;
    let start = html.find(open).expect("the page embeds its data") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    #[derive(serde::Deserialize)]
    struct Page<'a> {
        #[serde(borrow)]
        views: std::collections::BTreeMap<String, &'a serde_json::value::RawValue>,
    }
    let page: Page = serde_json::from_str(&html[start..end]).unwrap();
    page.views
        .into_iter()
        .map(|(k, v)| {
            let text = v
                .get()
                .replace("\\u003c", "<")
                .replace("\\u2028", "\u{2028}")
                .replace("\\u2029", "\u{2029}");
            (k, text.into_bytes())
        })
        .collect()
}

/// One answer per question: for every view, the CLI's `--json`, the service's endpoint and the
/// document `jsprof report` embeds are the same bytes (the report's with the page's `<` escape
/// undone), on a `.cpuprofile`, a self-profiling trace, two Chrome traces, a sampling heap
/// profile and heap snapshots.
#[test]
fn every_front_door_answers_the_same_bytes() {
    let dir = data_dir("one-answer");
    let s = serve(&dir, &[]);
    let fx = fixtures();
    let strip = |mut v: Vec<u8>| {
        if v.last() == Some(&b'\n') {
            v.pop();
        }
        v
    };
    let same = |what: &str, a: &[u8], b: &[u8]| {
        assert!(
            a == b,
            "{what}: the answers differ\n  {}\n  {}",
            String::from_utf8_lossy(&a[..a.len().min(400)]),
            String::from_utf8_lossy(&b[..b.len().min(400)])
        );
    };
    let mut compared = 0;
    for rel in [
        "cpu/node-mix.cpuprofile.gz",
        "selfprofile/primes.jsprofile.json",
        "trace/page.trace.json.gz",
        "third-party/speedscope/Chrome-70-worker.json.gz",
        "heapprofile/tsc.heapprofile",
    ] {
        let file = fx.join(rel);
        let f = file.to_str().unwrap();
        let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
        let base = format!("/api/sessions/{id}/artifacts/1");
        let trace = rel.contains("trace") || rel.contains("Chrome");
        let mut views: Vec<(String, Vec<&str>)> = vec![
            ("summary".into(), vec!["summary", f, "--json"]),
            (
                "top?limit=0".into(),
                vec!["top", f, "--limit", "0", "--json"],
            ),
            (
                "top?by=total&limit=5".into(),
                vec!["top", f, "--by", "total", "--limit", "5", "--json"],
            ),
            (
                "tree?max_depth=4".into(),
                vec!["tree", f, "--max-depth", "4", "--json"],
            ),
            (
                "tree?bottom_up=1&max_depth=3".into(),
                vec!["tree", f, "--bottom-up", "--max-depth", "3", "--json"],
            ),
            (
                "top?limit=0&focus=a&focus=e&exclude=%5Eb".into(),
                vec![
                    "top",
                    f,
                    "--limit",
                    "0",
                    "--focus",
                    "a",
                    "--focus",
                    "e",
                    "--exclude",
                    "^b",
                    "--json",
                ],
            ),
        ];
        if !rel.contains("heapprofile") {
            views.push(("threads".into(), vec!["threads", f, "--json"]));
            views.push((
                "top?range=10..40&limit=0".into(),
                vec!["top", f, "--range", "10..40", "--limit", "0", "--json"],
            ));
            views.push((
                "tree?sandwich=a&max_depth=3".into(),
                vec!["tree", f, "--sandwich", "a", "--max-depth", "3", "--json"],
            ));
        }
        if trace {
            views.push((
                "top?samples=1&limit=0".into(),
                vec!["top", f, "--samples", "--limit", "0", "--json"],
            ));
        }
        for (query, args) in &views {
            let r = s
                .get(&format!("{base}/{query}"))
                .expect(200, &format!("{rel} {query}"));
            same(
                &format!("{rel} {query}"),
                &strip(r.body.clone()),
                &strip(cli(args)),
            );
            compared += 1;
        }
        // GetEvents on the session's timeline against `jsprof events`.
        if !rel.contains("heapprofile") {
            for (query, extra) in [
                ("mode=unique-events", vec!["--mode", "unique-events"]),
                ("max_depth=2", vec!["--max-depth", "2"]),
                // One name per option at every door (`event`), the old one still accepted.
                (
                    "event=1&max_depth=1",
                    vec!["--event", "1", "--max-depth", "1"],
                ),
                ("event_id=1", vec!["--event", "1"]),
                (
                    "range=10..40&types=JS_CALL,GC",
                    vec!["--range", "10..40", "--type", "JS_CALL,GC"],
                ),
            ] {
                let r = s.get(&format!("/api/sessions/{id}/timelines/1/events?{query}"));
                assert_eq!(r.status, 200);
                let mut args = vec!["events", f, "--thread", "1", "--json"];
                args.extend(extra);
                same(
                    &format!("{rel} events {query}"),
                    &strip(r.body),
                    &strip(cli(&args)),
                );
                compared += 1;
            }
        }
        // The report embeds the same documents.
        let embedded = report_views(&file);
        for (view, args) in [
            ("summary", vec!["summary", f, "--json"]),
            ("top", vec!["top", f, "--limit", "0", "--json"]),
        ] {
            let doc = embedded
                .get(view)
                .unwrap_or_else(|| panic!("{rel}: no {view} in the report"));
            same(&format!("{rel} report {view}"), doc, &strip(cli(&args)));
            compared += 1;
        }
        if !rel.contains("heapprofile") {
            same(
                &format!("{rel} report threads"),
                &embedded["threads"],
                &strip(cli(&["threads", f, "--json"])),
            );
        }
    }
    // Heap snapshots: Summary (service, CLI, report), Comparison (service, CLI).
    let base_file = fx.join("heap/leak-1-baseline.heapsnapshot.gz");
    let target_file = fx.join("heap/leak-2-target.heapsnapshot.gz");
    let base_id = s.import(&base_file)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let target_id = s.import(&target_file)["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (b, t) = (base_file.to_str().unwrap(), target_file.to_str().unwrap());
    for (query, args) in [
        (
            "heap/summary?limit=0",
            vec!["heap", "summary", t, "--limit", "0", "--json"],
        ),
        (
            "heap/summary?sort=count&limit=7",
            vec![
                "heap", "summary", t, "--sort", "count", "--limit", "7", "--json",
            ],
        ),
    ] {
        let r = s.get(&format!("/api/sessions/{target_id}/artifacts/1/{query}"));
        assert_eq!(r.status, 200);
        same(&format!("heap {query}"), &strip(r.body), &strip(cli(&args)));
        compared += 1;
    }
    let r = s.get(&format!(
        "/api/sessions/{target_id}/artifacts/1/heap/diff?base={base_id}/1&limit=0"
    ));
    assert_eq!(r.status, 200);
    let names = |v: Vec<u8>| -> Value {
        // The CLI names the files by path, the service by their upload names.
        let mut v: Value = serde_json::from_slice(&v).unwrap();
        v.as_object_mut().unwrap().remove("warnings");
        v
    };
    assert_eq!(
        names(r.body),
        names(cli(&["heap", "diff", b, t, "--limit", "0", "--json"])),
        "heap diff"
    );
    let embedded = report_views(&target_file);
    same(
        "heap report summary",
        &embedded["heap_summary"],
        &strip(cli(&["heap", "summary", t, "--limit", "0", "--json"])),
    );
    assert!(compared >= 60, "{compared} answers compared");
}

/// One question as every front door asks it. The CLI's `--json` is the reference; each other door
/// must give the same document, so a door that computes a number of its own fails its row.
struct Asked {
    what: &'static str,
    /// The file asked about: an index into the table's files.
    file: usize,
    /// `jsprof`'s arguments as one types them, `FILE` standing for the file.
    cli: &'static str,
    /// The service's path under the artifact (`top?…`) or, for `timelines/…`, the session.
    url: &'static str,
    /// The MCP tool and its arguments (JSON, the handle added), paged to the end.
    mcp: Option<(&'static str, &'static str)>,
    /// The lists MCP pages one at a time (`list`); empty when the tool pages one list.
    mcp_lists: &'static [&'static str],
    /// Where the document sits in MCP's answer (`open` wraps the summary).
    mcp_at: Option<&'static str>,
    /// The view of `jsprof report`'s page that embeds this document.
    report: Option<&'static str>,
    /// `jsprof lake top` arguments whose rows, for a lake of this one profile, are the CLI's.
    lake: Option<&'static [&'static str]>,
}

const ASKED_FILES: [&str; 3] = [
    "cpu/node-mix.cpuprofile.gz",
    "trace/pageload.trace.json.gz",
    "heap/leak-2-target.heapsnapshot.gz",
];

/// What a row leaves out: no MCP tool, report view or lake query.
const ASK: Asked = Asked {
    what: "",
    file: 0,
    cli: "",
    url: "",
    mcp: None,
    mcp_lists: &[],
    mcp_at: None,
    report: None,
    lake: None,
};

const ASKED: &[Asked] = &[
    Asked {
        what: "top",
        file: 0,
        cli: "top FILE --limit 0 --json",
        url: "top?limit=0",
        mcp: Some(("top", "{}")),
        report: Some("top"),
        lake: Some(&[]),
        ..ASK
    },
    Asked {
        what: "top by total",
        file: 0,
        cli: "top FILE --by total --limit 0 --json",
        url: "top?by=total&limit=0",
        mcp: Some(("top", r#"{"by": "total"}"#)),
        lake: Some(&["--by", "total"]),
        ..ASK
    },
    Asked {
        what: "top by total, filtered",
        file: 0,
        cli: "top FILE --by total --limit 0 --focus a --exclude ^b --json",
        url: "top?by=total&limit=0&focus=a&exclude=%5Eb",
        mcp: Some((
            "top",
            r#"{"by": "total", "filters": {"focus": ["a"], "exclude": ["^b"]}}"#,
        )),
        ..ASK
    },
    Asked {
        what: "tree (top-down)",
        file: 0,
        cli: "tree FILE --json",
        url: "tree",
        mcp: Some(("tree", r#"{"max_depth": 100000}"#)),
        ..ASK
    },
    Asked {
        what: "tree (bottom-up)",
        file: 0,
        cli: "tree FILE --bottom-up --json",
        url: "tree?bottom_up=1",
        mcp: Some(("tree", r#"{"bottom_up": true, "max_depth": 100000}"#)),
        ..ASK
    },
    Asked {
        what: "events in a range, of two types",
        file: 0,
        cli: "events FILE --thread 1 --range 10..40 --type JS_CALL,GC --json",
        url: "timelines/1/events?range=10..40&types=JS_CALL,GC",
        mcp: Some((
            "events",
            r#"{"thread": "1", "range": "10..40", "types": "JS_CALL,GC"}"#,
        )),
        ..ASK
    },
    Asked {
        what: "flame chart window",
        file: 0,
        cli: "events FILE --thread 1 --range 50..60 --json",
        url: "timelines/1/events?range=50..60",
        mcp: Some(("flame_chart", r#"{"thread": "1", "range": "50..60"}"#)),
        ..ASK
    },
    Asked {
        // Two functions match: `other_matches` names the lighter one. MCP pages the two trees one
        // list at a time, `max_depth` levels counted as the CLI's `--max-depth` counts them; 51
        // (MCP's most) holds this profile's trees whole.
        what: "sandwich",
        file: 0,
        cli: "tree FILE --sandwich ^sorters$ --max-depth 51 --json",
        url: "tree?sandwich=%5Esorters%24&max_depth=51",
        mcp: Some(("sandwich", r#"{"function": "^sorters$", "max_depth": 51}"#)),
        mcp_lists: &["callers", "callees"],
        ..ASK
    },
    Asked {
        // One function matches; its trees cut two levels below it, at every door.
        what: "sandwich of one match, two levels",
        file: 0,
        cli: "tree FILE --sandwich ^buildTree$ --max-depth 3 --json",
        url: "tree?sandwich=%5EbuildTree%24&max_depth=3",
        mcp: Some(("sandwich", r#"{"function": "^buildTree$", "max_depth": 3}"#)),
        mcp_lists: &["callers", "callees"],
        ..ASK
    },
    Asked {
        what: "summary",
        file: 0,
        cli: "summary FILE --json",
        url: "summary",
        report: Some("summary"),
        ..ASK
    },
    Asked {
        // `open` answers with the summary of its five top functions.
        what: "summary of five functions",
        file: 0,
        cli: "summary FILE --limit 5 --json",
        url: "summary?limit=5",
        mcp: Some(("open", "{}")),
        mcp_at: Some("summary"),
        ..ASK
    },
    Asked {
        what: "insights",
        file: 1,
        cli: "insights FILE --json",
        url: "insights",
        mcp: Some(("trace_insights", "{}")),
        mcp_lists: &[
            "navigations",
            "layout_shifts",
            "clusters",
            "interactions",
            "page_load_markers",
            "long_tasks",
            "related_events",
        ],
        report: Some("insights"),
        ..ASK
    },
    Asked {
        what: "heap summary",
        file: 2,
        cli: "heap summary FILE --limit 0 --json",
        url: "heap/summary?limit=0",
        mcp: Some(("heap_summary", "{}")),
        report: Some("heap_summary"),
        ..ASK
    },
];

/// MCP's document for a question, put together from its pages: the first page without its
/// paging, each paged list (one per pager) whole again.
fn mcp_document(pagers: &[Value], at: Option<&str>) -> Value {
    let mut whole = pagers[0]["first"].clone();
    let o = whole.as_object_mut().expect("an object");
    o.remove("page");
    o.remove("other_lists");
    for pager in pagers {
        let items = crate::mcp::items(pager).clone();
        let list = pager["first"]["page"]["list"]
            .as_str()
            .expect("a paged list");
        let mut slot = &mut whole;
        for key in list.split('.') {
            slot = &mut slot[key];
        }
        *slot = Value::Array(items);
    }
    match at {
        Some(key) => whole[key].take(),
        None => whole,
    }
}

/// Where two documents first differ (a JSON path and both values), or `None` when they are equal.
fn difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys()
                .chain(y.keys())
                .find_map(|k| match (x.get(k), y.get(k)) {
                    (Some(x), Some(y)) => difference(x, y, format!("{at}.{k}")),
                    (x, y) => Some(format!("{at}.{k}: {x:?} vs {y:?}")),
                })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| difference(x, y, format!("{at}[{i}]"))),
        _ => (a != b).then(|| {
            let short = |v: &Value| v.to_string().chars().take(300).collect::<String>();
            format!("{at}: {} vs {}", short(a), short(b))
        }),
    }
}

/// The rows of a `top` document as text: from `"functions":` to the end.
#[cfg(feature = "lake")]
fn rows_text(json: &[u8]) -> String {
    let text = String::from_utf8(json.to_vec()).unwrap();
    let at = text.find("\"functions\":[{").expect("rows");
    text[at..].trim_end().to_string()
}

/// The acceptance test of "one answer, one place": each question of [`ASKED`] gets the CLI's
/// bytes from the service, the same document from MCP (over the SDK's client, pages put back
/// together), the same bytes in `jsprof report`'s page and, with the lake, the same rows from
/// `jsprof lake top`. One server (service and MCP) and one MCP client for the whole table.
#[test]
fn the_same_question_gets_the_same_bytes_at_every_door() {
    let repo = crate::mcp::repo().display().to_string();
    let s = serve(&data_dir("four-doors"), &["--mcp-root", &repo]);
    let files: Vec<PathBuf> = ASKED_FILES.iter().map(|f| fixtures().join(f)).collect();
    let sessions: Vec<String> = files
        .iter()
        .map(|f| s.import(f)["session_id"].as_str().unwrap().to_string())
        .collect();
    let reports: Vec<_> = files.iter().map(|f| report_views(f)).collect();
    let strip = |v: &[u8]| v.strip_suffix(b"\n").unwrap_or(v).to_vec();
    let cli_of = |a: &Asked| {
        let file = files[a.file].to_str().unwrap();
        let args: Vec<&str> = a
            .cli
            .split_whitespace()
            .map(|x| if x == "FILE" { file } else { x })
            .collect();
        strip(&cli(&args))
    };
    let want: Vec<Vec<u8>> = ASKED.iter().map(cli_of).collect();

    // MCP: open every file (handles h1, h2, …), then page each question to its end.
    let mcp = !crate::mcp::sdk_missing();
    let mut steps: Vec<Value> = files
        .iter()
        .map(|f| json!({"op": "callTool", "name": "open", "arguments": {"path": f}}))
        .collect();
    let mut pagers: Vec<std::ops::Range<usize>> = Vec::new();
    for a in ASKED {
        let start = steps.len();
        if let Some((tool, args)) = a.mcp {
            let mut args: Value = serde_json::from_str(args).unwrap();
            if tool == "open" {
                args["path"] = files[a.file].to_str().unwrap().into();
            } else {
                args["handle"] = format!("h{}", a.file + 1).into();
            }
            if a.mcp_lists.is_empty() {
                steps.push(crate::mcp::page_all(tool, args.clone()));
            }
            for list in a.mcp_lists {
                args["list"] = (*list).into();
                steps.push(crate::mcp::page_all(tool, args.clone()));
            }
        }
        pagers.push(start..steps.len());
    }
    let answers = if mcp {
        let url = format!("http://{}/mcp", s.addr);
        let auth = format!("Bearer {}", s.token);
        crate::mcp::client(json!({
            "transport": {"http": {"url": url, "headers": {"Authorization": auth}}},
            "steps": steps,
        }))
    } else {
        Vec::new()
    };
    for answer in answers.iter().take(files.len()) {
        crate::mcp::doc(answer);
    }

    let mut doors = 0;
    for ((a, want), pager) in ASKED.iter().zip(&want).zip(pagers) {
        let what = a.what;
        let shown = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(400)]).into_owned();
        // The service.
        let id = &sessions[a.file];
        let path = match a.url.strip_prefix("timelines/") {
            Some(rest) => format!("/api/sessions/{id}/timelines/{rest}"),
            None => format!("/api/sessions/{id}/artifacts/1/{}", a.url),
        };
        let r = s.get(&path);
        assert_eq!(r.status, 200, "{what}: {path}: {}", shown(&r.body));
        assert!(
            strip(&r.body) == *want,
            "{what}: the service differs from the CLI\n  {}\n  {}",
            shown(&r.body),
            shown(want)
        );
        doors += 1;
        // MCP.
        if mcp && !pager.is_empty() {
            let mut got = mcp_document(&answers[pager], a.mcp_at);
            let want = crate::mcp::numbers(serde_json::from_slice(want).unwrap());
            // `tree` may send a part of the tree; it says how many nodes the whole one has.
            if let Some(n) = got.as_object_mut().unwrap().remove("nodes_in_tree") {
                assert_eq!(n, want["nodes"].as_array().unwrap().len(), "{what}");
            }
            if let Some(at) = difference(&got, &want, String::new()) {
                panic!("{what}: MCP differs from the CLI at {at}");
            }
            doors += 1;
        }
        // The report.
        if let Some(view) = a.report {
            let embedded = reports[a.file]
                .get(view)
                .unwrap_or_else(|| panic!("{what}: no {view} in the report"));
            assert!(
                embedded == want,
                "{what}: the report differs from the CLI\n  {}\n  {}",
                shown(embedded),
                shown(want)
            );
            doors += 1;
        }
        // The lake.
        #[cfg(feature = "lake")]
        if let Some(extra) = a.lake {
            let lake = data_dir(&format!("four-doors-lake-{}", a.file));
            let (l, f) = (lake.to_str().unwrap(), files[a.file].to_str().unwrap());
            cli(&["lake", "add", l, "--json", f]);
            let mut args = vec!["lake", "top", l, "--json", "--limit", "0"];
            args.extend_from_slice(extra);
            assert_eq!(
                rows_text(&cli(&args)),
                rows_text(want),
                "{what}: the lake's rows differ from the CLI's"
            );
            doors += 1;
        }
    }
    let lake_rows = ASKED.iter().filter(|a| a.lake.is_some()).count();
    let expected = ASKED.len()
        + if mcp {
            ASKED.iter().filter(|a| a.mcp.is_some()).count()
        } else {
            0
        }
        + ASKED.iter().filter(|a| a.report.is_some()).count()
        + if cfg!(feature = "lake") { lake_rows } else { 0 };
    assert_eq!(doors, expected, "every door of every row was asked");
}
