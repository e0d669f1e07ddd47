//! `jsprof lines`: per-line self time against DevTools' Sources gutter (`LineLevelProfile`, run
//! by `tools/oracle/lines-oracle.ts` into `fixtures/**/X.lines.devtools.json.gz`) to the
//! nanosecond, the text of a
//! program profiled now, and a bundle's lines moved to the original files by its source map.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{fixtures, golden, jsprof, jsprof_json};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lines-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn functions(doc: &Value) -> &Vec<Value> {
    doc["functions"].as_array().unwrap()
}

/// Every function's lines, added up per (script, line) as the gutter adds them, equal DevTools'
/// numbers, line for line; no line is missing on either side.
#[test]
fn every_line_is_the_devtools_gutter() {
    for input in [
        "cpu/tsc.cpuprofile.gz",
        "cpu/node-mix.cpuprofile.gz",
        "diff/before.cpuprofile.gz",
    ] {
        let path = fixtures().join(input);
        let oracle = golden(&fixtures().join(format!(
            "{}.lines.devtools.json.gz",
            input.strip_suffix(".gz").unwrap()
        )));
        // `^` matches every name, the anonymous ones too.
        let doc = jsprof_json(&[
            "lines",
            path.to_str().unwrap(),
            "--function",
            "^",
            "--limit",
            "0",
            "--no-source",
            "--json",
        ]);
        assert_eq!(doc["kind"], "cpuprofile");
        let tick = (oracle["profile_end_ms"].as_f64().unwrap()
            - oracle["profile_start_ms"].as_f64().unwrap())
            / oracle["total_hit_count"].as_f64().unwrap();
        // The model keeps whole nanoseconds: the last sample's average interval is rounded to
        // one, so the profile's span is within half a nanosecond of DevTools' float.
        assert!(
            (doc["tick_ms"].as_f64().unwrap() - tick).abs()
                * oracle["total_hit_count"].as_f64().unwrap()
                < 1e-6,
            "{input}: tick {} vs DevTools' {tick}",
            doc["tick_ms"]
        );
        let mut ours: BTreeMap<(String, u64), f64> = BTreeMap::new();
        for f in functions(&doc) {
            let url = f["url"].as_str().unwrap();
            let mut sum = 0.0;
            for l in f["lines"].as_array().unwrap() {
                let ms = l["self_ms"].as_f64().unwrap();
                sum += ms;
                *ours
                    .entry((url.to_string(), l["line"].as_u64().unwrap()))
                    .or_default() += ms;
            }
            if !url.is_empty() {
                let lines_ms = f["lines_self_ms"].as_f64().unwrap();
                assert!((sum - lines_ms).abs() < 1e-6, "{input}: {f}");
            }
        }
        let mut theirs: BTreeMap<(String, u64), f64> = BTreeMap::new();
        for (url, lines) in oracle["scripts"].as_object().unwrap() {
            for l in lines.as_array().unwrap() {
                theirs.insert(
                    (url.clone(), l[0].as_u64().unwrap()),
                    l[1].as_f64().unwrap(),
                );
            }
        }
        assert!(theirs.len() > 20, "{input}: {} lines", theirs.len());
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{input}: the lines with time"
        );
        for (k, v) in &theirs {
            // Within a nanosecond (see the tick above).
            assert!(
                (ours[k] - v).abs() <= 1e-6,
                "{input}: {k:?} ours {} DevTools {v}",
                ours[k]
            );
        }
    }
}

