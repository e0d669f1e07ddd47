//! A page-load lab end to end (issue 37): two builds of a small page served from 127.0.0.1 —
//! B adds a render-blocking stylesheet that the server holds for [`DELAY_MS`] — recorded with
//! `record --url --runs` in headless Chromium (CPU throttled 2×, each run a fresh browser
//! context), compared with `diff --base A/ --target B/` and checked with `check`'s `[page]`
//! budgets. Every run's metrics are DevTools' trace engine's (the insights oracle) for that
//! run's trace. B also runs a long task after its load event, which the comparison names by
//! its function. The runs then go into a lake, whose `trend --metric` and `diff --page-loads`
//! give what `insights DIR` and `diff` gave.
//!
//! A's runs are recorded as one lab of 2N runs and split odd/even into two sets, so that "A
//! against A" compares runs interleaved in time, not two stretches of a busy machine.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::record::out_dir;
use crate::record_page::{insights_oracle, start_chromium};
use crate::support::{argv, json_array, jsprof, jsprof_json, temp_file};

/// Runs per side: ten, as the issue asks. Two separated groups of 10 have an exact
/// Mann-Whitney p of 2/184756 = 1.1e-5, so the 100 ms shift stays significant at [`ALPHA`] after
/// Benjamini-Hochberg over the metrics even when a busy machine (the other Chromium tests of
/// this binary running beside it) stalls a few runs of either side; eight a side were not
/// always enough there.
const N: usize = 10;
/// The comparisons' significance. A against A is a false positive at most this often (the
/// Benjamini-Hochberg family's rate under no change; `bench/page-lab-fpr.mjs` measures it), so
/// the test asks 0.01 rather than the default 0.05: one CI run in a hundred at worst, not one in
/// twenty. Ten runs a side keep the planted shift far below it.
const ALPHA: &str = "0.01";
/// What the server holds B's stylesheet for. A's own parse, style and paint overlap the hold
/// (the stylesheet's request starts when the parser meets the link), so B's FCP moves by the
/// hold less that overlap: 56 ms for a 100 ms hold on a loaded 2-core CI machine. 300 ms kept
/// the overlap a small part of the shift, but not the noise: with the other Chromium tests
/// beside it, A's FCP medians were 455 and 1,191 ms in two runs here (2026-11-29), its runs
/// spread over a second, and B's shift was not significant. 800 ms stands above that spread.
const DELAY_MS: f64 = 800.0;
/// The oracle rounds ms to 0.001 and scores to 0.001.
const MS: f64 = 0.01;

/// A build of the page, served on a port of its own (so both builds load the same path).
struct Build {
    port: u16,
}

const PAGE: &str = "<!doctype html><html><head><meta charset=utf-8>\
<meta name=viewport content='width=device-width'><title>lab</title>{CSS}</head>\
<body><h1>A page in a lab</h1><p style='font-size:28px'>One load is noise; a page load is a \
distribution. This paragraph is the largest text, so it is the page's LCP.</p>{JS}</body></html>";

/// B's one script: a long task after the load event (so FCP and LCP keep only the
/// stylesheet's delay), in a function of its own for the functions' comparison to name.
const LONG_TASK: &str = "<script>function plantedLongTask() { const end = performance.now() + 80; \
while (performance.now() < end) {} } addEventListener('load', () => setTimeout(plantedLongTask, 0));</script>";

/// Serves the page at `/`; with `stylesheet`, the page links `/style.css`, answered after
/// [`DELAY_MS`].
/// B's third party: a script from `localhost` (another site than the page's `127.0.0.1`, so
/// DevTools' entities count it apart from the first party), loaded `async` so that it blocks
/// nothing.
const THIRD_PARTY: &str = "<script async src='http://localhost:{PORT}/widget.js'></script>";
/// Its size, so its transfer size stands out from the headers' noise.
const WIDGET_BYTES: usize = 20_000;

fn serve(stylesheet: bool) -> Build {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, stylesheet, port));
        }
    });
    Build { port }
}

