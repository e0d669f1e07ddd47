//! The page-load commands at the CLI's front door: `summary` and `report` carry the page,
//! `insights`, `network` and `timings` refuse a profile, answer as the service does, and
//! `check`'s page budgets read DevTools' numbers. The engine's numbers themselves are checked
//! against DevTools' trace engine by the reference tests, which call the libraries
//! (`crates/jsprof_pageload/tests/reference`).

use serde_json::Value;

pub(crate) use crate::page_loads::assert_network_tree_matches;
use crate::page_loads::{close, input, oracle, MS, PAGE_LOADS, SCORE};
use crate::support::{argv, fixtures, jsprof, jsprof_json, refused, report_data, temp_file};

/// `summary` of a page load names LCP, CLS and INP (the oracle's) and its worst insight: the
/// first that fails, in the sidebar's order, by the oracle's states. `report` embeds the
/// `insights`, `network` and `timings` documents as the CLI prints them.
#[test]
fn summary_and_report_carry_the_page() {
    for name in PAGE_LOADS {
        let want = oracle(name);
        let summary = jsprof_json(&["summary", &input(name), "--json"]);
        let p = &summary["page"];
        let wm = &want["navigations"][0]["metrics"];
        let wi = &want["insights"][want["navigations"][0]["id"].as_str().unwrap()];
        close(
            &p["lcp_ms"],
            &wm["LCP"]["value_ms"],
            MS,
            &format!("{name} LCP"),
        );
        assert_eq!(p["lcp_rating"], wm["LCP"]["classification"], "{name}");
        close(
            &p["cls"],
            &wm["CLS"]["score"],
            SCORE,
            &format!("{name} CLS"),
        );
        close(
            &p["inp_ms"],
            &wm["INP"]["value_ms"],
            MS,
            &format!("{name} INP"),
        );
        let failing: Vec<&str> = [
            ("lcp_discovery", "LCPDiscovery"),
            ("cls_culprits", "CLSCulprits"),
            ("render_blocking", "RenderBlocking"),
            ("document_latency", "DocumentLatency"),
            ("forced_reflow", "ForcedReflow"),
            ("image_delivery", "ImageDelivery"),
            ("font_display", "FontDisplay"),
            ("viewport", "Viewport"),
            ("cache", "Cache"),
            ("character_set", "CharacterSet"),
            ("modern_http", "ModernHTTP"),
            ("duplicated_javascript", "DuplicatedJavaScript"),
            ("legacy_javascript", "LegacyJavaScript"),
        ]
        .into_iter()
        .filter(|(_, key)| wi[key]["state"] == "fail")
        .map(|(ours, _)| ours)
        .collect();
        assert!(
            !failing.is_empty(),
            "{name}: the fixtures fail some insight"
        );
        assert_eq!(p["failing_insights"], serde_json::json!(failing), "{name}");
        let worst = p["worst_insight"].as_str().unwrap();
        assert!(
            worst.starts_with(&format!("{}: ", failing[0])),
            "{name}: {worst}"
        );

        let data = report_data(&[&input(name)]);
        for view in ["insights", "network", "timings"] {
            let cli = jsprof_json(&[view, &input(name), "--json"]);
            assert_eq!(data["views"][view], cli, "{name}: report's {view}");
        }
    }
}

#[test]
fn a_profile_is_not_a_page_load() {
    let profile = fixtures().join("cpu/node-mix.cpuprofile.gz");
    for cmd in ["insights", "network", "timings"] {
        let err = refused(&[cmd, profile.to_str().unwrap(), "--json"]);
        assert!(
            err.contains("node-mix.cpuprofile.gz") && err.contains("not a Chrome trace"),
            "{err}"
        );
    }
}

/// The service answers the same bytes as the CLI, and lists the endpoints in its OpenAPI document.
#[test]
fn the_service_answers_the_cli_documents() {
    let dir = crate::serve::data_dir("pagestory");
    let s = crate::serve::serve(&dir, &[]);
    let file = fixtures().join("trace/pageload.trace.json.gz");
    let f = file.to_str().unwrap();
    let id = s.import(&file)["session_id"].as_str().unwrap().to_string();
    let strip = |mut v: Vec<u8>| {
        while v.last() == Some(&b'\n') {
            v.pop();
        }
        v
    };
    for view in ["insights", "network", "timings"] {
        let r = s
            .get(&format!("/api/sessions/{id}/artifacts/1/{view}"))
            .expect(200, view);
        let cli = jsprof(&[view, f, "--json"]);
        assert!(cli.status.success());
        assert!(
            strip(r.body.clone()) == strip(cli.stdout),
            "{view}: the service and the CLI differ"
        );
    }
    let doc = s.get("/api/openapi.json").json();
    for view in ["insights", "network", "timings"] {
        let path = format!("/api/sessions/{{id}}/artifacts/{{artifact}}/{view}");
        assert!(
            doc["paths"].get(&path).is_some(),
            "{path} is not in the OpenAPI document"
        );
    }
}

