//! CPU profile commands against DevTools' own numbers (the cpu oracle's goldens in `fixtures/`).

use std::collections::HashMap;

use serde_json::Value;

use crate::support::{
    argv, assert_ok, fixtures, golden, json_array, jsprof, jsprof_json, jsprof_ok,
};

/// Self and total must equal DevTools' within this many milliseconds.
const TOLERANCE_MS: f64 = 0.005;

/// The golden's function key: (name, url, 0-based line, 0-based column), `-1`/absent = unknown.
type Key = (String, String, i64, i64);

fn golden_key(f: &Value) -> Key {
    let pos = |v: &Value| v.as_i64().unwrap_or(-1);
    (
        f["name"].as_str().unwrap().to_string(),
        f["url"].as_str().unwrap().to_string(),
        pos(&f["line"]),
        pos(&f["column"]),
    )
}

/// Ours is 1-based with null for unknown: shift back to the oracle's 0-based form.
fn our_key(f: &Value) -> Key {
    let pos = |v: &Value| v.as_i64().map_or(-1, |p| p - 1);
    (
        f["name"].as_str().unwrap().to_string(),
        f["url"].as_str().unwrap().to_string(),
        pos(&f["line"]),
        pos(&f["column"]),
    )
}

/// `jsprof top --json --limit 0` on `input` equals the golden for every function.
fn assert_top_matches_golden(input: &str, golden_file: &str) {
    let path = fixtures().join(input);
    let gold = golden(&fixtures().join(golden_file));
    assert_top_matches(&path, &gold, input);
}

/// `jsprof top --json --limit 0` on `path` equals the cpu oracle's answer `gold` for every
/// function; `input` names it in messages.
pub(crate) fn assert_top_matches(path: &std::path::Path, gold: &Value, input: &str) {
    let ours = jsprof_json(&["top", "--json", "--limit", "0", path.to_str().unwrap()]);
    assert!(ours["kind"].as_str().is_some());
    let mut by_key: HashMap<Key, &Value> = HashMap::new();
    for f in json_array(&ours["functions"]) {
        assert!(
            by_key.insert(our_key(f), f).is_none(),
            "{input}: duplicate function {f}"
        );
    }
    let mut compared = 0;
    for g in json_array(&gold["functions"]) {
        // DevTools lists a NaN `(root)` row when a legacy file has more timestamps than samples;
        // it is an artifact of its undefined sample, not a function.
        if g["self"].is_null() {
            continue;
        }
        let key = golden_key(g);
        let o = by_key
            .remove(&key)
            .unwrap_or_else(|| panic!("{input}: DevTools has {key:?}, we do not"));
        let (os, ot) = (
            o["self_ms"].as_f64().unwrap(),
            o["total_ms"].as_f64().unwrap(),
        );
        let (gs, gt) = (g["self"].as_f64().unwrap(), g["total"].as_f64().unwrap());
        assert!(
            (os - gs).abs() <= TOLERANCE_MS,
            "{input}: {key:?} self {os} ms, DevTools {gs} ms"
        );
        assert!(
            (ot - gt).abs() <= TOLERANCE_MS,
            "{input}: {key:?} total {ot} ms, DevTools {gt} ms"
        );
        compared += 1;
    }
    assert!(
        by_key.is_empty(),
        "{input}: functions DevTools does not list: {:?}",
        by_key.keys().collect::<Vec<_>>()
    );
    assert!(compared > 0);
    let duration = ours["duration_ms"].as_f64().unwrap();
    let gold_duration = gold["duration_ms"].as_f64().unwrap();
    assert!(
        (duration - gold_duration).abs() <= TOLERANCE_MS,
        "{input}: duration {duration} vs {gold_duration}"
    );
}

#[test]
fn top_equals_devtools_on_node_cpuprofile() {
    assert_top_matches_golden(
        "cpu/tsc.cpuprofile.gz",
        "cpu/tsc.cpuprofile.devtools.json.gz",
    );
}

#[test]
fn top_equals_devtools_on_chrome_65_cpuprofile() {
    assert_top_matches_golden(
        "third-party/speedscope/Chrome-65-sucrase.cpuprofile.gz",
        "third-party/speedscope/Chrome-65-sucrase.cpuprofile.devtools.json.gz",
    );
}

#[test]
fn top_equals_devtools_on_legacy_head_cpuprofile() {
    assert_top_matches_golden(
        "third-party/speedscope/node-10.11.0-example.cpuprofile.gz",
        "third-party/speedscope/node-10.11.0-example.cpuprofile.devtools.json.gz",
    );
}

