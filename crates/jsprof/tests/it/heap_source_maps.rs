//! Source-mapped heap snapshots: a small multi-file program with named classes, bundled and
//! minified by esbuild (npm, installed in `tests/node`), run under Node until it writes its own
//! snapshot; then `heap summary` with and without maps. The expected names, counts and original
//! positions come from the program text this file writes, never from jsprof's output.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{assert_ok, fresh_dir, json_array, jsprof, jsprof_json};
use crate::ui::node_dir;

const CACHE_JS: &str = "\
// A cache that never forgets.
export class LeakyCache {
  constructor(limit) {
    this.limit = limit;
    this.entries = new Map();
  }
  put(key, value) {
    this.entries.set(key, value);
  }
}
";

const SESSION_JS: &str = "\
export class SessionStore {
  constructor(user) {
    this.user = user;
    this.onExpire = () => this.user;
  }
}

export class Token {
  describe() {
    return 'token';
  }
}
";

const MAIN_JS: &str = "\
import { LeakyCache } from './cache.js';
import { SessionStore, Token } from './session.js';

function run() {
  const caches = [];
  for (let i = 0; i < 3; i++) caches.push(new LeakyCache(i));
  const sessions = [];
  for (let i = 0; i < 40; i++) {
    const s = new SessionStore('user' + i);
    sessions.push(s);
    caches[i % 3].put(i, s);
  }
  const tokens = Array.from({ length: 7 }, () => new Token());
  globalThis.app = { caches, sessions, tokens };
}

const [out, timeline] = process.argv.slice(2);
if (out === 'leak') {
  // Three snapshots (`timeline` is their path's stem) while the caches keep every session put.
  run();
  for (let step = 1; step <= 3; step++) {
    for (let i = 0; i < 20; i++) {
      globalThis.app.caches[i % 3].put('late' + step + '/' + i, new SessionStore('late' + i));
    }
    require('node:v8').writeHeapSnapshot(`${timeline}-${step}.heapsnapshot`);
  }
} else if (timeline) {
  // Allocations tracked while `run` runs, then the snapshot that stopping writes.
  const { Session } = require('node:inspector');
  const fs = require('node:fs');
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
  run();
  const fd = fs.openSync(out, 'w');
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => fs.writeSync(fd, m.params.chunk));
  session.post('HeapProfiler.stopTrackingHeapObjects', { reportProgress: false });
  fs.closeSync(fd);
} else {
  run();
  require('node:v8').writeHeapSnapshot(out);
}
";

/// (original name, its file, how many the program makes, the original position V8's location
/// maps to: `constructor` where the class has one, else the `class` keyword).
const CLASSES: [(&str, &str, u64, &str); 3] = [
    ("LeakyCache", "cache.js", 3, "constructor(limit)"),
    ("SessionStore", "session.js", 40, "constructor(user)"),
    ("Token", "session.js", 7, "class Token"),
];

fn source(file: &str) -> &'static str {
    match file {
        "cache.js" => CACHE_JS,
        "session.js" => SESSION_JS,
        _ => MAIN_JS,
    }
}

/// `line:column` (1-based) of `needle` in `file`'s text.
fn position_in(file: &str, needle: &str) -> String {
    let text = source(file);
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in {file}"));
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    format!("{line}:{column}")
}

/// The program under `dir/src`, bundled with `sourcemap` (esbuild's `linked` or `inline`) to
/// `dir/out/bundle.js` and run until it wrote `dir/app.heapsnapshot`; `None` (locally) without
/// esbuild. Under CI it must be there.
fn bundled_snapshot(dir: &Path, sourcemap: &str) -> Option<(PathBuf, PathBuf)> {
    let esbuild = node_dir().join("node_modules/esbuild");
    if !esbuild.exists() {
        crate::support::skip_without(
            "esbuild",
            &format!("run `npm ci` in {}", node_dir().display()),
        );
        return None;
    }
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for file in ["cache.js", "session.js", "main.js"] {
        std::fs::write(src.join(file), source(file)).unwrap();
    }
    let bundle = dir.join("out/bundle.js");
    let build = "const [esbuild, entry, outfile, sourcemap] = process.argv.slice(1); \
        require(esbuild).buildSync({ entryPoints: [entry], bundle: true, minify: true, \
        platform: 'node', format: 'cjs', outfile, sourcemap, logLevel: 'error' });";
    let out = Command::new("node")
        .arg("-e")
        .arg(build)
        .arg(&esbuild)
        .arg(src.join("main.js"))
        .arg(&bundle)
        .arg(sourcemap)
        .output()
        .expect("run node");
    assert_ok(&out, "esbuild");
    let snapshot = run_bundle(&bundle, &dir.join("app.heapsnapshot"), false);
    Some((bundle, snapshot))
}

