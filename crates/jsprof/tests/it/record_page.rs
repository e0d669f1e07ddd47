//! `jsprof record --chrome ADDR --url URL --trace`: a page load recorded in headless Chromium the
//! way the Performance panel's "Record and reload" does, checked against DevTools' trace engine
//! run on the fresh trace (`insights-oracle.mjs`); the service's `url` sessions; and failures
//! (no browser, not a URL, a refused connection, a page that never loads) that say what happened.
//!
//! Chromium, Node and the oracle are required; with `CI` set, a missing one fails the tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::record::{find, listing, out_dir};
use crate::support::{
    argv, chromium, chromium_devtools, json_array, jsprof, jsprof_json, KillOnDrop,
};

/// The oracle rounds ms to 0.001; the brief's tolerance for times.
const MS: f64 = 0.01;

/// A headless Chromium on a free port of 127.0.0.1, showing one blank page of the user's own.
pub(crate) struct Chromium {
    _browser: KillOnDrop,
    pub(crate) addr: String,
}

pub(crate) fn start_chromium(name: &str) -> Option<Chromium> {
    let chromium = chromium()?;
    let profile = out_dir(&format!("{name}-profile"));
    let flags = [
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-extensions",
        "--remote-debugging-address=127.0.0.1",
        "--window-size=1280,720",
    ];
    let (browser, addr) = chromium_devtools(&chromium, &flags, &profile, "about:blank");
    Some(Chromium {
        _browser: browser,
        addr,
    })
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Chromium for the test `name`, when Node (for the site and the recorder) and a Chromium are
/// here; `None` (the test skips) otherwise.
fn node_and_chromium(name: &str) -> Option<Chromium> {
    if !crate::serve::have_node() {
        return None;
    }
    start_chromium(name)
}

/// `tools/gen/pageload-server.js`: the shop page (LCP image, shifts, requests, a third party on
/// PORT+1), on 127.0.0.1.
struct Site {
    _child: KillOnDrop,
    port: u16,
}

impl Site {
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

/// A port P with P+1 free too (the site's third party), for a moment.
fn free_port_pair() -> u16 {
    loop {
        let a = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = a.local_addr().unwrap().port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

fn pageload_site() -> Site {
    let script = repo().join("tools/gen/pageload-server.js");
    // Another process may take a port between the check and the bind: then try others.
    for _ in 0..5 {
        let port = free_port_pair();
        let mut child = KillOnDrop::spawn(
            Command::new("node")
                .arg(&script)
                .arg(port.to_string())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
            "node pageload-server.js",
        );
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut listening = 0;
        while listening < 2 {
            match lines.next() {
                Some(Ok(line)) if line.contains(" on http://") => listening += 1,
                Some(Ok(_)) => {}
                _ => break,
            }
        }
        if listening == 2 {
            std::thread::spawn(move || for _ in lines {});
            return Site {
                _child: child,
                port,
            };
        }
    }
    panic!("pageload-server.js could not listen");
}

/// DevTools' trace engine on a trace (`target/oracle/insights-oracle.mjs`), when it is built.
pub(crate) fn insights_oracle(trace: &Path) -> Option<Value> {
    crate::support::run_oracle("insights-oracle", trace)
}

/// The browser's `/json/list`: its tabs.
fn tabs(addr: &str) -> Vec<Value> {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /json/list HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut all = Vec::new();
    let _ = stream.read_to_end(&mut all);
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let list: Value = serde_json::from_slice(&all[split + 4..]).expect("/json/list is JSON");
    json_array(&list)
        .iter()
        .filter(|t| t["type"] == "page")
        .cloned()
        .collect()
}

#[track_caller]
fn close(ours: &Value, want: &Value, tol: f64, what: &str) {
    let (Some(a), Some(b)) = (ours.as_f64(), want.as_f64()) else {
        panic!("{what}: ours {ours}, DevTools {want}");
    };
    assert!((a - b).abs() <= tol, "{what}: ours {a}, DevTools {b}");
}

/// The trace's Web Vitals, requests and film strip, ours against DevTools' trace engine.
fn assert_matches_the_trace_engine(trace: &Path, want: &Value) {
    let t = trace.to_str().unwrap();
    let ours = jsprof_json(&["insights", t, "--json"]);
    let (navs, want_navs) = (
        json_array(&ours["navigations"]),
        json_array(&want["navigations"]),
    );
    assert_eq!(navs.len(), want_navs.len(), "navigations");
    assert!(!navs.is_empty(), "the page load is a navigation");
    for (n, w) in navs.iter().zip(want_navs) {
        assert_eq!(n["url"], w["url"]);
        let (m, wm) = (&n["metrics"], &w["metrics"]);
        for (ours_key, key) in [("fcp", "FCP"), ("lcp", "LCP")] {
            assert!(wm[key]["value_ms"].as_f64().unwrap() > 0.0, "{key}: {wm}");
            close(&m[ours_key]["value_ms"], &wm[key]["value_ms"], MS, key);
            close(&m[ours_key]["ts_ms"], &wm[key]["ts_ms"], MS, key);
        }
        assert_eq!(m["lcp"]["type"], wm["LCP"]["type"]);
        // The oracle rounds scores to 0.001: ours, rounded so, must be the same number.
        let cls = m["cls"]["score"].as_f64().unwrap();
        let want_cls = wm["CLS"]["score"].as_f64().unwrap();
        assert!(
            ((cls * 1000.0).round() / 1000.0 - want_cls).abs() <= 1e-6,
            "CLS: ours {cls}, DevTools {want_cls}"
        );
    }
    let network = jsprof_json(&["network", t, "--json"]);
    let urls = |list: &Value| -> Vec<String> {
        json_array(list)
            .iter()
            .map(|r| r["url"].as_str().unwrap().to_string())
            .collect()
    };
    let (ours_urls, want_urls) = (urls(&network["requests"]), urls(&want["network"]));
    assert_eq!(ours_urls, want_urls, "request URLs");
    assert!(
        want_urls.iter().any(|u| u.ends_with("/hero.png")),
        "{want_urls:?}"
    );
    crate::page::assert_network_tree_matches(&ours, want, t);
    crate::page_checks::assert_page_checks(&ours, want, t);
    let shots = want["screenshots"]["count"].as_u64().unwrap();
    assert!(shots > 0, "screenshots are on: {}", want["screenshots"]);
    assert_eq!(ours["screenshots"]["count"], shots, "screenshots");
}

#[test]
fn record_url_gives_the_trace_engines_page_load() {
    let Some(browser) = node_and_chromium("url") else {
        return;
    };
    let site = pageload_site();
    let dir = out_dir("url");
    let started = Instant::now();
    let out = jsprof(&argv(
        "record --chrome {} --url {} --trace --json -o {}",
        &[&browser.addr, &site.url(), &dir],
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Progress on stderr: the load event, then the trace's collection.
    assert!(stderr.contains("load event after"), "{stderr}");
    assert!(stderr.contains("collecting the trace"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["stop_reason"], "PageLoaded", "{v}");
    assert_eq!(v["warnings"], json!([]), "{v}");
    // The load (about 1.3 s) and 3 s of settling, not a fixed long wait.
    assert!(started.elapsed() < Duration::from_secs(40));
    let trace = find(&v, "trace");
    assert!(listing(&dir).iter().all(|f| !f.ends_with(".partial")));
    // The recording's own tab is gone; the user's blank page was left alone.
    let pages = tabs(&browser.addr);
    assert!(
        pages.iter().all(|t| t["url"] != site.url().as_str()),
        "{pages:?}"
    );
    assert!(pages.iter().any(|t| t["url"] == "about:blank"), "{pages:?}");

    let Some(want) = insights_oracle(&trace) else {
        return;
    };
    assert_matches_the_trace_engine(&trace, &want);
    // The Sources gutter's per-line times (ProfileChunk `lines`), DevTools' to the ns.
    if let Some(gutter) = crate::lines::trace_lines_oracle(&trace) {
        let lines = crate::lines::assert_trace_lines_are_devtools(&trace, &gutter, 1e-6);
        assert!(lines >= 5, "the page's script ran: {lines} lines with time");
    }
    // JS samples are on, as in the panel: the page's own functions are in the trace's calls.
    let top = jsprof_json(&["top", "--json", "--limit", "0", trace.to_str().unwrap()]);
    assert!(
        json_array(&top["functions"])
            .iter()
            .any(|f| f["name"] == "buildList"),
        "{top}"
    );
}

/// `jsprof record --chrome ADDR --url URL FLAGS… -o DIR`: its output and its stderr as text.
fn record_url(addr: &str, url: &str, flags: &[&str], dir: &str) -> (Output, String) {
    let mut args = vec!["record", "--chrome", addr, "--url", url];
    args.extend_from_slice(flags);
    args.extend(["-o", dir]);
    let out = jsprof(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out, stderr)
}

#[test]
fn record_url_refuses_what_cannot_be_recorded() {
    let dir = out_dir("url-refused");
    let o = dir.to_str().unwrap();
    // No browser at the address.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap().to_string();
    drop(closed);
    let (out, err) = record_url(&addr, "http://127.0.0.1:9/", &["--trace"], o);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("--chrome {addr}: cannot open a tab there")),
        "{err}"
    );
    // Not a URL: refused before anything connects.
    for (url, says) in [
        ("localhost:8080", "give the scheme too"),
        ("example.com", "not a URL"),
    ] {
        let (out, err) = record_url(&addr, url, &["--trace"], o);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("--url {url}: {says}")), "{err}");
    }
    // --url needs --trace (and --chrome).
    let (out, err) = record_url(&addr, "http://127.0.0.1:9/", &[], o);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--trace"), "{err}");
    assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
}

/// A server that sends the head and the start of a page, then never finishes it: the page never
/// fires its load event.
fn hanging_site() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n\
                  <!doctype html><title>never done</title><p>loading",
            );
            held.push(stream);
        }
    });
    format!("http://{addr}/")
}

