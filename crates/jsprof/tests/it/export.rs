//! `jsprof export`: round trips through our own reader and DevTools', and independent readers
//! (npm `pprof-format`, speedscope's published JSON schema, Python's `opentelemetry-proto`) on
//! the other formats.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{
    argv, assert_ok, fixture_arg, fixtures, golden, json_array, jsprof, jsprof_json, jsprof_ok,
    output_ok, python, python_has, temp_file,
};
use crate::views::{key, top_by_key_with, weights, SAMPLED_FIXTURES};

fn export(input: &str, format: &str) -> PathBuf {
    let path = fixtures().join(input);
    let out = temp_file(&format!("{}.{format}", input.replace('/', "_")), b"");
    jsprof_ok(&argv(
        "export {} --format {} -o {}",
        &[&path, &format, &out],
    ));
    out
}

/// Duration (ns) or total bytes, and sample count, as `summary` states them.
fn whole(input: &str) -> (f64, bool, u64) {
    let s = jsprof_json(&argv("summary --json {}", &[&fixtures().join(input)]));
    let samples = s["threads"][0]["samples"].as_u64().unwrap();
    match s["duration_ms"].as_f64() {
        Some(ms) => (ms * 1e6, true, samples),
        None => (s["total_bytes"].as_f64().unwrap(), false, samples),
    }
}

#[test]
fn cpuprofile_round_trip_keeps_top() {
    for input in SAMPLED_FIXTURES {
        let out = export(input, "cpuprofile");
        // Exports carry the samples: a trace's are compared with `top --samples`.
        let a = jsprof_json(&argv(
            "top --json --samples --limit 0 {}",
            &[&fixtures().join(input)],
        ));
        let b = jsprof_json(&["top", "--json", "--limit", "0", out.to_str().unwrap()]);
        assert_eq!(a["functions"], b["functions"], "{input}");
        assert_eq!(a["duration_ms"], b["duration_ms"], "{input}");
        assert_eq!(a["total_bytes"], b["total_bytes"], "{input}");
        // Exporting the export changes nothing.
        let again = temp_file("again.cpuprofile", b"");
        let run = jsprof(&argv("export {} -f cpuprofile -o {}", &[&out, &again]));
        assert!(run.status.success());
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&again).unwrap(),
            "{input}: exporting the export changed it"
        );
    }
}

/// Each JS Self-Profiling fixture exported to `.cpuprofile` is the committed file the cpu oracle
/// ran on, and DevTools' numbers for it equal `jsprof top` on the original within 0.005 ms.
#[test]
fn exported_self_profiles_open_in_devtools_with_the_same_numbers() {
    for name in ["primes", "mdn-example"] {
        let input = format!("selfprofile/{name}.jsprofile.json");
        let committed = fixtures().join(format!("selfprofile/{name}.exported.cpuprofile"));
        let out = export(&input, "cpuprofile");
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&committed).unwrap(),
            "{name}: the export differs from the file the golden was made from"
        );
        let gold = golden(&fixtures().join(format!(
            "selfprofile/{name}.exported.cpuprofile.devtools.json.gz"
        )));
        let top = jsprof_json(&argv(
            "top --json --limit 0 {}",
            &[&fixtures().join(&input)],
        ));
        let ours: HashMap<(String, String, i64, i64), (f64, f64)> = json_array(&top["functions"])
            .iter()
            .map(|f| {
                let (n, u, l, c) = key(f);
                let z = |v: Option<u64>| v.map_or(-1, |v| v as i64 - 1);
                ((n, u, z(l), z(c)), weights(f))
            })
            .collect();
        let fns = json_array(&gold["functions"]);
        assert_eq!(fns.len(), ours.len(), "{name}");
        for g in fns {
            let k = (
                g["name"].as_str().unwrap().to_string(),
                g["url"].as_str().unwrap().to_string(),
                g["line"].as_i64().unwrap(),
                g["column"].as_i64().unwrap(),
            );
            let (s, t) = ours[&k];
            let (gs, gt) = (g["self"].as_f64().unwrap(), g["total"].as_f64().unwrap());
            assert!(
                (s - gs).abs() <= 0.005 && (t - gt).abs() <= 0.005,
                "{name}: {k:?}"
            );
        }
        let d = top["duration_ms"].as_f64().unwrap();
        assert!((d - gold["duration_ms"].as_f64().unwrap()).abs() <= 0.005);
    }
}

