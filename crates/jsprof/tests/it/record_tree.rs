//! `jsprof record -- CMD` on real apps: every Node process the command starts (`npm run`,
//! `child_process.fork`) and every worker thread gets its own file; SIGTERM stops and saves like
//! Ctrl-C and leaves nothing running; a closed pipe is not a crash; snapshot names sort; `--open`
//! serves what was just recorded.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::record::{artifacts, function_names, out_dir, record_hot, record_within};
use crate::support::{argv, assert_ok, fixtures, json_array, jsprof, jsprof_json, KillOnDrop};

fn fixture(name: &str) -> PathBuf {
    fixtures().join("record").join(name)
}

fn record_cmd(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jsprof"));
    cmd.args(["record", "--cpu", "--json", "-o"]).arg(dir);
    cmd
}

/// A recorded target: (pid, worker, title, files).
type Target = (u64, Option<String>, String, Vec<PathBuf>);

/// The recorded targets.
fn targets(v: &Value) -> Vec<Target> {
    json_array(&v["targets"])
        .iter()
        .map(|t| {
            assert!(t["error"].is_null(), "{t}");
            (
                t["pid"].as_u64().unwrap(),
                t["worker"].as_str().map(str::to_string),
                t["title"].as_str().unwrap().to_string(),
                json_array(&t["files"])
                    .iter()
                    .map(|f| PathBuf::from(f.as_str().unwrap()))
                    .collect(),
            )
        })
        .collect()
}

/// The single CPU profile of the target matching `pick`, checked to load in `top` and
/// `summary`; its function names.
fn profile_of(v: &Value, pick: impl Fn(&Target) -> bool) -> Vec<String> {
    let all = targets(v);
    let target = all
        .iter()
        .find(|t| pick(t))
        .unwrap_or_else(|| panic!("no such target in {v}"));
    assert_eq!(target.3.len(), 1, "{target:?}");
    let file = &target.3[0];
    let summary = jsprof_json(&["summary", "--json", file.to_str().unwrap()]);
    assert!(summary.is_object(), "{summary}");
    function_names(file)
}

/// `jsprof record` of `node fixtures/record/NAME.js` (`what` it is), run to its end: its
/// report and its two targets.
fn record_two_targets(name: &str, what: &str) -> (Value, Vec<Target>) {
    let dir = out_dir(name);
    let v = record_within(
        record_cmd(&dir)
            .arg("--")
            .arg("node")
            .arg(fixture(&format!("{name}.js"))),
        90,
        &format!("jsprof record of {what}"),
    );
    assert_eq!(v["stop_reason"], "ProgramFinished");
    let all = targets(&v);
    assert_eq!(all.len(), 2, "{all:?}");
    (v, all)
}

