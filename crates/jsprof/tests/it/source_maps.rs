//! Source maps on a real bundle: `fixtures/sourcemap/src` bundled and minified by esbuild (npm,
//! installed in `tests/node`), run under `node --cpu-prof`, then read with and without maps.
//! Expected positions come from the original source text itself; times must be conserved.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{
    argv, assert_ok, fixtures, fresh_dir, json_array, jsprof, jsprof_json, node_cpu_profile,
};
use crate::ui::node_dir;

/// Bundles in `mode` (see tests/node/bundle.mjs) and profiles the bundle; `None` (locally)
/// when esbuild is not installed. Under CI it must be.
pub(crate) fn bundle_and_profile(mode: &str) -> Option<(PathBuf, PathBuf)> {
    if !node_dir().join("node_modules/esbuild").exists() {
        crate::support::skip_without(
            "esbuild",
            &format!("run `npm ci` in {}", node_dir().display()),
        );
        return None;
    }
    // One folder per test: two tests bundle the same mode at once, and a fresh folder is
    // emptied first.
    let test = std::thread::current()
        .name()
        .unwrap_or("test")
        .replace("::", "-");
    let dir = fresh_dir(&format!("sourcemap-{mode}-{test}"));
    let bundle = dir.join("bundle.js");
    let out = Command::new("node")
        .arg(node_dir().join("bundle.mjs"))
        .arg(&bundle)
        .arg(mode)
        .output()
        .expect("run node");
    assert_ok(&out, "esbuild");
    // Inlining off so that each function keeps its own samples (stable names to check), and
    // every 100 µs so that the shortest one checked (makeText, ~20 ms) is always sampled.
    let profile = node_cpu_profile(
        &bundle,
        &["--no-turbo-inlining"],
        100,
        &dir,
        "bundle.cpuprofile",
    );
    Some((profile, bundle))
}

fn top(profile: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["top", "--json", "--limit", "0", profile.to_str().unwrap()];
    args.extend_from_slice(extra);
    jsprof_json(&args)
}

fn rows(top: &Value) -> &Vec<Value> {
    json_array(&top["functions"])
}

/// (line, identifier column, `(` column), 1-based, of `function NAME(` in a source file.
fn position_of(file: &str, name: &str) -> (u64, u64, u64) {
    let text = std::fs::read_to_string(fixtures().join("sourcemap/src").join(file)).unwrap();
    let needle = format!("function {name}(");
    for (i, line) in text.lines().enumerate() {
        if let Some(at) = line.find(&needle) {
            let ident = at + "function ".len();
            return (
                (i + 1) as u64,
                (ident + 1) as u64,
                (ident + name.len() + 1) as u64,
            );
        }
    }
    panic!("{name} not in {file}");
}

