//! Issue 37 in the UI: two builds of a page compared as `jsprof diff --base A/ --target B/`
//! compares them. The service's `GET /api/ui/page-runs` and `GET /api/ui/page-diff` answer the
//! CLI's documents for the same runs (the runs named by their artifacts rather than their
//! paths) and refuse a bad request with a 400 that says what was expected; `jsprof view --base
//! A/ --target B/` opens on the comparison (`tests/node/ui-page-diff.mjs`), whose rows read as
//! the CLI's text, with a dot per run per side, and whose "open median run" opens the run the
//! diff names.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::serve::{data_dir, serve, Serve};
use crate::support::{fixtures, fresh_dir, jsprof, jsprof_json};
use crate::ui_story::columns;

/// The recorded page loads each side's runs are made of, as in `page.rs`'s
/// `mcp_page_runs_and_page_diff_are_the_clis`: three for the base, two for the target.
const SIDES: [(&str, &[&str]); 2] = [
    (
        "base",
        &[
            "trace/pageload.trace.json.gz",
            "trace/pageload-shifts.trace.json.gz",
            "trace/pageload-anim.trace.json.gz",
        ],
    ),
    (
        "target",
        &[
            "trace/pageload-bgimage.trace.json.gz",
            "trace/pageload.trace.json.gz",
        ],
    ),
];

/// `base/` and `target/` under a fresh folder, each run decompressed as `run-N.json` (what
/// `record --url URL --runs N` writes).
fn run_folders(name: &str) -> [PathBuf; 2] {
    let root = fresh_dir(name);
    SIDES.map(|(side, runs)| {
        let dir = root.join(side);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, run) in runs.iter().enumerate() {
            let mut text = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::GzDecoder::new(
                    std::fs::File::open(fixtures().join(run)).unwrap(),
                ),
                &mut text,
            )
            .unwrap();
            std::fs::write(dir.join(format!("run-{i}.json")), &text).unwrap();
        }
        dir
    })
}

/// A folder's runs in the order `diff --base DIR` reads them.
fn runs_of(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// `doc` without what names the runs (artifacts for the service, paths for the CLI): the
/// sides' `selection` (in the warnings too, which start with it) and the runs' `file`.
fn unnamed(mut doc: Value) -> Value {
    for side in ["base", "target"] {
        let Some(selection) = doc[side]["selection"].as_str().map(str::to_string) else {
            continue;
        };
        doc[side].as_object_mut().unwrap().remove("selection");
        for w in doc["warnings"].as_array_mut().unwrap() {
            *w = w.as_str().unwrap().replace(&selection, side).into();
        }
    }
    if let Some(runs) = doc.get_mut("runs").and_then(Value::as_array_mut) {
        for r in runs {
            r.as_object_mut().unwrap().remove("file");
        }
    }
    doc
}

/// Imports each file and returns its `SESSION/ARTIFACT`.
fn import_all(s: &Serve, files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| {
            let session = s.import(f);
            format!(
                "{}/{}",
                session["session_id"].as_str().unwrap(),
                session["artifacts"][0]["artifact_id"]
            )
        })
        .collect()
}

