//! `jsprof serve --lake`: JS Self-Profiling traces posted to `/ingest/v1/selfprofile`, and
//! `.cpuprofile`/`.heapprofile` windows posted to `/ingest/v1/profile`. A headless Chromium page
//! profiles itself and posts cross-origin; refusals (origin, key, size, shape, labels) are checked
//! over raw HTTP; a SIGKILL right after many 202s loses none of them and duplicates none. Servers
//! bind 127.0.0.1 only.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::serve::{data_dir, raw_on, serve_refused, serving, Reply as Answer, Serve};
use crate::support::{all_rows, argv, chromium_command, fixtures, jsprof, KillOnDrop};

pub(crate) const KEY: &str = "ingest-key-0123456789abcdef";
const PATH: &str = "/ingest/v1/selfprofile";
const PROFILE_PATH: &str = "/ingest/v1/profile";

/// A lake directory, a key file and a data directory for a test.
pub(crate) fn setup(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let data = data_dir(&format!("ingest-{name}"));
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ingest-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let keys = root.join("keys.txt");
    std::fs::write(&keys, format!("# field keys\n{KEY}\n")).unwrap();
    (root.join("lake"), keys, data)
}

/// `jsprof serve --lake LAKE --ingest-key-file KEYS EXTRA…` under umask 022 (the usual default,
/// which leaves what a program creates readable by everyone unless it says otherwise).
pub(crate) fn serve_ingest(data: &Path, lake: &Path, keys: &Path, extra: &[&str]) -> Serve {
    let mut command = Command::new("sh");
    command
        .args(["-c", "umask 022 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_jsprof"));
    spawn_serve(command, data, lake, keys, extra)
}

/// Runs `COMMAND serve --addr 127.0.0.1:0 --data-dir DATA --lake LAKE --ingest-key-file KEYS
/// EXTRA…` (COMMAND ends in jsprof) and returns once the server printed its URL: after any spool
/// replay.
fn spawn_serve(
    mut command: Command,
    data: &Path,
    lake: &Path,
    keys: &Path,
    extra: &[&str],
) -> Serve {
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .arg("--lake")
        .arg(lake)
        .arg("--ingest-key-file")
        .arg(keys)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = KillOnDrop::spawn(&mut command, "jsprof serve");
    serving(child, data)
}

fn http(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    http_on(
        TcpStream::connect(addr).unwrap(),
        addr,
        method,
        path,
        headers,
        body,
    )
}

/// A TCP connection to `addr` (an IPv4 `host:port`) from the local address `from`: every
/// address of 127/8 is this host's, so a test can post as several clients.
fn connect_from(from: Ipv4Addr, addr: &str) -> TcpStream {
    use std::os::fd::FromRawFd;
    let target: SocketAddrV4 = addr.parse().unwrap();
    let sockaddr = |ip: Ipv4Addr, port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(ip).to_be(),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    let (local, remote) = (sockaddr(from, 0), sockaddr(*target.ip(), target.port()));
    // SAFETY: a socket this function owns, addresses that live across the calls; on success
    // the descriptor is handed to the TcpStream, which closes it.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket");
        let stream = TcpStream::from_raw_fd(fd);
        let bound = libc::bind(fd, (&raw const local).cast(), len);
        assert_eq!(bound, 0, "bind {from}: {}", std::io::Error::last_os_error());
        let connected = libc::connect(fd, (&raw const remote).cast(), len);
        assert_eq!(
            connected,
            0,
            "connect {addr}: {}",
            std::io::Error::last_os_error()
        );
        stream
    }
}

/// [`raw_on`] with the `Host` header `addr` added.
fn http_on(
    stream: TcpStream,
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut all = vec![("Host", addr)];
    all.extend_from_slice(headers);
    raw_on(stream, method, path, &all, body)
}

/// The primes fixture with every sample moved by `shift` ms: the same work, other bytes (so
/// another content hash).
fn trace_variant(shift: usize) -> Vec<u8> {
    let text = std::fs::read(fixtures().join("selfprofile/primes.jsprofile.json")).unwrap();
    let mut v: Value = serde_json::from_slice(&text).unwrap();
    for s in v["samples"].as_array_mut().unwrap() {
        let t = s["timestamp"].as_f64().unwrap();
        s["timestamp"] = Value::from(t + shift as f64);
    }
    serde_json::to_vec(&v).unwrap()
}

fn post(s: &Serve, query: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    http(&s.addr, "POST", &format!("{PATH}?{query}"), headers, body)
}