fn answer(mut stream: TcpStream, stylesheet: bool, port: u16) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let path = String::from_utf8_lossy(&head)
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let (status, kind, body) = match path.as_str() {
        "/" => (
            "200 OK",
            "text/html",
            PAGE.replace(
                "{CSS}",
                if stylesheet {
                    "<link rel=stylesheet href='/style.css'>"
                } else {
                    ""
                },
            )
            .replace(
                "{JS}",
                &if stylesheet {
                    format!(
                        "{LONG_TASK}{}",
                        THIRD_PARTY.replace("{PORT}", &port.to_string())
                    )
                } else {
                    String::new()
                },
            ),
        ),
        "/widget.js" if stylesheet => (
            "200 OK",
            "text/javascript",
            format!("/* a third party's widget */{}", " ".repeat(WIDGET_BYTES)),
        ),
        "/style.css" if stylesheet => {
            std::thread::sleep(Duration::from_millis(DELAY_MS as u64));
            ("200 OK", "text/css", "h1 { color: #234; }".to_string())
        }
        _ => ("404 Not Found", "text/plain", "not here".to_string()),
    };
    // The widget is cached for a minute only: too short for a repeat visit, so DevTools' cache
    // insight lists it; everything else is never stored.
    let cache = if path == "/widget.js" {
        "max-age=60"
    } else {
        "no-store"
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: {cache}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// `record --runs` of `url` into `dir`: the manifest it prints.
fn record_runs(addr: &str, url: &str, runs: usize, dir: &Path) -> Value {
    let out = jsprof(&argv(
        "record --chrome {} --trace --url {} --runs {} --cpu-slowdown 2 --settle 0.5 --json -o {}",
        &[&addr, &url, &runs.to_string(), &dir],
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("record --runs --json")
}

/// The run files of a folder, by name (not the manifest).
fn run_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "manifest.json")
        .collect();
    v.sort();
    v
}

fn metric<'a>(doc: &'a Value, name: &str) -> &'a Value {
    json_array(&doc["metrics"])
        .iter()
        .find(|m| m["metric"] == name)
        .unwrap_or_else(|| panic!("no {name} in {doc}"))
}

