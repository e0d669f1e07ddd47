//! The Node agent (`npm/jsprof/agent.js`) against `jsprof serve --lake` on loopback (issue 35's
//! acceptance): a real `node:http` service (`tests/node/agent-app.cjs`) preloads the agent, the test
//! drives load, and the lake answers for the windows. Between the agent and the service sits a
//! recording relay ([`Relay`]): it keeps every window's bytes (for `jsprof top --range` and
//! DevTools' model) and can play a sink that is down. Windows are 1 s long. The four tests run in
//! about 12 s together (they run side by side).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::ingest::{lake_rows, serve_ingest, setup, KEY};
use crate::serve::{have_node, raw, Serve};
use crate::support::{argv, json_array, jsprof_json, temp_file, wait_within, KillOnDrop};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One post the relay saw: its query string, its body gunzipped, the sink's status (0: the relay
/// played a sink that is down and closed the connection).
#[derive(Clone)]
struct Post {
    query: HashMap<String, String>,
    body: Vec<u8>,
    status: u16,
}

impl Post {
    fn is_cpu(&self) -> bool {
        self.body.starts_with(b"{\"nodes\"")
    }
}

/// A relay in front of the service that records what passes; while `down` it closes every
/// connection unanswered, as a sink that is away does.
struct Relay {
    addr: String,
    posts: Arc<Mutex<Vec<Post>>>,
    down: Arc<AtomicBool>,
}

impl Relay {
    fn new(sink: &str) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let posts = Arc::new(Mutex::new(Vec::new()));
        let down = Arc::new(AtomicBool::new(false));
        let (sink, seen, off) = (sink.to_string(), posts.clone(), down.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if off.load(Ordering::SeqCst) {
                    continue; // dropped: closed unanswered
                }
                let (sink, seen) = (sink.clone(), seen.clone());
                std::thread::spawn(move || relay_one(stream, &sink, &seen));
            }
        });
        Relay { addr, posts, down }
    }

    fn posts(&self) -> Vec<Post> {
        self.posts.lock().unwrap().clone()
    }
}

/// Reads one request (head, then `Content-Length` bytes), passes it to the sink, and its answer
/// back.
fn relay_one(mut client: TcpStream, sink: &str, seen: &Mutex<Vec<Post>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let mut upstream = TcpStream::connect(sink).unwrap();
    upstream.write_all(head.as_bytes()).unwrap();
    upstream.write_all(&body).unwrap();
    let mut answer = Vec::new();
    upstream.read_to_end(&mut answer).unwrap();
    let status = String::from_utf8_lossy(&answer)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let target = head.split(' ').nth(1).unwrap_or("");
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_end(&mut plain)
        .unwrap();
    seen.lock().unwrap().push(Post {
        query: query_pairs(query),
        body: plain,
        status,
    });
    // Recorded before the agent has its answer: once it has, the test may look.
    client.write_all(&answer).unwrap();
}