/// `jsprof lake sql LAKE QUERY --json`: its rows.
pub(crate) fn lake_rows(lake: &Path, sql: &str) -> Vec<Value> {
    let out = jsprof(&["lake", "sql", lake.to_str().unwrap(), sql, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["rows"].as_array().cloned().unwrap_or_default()
}

#[test]
fn refusals_say_why_and_cors_is_for_configured_origins_only() {
    let (lake, keys, data) = setup("refusals");
    let allowed = "http://127.0.0.1:8123";
    let s = serve_ingest(
        &data,
        &lake,
        &keys,
        &["--ingest-origin", allowed, "--ingest-max-bytes", "8K"],
    );
    let good = std::fs::read(fixtures().join("selfprofile/mdn-example.jsprofile.json")).unwrap();
    let q = format!("key={KEY}&page=%2Fcart&release=1.4.0");

    // Preflight: the configured origin is allowed, another gets no CORS headers at all.
    let pre = |origin: &str| {
        http(
            &s.addr,
            "OPTIONS",
            PATH,
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type"),
            ],
            b"",
        )
    };
    let ok = pre(allowed);
    assert_eq!(ok.status, 204, "{}", ok.head);
    assert_eq!(
        ok.header("access-control-allow-origin").as_deref(),
        Some(allowed)
    );
    assert!(ok
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    let evil = pre("http://evil.example");
    assert_eq!(evil.status, 403, "{}", evil.head);
    assert!(
        !evil.head.to_ascii_lowercase().contains("access-control-"),
        "{}",
        evil.head
    );
    // A simple POST (what sendBeacon sends, no preflight) from another origin is refused too.
    let r = post(&s, &q, &[("Origin", "http://evil.example")], &good);
    assert_eq!(r.status, 403);
    assert!(!r.head.to_ascii_lowercase().contains("access-control-allow"));

    // Keys: missing or wrong is 401; the admin token is not an ingest key.
    let r = post(&s, "page=%2Fcart&release=1.4.0", &[], &good);
    assert_eq!(r.status, 401);
    assert!(
        r.message().contains("ingest key is required"),
        "{}",
        r.message()
    );
    let r = post(&s, "key=nope-nope-nope-nope&page=a&release=1", &[], &good);
    assert_eq!(r.status, 401);
    let token_as_key = format!("key={}&page=a&release=1", s.token);
    assert_eq!(post(&s, &token_as_key, &[], &good).status, 401);
    // …and an ingest key is not the admin token.
    let r = http(
        &s.addr,
        "GET",
        &format!("/api/sessions?token={KEY}"),
        &[],
        b"",
    );
    assert_eq!(r.status, 401);

    // Size: over --ingest-max-bytes is 413, by Content-Length and by the bytes themselves.
    let big = vec![b' '; 9 * 1024];
    let r = post(&s, &q, &[], &big).expect(413, "");
    assert_eq!(r.json()["error"], "TOO_LARGE");
    let r = http(
        &s.addr,
        "POST",
        &format!("{PATH}?{q}"),
        &[("Transfer-Encoding", "chunked")],
        b"0\r\n\r\n",
    );
    // (An empty chunked body: refused as empty, not read forever. Its last chunk is sent: a
    // body that never ends is answered 408 by the body deadline, see hostile_serve.rs.)
    assert_eq!(r.status, 400);

    // Shape: not JSON, a .cpuprofile, missing labels, unknown parameters: 400 saying what.
    let r = post(&s, &q, &[], b"{\"frames\": [");
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"], "BAD_REQUEST");
    let cpu =
        std::fs::read(fixtures().join("selfprofile/mdn-example.exported.cpuprofile")).unwrap();
    for (query, body, says) in [
        (q.clone(), &cpu, "expected a JS Self-Profiling trace"),
        (
            format!("key={KEY}&page=%2Fcart"),
            &good,
            "`release` label is required",
        ),
        (format!("{q}&colour=red"), &good, "colour"),
    ] {
        let r = post(&s, &query, &[], body);
        assert_eq!(r.status, 400, "{query}");
        assert!(r.message().contains(says), "{}", r.message());
    }

    // And a good one, by Bearer key, from the allowed origin: 202 with the CORS allowance.
    let r = post(
        &s,
        "page=%2Fcart&release=1.4.0&label.tenant=acme",
        &[
            ("Authorization", &format!("Bearer {KEY}")),
            ("Origin", allowed),
        ],
        &good,
    )
    .expect(202, "");
    assert_eq!(
        r.header("access-control-allow-origin").as_deref(),
        Some(allowed)
    );
    assert_eq!(r.json()["kind"], "selfprofile");
}

/// Issue 33 (Low): wrong ingest keys were never throttled — a guesser could try thousands a
/// second. Now an address that sent 10 wrong keys within a minute gets 429 with `Retry-After`
/// (1 s, doubling per round, as the admin API's tokens), whatever it sends; a right key from
/// another address is still accepted.
#[test]
fn wrong_ingest_keys_are_throttled_per_address() {
    let (lake, keys, data) = setup("throttle");
    let s = serve_ingest(&data, &lake, &keys, &[]);
    let good = std::fs::read(fixtures().join("selfprofile/mdn-example.jsprofile.json")).unwrap();
    let wrong = "key=wrong-wrong-wrong-wrong&page=%2Fa&release=1";
    let guesser = Ipv4Addr::new(127, 0, 0, 3);
    let post_from = |from: Ipv4Addr, query: &str, body: &[u8]| {
        let path = format!("{PATH}?{query}");
        http_on(
            connect_from(from, &s.addr),
            &s.addr,
            "POST",
            &path,
            &[],
            body,
        )
    };
    let mut statuses = Vec::new();
    let mut throttled = None;
    for _ in 0..40 {
        let r = post_from(guesser, wrong, b"");
        statuses.push(r.status);
        if r.status == 429 {
            throttled = Some(r);
            break;
        }
    }
    assert_eq!(&statuses[..10], &[401; 10], "{statuses:?}");
    let r = throttled.unwrap_or_else(|| panic!("never throttled: {statuses:?}"));
    assert_eq!(r.json()["error"], "TOO_MANY_REQUESTS");
    assert!(r.message().contains("wrong ingest key"), "{}", r.message());
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=300).contains(&retry), "{retry}");
    // Another address with the right key is not affected.
    post_from(
        Ipv4Addr::new(127, 0, 0, 4),
        &format!("key={KEY}&page=%2Fa&release=1"),
        &good,
    )
    .expect(202, "");
}