/// `jsprof record --cpu --json -o DIR/out FLAGS -- node fixtures/record/forever.js` started
/// (stdout and stderr piped), `DIR` the test's `out_dir(name)`; the recorder and the folder
/// where the program writes its processes' pids (`PIDS_DIR`).
fn record_forever(name: &str, flags: &[&str]) -> (KillOnDrop, PathBuf) {
    let dir = out_dir(name);
    let pids_dir = dir.join("pids");
    std::fs::create_dir_all(&pids_dir).unwrap();
    let recorder = KillOnDrop::spawn(
        record_cmd(&dir.join("out"))
            .args(flags)
            .arg("--")
            .arg("node")
            .arg(fixture("forever.js"))
            .env("PIDS_DIR", &pids_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "jsprof record",
    );
    (recorder, pids_dir)
}

/// `forever.js`'s whole tree is in report `v`: the parent, its forked child and the parent's
/// worker thread, each with a profile of its own that has the busy function.
fn assert_whole_tree_recorded(v: &Value) {
    let all = targets(v);
    assert_eq!(all.iter().filter(|t| t.1.is_none()).count(), 2, "{all:?}");
    assert_eq!(all.iter().filter(|t| t.1.is_some()).count(), 1, "{all:?}");
    for t in &all {
        let names = profile_of(v, |o| o.0 == t.0 && o.1 == t.1);
        assert!(names.iter().any(|n| n == "busyForever"), "{t:?}: {names:?}");
    }
}

/// The pids `fixtures/record/forever.js` writes into `pids_dir`, once both its processes run
/// (their pids are written after their recording started), and `settle` later.
fn both_running(pids_dir: &Path, settle: Duration) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_dir(pids_dir).unwrap().count() < 2 {
        assert!(Instant::now() < deadline, "the program did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(settle);
    std::fs::read_dir(pids_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_str().unwrap().parse().unwrap())
        .collect()
}

fn assert_has(names: &[String], has: &str, lacks: &str) {
    assert!(names.iter().any(|n| n == has), "{has} missing: {names:?}");
    assert!(
        !names.iter().any(|n| n == lacks),
        "{lacks} present: {names:?}"
    );
}

#[test]
fn a_forked_child_has_its_own_profile() {
    let (v, all) = record_two_targets("fork", "a forking program");
    assert_eq!(v["program"]["exit_code"], 0, "{v}");
    let parent = all[0].0;
    assert_eq!(v["program"]["pid"].as_u64(), Some(parent));
    let parent_fns = profile_of(&v, |t| t.0 == parent);
    assert_has(&parent_fns, "hotParent", "hotChild");
    let child_fns = profile_of(&v, |t| t.0 != parent);
    assert_has(&child_fns, "hotChild", "hotParent");
    assert_ne!(all[0].3, all[1].3, "each process has its own file");
}

#[test]
fn a_worker_thread_has_its_own_profile() {
    let (v, all) = record_two_targets("worker", "a program with a worker thread");
    assert_eq!(all[0].0, all[1].0, "one process, two threads");
    let main_fns = profile_of(&v, |t| t.1.is_none());
    assert_has(&main_fns, "hotMain", "hotWorker");
    let worker_fns = profile_of(&v, |t| t.1.is_some());
    assert_has(&worker_fns, "hotWorker", "hotMain");
}

/// A worker whose profile takes longer to collect than its process's: both are saved when the
/// recording ends. The process's connection carries the worker's messages, and it used to close
/// as soon as the process's own profile was in, failing the worker's with "the worker detached".
#[test]
fn a_worker_slower_to_collect_than_its_process_is_saved() {
    let dir = out_dir("bigworker");
    let v = record_within(
        record_cmd(&dir)
            .args(["--duration", "3", "--"])
            .arg("node")
            .arg(fixture("bigworker.js")),
        90,
        "jsprof record of a worker with a big profile",
    );
    assert_eq!(v["stop_reason"], "Duration");
    let all = targets(&v);
    assert_eq!(all.len(), 2, "{all:?}");
    let worker_fns = profile_of(&v, |t| t.1.is_some());
    let hot = worker_fns.iter().filter(|n| n.starts_with("hot")).count();
    assert!(hot > 100, "{hot} of the worker's 20,000 functions sampled");
}

fn npm() -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("npm"))
        .find(|p| p.exists());
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI: npm is not installed");
        eprintln!("note: npm not found; skipping");
    }
    found
}