#[test]
fn record_url_keeps_the_trace_of_a_page_that_does_not_load() {
    let Some(browser) = node_and_chromium("url-broken") else {
        return;
    };
    let dir = out_dir("url-broken");
    let o = dir.to_str().unwrap();

    // A refused connection: the net error is named, the trace of the attempt kept, exit 2.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let (out, err) = record_url(&browser.addr, &refused, &["--trace", "--json"], o);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{refused} did not load: net::ERR_CONNECTION_REFUSED"
        )),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["stop_reason"],
        "NavigationFailed(\"net::ERR_CONNECTION_REFUSED\")"
    );
    let kept = find(&v, "trace");
    assert!(kept.exists());
    // The kept trace loads: no navigation to the URL in it.
    let kept = jsprof_json(&["insights", kept.to_str().unwrap(), "--json"]);
    let navigations = json_array(&kept["navigations"]);
    assert!(
        navigations.iter().all(|n| n["url"] != refused.as_str()),
        "{kept}"
    );

    // No load event: stopped at --load-timeout, warned, the trace kept, exit 0.
    let hanging = hanging_site();
    let started = Instant::now();
    let (out, err) = record_url(
        &browser.addr,
        &hanging,
        &["--trace", "--load-timeout", "2", "--json"],
        o,
    );
    assert!(out.status.success(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["stop_reason"], "LoadTimedOut", "{v}");
    let message = v["warnings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{hanging} fired no load event within 2 s")),
        "{message}"
    );
    assert!(err.contains("fired no load event"), "{err}");
    assert!(find(&v, "trace").exists());

    // --duration decides instead of the load event: still said when it never came.
    let (out, err) = record_url(
        &browser.addr,
        &hanging,
        &["--trace", "--duration", "1.5", "--json"],
        o,
    );
    assert!(out.status.success(), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["stop_reason"], "Duration", "{v}");
    let message = v["warnings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("had not fired its load event when the recording stopped"),
        "{message}"
    );
    // Chromium traces one recording at a time: a page load while another trace runs is refused
    // with Chromium's reason, and its tab closed.
    let mut other = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_jsprof"))
            .args([
                "record",
                "--chrome",
                &browser.addr,
                "--trace",
                "--duration",
                "3",
            ])
            .args(["-o", o])
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
        "jsprof record",
    );
    let mut lines = BufReader::new(other.stderr.take().unwrap()).lines();
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("jsprof: recording") {
            break;
        }
    }
    let (out, err) = record_url(&browser.addr, &refused, &["--trace"], o);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot start recording") && err.contains("Tracing has already been started"),
        "{err}"
    );
    for _ in lines {}
    assert!(other.wait().unwrap().success());
    assert!(listing(&dir).iter().all(|f| !f.ends_with(".partial")));
    // Every tab the recordings opened is closed again. A closed target leaves Chromium's
    // list a moment after `Page.close` returns (longer on a busy machine), so the list is read
    // until it is down to the user's page, for at most 10 s.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut pages = tabs(&browser.addr);
    while pages.len() > 1 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        pages = tabs(&browser.addr);
    }
    assert_eq!(pages.len(), 1, "{pages:?}");
}