/// The service's page-load documents equal the CLI's for the same runs, to the value; each bad
/// request is a 400 that names what was expected.
#[test]
fn page_runs_and_page_diff_endpoints_are_the_clis() {
    let [base, target] = run_folders("ui-page-diff-http");
    let s = serve(&data_dir("ui-page-diff"), &[]);
    let ids = [base.as_path(), target.as_path()].map(|d| import_all(&s, &runs_of(d)).join(","));
    let other = import_all(&s, &[fixtures().join("cpu/node-mix.cpuprofile.gz")]).remove(0);
    let (b, t) = (base.to_str().unwrap(), target.to_str().unwrap());

    let runs = s
        .get_ok(&format!("/api/ui/page-runs?runs={}", ids[0]))
        .json();
    let cli_runs = jsprof_json(&["insights", b, "--json"]);
    assert_eq!(unnamed(runs.clone()), unnamed(cli_runs.clone()));
    // Each run is named by its artifact: the file's name, as the CLI names a folder's runs.
    let files = |d: &Value| -> Vec<Value> {
        d["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["file"].clone())
            .collect()
    };
    assert_eq!(files(&runs), files(&cli_runs));

    let diff = s
        .get_ok(&format!(
            "/api/ui/page-diff?base={}&target={}&alpha=0.05",
            ids[0], ids[1]
        ))
        .json();
    let cli_diff = jsprof_json(&["diff", "--base", b, "--target", t, "--json"]);
    assert_eq!(diff["metrics"], cli_diff["metrics"]);
    assert_eq!(unnamed(diff.clone()), unnamed(cli_diff));
    assert_eq!(
        diff["base"]["selection"],
        "3 files (run-0.json … run-2.json)"
    );
    // Another alpha is the CLI's `--alpha`.
    let strict = s
        .get_ok(&format!(
            "/api/ui/page-diff?base={}&target={}&alpha=0.5",
            ids[0], ids[1]
        ))
        .json();
    let cli_strict = jsprof_json(&[
        "diff", "--base", b, "--target", t, "--alpha", "0.5", "--json",
    ]);
    assert_eq!(unnamed(strict), unnamed(cli_strict));

    // The OpenAPI document describes both, with the parameters they read.
    let doc = s.get_ok("/api/openapi.json").json();
    for (path, params) in [
        ("/api/ui/page-runs", &["runs"][..]),
        ("/api/ui/page-diff", &["base", "target", "alpha"][..]),
    ] {
        let described: Vec<&str> = doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{path} is not in the OpenAPI document"))
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(described, params, "{path}");
    }

    // `view --base/--target` refuses a run that is not a trace, naming it, before it serves.
    let cpu = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let out = jsprof(&[
        "view",
        "--no-open",
        "--base",
        cpu.to_str().unwrap(),
        "--target",
        t,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("node-mix.cpuprofile.gz: a cpuprofile, not a trace"),
        "{err}"
    );

    let both = format!("base={}&target={}", ids[0], ids[1]);
    for (query, expected) in [
        (
            "/api/ui/page-runs".to_string(),
            "`runs` is required: runs=SESSION_ID/ARTIFACT_ID",
        ),
        ("/api/ui/page-runs?runs=".to_string(), "`runs` is required"),
        (
            "/api/ui/page-runs?runs=x".to_string(),
            "bad `runs` item `x`: expected SESSION_ID/ARTIFACT_ID",
        ),
        (
            format!("/api/ui/page-runs?runs={other}"),
            "is a cpuprofile, not a trace",
        ),
        (
            format!("/api/ui/page-diff?base={}", ids[0]),
            "`target` is required",
        ),
        (
            format!("/api/ui/page-diff?target={}", ids[1]),
            "`base` is required",
        ),
        (
            format!(
                "/api/ui/page-diff?base={},{other}&target={}",
                ids[0], ids[1]
            ),
            "`base`: ",
        ),
        (
            format!("/api/ui/page-diff?{both}&alpha=2"),
            "expected a significance level between 0 and 1",
        ),
        (
            format!("/api/ui/page-diff?{both}&limit=3"),
            "unknown parameter `limit`: expected base, target, alpha",
        ),
    ] {
        let r = s.get(&query).expect(400, &query);
        let message = r.message();
        assert!(message.contains(expected), "{query}: {message}");
    }
}

/// The metric rows of `jsprof diff --base A/ --target B/`'s text: metric, base, target, shift,
/// interval, q and the verdict (empty when not significant), as the page must write them.
fn cli_rows(base: &str, target: &str) -> Vec<Value> {
    let out = jsprof(&["diff", "--base", base, "--target", target]);
    assert!(out.status.success(), "jsprof diff --base --target");
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .skip_while(|l| !l.starts_with("metric "))
        .skip(1)
        .take_while(|l| !l.starts_with("medians per side"))
        .map(|l| {
            let c = columns(l);
            assert!(c.len() == 6 || c.len() == 7, "a metric row: {l}");
            json!({
                "metric": c[0], "base": c[1], "target": c[2], "shift": c[3], "ci": c[4],
                "q": c[5], "verdict": c.get(6).cloned().unwrap_or_default(),
            })
        })
        .collect();
    assert!(rows.len() >= 10, "{text}");
    rows
}

/// `jsprof view --base A/ --target B/` opens on the comparison: the CLI's rows, a dot per run
/// per side, each side's median run a click away.
#[test]
fn page_diff_in_the_browser() {
    let [base, target] = run_folders("ui-page-diff-view");
    let (b, t) = (base.to_str().unwrap(), target.to_str().unwrap());
    let Some(v) = crate::ui::view_with(&[], &["--base", b, "--target", t]) else {
        return;
    };
    let diff = jsprof_json(&["diff", "--base", b, "--target", t, "--json"]);
    let metrics = diff["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&diff["long_tasks"]]);
    let name = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    let expected = json!({
        "rows": cli_rows(b, t),
        // Runs that have the metric, per side: the dots each side draws.
        "dots": metrics.map(|m| json!([m["metric"], m["base_runs"], m["target_runs"]])).collect::<Vec<_>>(),
        "median_run": {"base": diff["base"]["median_run"], "target": diff["target"]["median_run"]},
        // Each side's runs in the order `view` imports them (the page's address lists them so).
        "runs": {"base": runs_of(&base).iter().map(name).collect::<Vec<_>>(),
                 "target": runs_of(&target).iter().map(name).collect::<Vec<_>>()},
    });
    crate::ui::node_case("ui-page-diff.mjs", "page-diff", &v.url, &expected);
}
