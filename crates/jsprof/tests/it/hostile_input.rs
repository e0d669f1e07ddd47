//! Hostile inputs, built at test time (no big files in the repository), each run under an
//! address-space limit of 3 GiB and a time limit: the only acceptable outcomes are exit 0 (with
//! warnings) or exit 2 with a message that names the limit or what was expected — never a
//! signal (an allocation failure aborts), a panic (101) or a hang.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::Value;

use crate::support::{fixtures, json_array, output_within, temp_file};

const ADDRESS_SPACE: u64 = 3 << 30;
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Runs `jsprof args` with at most 3 GiB of address space, killed after 60 s.
fn jsprof_limited(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jsprof"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE as libc::rlim_t,
                rlim_max: ADDRESS_SPACE as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = crate::support::KillOnDrop::spawn(&mut cmd, "jsprof");
    output_within(child, TIME_LIMIT, &format!("jsprof {args:?}"))
}

/// Asserts a clean outcome: exit 0, or exit 2 with a message containing `expect`.
fn assert_clean(what: &str, out: &Output, expect: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {}
        Some(2) => assert!(
            stderr.contains(expect),
            "{what}: exit 2 without {expect:?} in: {stderr}"
        ),
        Some(code) => panic!("{what}: exit {code}: {stderr}"),
        None => panic!("{what}: killed by a signal ({:?}): {stderr}", out.status),
    }
}

fn failed_with(what: &str, out: &Output, expect: &str) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_clean(what, out, expect);
}

fn ok_json(what: &str, out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    text
}

fn top_json(path: &Path) -> Output {
    jsprof_limited(&["top", "--json", "--limit", "0", p(path)])
}

/// A `.cpuprofile` of one chain of `depth` frames below the root, named `f{id:07}` (unique), and
/// the samples given as node ids (2 = the first frame, `depth + 1` = the leaf).
fn chain_profile(depth: usize, samples: &[usize], delta_us: u64) -> String {
    let mut text = String::from(r#"{"nodes":["#);
    for id in 1..=depth + 1 {
        if id > 1 {
            text.push(',');
        }
        let children = if id <= depth {
            format!("[{}]", id + 1)
        } else {
            "[]".to_string()
        };
        let name = if id == 1 {
            "(root)".to_string()
        } else {
            format!("f{id:07}")
        };
        text.push_str(&format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"a.js","lineNumber":{id},"columnNumber":0}},"children":{children}}}"#
        ));
    }
    let ids: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
    text.push_str(&format!(
        r#"],"startTime":0,"endTime":{},"samples":[{}],"timeDeltas":[{}]}}"#,
        samples.len() as u64 * delta_us,
        ids.join(","),
        vec![delta_us.to_string(); samples.len()].join(",")
    ));
    text
}

#[test]
fn a_30000_deep_profile_exports_as_folded_in_little_memory() {
    // One chain of 30,000 frames, sampled at its leaf: every stack's full path as a string
    // would take 30,000² / 2 × ~20 bytes, about 9 GB.
    const DEPTH: usize = 30_000;
    // Ids 1 (root) to DEPTH: the leaf is node DEPTH, a chain of DEPTH - 1 frames.
    let text = chain_profile(DEPTH - 1, &[DEPTH, DEPTH, DEPTH], 1000);
    let input = temp_file("deep.cpuprofile", text.as_bytes());
    let output = input.with_extension("folded");
    let out = jsprof_limited(&["export", "-f", "folded", "-o", p(&output), p(&input)]);
    assert_clean("deep folded export", &out, "");
    assert_eq!(out.status.code(), Some(0));
    let folded = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = folded.lines().collect();
    // The leaf line holds the whole chain; DevTools' timing may add its own lines (the last
    // sample's duration), but the deep path is there once with every frame in order.
    let deep: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains(&format!("f{DEPTH:07}")))
        .collect();
    assert_eq!(deep.len(), 1, "{folded:.300}");
    let frames: Vec<&str> = deep[0].rsplit_once(' ').unwrap().0.split(';').collect();
    assert_eq!(frames.len(), DEPTH - 1);
    assert!(frames[0].starts_with("f0000002 a.js:3"), "{}", frames[0]);
}

/// `{"nodes":[` and then 12 GiB of blanks, as gzip members: one member of 64 MiB of blanks
/// compressed once and written 192 times (gzip readers read concatenated members).
fn gzip_bomb(path: &Path) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut head = GzEncoder::new(Vec::new(), Compression::fast());
    head.write_all(br#"{"nodes":["#).unwrap();
    file.write_all(&head.finish().unwrap()).unwrap();
    let mut blanks = GzEncoder::new(Vec::new(), Compression::best());
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..64 {
        blanks.write_all(&chunk).unwrap();
    }
    let member = blanks.finish().unwrap();
    for _ in 0..(12u64 << 30) / (64 << 20) {
        file.write_all(&member).unwrap();
    }
    file.flush().unwrap();
}