fn check(args: &[&str], budget: &str) -> (Option<i32>, Value) {
    let file = temp_file("lab-budget.toml", budget.as_bytes());
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--budget", file.to_str().unwrap(), "--json"]);
    let out = jsprof(&all);
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("check {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), doc)
}

#[test]
fn two_builds_of_a_page_differ_by_a_planted_render_blocking_delay() {
    if !crate::serve::have_node() {
        return;
    }
    let Some(browser) = start_chromium("lab") else {
        return;
    };
    let (a, b) = (serve(false), serve(true));
    let url = |build: &Build| format!("http://127.0.0.1:{}/", build.port);
    let (dir_a, dir_b) = (out_dir("lab-a"), out_dir("lab-b"));
    let manifest = record_runs(&browser.addr, &url(&a), 2 * N, &dir_a);
    record_runs(&browser.addr, &url(&b), N, &dir_b);

    // The manifest: how the runs were taken, and each run's file.
    let m = &manifest["manifest"];
    assert_eq!(m["url"], url(&a));
    assert_eq!(m["cache"], "cold");
    assert_eq!(m["cpu_slowdown"], 2.0);
    assert_eq!(m["network"], "none");
    assert!(
        m["browser"].as_str().unwrap().contains("Chrome/"),
        "{}",
        m["browser"]
    );
    let written: Value =
        serde_json::from_slice(&std::fs::read(dir_a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(&written, m, "manifest.json is what --json printed");
    let files_a = run_files(&dir_a);
    assert_eq!(files_a.len(), 2 * N);
    let listed: Vec<&str> = json_array(&m["runs"])
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let names: Vec<String> = files_a
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed, names);
    assert!(names[0].starts_with("run-01"), "{names:?}");

    // A's runs split odd/even: two sets of the same build, interleaved in time.
    let (a1, a2) = (out_dir("lab-a1"), out_dir("lab-a2"));
    for d in [&a1, &a2] {
        std::fs::create_dir_all(d).unwrap();
    }
    for (i, f) in files_a.iter().enumerate() {
        let into = if i % 2 == 0 { &a1 } else { &a2 };
        std::fs::copy(f, into.join(f.file_name().unwrap())).unwrap();
    }

    // Every run's metrics are the trace engine's for its trace.
    // The oracle's FCP and LCP of each run, per folder (A1, then B).
    let mut oracle_values: Vec<[Vec<f64>; 2]> = Vec::new();
    let runs_a1 = jsprof_json(&["insights", a1.to_str().unwrap(), "--json"]);
    let runs_b = jsprof_json(&["insights", dir_b.to_str().unwrap(), "--json"]);
    let mut oracle_ran = true;
    for (dir, doc) in [(&a1, &runs_a1), (&dir_b, &runs_b)] {
        let files = run_files(dir);
        assert_eq!(json_array(&doc["runs"]).len(), files.len());
        let wanted: Vec<Option<Value>> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .iter()
                .map(|f| s.spawn(move || insights_oracle(f)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let (mut fcps, mut lcps) = (Vec::new(), Vec::new());
        for ((file, want), row) in files.iter().zip(wanted).zip(json_array(&doc["runs"])) {
            let Some(want) = want else {
                oracle_ran = false;
                continue;
            };
            let wm = &want["navigations"][0]["metrics"];
            let v = &row["values"];
            for (ours, key, field, tol) in [
                ("fcp_ms", "FCP", "value_ms", MS),
                ("lcp_ms", "LCP", "value_ms", MS),
                ("cls", "CLS", "score", 0.001),
            ] {
                let (x, w) = (v[ours].as_f64(), wm[key][field].as_f64());
                assert!(
                    matches!((x, w), (Some(x), Some(w)) if (x - w).abs() <= tol),
                    "{}: {ours} ours {:?}, DevTools {:?}",
                    file.display(),
                    x,
                    w
                );
            }
            assert_eq!(
                v["requests"].as_f64(),
                Some(json_array(&want["network"]).len() as f64),
                "{}: requests",
                file.display()
            );
            // Bytes over the network: the trace engine's requests' encoded data lengths,
            // summed (whole numbers, so the sum is exact in any order).
            let bytes: f64 = json_array(&want["network"])
                .iter()
                .map(|r| r["transfer_size"].as_f64().unwrap_or(0.0))
                .sum();
            assert!(bytes > 0.0, "{}: no bytes in {want}", file.display());
            assert_eq!(
                v["transfer_size"].as_f64(),
                Some(bytes),
                "{}: transfer size",
                file.display()
            );
            fcps.push(wm["FCP"]["value_ms"].as_f64().unwrap());
            lcps.push(wm["LCP"]["value_ms"].as_f64().unwrap());
        }
        oracle_values.push([fcps, lcps]);
    }

    // B against A: FCP and LCP grew significantly, by about the planted delay; the new
    // stylesheet is named. The shift is the Hodges-Lehmann estimate of the oracle's values:
    // the median of every pairwise difference target − base.
    let diff = jsprof_json(&argv(
        "diff --base {} --target {} --alpha {} --json",
        &[&a1, &dir_b, &ALPHA],
    ));
    assert_eq!(diff["kind"], "page_diff", "{diff}");
    for (k, name) in ["fcp_ms", "lcp_ms"].into_iter().enumerate() {
        let m = metric(&diff, name);
        if oracle_ran {
            let (base, target) = (&oracle_values[0][k], &oracle_values[1][k]);
            let mut d: Vec<f64> = target
                .iter()
                .flat_map(|t| base.iter().map(move |b| t - b))
                .collect();
            d.sort_by(f64::total_cmp);
            let n = d.len();
            let want = if n % 2 == 1 {
                d[n / 2]
            } else {
                (d[n / 2 - 1] + d[n / 2]) / 2.0
            };
            // Each run's value is the oracle's within MS, so each difference within 2 MS.
            assert!(
                (m["shift"].as_f64().unwrap() - want).abs() <= 2.0 * MS,
                "{name}: shift {} against the oracle's {want}",
                m["shift"]
            );
        }
        let (low, high) = (
            m["shift_low"].as_f64().unwrap(),
            m["shift_high"].as_f64().unwrap(),
        );
        println!(
            "{name}: shift {} ms, 95 % CI [{low}, {high}], q {}",
            m["shift"], m["q"]
        );
        assert_eq!(m["significant"], true, "{name}: {m}");
        assert!(m["shift"].as_f64().unwrap() > 0.0, "{name}: {m}");
        // The stylesheet's request and parse come on top of the hold and A's own render work
        // overlaps it (see DELAY_MS): the interval reaches half the planted delay and starts
        // within 60 ms above it.
        assert!(
            low <= DELAY_MS + 60.0 && high >= DELAY_MS / 2.0,
            "{name}: [{low}, {high}] against {DELAY_MS} ms"
        );
    }
    let blocking = json_array(&diff["render_blocking"]);
    assert!(
        blocking.iter().any(|c| c["change"] == "became"
            && c["url"] == format!("{}style.css", url(&b))
            && c["target_runs"] == N),
        "{diff}"
    );
    assert_eq!(diff["base"]["runs"], N);
    // B's long task after the load: the function it runs is the one whose share of the main
    // thread grew most. (The long tasks' count need not move: A's load has two long tasks of
    // its own under the 2× slowdown, and B's stylesheet merges some of its work into one.)
    assert_eq!(
        diff["functions"][0]["name"], "plantedLongTask",
        "{}",
        diff["functions"]
    );
    // The stylesheet came onto the critical path, and the widget (cached for a minute) became
    // an uncached request.
    assert!(
        json_array(&diff["critical_path"])
            .iter()
            .any(|c| c["change"] == "became" && c["url"] == format!("{}style.css", url(&b))),
        "{}",
        diff["critical_path"]
    );
    assert!(
        json_array(&diff["uncached"])
            .iter()
            .any(|c| c["change"] == "became"
                && c["url"].as_str().is_some_and(|u| u.ends_with("/widget.js"))),
        "{}",
        diff["uncached"]
    );
    // B's third party, named with its bytes: in none of A's runs, in every one of B's.
    let third = json_array(&diff["third_parties"])
        .iter()
        .find(|e| e["base_runs"] == 0 && e["target_runs"] == N)
        .unwrap_or_else(|| panic!("no new third party in {}", diff["third_parties"]));
    assert!(
        third["target_transfer_size"].as_f64().unwrap() >= WIDGET_BYTES as f64,
        "{third}"
    );
    assert!(
        third["entity"].as_str().unwrap().contains("localhost"),
        "{third}"
    );
    let planted = json_array(&diff["functions"])
        .iter()
        .find(|f| f["name"] == "plantedLongTask")
        .unwrap_or_else(|| panic!("plantedLongTask not among {}", diff["functions"]));
    assert!(planted["self_share"]["shift_points"].as_f64().unwrap() > 0.0);
    assert!(diff["target"]["median_run"]
        .as_str()
        .is_some_and(|f| f.starts_with("run-")));
    // The text names it too.
    let text = jsprof(&argv(
        "diff --base {} --target {} --alpha {}",
        &[&a1, &dir_b, &ALPHA],
    ));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("became") && text.contains("style.css") && text.contains("grew"),
        "{text}"
    );

    // A against A: nothing significant.
    let same = jsprof_json(&argv(
        "diff --base {} --target {} --alpha {} --json",
        &[&a1, &a2, &ALPHA],
    ));
    let significant: Vec<&Value> = json_array(&same["metrics"])
        .iter()
        .chain([&same["long_tasks"]])
        .filter(|m| m["significant"] == true)
        .collect();
    assert!(significant.is_empty(), "A against A: {significant:?}");
    assert_eq!(same["render_blocking"], serde_json::json!([]));

    // check: a p75 budget 50 ms above A's p75 LCP (the oracle's values) holds on A and fails
    // on B; a 50 ms shift budget fails B against A and holds A against A.
    let p75 = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let at = (v.len() - 1) as f64 * 0.75;
        let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (at - lo as f64)
    };
    let a_p75 = if oracle_ran {
        let want = p75(&oracle_values[0][1]);
        assert!(
            (metric(&runs_a1, "lcp_ms")["p75"].as_f64().unwrap() - want).abs() <= MS,
            "insights DIR's p75 LCP is the oracle's"
        );
        want
    } else {
        metric(&runs_a1, "lcp_ms")["p75"].as_f64().unwrap()
    };
    let budget = format!("[page]\nlcp_p75_ms = {}\n", a_p75 + DELAY_MS / 2.0);
    let (code, doc) = check(&[a1.to_str().unwrap()], &budget);
    assert_eq!(code, Some(0), "{doc}");
    let (code, doc) = check(&[dir_b.to_str().unwrap()], &budget);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["checks"][0]["subject"], "LCP p75");
    let shift = format!("[page]\nmax_lcp_shift_ms = 50\nmax_fcp_shift_ms = 50\nalpha = {ALPHA}\n");
    let (code, doc) = check(&argv("--base {} --target {}", &[&a1, &dir_b]), &shift);
    assert_eq!(code, Some(1), "{doc}");
    let failed: Vec<&str> = json_array(&doc["checks"])
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["FCP shift", "LCP shift"], "{doc}");
    let (code, doc) = check(&argv("--base {} --target {}", &[&a1, &a2]), &shift);
    assert_eq!(code, Some(0), "{doc}");

    // The lake: A1's and B's runs added as two versions. `lake trend --metric` gives each
    // build's distribution as `insights DIR` gives it, and `lake diff --page-loads` compares
    // the builds as `diff --base A/ --target B/` compares the folders: the same rows, to the
    // byte, from the values the lake stored.
    let lake = out_dir("lab-lake");
    for (dir, version) in [(&a1, "a"), (&dir_b, "b")] {
        let mut args = vec!["lake".to_string(), "add".into(), lake.display().to_string()];
        args.extend(run_files(dir).iter().map(|f| f.display().to_string()));
        args.extend([
            "--label".into(),
            format!("version={version}"),
            "--json".into(),
        ]);
        let added = jsprof_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(added["profiles"].as_u64().unwrap() >= N as u64, "{added}");
    }
    let trend = jsprof_json(&argv(
        "lake trend {} --metric lcp_ms --by version --json",
        &[&lake],
    ));
    let points = json_array(&trend["points"]);
    assert_eq!(points.len(), 2, "{trend}");
    for (point, (version, runs)) in points.iter().zip([("a", &runs_a1), ("b", &runs_b)]) {
        assert_eq!(point["value"], version);
        let want = metric(runs, "lcp_ms");
        for field in ["runs", "median", "p75", "min", "max", "iqr"] {
            assert_eq!(point[field], want[field], "version {version}: LCP {field}");
        }
    }
    let lake_diff = jsprof_json(&argv(
        "lake diff {} --page-loads --base version=a --target version=b --alpha {} --json",
        &[&lake, &ALPHA],
    ));
    assert_eq!(lake_diff["kind"], "lake-page-diff", "{lake_diff}");
    assert_eq!(lake_diff["base"]["runs"], N);
    assert_eq!(lake_diff["target"]["runs"], N);
    assert_eq!(
        lake_diff["metrics"], diff["metrics"],
        "lake diff = diff of the folders"
    );
    assert_eq!(lake_diff["long_tasks"], diff["long_tasks"]);
    assert!(
        json_array(&lake_diff["metrics"])
            .iter()
            .any(|m| m["metric"] == "transfer_size"),
        "{lake_diff}"
    );
    let text = jsprof(&argv(
        "lake diff {} --page-loads --base version=a --target version=b --alpha {}",
        &[&lake, &ALPHA],
    ));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("lcp") && text.contains("grew") && text.contains("10 page loads"),
        "{text}"
    );
    // A selection without page loads is named.
    let none = jsprof(&argv(
        "lake diff {} --page-loads --base version=a --target version=zzz",
        &[&lake],
    ));
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no page load matches --target version=zzz"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
}