/// The function's own self and total are `top`'s, and its line ticks are V8's counts: the
/// `hitCount`s of the file's nodes of that function (the gutter's ticks; V8 counts them apart
/// from the samples, so their time is not `top`'s self time).
#[test]
fn a_functions_numbers_are_tops_and_its_ticks_v8s() {
    let file = fixtures().join("cpu/tsc.cpuprofile.gz");
    let path = file.to_str().unwrap();
    let top = jsprof_json(&["top", path, "--json", "--limit", "5"]);
    let doc = jsprof_json(&[
        "lines",
        path,
        "--function",
        "^(scan|bind)$",
        "--no-source",
        "--json",
    ]);
    assert_eq!(functions(&doc).len(), 2);
    let raw = golden(&file);
    for f in functions(&doc) {
        let row = top["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == f["name"] && r["url"] == f["url"] && r["line"] == f["line"])
            .unwrap_or_else(|| panic!("{} is in top 5", f["name"]));
        for k in [
            "column",
            "self_ms",
            "total_ms",
            "self_percent",
            "total_percent",
        ] {
            assert_eq!(f[k], row[k], "{k} of {}", f["name"]);
        }
        let hits: u64 = raw["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| {
                let cf = &n["callFrame"];
                cf["functionName"] == f["name"]
                    && cf["url"] == f["url"]
                    && cf["lineNumber"].as_u64().map(|l| l + 1) == f["line"].as_u64()
                    && cf["columnNumber"].as_u64().map(|c| c + 1) == f["column"].as_u64()
            })
            .map(|n| n["hitCount"].as_u64().unwrap())
            .sum();
        assert!(hits > 5, "{}: {hits} hits", f["name"]);
        assert_eq!(f["ticks"].as_u64().unwrap(), hits, "{}", f["name"]);
        let lines = f["lines"].as_array().unwrap();
        let max = lines
            .iter()
            .map(|l| l["ticks"].as_u64().unwrap())
            .max()
            .unwrap();
        let hottest = lines
            .iter()
            .find(|l| l["line"] == f["hottest_line"])
            .unwrap();
        assert_eq!(hottest["ticks"].as_u64().unwrap(), max);
    }
}

