//! Helpers shared by the CLI tests.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

pub use jsprof_testkit::{
    fixture_text, fixtures, golden, run_oracle, run_oracle_with, skip_without, KillOnDrop,
};

/// A fixture's path as the CLI takes it: `cpu/tsc.cpuprofile.gz` under `fixtures/`, as text.
pub fn fixture_arg(rel: &str) -> String {
    fixtures().join(rel).to_str().unwrap().to_string()
}

/// The Python with the tests' packages (the lake's engines, `opentelemetry-proto`):
/// `$JSPROF_LAKE_PYTHON`, else the venv `.ci/run` makes (`target/lake-py`), else `python3`.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("JSPROF_LAKE_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/lake-py/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// Whether `python` can import `module`; when it cannot, the test is skipped with `how` to
/// install it (a failure under `CI`).
pub fn python_has(python: &Path, module: &str, how: &str) -> bool {
    let ok = Command::new(python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_without(
            &format!("python module {module} ({})", python.display()),
            how,
        );
    }
    ok
}

/// `out` is a success; otherwise a panic naming `what`, the exit status and stderr.
pub fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `cmd` (a tool the tests drive: node, npm) and asserts that it succeeded; a failure names
/// `what` and shows its stdout and stderr.
pub fn output_ok(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Profiles `script` now with `node [FLAGS] --cpu-prof`, one sample every `interval_us`, into
/// `dir/name`, and returns that path.
pub fn node_cpu_profile(
    script: &std::path::Path,
    flags: &[&str],
    interval_us: u32,
    dir: &std::path::Path,
    name: &str,
) -> PathBuf {
    output_ok(
        Command::new("node")
            .args(flags)
            .args(["--cpu-prof", "--cpu-prof-interval"])
            .arg(interval_us.to_string())
            .args(["--cpu-prof-name", name, "--cpu-prof-dir"])
            .arg(dir)
            .arg(script),
        &format!("node --cpu-prof {}", script.display()),
    );
    dir.join(name)
}

/// A command line written as one types it, its words split at spaces, each `{}` standing for the
/// next of `values` whole (a path with a space in it stays one word):
/// `argv("top {} --json", &[&path])` is `["top", path, "--json"]`.
pub fn argv<'a>(line: &'a str, values: &[&'a dyn AsRef<Path>]) -> Vec<&'a str> {
    let mut values = values.iter();
    let words = line
        .split_whitespace()
        .map(|word| match word {
            "{}" => {
                let value: &'a dyn AsRef<Path> = *values.next().expect("a value for each {}");
                value.as_ref().to_str().expect("a UTF-8 value")
            }
            word => word,
        })
        .collect();
    assert!(values.next().is_none(), "more values than {{}} in {line:?}");
    words
}

/// Runs `jsprof` with `args` (as [`jsprof`]) and asserts that it succeeded.
pub fn jsprof_ok(args: &[&str]) -> Output {
    let out = jsprof(args);
    assert_ok(&out, &format!("jsprof {args:?}"));
    out
}

/// The JSON array `v`; a panic showing `v` when it is not one.
pub fn json_array(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v:.200}"))
}

/// Runs the built `jsprof` binary with `args`, its output piped and `COLUMNS` unset, so tables
/// are never cut (a developer's exported `COLUMNS` must not change what the tests see).
pub fn jsprof(args: &[&str]) -> Output {
    jsprof_env(args, &[])
}

/// Runs `jsprof` with `args` and the environment variables `env` added (`COLUMNS` otherwise unset).
pub fn jsprof_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .env_remove("COLUMNS")
        .envs(env.iter().copied())
        .output()
        .expect("run jsprof")
}

/// `WORDS… FILE --json --limit 0`: a command's arguments for every row of its JSON, uncut.
pub fn all_rows<'a>(words: &[&'a str], file: &'a str) -> Vec<&'a str> {
    let mut args = words.to_vec();
    args.extend([file, "--json", "--limit", "0"]);
    args
}