/// Issue 33 (Low): the admin token worked as an ingest key when the key file held it (the same
/// file given to --token-file and --ingest-key-file, say): the key is public — pages carry it —
/// so every visitor held the admin API. Now the server refuses to start with such a key, and
/// the admin token is never accepted at the ingest endpoint.
#[test]
fn the_admin_token_is_never_an_ingest_key() {
    let (lake, keys, data) = setup("admin-token");
    let token = "admin-token-0123456789";
    std::fs::write(&keys, format!("{KEY}\n{token}\n")).unwrap();
    let (lake_s, keys_s) = (lake.to_str().unwrap(), keys.to_str().unwrap());
    let (code, err) = serve_refused(
        &data,
        &[
            "--token",
            token,
            "--lake",
            lake_s,
            "--ingest-key-file",
            keys_s,
        ],
        "serve with an ingest key that is the admin token",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--ingest-key-file: a key is the admin token"),
        "{err}"
    );
    // With keys of its own, the admin token (as `?key=` or Bearer) is refused at the door.
    std::fs::write(&keys, format!("{KEY}\n")).unwrap();
    let s = serve_ingest(&data, &lake, &keys, &["--token", token]);
    let good = std::fs::read(fixtures().join("selfprofile/mdn-example.jsprofile.json")).unwrap();
    post(&s, &format!("key={token}&page=%2Fa&release=1"), &[], &good).expect(401, "");
    let bearer = format!("Bearer {token}");
    post(
        &s,
        "page=%2Fa&release=1",
        &[("Authorization", &bearer)],
        &good,
    )
    .expect(401, "");
    post(&s, &format!("key={KEY}&page=%2Fa&release=1"), &[], &good).expect(202, "");
}