/// `a=1&b=x%2Fy` → {a: 1, b: x/y} (`+` is a space, as URLSearchParams writes it).
fn query_pairs(query: &str) -> HashMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.replace('+', " ").into_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match (bytes[i], hex) {
                (b'%', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).unwrap()
    };
    query
        .split('&')
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (k, v) = t.split_once('=').unwrap_or((t, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// `node --require npm/jsprof/agent.js tests/node/agent-app.cjs` posting to `url` with `env`; the
/// app (killed on drop: a failing test leaves no app running) and its address once it listens.
fn app(url: &str, env: &[(&str, &str)]) -> (KillOnDrop, String) {
    let agent = repo().join("npm/jsprof/agent.js");
    let mut child = KillOnDrop::spawn(
        Command::new("node")
            .arg("--require")
            .arg(&agent)
            .arg(repo().join("crates/jsprof/tests/node/agent-app.cjs"))
            .env("AGENT_APP_AGENT", &agent)
            .env("JSPROF_AGENT_URL", url)
            .env("JSPROF_AGENT_KEY", KEY)
            .env("JSPROF_AGENT_WINDOW_S", "1")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
        "node agent-app.cjs",
    );
    let line = crate::support::first_line(&mut child);
    let port = line
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the app printed {line:?}"));
    (child, format!("127.0.0.1:{port}"))
}

fn get(addr: &str, path: &str) -> Vec<u8> {
    let r = raw(addr, "GET", path, &[("Host", addr)], b"");
    assert_eq!(r.status, 200, "GET {path}: {}", r.head);
    r.body
}

/// `/hot` over and over for `how_long`; every request must be answered.
fn load(addr: &str, how_long: Duration) -> usize {
    let end = Instant::now() + how_long;
    let mut n = 0;
    while Instant::now() < end {
        get(addr, "/hot");
        n += 1;
    }
    n
}

/// A command's status and its output as text, for an assertion's message.
fn shown(out: &std::process::Output) -> String {
    format!(
        "{}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// [`load`] over several apps in turn, one request each.
fn load_in_turn(addrs: &[&str], how_long: Duration) {
    let end = Instant::now() + how_long;
    while Instant::now() < end {
        for addr in addrs {
            get(addr, "/hot");
        }
    }
}

fn stats(addr: &str) -> Value {
    serde_json::from_slice(&get(addr, "/stats")).unwrap()
}

/// Asks the app to end by itself (its agent sends the last window at `beforeExit`).
fn quit(mut child: KillOnDrop, addr: &str) {
    get(addr, "/quit");
    let status = wait_within(&mut child, Duration::from_secs(30), "the app after /quit");
    assert!(status.success(), "the app ended with {status}");
}

/// Waits until the lake holds `n` profiles of `service`.
fn lake_count(lake: &Path, service: &str, n: usize) {
    let sql = format!("SELECT count(*) AS n FROM profiles WHERE labels['service'] = '{service}'");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = lake_rows(lake, &sql)[0]["n"].as_u64().unwrap() as usize;
        if got == n {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{got} of {n} windows in the lake"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The first JavaScript function of a `top` document: the first with a script URL (not
/// `(idle)`, `(garbage collector)`, nor a native function such as `writev`).
fn first_js(doc: &Value) -> String {
    json_array(&doc["functions"])
        .iter()
        .find(|f| f["url"].as_str().is_some_and(|u| !u.is_empty()))
        .map(|f| f["name"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no JS function in {doc}"))
}

fn lake_top(lake: &Path, wheres: &str, unit: &str) -> Value {
    jsprof_json(&argv(
        "lake top {} --where {} --unit {} --json --limit 20",
        &[&lake, &wheres, &unit],
    ))
}

struct Setup {
    lake: PathBuf,
    _serve: Serve,
    relay: Relay,
}

/// The lake, its service and the relay in front of it for the test `name`; `None` (the test
/// skips) without Node.
fn start(name: &str) -> Option<Setup> {
    if !have_node() {
        return None;
    }
    let (lake, keys, data) = setup(&format!("agent-{name}"));
    let serve = serve_ingest(&data, &lake, &keys, &[]);
    let relay = Relay::new(&serve.addr);
    Some(Setup {
        lake,
        _serve: serve,
        relay,
    })
}

impl Setup {
    /// [`app`] posting to this setup's relay.
    fn app(&self, env: &[(&str, &str)]) -> (KillOnDrop, String) {
        app(&format!("http://{}", self.relay.addr), env)
    }
}

/// Acceptance 1 and 4: the hot handler first in `lake top --where service=…`, the worker's
/// function first under its own thread label, heap windows in bytes, no stall under normal
/// traffic; and every CPU window, in DevTools' model, has the totals `jsprof top` gives.
#[test]
fn agent_windows_land_in_the_lake_labelled_and_equal_devtools() {
    let Some(s) = start("load") else { return };
    let (child, addr) = s.app(&[
        (
            "JSPROF_AGENT_LABELS",
            "service=shop-load,version=1.4,team=a",
        ),
        ("AGENT_APP_WORKER", "1"),
        // Heap sampling over the whole of a heap window (by default its first tenth); at the
        // default JSPROF_AGENT_HEAP_EVERY those are the first window and every fourth.
        ("JSPROF_AGENT_HEAP_DUTY", "1"),
    ]);
    let served = load(&addr, Duration::from_millis(3500));
    quit(child, &addr);
    let posts = s.relay.posts();
    assert!(posts.iter().all(|p| p.status == 202), "a post was refused");
    lake_count(&s.lake, "shop-load", posts.len());
    println!("{served} requests, {} windows posted", posts.len());

    let top = lake_top(&s.lake, "service=shop-load,version=1.4,thread=main", "ns");
    assert_eq!(first_js(&top), "plantedHotHandler", "{top}");
    let threads: Vec<String> = posts
        .iter()
        .map(|p| p.query["thread"].clone())
        .filter(|t| t.starts_with("worker-"))
        .collect();
    assert!(!threads.is_empty(), "no worker window");
    let worker = lake_top(&s.lake, &format!("thread={}", threads[0]), "ns");
    assert_eq!(first_js(&worker), "plantedWorkerFunction", "{worker}");
    assert!(
        !json_array(&top["functions"])
            .iter()
            .any(|f| f["name"] == "plantedWorkerFunction"),
        "the worker's function in the main thread's windows"
    );
    let heap = lake_top(&s.lake, "service=shop-load", "bytes");
    assert!(
        !json_array(&heap["functions"]).is_empty(),
        "no heap window: {heap}"
    );
    assert!(posts.iter().any(|p| !p.is_cpu()), "no heap window posted");
    for p in &posts {
        for label in [
            "heap_used",
            "heap_total",
            "rss",
            "external",
            "start_ms",
            "pid",
        ] {
            assert!(
                p.query[label].parse::<u64>().is_ok(),
                "{label}: {:?}",
                p.query
            );
        }
        assert_eq!(p.query["label.team"], "a");
    }
    let stalls = lake_rows(
        &s.lake,
        "SELECT count(*) AS n FROM profiles WHERE labels['stall'] = '1'",
    );
    let stalled: Vec<_> = posts
        .iter()
        .filter(|p| p.query.contains_key("stall"))
        .map(|p| &p.query)
        .collect();
    assert_eq!(
        stalls[0]["n"], 0,
        "a stall under normal traffic: {stalled:?}"
    );

    // DevTools' model over every CPU window.
    for (i, p) in posts.iter().filter(|p| p.is_cpu()).enumerate() {
        let file = temp_file(&format!("agent-window-{i}.cpuprofile"), &p.body);
        let Some(gold) = crate::support::run_oracle("cpu-oracle", &file) else {
            return;
        };
        crate::cpu::assert_top_matches(&file, &gold, &format!("window {i}"));
    }
}

/// Acceptance 2: a request that blocks the loop for 300 ms in `plantedStall` makes exactly one
/// stall window, whose `jsprof top --range` over the stall names `plantedStall` first; and the
/// same in a worker thread (its own watchdog): one stall window labelled with the worker's thread,
/// naming `plantedWorkerStall`.
#[test]
fn agent_stall_window_names_what_blocked_the_loop() {
    let Some(s) = start("stall") else { return };
    let (child, addr) = s.app(&[
        ("JSPROF_AGENT_LABELS", "service=shop-stall"),
        ("AGENT_APP_WORKER", "1"),
    ]);
    load(&addr, Duration::from_millis(1200));
    get(&addr, "/stall");
    load(&addr, Duration::from_millis(600));
    get(&addr, "/worker-stall");
    load(&addr, Duration::from_millis(1200));
    quit(child, &addr);
    let posts = s.relay.posts();
    lake_count(&s.lake, "shop-stall", posts.len());
    let rows = lake_rows(
        &s.lake,
        "SELECT thread, count(*) AS n FROM profiles WHERE kind = 'cpuprofile' \
         AND labels['stall'] = '1' GROUP BY thread ORDER BY thread",
    );
    let stalled = |thread: &str| -> Vec<&Post> {
        posts
            .iter()
            .filter(|p| p.is_cpu() && p.query.get("stall").is_some_and(|v| v == "1"))
            .filter(|p| p.query["thread"].starts_with(thread))
            .collect()
    };
    for (thread, function) in [("main", "plantedStall"), ("worker-", "plantedWorkerStall")] {
        let stalled = stalled(thread);
        assert_eq!(stalled.len(), 1, "{thread} stall windows: {rows:?}");
        let q = &stalled[0].query;
        let (from, to, ms) = (&q["stall_start_ms"], &q["stall_end_ms"], &q["stall_ms"]);
        let length: f64 = ms.parse().unwrap();
        assert!((290.0..1000.0).contains(&length), "a stall of {length} ms");
        let file = temp_file(
            &format!("agent-stall-{thread}.cpuprofile"),
            &stalled[0].body,
        );
        let range = format!("{from}..{to}");
        let top = jsprof_json(&argv(
            "top {} --range {} --json --limit 20",
            &[&file, &range],
        ));
        assert_eq!(first_js(&top), function, "{thread}: {top}");
    }
    // The lake holds them as posted: one per thread.
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["n"] == 1), "{rows:?}");
}

/// Acceptance 3: with the sink away the app keeps serving, the agent holds at most `ring` posts,
/// drops (counted) what neither the ring nor the spool holds, and once the sink is back every
/// spooled window arrives exactly once.
#[test]
fn agent_survives_a_sink_that_is_away_and_sends_spooled_windows_once() {
    let Some(s) = start("away") else { return };
    let spool = crate::support::fresh_dir("agent-spool");
    s.relay.down.store(true, Ordering::SeqCst);
    let (child, addr) = s.app(&[
        ("JSPROF_AGENT_LABELS", "service=shop-away"),
        ("JSPROF_AGENT_HEAP", "0"),
        ("JSPROF_AGENT_RING", "2"),
        ("JSPROF_AGENT_SPOOL", spool.to_str().unwrap()),
        ("JSPROF_AGENT_SPOOL_MAX", "2"),
    ]);
    // 1 s windows, each held a second for a late stall report before it is queued: 8 s make
    // more windows than the ring (2) and the spool (2) hold.
    let served = load(&addr, Duration::from_millis(8000));
    let away = stats(&addr);
    println!("while away: {served} requests served, {away}");
    assert!(away["ringHigh"].as_u64().unwrap() <= 2, "{away}");
    assert!(away["dropped"].as_u64().unwrap() > 0, "{away}");
    assert_eq!(away["spooled"], 2, "{away}");
    assert_eq!(away["sent"], 0, "{away}");

    s.relay.down.store(false, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(40);
    let back = loop {
        load(&addr, Duration::from_millis(300));
        let now = stats(&addr);
        if now["replayed"] == 2 && now["ring"] == 0 {
            break now;
        }
        assert!(Instant::now() < deadline, "the spool was not sent: {now}");
    };
    quit(child, &addr);
    println!("back: {back}");
    let names: Vec<_> = std::fs::read_dir(&spool).unwrap().flatten().collect();
    assert!(names.is_empty(), "left in the spool: {names:?}");

    // Each window reached the sink once: every accepted body is distinct.
    let posts = s.relay.posts();
    let mut seen = std::collections::HashSet::new();
    for p in posts.iter().filter(|p| p.status == 202) {
        assert!(seen.insert(p.body.clone()), "a window was sent twice");
    }
    lake_count(&s.lake, "shop-away", seen.len());
}

/// "On exit (normal, or SIGINT/SIGTERM) the current window is sent": a SIGTERM the app does not
/// handle (the window is posted, then the process ends by the signal, as without the agent), and
/// `process.exit(3)` (posted from the `exit` hook, the exit code kept).
#[test]
fn agent_sends_the_last_window_on_sigterm_and_process_exit() {
    use std::os::unix::process::ExitStatusExt;
    let Some(s) = start("exit") else { return };
    let long = [("JSPROF_AGENT_WINDOW_S", "60"), ("JSPROF_AGENT_HEAP", "0")];
    let sent = |service: &str| {
        let posts = s.relay.posts();
        let mine: Vec<_> = posts
            .iter()
            .filter(|p| p.query["service"] == service && p.status == 202)
            .collect();
        assert!(mine.iter().all(|p| p.is_cpu()));
        mine.len()
    };

    let (mut child, addr) =
        s.app(&[&long[..], &[("JSPROF_AGENT_LABELS", "service=on-term")]].concat());
    load(&addr, Duration::from_millis(300));
    // SAFETY: a signal to a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = wait_within(&mut child, Duration::from_secs(20), "the app after SIGTERM");
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status}");
    assert_eq!(sent("on-term"), 1);

    let (mut child, addr) =
        s.app(&[&long[..], &[("JSPROF_AGENT_LABELS", "service=on-exit")]].concat());
    load(&addr, Duration::from_millis(300));
    get(&addr, "/exit");
    let status = wait_within(&mut child, Duration::from_secs(20), "the app after /exit");
    assert_eq!(status.code(), Some(3), "{status}");
    assert_eq!(sent("on-exit"), 1);
    lake_count(&s.lake, "on-term", 1);
    lake_count(&s.lake, "on-exit", 1);
}

/// What the lake answers over windows the agent posted, across a "deploy": three runs of the app
/// side by side, `version=1.0`, `version=1.0.1` (the same code) and `version=1.1`, whose `/hot`
/// also runs `plantedRegression` (windows of 0.25 s at 1 kHz, so each run posts a dozen).
/// `lake diff` names `plantedRegression` a significant growth of its self share; `check --lake`
/// with a 5-point budget fails on it (its callers may fail too: their total shares grew with
/// it) and passes between 1.0 and 1.0.1. Then `lake export` of the 1.1 windows, read by
/// independent readers: OTLP (Python's official `opentelemetry-proto`, as `export.rs` reads
/// `jsprof export`) and pprof (npm `pprof-format`), each function's self equal to `lake top
/// --where version=1.1`'s to the nanosecond (top's ms ×1e6, within 0.5 ns), and `time_unix_nano`
/// the earliest `start_ms` the agent posted.
#[test]
fn agent_windows_answer_lake_diff_check_and_export() {
    let Some(s) = start("deploy") else { return };
    let versions = [("1.0", "0"), ("1.0.1", "0"), ("1.1", "1")];
    let apps: Vec<(KillOnDrop, String)> = versions
        .iter()
        .map(|&(version, regression)| {
            let labels = format!("service=shop-deploy,version={version}");
            s.app(&[
                ("JSPROF_AGENT_LABELS", labels.as_str()),
                ("JSPROF_AGENT_WINDOW_S", "0.25"),
                ("JSPROF_AGENT_INTERVAL_US", "1000"),
                ("JSPROF_AGENT_HEAP", "0"),
                ("AGENT_APP_REGRESSION", regression),
            ])
        })
        .collect();
    // One client takes turns between the three apps, so whatever else the machine runs slows
    // each of them alike: three clients, one per app, let one app be starved for a whole run,
    // and a run's share of time in `writev` then moved by 25 points between 1.0 and 1.0.1.
    let addrs: Vec<&str> = apps.iter().map(|(_, addr)| addr.as_str()).collect();
    load_in_turn(&addrs, Duration::from_millis(3000));
    for (child, addr) in apps {
        quit(child, &addr);
    }
    let posts = s.relay.posts();
    assert!(posts.iter().all(|p| p.status == 202), "a post was refused");
    lake_count(&s.lake, "shop-deploy", posts.len());
    let lake = s.lake.to_str().unwrap();

    let diff = jsprof_json(&argv(
        "lake diff {} --base version=1.0 --target version=1.1 --json --limit 0",
        &[&lake],
    ));
    let change = json_array(&diff["changes"])
        .iter()
        .find(|c| c["name"] == "plantedRegression")
        .unwrap_or_else(|| panic!("plantedRegression is not a change: {diff:#}"));
    let grew = &change["self_share"];
    assert!(grew["q"].as_f64().unwrap() < 0.05, "{change:#}");
    assert!(grew["shift_points"].as_f64().unwrap() > 5.0, "{change:#}");

    let budget = temp_file(
        "agent-deploy-budget.toml",
        b"[abtest]\nmax_share_growth_points = 5\n",
    );
    let check = |target: &str| {
        crate::support::jsprof(&argv(
            "check --json --budget {} --lake {} --base version=1.0 --target {}",
            &[&budget, &lake, &target],
        ))
    };
    let failed = check("version=1.1");
    assert_eq!(failed.status.code(), Some(1), "{}", shown(&failed));
    let doc: Value = serde_json::from_slice(&failed.stdout).unwrap();
    let failing: Vec<&Value> = json_array(&doc["checks"])
        .iter()
        .filter(|c| c["status"] == "fail")
        .collect();
    // plantedRegression fails the budget; its callers' total shares (the request handler, the
    // server's `emit`) grew with it, and may fail it too.
    let planted = failing.iter().find(|c| c["subject"] == "plantedRegression");
    let planted = planted.unwrap_or_else(|| panic!("{doc:#}"));
    assert!(planted["value"].as_f64().unwrap() > 5.0, "{doc:#}");
    let passed = check("version=1.0.1");
    assert_eq!(passed.status.code(), Some(0), "{}", shown(&passed));

    // `lake export` of the 1.1 windows against `lake top` of the same selection.
    let top = jsprof_json(&argv(
        "lake top {} --where version=1.1 --json --limit 0",
        &[&lake],
    ));
    let top_self = crate::export::top_self(&top);
    let same_self =
        |what: &str, functions| crate::export::assert_same_self(what, &top_self, functions);
    let export = |format: &str| {
        let out = temp_file(&format!("agent-deploy.{format}"), b"");
        let args = [
            "lake",
            "export",
            lake,
            "--where",
            "version=1.1",
            "-f",
            format,
            "-o",
        ];
        crate::support::jsprof_ok(&[&args[..], &[out.to_str().unwrap()]].concat());
        out
    };
    let first_start_ms = posts
        .iter()
        .filter(|p| p.query["version"] == "1.1")
        .map(|p| p.query["start_ms"].parse::<u64>().unwrap())
        .min()
        .unwrap();
    if let Some(py) = crate::export::otlp_python() {
        let read =
            |format: &str| crate::export::check_otlp(&py, &export(format), format == "otlp-json");
        let v = read("otlp");
        assert_eq!(read("otlp-json"), v);
        assert_eq!(
            v["resource"],
            serde_json::json!({"service.name": "shop-deploy"})
        );
        let [p] = &json_array(&v["profiles"])[..] else {
            panic!("one profile for a merged selection: {v}")
        };
        assert_eq!(p["sample_type"], serde_json::json!(["cpu", "nanoseconds"]));
        assert_eq!(
            (&p["duration_nano"], &p["period"]),
            (&Value::from(0), &Value::from(0))
        );
        assert_eq!(
            p["time_unix_nano"].as_u64(),
            Some(first_start_ms * 1_000_000)
        );
        let total = (top["duration_ms"].as_f64().unwrap() * 1e6).round();
        assert!(
            (p["total"].as_f64().unwrap() - total).abs() <= 0.5,
            "{p} vs {total}"
        );
        same_self("otlp", crate::export::otlp_functions(p));
    }
    if let Some(p) = crate::export::node_reader("pprof", &export("pprof")) {
        assert_eq!(
            p["sample_types"],
            serde_json::json!([["wall", "nanoseconds"]])
        );
        let functions = json_array(&p["functions"]).iter().map(|f| {
            let (name, url) = (f["name"].as_str().unwrap(), f["filename"].as_str().unwrap());
            let k = (
                name.to_string(),
                url.to_string(),
                f["start_line"].as_u64().unwrap(),
            );
            (k, f["self"][0].as_f64().unwrap())
        });
        same_self("pprof", functions.collect());
    }
}