/// Runs the bundle until it wrote `out`: a snapshot, or with `timeline` a `.heaptimeline` of
/// its run with allocation tracking on.
fn run_bundle(bundle: &Path, out: &Path, timeline: bool) -> PathBuf {
    let mut node = Command::new("node");
    node.arg(bundle).arg(out);
    if timeline {
        node.arg("timeline");
    }
    let done = node.output().expect("run node");
    assert_ok(&done, "the bundle");
    out.to_path_buf()
}

fn summary(snapshot: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "heap",
        "summary",
        snapshot.to_str().unwrap(),
        "--json",
        "--limit",
        "0",
    ];
    args.extend_from_slice(extra);
    jsprof_json(&args)
}

fn classes(v: &Value) -> &Vec<Value> {
    json_array(&v["classes"])
}

fn the_row<'a>(v: &'a Value, source_name: &str) -> &'a Value {
    let rows: Vec<&Value> = classes(v)
        .iter()
        .filter(|c| c["source_name"] == source_name)
        .collect();
    assert_eq!(rows.len(), 1, "one row maps to {source_name}: {rows:?}");
    rows[0]
}

/// The rows without the fields the maps add: DevTools' key, name and numbers.
fn devtools_rows(v: &Value) -> Vec<Value> {
    classes(v)
        .iter()
        .map(|c| {
            let mut c = c.clone();
            let o = c.as_object_mut().unwrap();
            o.remove("source_name");
            o.remove("source_location");
            c
        })
        .collect()
}

