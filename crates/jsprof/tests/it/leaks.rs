//! `heap leaks` and `heap diff` on snapshots of real leaks, made at test time by Node: a `Map`-held
//! cache, `Set`-held closures, event listeners in a triple taken by signal without any forced GC,
//! and a cache large enough for 100 MB snapshots. The counts asserted are the ones the script
//! plants, never our own output.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{argv, assert_ok, json_array, jsprof_json, jsprof_ok};

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
    let node = jsprof_json(&argv(
        "heap node {} {} --json",
        &[&last.display().to_string(), &sample],
    ));
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
        jsprof_json(&argv(
            "heap diff {} {} --json --limit 0",
            &[&a.display().to_string(), &b.display().to_string()],
        ))
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
    let report = jsprof_json(&argv(
        "heap leaks {} {} {} --json",
        &[
            &fixture("detached"),
            &fixture("leak-2-target"),
            &fixture("leak-3-final"),
        ],
    ));
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
    let out = jsprof_ok(&argv(
        "heap leaks {} {} {} --json --limit 3",
        &[
            &base.display().to_string(),
            &target.display().to_string(),
            &last.display().to_string(),
        ],
    ));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cache = groups_of(&report, "CacheEntry");
    assert_eq!(cache.len(), 1, "{report}");
    assert_eq!(cache[0]["count"], CACHE);
    assert_eq!(report["groups"][0]["class"], "CacheEntry");
}

/// A process that runs seven steps and snapshots itself after each (`v8.writeHeapSnapshot()`,
/// Node's own `Heap.YYYYMMDD.HHMMSS.PID.TID.SEQ` names): every step leaks `LEAK` entries into a
/// `Map` that only grows, puts `LRU_ADD` fresh entries into an LRU cache bounded at `LRU_MAX`
/// (it fills by the fourth snapshot, then evicts as much as it adds), and the second step makes a
/// one-off warm-up table of `WARM` objects.
const SERIES_APP: &str = r#"
const v8 = require('v8');
const [LEAK, LRU_ADD, LRU_MAX, WARM, STEPS] = process.argv.slice(2).map(Number);
class Leaked { constructor(i) { this.i = i; this.data = { i }; } }
class LruEntry { constructor(i) { this.i = i; this.cells = [i, i + 1, i + 2]; } }
class WarmUp { constructor(i) { this.i = i; } }
const app = { leak: new Map(), lru: new Map(), warm: null };
globalThis.app = app;
function lruSet(key, value) {
  app.lru.delete(key);
  app.lru.set(key, value);
  while (app.lru.size > LRU_MAX) app.lru.delete(app.lru.keys().next().value);
}
let next = 0;
for (let step = 1; step <= STEPS; step++) {
  if (step === 2) app.warm = Array.from({ length: WARM }, (_, i) => new WarmUp(i));
  for (let i = 0; i < LEAK; i++, next++) app.leak.set('k' + next, new Leaked(next));
  for (let i = 0; i < LRU_ADD; i++) lruSet('l' + step + '/' + i, new LruEntry(i));
  v8.writeHeapSnapshot();
}
"#;