#[test]
fn folded_totals_equal_the_sample_time() {
    for input in SAMPLED_FIXTURES {
        let out = export(input, "folded");
        let text = std::fs::read_to_string(out).unwrap();
        let mut sum = 0i64;
        for line in text.lines() {
            let (stack, n) = line.rsplit_once(' ').expect("`stack weight`");
            assert!(!stack.is_empty());
            sum += n.parse::<i64>().unwrap();
        }
        let (total, timed, _) = whole(input);
        let expected = if timed { (total / 1e3).round() } else { total };
        assert!(
            (sum as f64 - expected).abs() <= 0.5,
            "{input}: {sum} vs {expected}"
        );
    }
}

#[test]
fn d3_tree_values_are_totals() {
    for input in SAMPLED_FIXTURES {
        let out = export(input, "d3");
        let bytes = std::fs::read(out).unwrap();
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        de.disable_recursion_limit();
        let tree: Value = serde::Deserialize::deserialize(&mut de).unwrap();
        let (total, timed, _) = whole(input);
        let root = tree["value"].as_f64().unwrap();
        let expected = if timed { total / 1e3 } else { total };
        assert!(
            (root - expected).abs() <= 1e-6 * expected.max(1.0),
            "{input}: {root}"
        );
        let mut todo = vec![&tree];
        while let Some(n) = todo.pop() {
            assert!(n["name"].is_string());
            let kids = json_array(&n["children"]);
            let sum: f64 = kids.iter().map(|c| c["value"].as_f64().unwrap()).sum();
            assert!(
                sum <= n["value"].as_f64().unwrap() * (1.0 + 1e-9) + 1e-6,
                "{input}"
            );
            todo.extend(kids);
        }
        // Deep trees drop their serde recursion guard deliberately; keep the stack in check.
        drop(tree);
    }
}

/// The Node readers in `tests/node` (npm install there). Under CI they must be installed; locally
/// their absence skips the check with a note.
pub(crate) fn node_reader(kind: &str, file: &Path) -> Option<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/node");
    if !dir.join("node_modules/pprof-format").exists()
        || !dir.join("node_modules/speedscope").exists()
    {
        crate::support::skip_without(
            &format!("the Node readers ({kind} check)"),
            &format!("run `npm ci` in {}", dir.display()),
        );
        return None;
    }
    let out = Command::new("node")
        .arg(dir.join("check-export.mjs"))
        .arg(kind)
        .arg(file)
        .output()
        .expect("run node");
    assert_ok(&out, "");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn pprof_decodes_with_our_totals() {
    for input in SAMPLED_FIXTURES {
        let out = export(input, "pprof");
        let Some(p) = node_reader("pprof", &out) else {
            return;
        };
        let (total, timed, samples) = whole(input);
        let want = if timed {
            ["samples", "count", "wall", "nanoseconds"]
        } else {
            ["samples", "count", "space", "bytes"]
        };
        assert_eq!(
            p["sample_types"],
            serde_json::json!([[want[0], want[1]], [want[2], want[3]]])
        );
        assert_eq!(p["default_sample_type"], want[2]);
        assert_eq!(p["totals"][0].as_u64().unwrap(), samples, "{input}");
        assert!(
            (p["totals"][1].as_f64().unwrap() - total).abs() <= 0.5,
            "{input}"
        );
        // Leaf-first: the first location's function carries self time, as `top` says.
        let top = top_by_key_with(fixtures().join(input).to_str().unwrap(), &["--samples"]);
        let mut top_self: HashMap<(String, String, u64), f64> = HashMap::new();
        for ((n, u, l, _), (s, _)) in top {
            let n = if n.is_empty() {
                "(anonymous)".to_string()
            } else {
                n
            };
            *top_self.entry((n, u, l.unwrap_or(0))).or_default() += if timed { s * 1e6 } else { s };
        }
        for f in json_array(&p["functions"]) {
            let k = (
                f["name"].as_str().unwrap().to_string(),
                f["filename"].as_str().unwrap().to_string(),
                f["start_line"].as_u64().unwrap(),
            );
            if k.0 == "(root)" && k.1.is_empty() && !top_self.contains_key(&k) {
                continue; // samples on the bare root
            }
            let ours = top_self[&k];
            let theirs = f["self"][1].as_f64().unwrap();
            assert!(
                (ours - theirs).abs() <= 1.0,
                "{input}: {k:?} {ours} vs {theirs}"
            );
        }
    }
}