#[test]
fn top_equals_devtools_on_self_profiling_traces() {
    // Goldens made through tools/oracle/selfprofile-to-cpuprofile.py, then the cpu oracle.
    assert_top_matches_golden(
        "selfprofile/primes.jsprofile.json",
        "selfprofile/primes.jsprofile.json.devtools.json.gz",
    );
    assert_top_matches_golden(
        "selfprofile/mdn-example.jsprofile.json",
        "selfprofile/mdn-example.jsprofile.json.devtools.json.gz",
    );
}

/// A JS Self-Profiling trace in the specification's member order (`resources`, `frames`,
/// `stacks`, `samples`): 16,000 frames in 3 scripts (some native, without a resource), 16,000
/// stacks in a random tree whose frames recurse now and then, 5,000 samples 0.1–1 ms apart (one
/// in twenty idle, without a `stackId`). Its frames alone pass the 64 KB format detection sees.
/// Generated here, never committed.
fn spec_order_trace() -> Vec<u8> {
    let mut seed = 33u64;
    let mut rnd = move |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let n = 16_000usize;
    let mut frames = Vec::with_capacity(n);
    for i in 0..n {
        frames.push(if i % 50 == 49 {
            format!(r#"{{"name":"native{i}"}}"#)
        } else {
            format!(
                r#"{{"name":"f{i}","resourceId":{},"line":{},"column":{}}}"#,
                i % 3,
                1 + i % 900,
                1 + i % 80
            )
        });
    }
    let mut stacks: Vec<(Option<usize>, usize)> = Vec::with_capacity(n);
    for i in 0..n {
        let parent = (i > 0).then(|| rnd(i as u64) as usize);
        // Now and then the caller's function again: recursion on the path.
        let frame = match parent {
            Some(p) if rnd(7) == 0 => stacks[p].1,
            _ => i,
        };
        stacks.push((parent, frame));
    }
    let stacks: Vec<String> = stacks
        .iter()
        .map(|(parent, frame)| match parent {
            Some(p) => format!(r#"{{"frameId":{frame},"parentId":{p}}}"#),
            None => format!(r#"{{"frameId":{frame}}}"#),
        })
        .collect();
    let mut samples = Vec::new();
    let mut t = 5_000_000u64; // µs
    for _ in 0..5_000 {
        t += 100 + rnd(901);
        let ms = format!("{}.{:03}", t / 1000, t % 1000);
        samples.push(if rnd(20) == 0 {
            format!(r#"{{"timestamp":{ms}}}"#)
        } else {
            format!(r#"{{"timestamp":{ms},"stackId":{}}}"#, rnd(n as u64))
        });
    }
    format!(
        r#"{{"resources":["https://app.example/main.js","https://app.example/vendor.js","https://cdn.example/lib.js"],"frames":[{}],"stacks":[{}],"samples":[{}]}}"#,
        frames.join(","),
        stacks.join(","),
        samples.join(",")
    )
    .into_bytes()
}

/// Issue 33: the trace above was refused as "not a format jsprof reads" (detection wanted
/// `samples` in its first 64 KB). It loads, and `jsprof top` equals DevTools' numbers for it:
/// the reference conversion (`tools/oracle/selfprofile-to-cpuprofile.py`) then the cpu oracle.
#[test]
fn a_self_profiling_trace_in_the_specifications_member_order_equals_devtools() {
    let trace = spec_order_trace();
    let frames_end = trace
        .windows(10)
        .position(|w| w == b"],\"stacks\"")
        .unwrap();
    assert!(frames_end > 64 * 1024, "the frames pass what is sniffed");
    let path = crate::support::temp_file("spec-order.jsprofile.json", &trace);
    let ours = jsprof_json(&["top", "--json", "--limit", "1", path.to_str().unwrap()]);
    assert_eq!(ours["kind"], "selfprofile");
    let converter = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tools/oracle/selfprofile-to-cpuprofile.py");
    let out = match std::process::Command::new("python3")
        .arg(&converter)
        .arg(&path)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            crate::support::skip_without("python3", &format!("install Python 3 ({e})"));
            return;
        }
    };
    assert_ok(&out, "");
    let converted = crate::support::temp_file("spec-order.cpuprofile", &out.stdout);
    let Some(gold) = crate::support::run_oracle("cpu-oracle", &converted) else {
        return;
    };
    assert_top_matches(&path, &gold, "the spec-order trace");
}

/// The documentation's worked example, by hand. Timestamps (ms) rounded to µs:
/// 2972.735, 2973.490, 2974.570, 2977.865, 2978.490, 2978.695, 2978.950, 2979.405, 2980.030,
/// 2980.655. Stacks: #1 handleClick>Profiler, #3 handleClick>genPrimes>isPrime (×7), #2
/// handleClick>genPrimes (×2). Each sample lasts until the next; the last one the average
/// interval (2980.655 − 2972.735) / 9 = 0.880 ms.
#[test]
fn mdn_example_by_hand() {
    let path = fixtures().join("selfprofile/mdn-example.jsprofile.json");
    let ours = jsprof_json(&["top", "--json", "--limit", "0", path.to_str().unwrap()]);
    assert_eq!(ours["kind"], "selfprofile");
    let get = |name: &str| -> (f64, f64, Value, Value, Value) {
        let f = json_array(&ours["functions"])
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone();
        (
            f["self_ms"].as_f64().unwrap(),
            f["total_ms"].as_f64().unwrap(),
            f["url"].clone(),
            f["line"].clone(),
            f["column"].clone(),
        )
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let (s, t, url, line, column) = get("Profiler");
    assert!(close(s, 0.755) && close(t, 0.755));
    assert_eq!(
        (url, line, column),
        (Value::from(""), Value::Null, Value::Null)
    );
    let (s, t, url, line, column) = get("isPrime");
    assert!(close(s, 2980.030 - 2973.490) && close(t, 6.540), "{s} {t}");
    assert_eq!(
        (url.as_str().unwrap(), line.as_u64(), column.as_u64()),
        ("http://localhost:3000/generate.js", Some(6), Some(17))
    );
    let (s, t, ..) = get("genPrimes");
    assert!(
        close(s, 0.625 + 0.880) && close(t, 0.625 + 0.880 + 6.540),
        "{s} {t}"
    );
    let (s, t, url, line, column) = get("handleClick");
    assert!(close(s, 0.0) && close(t, 8.800), "{s} {t}");
    assert_eq!(
        (url.as_str().unwrap(), line.as_u64(), column.as_u64()),
        ("http://localhost:3000/main.js", Some(5), Some(27))
    );
    assert!(close(ours["duration_ms"].as_f64().unwrap(), 8.800));
    assert_eq!(json_array(&ours["functions"]).len(), 4);
}

/// Expected bytes straight from the `.heapprofile` JSON: a node's self is its `selfSize`; a
/// function's total counts each node's subtree once, at the outermost node of that function.
fn heapprofile_expected(tree: &Value) -> HashMap<Key, (i64, i64)> {
    fn subtree(node: &Value) -> i64 {
        node["selfSize"].as_i64().unwrap()
            + node["children"]
                .as_array()
                .map_or(0, |c| c.iter().map(subtree).sum())
    }
    fn key(node: &Value) -> Key {
        let cf = &node["callFrame"];
        (
            cf["functionName"].as_str().unwrap().to_string(),
            cf["url"].as_str().unwrap().to_string(),
            cf["lineNumber"].as_i64().unwrap(),
            cf["columnNumber"].as_i64().unwrap(),
        )
    }
    fn walk(node: &Value, on_stack: &mut Vec<Key>, out: &mut HashMap<Key, (i64, i64)>) {
        let k = key(node);
        let total = subtree(node);
        let e = out.entry(k.clone()).or_default();
        e.0 += node["selfSize"].as_i64().unwrap();
        if !on_stack.contains(&k) {
            e.1 += total;
        }
        on_stack.push(k);
        for c in node["children"].as_array().into_iter().flatten() {
            walk(c, on_stack, out);
        }
        on_stack.pop();
    }
    let mut out = HashMap::new();
    for c in json_array(&tree["head"]["children"]) {
        walk(c, &mut Vec::new(), &mut out);
    }
    // A function that allocated nothing anywhere in its subtrees is not listed.
    out.retain(|_, (_, total)| *total > 0);
    out
}

fn assert_heapprofile(input: &str) {
    let path = fixtures().join(input);
    let bytes = std::fs::read(&path).unwrap();
    // Heap profile trees nest deeper than serde_json's default limit (tsc's is 107 nodes deep).
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    de.disable_recursion_limit();
    let tree: Value = serde::Deserialize::deserialize(&mut de).unwrap();
    let expected = heapprofile_expected(&tree);
    let ours = jsprof_json(&["top", "--json", "--limit", "0", path.to_str().unwrap()]);
    assert_eq!(ours["kind"], "heapprofile");
    let functions = json_array(&ours["functions"]);
    assert_eq!(functions.len(), expected.len(), "{input}: function count");
    for f in functions {
        let key = our_key(f);
        let (s, t) = expected[&key];
        assert_eq!(
            (
                f["self_bytes"].as_i64().unwrap(),
                f["total_bytes"].as_i64().unwrap()
            ),
            (s, t),
            "{input}: {key:?}"
        );
    }
    let all: i64 = expected.values().map(|(s, _)| s).sum();
    assert_eq!(ours["total_bytes"].as_i64().unwrap(), all);
}

#[test]
fn heapprofile_bytes_equal_the_tree() {
    assert_heapprofile("heapprofile/tsc.heapprofile");
    assert_heapprofile("third-party/speedscope/Chrome-69-Heap-20181005T144546.heapprofile");
}

#[test]
fn top_reads_stdin_and_gzip() {
    let path = fixtures().join("cpu/tsc.cpuprofile.gz");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(["top", "--json", "--limit", "3", "-"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json_array(&v["functions"]).len(), 3);
    assert_eq!(v["functions"][0]["name"], "(garbage collector)");
}

#[test]
fn top_orders_by_total_and_prints_a_table() {
    let path = fixtures().join("cpu/tsc.cpuprofile.gz");
    let v = jsprof_json(&argv("top --json --by total --limit 0 {}", &[&path]));
    let totals: Vec<f64> = json_array(&v["functions"])
        .iter()
        .map(|f| f["total_ms"].as_f64().unwrap())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]));
    let out = jsprof(&["top", "--limit", "5", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.lines().next().unwrap().contains("Self %"));
    assert!(text.contains("ms"));
}

#[test]
fn top_equals_devtools_on_a_profile_recorded_here() {
    // fixtures/cpu/node-mix.js under `node --cpu-prof --cpu-prof-interval 200` (Node 20);
    // golden: target/oracle/cpu-oracle.mjs --calls on the same file.
    assert_top_matches_golden(
        "cpu/node-mix.cpuprofile.gz",
        "cpu/node-mix.cpuprofile.devtools.json.gz",
    );
}

/// Pins the layout of the human tables (the numbers in them are checked by `mdn_example_by_hand`).
#[test]
fn human_output_layout() {
    let path = fixtures().join("selfprofile/mdn-example.jsprofile.json");
    let top = jsprof(&["top", path.to_str().unwrap()]);
    insta::assert_snapshot!("top_mdn_example", String::from_utf8(top.stdout).unwrap());
    let summary = jsprof(&["summary", path.to_str().unwrap()]);
    let text = String::from_utf8(summary.stdout)
        .unwrap()
        .replace(path.to_str().unwrap(), "mdn-example.jsprofile.json");
    insta::assert_snapshot!("summary_mdn_example", text);
}

/// `top --range` clips like DevTools' range selection. On the MDN example, 1..5 ms lies inside
/// the run of isPrime samples (0.755 ms .. 7.295 ms from the start): 4 ms, all isPrime.
#[test]
fn top_range_clips_by_hand() {
    let path = fixtures().join("selfprofile/mdn-example.jsprofile.json");
    let v = jsprof_json(&["top", "--json", "--range", "1..5", path.to_str().unwrap()]);
    let f = &v["functions"][0];
    assert_eq!(f["name"], "isPrime");
    assert!((f["self_ms"].as_f64().unwrap() - 4.0).abs() < 1e-9, "{f}");
    assert!((f["self_percent"].as_f64().unwrap() - 100.0).abs() < 1e-9);
    // 7.295.. covers genPrimes' 0.625 + 0.880 ms and isPrime's last 0 ms: 1.505 ms in all.
    let v = jsprof_json(&argv("top --json --range 7.295.. {}", &[&path]));
    let total: f64 = json_array(&v["functions"])
        .iter()
        .map(|f| f["self_ms"].as_f64().unwrap())
        .sum();
    assert!((total - 1.505).abs() < 1e-6, "{v}");
}

/// `export --format chrome-trace` writes every timeline's events as complete events, one
/// `thread_name` record per thread, as many JS calls as `events` reports.
#[test]
fn chrome_trace_export_holds_the_timeline() {
    let path = fixtures().join("trace/primes.trace.json.gz");
    let out = crate::support::temp_file("primes.chrome-trace.json", b"");
    jsprof_ok(&argv(
        "export {} --format chrome-trace -o {}",
        &[&path, &out],
    ));
    let trace: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).expect("valid JSON");
    let events = json_array(&trace["traceEvents"]);
    let main_tid = 19545;
    let exported_calls = events
        .iter()
        .filter(|e| e["tid"] == main_tid && e["ph"] == "X" && e["args"]["type"] == "JS_CALL")
        .count();
    let ours = jsprof_json(&argv("events --json --type JS_CALL {}", &[&path]));
    assert_eq!(exported_calls, json_array(&ours["events"]).len());
    assert!(events.iter().any(|e| e["ph"] == "M"
        && e["name"] == "thread_name"
        && e["args"]["name"] == "CrRendererMain"));
}
