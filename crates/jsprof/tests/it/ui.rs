//! The browser UI end to end in headless Chromium (`tests/node/ui-e2e.mjs`, Playwright): through
//! `jsprof view` and on `jsprof report` output opened from disk (no network request allowed).
//! Expected numbers come from DevTools' goldens. Screenshots go to `target/tmp/ui-shots`.
//! Needs Node, Debian's `chromium` and `npm ci` in `tests/node`: with `CI` set a missing piece
//! fails the test; locally it is skipped with a note.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{first_line, fixtures, output_ok, KillOnDrop};

pub(crate) fn node_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node")
}

/// Whether the browser tests can run; panics under CI when they cannot.
pub(crate) fn available() -> bool {
    static HERE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *HERE.get_or_init(|| {
        node_dir().join("node_modules/playwright-core").exists()
            && crate::support::chromium_path().exists()
            && Command::new("node").arg("--version").output().is_ok()
    });
    if !ok {
        crate::support::skip_without(
            "node, /usr/bin/chromium or playwright-core",
            &format!("install them; `npm ci` in {}", node_dir().display()),
        );
    }
    ok
}

fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui-shots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn e2e(case: &str, url: &str, golden: &Path, offline: bool) {
    node_script(
        "ui-e2e.mjs",
        &[case.as_ref(), url.as_ref(), golden.as_os_str()],
        offline,
    );
}

/// Runs one of `tests/node`'s browser scripts with its arguments, then the screenshot folder
/// (and `--offline` for a report, which must make no request); fails the test with its output.
pub(crate) fn node_script(script: &str, args: &[&std::ffi::OsStr], offline: bool) {
    let mut cmd = Command::new("node");
    cmd.current_dir(node_dir())
        .arg(script)
        .args(args)
        .arg(shots());
    if offline {
        cmd.arg("--offline");
    }
    output_ok(&mut cmd, &format!("{script} {args:?}"));
}

/// Runs one case of a `tests/node` script that takes `CASE URL EXPECTED.json SHOTS`: the expected
/// numbers (computed by the CLI, which other tests tie to DevTools) go through a file.
pub(crate) fn node_case(script: &str, case: &str, url: &str, expected: &serde_json::Value) {
    let stem = script.trim_end_matches(".mjs");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{stem}-{case}.json"));
    std::fs::write(&path, expected.to_string()).unwrap();
    node_script(
        script,
        &[case.as_ref(), url.as_ref(), path.as_os_str()],
        false,
    );
}

/// Writes the `.cpuprofile` of `nodes` with one sample a millisecond, on `samples` (node ids), to
/// `path`.
pub(crate) fn write_cpuprofile(path: &Path, nodes: &[serde_json::Value], samples: &[usize]) {
    let n = samples.len();
    let doc = serde_json::json!({
        "nodes": nodes, "startTime": 0, "endTime": n * 1000,
        "samples": samples, "timeDeltas": vec![1000; n],
    });
    std::fs::write(path, doc.to_string()).unwrap();
}

/// `jsprof view --no-open FILES…`, killed on drop.
pub(crate) struct View {
    _child: KillOnDrop,
    pub(crate) url: String,
}

/// `jsprof view --no-open FILES…` for a browser test; `None` (the test skips, a failure under
/// CI) when the browser tests cannot run here.
pub(crate) fn view(files: &[PathBuf]) -> Option<View> {
    view_with(files, &[])
}

pub(crate) fn view_with(files: &[PathBuf], flags: &[&str]) -> Option<View> {
    if !available() {
        return None;
    }
    let mut child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .arg("view")
            .arg("--no-open")
            .args(flags)
            .args(files)
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
        "jsprof view",
    );
    let url = first_line(&mut child);
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "jsprof view printed {url:?}"
    );
    Some(View { _child: child, url })
}

pub(crate) fn report(file: &Path, name: &str) -> String {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-{name}.html"));
    let status = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .arg("report")
        .arg(file)
        .arg("-o")
        .arg(&out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "jsprof report {}", file.display());
    format!("file://{}", out.canonicalize().unwrap().display())
}

fn both(case: &str, files: &[&str], golden: &str) {
    let f = fixtures();
    let files: Vec<PathBuf> = files.iter().map(|p| f.join(p)).collect();
    let golden = f.join(golden);
    let Some(v) = view(&files) else { return };
    e2e(case, &v.url, &golden, false);
    drop(v);
    e2e(case, &report(&files[0], case), &golden, true);
}

#[test]
fn cpu_profile_in_the_browser() {
    both(
        "cpu",
        &["cpu/node-mix.cpuprofile.gz"],
        "cpu/node-mix.cpuprofile.devtools.json.gz",
    );
}

/// `jsprof view --focus … --hide-idle`: the URL carries the filters and the page opens with them.
#[test]
fn view_opens_with_the_given_filters() {
    let f = fixtures();
    let Some(v) = view_with(
        &[f.join("cpu/node-mix.cpuprofile.gz")],
        &["--focus", "^buildTree$", "--hide-idle"],
    ) else {
        return;
    };
    assert!(
        v.url.ends_with("#focus=%5EbuildTree%24&hide_idle=1"),
        "{}",
        v.url
    );
    e2e(
        "focus-url",
        &v.url,
        &f.join("cpu/node-mix.cpuprofile.devtools.json.gz"),
        false,
    );
}

#[test]
fn trace_in_the_browser() {
    both(
        "trace",
        &["trace/primes.trace.json.gz"],
        "trace/primes.trace.devtools.json.gz",
    );
}

#[test]
fn threads_as_tracks_in_the_browser() {
    both(
        "worker",
        &["third-party/speedscope/Chrome-70-worker.json.gz"],
        "third-party/speedscope/Chrome-70-worker.json.devtools.json.gz",
    );
}

/// The Leaks view of three snapshots in one `jsprof view` against `jsprof heap leaks --json`.
#[test]
fn leaks_in_the_browser() {
    if !available() {
        return;
    }
    let files = crate::ui_heap::leak_series();
    view_against_cli(
        "leaks",
        &files,
        &["heap", "leaks", "--json", "--limit", "0"],
    );
}

/// `ui-e2e.mjs CASE` on `jsprof view FILES`, against what `jsprof ARGS FILES` prints (handed to
/// the script as its gzipped golden).
fn view_against_cli(case: &str, files: &[PathBuf], args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "jsprof {args:?}");
    let golden = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-{case}.json.gz"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &out.stdout).unwrap();
    std::fs::write(&golden, gz.finish().unwrap()).unwrap();
    let Some(v) = view(files) else { return };
    e2e(case, &v.url, &golden, false);
}

/// The CPU diff of two profiles in one `jsprof view` against `jsprof diff --json`.
#[test]
fn cpu_diff_in_the_browser() {
    if !available() {
        return;
    }
    let f = fixtures();
    let files: Vec<PathBuf> = ["before", "after"]
        .iter()
        .map(|n| f.join(format!("diff/{n}.cpuprofile.gz")))
        .collect();
    view_against_cli("diff", &files, &["diff", "--json"]);
}

#[test]
fn detached_dom_in_the_browser() {
    both(
        "detached",
        &["heap/detached.heapsnapshot.gz"],
        "heap/detached.heapsnapshot.devtools.json.gz",
    );
}

#[test]
fn leak_retainers_in_the_browser() {
    both(
        "leak",
        &[
            "heap/leak-3-final.heapsnapshot.gz",
            "heap/leak-1-baseline.heapsnapshot.gz",
        ],
        "heap/leak-3-final.heapsnapshot.devtools.json.gz",
    );
}