#[test]
fn serve_records_a_page_load_by_url() {
    let Some(browser) = node_and_chromium("serve-url") else {
        return;
    };
    let site = pageload_site();
    let s = crate::serve::serve(&crate::serve::data_dir("pageurl"), &[]);
    let target = format!("chrome:{}", browser.addr);
    for (body, says) in [
        (
            json!({"target": target, "record": ["cpu"], "url": site.url()}),
            "`url` needs `trace`",
        ),
        (
            json!({"target": browser.addr, "record": ["trace"], "url": site.url()}),
            "`url` needs a Chromium target",
        ),
        (
            json!({"target": target, "record": ["trace"], "url": "localhost:1"}),
            "url localhost:1: give the scheme too",
        ),
        (
            json!({"target": target, "record": ["trace"], "url": "file:///etc/passwd"}),
            "only http:// and https:// pages",
        ),
    ] {
        let r = s
            .post_json("/api/sessions", body.clone())
            .expect(400, &body.to_string());
        let message = r.json()["message"].as_str().unwrap().to_string();
        assert!(message.contains(says), "{body}: {message}");
    }
    let r = s
        .post_json(
            "/api/sessions",
            json!({"target": target, "record": ["trace"], "url": site.url()}),
        )
        .expect(201, "");
    let id = r.json()["session_id"].as_str().unwrap().to_string();
    // The session ends by itself once the page has loaded and settled.
    let deadline = Instant::now() + Duration::from_secs(60);
    let session = loop {
        let session = s.get(&format!("/api/sessions/{id}")).json();
        if session["state"] != "recording" {
            break session;
        }
        assert!(Instant::now() < deadline, "still recording: {session}");
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(session["state"], "stopped", "{session}");
    assert_eq!(session["warnings"], json!([]), "{session}");
    let artifact = &session["artifacts"][0];
    assert_eq!(artifact["kind"], "trace", "{session}");
    let file = std::fs::read_dir(s.data.join("sessions").join(&id))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".trace.json"))
        .expect("the session's trace");
    // The same document as the CLI's on the same file.
    let insights = s.get(&format!(
        "/api/sessions/{id}/artifacts/{}/insights",
        artifact["artifact_id"]
    ));
    assert_eq!(insights.status, 200);
    let cli = jsprof_json(&["insights", file.to_str().unwrap(), "--json"]);
    assert_eq!(insights.json(), cli);
    assert!(
        tabs(&browser.addr)
            .iter()
            .all(|t| t["url"] != site.url().as_str()),
        "the session's tab is closed"
    );
    if let Some(want) = insights_oracle(&file) {
        assert_matches_the_trace_engine(&file, &want);
    }
    let doc = s.get("/api/openapi.json").json();
    assert!(doc["components"]["schemas"]["StartRequest"]["properties"]
        .get("url")
        .is_some());
}
