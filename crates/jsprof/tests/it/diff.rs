//! `jsprof diff` and `flamegraph --diff` on real profiles of `fixtures/diff/workload.js`
//! recorded before and after one deliberate change (`checksum` does 12 rounds instead of 1).
//! Expected values are computed here from each file's own `top`/`tree` (checked against
//! DevTools' numbers elsewhere), never pasted from the diff's output.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::support::{argv, fixtures, json_array, jsprof, jsprof_json, jsprof_ok, temp_file};

fn path(name: &str) -> String {
    fixtures().join(name).to_str().unwrap().to_string()
}

const BEFORE: &str = "diff/before.cpuprofile.gz";
const AFTER: &str = "diff/after.cpuprofile.gz";
/// The workload's functions that the change did not touch.
const UNCHANGED: [&str; 4] = ["sumSquares", "countPrimes", "fib", "makeData"];

/// (name, url) → (self ms, total ms) from `top`.
fn top(file: &str) -> HashMap<(String, String), (f64, f64)> {
    let t = jsprof_json(&["top", "--json", "--limit", "0", &path(file)]);
    let mut out: HashMap<(String, String), (f64, f64)> = HashMap::new();
    for f in json_array(&t["functions"]) {
        let k = (
            f["name"].as_str().unwrap().to_string(),
            f["url"].as_str().unwrap().to_string(),
        );
        let e = out.entry(k).or_default();
        e.0 += f["self_ms"].as_f64().unwrap();
        // The workload has one function per (name, url) among those the test looks at.
        e.1 = e.1.max(f["total_ms"].as_f64().unwrap());
    }
    out
}

fn find<'a>(rows: &'a [Value], name: &str) -> Option<&'a Value> {
    rows.iter().find(|r| r["name"] == name)
}

/// Names of the functions on some stack that reaches `leaf` in `file`'s call tree.
fn callers_of(file: &str, leaf: &str) -> HashSet<String> {
    let tree = jsprof_json(&["tree", "--json", &path(file)]);
    let nodes = json_array(&tree["nodes"]);
    let mut out = HashSet::new();
    for n in nodes.iter().filter(|n| n["name"] == leaf) {
        let mut p = n["parent"].as_u64();
        while let Some(id) = p {
            let parent = &nodes[id as usize];
            assert_eq!(parent["id"].as_u64(), Some(id));
            out.insert(parent["name"].as_str().unwrap().to_string());
            p = parent["parent"].as_u64();
        }
    }
    out
}

