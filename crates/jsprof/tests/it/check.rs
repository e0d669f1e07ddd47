//! `jsprof check`: each budget kind passing and failing, with exit codes and messages. The
//! measured values are taken from the other commands' JSON (`top`, `summary`, `heap summary`,
//! `heap detached`, checked against DevTools elsewhere), and the limits set just above and
//! below them.

use std::process::Output;

use serde_json::Value;

use crate::support::{fixtures, json_array, jsprof, jsprof_json, temp_file};

fn path(name: &str) -> String {
    fixtures().join(name).to_str().unwrap().to_string()
}

fn check(file: &str, budget: &str, json: bool) -> Output {
    let b = temp_file(
        &format!("budget-{:x}.toml", fxhash(budget)),
        budget.as_bytes(),
    );
    let mut args = vec!["check", file, "--budget", b.to_str().unwrap()];
    if json {
        args.push("--json");
    }
    jsprof(&args)
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// `jsprof check FILE --budget BUDGET --json`, which must end with `code`: its report.
fn checked(file: &str, budget: &str, code: i32) -> Value {
    let out = check(file, budget, true);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out));
    report(&out)
}

fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (self, total) ms of the function named `name` in `top`.
fn top_of(file: &str, name: &str) -> (f64, f64) {
    crate::views::top_by_key(file)
        .into_iter()
        .find(|(k, _)| k.0 == name)
        .map(|(_, w)| w)
        .unwrap_or_else(|| panic!("{name} not in top"))
}

#[test]
fn function_budgets() {
    let file = path("diff/after.cpuprofile.gz");
    let (_, total) = top_of(&file, "checksum");
    let (fib_self, _) = top_of(&file, "fib");
    let budget = |total_limit: f64, self_limit: f64| {
        format!(
            "[[function]]\nname = \"checksum\"\nmax_total_ms = {total_limit}\n\n\
             [[function]]\nname = \"fib\"\nurl = \"workload.js\"\nmax_self_ms = {self_limit}\n"
        )
    };
    let r = checked(&file, &budget(total + 1.0, fib_self + 1.0), 0);
    assert_eq!(r["passed"], true);
    assert_eq!(r["kind"], "cpuprofile");
    assert!((r["checks"][0]["value"].as_f64().unwrap() - total).abs() < 1e-6);
    assert_eq!(r["checks"][0]["measure"], "total_ms");
    assert!((r["checks"][1]["value"].as_f64().unwrap() - fib_self).abs() < 1e-6);

    let over = check(&file, &budget(total - 1.0, fib_self + 1.0), false);
    assert_eq!(over.status.code(), Some(1));
    let t = text(&over);
    let line = t.lines().find(|l| l.contains("total of checksum")).unwrap();
    assert!(line.starts_with("FAIL"), "{t}");
    assert!(line.contains('>'), "{t}");
    assert!(t.contains("1 of 2 budgets exceeded"), "{t}");
    let over = report(&check(&file, &budget(total + 1.0, fib_self - 1.0), true));
    assert_eq!(over["passed"], false);
    assert_eq!(over["checks"][1]["status"], "fail");
    assert_eq!(over["checks"][0]["status"], "pass");

    // A function that is not there weighs nothing, says so, and fails: a budget that guards
    // nothing (a renamed function, a typo) must not pass.
    let r = checked(
        &file,
        "[[function]]\nname = \"checksum\"\nurl = \"elsewhere.js\"\nmax_total_ms = 1\n",
        1,
    );
    assert_eq!(r["checks"][0]["value"], 0.0);
    assert_eq!(r["checks"][0]["note"], "not in the profile");
    assert_eq!(r["checks"][0]["status"], "fail");
    assert_eq!(r["passed"], false);
}