#[test]
fn a_sigkill_after_many_202s_loses_and_duplicates_nothing() {
    let (lake, keys, data) = setup("sigkill");
    // Small batches: at the kill some traces are in the lake, some only in the spool.
    let s = serve_ingest(
        &data,
        &lake,
        &keys,
        &["--ingest-batch", "16", "--ingest-batch-ms", "50"],
    );
    let n = 240;
    let accepted = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let (addr, accepted) = (s.addr.clone(), accepted.clone());
            std::thread::spawn(move || {
                for i in (t..n).step_by(6) {
                    let body = trace_variant(i + 1);
                    let q = format!("{PATH}?key={KEY}&page=%2Fp{}&release=2.0", i % 5);
                    let r = http(&addr, "POST", &q, &[], &body).expect(202, "");
                    let hash = r.json()["source_hash"].as_str().unwrap().to_string();
                    accepted.lock().unwrap().push(hash);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut s = s;
    s.child.kill().unwrap(); // SIGKILL: no graceful flush.
    s.child.wait().unwrap();
    drop(s);
    let accepted = accepted.lock().unwrap().clone();
    assert_eq!(accepted.len(), n);

    // The restart replays the spool before it listens; its URL line means it is done.
    let s2 = serve_ingest(&data, &lake, &keys, &[]);
    let rows = lake_rows(
        &lake,
        "SELECT source_hash, count(*) AS n FROM profiles GROUP BY source_hash",
    );
    drop(s2);
    let mut in_lake = std::collections::HashMap::new();
    for r in &rows {
        in_lake.insert(
            r["source_hash"].as_str().unwrap().to_string(),
            r["n"].as_i64().unwrap(),
        );
    }
    for hash in &accepted {
        assert_eq!(in_lake.get(hash), Some(&1), "accepted trace {hash}");
    }
    assert_eq!(in_lake.len(), n, "nothing but the accepted traces");
    // The spool is empty once replayed.
    let left: Vec<_> = std::fs::read_dir(lake.join(".ingest-spool"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("seg-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 35: processes (the Node agent) post `.cpuprofile` and `.heapprofile` windows to
/// `/ingest/v1/profile` under the same keys and spool as browsers' traces. Refusals say what the
/// endpoint expected; two windows acknowledged and then killed before their batch was written
/// are replayed from the spool with their labels, thread and start; and `lake top --where
/// service=…` over each equals `jsprof top` on the file: time for the CPU window, bytes for the
/// heap window.
#[test]
fn profile_windows_land_in_the_lake_with_their_labels() {
    let (lake, keys, data) = setup("profile");
    // Batches are written after ten minutes: the kill below finds the windows in the spool.
    let s = serve_ingest(&data, &lake, &keys, &["--ingest-batch-ms", "600000"]);
    let cpu_file = fixtures().join("cpu/node-mix.cpuprofile.gz");
    let heap_file = fixtures().join("heapprofile/tsc.heapprofile");
    let cpu = std::fs::read(&cpu_file).unwrap(); // gzip, as an agent may send it
    let heap = std::fs::read(&heap_file).unwrap();
    let trace = std::fs::read(fixtures().join("selfprofile/mdn-example.jsprofile.json")).unwrap();
    let to = |query: &str, headers: &[(&str, &str)], body: &[u8]| {
        let path = format!("{PROFILE_PATH}?{query}");
        http(&s.addr, "POST", &path, headers, body)
    };
    let bearer = format!("Bearer {KEY}");
    let key = [("Authorization", bearer.as_str())];
    let brotli = [key[0], ("Content-Encoding", "br")];

    type Refused<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [u8], u16, &'a str);
    let refusals: [Refused; 7] = [
        ("service=shop", &[], &cpu, 401, "an ingest key is required"),
        (
            "service=shop",
            &key,
            &trace,
            400,
            "expected a .cpuprofile or a .heapprofile (sampling heap profile) JSON, got a \
             selfprofile",
        ),
        (
            "service=shop",
            &key,
            b"[1, 2",
            400,
            "expected a .cpuprofile",
        ),
        (
            "version=1.4",
            &key,
            &cpu,
            400,
            "the `service` label is required",
        ),
        (
            "service=shop&page=%2F",
            &key,
            &cpu,
            400,
            "unknown query parameter `page`",
        ),
        (
            "service=shop&thread=w1",
            &key,
            &cpu,
            400,
            "`main` or `worker-N`",
        ),
        ("service=shop", &brotli, &cpu, 400, "Content-Encoding `br`"),
    ];
    for (query, headers, body, status, words) in refusals {
        let r = to(query, headers, body);
        assert_eq!(r.status, status, "{query}: {}", r.head);
        assert!(r.message().contains(words), "{query}: {}", r.message());
    }

    let cpu_query = format!(
        "key={KEY}&service=shop&version=1.4&host=web-1&pid=4242&thread=main&stall=1\
         &stall_start_ms=12.5&stall_end_ms=330&stall_ms=317.5&heap_used=1048576\
         &heap_total=2097152&rss=52428800&external=4096&start_ms=1764374400000&label.region=eu"
    );
    let r = to(&cpu_query, &[("Content-Encoding", "gzip")], &cpu).expect(202, "");
    assert_eq!(r.json()["kind"], "cpuprofile");
    let heap_query = "service=shop&version=1.4&thread=worker-1&start_ms=1764374460000";
    let r = to(heap_query, &key, &heap).expect(202, "");
    assert_eq!(r.json()["kind"], "heapprofile");
    // The API's description lists both endpoints, each with the kinds it answers.
    let api = s.get_ok("/api/openapi.json").json();
    let kind = |path: &str| {
        let post = &api["paths"][path]["post"];
        let body = &post["responses"]["202"]["content"]["application/json"];
        body["schema"]["properties"]["kind"].clone()
    };
    assert_eq!(kind(PATH), serde_json::json!({"const": "selfprofile"}));
    let kinds = serde_json::json!({"enum": ["cpuprofile", "heapprofile"]});
    assert_eq!(kind(PROFILE_PATH), kinds);
    let mut s = s;
    s.child.kill().unwrap(); // SIGKILL: the windows are only in the spool.
    s.child.wait().unwrap();
    drop(s);

    // The restart replays the spool before it listens.
    let s2 = serve_ingest(&data, &lake, &keys, &[]);
    let rows = lake_rows(
        &lake,
        "SELECT kind, thread, weight_unit, CAST(start_time AS BIGINT) AS start_us, \
                labels['service'] AS service, labels['stall_ms'] AS stall_ms, \
                labels['rss'] AS rss, labels['region'] AS region, labels['source'] AS source \
         FROM profiles ORDER BY kind",
    );
    drop(s2);
    let row = |r: &Value| {
        let text = |k: &str| r[k].as_str().unwrap_or("-").to_string();
        let fields = [
            "kind",
            "thread",
            "weight_unit",
            "service",
            "stall_ms",
            "rss",
            "region",
        ];
        let mut out: Vec<String> = fields.iter().map(|k| text(k)).collect();
        out.push(text("source"));
        (out, r["start_us"].as_i64())
    };
    let got: Vec<_> = rows.iter().map(row).collect();
    let want = |fields: [&str; 8], start: i64| (fields.map(String::from).to_vec(), Some(start));
    assert_eq!(
        got,
        [
            want(
                [
                    "cpuprofile",
                    "main",
                    "ns",
                    "shop",
                    "317.5",
                    "52428800",
                    "eu",
                    "ingest"
                ],
                1_764_374_400_000_000
            ),
            want(
                [
                    "heapprofile",
                    "worker-1",
                    "bytes",
                    "shop",
                    "-",
                    "-",
                    "-",
                    "ingest"
                ],
                1_764_374_460_000_000
            ),
        ]
    );

    // `lake top` over each window is `jsprof top` over its file, found by its labels, its thread
    // column and its start.
    let lake_s = lake.to_str().unwrap();
    let top = |wheres: &str, extra: &[&str]| {
        let mut args = vec![
            "lake", "top", lake_s, "--where", wheres, "--json", "--limit", "0",
        ];
        args.extend(extra);
        crate::support::jsprof_json(&args)
    };
    for (file, doc, unit) in [
        (
            &cpu_file,
            top(
                "service=shop,version=1.4,thread=main,stall=1,since=2025-11-29",
                &[],
            ),
            "ns",
        ),
        (
            &heap_file,
            top("service=shop,version=1.4", &["--unit", "bytes"]),
            "bytes",
        ),
        (
            &heap_file,
            top("service=shop,thread=worker-1", &[]),
            "bytes",
        ),
    ] {
        let (want, want_total) = crate::lake::top_ns(file, &[]).expect("jsprof top reads it");
        assert_eq!(
            (doc["unit"].as_str(), doc["profiles"].as_i64()),
            (Some(unit), Some(1))
        );
        let what = format!("lake top over {}", file.display());
        crate::lake::assert_tables_equal(&crate::lake::table_of(&doc), &want, &what);
        assert_eq!(crate::lake::total_of(&doc), want_total, "{what}");
    }
    // `lake trend --by day` files each window under its start_ms's day, not its arrival's.
    let trend = crate::support::jsprof_json(&argv(
        "lake trend {} sorters --by day --where service=shop --json",
        &[&lake_s],
    ));
    let days: Vec<(&str, i64)> = trend["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| {
            (
                p["value"].as_str().unwrap(),
                p["profiles"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(days, [("2025-11-29", 1)]);
}

/// The page: profiles a named function burning CPU, then posts the trace with `fetch`
/// (JSON: a cross-origin request that needs a preflight) and reports the status back to the
/// page's own server at `/done`.
fn page_html() -> String {
    r#"<!doctype html><title>ingest</title><script>
function burnIngestHotFunction(ms) {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) { for (let i = 0; i < 1000; i++) x += Math.sqrt(i + x % 7); }
  return x;
}
(async () => {
  let status = 'none';
  try {
    const profiler = new Profiler({sampleInterval: 10, maxBufferSize: 10000});
    burnIngestHotFunction(600);
    const trace = await profiler.stop();
    const ingest = new URLSearchParams(location.search).get('ingest');
    const r = await fetch(ingest, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(trace)});
    status = r.status + ' ' + r.headers.get('content-type');
  } catch (e) { status = 'error ' + e; }
  await fetch('/done?status=' + encodeURIComponent(status));
})();
</script>"#
        .to_string()
}

/// Serves the page (with `Document-Policy: js-profiling`) and records `/done?status=…`.
fn page_server(html: String) -> (String, Arc<Mutex<Option<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let done = Arc::new(Mutex::new(None));
    let seen = done.clone();
    std::thread::spawn(move || {
        // A thread per connection: Chromium opens speculative connections that send nothing,
        // and one of those must not hold up the page's requests.
        for stream in listener.incoming().flatten() {
            let html = html.clone();
            let seen = seen.clone();
            std::thread::spawn(move || serve_page_request(stream, &html, &seen));
        }
    });
    (addr, done)
}

fn serve_page_request(stream: std::net::TcpStream, html: &str, seen: &Mutex<Option<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
    }
    let path = line.split(' ').nth(1).unwrap_or("/").to_string();
    let mut stream = stream;
    if let Some(q) = path.strip_prefix("/done?status=") {
        *seen.lock().unwrap() = Some(q.replace("%20", " ").replace("%2F", "/"));
        let _ = stream.write_all(
            b"HTTP/1.1 204 No Content\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        );
    } else if path == "/" || path.starts_with("/?") {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nDocument-Policy: js-profiling\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n",
            html.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(html.as_bytes());
    } else {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    }
}

#[test]
fn a_chromium_page_profiles_itself_and_posts_cross_origin() {
    let Some(chromium) = crate::support::chromium() else {
        return;
    };
    let (lake, keys, data) = setup("chromium");
    // The ingest server needs the page's origin and the page the ingest URL: the page server
    // starts first, and the page reads the URL from its own `?ingest=`.
    let (page_addr, done) = page_server(page_html());
    let origin = format!("http://{page_addr}");
    let s = serve_ingest(
        &data,
        &lake,
        &keys,
        &["--ingest-origin", &origin, "--ingest-batch-ms", "100"],
    );
    let ingest_url = format!(
        "http://{}{PATH}?key={KEY}&page=%2Fcheckout&release=3.1.0&label.tenant=acme",
        s.addr
    );
    let page = format!("{origin}/?ingest={}", crate::support::encode(&ingest_url));
    let profile_dir = lake.parent().unwrap().join("chromium-user-data");
    let _browser = KillOnDrop::spawn(
        chromium_command(&chromium, &[], &profile_dir, &page).stderr(Stdio::null()),
        "chromium",
    );
    let start = Instant::now();
    let status = loop {
        if let Some(s) = done.lock().unwrap().clone() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the page never reported"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.starts_with("202 application/json"), "{status}");

    // The batch reaches the lake within --ingest-batch-ms; `lake top` then lists the page's
    // function with the post's labels.
    let lake_s = lake.to_str().unwrap();
    let start = Instant::now();
    let top = loop {
        let labels =
            "page=/checkout,release=3.1.0,tenant=acme,browser=chrome,device=desktop,source=ingest";
        let out = jsprof(&argv(
            "lake top {} --where {} --limit 0 --json",
            &[&lake_s, &labels],
        ));
        if out.status.success() {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            if v.to_string().contains("burnIngestHotFunction") {
                break v;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the trace never reached the lake: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let rows = top["functions"].as_array().expect("functions");
    let hot = rows
        .iter()
        .find(|f| f["name"] == "burnIngestHotFunction")
        .expect("the page's function");
    assert!(hot["self_ms"].as_f64().unwrap_or(0.0) > 0.0, "{hot}");
    drop(s);
}

/// A load generator, not a check: `cargo test -p jsprof --test it ingest::throughput --
/// --ignored --nocapture` prints traces/s (tests never assert on wall time).
#[test]
#[ignore]
fn throughput() {
    let (lake, keys, data) = setup("throughput");
    let s = serve_ingest(&data, &lake, &keys, &[]);
    let (threads, per) = (16, 250);
    let bodies: Arc<Vec<Vec<u8>>> = Arc::new((0..threads * per).map(trace_variant).collect());
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (addr, bodies) = (s.addr.clone(), bodies.clone());
            std::thread::spawn(move || {
                for i in 0..per {
                    let q = format!("{PATH}?key={KEY}&page=%2Fbench&release=1");
                    let r = http(&addr, "POST", &q, &[], &bodies[t * per + i]);
                    assert_eq!(r.status, 202);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    let total = threads * per;
    println!(
        "ingest: {total} traces ({} bytes each) in {secs:.2} s = {:.0} traces/s ({threads} clients)",
        bodies[0].len(),
        total as f64 / secs
    );
}

/// `jsprof serve --lake …` with its address space limited to `limit` bytes (`prlimit --as`),
/// glibc's allocator held to two arenas (each thread's arena otherwise reserves 64 MiB of
/// address space it never uses). Returns once the server printed its URL: after any spool
/// replay.
fn serve_ingest_within(limit: u64, data: &Path, lake: &Path, keys: &Path, extra: &[&str]) -> Serve {
    let mut command = Command::new("prlimit");
    command
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_jsprof"))
        .env("MALLOC_ARENA_MAX", "2");
    spawn_serve(command, data, lake, keys, extra)
}

/// Issue 33, finding 1 through the public door: the 16,000-deep chain (849 KB, under the 1 MiB
/// default) posted to `/ingest/v1/selfprofile`. The server ran at 3.8 GB and wrote 28 MB of
/// Parquet; under a 3 GB limit it aborted after acknowledging, and every restart aborted again
/// replaying the spool. Now, under `lake::memory_limit` of the trace (360 MiB of address
/// space): the post is acknowledged, the server is killed before its batch is written (the
/// trace is only in the spool), the restart replays it within the same limit and serves, and
/// `lake top` equals `jsprof top` on the trace.
#[test]
fn a_16000_deep_chain_is_acked_stored_linearly_and_replayed_on_restart() {
    let (lake, keys, data) = setup("deep-chain");
    let trace = crate::lake::deep_chain_trace(16_000, 1_000);
    let limit = crate::lake::memory_limit(trace.len());
    // Batches are written after ten minutes: the kill below finds the trace in the spool.
    let s = serve_ingest_within(limit, &data, &lake, &keys, &["--ingest-batch-ms", "600000"]);
    post(
        &s,
        &format!("key={KEY}&release=3.0&page=%2Fdeep"),
        &[],
        &trace,
    )
    .expect(202, "");
    let mut s = s;
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "the server is still up"
    );
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    drop(s);

    let mut s2 = serve_ingest_within(limit, &data, &lake, &keys, &[]);
    let rows = lake_rows(&lake, "SELECT count(*) AS n FROM profiles");
    assert_eq!(rows[0]["n"], 1, "the spooled trace is in the lake");
    // The restarted server answers (its admin API included) and is still within its limit.
    http(
        &s2.addr,
        "GET",
        &format!("/api/sessions?token={}", s2.token),
        &[],
        b"",
    )
    .expect(200, "");
    assert!(s2.child.try_wait().unwrap().is_none());
    s2.child.kill().unwrap();
    s2.child.wait().unwrap();
    drop(s2);

    let bytes = crate::lake::parquet_bytes(&lake);
    assert!(
        bytes < 2 << 20,
        "{bytes} bytes of Parquet for a 16,000-deep chain"
    );
    let file = lake.with_file_name("chain.jsprofile.json");
    std::fs::write(&file, &trace).unwrap();
    let out =
        crate::lake::jsprof_within(limit, &all_rows(&["lake", "top"], lake.to_str().unwrap()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lake_top: Value = serde_json::from_slice(&out.stdout).unwrap();
    let top =
        crate::support::jsprof_json(&["top", file.to_str().unwrap(), "--json", "--limit", "0"]);
    // The same rows: the lake's sums over one profile are the file's.
    let want = crate::lake::table_of(&top);
    assert_eq!(want.len(), 16_000);
    crate::lake::assert_tables_equal(&crate::lake::table_of(&lake_top), &want, "lake top");
}

/// Waits (60 s at most) until the lake holds `n` profiles: a batch lands after its 202s.
fn await_profiles(lake: &Path, n: i64, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while lake_rows(lake, "SELECT count(*) AS n FROM profiles")[0]["n"] != n {
        assert!(Instant::now() < deadline, "{what} never reached the lake");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A sampling heap profile of one chain of `depth` distinct functions, nested as V8 writes it
/// (each node inside its parent's `children`): JSON as deep as the chain, a shape only
/// `.heapprofile` windows bring to the ingest. Its one sample of 64 bytes is at the bottom.
fn deep_heap_profile(depth: usize) -> Vec<u8> {
    let mut out = String::from("{\"head\":");
    for i in 0..depth {
        let size = if i + 1 == depth { 64 } else { 0 };
        out.push_str(&format!(
            "{{\"callFrame\":{{\"functionName\":\"f{i}\",\"lineNumber\":{i}}},\
             \"selfSize\":{size},\"id\":{},\"children\":[",
            i + 1
        ));
    }
    out.push_str(&"]}".repeat(depth));
    out.push_str(&format!(
        ",\"samples\":[{{\"size\":64,\"nodeId\":{depth},\"ordinal\":1}}]}}"
    ));
    out.into_bytes()
}

/// Issue 35: a `.heapprofile` window nested 10,000 deep (under the 1 MiB default) posted to
/// `/ingest/v1/profile` is acknowledged by a server within `lake::memory_limit` of it, whose
/// stacks are not the CLI's main thread's, and lands with the same bytes per function as
/// `jsprof top` on the file.
#[test]
fn a_10000_deep_heap_profile_window_is_acked_and_stored() {
    let (lake, keys, data) = setup("deep-heap");
    let window = deep_heap_profile(10_000);
    assert!(window.len() < 1 << 20, "{} bytes", window.len());
    let limit = crate::lake::memory_limit(window.len());
    let s = serve_ingest_within(limit, &data, &lake, &keys, &["--ingest-batch-ms", "50"]);
    let path = format!("{PROFILE_PATH}?key={KEY}&service=deep");
    let r = http(&s.addr, "POST", &path, &[], &window).expect(202, "");
    assert_eq!(r.json()["kind"], "heapprofile");
    await_profiles(&lake, 1, "the window");
    let mut s = s;
    assert!(s.child.try_wait().unwrap().is_none(), "the server is up");
    drop(s);
    let file = lake.with_file_name("deep.heapprofile");
    std::fs::write(&file, &window).unwrap();
    let (want, want_total) = crate::lake::top_ns(&file, &[]).expect("jsprof top reads it");
    // The head is the profile's root, not a function: 9,999 rows.
    assert_eq!((want.len(), want_total), (9_999, 64));
    let args = [
        "lake",
        "top",
        lake.to_str().unwrap(),
        "--where",
        "service=deep",
    ];
    let doc = crate::support::jsprof_json(&[&args[..], &["--json", "--limit", "0"]].concat());
    crate::lake::assert_tables_equal(&crate::lake::table_of(&doc), &want, "lake top");
    assert_eq!(crate::lake::total_of(&doc), want_total);
}

/// The spool's segment files under `lake`.
fn segments(lake: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(lake.join(".ingest-spool"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("seg-"))
        .collect();
    out.sort();
    out
}

/// Issue 33, finding 3: a label value whose partition directory name passes the file system's
/// 255-byte limit is refused at the door; one that reached the spool anyway (here a segment
/// spooled by a lake without partitions, replayed into one partitioned by `release`) fails only
/// its own trace: the others of its batch are written, it is set aside in `rejected/`, and the
/// server starts, and starts again, cleanly. And (a Low item) no file or directory it made is
/// readable by other users.
#[test]
fn a_poisoned_partition_label_fails_only_its_own_trace() {
    let (lake, keys, data) = setup("poison");
    let long = "%2F".repeat(100); // `/` × 100: 300 bytes once percent-encoded
    let spooled = lake.with_file_name("spooled");
    // A lake without partitions takes the long value: all three traces wait in one segment.
    let s = serve_ingest(&data, &spooled, &keys, &["--ingest-batch-ms", "600000"]);
    for (i, release) in ["1.0", long.as_str(), "2.0"].iter().enumerate() {
        post(
            &s,
            &format!("key={KEY}&page=%2Fhome&release={release}"),
            &[],
            &trace_variant(i + 1),
        )
        .expect(202, "");
    }
    let mut s = s;
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    drop(s);
    let segment = segments(&spooled).pop().expect("a spooled segment");

    let init = crate::lake::jsprof_umask_022(&[
        "lake",
        "init",
        lake.to_str().unwrap(),
        "--partition-label",
        "release",
    ]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    // As the server makes it (0700; the copy keeps the segment's 0600).
    std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
        .create(lake.join(".ingest-spool"))
        .unwrap();
    std::fs::copy(
        &segment,
        lake.join(".ingest-spool")
            .join(segment.file_name().unwrap()),
    )
    .unwrap();

    // The restart replays the segment: the two good traces land, the poisoned one is set aside.
    let data2 = data_dir("ingest-poison-2");
    let s = serve_ingest(&data2, &lake, &keys, &[]);
    let rows = lake_rows(
        &lake,
        "SELECT labels['release'] AS release FROM profiles ORDER BY release",
    );
    let releases: Vec<&str> = rows
        .iter()
        .map(|r| r["release"].as_str().unwrap())
        .collect();
    assert_eq!(releases, ["1.0", "2.0"]);
    assert!(segments(&lake).is_empty(), "the segment is done with");
    let rejected = lake.join(".ingest-spool/rejected");
    let mut kept: Vec<String> = std::fs::read_dir(&rejected)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept[0].ends_with(".rec") && kept[1].ends_with(".txt"),
        "{kept:?}"
    );
    let why = std::fs::read_to_string(rejected.join(&kept[1])).unwrap();
    assert!(
        why.contains("label `release`") && why.contains("255 bytes"),
        "{why}"
    );

    // At the door the same label is refused before the 202, naming the label and the limit.
    let r = post(
        &s,
        &format!("key={KEY}&page=%2Fhome&release={long}"),
        &[],
        &trace_variant(9),
    )
    .expect(400, "");
    let message = r.message();
    assert!(
        message.contains("label `release`") && message.contains("255 bytes"),
        "{message}"
    );
    // Other clients' traces go on being written.
    post(
        &s,
        &format!("key={KEY}&page=%2Fhome&release=3.0"),
        &[],
        &trace_variant(4),
    )
    .expect(202, "");
    let mut s = s;
    await_profiles(&lake, 3, "the third trace");
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    drop(s);

    // And the server starts again: nothing is replayed for ever.
    let s = serve_ingest(&data_dir("ingest-poison-3"), &lake, &keys, &[]);
    assert_eq!(s.get("/api/sessions").status, 200);
    assert_eq!(
        lake_rows(&lake, "SELECT count(*) AS n FROM profiles")[0]["n"],
        3
    );
    // Issue 33 (Low): the servers ran under umask 022, and everything they made — the lakes,
    // the spool, its segments and the record set aside in `rejected/` — is private.
    assert!(lake.join(".ingest-spool/rejected").is_dir());
    crate::lake::assert_private(&lake);
    crate::lake::assert_private(&spooled);
}