/// Issue 36's acceptance: seven snapshots of a real process; only the Map leak is growing, the
/// LRU bounded, the warm-up one-off — each group's series the counts the script planted.
#[test]
fn a_series_tells_a_growing_map_from_a_bounded_lru_and_a_warm_up() {
    const LEAK: u64 = 40;
    const LRU_ADD: u64 = 100;
    const LRU_MAX: u64 = 300;
    const WARM: u64 = 250;
    const STEPS: usize = 7;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("leaks-{}", std::process::id()))
        .join("series");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("app.js");
    std::fs::write(&script, SERIES_APP).unwrap();
    let out = Command::new("node")
        .current_dir(&dir)
        .arg(&script)
        .args([LEAK, LRU_ADD, LRU_MAX, WARM, STEPS as u64].map(|v| v.to_string()))
        .output()
        .expect("node runs");
    assert_ok(&out, "node series");
    let d = dir.display().to_string();
    let report = jsprof_json(&["heap", "leaks", &d, "--all", "--json", "--limit", "0"]);
    assert!(json_array(&report["warnings"]).is_empty(), "{report}");
    assert_eq!(report["order"], "name_timestamp", "{report}");
    let snapshots = json_array(&report["snapshots"]);
    assert_eq!(snapshots.len(), STEPS);
    // V8's ids only grow: the order by the names' times is the process's.
    let ids: Vec<u64> = snapshots
        .iter()
        .map(|s| s["max_node_id"].as_u64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");

    let groups = json_array(&report["groups"]);
    let find = |class: &str| -> &Value {
        let of: Vec<&Value> = groups.iter().filter(|g| g["class"] == class).collect();
        assert_eq!(of.len(), 1, "one group of {class}: {report}");
        of[0]
    };
    let counts = |g: &Value| -> Vec<u64> {
        json_array(&g["count"])
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect()
    };
    // Counted from the first snapshot: what each step added since.
    let leak = find("Leaked");
    let expected: Vec<u64> = (0..STEPS as u64).map(|k| k * LEAK).collect();
    assert_eq!(counts(leak), expected, "{leak}");
    assert_eq!(leak["verdict"], "growing", "{leak}");
    assert!(
        path_text(leak).contains(".app → Object.leak → Map{table} → "),
        "{}",
        path_text(leak)
    );
    // Sen's slope of a series rising by LEAK a step is LEAK a step; every later snapshot is
    // larger than every earlier one, so the p-value is exact: 1/7!.
    assert_eq!(
        leak["count_trend"]["per_snapshot"].as_f64(),
        Some(LEAK as f64)
    );
    let p = leak["count_trend"]["p_value"].as_f64().unwrap();
    assert!((p - 1.0 / 5040.0).abs() < 1e-12, "{p}");
    // Each Leaked object retains the same bytes, so the bytes rise by the same amount each step.
    let retained: Vec<f64> = json_array(&leak["retained_size"])
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let per_object = retained[1] / LEAK as f64;
    assert_eq!(
        leak["retained_trend"]["per_snapshot"].as_f64(),
        Some(per_object * LEAK as f64)
    );
    // Times from the names when they rise (Node's count whole seconds; on a fast machine two
    // snapshots share one), else from the files, which were written one after the other.
    let from = report["times_from"].as_str();
    assert!(matches!(from, Some("name_timestamp" | "mtime")), "{report}");
    assert!(leak["retained_trend"]["per_hour"].as_f64().unwrap() > 0.0);

    let lru = find("LruEntry");
    let expected: Vec<u64> = (0..STEPS as u64)
        .map(|k| (k * LRU_ADD).min(LRU_MAX))
        .collect();
    assert_eq!(counts(lru), expected, "{lru}");
    assert_eq!(lru["verdict"], "bounded", "{lru}");

    let warm = find("WarmUp");
    let expected: Vec<u64> = (0..STEPS).map(|k| if k == 0 { 0 } else { WARM }).collect();
    assert_eq!(counts(warm), expected, "{warm}");
    assert_eq!(warm["verdict"], "one-off", "{warm}");

    // Only the Map leak is growing: the default listing shows it alone.
    let growing: Vec<&Value> = groups
        .iter()
        .filter(|g| g["verdict"] == "growing")
        .collect();
    assert_eq!(growing.len(), 1, "{growing:?}");
    assert_eq!(report["verdicts"]["growing"], 1);

    // Given one by one, out of order, they are put back in order by the times in their names;
    // without --all only the growing group is listed.
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|f| f.ends_with(".heapsnapshot"))
        .collect();
    files.sort();
    files.reverse();
    let mut args = vec!["heap", "leaks"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--json", "--limit", "0"]);
    let default = jsprof_json(&args);
    assert_eq!(default["order"], "name_timestamp");
    assert_eq!(default["total"], 1, "{default}");
    assert_eq!(default["groups"][0], *leak);

    // MCP's heap_leaks with the seven handles, in the order taken: the same groups and verdicts
    // (no file times there, so no per-hour rate).
    if !crate::mcp::sdk_missing() {
        files.reverse();
        let mut steps: Vec<Value> = files
            .iter()
            .map(|f| {
                let path = std::fs::canonicalize(f).unwrap().display().to_string();
                serde_json::json!({"op": "callTool", "name": "open", "arguments": {"path": path}})
            })
            .collect();
        let handles: Vec<String> = (1..=files.len()).map(|i| format!("h{i}")).collect();
        steps.push(serde_json::json!({"op": "callTool", "name": "heap_leaks", "arguments": {"handles": handles}}));
        let r = crate::mcp::client(serde_json::json!({
            "transport": {"stdio": {"command": env!("CARGO_BIN_EXE_jsprof"), "args": [
                "mcp", "--timeout", "600", "--root", std::fs::canonicalize(&dir).unwrap().display().to_string()
            ]}},
            "steps": steps,
        }));
        let mcp = crate::mcp::doc(&r[files.len()]);
        assert_eq!(mcp["order"], "given", "{mcp}");
        let fields = |g: &Value| {
            [
                "verdict",
                "class",
                "path",
                "count",
                "retained_size",
                "sample_id",
            ]
            .map(|k| g[k].clone())
        };
        let (ours, cli) = (json_array(&mcp["groups"]), json_array(&default["groups"]));
        assert_eq!(
            ours.iter().map(fields).collect::<Vec<_>>(),
            cli.iter().map(fields).collect::<Vec<_>>()
        );
    }

    // The text report says the order and names the leak.
    let text = jsprof_ok(&["heap", "leaks", &d]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("ordered by the time in their names"),
        "{text}"
    );
    assert!(text.contains("1 growing, "), "{text}");
    assert!(text.contains("Leaked"), "{text}");

    // `check`: a growing group fails `max_growing_groups = 0`; a rate budget above the leak's
    // passes, one below fails.
    let budget = |name: &str, body: &str| {
        let file = dir.join(name);
        std::fs::write(&file, body).unwrap();
        file.display().to_string()
    };
    let check = |b: &str| crate::support::jsprof(&["check", "--budget", b, &d, "--json"]);
    let bytes = per_object * LEAK as f64;
    let tight = check(&budget(
        "tight.toml",
        &format!(
            "[leaks]\nmax_growing_groups = 0\nmax_growth_per_snapshot = {}\n",
            (bytes / 2.0) as u64
        ),
    ));
    assert_eq!(tight.status.code(), Some(1), "{tight:?}");
    let tight: Value = serde_json::from_slice(&tight.stdout).unwrap();
    let checks = json_array(&tight["checks"]);
    assert_eq!(checks.len(), 2, "{tight}");
    assert_eq!(checks[0]["value"], 1, "{tight}");
    assert_eq!(checks[1]["value"].as_f64(), Some(bytes), "{tight}");
    assert!(checks.iter().all(|c| c["status"] == "fail"), "{tight}");
    let loose = check(&budget(
        "loose.toml",
        &format!(
            "[leaks]\nmax_growing_groups = 1\nmax_growth_per_snapshot = \"{} KB\"\n",
            (bytes * 2.0 / 1024.0).ceil()
        ),
    ));
    assert_eq!(loose.status.code(), Some(0), "{loose:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program that leaks `Leaked` objects into a Map, 50 every 40 ms, for RUN_MS ms.
const EVERY_APP: &str = r#"
class Leaked { constructor(i) { this.id = i; this.payload = { at: i }; } }
globalThis.kept = new Map();
let i = 0;
const grow = setInterval(() => { for (let k = 0; k < 50; k++, i++) globalThis.kept.set(i, new Leaked(i)); }, 40);
setTimeout(() => clearInterval(grow), Number(process.env.RUN_MS));
"#;

/// Issue 36 item 1 end to end, as a CI gate would run it: `jsprof record --heap-snapshot
/// --every` of a leaking program gives a series that `heap leaks` puts in order by the numbers
/// `record` writes in the names, whatever order the files are given in; the leaked class is
/// `growing` with, in each snapshot, the count `heap summary` gives for it; `check`'s `[leaks]`
/// budget fails on it.
#[test]
fn a_series_from_record_every_finds_the_leak_in_order() {
    let dir = crate::support::fresh_dir("leaks-every");
    let script = dir.join("app.js");
    std::fs::write(&script, EVERY_APP).unwrap();
    let out = dir.join("out");
    let v = crate::record::record_within(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args([
                "record",
                "--heap-snapshot",
                "--every",
                "0.5",
                "--json",
                "-o",
            ])
            .arg(&out)
            .arg("--")
            .arg("node")
            .arg(&script)
            .env("RUN_MS", "4000"),
        180,
        "jsprof record --heap-snapshot --every",
    );
    let mut files: Vec<PathBuf> = crate::record::artifacts(&v)
        .into_iter()
        .filter(|(kind, _)| kind == "heap-snapshot")
        .map(|(_, path)| path)
        .collect();
    assert!(files.len() >= 4, "a series needs 4 snapshots: {files:?}");
    // Given newest name first: the order comes from the numbers in the names.
    files.sort();
    files.reverse();
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut args = vec!["heap", "leaks"];
    args.extend(names.iter().map(String::as_str));
    args.extend(["--all", "--json", "--limit", "0"]);
    let report = jsprof_json(&args);
    assert_eq!(report["order"], "name_number", "{report}");
    let snapshots = json_array(&report["snapshots"]);
    assert_eq!(snapshots.len(), files.len());
    // V8's ids only grow: the order by the names' numbers is the process's (two snapshots
    // after the program stopped allocating may end on the same id).
    let ids: Vec<u64> = snapshots
        .iter()
        .map(|s| s["max_node_id"].as_u64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "{ids:?}");
    assert!(ids.first() < ids.last(), "{ids:?}");

    // The Map's entries: the largest group of the class (a snapshot taken while the interval
    // runs may catch one object not yet in the Map, held by the stack: a group of its own).
    let leaked = groups_of(&report, "Leaked");
    let map = leaked[0];
    assert_eq!(map["verdict"], "growing", "{map}");
    assert!(path_text(map).contains("Map"), "{}", path_text(map));
    // Each snapshot's count is the Summary's count of the class in that file (objects made
    // before the first snapshot are the baseline: counted from 0).
    let mut counts = vec![0u64; snapshots.len()];
    for g in &leaked {
        for (k, c) in json_array(&g["count"]).iter().enumerate() {
            counts[k] += c.as_u64().unwrap();
        }
    }
    let summary_count = |file: &str| -> u64 {
        let s = jsprof_json(&["heap", "summary", file, "--json", "--limit", "0"]);
        json_array(&s["classes"])
            .iter()
            .find(|c| c["name"] == "Leaked")
            .map_or(0, |c| c["count"].as_u64().unwrap())
    };
    let in_files: Vec<u64> = snapshots
        .iter()
        .map(|s| summary_count(s["name"].as_str().unwrap()))
        .collect();
    let base = in_files[0];
    assert_eq!(
        counts,
        in_files.iter().map(|c| c - base).collect::<Vec<_>>(),
        "counts per snapshot against the Summary's {in_files:?}"
    );
    assert!(counts.windows(2).all(|w| w[0] <= w[1]) && counts.last() > counts.first());

    // The gate: no growing group allowed.
    let series = dir.join("series");
    std::fs::create_dir_all(&series).unwrap();
    for f in &files {
        std::fs::hard_link(f, series.join(f.file_name().unwrap())).unwrap();
    }
    let budget = dir.join("budget.toml");
    std::fs::write(&budget, "[leaks]\nmax_growing_groups = 0\n").unwrap();
    let gate = crate::support::jsprof(&argv("check --budget {} {} --json", &[&budget, &series]));
    assert_eq!(gate.status.code(), Some(1), "{gate:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