#[test]
fn speedscope_validates_against_its_schema() {
    for input in SAMPLED_FIXTURES {
        let out = export(input, "speedscope");
        let Some(v) = node_reader("speedscope", &out) else {
            return;
        };
        assert_eq!(v["valid"], true, "{input}: {}", v["errors"]);
        let (total, timed, samples) = whole(input);
        let p = &v["profiles"][0];
        assert_eq!(p["unit"], if timed { "nanoseconds" } else { "bytes" });
        assert_eq!(p["samples"].as_u64().unwrap(), samples, "{input}");
        assert!(
            (p["total"].as_f64().unwrap() - total).abs() <= 0.5,
            "{input}"
        );
        assert_eq!(p["frames_in_range"], true);
    }
}

/// A trace with a worker: every export can pick a thread, and speedscope holds them all.
#[test]
fn exports_work_per_thread() {
    let input = "third-party/speedscope/Chrome-70-worker.json.gz";
    let path = &fixture_arg(input);
    let mut durations = Vec::new();
    for thread in ["1", "2"] {
        let top = jsprof_json(&argv(
            "top --json --samples --limit 0 --thread {} {}",
            &[&thread, &path],
        ));
        let ns = top["duration_ms"].as_f64().unwrap() * 1e6;
        durations.push(ns);
        let cpu = temp_file(&format!("worker-{thread}.cpuprofile"), b"");
        let folded = temp_file(&format!("worker-{thread}.folded"), b"");
        for (format, out) in [("cpuprofile", &cpu), ("folded", &folded)] {
            jsprof_ok(&argv(
                "export {} --thread {} -f {} -o {}",
                &[&path, &thread, &format, &out],
            ));
        }
        let again = jsprof_json(&["top", "--json", "--limit", "0", cpu.to_str().unwrap()]);
        assert_eq!(top["functions"], again["functions"], "thread {thread}");
        let sum: i64 = std::fs::read_to_string(&folded)
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
            .sum();
        assert!(
            (sum as f64 - (ns / 1e3).round()).abs() <= 0.5,
            "thread {thread}"
        );
    }
    assert_ne!(durations[0], durations[1]);
    let out = export(input, "speedscope");
    let Some(v) = node_reader("speedscope", &out) else {
        return;
    };
    assert_eq!(v["valid"], true, "{}", v["errors"]);
    let totals: Vec<f64> = json_array(&v["profiles"])
        .iter()
        .map(|p| p["total"].as_f64().unwrap())
        .collect();
    assert_eq!(totals.len(), 2);
    for (t, d) in totals.iter().zip(&durations) {
        assert!((t - d).abs() <= 0.5);
    }
}

/// How to get the package the OTLP check reads with (the version `.ci/run` installs).
const OTLP_PACKAGE: &str =
    "pip install opentelemetry-proto==1.45.2 (in target/lake-py), or run .ci/run's install step";

/// Python with the official OTLP definitions (`opentelemetry-proto`), or `None`: the test is
/// skipped, saying how to install them (a failure under CI).
pub(crate) fn otlp_python() -> Option<PathBuf> {
    let py = python();
    let module = "opentelemetry.proto.collector.profiles.v1development.profiles_service_pb2";
    python_has(&py, module, OTLP_PACKAGE).then_some(py)
}