/// `npm run` records the script's processes, not npm's own, and finishes when the script does
/// (it used to hang: npm's children inherited `--inspect-brk` and waited for a debugger).
#[test]
fn an_npm_script_just_works() {
    let Some(npm) = npm() else { return };
    let dir = out_dir("npm");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let script = format!("node {}", fixture("fork.js").display());
    std::fs::write(
        project.join("package.json"),
        serde_json::json!({
            "name": "jsprof-record-test", "version": "1.0.0", "private": true,
            "scripts": {"work": script}
        })
        .to_string(),
    )
    .unwrap();
    let v = record_within(
        record_cmd(&dir.join("out"))
            .arg("--")
            .arg(&npm)
            .args(["run", "work"])
            .current_dir(&project)
            // Nothing reaches the network, and npm's own cache stays in the test's directory.
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .env("npm_config_cache", dir.join("npm-cache")),
        120,
        "jsprof record -- npm run",
    );
    assert_eq!(v["stop_reason"], "ProgramFinished");
    assert_eq!(v["program"]["exit_code"], 0, "{v}");
    let all = targets(&v);
    assert_eq!(all.len(), 2, "the script's two processes, not npm: {all:?}");
    assert!(all.iter().all(|t| t.2.starts_with("fork.js")), "{all:?}");
    assert_has(
        &profile_of(&v, |t| t.2 == "fork.js"),
        "hotParent",
        "hotChild",
    );
    assert_has(
        &profile_of(&v, |t| t.2 == "fork.js child"),
        "hotChild",
        "hotParent",
    );
}