#[test]
fn the_changed_function_tops_the_growth_and_the_rest_stays_under_the_floor() {
    let d = jsprof_json(&["diff", "--json", &path(BEFORE), &path(AFTER)]);
    assert_eq!(d["kind"], "cpuprofile");
    assert_eq!(d["warnings"], serde_json::json!([]));
    let (a, b) = (top(BEFORE), top(AFTER));
    // Totals: the time on some function (the profiles have no gaps).
    let busy = |t: &HashMap<(String, String), (f64, f64)>| t.values().map(|v| v.0).sum::<f64>();
    let (ta, tb) = (busy(&a), busy(&b));
    assert!((d["before_total_ms"].as_f64().unwrap() - ta).abs() < 1e-6);
    assert!((d["after_total_ms"].as_f64().unwrap() - tb).abs() < 1e-6);
    let floor = (0.005 * ta.max(tb)).max(0.5);
    assert!((d["noise_floor_ms"].as_f64().unwrap() - floor).abs() < 1e-9);

    let rows = json_array(&d["functions"]);
    let first = &rows[0];
    assert_eq!(first["name"], "checksum");
    let key = (
        "checksum".to_string(),
        first["url"].as_str().unwrap().to_string(),
    );
    let (sa, sb) = (a[&key].0, b[&key].0);
    assert!((first["before_self_ms"].as_f64().unwrap() - sa).abs() < 1e-6);
    assert!((first["after_self_ms"].as_f64().unwrap() - sb).abs() < 1e-6);
    assert!((first["delta_self_ms"].as_f64().unwrap() - (sb - sa)).abs() < 1e-6);
    assert!((first["delta_total_percent"].as_f64().unwrap() - (sb - sa) / sa * 100.0).abs() < 1e-6);
    // Twelve rounds instead of one: it grew by far more than anything else.
    assert!(sb > 6.0 * sa, "checksum {sa} ms → {sb} ms");
    assert_eq!(first["line"], 56);
    assert_eq!(first["column"], 18);

    // The untouched functions are under the floor and not listed; everything listed besides
    // checksum is one of its callers (their totals grew with it).
    for name in UNCHANGED {
        assert!(find(rows, name).is_none(), "{name} is listed");
        let k = a.keys().find(|k| k.0 == name).unwrap();
        assert!((b[k].0 - a[k].0).abs() < floor, "{name}");
    }
    let callers: HashSet<String> = callers_of(AFTER, "checksum")
        .union(&callers_of(BEFORE, "checksum"))
        .cloned()
        .collect();
    for r in &rows[1..] {
        let name = r["name"].as_str().unwrap();
        assert!(
            callers.contains(name),
            "{name} is listed but does not call checksum"
        );
        assert!(r["delta_total_ms"].as_f64().unwrap().abs() >= floor);
    }
    // Sorted by the size of the change of self time.
    let d_self: Vec<f64> = rows
        .iter()
        .map(|r| r["delta_self_ms"].as_f64().unwrap().abs())
        .collect();
    assert!(d_self.windows(2).all(|w| w[0] >= w[1]));
    // Every function of either profile is listed or counted below the floor.
    let all: HashSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    assert_eq!(
        rows.len() as u64 + d["below_noise_floor"]["count"].as_u64().unwrap(),
        all.len() as u64
    );

    // The table says the same, checksum first.
    let out = jsprof(&["diff", &path(BEFORE), &path(AFTER)]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first_row = text.lines().nth(3).unwrap();
    assert!(first_row.contains("checksum"), "{text}");
    assert!(text.contains("changed by less than the noise floor"));
}

#[test]
fn key_and_normalize() {
    // By the whole function: the same rows here (no line moved between the two recordings).
    let d = jsprof_json(&argv(
        "diff --json --key function {} {}",
        &[&path(BEFORE), &path(AFTER)],
    ));
    assert_eq!(d["key"], "function");
    assert_eq!(d["functions"][0]["name"], "checksum");
    // A profile against itself, normalised or not: nothing changed.
    for extra in [&[][..], &["--normalize"][..]] {
        let mut args = vec!["diff", "--json"];
        args.extend_from_slice(extra);
        let p = path(AFTER);
        args.extend_from_slice(&[&p, &p]);
        let d = jsprof_json(&args);
        assert_eq!(d["functions"], serde_json::json!([]), "{extra:?}");
        assert_eq!(d["scale"], 1.0);
        assert_eq!(d["below_noise_floor"]["delta_self_ms"], 0.0);
    }
    // Normalised, AFTER is scaled to BEFORE's total: the grown checksum now crowds out the rest,
    // which appear to shrink.
    let d = jsprof_json(&["diff", "--json", "--normalize", &path(BEFORE), &path(AFTER)]);
    let scale = d["scale"].as_f64().unwrap();
    let (ta, tb) = (
        d["before_total_ms"].as_f64().unwrap(),
        d["after_total_ms"].as_f64().unwrap(),
    );
    assert!((ta - tb).abs() < 1e-6);
    assert!(scale < 0.5);
    let sum = find(json_array(&d["functions"]), "sumSquares").unwrap();
    assert!(sum["delta_self_ms"].as_f64().unwrap() < 0.0);

    // AFTER is 5.7× as long as BEFORE: the text says so and names --normalize; normalised, or
    // two profiles of like length, it says nothing.
    let note = |args: &[&str]| {
        let out = jsprof(args);
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let (b, a) = (path(BEFORE), path(AFTER));
    let said = note(&["diff", &b, &a]);
    assert!(
        said.contains("total is 5.7×") && said.contains("--normalize"),
        "{said}"
    );
    assert!(!note(&["diff", "--normalize", &b, &a]).contains("--normalize"));
    assert!(!note(&["diff", &a, &a]).contains("note:"));
}

#[test]
fn compares_across_input_kinds() {
    // The same samples as a JS Self-Profiling trace and as the .cpuprofile exported from it.
    let d = jsprof_json(&argv(
        "diff --json {} {}",
        &[
            &path("selfprofile/primes.jsprofile.json"),
            &path("selfprofile/primes.exported.cpuprofile"),
        ],
    ));
    assert_eq!(
        (d["kind"].as_str(), d["after_kind"].as_str()),
        (Some("selfprofile"), Some("cpuprofile"))
    );
    assert_eq!(d["functions"], serde_json::json!([]));
    assert!(d["before_total_ms"].as_f64().unwrap() > 0.0);
    assert!(
        (d["before_total_ms"].as_f64().unwrap() - d["after_total_ms"].as_f64().unwrap()).abs()
            < 0.01
    );

    // A trace's main thread's samples (`--samples`; by default a trace weighs its entries, the
    // Performance panel's view) against their export to .cpuprofile.
    let trace = path("trace/primes.trace.json.gz");
    let exported = temp_file("primes-main.cpuprofile", b"");
    let out = jsprof(&argv("export {} -f cpuprofile -o {}", &[&trace, &exported]));
    assert!(out.status.success());
    let d = jsprof_json(&argv("diff --json --samples {} {}", &[&trace, &exported]));
    assert_eq!(d["kind"], "trace");
    assert_eq!(d["functions"], serde_json::json!([]));

    // Filters apply to both sides: focused on checksum, only checksum (and nothing above it).
    let d = jsprof_json(&argv(
        "diff --json --focus ^checksum$ {} {}",
        &[&path(BEFORE), &path(AFTER)],
    ));
    let names: Vec<&str> = json_array(&d["functions"])
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["checksum"]);
}

#[test]
fn bad_inputs_are_usage_errors() {
    let out = jsprof(&["diff", &path(BEFORE), "/nonexistent/after.cpuprofile"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/after.cpuprofile"));
    let out = jsprof(&["diff", &path(BEFORE), &path("heapprofile/tsc.heapprofile")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("weighs bytes"));
}

#[test]
fn differential_flame_graph() {
    let svg = temp_file("diff.svg", b"");
    jsprof_ok(&argv(
        "flamegraph --diff {} {} -o {}",
        &[&path(BEFORE), &path(AFTER), &svg],
    ));
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (a, b) = (top(BEFORE), top(AFTER));
    let mut widest: HashMap<String, (f64, f64)> = HashMap::new();
    let callers = callers_of(AFTER, "checksum");
    // AFTER's shape: frame totals are AFTER's; data-before is BEFORE's total on the same path
    // (each workload function is called from `main` only, so its `top` total is that).
    let mut max_red = (0u32, String::new());
    for g in doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("f"))
    {
        let name = g.attribute("data-n").unwrap();
        let fill = g
            .children()
            .find(|c| c.has_tag_name("rect"))
            .unwrap()
            .attribute("fill")
            .unwrap()
            .to_string();
        if name == "all" {
            continue;
        }
        let before: f64 = g.attribute("data-before").unwrap().parse().unwrap();
        let total: f64 = g.attribute("data-total").unwrap().parse().unwrap();
        // A real profile has the odd sample with a broken stack (checksum straight under the
        // module); the frame under `main` is the one with (nearly) all the time.
        if name == "checksum" || UNCHANGED.contains(&name) {
            let e = widest.entry(name.to_string()).or_insert((0.0, 0.0));
            if total > e.1 {
                *e = (before, total);
            }
        }
        // Red = grew: rgb(255,g,g) with g lower the more it grew.
        if let Some(rest) = fill.strip_prefix("rgb(255,") {
            let g: u32 = rest.split(',').next().unwrap().parse().unwrap();
            assert!(total > before, "{name} is red but did not grow");
            let redness = 255 - g;
            // Tables show an empty name as `(anonymous)`; JSON keeps it empty.
            let json_name = if name == "(anonymous)" { "" } else { name };
            if redness > max_red.0 && name != "checksum" && !callers.contains(json_name) {
                max_red = (redness, name.to_string());
            }
        } else if fill.ends_with(",255)") {
            assert!(total < before, "{name} is blue but did not shrink");
        }
        if name == "checksum" {
            assert!(fill.starts_with("rgb(255,"), "checksum is {fill}");
        }
    }
    assert_eq!(widest.len(), 5);
    for (name, (before, total)) in &widest {
        let k = a.keys().find(|k| &k.0 == name).unwrap();
        // `top` totals include the stray samples; they are a fraction of a millisecond.
        assert!(
            (before / 1e6 - a[k].1).abs() < 0.5,
            "{name} before {before}"
        );
        assert!((total / 1e6 - b[k].1).abs() < 0.5, "{name} after {total}");
        assert!(before / 1e6 <= a[k].1 + 1e-6 && total / 1e6 <= b[k].1 + 1e-6);
    }
    // Nothing outside checksum's stack is more than faintly red.
    assert!(max_red.0 < 40, "{max_red:?}");
    assert!(text.contains("Differential Flame Graph"));
}