#[test]
fn a_gzip_bomb_is_refused_at_the_ratio_limit() {
    let path = temp_file("bomb.cpuprofile.gz", b"");
    gzip_bomb(&path);
    assert!(std::fs::metadata(&path).unwrap().len() < 64 << 20);
    let out = top_json(&path);
    failed_with("gzip bomb", &out, "compression ratio");
    assert_clean("gzip bomb", &out, "JSPROF_MAX_INFLATED");
}

#[test]
fn an_absolute_inflated_limit_is_named_and_can_be_set() {
    // A real profile, gzipped, under a limit smaller than it: refused, naming the setting.
    let path = fixtures().join("cpu/tsc.cpuprofile.gz");
    let out = {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_jsprof"));
        cmd.args(["top", "--json", p(&path)])
            .env("JSPROF_MAX_INFLATED", "64K")
            .output()
            .unwrap()
    };
    failed_with("inflated limit", &out, "more than 64 KiB");
    assert_clean("inflated limit", &out, "JSPROF_MAX_INFLATED");
}

#[test]
fn dev_zero_is_refused_at_once_by_top_tree_and_threads() {
    for cmd in ["top", "tree", "threads"] {
        let out = jsprof_limited(&[cmd, "/dev/zero"]);
        failed_with(cmd, &out, "not JSON");
    }
}

