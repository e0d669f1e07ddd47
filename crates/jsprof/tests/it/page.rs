//! The page-load commands at the CLI's front door: `summary` and `report` carry the page,
//! `insights`, `network` and `timings` refuse a profile, answer as the service does, and
//! `check`'s page budgets read DevTools' numbers. The engine's numbers themselves are checked
//! against DevTools' trace engine by the reference tests, which call the libraries
//! (`crates/jsprof_pageload/tests/reference`).

use serde_json::Value;

pub(crate) use crate::page_loads::assert_network_tree_matches;
use crate::page_loads::{close, input, oracle, MS, PAGE_LOADS, SCORE};
use crate::support::{fixtures, jsprof, jsprof_json, refused, report_data, temp_file};

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
        jsprof(&[
            "check",
            &trace,
            "--budget",
            budget.to_str().unwrap(),
            "--json",
        ])
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
    let out = jsprof(&[
        "check",
        profile.to_str().unwrap(),
        "--budget",
        budget.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}