#[test]
fn gc_share_budget() {
    let file = path("cpu/tsc.cpuprofile.gz");
    let gc = jsprof_json(&["summary", "--json", &file])["gc_percent"]
        .as_f64()
        .unwrap();
    assert!(gc > 10.0 && gc < 11.0, "{gc}");
    let over = check(&file, "[gc]\nmax_share_percent = 10\n", false);
    assert_eq!(over.status.code(), Some(1));
    assert!(text(&over).contains("FAIL  GC share"), "{}", text(&over));
    let ok = checked(&file, "[gc]\nmax_share_percent = 11\n", 0);
    assert!((ok["checks"][0]["value"].as_f64().unwrap() - gc).abs() < 1e-9);
}

#[test]
fn class_retained_size_budget() {
    let file = path("heap/leak-3-final.heapsnapshot.gz");
    let s = jsprof_json(&["heap", "summary", "--json", "--limit", "0", &file]);
    let rows: Vec<&Value> = json_array(&s["classes"])
        .iter()
        .filter(|c| c["name"] == "Session")
        .collect();
    let retained: u64 = rows
        .iter()
        .map(|c| c["retained_size"].as_u64().unwrap())
        .sum();
    let count: u64 = rows.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert!(
        retained > 300 * 1024 && retained < 1024 * 1024,
        "{retained}"
    );
    let r = checked(
        &file,
        "[[class]]\nname = \"Session\"\nmax_retained_size = \"300 KB\"\n",
        1,
    );
    assert_eq!(r["kind"], "heapsnapshot");
    assert_eq!(r["checks"][0]["value"].as_u64(), Some(retained));
    assert_eq!(r["checks"][0]["limit"].as_u64(), Some(300 * 1024));
    let ok = check(
        &file,
        &format!(
            "[[class]]\nname = \"Session\"\nmax_retained_size = 1048576\nmax_count = {count}\n"
        ),
        false,
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(text(&ok).contains("all 2 budgets hold"));
    let over = check(
        &file,
        &format!("[[class]]\nname = \"Session\"\nmax_count = {}\n", count - 1),
        false,
    );
    assert_eq!(over.status.code(), Some(1));
    assert!(
        text(&over).contains("FAIL  instances of Session"),
        "{}",
        text(&over)
    );
}

#[test]
fn detached_dom_budget() {
    let file = path("heap/detached.heapsnapshot.gz");
    let d = jsprof_json(&["heap", "detached", "--json", "--limit", "0", &file]);
    let nodes: u64 = json_array(&d["trees"])
        .iter()
        .filter(|t| {
            !t["root"]["name"]
                .as_str()
                .unwrap()
                .starts_with("Detached Node / ")
        })
        .map(|t| t["node_count"].as_u64().unwrap())
        .sum();
    assert!(nodes > 0);
    let over = checked(&file, "[detached_dom]\nmax_nodes = 0\n", 1);
    assert_eq!(over["checks"][0]["value"].as_u64(), Some(nodes));
    let t = text(&check(&file, "[detached_dom]\n", false));
    assert!(t.contains("FAIL  detached DOM nodes"), "{t}");
    assert!(t.contains("largest: Detached <"), "{t}");
    // A Node snapshot has no DOM: only Node's own `Detached Node / …` objects, not counted.
    let ok = checked(
        &path("heap/node-small.heapsnapshot.gz"),
        "[detached_dom]\n",
        0,
    );
    assert_eq!(ok["checks"][0]["value"], 0);
}

#[test]
fn bad_budgets_are_usage_errors() {
    let file = path("diff/after.cpuprofile.gz");
    let out = check(
        &file,
        "[[function]]\nname = \"x\"\nmax_totl_ms = 3\n",
        false,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("budget-") && err.contains("max_totl_ms"),
        "{err}"
    );
    let out = check(&file, "[[function]]\nname = \"x\"\n", false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither max_total_ms nor max_self_ms"));
    // Only heap budgets for a CPU profile: nothing would be checked.
    let out = check(&file, "[detached_dom]\n", false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no budget in it applies"));
    let out = check(
        &file,
        "[[class]]\nname = \"A\"\nmax_retained_size = \"3 parsecs\"\n",
        false,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad size"));
    let out = jsprof(&["check", &file, "--budget", "/nonexistent/budget.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/budget.toml"));
}