fn alive(pid: u32) -> bool {
    // A zombie has exited; only its parent (maybe not us) can reap it.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// SIGTERM (`timeout`, a cancelled CI job) is a stop like Ctrl-C: every process and worker is
/// collected and saved, then the whole tree is stopped — none left running or paused. It used
/// to kill jsprof outright, leaving the program running with its inspector open.
#[test]
fn sigterm_saves_every_profile_and_stops_the_tree() {
    let (mut recorder, pids_dir) = record_forever("sigterm", &[]);
    let mut stderr = recorder.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let pids = both_running(&pids_dir, Duration::from_millis(1000));
    Command::new("kill")
        .args(["-TERM", &recorder.id().to_string()])
        .status()
        .unwrap();
    let mut stdout = String::new();
    recorder
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = recorder.wait().unwrap();
    let err = err.join().unwrap();
    assert!(status.success(), "{status}: {err}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["stop_reason"], "Interrupted");
    assert_eq!(v["program"]["stopped_by_jsprof"], true);
    assert_whole_tree_recorded(&v);
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|p| alive(*p)) {
        assert!(
            Instant::now() < deadline,
            "left running: {:?}",
            pids.iter().filter(|p| alive(**p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `jsprof record … | head`: the reader goes away; jsprof ends quietly (it panicked, exit 101).
#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    let dir = out_dir("pipe");
    let mut recorder = KillOnDrop::spawn(
        record_hot(&["--cpu"], &dir, "300")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        "jsprof record",
    );
    // Read one line (the program's own "done"), then close the pipe as `head -1` does.
    let mut stdout = BufReader::new(recorder.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    drop(stdout);
    let out = recorder.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// Periodic snapshots are `X-01`, `X-02`, … (padded to the planned count), so a glob lists
/// them in the order they were taken — the last one last. They were `X`, `X-2`, … and a glob
/// put the first after the last.
#[test]
fn periodic_snapshot_names_sort_in_order() {
    let dir = out_dir("snapshot-names");
    let flags = [
        "--heap-snapshot",
        "--every",
        "0.25",
        "--duration",
        "3",
        "--name",
        "heap",
        "--json",
    ];
    let v = record_within(
        &mut record_hot(&flags, &dir, "30000"),
        120,
        "jsprof record --every",
    );
    let taken: Vec<String> = artifacts(&v)
        .into_iter()
        .filter(|(k, _)| k == "heap-snapshot")
        .map(|(_, p)| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    assert!(taken.len() >= 2, "{taken:?}");
    // The width is planned from the time left once the process is attached (3 s / 0.25 s + 1
    // = 13 on an idle machine, two digits; fewer on a loaded one), so the test asserts the rule,
    // not the count: every name padded to the same width, enough for the snapshots taken.
    let width = taken[0].len() - "heap-.heapsnapshot".len();
    assert_eq!(
        taken[0],
        format!("heap-{:0width$}.heapsnapshot", 1),
        "{taken:?}"
    );
    assert!(width >= taken.len().to_string().len(), "{taken:?}");
    assert!(taken.iter().all(|n| n.len() == taken[0].len()), "{taken:?}");
    let mut sorted = taken.clone();
    sorted.sort();
    assert_eq!(sorted, taken, "a glob's order is the order taken");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_str().unwrap().to_string())
        .filter(|n| n.ends_with(".heapsnapshot"))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, taken);
}

#[test]
fn a_snapshot_period_too_short_is_refused() {
    let out = jsprof(&argv(
        "record --heap-snapshot --every 0.05 -- node -e 0",
        &[],
    ));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--every 0.05: at least 0.25 s"), "{err}");
}

/// `record --open` serves what it just recorded, as `jsprof view` does: the browser opener is
/// a stand-in that writes down the address it was given.
#[test]
fn open_serves_the_recording() {
    let dir = out_dir("open");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opened = dir.join("opened.txt");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut recorder = KillOnDrop::spawn(
        record_hot(&["--cpu", "--open"], &dir.join("out"), "300")
            .env("PATH", path)
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        "jsprof record",
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let url = loop {
        if let Ok(url) = std::fs::read_to_string(&opened) {
            if !url.is_empty() {
                break url;
            }
        }
        assert!(Instant::now() <= deadline, "no browser was opened");
        std::thread::sleep(Duration::from_millis(100));
    };
    let rest = url.strip_prefix("http://").expect(&url);
    let (host, path) = rest.split_once('/').unwrap();
    let path = path.split('#').next().unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    Command::new("kill")
        .args(["-INT", &recorder.id().to_string()])
        .status()
        .unwrap();
    let status = recorder.wait().unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(status.success(), "{status}");
}

/// The socket inodes a process holds open (`/proc/PID/fd`, read as root).
fn socket_inodes(pid: u32) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                let link = link.to_string_lossy().into_owned();
                if let Some(inode) = link
                    .strip_prefix("socket:[")
                    .and_then(|l| l.strip_suffix(']'))
                {
                    out.insert(inode.to_string());
                }
            }
        }
    }
    out
}

/// TCP ports listening on sockets of `inodes` (`/proc/net/tcp` and `tcp6`, state `0A`).
fn listening_ports(inodes: &std::collections::HashSet<String>) -> Vec<u16> {
    let mut ports = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() > 9 && f[3] == "0A" && inodes.contains(f[9]) {
                let port = f[1].rsplit(':').next().unwrap();
                ports.push(u16::from_str_radix(port, 16).unwrap());
            }
        }
    }
    ports
}

/// What another local user tries against a recording (run as `nobody`): every TCP port the
/// recorded processes listen on — connect, ask `/json/list` (the inspector's target list with
/// its WebSocket URL) and try a WebSocket upgrade; every Unix socket of a jsprof registry
/// listed in `/proc/net/unix`, and the registry's socket by name — connect; the registry
/// directory — list it, write the preload `register.js`, add a file. Prints what worked.
const ATTACKER: &str = r#"
import json, os, socket, sys
ports, registry = json.loads(sys.argv[1]), sys.argv[2]
found = []
for port in ports:
    for host in ("127.0.0.1", "::1"):
        for request in (b"GET /json/list HTTP/1.1\r\nHost: localhost\r\n\r\n",
                        b"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"):
            try:
                s = socket.create_connection((host, port), timeout=3)
                s.sendall(request)
                found.append("tcp %s:%d answered %r" % (host, port, s.recv(200)))
            except OSError:
                pass
paths = {os.path.join(registry, "sock")}
for line in open("/proc/net/unix"):
    f = line.split()
    if len(f) >= 8 and "jsprof-record-" in f[-1]:
        paths.add(f[-1])
for p in sorted(paths):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(3)
        s.connect(p)
        s.sendall(b'{"id":1,"method":"Runtime.evaluate","params":{"expression":"1"}}\n')
        found.append("unix %s accepted a connection" % p)
    except OSError:
        pass
try:
    os.listdir(registry)
    found.append("listed " + registry)
except OSError:
    pass
for name in ("register.js", "planted.js"):
    try:
        with open(os.path.join(registry, name), "a") as f:
            f.write("require('child_process').execSync('touch /tmp/pwned')\n")
        found.append("wrote " + os.path.join(registry, name))
    except OSError:
        pass
print(json.dumps({"uid": os.getuid(), "found": found}))
"#;

/// Issue 33, findings 2 and 6: another local uid cannot attach to or inject into the processes
/// `record` records. Run as root (as the review did, and as many CI containers run), a tree of
/// a parent, its forked child and a worker thread is recorded; meanwhile `nobody` (setpriv) looks
/// for any inspector port of the recorded processes and any way into jsprof's registry. Before:
/// each recorded process listened on an unauthenticated loopback inspector port (visible in
/// /proc/net/tcp; `/json/list` gave its WebSocket URL, which ran code as root), and the preload
/// lived under a guessable name in the shared temporary directory that outlived jsprof. Now: no
/// recorded process listens on any TCP port, nothing of the registry can be reached or written
/// by another user, its name carries 128 random bits, it is gone once jsprof is, and the
/// recording — every process and the worker — is whole.
#[test]
fn another_user_can_neither_attach_to_nor_inject_into_a_recording() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        crate::support::skip_without("root", "run the tests as root, as CI does");
        return;
    }
    // A Python that `nobody` can run (root's own may live in a private home).
    let as_nobody = |python: &str| {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", python]);
        c
    };
    let Some(python) = ["/usr/bin/python3", "/usr/local/bin/python3", "python3"]
        .into_iter()
        .find(|p| {
            as_nobody(p)
                .args(["-c", "pass"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
    else {
        crate::support::skip_without(
            "setpriv and a python3 that user nobody can run",
            "apt-get install util-linux python3",
        );
        return;
    };
    let (recorder, pids_dir) = record_forever("other-user", &["--duration", "8"]);
    let pids = both_running(&pids_dir, Duration::from_millis(500));
    // Root's view: the recorded processes' listening ports, and the registry they were given.
    let mut ports = Vec::new();
    for &pid in &pids {
        ports.extend(listening_ports(&socket_inodes(pid)));
    }
    let environ = std::fs::read(format!("/proc/{}/environ", pids[0])).unwrap();
    let registry = environ
        .split(|&b| b == 0)
        .find_map(|v| v.strip_prefix(b"JSPROF_RECORD_REGISTRY="))
        .map(|v| PathBuf::from(String::from_utf8_lossy(v).into_owned()))
        .expect("the recorded process has the registry in its environment");
    let probe = as_nobody(python)
        .args(["-c", ATTACKER])
        .arg(serde_json::to_string(&ports).unwrap())
        .arg(&registry)
        .output()
        .unwrap();
    assert_ok(&probe, "");
    let seen: Value = serde_json::from_slice(&probe.stdout).unwrap();
    assert_eq!(seen["uid"], 65534);
    assert_eq!(
        seen["found"],
        serde_json::json!([]),
        "another user got in (recorded pids {pids:?})"
    );
    assert!(ports.is_empty(), "recorded processes listen on {ports:?}");
    let name = registry.file_name().unwrap().to_string_lossy().into_owned();
    let random = name.strip_prefix("jsprof-record-").unwrap_or("");
    assert!(
        random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
        "an unpredictable name: {name}"
    );
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(&registry).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o777), (0, 0o700));
    }

    let out = recorder.wait_with_output().unwrap();
    assert_ok(&out, "");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stop_reason"], "Duration");
    assert_whole_tree_recorded(&v);
    assert!(!registry.exists(), "the registry is removed with jsprof");
    assert!(!Path::new("/tmp/pwned").exists());
}
