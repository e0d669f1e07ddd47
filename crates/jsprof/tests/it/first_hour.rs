//! Issue 16, "the first hour": what trips a new user — tables wider than the terminal, a heap
//! command on a CPU profile, distances printed as 100000006, empty tables that do not say why,
//! a budget file whose format `check --help` does not show.

use serde_json::Value;

use crate::support::{
    argv, assert_ok, fixture_arg, fixtures, golden, json_array, jsprof, jsprof_env, temp_file,
};

/// V8 names a regular expression's compiled code `RegExp: ` + its source: hundreds of characters.
fn long_regexp() -> String {
    format!(
        "RegExp: ^(?:[a-z0-9!#$%&'*+/=?^_`{{|}}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{{|}}~-]+)*)@{}$",
        "(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+".repeat(4)
    )
}

const URL: &str = "https://example.com/static/js/main.4f9a1c.chunk.js";

/// A .cpuprofile: `long_regexp()` (3 samples) and `main` (1 sample) under the root.
fn regexp_profile() -> std::path::PathBuf {
    let frame = |name: &str, line: i64| serde_json::json!({"functionName": name, "scriptId": "1", "url": URL, "lineNumber": line, "columnNumber": 4});
    let profile = serde_json::json!({
        "nodes": [
            {"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "hitCount": 0, "children": [2, 3]},
            {"id": 2, "callFrame": frame(&long_regexp(), 41), "hitCount": 3},
            {"id": 3, "callFrame": frame("main", 9), "hitCount": 1},
        ],
        "startTime": 0,
        "endTime": 4000,
        "samples": [2, 2, 2, 3],
        "timeDeltas": [0, 1000, 1000, 1000],
    });
    temp_file(
        "regexp.cpuprofile",
        serde_json::to_string(&profile).unwrap().as_bytes(),
    )
}

fn stdout(out: &std::process::Output) -> String {
    assert_ok(out, "");
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_long_name_is_cut_to_the_terminal_and_the_location_stays_on_screen() {
    let file = regexp_profile();
    let file = file.to_str().unwrap();
    for command in [
        &["top", file][..],
        &["tree", file][..],
        &["tree", file, "--bottom-up"][..],
    ] {
        let text = stdout(&jsprof_env(command, &[("COLUMNS", "120")]));
        for line in text.lines() {
            assert!(
                line.chars().count() <= 120,
                "{command:?}: {line:?} is over 120 wide"
            );
        }
        let row = text
            .lines()
            .find(|l| l.contains("RegExp: "))
            .unwrap_or_else(|| panic!("{command:?}: no RegExp row in\n{text}"));
        assert!(row.contains('…'), "{command:?}: {row}");
        assert!(!row.contains(&long_regexp()), "{command:?}: {row}");
        // The name gives way; the location stays whole (1-based line and column).
        assert!(
            row.ends_with(&format!("  {URL}:42:5")),
            "{command:?}: {row}"
        );
    }
}

#[test]
fn wide_pipes_and_json_print_names_whole() {
    let file = regexp_profile();
    let file = file.to_str().unwrap();
    let whole = format!("{}  {URL}:42:5", long_regexp());
    // --wide beats COLUMNS; a pipe without COLUMNS is never cut.
    for (args, env) in [
        (vec!["top", file, "--wide"], vec![("COLUMNS", "60")]),
        (vec!["top", file], vec![]),
    ] {
        let text = stdout(&jsprof_env(&args, &env));
        assert!(text.contains(&whole), "{args:?} {env:?}:\n{text}");
        assert!(!text.contains('…'), "{args:?} {env:?}:\n{text}");
    }
    let out = jsprof_env(&["top", file, "--json"], &[("COLUMNS", "60")]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["functions"][0]["name"], long_regexp());
    assert_eq!(json["functions"][0]["url"], URL);
}

#[test]
fn a_heap_command_on_a_cpu_profile_names_the_format_and_the_command() {
    let cpu = &fixture_arg("cpu/tsc.cpuprofile.gz");
    for sub in ["summary", "stats", "dominators"] {
        let out = jsprof(&["heap", sub, cpu]);
        assert_eq!(out.status.code(), Some(2), "heap {sub}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(cpu) && err.contains("CPU profile") && err.contains("jsprof top"),
            "heap {sub}: {err}"
        );
        assert!(!err.contains("malformed"), "heap {sub}: {err}");
    }
    let trace = fixtures().join("trace/primes.trace.json.gz");
    let out = jsprof(&["heap", "summary", trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a Chrome trace"));
    // And the reverse: a sampled-profile command on a heap snapshot points to `jsprof heap`.
    let snapshot = fixtures().join("heap/detached.heapsnapshot.gz");
    let out = jsprof(&["top", snapshot.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("heap snapshot") && err.contains("jsprof heap"),
        "{err}"
    );
}

#[test]
fn distances_of_objects_only_the_gc_roots_hold_print_as_devtools_minus() {
    let file = &fixture_arg("heap/node-small.heapsnapshot.gz");
    let theirs = golden(&fixtures().join("heap/node-small.heapsnapshot.devtools.json.gz"));
    // Classes DevTools shows with `−`: a distance from `baseSystemDistance` (100000000) up.
    let system: Vec<&Value> = json_array(&theirs["classes"])
        .iter()
        .filter(|c| c["distance"].as_i64().unwrap() >= 100_000_000)
        .collect();
    assert!(
        !system.is_empty(),
        "the fixture has classes only the GC roots reach"
    );
    let json: Value = serde_json::from_str(&stdout(&jsprof(&[
        "heap", "summary", file, "--json", "--limit", "0",
    ])))
    .unwrap();
    let ours = json_array(&json["classes"]);
    for c in &system {
        let row = ours.iter().find(|r| r["key"] == c["key"]).unwrap();
        assert_eq!(row["distance"], Value::Null, "{}", c["name"]);
    }
    let reachable = json_array(&theirs["classes"])
        .iter()
        .find(|c| c["distance"].as_i64().unwrap() < 100_000_000)
        .unwrap();
    let row = ours.iter().find(|r| r["key"] == reachable["key"]).unwrap();
    assert_eq!(row["distance"], reachable["distance"]);

    let text = stdout(&jsprof(&["heap", "summary", file, "--limit", "0"]));
    assert!(!text.contains("10000000"), "{text}");
    // A class with a unique name: its row's Distance cell (the third column) is `−`.
    let name = system
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .find(|n| {
            n.starts_with("Node / ") && system.iter().filter(|c| c["name"] == *n).count() == 1
        })
        .unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with(&format!("{name}  ")))
        .unwrap_or_else(|| panic!("no row for {name} in\n{text}"));
    let cells: Vec<&str> = row[name.len()..].split_whitespace().collect();
    assert_eq!(cells[1], "\u{2212}", "{row}");
}

/// Runs `args` and returns (stdout, stderr), requiring success.
fn run(args: &[&str]) -> (String, String) {
    let out = jsprof(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (stdout(&out), err)
}

#[test]
fn an_empty_table_says_why() {
    let file = &fixture_arg("cpu/tsc.cpuprofile.gz");
    // A range past the end of the profile (about 1.8 s long).
    let (text, err) = run(&["top", file, "--range", "50000..60000"]);
    assert_eq!(text.lines().count(), 1, "only the header: {text}");
    assert!(err.contains("--range 50000..60000"), "{err}");
    assert!(err.contains("the profile's samples run from"), "{err}");
    let (_, err) = run(&["tree", file, "--range", "50000.."]);
    assert!(err.contains("--range 50000.."), "{err}");

    // A focus pattern no function matches.
    let (text, err) = run(&["top", file, "--focus", "^noSuchFunction$"]);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(err.contains("--focus `^noSuchFunction$`"), "{err}");
    let (_, err) = run(&["tree", file, "--focus", "^noSuchFunction$"]);
    assert!(err.contains("--focus `^noSuchFunction$`"), "{err}");

    // A thread without samples (a profile that recorded none).
    let empty = temp_file(
        "no-samples.cpuprofile",
        br#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0}],"startTime":0,"endTime":0,"samples":[],"timeDeltas":[]}"#,
    );
    let (_, err) = run(&["top", empty.to_str().unwrap()]);
    assert!(err.contains("has no samples"), "{err}");

    // A table that is not empty says nothing.
    let (_, err) = run(&["top", file, "--range", "100..200"]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn check_help_shows_a_budget_file_that_parses() {
    let help = stdout(&jsprof(&["check", "--help"]));
    assert!(
        help.contains("[[function]]") && help.contains("max_retained_size"),
        "{help}"
    );
    // The example, as printed (indented two spaces), is a budget file `check` accepts.
    let start = help.find("  [[function]]").unwrap();
    let example: String = help[start..]
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with("  "))
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    let budget = temp_file("help-example.toml", example.as_bytes());
    let profile = fixtures().join("cpu/tsc.cpuprofile.gz");
    let out = jsprof(&argv("check {} --budget {}", &[&profile, &budget]));
    // `render` is not in the profile, so the check fails (1) — but the file was read (not 2).
    assert_eq!(
        out.status.code(),
        Some(1),
        "{example}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("render"));
}

#[test]
fn a_cut_url_keeps_its_path_end() {
    // Requests of one origin differ at their path's end: that part stays on screen.
    let trace = crate::support::fixtures().join("trace/pageload.trace.json.gz");
    let text = stdout(&jsprof_env(
        &["network", trace.to_str().unwrap()],
        &[("COLUMNS", "110")],
    ));
    // Cut (the full URLs do not fit), at the start.
    assert!(text.contains("…8790/styles.css"), "{text}");
    assert!(text.contains("slow.js"), "{text}");
}

/// A mistyped command gets the nearest one, swapped letters included (clap's own similarity
/// misses `tpo`), at any level; clap's own suggestion is not doubled; nothing near, no tip.
#[test]
fn a_mistyped_command_names_the_nearest_one() {
    for (args, tip) in [
        (
            &["tpo", "x"][..],
            Some("a similar subcommand exists: 'top'"),
        ),
        (
            &["sumary", "x"][..],
            Some("a similar subcommand exists: 'summary'"),
        ),
        (
            &["lake", "tpo"][..],
            Some("a similar subcommand exists: 'lake top'"),
        ),
        (&["zzzzzz"][..], None),
    ] {
        let out = jsprof(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unrecognized subcommand"), "{args:?}: {err}");
        match tip {
            Some(tip) => assert_eq!(err.matches(tip).count(), 1, "{args:?}: {err}"),
            None => assert!(!err.contains("similar"), "{args:?}: {err}"),
        }
    }
}