/// `tests/python/check-otlp.py` on `file` (OTLP/JSON when `json`): its summary of the request.
pub(crate) fn check_otlp(py: &Path, file: &Path, json: bool) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/check-otlp.py");
    let mut check = Command::new(py);
    check.arg(&script).arg(file);
    if json {
        check.arg("--json");
    }
    let read = output_ok(&mut check, &format!("check-otlp.py on {}", file.display()));
    serde_json::from_slice(&read.stdout).unwrap()
}

/// A function as the exports name it: name (`(anonymous)` for an empty one), file, line (0:
/// unknown).
pub(crate) type ExportKey = (String, String, u64);

/// Per function, the self weight a `top` document (`jsprof top`, `jsprof lake top`) states: ns
/// (its ms ×1e6), or bytes.
pub(crate) fn top_self(top: &Value) -> HashMap<ExportKey, f64> {
    let timed = top["duration_ms"].is_number();
    let mut out: HashMap<ExportKey, f64> = HashMap::new();
    for f in json_array(&top["functions"]) {
        let (n, u, l, _) = key(f);
        let n = if n.is_empty() {
            "(anonymous)".into()
        } else {
            n
        };
        let s = weights(f).0 * if timed { 1e6 } else { 1.0 };
        *out.entry((n, u, l.unwrap_or(0))).or_default() += s;
    }
    out
}

/// One profile's functions as `check-otlp.py` sums them: (key, self).
pub(crate) fn otlp_functions(profile: &Value) -> Vec<(ExportKey, f64)> {
    json_array(&profile["functions"])
        .iter()
        .map(|f| {
            let (name, file) = (f[0].as_str().unwrap(), f[1].as_str().unwrap());
            let k = (name.to_string(), file.to_string(), f[2].as_u64().unwrap());
            (k, f[3].as_f64().unwrap())
        })
        .collect()
}

/// Every exported function's self is `top`'s to 0.5 (ns or bytes), samples on the bare root
/// (`(root)`) aside, and every function with self in `top` is there.
pub(crate) fn assert_same_self(
    what: &str,
    top: &HashMap<ExportKey, f64>,
    functions: Vec<(ExportKey, f64)>,
) {
    let mut seen = 0;
    for (k, theirs) in functions {
        let Some(&ours) = top.get(&k) else {
            assert_eq!((k.0.as_str(), k.1.as_str()), ("(root)", ""), "{what}");
            continue; // samples on the bare root
        };
        seen += 1;
        assert!(
            (ours - theirs).abs() <= 0.5,
            "{what}: {k:?} {ours} vs {theirs}"
        );
    }
    let with_self = top.values().filter(|&&s| s != 0.0).count();
    assert!(seen >= with_self, "{what}: {seen} of {with_self} functions");
}

