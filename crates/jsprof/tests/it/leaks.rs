//! `heap leaks` and `heap diff` on snapshots of real leaks, made at test time by Node: a `Map`-held
//! cache, `Set`-held closures, event listeners in a triple taken by signal without any forced GC,
//! and a cache large enough for 100 MB snapshots. The counts asserted are the ones the script
//! plants, never our own output.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{assert_ok, json_array, jsprof_json, jsprof_ok};

/// Makes three snapshots of one process: `1-base` before the leaks, `2-target` after them, then
/// `3-final` after more (unleaking) work. `MODE` = `write` (`v8.writeHeapSnapshot`) or `signal`
/// (`--heapsnapshot-signal`: the process signals itself, as a recorder or an operator would, with
/// no `gc()` of its own). Each leak's size comes from the environment.
const APP: &str = r#"
const v8 = require('v8'), fs = require('fs'), path = require('path'), { EventEmitter } = require('events');
const [out, mode] = process.argv.slice(2);
const N = (name) => Number(process.env[name] || 0);
class CacheEntry { constructor(i, width) { this.id = i; this.rows = Array.from({ length: width }, (_, j) => ({ j, text: 'row ' + i + '/' + j })); } }
class Transient { constructor(i) { this.i = i; this.data = [i, i + 1]; } }
const app = { cache: new Map(), listeners: new Set(), bus: new EventEmitter() };
app.bus.setMaxListeners(0);
globalThis.app = app;
let keep = [];
function churn(n) { const t = []; for (let i = 0; i < n; i++) t.push(new Transient(i)); keep = t.slice(0, 5); return t.length; }
async function snapshot(name) {
  const file = path.join(out, name + '.heapsnapshot');
  if (mode !== 'signal') return void v8.writeHeapSnapshot(file);
  const before = new Set(fs.readdirSync(out));
  process.kill(process.pid, 'SIGUSR2');
  // The snapshot is written on this thread: once a timer runs again, the file is complete.
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    const made = fs.readdirSync(out).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (made.length) return void fs.renameSync(path.join(out, made[0]), file);
  }
}
(async () => {
  churn(2000);
  await snapshot('1-base');
  for (let i = 0; i < N('CACHE'); i++) app.cache.set('key' + i, new CacheEntry(i, N('WIDTH') || 4));
  for (let i = 0; i < N('CLOSURES'); i++) app.listeners.add(/*closure*/() => i);
  for (let i = 0; i < N('HANDLERS'); i++) app.bus.on('message', function onMessage(m) { return m + i; });
  churn(20000);
  await snapshot('2-target');
  churn(20000);
  await snapshot('3-final');
})();
"#;

/// Runs [`APP`] in a fresh folder and returns the three snapshots, in the order taken.
fn triple(name: &str, mode: &str, env: &[(&str, usize)]) -> [PathBuf; 3] {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("leaks-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("app.js");
    std::fs::write(&script, APP).unwrap();
    let mut node = Command::new("node");
    node.current_dir(&dir);
    if mode == "signal" {
        node.arg("--heapsnapshot-signal=SIGUSR2");
    }
    node.arg(&script).arg(&dir).arg(mode);
    for (k, v) in env {
        node.env(k, v.to_string());
    }
    let out = node.output().expect("node runs");
    assert_ok(&out, &format!("node {name}"));
    ["1-base", "2-target", "3-final"].map(|s| dir.join(format!("{s}.heapsnapshot")))
}

/// The 1-based line and column of the arrow function after `/*closure*/` in [`APP`], as the
/// script was written to disk.
fn closure_position() -> (usize, usize) {
    let (line_no, line) = APP
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("/*closure*/"))
        .unwrap();
    let column = line.find("/*closure*/").unwrap() + "/*closure*/".len() + 1;
    (line_no + 1, column)
}

fn leaks(files: &[&Path]) -> Value {
    let mut args = vec!["heap", "leaks"];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    args.extend(["--json", "--limit", "0"]);
    jsprof_json(&args)
}

fn groups_of<'a>(report: &'a Value, class: &str) -> Vec<&'a Value> {
    json_array(&report["groups"])
        .iter()
        .filter(|g| g["class"] == class)
        .collect()
}