/// `jsprof check`'s `[page]` budgets read the oracle's numbers: LCP 1260.6 ms, INP 170.5 ms,
/// CLS 0.158, 8 requests in the recorded page load.
#[test]
fn page_budgets_pass_and_fail_at_devtools_numbers() {
    let want = oracle("trace/pageload.trace");
    let nav = &want["navigations"][0]["metrics"];
    let lcp = nav["LCP"]["value_ms"].as_f64().unwrap();
    let inp = nav["INP"]["value_ms"].as_f64().unwrap();
    let cls = nav["CLS"]["score"].as_f64().unwrap();
    let requests = want["network"].as_array().unwrap().len();
    let trace = input("trace/pageload.trace");
    let run = |toml: String| {
        let budget = temp_file("page-budget.toml", toml.as_bytes());
        jsprof(&argv("check {} --budget {} --json", &[&trace, &budget]))
    };
    // Just above each number: every budget holds.
    let out = run(format!(
        "[page]\nmax_lcp_ms = {}\nmax_inp_ms = {}\nmax_cls = {}\nmax_requests = {requests}\n",
        lcp + 0.01,
        inp + 0.01,
        cls + 0.001
    ));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Just below: each fails.
    let out = run(format!(
        "[page]\nmax_lcp_ms = {}\nmax_inp_ms = {}\nmax_cls = {}\nmax_requests = {}\n",
        lcp - 0.01,
        inp - 0.01,
        cls - 0.001,
        requests - 1
    ));
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["LCP", "INP", "CLS", "requests"]);
    // A profile has no page load: the budget is skipped, and a file of only it is an error.
    let profile = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let budget = temp_file("page-only.toml", b"[page]\nmax_lcp_ms = 1\n");
    let out = jsprof(&argv("check {} --budget {}", &[&profile, &budget]));
    assert_eq!(out.status.code(), Some(2));
}

