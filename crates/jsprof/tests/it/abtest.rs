//! Group comparisons (`jsprof diff --base … --target …`, `jsprof check` with `[abtest]`):
//! groups generated from a recorded profile (`fixtures/diff/before.cpuprofile.gz`) by varying
//! each function's weight per profile with a seeded RNG. A regression planted in the target group
//! is found; groups with nothing planted report (almost) nothing, and the false positives over 20
//! seeds are counted; a group against itself reports nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::support::{argv, fixtures, json_array, jsprof, jsprof_json, jsprof_ok};

/// SplitMix64: small, seeded, good enough to draw noise.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn fixture() -> Value {
    let f = std::fs::File::open(fixtures().join("diff/before.cpuprofile.gz")).unwrap();
    serde_json::from_reader(flate2::read::GzDecoder::new(f)).unwrap()
}

/// Each sample's function name (node id → callFrame.functionName).
fn sample_functions(p: &Value) -> Vec<String> {
    let names: HashMap<u64, String> = json_array(&p["nodes"])
        .iter()
        .map(|n| {
            (
                n["id"].as_u64().unwrap(),
                n["callFrame"]["functionName"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    json_array(&p["samples"])
        .iter()
        .map(|s| names[&s.as_u64().unwrap()].clone())
        .collect()
}

/// The fixture with every function's self time multiplied by its own factor in [0.7, 1.3)
/// (drawn per profile), and `planted`'s further by `factor`. Sample i lasts until sample i + 1,
/// so its weight is `timeDeltas[i + 1]`; the last sample keeps its length.
fn varied(p: &Value, functions: &[String], rng: &mut Rng, planted: Option<(&str, f64)>) -> Value {
    let mut factor: HashMap<&str, f64> = HashMap::new();
    let mut names: Vec<&str> = functions.iter().map(|s| s.as_str()).collect();
    names.sort();
    names.dedup();
    for n in names {
        factor.insert(n, rng.uniform(0.7, 1.3));
    }
    if let Some((name, k)) = planted {
        *factor.get_mut(name).unwrap() *= k;
    }
    let deltas: Vec<i64> = json_array(&p["timeDeltas"])
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let mut out = deltas.clone();
    for i in 0..deltas.len() - 1 {
        out[i + 1] = (deltas[i + 1] as f64 * factor[functions[i].as_str()]).round() as i64;
    }
    let start = p["startTime"].as_i64().unwrap();
    let last = start + deltas.iter().sum::<i64>();
    let tail = p["endTime"].as_i64().unwrap() - last;
    let mut q = p.clone();
    q["timeDeltas"] = Value::from(out.clone());
    q["endTime"] = Value::from(start + out.iter().sum::<i64>() + tail);
    q
}

/// `fixtures/diff/before.cpuprofile.gz`'s self share of `name` (from its samples).
fn self_share(p: &Value, functions: &[String], name: &str) -> f64 {
    let d = json_array(&p["timeDeltas"]);
    let (mut on, mut all) = (0.0, 0.0);
    for i in 0..d.len() - 1 {
        let w = d[i + 1].as_f64().unwrap();
        all += w;
        if functions[i] == name {
            on += w;
        }
    }
    on / all
}

/// Writes `n` varied profiles into a fresh directory `dir`.
fn group(dir: &Path, n: usize, rng: &mut Rng, planted: Option<(&str, f64)>) -> PathBuf {
    let p = fixture();
    let functions = sample_functions(&p);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        let v = varied(&p, &functions, rng, planted);
        std::fs::write(
            dir.join(format!("p{i:02}.cpuprofile")),
            serde_json::to_vec(&v).unwrap(),
        )
        .unwrap();
    }
    dir.to_path_buf()
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("abtest-{}", std::process::id()))
        .join(name)
}

fn diff_json(base: &Path, target: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "diff",
        "--json",
        "--base",
        base.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    jsprof_json(&args)
}

fn changed(doc: &Value) -> Vec<String> {
    json_array(&doc["changes"])
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

/// The factor that takes a self share `s` to `s + d` when only that function's time changes.
fn growth_factor(s: f64, d: f64) -> f64 {
    (s + d) * (1.0 - s) / (s * (1.0 - s - d))
}

const PLANTED: &str = "makeData";

/// An `[abtest]` budget allowing `limit` points of share growth, written under `tmp(dir)`.
fn budget_file(dir: &str, limit: f64) -> PathBuf {
    let path = tmp(&format!("{dir}/budget-{limit}.toml"));
    std::fs::write(
        &path,
        format!("[abtest]\nmax_share_growth_points = {limit}\n"),
    )
    .unwrap();
    path
}

/// `jsprof check --json`'s run `out` with a 2-point budget over the planted groups failed (exit
/// 1) on one check, the PLANTED function's, whose growth is over 2 points; its report.
fn fails_on_planted(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&Value> = json_array(&doc["checks"])
        .iter()
        .filter(|c| c["status"] == "fail")
        .collect();
    assert_eq!(failed.len(), 1, "{doc:#}");
    assert_eq!(failed[0]["subject"], PLANTED);
    assert!(failed[0]["value"].as_f64().unwrap() > 2.0);
    doc
}

/// Two groups of `n` profiles each under `tmp(dir)`, `base` and `target`, drawn from seed `seed`:
/// the target's PLANTED function has 3 points more of the self share.
fn planted_groups(dir: &str, n: usize, seed: u64) -> (PathBuf, PathBuf) {
    let p = fixture();
    let functions = sample_functions(&p);
    let k = growth_factor(self_share(&p, &functions, PLANTED), 0.03);
    let mut rng = Rng(seed);
    let base = group(&tmp(&format!("{dir}/base")), n, &mut rng, None);
    let target = group(
        &tmp(&format!("{dir}/target")),
        n,
        &mut rng,
        Some((PLANTED, k)),
    );
    (base, target)
}

#[test]
fn planted_regression_is_found() {
    let (base, target) = planted_groups("planted", 12, 7);
    let svg = tmp("planted/diff.svg");
    let doc = diff_json(&base, &target, &["--flamegraph", svg.to_str().unwrap()]);
    assert_eq!(doc["base"]["profiles"], 12);
    assert_eq!(doc["target"]["profiles"], 12);
    let names = changed(&doc);
    assert!(names.contains(&PLANTED.to_string()), "{doc:#}");
    let row = json_array(&doc["changes"])
        .iter()
        .find(|c| c["name"] == PLANTED)
        .unwrap();
    let share = &row["self_share"];
    // +3 points planted, each profile's share jittered by ±30 % of its own and of the others'.
    let shift = share["shift_points"].as_f64().unwrap();
    assert!((2.0..4.0).contains(&shift), "shift {shift}");
    let (lo, hi) = (
        share["shift_low_points"].as_f64().unwrap(),
        share["shift_high_points"].as_f64().unwrap(),
    );
    assert!(lo <= shift && shift <= hi && lo > 0.0, "[{lo}, {hi}]");
    assert_eq!(share["method"], "exact");
    assert!(share["q"].as_f64().unwrap() < 0.05);
    // The other functions shrank by about 3 points in all; none of them by more than its share,
    // and the reported ones are all far from the floor only where the planted change moved them.
    for c in json_array(&doc["changes"]) {
        if c["name"] != PLANTED {
            assert!(
                c["self_share"]["shift_points"].as_f64().unwrap() < 0.0,
                "{c}"
            );
        }
    }
    // The group flame graph is an SVG naming the planted function.
    let text = std::fs::read_to_string(&svg).unwrap();
    roxmltree::Document::parse(&text).expect("the flame graph is XML");
    assert!(text.contains(PLANTED));

    // The text table lists it too.
    let out = jsprof(&argv("diff --base {} --target {}", &[&base, &target]));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(PLANTED) && text.contains("12 profiles"),
        "{text}"
    );
}

#[test]
fn false_positives_over_twenty_null_seeds() {
    let mut false_positives = 0;
    let mut tested = 0;
    for seed in 0..20u64 {
        let mut rng = Rng(1000 + seed);
        let base = group(&tmp(&format!("null{seed}/base")), 10, &mut rng, None);
        let target = group(&tmp(&format!("null{seed}/target")), 10, &mut rng, None);
        let doc = diff_json(&base, &target, &[]);
        false_positives += json_array(&doc["changes"]).len();
        tested += doc["tested"].as_u64().unwrap();
        let _ = std::fs::remove_dir_all(tmp(&format!("null{seed}")));
    }
    println!(
        "false positives: {false_positives} of {tested} functions tested over 20 seeds ({:.3} %)",
        100.0 * false_positives as f64 / tested as f64
    );
    assert!(tested > 20 * 20);
    assert!(false_positives <= 2, "{false_positives} false positives");
}

#[test]
fn a_group_against_itself_reports_nothing() {
    let mut rng = Rng(3);
    let base = group(&tmp("self/base"), 8, &mut rng, None);
    let doc = diff_json(&base, &base, &[]);
    assert!(changed(&doc).is_empty(), "{doc:#}");
    assert_eq!(doc["significant_below_floor"], 0);
    assert_eq!(doc["base"]["profiles"], 8);
}

#[test]
fn one_file_a_side_is_the_plain_diff() {
    let before = fixtures().join("diff/before.cpuprofile.gz");
    let after = fixtures().join("diff/after.cpuprofile.gz");
    let plain = jsprof_json(&argv("diff --json {} {}", &[&before, &after]));
    let flags = jsprof_json(&argv(
        "diff --json --base {} --target {}",
        &[&before, &after],
    ));
    assert_eq!(plain, flags);
}

#[test]
fn bad_groups_are_clear_errors() {
    let empty = tmp("bad/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut rng = Rng(5);
    let good = group(&tmp("bad/good"), 3, &mut rng, None);
    let junk = tmp("bad/junk");
    std::fs::create_dir_all(&junk).unwrap();
    std::fs::write(junk.join("a.cpuprofile"), b"{\"nodes\": 3}").unwrap();
    std::fs::write(junk.join("b.cpuprofile"), b"{\"nodes\": 3}").unwrap();
    // (flags before the groups, base, target, what stderr says): each a usage error (exit 2).
    let cases: [(&[&str], &PathBuf, &PathBuf, &[&str]); 3] = [
        (&[], &empty, &good, &["--base", "no file"]),
        (&[], &good, &junk, &["a.cpuprofile"]),
        (&["--alpha", "2"], &good, &good, &["--alpha"]),
    ];
    for (flags, base, target, says) in cases {
        let groups = [
            "--base",
            base.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
        ];
        let out = jsprof(&[&["diff"][..], flags, &groups].concat());
        let case = format!("diff {flags:?} {groups:?}");
        assert_eq!(out.status.code(), Some(2), "{case}");
        let err = String::from_utf8_lossy(&out.stderr);
        for s in says {
            assert!(err.contains(s), "{case}: {s:?} not in {err}");
        }
    }
}

#[test]
fn check_budgets_share_growth_over_groups() {
    let (base, target) = planted_groups("check", 12, 11);
    let budget = |limit: f64| budget_file("check", limit);
    let run = |limit: f64| {
        jsprof(&argv(
            "check --json --budget {} --base {} --target {}",
            &[&budget(limit), &base, &target],
        ))
    };
    let doc = fails_on_planted(&run(2.0));
    assert_eq!(doc["passed"], false);

    let out = run(5.0);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A group against itself passes any limit, even 0.
    let out = jsprof(&argv(
        "check --budget {} --base {} --target {}",
        &[&budget(0.0), &base, &base],
    ));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // [abtest] on one file is skipped, and alone it is an error (it would check nothing).
    let one = fixtures().join("diff/before.cpuprofile.gz");
    let out = jsprof(&argv("check {} --budget {}", &[&one, &budget(2.0)]));
    assert_eq!(out.status.code(), Some(2));
}

/// `jsprof lake diff` over a lake of two groups gives the group `jsprof diff --key function` of
/// the same files: the same functions tested, the same changes with the same shifts, intervals
/// and q-values (to 1e-9: both sum the same integer weights, the lake in SQL), and it finds the
/// planted regression. Then `jsprof check --lake` fails the [abtest] budget on it.
#[test]
fn lake_diff_is_the_group_diff_of_the_same_files() {
    let (base, target) = planted_groups("lake", 10, 11);
    let lake = tmp("lake/lake");
    let _ = std::fs::remove_dir_all(&lake);
    for (dir, version) in [(&base, "1.0"), (&target, "1.1")] {
        jsprof_ok(&argv(
            "lake add {} {} --label {}",
            &[&lake, &dir, &format!("version={version}")],
        ));
    }
    let files = diff_json(&base, &target, &["--key", "function", "--limit", "0"]);
    let svg = tmp("lake/diff.svg");
    let lake_doc = jsprof_json(&argv(
        "lake diff {} --base version=1.0 --target version=1.1 --json --limit 0 --flamegraph {}",
        &[&lake, &svg],
    ));
    for field in ["tested", "untested", "significant_below_floor", "key"] {
        assert_eq!(lake_doc[field], files[field], "{field}");
    }
    assert_eq!(lake_doc["base"]["profiles"], 10);
    assert_eq!(lake_doc["target"]["profiles"], 10);
    let rows = |doc: &Value| -> Vec<(String, Option<u64>, Vec<f64>)> {
        json_array(&doc["changes"])
            .iter()
            .map(|c| {
                let s = &c["self_share"];
                let t = &c["total_share"];
                let nums = [
                    &s["shift_points"],
                    &s["shift_low_points"],
                    &s["shift_high_points"],
                    &s["q"],
                    &s["base_mean_points"],
                    &t["shift_points"],
                    &t["q"],
                ]
                .iter()
                .map(|v| v.as_f64().unwrap_or(f64::NAN))
                .collect();
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["line"].as_u64(),
                    nums,
                )
            })
            .collect()
    };
    let (got, want) = (rows(&lake_doc), rows(&files));
    assert_eq!(got.len(), want.len(), "{lake_doc:#}\n{files:#}");
    assert!(got.iter().any(|r| r.0 == PLANTED), "{lake_doc:#}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((&g.0, g.1), (&w.0, w.1));
        for (a, b) in g.2.iter().zip(&w.2) {
            assert!(
                (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                "{}: {a} vs {b}",
                g.0
            );
        }
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    roxmltree::Document::parse(&text).expect("the flame graph is XML");
    assert!(text.contains(PLANTED));

    // CI's budget over the lake: "fail if any function's share grew significantly by more than
    // 2 points" fails on the planted +3 points and names it; 5 points passes.
    let check = |limit: f64| {
        let path = budget_file("lake", limit);
        jsprof(&argv(
            "check --json --budget {} --lake {} --base version=1.0 --target version=1.1",
            &[&path, &lake],
        ))
    };
    fails_on_planted(&check(2.0));
    assert_eq!(check(5.0).status.code(), Some(0));
}