/// `jsprof report ARGS -o -`'s embedded data (`<script id="jsprof-data">`), parsed.
pub fn report_data(args: &[&str]) -> serde_json::Value {
    let out = jsprof(&[&["report"][..], args, &["-o", "-"]].concat());
    assert_ok(&out, &format!("jsprof report {args:?}"));
    let html = String::from_utf8(out.stdout).unwrap();
    let start = html
        .find(r#"<script id="jsprof-data" type="application/json">"#)
        .expect("embedded data");
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

/// Runs `jsprof` with `args`, asserts that it refused them as bad input or usage (exit 2), and
/// returns its stderr.
pub fn refused(args: &[&str]) -> String {
    let out = jsprof(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "jsprof {args:?}: {err}");
    err
}

/// Runs `jsprof` and parses its stdout as JSON, panicking with stderr when it fails.
pub fn jsprof_json(args: &[&str]) -> serde_json::Value {
    let out = jsprof(args);
    assert_ok(&out, &format!("jsprof {args:?} failed"));
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// An empty folder of the test's own under the target directory's temp area:
/// `NAME-PID`, emptied first when an earlier test of this run left it.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names of the entries of the folder `dir`, sorted (a folder that is not there fails).
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Writes `bytes` to a fresh file under the target directory's temp area and returns its path.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Starts `node --inspect=127.0.0.1:0 fixtures/record/hot.js` running for `run_ms` and returns
/// it with its inspector's address (`127.0.0.1:PORT`).
pub fn node_with_inspector(run_ms: u64) -> (KillOnDrop, String) {
    let hot = fixtures().join("record/hot.js");
    let (child, url) = node_inspecting("127.0.0.1:0", &[hot.to_str().unwrap()], run_ms);
    (child, url.split('/').next().unwrap().to_string())
}

/// Starts `node --inspect=BIND ARGS…` (`RUN_MS` set to `run_ms`) and returns it with what its
/// inspector announced: `HOST:PORT/TARGET-ID`.
pub fn node_inspecting(bind: &str, args: &[&str], run_ms: u64) -> (KillOnDrop, String) {
    let mut child = KillOnDrop::spawn(
        Command::new("node")
            .arg(format!("--inspect={bind}"))
            .args(args)
            .env("RUN_MS", run_ms.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
        "node",
    );
    let stderr = child.stderr.take().unwrap();
    let url = ws_url(stderr, "Debugger listening on ws://", "node");
    (child, url)
}

/// Where Chromium is: `$CHROMIUM`, else Debian's `/usr/bin/chromium`.
pub fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Debian's Chromium (or `CHROMIUM`); `None` outside CI when it is not installed.
pub fn chromium() -> Option<PathBuf> {
    let path = chromium_path();
    if path.exists() {
        return Some(path);
    }
    skip_without(
        &format!("Chromium at {}", path.display()),
        "apt-get install chromium, or set CHROMIUM",
    );
    None
}

/// `CHROMIUM --headless --no-sandbox --disable-gpu FLAGS… --user-data-dir=PROFILE PAGE`, its
/// stdout discarded.
pub fn chromium_command(chromium: &Path, flags: &[&str], profile: &Path, page: &str) -> Command {
    let mut cmd = Command::new(chromium);
    cmd.args(["--headless", "--no-sandbox", "--disable-gpu"])
        .args(flags)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(page)
        .stdout(Stdio::null());
    cmd
}

/// [`chromium_command`] started with `--remote-debugging-port=0` last of `flags`: the browser
/// and the address its DevTools protocol listens on (`127.0.0.1:PORT`).
pub fn chromium_devtools(
    chromium: &Path,
    flags: &[&str],
    profile: &Path,
    page: &str,
) -> (KillOnDrop, String) {
    let flags = [flags, &["--remote-debugging-port=0"]].concat();
    let mut child = KillOnDrop::spawn(
        chromium_command(chromium, &flags, profile, page).stderr(Stdio::piped()),
        "chromium",
    );
    let stderr = child.stderr.take().unwrap();
    let url = ws_url(stderr, "DevTools listening on ws://", "chromium");
    (child, url.split('/').next().unwrap().to_string())
}

/// `node fixtures/record/hot.js` running for `run_ms`, its output discarded: a process for
/// `--pid` to attach to.
pub fn node_hot(run_ms: u64) -> KillOnDrop {
    KillOnDrop::spawn(
        Command::new("node")
            .arg(fixtures().join("record/hot.js"))
            .env("RUN_MS", run_ms.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
        "node",
    )
}

/// The first line a child (`jsprof view`, `jsprof serve`) prints on its piped stdout, trimmed:
/// the address it serves.
pub fn first_line(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut line)
        .unwrap();
    line.trim().to_string()
}

/// What a child's stderr announces after `banner` (`Debugger listening on ws://` for Node,
/// `DevTools listening on ws://` for Chromium): `HOST:PORT/PATH`. The rest of stderr is read on a
/// thread of its own, so the child never blocks on a full pipe.
pub fn ws_url(stderr: std::process::ChildStderr, banner: &str, what: &str) -> String {
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(stderr).lines();
    let url = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("{what} printed no {banner:?} line"))
            .unwrap();
        if let Some(rest) = line.strip_prefix(banner) {
            break rest.to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    url
}

/// Waits for `child` at most `limit`; past that, kills it and fails naming `what`.
pub fn wait_within(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `child`'s exit status and all it wrote on its stdout and stderr (empty when not piped), as
/// [`wait_within`] waits for it. The pipes are read on threads of their own, so that a chatty
/// child never blocks on a full pipe.
pub fn output_within(mut child: KillOnDrop, limit: Duration, what: &str) -> Output {
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut v);
            }
            v
        })
    }
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let status = wait_within(&mut child, limit, what);
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Percent-encodes a query value (all but unreserved characters).
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