/// `insights DIR`: the runs of a page load as a distribution. The runs here are recorded page
/// loads (one twice, as a lab's identical runs would be); each metric's median and p75 equal
/// those of DevTools' trace engine's values per run (the oracle's), each insight's failing count
/// the engine's states, and each run's row its own `insights --json`.
#[test]
fn a_folder_of_runs_is_a_distribution_with_devtools_numbers() {
    let runs = [
        "trace/pageload.trace",
        "trace/pageload.trace",
        "trace/pageload-shifts.trace",
        "trace/pageload-anim.trace",
        "trace/pageload-bgimage.trace",
    ];
    let dir = runs_dir("page-runs");
    std::fs::write(dir.join("manifest.json"), b"{\"url\": \"not a trace\"}").unwrap();
    for (i, name) in runs.iter().enumerate() {
        std::fs::copy(input(name), dir.join(format!("run-{i}.json.gz"))).unwrap();
    }
    let doc = jsprof_json(&["insights", dir.to_str().unwrap(), "--json"]);
    assert_eq!(doc["kind"], "page_runs");
    assert_eq!(
        doc["runs"].as_array().unwrap().len(),
        runs.len(),
        "manifest.json is not a run"
    );
    // Linear interpolation between ranks, as the report states.
    let quantile = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        let at = (v.len() - 1) as f64 * p;
        let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
    };
    let wanted: Vec<Value> = runs.iter().map(|n| oracle(n)).collect();
    for (metric, key, field, tol) in [
        ("fcp_ms", "FCP", "value_ms", MS),
        ("lcp_ms", "LCP", "value_ms", MS),
        ("cls", "CLS", "score", SCORE),
        ("inp_ms", "INP", "value_ms", MS),
    ] {
        let mut values: Vec<f64> = wanted
            .iter()
            .filter_map(|w| w["navigations"][0]["metrics"][key][field].as_f64())
            .collect();
        let ours = row_of(&doc["metrics"], "metric", metric);
        assert_eq!(ours["runs"], values.len(), "{metric}");
        for (p, name) in [(0.5, "median"), (0.75, "p75")] {
            let want = quantile(&mut values, p);
            close(
                &ours[name],
                &Value::from(want),
                tol,
                &format!("{metric} {name}"),
            );
        }
    }
    // Each insight fails in as many runs as the engine says it fails.
    for (ours, engine) in [
        ("cls_culprits", "CLSCulprits"),
        ("document_latency", "DocumentLatency"),
        ("forced_reflow", "ForcedReflow"),
        ("image_delivery", "ImageDelivery"),
        ("cache", "Cache"),
    ] {
        let failing = wanted
            .iter()
            .filter(|w| {
                let id = w["navigations"][0]["id"].as_str().unwrap();
                w["insights"][id][engine]["state"] == "fail"
            })
            .count();
        let row = row_of(&doc["insights"], "insight", ours);
        assert_eq!(row["failing"], failing, "{ours}");
        assert_eq!(row["runs"], runs.len(), "{ours}");
    }
    // Render-blocking's median FCP saving: the median over the runs it fails in of each run's
    // own `render_blocking_savings`.
    let mut saved: Vec<f64> = runs
        .iter()
        .map(|name| jsprof_json(&["insights", &input(name), "--json"]))
        .filter(|d| {
            !d["navigations"][0]["insights"]["render_blocking"]
                .as_array()
                .unwrap()
                .is_empty()
        })
        .map(|d| {
            d["navigations"][0]["insights"]["render_blocking_savings"]["fcp_ms"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert!(!saved.is_empty(), "a run with render-blocking requests");
    let blocking = row_of(&doc["insights"], "insight", "render_blocking");
    assert_eq!(blocking["failing"], saved.len());
    close(
        &blocking["median_savings"]["fcp_ms"],
        &Value::from(quantile(&mut saved, 0.5)),
        MS,
        "render-blocking FCP saving",
    );
    // A run's row is its own document's first navigation.
    for (i, name) in runs.iter().enumerate() {
        let single = jsprof_json(&["insights", &input(name), "--json"]);
        let values = &doc["runs"][i]["values"];
        let nav = &single["navigations"][0];
        assert_eq!(
            values["lcp_ms"], nav["metrics"]["lcp"]["value_ms"],
            "{name}"
        );
        assert_eq!(values["cls"], nav["metrics"]["cls"]["score"], "{name}");
        assert_eq!(
            values["tbt_ms"], single["long_tasks"]["blocking_ms"],
            "{name}"
        );
        assert_eq!(
            values["requests"],
            single["requests"].as_f64().unwrap(),
            "{name}"
        );
    }
    // The runs load different pages here: said, once per odd run.
    let warnings = doc["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 3, "{doc}");
    // The text: the median run named, a row per metric.
    let out = jsprof(&["insights", dir.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let median = doc["median_run"].as_u64().unwrap() as usize;
    assert!(
        text.starts_with("5 runs of ")
            && text.contains(doc["runs"][median]["file"].as_str().unwrap()),
        "{text}"
    );
    // An empty folder says what it expected.
    let empty = runs_dir("page-runs-empty");
    std::fs::write(empty.join(".keep"), b"").unwrap();
    let out = jsprof(&["insights", empty.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no traces in this folder"));
}

/// Page loads in the lake: each trace added keeps its run's metrics, so `lake trend --metric
/// M --by version` lists per version the distribution `insights DIR` gives for a folder of that
/// version's runs (the same numbers, to the bit), and each run's metric is DevTools' (the
/// oracle's). A CPU profile adds no page metrics, and a thread is not a page.
#[test]
fn lake_trend_of_page_loads_is_insights_dir_per_version() {
    let versions: [(&str, &[&str]); 2] = [
        (
            "1.9",
            &["trace/pageload.trace", "trace/pageload-shifts.trace"],
        ),
        (
            "1.10",
            &[
                "trace/pageload-anim.trace",
                "trace/pageload-bgimage.trace",
                "trace/pageload.trace",
            ],
        ),
    ];
    let lake = runs_dir("page-lake").join("lake");
    let lake = lake.to_str().unwrap();
    for (version, runs) in versions {
        let dir = runs_dir(&format!("page-lake-{version}"));
        let mut args = vec!["lake".to_string(), "add".into(), lake.into()];
        for (i, name) in runs.iter().enumerate() {
            let file = dir.join(format!("run-{i}.json"));
            let mut text = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::GzDecoder::new(std::fs::File::open(input(name)).unwrap()),
                &mut text,
            )
            .unwrap();
            if version == "1.10" {
                // 1.9 has the same recording: a trailing newline makes it new content for the
                // lake (which skips content it has), the same page load for `insights`.
                text.push(b'\n');
            }
            std::fs::write(&file, &text).unwrap();
            args.push(file.to_str().unwrap().into());
        }
        args.extend([
            "--label".into(),
            format!("version={version}"),
            "--json".into(),
        ]);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let added = jsprof_json(&argv);
        assert!(
            added["profiles"].as_u64().unwrap() >= runs.len() as u64,
            "{added}"
        );
    }
    // Not a page load: adds profiles, no metrics.
    let cpu = fixtures().join("cpu/node-mix.cpuprofile.gz");
    jsprof_json(&argv(
        "lake add {} {} --label version=1.10 --json",
        &[&lake, &cpu],
    ));
    let per_version: Vec<Value> = versions
        .iter()
        .map(|(version, _)| {
            let dir = runs_dir(&format!("page-lake-{version}"));
            jsprof_json(&["insights", dir.to_str().unwrap(), "--json"])
        })
        .collect();
    for metric in ["lcp_ms", "fcp_ms", "cls"] {
        let trend = jsprof_json(&[
            "lake", "trend", lake, "--metric", metric, "--by", "version", "--json",
        ]);
        assert_eq!(trend["kind"], "lake-page-trend");
        let points = trend["points"].as_array().unwrap();
        let order: Vec<&str> = points
            .iter()
            .map(|p| p["value"].as_str().unwrap())
            .collect();
        assert_eq!(order, ["1.9", "1.10"], "versions in natural order");
        for (point, runs) in points.iter().zip(&per_version) {
            let want = row_of(&runs["metrics"], "metric", metric);
            for field in ["runs", "median", "p75", "min", "max", "iqr"] {
                assert_eq!(
                    point[field], want[field],
                    "{metric} {} {field}",
                    point["value"]
                );
            }
        }
    }
    // The table says the same.
    let text = jsprof(&[
        "lake", "trend", lake, "--metric", "lcp_ms", "--by", "version",
    ]);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let p75 = row_of(&per_version[1]["metrics"], "metric", "lcp_ms")["p75"]
        .as_f64()
        .unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("1.10") && l.contains(&jsprof_document::units::fmt_ms(p75))),
        "{text}"
    );
    // Each stored run's LCP is the oracle's.
    let sql =
        "SELECT m.value, p.source_name FROM page_metrics m JOIN (SELECT DISTINCT source_hash, \
               source_name FROM profiles) p USING (source_hash) WHERE m.metric = 'lcp_ms' \
               ORDER BY p.source_name";
    let rows = jsprof_json(&argv("lake sql {} {} --json", &[&lake, &sql]));
    assert_eq!(rows["rows"].as_array().unwrap().len(), 5, "{rows}");
    let mut lcps: Vec<f64> = rows["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["value"].as_f64().unwrap())
        .collect();
    let mut want: Vec<f64> = versions
        .iter()
        .flat_map(|(_, runs)| runs.iter())
        .map(|n| {
            oracle(n)["navigations"][0]["metrics"]["LCP"]["value_ms"]
                .as_f64()
                .unwrap()
        })
        .collect();
    lcps.sort_by(f64::total_cmp);
    want.sort_by(f64::total_cmp);
    for (got, want) in lcps.iter().zip(&want) {
        assert!(
            (got - want).abs() <= 1e-3,
            "LCP {got} vs the oracle's {want}"
        );
    }
    // A thread is not a page; a metric that is none says which are.
    let out = jsprof(&[
        "lake", "trend", lake, "--metric", "lcp_ms", "--by", "thread",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a thread's"));
    let out = jsprof(&["lake", "trend", lake, "--metric", "lcp", "--by", "version"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("one of fcp_ms, lcp_ms"));
}

/// The row of `list` whose `key` is `value`.
fn row_of<'a>(list: &'a Value, key: &str, value: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|r| r[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value} in {list}"))
}

/// An empty folder `name` in this run's scratch directory.
fn runs_dir(name: &str) -> std::path::PathBuf {
    let scratch = temp_file(&format!("{name}.marker"), b"");
    let dir = scratch.with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// MCP's page tools answer what `insights DIR` and `diff --base A/ --target B/` answer for the
/// same folders: every list item for item, the rest of the document field for field.
#[test]
fn mcp_page_runs_and_page_diff_are_the_clis() {
    use crate::mcp::{items, numbers, page_all, sdk_missing, stdio};
    if sdk_missing() {
        return;
    }
    let root = std::fs::canonicalize(runs_dir("mcp-page-root")).unwrap();
    let sides: [(&str, &[&str]); 2] = [
        (
            "base",
            &[
                "trace/pageload.trace",
                "trace/pageload-shifts.trace",
                "trace/pageload-anim.trace",
            ],
        ),
        (
            "target",
            &["trace/pageload-bgimage.trace", "trace/pageload.trace"],
        ),
    ];
    let mut dirs = Vec::new();
    for (side, runs) in sides {
        let dir = root.join(side);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, name) in runs.iter().enumerate() {
            let mut text = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::GzDecoder::new(std::fs::File::open(input(name)).unwrap()),
                &mut text,
            )
            .unwrap();
            std::fs::write(dir.join(format!("run-{i}.json")), &text).unwrap();
        }
        dirs.push(dir.display().to_string());
    }
    let (base, target) = (dirs[0].as_str(), dirs[1].as_str());
    let r = stdio(
        &[&root],
        &[],
        serde_json::json!([
            page_all("page_runs", serde_json::json!({"dir": base, "max_items": 2})),
            page_all("page_runs", serde_json::json!({"dir": base, "list": "runs", "max_items": 1})),
            page_all("page_diff", serde_json::json!({"base": base, "target": target, "max_items": 4})),
            {"op": "callTool", "name": "page_diff", "arguments": {"base": base, "target": target, "alpha": 2}},
            {"op": "callTool", "name": "page_runs", "arguments": {"dir": "/"}},
        ]),
    );
    let cli = |args: &[&str]| numbers(jsprof_json(args));
    let runs = cli(&["insights", base, "--json"]);
    let diff = cli(&["diff", "--base", base, "--target", target, "--json"]);
    assert_eq!(items(&r[0]), runs["metrics"].as_array().unwrap());
    assert_eq!(items(&r[1]), runs["runs"].as_array().unwrap());
    assert!(items(&r[0]).iter().any(|m| m["metric"] == "transfer_size"));
    assert_eq!(items(&r[2]), diff["metrics"].as_array().unwrap());
    for (answer, want, lists) in [
        (&r[0], &runs, &["metrics", "runs", "insights"][..]),
        (
            &r[2],
            &diff,
            &[
                "metrics",
                "render_blocking",
                "critical_path",
                "uncached",
                "third_parties",
                "functions",
            ][..],
        ),
    ] {
        let first = &answer["first"];
        for (key, value) in want.as_object().unwrap() {
            if !lists.contains(&key.as_str()) {
                assert_eq!(&first[key], value, "{key}");
            }
        }
    }
    assert!(diff["base"]["selection"]
        .as_str()
        .unwrap()
        .starts_with("3 files ("));
    assert!(
        r[3]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("alpha must be between 0 and 1")),
        "{}",
        r[3]
    );
    assert_eq!(r[4]["isError"], true, "{}", r[4]);
}

/// A trace without a navigation (DevTools gathers it under a `NO_NAVIGATION` insight set) is not
/// a page load: two folders of such traces compare as profiles, a folder of page loads with one
/// among them is refused naming it, and `insights DIR` counts only its long tasks and requests.
#[test]
fn traces_without_a_navigation_are_not_page_loads() {
    let copy = |dir: &std::path::Path, names: &[&str]| {
        for (i, name) in names.iter().enumerate() {
            let from = fixtures().join(format!("trace/{name}.json.gz"));
            std::fs::copy(from, dir.join(format!("run-{i}.json.gz"))).unwrap();
        }
        dir.to_str().unwrap().to_string()
    };
    let plain = ["page.trace", "primes.trace"];
    let a = copy(&runs_dir("no-nav-a"), &plain);
    let b = copy(&runs_dir("no-nav-b"), &plain);
    let groups = jsprof_json(&["diff", "--base", &a, "--target", &b, "--json"]);
    assert_ne!(groups["kind"], "page_diff", "{groups}");
    assert!(groups["changes"].is_array(), "{groups}");

    let mixed = copy(
        &runs_dir("no-nav-mixed"),
        &["pageload.trace", "primes.trace"],
    );
    let err = refused(&["diff", "--base", &mixed, "--target", &mixed, "--json"]);
    assert!(
        err.contains("run-1.json.gz") && err.contains("a trace without a navigation"),
        "{err}"
    );
    let out = jsprof(&["insights", &mixed, "--json"]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert!(runs[0]["values"].get("lcp_ms").is_some(), "{doc}");
    assert!(runs[1]["values"].get("fcp_ms").is_none(), "{doc}");
    assert_eq!(runs[1]["url"], Value::Null);
    assert!(runs[1]["values"].get("requests").is_some());
    assert!(
        doc["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("run-1.json.gz has no navigation"))),
        "{doc}"
    );
}