fn warnings(v: &Value) -> Vec<String> {
    json_array(&v["warnings"])
        .iter()
        .map(|w| {
            format!(
                "{} {}",
                w["at"].as_str().unwrap(),
                w["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// Every class of the program maps to its original name, count and position; nothing else
/// about the Summary changes.
fn check_mapped(raw: &Value, mapped: &Value, dir: &Path) {
    for (name, file, count, at) in CLASSES {
        // Minified: no row carries the original name without maps.
        assert!(
            !classes(raw).iter().any(|c| c["name"] == name),
            "{name} is minified away in the bundle"
        );
        let row = the_row(mapped, name);
        assert_ne!(row["name"], name, "DevTools' name stays the generated one");
        assert_eq!(row["count"], count, "{name}: {row}");
        let location = format!(
            "{}:{}",
            dir.join("src").join(file).display(),
            position_in(file, at)
        );
        assert_eq!(row["source_location"], location.as_str(), "{name}");
    }
    assert_eq!(devtools_rows(raw), devtools_rows(mapped));
    assert_eq!(raw["total_size"], mapped["total_size"]);
    assert_eq!(raw["statistics"], mapped["statistics"]);
}

/// `heap class KEY` (SessionStore's row) with and without maps, and `heap edges` of one of its
/// objects: its `onExpire` arrow function is a closure placed in the bundle and, by the map, at
/// the arrow in session.js. Returns the mapped `heap class` document.
fn check_objects(snapshot: &Path, bundle: &Path, key: &str, dir: &Path) -> Value {
    let class = |extra: &[&str]| {
        let mut args = vec!["heap", "class", snapshot.to_str().unwrap(), key];
        args.extend_from_slice(&["--json", "--limit", "0"]);
        args.extend_from_slice(extra);
        jsprof_json(&args)
    };
    let mapped = class(&[]);
    let raw = class(&["--no-sourcemaps"]);
    let objects = json_array(&mapped["objects"]);
    assert_eq!(objects.len(), 40, "{mapped}");
    let session_js = dir.join("src/session.js").display().to_string();
    // The bundle is one minified line: V8's location is on its line 1.
    let in_bundle = format!("{}:1:", bundle.display());
    let constructor = format!(
        "{session_js}:{}",
        position_in("session.js", "constructor(user)")
    );
    for (o, r) in objects.iter().zip(json_array(&raw["objects"])) {
        let location = o["location"].as_str().unwrap_or_else(|| panic!("{o}"));
        assert!(location.starts_with(&in_bundle), "{location}");
        assert_eq!(o["source_name"], "SessionStore", "{o}");
        assert_eq!(o["source_location"], constructor.as_str(), "{o}");
        // Without maps: the same object, placed in the bundle only.
        assert_eq!(r["location"], o["location"]);
        assert!(r.get("source_name").is_none() && r.get("source_location").is_none());
    }
    // `heap node` places the object as its class's list does.
    let id = objects[0]["id"].to_string();
    let node = jsprof_json(&["heap", "node", snapshot.to_str().unwrap(), &id, "--json"]);
    let row = &node["nodes"][0];
    for field in ["location", "source_name", "source_location"] {
        assert_eq!(row[field], objects[0][field], "heap node's {field}: {node}");
    }
    // A closure: the arrow function `onExpire` holds.
    let edges = jsprof_json(&[
        "heap",
        "edges",
        snapshot.to_str().unwrap(),
        &id,
        "--json",
        "--limit",
        "0",
    ]);
    let on_expire = json_array(&edges["edges"])
        .iter()
        .find(|e| e["edge_name"] == "onExpire")
        .unwrap_or_else(|| panic!("an onExpire edge: {edges}"));
    let closure = &on_expire["object"];
    assert_eq!(closure["type"], "closure", "{closure}");
    assert!(closure["location"]
        .as_str()
        .is_some_and(|l| l.starts_with(&in_bundle)));
    let arrow = format!(
        "{session_js}:{}",
        position_in("session.js", "() => this.user")
    );
    assert_eq!(closure["source_location"], arrow.as_str(), "{closure}");
    // The text table places them in its Location and Original columns.
    let out = jsprof(&[
        "heap",
        "class",
        snapshot.to_str().unwrap(),
        key,
        "--limit",
        "3",
    ]);
    assert_ok(&out, "heap class");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Location") && text.contains(&format!("SessionStore {constructor}")),
        "{text}"
    );
    mapped
}

#[test]
fn summary_names_bundled_classes_by_their_source_maps() {
    let dir = fresh_dir("heap-sourcemap-linked");
    let Some((bundle, snapshot)) = bundled_snapshot(&dir, "linked") else {
        return;
    };
    let raw = summary(&snapshot, &["--no-sourcemaps"]);
    let mapped = summary(&snapshot, &[]);
    check_mapped(&raw, &mapped, &dir);
    let said = warnings(&mapped);
    assert!(
        said.iter()
            .any(|w| w.starts_with(&format!("{} source map applied", bundle.display()))),
        "{said:?}"
    );
    // `view` (the service, on the user's own file) answers the same document.
    let (view, artifact) = crate::view::viewing(&snapshot, &[], &dir);
    let served = view
        .get(&format!("{}/heap/summary?limit=0", artifact.path))
        .expect(200, "view's Summary");
    assert_eq!(served.json(), mapped, "view's Summary is not the CLI's");
    // The objects of a class: each placed where DevTools links it (the bundle) and where the map
    // places it (the class's original), at the CLI and the service alike.
    let key = the_row(&mapped, "SessionStore")["key"].as_str().unwrap();
    let objects = check_objects(&snapshot, &bundle, key, &dir);
    let served = view
        .get(&format!(
            "{}/heap/class?key={}",
            artifact.ui_path(),
            crate::support::encode(key)
        ))
        .expect(200, "view's class objects");
    assert_eq!(served.json(), objects, "view's objects are not the CLI's");
    drop(view);
    // The heap report embeds the mapped Summary.
    let views = crate::serve::report_views(&snapshot);
    let embedded: Value = serde_json::from_slice(&views["heap_summary"]).unwrap();
    assert_eq!(embedded, mapped, "the report's Summary is not the CLI's");
    // The UI's Summary shows each mapped class's original name and position beside DevTools'.
    if let Some(v) = crate::ui::view(std::slice::from_ref(&snapshot)) {
        // With SessionStore's objects (`heap class`), whose rows show their class's original.
        let mut expected = mapped.clone();
        expected["objects"] = objects;
        crate::ui::node_case("ui-heap.mjs", "original", &v.url, &expected);
    }
    // The text table shows the original beside DevTools' row.
    let out = jsprof(&[
        "heap",
        "summary",
        snapshot.to_str().unwrap(),
        "--limit",
        "0",
    ]);
    assert_ok(&out, "heap summary");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Original") && text.contains("LeakyCache "),
        "{text}"
    );

    // The allocation stacks of a timeline of the same bundle: its functions by their original
    // names, at their original positions (`run`'s name, the classes' `constructor`).
    let timeline = run_bundle(&bundle, &dir.join("app.heaptimeline"), true);
    let allocations = jsprof_json(&[
        "heap",
        "allocations",
        timeline.to_str().unwrap(),
        "--bottom-up",
        "--json",
    ]);
    let stacks = json_array(&allocations["stacks"]);
    for (name, file, at) in [
        ("run", "main.js", "run()"),
        ("LeakyCache", "cache.js", "constructor(limit)"),
        ("SessionStore", "session.js", "constructor(user)"),
    ] {
        let stack = stacks
            .iter()
            .find(|s| s["source_name"] == name)
            .unwrap_or_else(|| panic!("an allocating function named {name}: {allocations}"));
        assert_ne!(stack["name"], name);
        let location = format!(
            "{}:{}",
            dir.join("src").join(file).display(),
            position_in(file, at)
        );
        assert_eq!(stack["source_location"], location.as_str(), "{name}");
    }
    let unmapped = jsprof_json(&[
        "heap",
        "allocations",
        timeline.to_str().unwrap(),
        "--bottom-up",
        "--json",
        "--no-sourcemaps",
    ]);
    assert!(!json_array(&unmapped["stacks"])
        .iter()
        .any(|s| s.get("source_name").is_some()));

    // Leaks: the sessions the caches keep, found over three snapshots (and as a series), by
    // their class's original, held through the original LeakyCache.
    let stem = dir.join("leak");
    let done = Command::new("node")
        .arg(&bundle)
        .arg("leak")
        .arg(&stem)
        .output()
        .expect("run node");
    assert_ok(&done, "the bundle's leak");
    let snaps: Vec<String> = (1..=3)
        .map(|k| format!("{}-{k}.heapsnapshot", stem.display()))
        .collect();
    let constructor = |file: &str, at: &str| {
        format!(
            "{}:{}",
            dir.join("src").join(file).display(),
            position_in(file, at)
        )
    };
    for series in [false, true] {
        let mut args = vec!["heap", "leaks"];
        args.extend(snaps.iter().map(String::as_str));
        args.extend(["--json", "--limit", "0"]);
        if series {
            args.extend(["--series", "--all"]);
        }
        let leaks = jsprof_json(&args);
        let group = json_array(&leaks["groups"])
            .iter()
            .find(|g| g["source_name"] == "SessionStore")
            .unwrap_or_else(|| panic!("a SessionStore group: {leaks}"));
        assert_ne!(group["class"], "SessionStore", "DevTools' class stays");
        assert_eq!(
            group["source_location"],
            constructor("session.js", "constructor(user)").as_str()
        );
        let through = json_array(&group["path"])
            .iter()
            .find(|p| p["source_name"] == "LeakyCache")
            .unwrap_or_else(|| panic!("held through LeakyCache: {group}"));
        assert_eq!(
            through["source_location"],
            constructor("cache.js", "constructor(limit)").as_str()
        );
        if !series {
            // Found by `heap leaks` (BASE TARGET FINAL): the sessions put between the first two.
            assert_eq!(group["count"], 20, "{group}");
        }
    }
    let mut args = vec!["heap", "leaks"];
    args.extend(snaps.iter().map(String::as_str));
    let text = String::from_utf8_lossy(&jsprof(&args).stdout).to_string();
    assert!(
        text.contains("LeakyCache.entries") && text.contains("Original"),
        "{text}"
    );

    // A broken map: a warning naming it, the Summary as DevTools has it, exit 0.
    let map = bundle.with_extension("js.map");
    // Beside `out/`, so that its sources (`../src/…`) resolve to the same files.
    let good = dir.join("given/bundle.js.map");
    std::fs::create_dir_all(good.parent().unwrap()).unwrap();
    std::fs::rename(&map, &good).unwrap();
    std::fs::write(&map, "{not a source map").unwrap();
    let broken = summary(&snapshot, &[]);
    assert_eq!(devtools_rows(&broken), devtools_rows(&raw));
    assert!(!classes(&broken)
        .iter()
        .any(|c| c.get("source_name").is_some()));
    let said = warnings(&broken);
    assert!(
        said.iter()
            .any(|w| w.contains("source map missing") && w.contains(&map.display().to_string())),
        "{said:?}"
    );
    // The map given with --sourcemap (matched by its name, bundle.js.map) wins over the comment.
    check_mapped(
        &raw,
        &summary(&snapshot, &["--sourcemap", good.to_str().unwrap()]),
        &dir,
    );

    // A bundle rebuilt since the snapshot is not mapped: its positions would be another text's.
    let mut text = std::fs::read(&bundle).unwrap();
    text.insert(0, b'\n');
    std::fs::write(&bundle, text).unwrap();
    let rebuilt = summary(&snapshot, &["--sourcemap", good.to_str().unwrap()]);
    assert!(!classes(&rebuilt)
        .iter()
        .any(|c| c.get("source_name").is_some()));
    let said = warnings(&rebuilt);
    assert!(
        said.iter()
            .any(|w| w.contains("is not the script the snapshot ran")),
        "{said:?}"
    );
}

#[test]
fn summary_reads_an_inline_map() {
    let dir = fresh_dir("heap-sourcemap-inline");
    let Some((bundle, snapshot)) = bundled_snapshot(&dir, "inline") else {
        return;
    };
    assert!(!bundle.with_extension("js.map").exists());
    let raw = summary(&snapshot, &["--no-sourcemaps"]);
    check_mapped(&raw, &summary(&snapshot, &[]), &dir);
}