/// A program profiled now, its file on disk: the text printed is the file's, the hot loop's line
/// is the hottest, and the human table shows the same numbers.
#[test]
fn a_local_programs_lines_with_their_text() {
    let dir = scratch("local");
    let source = dir.join("spin.js");
    std::fs::write(
        &source,
        "function cold(n) {\n\
         \x20 return n + 1;\n\
         }\n\
         function spin(ms) {\n\
         \x20 const end = Date.now() + ms;\n\
         \x20 let x = 0;\n\
         \x20 while (Date.now() < end) x = cold(x) % 7;\n\
         \x20 return x;\n\
         }\n\
         spin(300);\n",
    )
    .unwrap();
    let status = Command::new("node")
        .args([
            "--cpu-prof",
            "--cpu-prof-interval",
            "200",
            "--cpu-prof-name",
            "spin.cpuprofile",
        ])
        .arg("--cpu-prof-dir")
        .arg(&dir)
        .arg(&source)
        .status()
        .expect("node");
    assert!(status.success());
    let profile = dir.join("spin.cpuprofile");
    let profile = profile.to_str().unwrap();
    let doc = jsprof_json(&["lines", profile, "--function", "^spin$", "--json"]);
    let f = &functions(&doc)[0];
    assert_eq!(f["line"], 4);
    assert_eq!(
        Path::new(f["source_file"].as_str().unwrap()),
        source.as_path()
    );
    let text = std::fs::read_to_string(&source).unwrap();
    let file: Vec<&str> = text.lines().collect();
    let lines = f["lines"].as_array().unwrap();
    // From 3 lines before the function to 3 after its last ticked line, every one with its text.
    assert_eq!(lines[0]["line"], 1);
    for l in lines {
        let n = l["line"].as_u64().unwrap() as usize;
        assert_eq!(l["text"], file[n - 1], "line {n}");
    }
    assert_eq!(f["hottest_line"], 7, "{f}");
    let ticks: u64 = lines.iter().map(|l| l["ticks"].as_u64().unwrap()).sum();
    assert_eq!(ticks, f["ticks"].as_u64().unwrap());
    let tick = doc["tick_ms"].as_f64().unwrap();
    for l in lines {
        let t = l["ticks"].as_u64().unwrap() as f64;
        assert!((l["self_ms"].as_f64().unwrap() - t * tick).abs() < 1e-9);
    }
    // The table: the hottest line marked, with its time as the JSON has it.
    let out = jsprof(&["lines", profile, "--function", "^spin$"]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let hot = table
        .lines()
        .find(|l| l.contains(" ▶ "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(hot.contains("while (Date.now() < end)"), "{hot}");
    let hot_ms = lines.iter().find(|l| l["line"] == 7).unwrap()["self_ms"]
        .as_f64()
        .unwrap();
    assert!(
        hot.trim_start().starts_with(&format!("{hot_ms:.1} ms"))
            || hot.trim_start().starts_with(&format!("{hot_ms:.2} ms")),
        "{hot} vs {hot_ms}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Without the file, the ticked lines are still listed, and the note says why; a pattern that
/// matches nothing, an input without ticks and a bad pattern are clear errors or notes.
#[test]
fn missing_sources_and_bad_requests() {
    let path = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let path = path.to_str().unwrap();
    // The profile was recorded elsewhere: /tmp/rec/work.js is not on this machine.
    let doc = jsprof_json(&["lines", path, "--function", "^fib$", "--json"]);
    let f = &functions(&doc)[0];
    assert!(f["source_file"].is_null());
    assert!(
        f["source_note"].as_str().unwrap().contains("work.js"),
        "{f}"
    );
    assert!(!f["lines"].as_array().unwrap().is_empty());
    assert!(f["lines"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["text"].is_null() && l["ticks"].as_u64().unwrap() > 0));
    let out = jsprof(&["lines", path, "--function", "^no such function$"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no function's name matches"));
    let out = jsprof(&["lines", path, "--function", "("]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular expression"));
    // A JS Self-Profiling trace has no positionTicks: numbers of the function, a note, no lines.
    let sp = fixtures().join("selfprofile/mdn-example.jsprofile.json");
    let doc = jsprof_json(&[
        "lines",
        sp.to_str().unwrap(),
        "--function",
        "^isPrime$",
        "--json",
    ]);
    assert!(doc["tick_ms"].is_null());
    assert!(doc["note"].as_str().unwrap().contains("positionTicks"));
    assert_eq!(functions(&doc)[0]["ticks"], 0);
}

/// A bundle (not minified, so that its lines map to lines) profiled now: the ticks move with
/// their frames to the original files, and the text is the original's.
#[test]
fn a_bundles_lines_land_in_the_original_files() {
    let node = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    if !node.join("node_modules/esbuild").exists() {
        crate::support::skip_without("esbuild", &format!("run `npm ci` in {}", node.display()));
        return;
    }
    let dir = scratch("bundle");
    let bundle = dir.join("bundle.js");
    let out = Command::new("node")
        .arg(node.join("bundle.mjs"))
        .arg(&bundle)
        .arg("lines")
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = Command::new("node")
        .args([
            "--no-turbo-inlining",
            "--cpu-prof",
            "--cpu-prof-interval",
            "100",
            "--cpu-prof-name",
            "bundle.cpuprofile",
        ])
        .arg("--cpu-prof-dir")
        .arg(&dir)
        .arg(&bundle)
        .status()
        .expect("node");
    assert!(status.success());
    let profile = dir.join("bundle.cpuprofile");
    let doc = jsprof_json(&[
        "lines",
        profile.to_str().unwrap(),
        "--function",
        "^weigh$",
        "--json",
    ]);
    let f = &functions(&doc)[0];
    let original = fixtures().join("sourcemap/src/lib/score.js");
    assert_eq!(
        std::fs::canonicalize(f["source_file"].as_str().unwrap()).unwrap(),
        std::fs::canonicalize(&original).unwrap()
    );
    let text = std::fs::read_to_string(&original).unwrap();
    let file: Vec<&str> = text.lines().collect();
    let lines = f["lines"].as_array().unwrap();
    for l in lines {
        let n = l["line"].as_u64().unwrap() as usize;
        assert_eq!(l["text"], file[n - 1], "line {n}");
        // weigh is lines 1-6 of score.js: every tick lands in it (V8 puts its entry's ticks
        // on the header line).
        if l["ticks"].as_u64().unwrap() > 0 {
            assert!((1..=6).contains(&n), "a tick on line {n}: {f}");
        }
    }
    assert!(f["ticks"].as_u64().unwrap() > 10, "{f}");
    let hottest = f["hottest_line"].as_u64().unwrap() as usize;
    assert!(file[hottest - 1].contains("for ("), "{}", file[hottest - 1]);
    std::fs::remove_dir_all(&dir).ok();
}