#[test]
fn a_fifo_is_read_once() {
    let text = gunzip(&fixtures().join("cpu/node-mix.cpuprofile.gz"));
    let plain = temp_file("fifo-plain.cpuprofile", &text);
    let fifo = plain.with_file_name(format!("fifo-{}.cpuprofile", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Each command opens the FIFO once: `summary` (which sniffs heap snapshots first) too.
    for command in ["top", "summary"] {
        let writer_path = fifo.clone();
        let text = text.clone();
        // The writer blocks until jsprof opens the FIFO; it is left behind if jsprof never does.
        std::thread::spawn(move || {
            if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&writer_path) {
                let _ = w.write_all(&text);
            }
        });
        let args = |f: &Path| vec![command.to_string(), "--json".into(), p(f).to_string()];
        let run = |f: &Path| {
            let a = args(f);
            jsprof_limited(&a.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let from_fifo = ok_json(&format!("{command} on a FIFO"), &run(&fifo));
        let from_file = ok_json(&format!("{command} on the file"), &run(&plain));
        assert_eq!(from_fifo, from_file, "{command}");
    }
    let _ = std::fs::remove_file(&fifo);
}

#[test]
fn byte_order_marks_load_with_the_same_numbers() {
    let text = gunzip(&fixtures().join("cpu/node-mix.cpuprofile.gz"));
    let plain = ok_json(
        "plain",
        &top_json(&temp_file("bom-plain.cpuprofile", &text)),
    );
    let mut utf8 = b"\xEF\xBB\xBF".to_vec();
    utf8.extend_from_slice(&text);
    let (mut le, mut be) = (vec![0xFF, 0xFE], vec![0xFE, 0xFF]);
    for u in std::str::from_utf8(&text).unwrap().encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
        be.extend_from_slice(&u.to_be_bytes());
    }
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(&utf8).unwrap();
    let utf8_gz = gz.finish().unwrap();
    for (name, bytes) in [
        ("bom-utf8.cpuprofile", utf8),
        ("bom-utf8.cpuprofile.gz", utf8_gz),
        ("bom-utf16le.cpuprofile", le),
        ("bom-utf16be.cpuprofile", be),
    ] {
        let got = ok_json(name, &top_json(&temp_file(name, &bytes)));
        assert_eq!(got, plain, "{name}");
    }
}

fn warnings_of(v: &Value) -> Vec<(String, String)> {
    json_array(&v["warnings"])
        .iter()
        .map(|w| {
            (
                w["at"].as_str().unwrap().to_string(),
                w["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn has_warning(v: &Value, at: &str, words: &str) -> bool {
    warnings_of(v)
        .iter()
        .any(|(a, m)| a == at && m.contains(words))
}

#[test]
fn duplicated_keys_take_the_last_value_with_a_warning_in_every_reader() {
    let nodes = r#"[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},{"id":2,"callFrame":{"functionName":"first","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}},{"id":3,"callFrame":{"functionName":"last","scriptId":"1","url":"a.js","lineNumber":9,"columnNumber":0}}]"#;
    let cpu = format!(
        r#"{{"nodes":{nodes},"startTime":0,"endTime":4000,"samples":[2,2,2,2],"samples":[3,3,3,3],"timeDeltas":[1000,1000,1000,1000]}}"#
    );
    let v = ok_json(
        "cpuprofile",
        &top_json(&temp_file("dup.cpuprofile", cpu.as_bytes())),
    );
    assert!(has_warning(&v, "samples", "more than once"), "{v}");
    let names: Vec<&str> = json_array(&v["functions"])
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"last") && !names.contains(&"first"),
        "{names:?}"
    );

    let self_profile = r#"{"frames":[{"name":"first"}],"frames":[{"name":"last"}],"resources":[],"stacks":[{"frameId":0}],"samples":[{"timestamp":0,"stackId":0},{"timestamp":1,"stackId":0},{"timestamp":2,"stackId":0}]}"#;
    let v = ok_json(
        "selfprofile",
        &top_json(&temp_file("dup.jsprofile.json", self_profile.as_bytes())),
    );
    assert!(has_warning(&v, "frames", "more than once"), "{v}");
    assert!(v["functions"].to_string().contains("\"last\""), "{v}");

    let trace_events = |name: &str| {
        format!(
            r#"[{{"ph":"X","name":"{name}","pid":1,"tid":1,"ts":0,"dur":10,"cat":"devtools.timeline"}},{{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{{"name":"CrRendererMain"}}}}]"#
        )
    };
    let trace = format!(
        r#"{{"traceEvents":{},"traceEvents":{}}}"#,
        trace_events("First"),
        trace_events("Last")
    );
    let path = temp_file("dup.trace.json", trace.as_bytes());
    let v = ok_json("trace", &jsprof_limited(&["events", "--json", p(&path)]));
    assert!(has_warning(&v, "traceEvents", "more than once"), "{v}");
    let events = v["events"].to_string();
    assert!(
        events.contains("Last") && !events.contains("First"),
        "{events}"
    );

    let heap = r#"{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"first","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0},"selfSize":100,"id":2,"children":[]}]},"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[{"callFrame":{"functionName":"last","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0},"selfSize":100,"id":2,"children":[]}]},"samples":[]}"#;
    let v = ok_json(
        "heapprofile",
        &top_json(&temp_file("dup.heapprofile", heap.as_bytes())),
    );
    assert!(has_warning(&v, "head", "more than once"), "{v}");
    let functions = v["functions"].to_string();
    assert!(
        functions.contains("\"last\"") && !functions.contains("\"first\""),
        "{functions}"
    );
}

#[test]
fn huge_times_are_clamped_with_a_warning() {
    let cpu = r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}],"startTime":0,"endTime":1e30,"samples":[2,2,2],"timeDeltas":[1000,1e25,1000]}"#;
    let v = ok_json(
        "huge times",
        &top_json(&temp_file("huge.cpuprofile", cpu.as_bytes())),
    );
    assert!(
        warnings_of(&v).iter().any(|(_, m)| m.contains("clamped")),
        "{v}"
    );
}

/// A 1.6 MB profile with one 10,000-frame stack sampled at every depth: its whole bottom-up tree
/// has ~50 million nodes (each function a root with its whole caller chain). `tree --bottom-up
/// --max-depth 3` builds only three levels; without a depth the tree is cut at a stated depth
/// within a node budget; `report` and the service's `tree?bottom_up=1` stay bounded too. Before,
/// each took minutes and gigabytes (the service past 12 GB).
#[test]
fn a_10000_deep_bottom_up_tree_is_bounded() {
    const DEPTH: usize = 10_000;
    let samples: Vec<usize> = (2..=DEPTH + 1).collect();
    let text = chain_profile(DEPTH, &samples, 100);
    let input = temp_file("deep-bottom-up.cpuprofile", text.as_bytes());

    let out = jsprof_limited(&[
        "tree",
        "--bottom-up",
        "--max-depth",
        "3",
        "--json",
        p(&input),
    ]);
    let v = ok_json("tree --bottom-up --max-depth 3", &out);
    let nodes = json_array(&v["nodes"]);
    assert!(nodes.iter().all(|n| n["depth"].as_u64().unwrap() < 3));
    // Every function is a root, and the roots' totals are the function table's.
    let top = ok_json(
        "top",
        &jsprof_limited(&["top", "--json", "--limit", "0", p(&input)]),
    );
    let roots = nodes.iter().filter(|n| n["parent"].is_null()).count();
    assert_eq!(roots, json_array(&top["functions"]).len());

    let out = jsprof_limited(&["tree", "--bottom-up", "--json", p(&input)]);
    let v = ok_json("tree --bottom-up", &out);
    let cut = v["callers_cut_at_depth"]
        .as_u64()
        .expect("the cut is stated");
    assert!(cut >= 3, "cut at {cut}");
    assert!(json_array(&v["nodes"])
        .iter()
        .all(|n| n["depth"].as_u64().unwrap() < cut));

    let html = input.with_extension("html");
    let out = jsprof_limited(&["report", p(&input), "-o", p(&html)]);
    assert_clean("report", &out, "");
    assert_eq!(out.status.code(), Some(0));
}