/// MCP's `record` with `url` and `runs` (with `--allow-record`): a lab on the same Chromium,
/// answered as `page_runs` answers its folder, which is `jsprof insights DIR --json`'s; bad
/// lab arguments are refused with what was expected.
#[test]
fn mcp_records_runs_of_a_page_and_answers_their_distribution() {
    use crate::mcp::{items, numbers, page_all, sdk_missing, stdio};
    if sdk_missing() || !crate::serve::have_node() {
        return;
    }
    let Some(browser) = start_chromium("mcp-lab") else {
        return;
    };
    let page = serve(false);
    let url = format!("http://127.0.0.1:{}/", page.port);
    let root = out_dir("mcp-lab-root");
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(root).unwrap();
    let record = |arguments: Value| -> Value {
        serde_json::json!({"op": "callTool", "name": "record", "arguments": arguments})
    };
    let r = stdio(
        &[&root],
        &["--allow-record", "--record-dir", root.to_str().unwrap()],
        serde_json::json!([
            record(
                serde_json::json!({"chrome": browser.addr, "url": url, "runs": 3, "cpu_slowdown": 2})
            ),
            record(serde_json::json!({"url": url})),
            record(serde_json::json!({"chrome": browser.addr, "url": url, "runs": 0})),
            record(serde_json::json!({"chrome": browser.addr, "url": url, "network": "5g"})),
            record(serde_json::json!({"chrome": browser.addr, "runs": 2})),
        ]),
    );
    let answer = &r[0]["structuredContent"];
    assert_ne!(r[0]["isError"], true, "{}", r[0]);
    let dir = answer["dir"].as_str().unwrap().to_string();
    assert_eq!(run_files(Path::new(&dir)).len(), 3, "{dir}");
    let cli = numbers(jsprof_json(&["insights", &dir, "--json"]));
    assert_eq!(answer["metrics"], cli["metrics"], "the page's first list");
    assert_eq!(answer["median_run"], cli["median_run"]);
    assert!(json_array(&cli["runs"])
        .iter()
        .all(|run| run["url"] == url.as_str()));
    for (i, expected) in [
        (1, "give `chrome`"),
        (2, "runs must be 1 to 20"),
        (3, "network must be fast-4g, slow-4g or 3g"),
        (4, "go with `url`"),
    ] {
        let text = r[i]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            r[i]["isError"] == true && text.contains(expected),
            "{i}: {}",
            r[i]
        );
    }
    // The folder goes to page_runs as any folder of runs does.
    let again = stdio(
        &[&root],
        &[],
        serde_json::json!([page_all(
            "page_runs",
            serde_json::json!({"dir": dir, "list": "runs"})
        )]),
    );
    assert_eq!(items(&again[0]), cli["runs"].as_array().unwrap());
}
