//! Bad input gets a clear error (exit 2) or loads with warnings (exit 0); never a panic or hang.

use std::io::Read;

use serde_json::{json, Value};

use crate::support::{assert_ok, fixtures, json_array, jsprof, temp_file};

fn tsc_text() -> Vec<u8> {
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(fixtures().join("cpu/tsc.cpuprofile.gz")).unwrap(),
    )
    .read_to_end(&mut text)
    .unwrap();
    text
}

/// Runs `top --json` on `bytes`; returns (exit code, stdout JSON if any, stderr).
fn top(name: &str, bytes: &[u8]) -> (i32, Option<Value>, String) {
    let path = temp_file(name, bytes);
    let out = jsprof(&["top", "--json", "--limit", "0", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{name}: panic: {stderr}");
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).ok(),
        stderr,
    )
}

fn warnings(v: &Value) -> String {
    v["warnings"].to_string()
}

fn small_profile() -> Value {
    let frame = |name: &str, line: i64| json!({"functionName": name, "scriptId": "1", "url": "file:///a.js", "lineNumber": line, "columnNumber": 0});
    json!({
        "nodes": [
            {"id": 1, "callFrame": frame("(root)", -1), "children": [2]},
            {"id": 2, "callFrame": frame("main", 0), "children": [3]},
            {"id": 3, "callFrame": frame("work", 5), "children": []}
        ],
        "startTime": 0, "endTime": 400,
        "samples": [2, 3, 3, 2], "timeDeltas": [100, 100, 100, 100]
    })
}

#[test]
fn truncated_file_names_the_position() {
    let text = tsc_text();
    let (code, _, err) = top("truncated.cpuprofile", &text[..text.len() / 2]);
    assert_eq!(code, 2);
    assert!(
        err.contains("truncated.cpuprofile") && err.contains("truncated") && err.contains("column"),
        "{err}"
    );
}

#[test]
fn not_json_is_refused() {
    let (code, _, err) = top("garbage.cpuprofile", b"this is not a profile");
    assert_eq!(code, 2);
    assert!(err.contains("not JSON"), "{err}");
    let (code, _, err) = top("empty.cpuprofile", b"");
    assert_eq!(code, 2);
    assert!(err.contains("empty"), "{err}");
    let (code, _, err) = top("other.json", br#"{"hello": "world"}"#);
    assert_eq!(code, 2);
    assert!(err.contains("not a format jsprof reads"), "{err}");
}

#[test]
fn wrong_types_name_the_json_path() {
    let mut p = small_profile();
    p["nodes"][2]["callFrame"]["lineNumber"] = json!("five");
    let (code, _, err) = top("wrong-type.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 2);
    assert!(
        err.contains("nodes[2]") && err.contains("invalid type"),
        "{err}"
    );
    let mut p = small_profile();
    p["samples"] = json!(["a"]);
    let (code, _, err) = top("wrong-samples.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 2);
    assert!(err.contains("samples"), "{err}");
}

#[test]
fn cyclic_children_load_with_a_warning() {
    let mut p = small_profile();
    p["nodes"][2]["children"] = json!([2]); // work -> main -> work ...
    let (code, v, _) = top("cycle.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 0);
    let v = v.unwrap();
    assert!(
        warnings(&v).contains("reached a second time"),
        "{}",
        warnings(&v)
    );
    // The tree is still main > work: 400 µs in all.
    assert!((v["duration_ms"].as_f64().unwrap() - 0.4).abs() < 1e-9);
}

#[test]
fn unknown_sample_ids_are_dropped_with_a_warning() {
    let mut p = small_profile();
    p["samples"] = json!([2, 99, 3, 2]);
    let (code, v, _) = top("unknown-ids.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 0);
    let v = v.unwrap();
    assert!(warnings(&v).contains("samples[1]"), "{}", warnings(&v));
}

#[test]
fn deltas_shorter_than_samples_load_with_a_warning() {
    let mut p = small_profile();
    p["timeDeltas"] = json!([100, 100]);
    let (code, v, _) = top("short-deltas.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 0);
    let v = v.unwrap();
    assert!(warnings(&v).contains("timeDeltas"), "{}", warnings(&v));
    // Two samples remain: main at 100 µs, work at 200 µs lasting one average interval (100 µs).
    let work = json_array(&v["functions"])
        .iter()
        .find(|f| f["name"] == "work")
        .unwrap();
    assert!((work["self_ms"].as_f64().unwrap() - 0.1).abs() < 1e-9);
}

#[test]
fn missing_nodes_is_an_error_with_a_reason() {
    let (code, _, err) = top(
        "no-nodes.cpuprofile",
        br#"{"startTime": 0, "endTime": 1, "samples": [], "timeDeltas": []}"#,
    );
    assert_eq!(code, 2);
    assert!(err.contains("nodes"), "{err}");
}

#[test]
fn negative_deltas_are_sorted_like_devtools() {
    // Samples at 100, 300, 200, 400 µs: sorted to main@100, work@200, work@300, main@400.
    let mut p = small_profile();
    p["samples"] = json!([2, 3, 3, 2]);
    p["timeDeltas"] = json!([100, 200, -100, 200]);
    let (code, v, _) = top("negative.cpuprofile", p.to_string().as_bytes());
    assert_eq!(code, 0);
    let v = v.unwrap();
    let f = |name: &str| {
        json_array(&v["functions"])
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone()
    };
    assert!((f("work")["self_ms"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    // main: 100..200 self, and the last sample lasts the average interval (400-100)/3 = 100 µs.
    assert!((f("main")["self_ms"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    assert!((f("main")["total_ms"].as_f64().unwrap() - 0.4).abs() < 1e-9);
}

#[test]
fn closed_stdout_is_not_an_error() {
    use std::process::{Command, Stdio};
    let path = fixtures().join("cpu/tsc.cpuprofile.gz");
    let mut child = Command::new(env!("CARGO_BIN_EXE_jsprof"))
        .args(["top", "--limit", "0", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once, like `| head -0`
    let out = child.wait_with_output().unwrap();
    assert_ok(&out, "");
}