fn check_mapped(profile: &Path, extra: &[&str]) {
    let raw = top(profile, &["--no-sourcemaps"]);
    let mapped = top(profile, extra);
    // Nothing moves in time.
    assert_eq!(raw["duration_ms"], mapped["duration_ms"]);
    let self_sum = |t: &Value| {
        rows(t)
            .iter()
            .map(|f| f["self_ms"].as_f64().unwrap())
            .sum::<f64>()
    };
    assert!((self_sum(&raw) - self_sum(&mapped)).abs() < 1e-6);
    // Every generated frame's time is conserved: the bundle's functions map one to one onto
    // original functions (esbuild keeps one function per function), so the multiset of their
    // (self, total) times is the same before and after mapping.
    let is_bundle = |f: &&Value| f["url"].as_str().unwrap().ends_with("/bundle.js");
    let is_source = |f: &&Value| {
        f["url"]
            .as_str()
            .unwrap()
            .contains("fixtures/sourcemap/src/")
    };
    let mut before: Vec<(String, String)> = rows(&raw)
        .iter()
        .filter(is_bundle)
        .map(|f| (f["self_ms"].to_string(), f["total_ms"].to_string()))
        .collect();
    let mut after: Vec<(String, String)> = rows(&mapped)
        .iter()
        .filter(|f| is_bundle(f) || is_source(f))
        .map(|f| (f["self_ms"].to_string(), f["total_ms"].to_string()))
        .collect();
    before.sort();
    after.sort();
    assert_eq!(before, after);
    assert!(
        !rows(&mapped).iter().any(|f| is_bundle(&f)),
        "a bundle frame was left unmapped"
    );
    // The hot functions under their own names, files and positions (minified, the bundle had
    // one-letter names).
    for (file, name) in [
        ("lib/score.js", "score"),
        ("lib/tokenize.js", "tokenize"),
        ("main.js", "runWorkload"),
        ("main.js", "makeText"),
    ] {
        let f = rows(&mapped)
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in the mapped profile: {mapped}"));
        let url = f["url"].as_str().unwrap();
        assert!(
            url.ends_with(&format!("fixtures/sourcemap/src/{file}")),
            "{url}"
        );
        let (line, ident, paren) = position_of(file, name);
        assert_eq!(f["line"].as_u64(), Some(line), "{name}");
        let col = f["column"].as_u64().unwrap();
        assert!(
            col == ident || col == paren,
            "{name}: column {col}, expected {ident} or {paren}"
        );
        assert!(
            !rows(&raw).iter().any(|g| g["name"] == name),
            "{name} was not minified"
        );
    }
    // The output says what was mapped.
    let notes = json_array(&mapped["warnings"]);
    assert!(
        notes
            .iter()
            .any(|w| w["at"].as_str().unwrap().ends_with("/bundle.js")
                && w["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("source map applied:")),
        "{notes:?}"
    );
}

#[test]
fn linked_map_next_to_the_bundle() {
    let Some((profile, _)) = bundle_and_profile("external") else {
        return;
    };
    check_mapped(&profile, &[]);
    // Every view takes the original names (tree, filters on the original name).
    let tree = jsprof_json(&argv("tree --json {} --focus ^score$", &[&profile]));
    assert_eq!(tree["nodes"][0]["name"], "score");
}

#[test]
fn inline_data_url_map() {
    let Some((profile, _)) = bundle_and_profile("inline") else {
        return;
    };
    check_mapped(&profile, &[]);
}

#[test]
fn map_given_with_sourcemap_and_missing_maps() {
    let Some((profile, bundle)) = bundle_and_profile("none-comment") else {
        return;
    };
    // No comment: nothing is mapped, and nothing is said.
    let t = top(&profile, &[]);
    assert!(rows(&t)
        .iter()
        .any(|f| f["url"].as_str().unwrap().ends_with("/bundle.js")));
    // The map by file or by folder.
    let map = bundle.with_extension("js.map");
    check_mapped(&profile, &["--sourcemap", map.to_str().unwrap()]);
    check_mapped(
        &profile,
        &["--sourcemap", bundle.parent().unwrap().to_str().unwrap()],
    );
    // The same map as the second section of an index map whose first section has a source and a
    // name of its own: source and name indices follow the sections.
    let plain: Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    let index = serde_json::json!({"version": 3, "sections": [
        {"offset": {"line": 0, "column": 0},
         "map": {"version": 3, "sources": ["other.ts"], "names": ["other"], "mappings": ""}},
        {"offset": {"line": 0, "column": 0}, "map": plain},
    ]});
    let dir = bundle.parent().unwrap().join("index-map");
    std::fs::create_dir_all(&dir).unwrap();
    let index_map = dir.join("bundle.js.map");
    std::fs::write(&index_map, index.to_string()).unwrap();
    check_mapped(&profile, &["--sourcemap", index_map.to_str().unwrap()]);
    // A comment naming a map that is not there: a warning naming it; exit 0, generated frames.
    std::fs::write(&bundle, {
        let mut text = std::fs::read(&bundle).unwrap();
        text.extend_from_slice(b"\n//# sourceMappingURL=gone.js.map\n");
        text
    })
    .unwrap();
    let t = top(&profile, &[]);
    let w = json_array(&t["warnings"]);
    assert!(
        w.iter()
            .any(|w| w["message"].as_str().unwrap().contains("gone.js.map")),
        "{w:?}"
    );
    // A map on the network is never fetched.
    let text = std::fs::read_to_string(&bundle)
        .unwrap()
        .replace("gone.js.map", "https://example.invalid/bundle.js.map");
    std::fs::write(&bundle, text).unwrap();
    let out = jsprof(&["top", profile.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not fetched"));
}

/// The mapped `top` of a profile as the CLI prints it.
fn cli_top(profile: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["top", profile.to_str().unwrap(), "--limit", "0", "--json"];
    args.extend_from_slice(extra);
    crate::serve::cli(&args)
}

/// Every front door applies the maps the CLI applies: `jsprof view` (the user's own files: maps
/// next to their scripts), `jsprof report`, and `jsprof serve` (an upload gets only the maps of
/// `--sourcemap-dir`; without it, it stays minified, as the server must not read paths an upload
/// names) — each answering exactly the CLI's mapped `top`.
#[test]
fn view_report_and_service_apply_source_maps() {
    let Some((profile, bundle)) = bundle_and_profile("external") else {
        return;
    };
    let mapped = cli_top(&profile, &[]);
    let generated = cli_top(&profile, &["--no-sourcemaps"]);
    assert_ne!(mapped, generated);
    let names = |doc: &[u8]| -> Vec<String> {
        let v: Value = serde_json::from_slice(doc).unwrap();
        rows(&v)
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names(&mapped).iter().any(|n| n == "tokenize"));

    // The report embeds the mapped document.
    let views = crate::serve::report_views(&profile);
    assert_eq!(views["top"], mapped.strip_suffix(b"\n").unwrap());

    // `jsprof view`: the page's data is the mapped profile.
    let view = crate::serve::start(&[
        "view",
        profile.to_str().unwrap(),
        "--no-open",
        "--port",
        "0",
    ]);
    let sessions = view.get("/api/sessions").json();
    let id = sessions["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let top = view.get(&format!("/api/sessions/{id}/artifacts/1/top?limit=0"));
    assert_eq!(top.status, 200);
    assert_eq!(top.body, mapped, "view");
    // The UI's trees too.
    let doc = view
        .get(&format!("/api/ui/sessions/{id}/artifacts/1/profile"))
        .json();
    let strings: Vec<&str> = json_array(&doc["strings"])
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        strings.contains(&"tokenize"),
        "the UI's trees are not mapped"
    );
    drop(view);

    // `jsprof serve`: an upload with and without `--sourcemap-dir`.
    let maps = bundle.parent().unwrap();
    for (extra, want) in [
        (vec!["--sourcemap-dir", maps.to_str().unwrap()], &mapped),
        (vec![], &generated),
    ] {
        let dir = crate::serve::data_dir(&format!("maps-{}", extra.len()));
        let s = crate::serve::serve(&dir, &extra);
        let id = s.import(&profile)["session_id"]
            .as_str()
            .unwrap()
            .to_string();
        let top = s.get(&format!("/api/sessions/{id}/artifacts/1/top?limit=0"));
        assert_eq!(top.status, 200);
        assert_eq!(&top.body, want, "serve {extra:?}");
    }
}