fn path_text(group: &Value) -> String {
    json_array(&group["path"])
        .iter()
        .map(|s| {
            format!(
                "{}{}",
                s["class"].as_str().unwrap(),
                s["edge"].as_str().unwrap()
            )
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

#[test]
fn a_map_cache_and_set_closures_are_one_group_each() {
    const CACHE: usize = 1500;
    const CLOSURES: usize = 250;
    let [base, target, last] = triple(
        "map-set",
        "write",
        &[("CACHE", CACHE), ("CLOSURES", CLOSURES)],
    );
    let report = leaks(&[&base, &target, &last]);
    assert!(json_array(&report["warnings"]).is_empty(), "{report}");

    let cache = groups_of(&report, "CacheEntry");
    assert_eq!(cache.len(), 1, "one group for the cache: {cache:?}");
    assert_eq!(cache[0]["count"], CACHE);
    let path = path_text(cache[0]);
    assert!(
        path.contains(".app → Object.cache → Map{table} → "),
        "{path}"
    );
    assert!(
        path.ends_with("{}"),
        "the hash-table slot is folded: {path}"
    );
    // The cache is the largest leak: it ranks first.
    assert_eq!(report["groups"][0]["class"], "CacheEntry", "{report}");
    // Its rows are part of it (they make no groups of their own).
    let groups = json_array(&report["groups"]);
    assert!(
        groups
            .iter()
            .all(|g| !path_text(g).contains("CacheEntry.rows")),
        "{report}"
    );

    let (line, column) = closure_position();
    let name = format!("(anonymous) app.js:{line}:{column}");
    let closures = groups_of(&report, &name);
    assert_eq!(
        closures.len(),
        1,
        "one group for the closures named {name}: {report}"
    );
    assert_eq!(closures[0]["count"], CLOSURES);
    let path = path_text(closures[0]);
    assert!(path.contains("Object.listeners → Set{table} → "), "{path}");

    // The sample is one of the leaked objects, in FINAL.
    let sample = cache[0]["sample_id"].to_string();
    let node = jsprof_json(&[
        "heap",
        "node",
        &last.display().to_string(),
        &sample,
        "--json",
    ]);
    assert_eq!(node["nodes"][0]["name"], "CacheEntry");

    // Given out of order, the snapshots are put back in the process's order, with a warning.
    let shuffled = leaks(&[&last, &base, &target]);
    assert_eq!(shuffled["groups"], report["groups"]);
    let warnings = shuffled["warnings"].to_string();
    assert!(
        warnings.contains("object ids say the process took them as"),
        "{warnings}"
    );
    let roles: Vec<(&str, &str)> = json_array(&shuffled["snapshots"])
        .iter()
        .map(|s| (s["role"].as_str().unwrap(), s["given"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [("base", "target"), ("target", "final"), ("final", "base")]
    );

    // `heap diff` too: a reversed pair is compared the right way round, with a warning.
    let diff = |a: &Path, b: &Path| {
        jsprof_json(&[
            "heap",
            "diff",
            &a.display().to_string(),
            &b.display().to_string(),
            "--json",
            "--limit",
            "0",
        ])
    };
    let reversed = diff(&target, &base);
    assert_eq!(reversed["classes"], diff(&base, &target)["classes"]);
    assert!(
        reversed["warnings"]
            .to_string()
            .contains("was given as the base"),
        "{reversed}"
    );
    let entry = json_array(&reversed["classes"])
        .iter()
        .find(|c| c["name"] == "CacheEntry")
        .unwrap();
    assert_eq!(entry["new_count"], CACHE);
}

#[test]
fn listeners_in_a_triple_taken_by_signal_without_gc() {
    const HANDLERS: usize = 120;
    let [base, target, last] = triple("signal", "signal", &[("HANDLERS", HANDLERS)]);
    let report = leaks(&[&base, &target, &last]);
    let handlers: Vec<&Value> = json_array(&report["groups"])
        .iter()
        .filter(|g| {
            g["class"]
                .as_str()
                .unwrap()
                .starts_with("onMessage app.js:")
        })
        .collect();
    assert_eq!(handlers.len(), 1, "{report}");
    assert_eq!(handlers[0]["count"], HANDLERS);
    let path = path_text(handlers[0]);
    assert!(path.contains("EventEmitter._events"), "{path}");
    // Objects made between BASE and TARGET and dropped by FINAL are not leaks.
    assert!(groups_of(&report, "Transient").is_empty(), "{report}");
}

/// A Chrome page's snapshot given as the base of a Node process's pair. (Two runs of one Node
/// program cannot be told apart by ids: V8 numbers the objects of Node's startup snapshot alike.)
#[test]
fn snapshots_of_two_processes_are_said_to_be() {
    let fixture = |name: &str| crate::heap::input(&format!("{name}.heapsnapshot"));
    let report = jsprof_json(&[
        "heap",
        "leaks",
        &fixture("detached"),
        &fixture("leak-2-target"),
        &fixture("leak-3-final"),
        "--json",
    ]);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("are not snapshots of one process"),
        "{warnings}"
    );
}

/// A cache of 70 000 entries of 8 rows makes TARGET and FINAL about 108 MB each (Node 20).
#[test]
fn a_cache_in_snapshots_over_100_mb_is_one_group() {
    const CACHE: usize = 70_000;
    let [base, target, last] = triple("big", "write", &[("CACHE", CACHE), ("WIDTH", 8)]);
    let size = std::fs::metadata(&last).unwrap().len();
    assert!(size >= 100_000_000, "final snapshot is only {size} bytes");
    let out = jsprof_ok(&[
        "heap",
        "leaks",
        &base.display().to_string(),
        &target.display().to_string(),
        &last.display().to_string(),
        "--json",
        "--limit",
        "3",
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cache = groups_of(&report, "CacheEntry");
    assert_eq!(cache.len(), 1, "{report}");
    assert_eq!(cache[0]["count"], CACHE);
    assert_eq!(report["groups"][0]["class"], "CacheEntry");
}