/// `--format otlp` read by the official generated code (Python's `opentelemetry-proto`, see
/// `tests/python/check-otlp.py`), and `otlp-json` read to the same request: per thread a weight profile and a count profile, and each
/// function's self weight (summed over the samples whose leaf it is, by name, url and line)
/// equal to `jsprof top --samples`'s to the nanosecond or byte (top's ms, ×1e6, within 0.5 ns).
#[test]
fn otlp_reads_with_the_official_definitions_with_top_totals() {
    let Some(py) = otlp_python() else { return };
    let inputs = [
        ("cpu/tsc.cpuprofile.gz", 1),
        ("third-party/speedscope/Chrome-70-worker.json.gz", 2),
        ("heapprofile/tsc.heapprofile", 1),
    ];
    for (input, threads) in inputs {
        let path = fixture_arg(input);
        let read = |format: &str| {
            let out = temp_file(&format!("{}.{format}", input.replace('/', "_")), b"");
            let args = ["export", &path, "-f", format, "--service", "shop", "-o"];
            jsprof_ok(&[&args[..], &[out.to_str().unwrap()]].concat());
            check_otlp(&py, &out, format == "otlp-json")
        };
        let v = read("otlp");
        // OTLP/JSON reads as the same request.
        assert_eq!(read("otlp-json"), v, "{input}");
        assert_eq!(v["resource"], serde_json::json!({"service.name": "shop"}));
        assert_eq!(v["scope"][0], "jsprof");
        let summary = jsprof_json(&["summary", "--json", &path]);
        let profiles = json_array(&v["profiles"]);
        assert_eq!(profiles.len(), 2 * threads, "{input}");
        for pair in profiles.chunks(2) {
            let (weight, count) = (&pair[0], &pair[1]);
            let tid = weight["attributes"]["thread.id"].as_u64();
            assert_eq!(weight["attributes"], count["attributes"], "{input}");
            assert_eq!(tid.is_some(), input.contains("worker"), "{input}");
            let pid = weight["attributes"]["process.pid"].as_u64();
            assert_eq!(pid.is_some(), tid.is_some(), "{input}");
            let mut top_args = vec!["top", "--json", "--samples", "--limit", "0", &path];
            let tid_arg = tid.map(|t| t.to_string());
            if let Some(t) = &tid_arg {
                top_args.extend(["--thread", t]);
            }
            let top = jsprof_json(&top_args);
            let timed = top["duration_ms"].is_number();
            let want = if timed {
                "cpu,nanoseconds"
            } else {
                "space,bytes"
            };
            let types = |p: &Value| format!("{},{}", p["sample_type"][0], p["sample_type"][1]);
            assert_eq!(types(weight).replace('"', ""), want, "{input}");
            assert_eq!(types(count).replace('"', ""), "samples,count", "{input}");
            // The thread's sample count, and its whole duration or size.
            let thread = json_array(&summary["threads"])
                .iter()
                .find(|t| tid.is_none() || (t["tid"].as_u64(), t["pid"].as_u64()) == (tid, pid))
                .unwrap();
            assert_eq!(count["total"], thread["samples"], "{input} {tid:?}");
            let whole = if timed {
                top["duration_ms"].as_f64().unwrap() * 1e6
            } else {
                top["total_bytes"].as_f64().unwrap()
            };
            let total = weight["total"].as_f64().unwrap();
            assert!((total - whole).abs() <= 0.5, "{input}: {total} vs {whole}");
            let functions = otlp_functions(weight);
            assert_same_self(input, &top_self(&top), functions);
        }
    }
}

/// `--start-time` sets `time_unix_nano`: the thread's first sample on the wall clock, given the
/// profile's start (a .cpuprofile's `startTime`) as ms since the epoch or as RFC 3339 alike, read
/// by the official definitions; without it, 0 (unknown); with a format that has no such field,
/// refused.
#[test]
fn otlp_start_time_places_the_first_sample_on_the_wall_clock() {
    let Some(py) = otlp_python() else { return };
    let input = "cpu/tsc.cpuprofile.gz";
    let path = fixture_arg(input);
    let file = std::fs::File::open(fixtures().join(input)).unwrap();
    let doc: Value = serde_json::from_reader(flate2::read::GzDecoder::new(file)).unwrap();
    // DevTools' first timestamp: startTime plus the first delta (µs).
    let first_us = doc["timeDeltas"][0].as_i64().unwrap();
    let time = |start: &[&str]| {
        let out = temp_file(&format!("start-{}.otlp", start.len()), b"");
        let args = ["export", &path, "-f", "otlp", "-o", out.to_str().unwrap()];
        jsprof_ok(&[&args[..], start].concat());
        check_otlp(&py, &out, false)["profiles"][0]["time_unix_nano"]
            .as_u64()
            .unwrap()
    };
    let want = 1_700_000_000_000_000_000 + first_us as u64 * 1000;
    assert_eq!(time(&["--start-time", "1700000000000"]), want);
    assert_eq!(time(&["--start-time", "2023-11-14T22:13:20Z"]), want);
    assert_eq!(time(&[]), 0);
    let out = jsprof(&argv(
        "export {} -f folded -o - --start-time 1700000000000",
        &[&path],
    ));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = jsprof(&argv("export {} -f otlp -o - --start-time soon", &[&path]));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`soon`"),
        "{out:?}"
    );
}
