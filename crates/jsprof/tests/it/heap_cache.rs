//! The heap index cache from the command line: every heap command answers the same bytes from a
//! cold cache, a warm one and `--no-cache`, and an index that no longer fits its snapshot (cut,
//! damaged, the snapshot rewritten at the same size, or only touched) is refused with one line on
//! stderr and rebuilt. Each test's cache is a fresh directory under the target's temp area, never
//! the user's.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::support::{all_rows, assert_ok, fixtures, fresh_dir, golden, json_array, jsprof_env};

// The generator is compiled once, in `heap_scale` (a second `#[path]` would load it twice).
use crate::heap_scale::heapgen;

/// `argv` with `--no-cache`: the same command reading the snapshot's text, not the index.
fn no_cache<'a>(argv: &[&'a str]) -> Vec<&'a str> {
    let mut bypass = argv.to_vec();
    bypass.push("--no-cache");
    bypass
}

/// `argv` with `--no-cache` fails (exit 2): the snapshot's text really is unreadable, so an
/// answer that still comes must come from the index.
fn assert_text_unreadable(argv: &[&str]) {
    let out = jsprof_env(&no_cache(argv), &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{argv:?} reads the poisoned text"
    );
}

/// The one line a damaged index leaves on stderr before it is rebuilt, and the line that says the
/// rebuilt one was kept.
fn assert_checksum_note(note: &str) {
    let (note, kept) = split_kept(note);
    assert!(
        note.lines().count() == 1 && note.contains("checksum") && kept,
        "{note}"
    );
}

/// Stderr less the line that says an index was written and kept, and whether it had one.
fn split_kept(stderr: &str) -> (String, bool) {
    let kept = |l: &&str| l.contains(": kept its heap index (");
    let others: Vec<&str> = stderr.lines().filter(|l| !kept(l)).collect();
    let n = stderr.lines().filter(kept).count();
    assert!(n <= 1, "{stderr}");
    (others.join("\n"), n == 1)
}

/// A directory of its own for one test: the snapshots it changes and its cache.
fn scratch(name: &str) -> PathBuf {
    fresh_dir(&format!("heap-cache-{name}"))
}

/// Runs jsprof with the cache in `cache` (every snapshot indexed, however small).
fn run(cache: &Path, args: &[&str]) -> Output {
    let dir = cache.to_str().unwrap();
    let out = jsprof_env(
        args,
        &[("JSPROF_CACHE_DIR", dir), ("JSPROF_CACHE_MIN_BYTES", "0")],
    );
    assert_ok(&out, &format!("jsprof {args:?}"));
    out
}

fn indexes(cache: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(cache) else {
        return Vec::new();
    };
    entries.flatten().map(|e| e.path()).collect()
}

/// Every heap command that analyses one snapshot, with `--json`.
fn commands(file: &str, ids: &[String]) -> Vec<Vec<String>> {
    let args = |list: &[&str]| -> Vec<String> {
        ["heap"]
            .iter()
            .chain(list)
            .map(|s| s.to_string())
            .chain(["--json".to_string()])
            .collect()
    };
    let mut node = args(&["node", file]);
    node.splice(3..3, ids.iter().cloned());
    vec![
        args(&["summary", file, "--limit", "0"]),
        args(&["summary", file, "--sort", "self", "--limit", "7"]),
        args(&["stats", file]),
        node,
        args(&["retainers", file, &ids[0]]),
        args(&["dominators", file]),
        args(&["dominators", file, "--id", &ids[1], "--depth", "2"]),
        args(&["strings", file, "--limit", "0"]),
        args(&["detached", file, "--limit", "0"]),
    ]
}

/// Cold, warm and bypassed runs of every command print the same bytes, and a warm run reads the
/// index rather than the snapshot.
fn same_bytes_cold_warm_and_bypassed(file: &Path, ids: &[String]) {
    let dir = scratch(&file.file_name().unwrap().to_string_lossy());
    let copy = dir.join(file.file_name().unwrap());
    fs::copy(file, &copy).unwrap();
    let cache = dir.join("cache");
    let name = copy.to_str().unwrap();
    for (i, command) in commands(name, ids).into_iter().enumerate() {
        let argv: Vec<&str> = command.iter().map(String::as_str).collect();
        let _ = fs::remove_dir_all(&cache);
        let cold = run(&cache, &argv);
        assert_eq!(indexes(&cache).len(), 1, "{argv:?} keeps one index");
        // The first open says what it kept, where, and how big it is (issue 38).
        let kept = fs::metadata(&indexes(&cache)[0]).unwrap().len();
        let said = String::from_utf8_lossy(&cold.stderr);
        let size = jsprof_document::units::fmt_bytes(kept as f64);
        assert!(
            said.contains(&format!(
                "kept its heap index ({size}) in {}",
                cache.display()
            )),
            "{argv:?}: {said}"
        );
        let warm = run(&cache, &argv);
        let bypass = no_cache(&argv);
        let bypassed = run(&cache, &bypass);
        let mut outputs = vec![("warm", &warm), ("--no-cache", &bypassed)];
        // The environment's switch once per file: it is the same flag underneath.
        let off;
        if i == 0 {
            off = jsprof_env(
                &argv,
                &[
                    ("JSPROF_CACHE_DIR", dir.join("off").to_str().unwrap()),
                    ("JSPROF_CACHE_MIN_BYTES", "0"),
                    ("JSPROF_CACHE", "0"),
                ],
            );
            assert!(off.status.success());
            assert!(!dir.join("off").exists(), "JSPROF_CACHE=0 writes nothing");
            outputs.push(("JSPROF_CACHE=0", &off));
        }
        for (what, out) in outputs {
            assert!(
                out.stdout == cold.stdout,
                "{argv:?}: {what} differs from cold:\n{}\n---\n{}",
                String::from_utf8_lossy(&cold.stdout),
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(
                out.stderr.is_empty(),
                "{argv:?} {what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        serde_json::from_slice::<Value>(&cold.stdout).expect("JSON");
    }
    // The warm path does not read the snapshot: with its bytes replaced but its key kept (same
    // size, mtime and the first and last MiB; the index re-keyed for the change time, which no
    // user can set back), the answer still comes from the index.
    let bytes = fs::read(&copy).unwrap();
    if bytes.len() > 3 << 20 {
        let before = fs::metadata(&copy).unwrap().modified().unwrap();
        let mut poisoned = bytes.clone();
        poisoned[(2 << 20)..(2 << 20) + 64].fill(b'x');
        fs::write(&copy, &poisoned).unwrap();
        File::options()
            .write(true)
            .open(&copy)
            .unwrap()
            .set_modified(before)
            .unwrap();
        jsprof_heap::cache::rekey_index(&jsprof_heap::HeapCache::new(&cache), &copy).unwrap();
        run(&cache, &["heap", "stats", name, "--json"]);
        assert_text_unreadable(&["heap", "stats", name, "--json"]);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// Sampled node ids from a DevTools golden (the first two must have a dominator subtree).
fn golden_ids(golden_file: &str) -> Vec<String> {
    let g = golden(&fixtures().join("heap").join(golden_file));
    let ids: Vec<String> = json_array(&g["sampled_nodes"])
        .iter()
        .take(4)
        .map(|n| n["id"].to_string())
        .collect();
    assert_eq!(ids.len(), 4);
    ids
}

#[test]
fn every_heap_command_answers_the_same_bytes_cold_warm_and_without_the_cache() {
    for (file, golden_file) in [
        (
            "detached.heapsnapshot.gz",
            "detached.heapsnapshot.devtools.json.gz",
        ),
        (
            "node-small.heapsnapshot.gz",
            "node-small.heapsnapshot.devtools.json.gz",
        ),
        (
            "node-alloc.heaptimeline.gz",
            "node-alloc.heaptimeline.devtools.json.gz",
        ),
    ] {
        same_bytes_cold_warm_and_bypassed(
            &fixtures().join("heap").join(file),
            &golden_ids(golden_file),
        );
    }
}

#[test]
fn a_generated_snapshot_answers_the_same_bytes_cold_warm_and_without_the_cache() {
    // Big enough for the head and tail hashes not to overlap (over 2 MiB of text).
    let shape = heapgen::Shape::of_megabytes(4);
    let mut text = Vec::new();
    let truth = shape.write(&mut text).unwrap();
    assert!(text.len() > 3 << 20, "{} bytes", text.len());
    let expected: Value = serde_json::from_str(&truth.to_json(&shape, 500)).unwrap();
    let ids: Vec<String> = (json_array(&expected["sampled_nodes"]).iter())
        .take(4)
        .map(|n| n["id"].to_string())
        .collect();
    let dir = scratch("generated-source");
    let file = dir.join("generated.heapsnapshot");
    fs::write(&file, &text).unwrap();
    same_bytes_cold_warm_and_bypassed(&file, &ids);
    fs::remove_dir_all(&dir).unwrap();
}

/// Runs `heap summary` and returns (stdout, stderr).
fn summary(cache: &Path, file: &Path) -> (Vec<u8>, String) {
    let out = run(
        cache,
        &all_rows(&["heap", "summary"], file.to_str().unwrap()),
    );
    (out.stdout, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_damaged_or_stale_index_is_detected_and_rebuilt() {
    let dir = scratch("damage");
    let cache = dir.join("cache");
    // Plain text, so that the test can change the snapshot's tail in place.
    let file = dir.join("leak.heapsnapshot");
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(
            File::open(fixtures().join("heap/leak-3-final.heapsnapshot.gz")).unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    fs::write(&file, &text).unwrap();
    let (fresh, note) = summary(&cache, &file);
    assert_eq!(split_kept(&note), (String::new(), true), "{note}");
    let index = indexes(&cache).pop().unwrap();
    let good = fs::read(&index).unwrap();

    // Each damage gets one line on stderr naming the index, the answer a fresh analysis gives,
    // and a good index again, used quietly.
    let check = |what: &str, expect: &str| {
        let (out, note) = summary(&cache, &file);
        let bypassed = run(
            &cache,
            &[
                "heap",
                "summary",
                file.to_str().unwrap(),
                "--json",
                "--limit",
                "0",
                "--no-cache",
            ],
        );
        assert_eq!(out, bypassed.stdout, "{what}: the answer");
        let (note, kept) = split_kept(&note);
        assert!(kept, "{what}: the rebuilt index is said to be kept");
        assert_eq!(note.lines().count(), 1, "{what}: one line: {note}");
        assert!(
            note.contains(expect) && note.contains(index.to_str().unwrap()),
            "{what}: {note}"
        );
        let (again, note) = summary(&cache, &file);
        assert!(
            note.is_empty(),
            "{what}: the rebuilt index is used quietly: {note}"
        );
        assert_eq!(again, out);
    };

    fs::write(&index, &good[..good.len() * 2 / 3]).unwrap();
    check("truncated", "damaged");
    assert_eq!(fs::read(&index).unwrap(), good, "rebuilt byte for byte");
    assert_eq!(summary(&cache, &file).0, fresh);

    let mut flipped = good.clone();
    let at = good.len() - 1000;
    flipped[at] ^= 0x01;
    fs::write(&index, &flipped).unwrap();
    check("a flipped byte", "checksum");
    assert_eq!(fs::read(&index).unwrap(), good);

    // The snapshot rewritten with the same size and mtime, a letter of its last string changed:
    // only the content hash of its tail can tell.
    let mtime = fs::metadata(&file).unwrap().modified().unwrap();
    let mut changed = text.clone();
    let last_letter = changed.iter().rposition(u8::is_ascii_lowercase).unwrap();
    changed[last_letter] = if changed[last_letter] == b'q' {
        b'r'
    } else {
        b'q'
    };
    fs::write(&file, &changed).unwrap();
    File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    check("same size and mtime, changed tail", "content changed");

    // Only touched: the same bytes, a new mtime.
    File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    check("touched", "modified");

    // Not an index at all.
    fs::write(&index, b"hello").unwrap();
    check("not an index", "damaged");
    fs::remove_dir_all(&dir).unwrap();
}

/// A fixture's text with 3 MiB of blanks before its `"nodes"`: the same snapshot (JSON allows
/// them; the header before them still says what the file is), long enough that its key (size,
/// mtime, first and last MiB) leaves its middle out.
pub(crate) fn padded(dir: &Path, fixture: &str) -> PathBuf {
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(
            File::open(fixtures().join("heap").join(fixture)).unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    let at = (text.windows(8).position(|w| w == b"\"nodes\":")).expect("a nodes array");
    let mut out = text[..at].to_vec();
    out.resize(at + (3 << 20), b' ');
    out.extend_from_slice(&text[at..]);
    let file = dir.join(fixture.trim_end_matches(".gz"));
    fs::write(&file, out).unwrap();
    file
}

/// Spoils the snapshot's middle (blanks become letters: not JSON any more) and keeps its key:
/// size, mtime, first and last MiB are as they were; its change time has moved, which no user can
/// set back (issue 33), so its index in `cache` is re-keyed for the test.
pub(crate) fn poison(file: &Path, cache: &Path) {
    let mtime = fs::metadata(file).unwrap().modified().unwrap();
    let mut bytes = fs::read(file).unwrap();
    // Halfway through the blanks `padded` put in: past the first MiB, before the last.
    let blanks = bytes.windows(64).position(|w| w.iter().all(|&b| b == b' '));
    let middle = blanks.expect("padded") + (3 << 19);
    assert!(bytes[middle..middle + 64].iter().all(|&b| b == b' '));
    bytes[middle..middle + 64].fill(b'x');
    fs::write(file, &bytes).unwrap();
    File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    jsprof_heap::cache::rekey_index(&jsprof_heap::HeapCache::new(cache), file).unwrap();
}

/// The commands that open several snapshots (`heap diff`, `heap leaks`, also given out of
/// order), `check`'s heap budgets and `report` of a snapshot: once the indexes exist they answer
/// from them, the snapshots' text unreadable, with the bytes of a first run and of `--no-cache`.
#[test]
fn diff_leaks_check_and_report_answer_from_the_index() {
    let dir = scratch("multi");
    let cache = dir.join("cache");
    let [base, target, last] = [
        "leak-1-baseline.heapsnapshot.gz",
        "leak-2-target.heapsnapshot.gz",
        "leak-3-final.heapsnapshot.gz",
    ]
    .map(|f| padded(&dir, f));
    let [b, t, l] = [&base, &target, &last].map(|p| p.to_str().unwrap().to_string());
    let budget = dir.join("budget.toml");
    fs::write(
        &budget,
        "[[class]]\nname = \"Session\"\nmax_retained_size = \"1 GB\"\nmax_count = 1000000\n\
         [detached_dom]\nmax_nodes = 1000000\n",
    )
    .unwrap();
    let budget = budget.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["heap", "diff", &b, &t, "--json", "--limit", "0"],
        vec!["heap", "diff", &t, &b, "--json", "--limit", "0"],
        vec!["heap", "leaks", &b, &t, &l, "--json", "--limit", "0"],
        vec!["heap", "leaks", &l, &b, &t, "--json", "--limit", "0"],
        vec!["check", &l, "--budget", budget, "--json"],
        vec!["report", &l, "-o", "-"],
    ];
    let mut first = Vec::new();
    for argv in &commands {
        let cold = run(&cache, argv);
        let bypass = no_cache(argv);
        let bypassed = run(&cache, &bypass);
        assert!(
            bypassed.stdout == cold.stdout,
            "{argv:?}: --no-cache differs from the first run"
        );
        first.push(cold.stdout);
    }
    assert_eq!(indexes(&cache).len(), 3, "one index per snapshot");
    for file in [&base, &target, &last] {
        poison(file, &cache);
    }
    for (argv, expected) in commands.iter().zip(&first) {
        let warm = run(&cache, argv);
        assert!(
            &warm.stdout == expected,
            "{argv:?}: the answer from the index differs from the first run"
        );
        assert!(
            warm.stderr.is_empty(),
            "{argv:?}: {}",
            String::from_utf8_lossy(&warm.stderr)
        );
    }
    // The text really is unreadable: without the index each command fails on it.
    for argv in &commands {
        assert_text_unreadable(argv);
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `heap summary` and `heap stats` answer from the index's overview (the Summary's rows and the
/// totals, kept at indexing time) without reading the graph's columns: a damaged column does not
/// reach them while a graph command reports it and rebuilds; a damaged overview is reported and
/// rebuilt with the same answer; and with the snapshot's middle overwritten they still answer.
#[test]
fn summary_and_stats_answer_from_the_overview_alone() {
    let dir = scratch("overview");
    let cache = dir.join("cache");
    let file = padded(&dir, "leak-3-final.heapsnapshot.gz");
    let name = file.to_str().unwrap();
    let forms: [&[&str]; 5] = [
        &["heap", "summary", name, "--json", "--limit", "0"],
        &["heap", "summary", name, "--sort", "count", "--limit", "5"],
        &[
            "heap", "summary", name, "--sort", "self", "--json", "--limit", "3",
        ],
        &["heap", "stats", name, "--json"],
        &["heap", "stats", name],
    ];
    // A first open prints its answer, then writes the index (the phases on stderr say so).
    for argv in [forms[0], forms[3]] {
        let phases = dir.join("phases");
        let out = jsprof_env(
            argv,
            &[
                ("JSPROF_CACHE_DIR", phases.to_str().unwrap()),
                ("JSPROF_CACHE_MIN_BYTES", "0"),
                ("JSPROF_HEAP_PHASES", "1"),
            ],
        );
        assert_ok(&out, &format!("jsprof {argv:?}"));
        let err = String::from_utf8_lossy(&out.stderr);
        let at = |phase: &str| err.find(&format!("phase {phase}:"));
        assert!(
            at("answered").is_some() && at("answered") < at("index written"),
            "{argv:?}: {err}"
        );
        fs::remove_dir_all(&phases).unwrap();
    }
    let mut first = Vec::new();
    for argv in forms {
        let out = run(&cache, argv);
        let bypass = no_cache(argv);
        assert!(
            run(&cache, &bypass).stdout == out.stdout,
            "{argv:?}: --no-cache differs"
        );
        first.push(out.stdout);
    }
    let quiet_and_same = |what: &str| {
        for (argv, expected) in forms.iter().zip(&first) {
            let out = run(&cache, argv);
            assert!(&out.stdout == expected, "{what}: {argv:?} differs");
            assert!(
                out.stderr.is_empty(),
                "{what}: {argv:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    };
    let index = indexes(&cache).pop().unwrap();
    let good = fs::read(&index).unwrap();

    // A byte of the graph's columns flipped (the middle of the index: the overview is its last
    // few kilobytes): the Summary and the Statistics do not see it, a graph command does.
    let mut bad = good.clone();
    bad[good.len() / 2] ^= 0x01;
    fs::write(&index, &bad).unwrap();
    quiet_and_same("a damaged column");
    let dominators = ["heap", "dominators", name, "--json"];
    let out = run(&cache, &dominators);
    let note = String::from_utf8(out.stderr).unwrap();
    assert_checksum_note(&note);
    let bypass = no_cache(&dominators);
    assert!(run(&cache, &bypass).stdout == out.stdout);
    assert_eq!(fs::read(&index).unwrap(), good, "rebuilt byte for byte");

    // A byte of the overview flipped: the largest class's key, whose last copy in the index is
    // in the overview (the last section; the string table holds names without the comma).
    let report: Value = serde_json::from_slice(&first[0]).unwrap();
    let key = report["classes"][0]["key"].as_str().unwrap().as_bytes();
    let at = (good.windows(key.len()).rposition(|w| w == key)).expect("the key in the index");
    let mut bad = good.clone();
    bad[at] ^= 0x01;
    fs::write(&index, &bad).unwrap();
    let (out, note) = summary(&cache, &file);
    assert!(out == first[0], "the answer after a damaged overview");
    assert_checksum_note(&note);
    assert_eq!(fs::read(&index).unwrap(), good, "rebuilt byte for byte");
    quiet_and_same("rebuilt");

    // The snapshot's text spoiled, its key kept: the answers still come from the index.
    poison(&file, &cache);
    quiet_and_same("a poisoned snapshot");
    assert_text_unreadable(&["heap", "stats", name]);
    fs::remove_dir_all(&dir).unwrap();
}

/// The analysis with the columns the dominators do not read set aside on disk (forced here for a
/// small graph; big ones do it on their own) answers every command with the bytes of the analysis
/// in memory, and leaves nothing in the scratch directory.
#[test]
fn a_spilled_analysis_answers_the_same_bytes() {
    let dir = scratch("spill");
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let tmp_s = tmp.to_str().unwrap();
    let file = fixtures().join("heap/leak-3-final.heapsnapshot.gz");
    let f = file.to_str().unwrap();
    let ids = golden_ids("leak-3-final.heapsnapshot.devtools.json.gz");
    let mut spilled_outputs = Vec::new();
    for argv in commands(f, &ids) {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let run_with = |env: &[(&str, &str)]| {
            let out = jsprof_env(&argv, env);
            assert_ok(&out, &format!("{argv:?}"));
            out
        };
        let in_memory = run_with(&[("JSPROF_CACHE", "0"), ("JSPROF_HEAP_SPILL", "0")]);
        let spilled = run_with(&[
            ("JSPROF_CACHE", "0"),
            ("JSPROF_HEAP_SPILL_MIN_BYTES", "0"),
            ("JSPROF_HEAP_PHASES", "1"),
            ("TMPDIR", tmp_s),
        ]);
        let steps = String::from_utf8_lossy(&spilled.stderr);
        assert!(
            steps.contains("set aside on disk")
                && steps.contains("node columns and results read back"),
            "{argv:?}: no spill happened:\n{steps}"
        );
        assert!(
            in_memory.stdout == spilled.stdout,
            "{argv:?}: the spilled analysis differs"
        );
        spilled_outputs.push((
            argv.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
            in_memory.stdout,
        ));
    }
    // `heap summary` never brings the edge columns back: it writes the index with them copied
    // from the scratch file. That index answers every command as the in-memory analysis did.
    let cache = dir.join("cache");
    let cache_s = cache.to_str().unwrap();
    let with_index = [
        ("JSPROF_CACHE_DIR", cache_s),
        ("JSPROF_CACHE_MIN_BYTES", "0"),
        ("JSPROF_HEAP_SPILL_MIN_BYTES", "0"),
        ("JSPROF_HEAP_PHASES", "1"),
        ("TMPDIR", tmp_s),
    ];
    let first = jsprof_env(
        &["heap", "summary", f, "--json", "--limit", "0"],
        &with_index,
    );
    let steps = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{steps}");
    assert!(
        steps.contains("Summary (the edge columns still aside)")
            && !steps.contains("edge columns read back")
            && steps.contains("index written"),
        "the Summary did not run with the edges aside, or no index was written:\n{steps}"
    );
    for (argv, expected) in &spilled_outputs {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let warm = jsprof_env(&argv, &with_index);
        let steps = String::from_utf8_lossy(&warm.stderr);
        assert!(warm.status.success(), "{argv:?}: {steps}");
        assert!(
            steps.contains("index read") && !steps.contains("analysis step"),
            "{argv:?} did not answer from the index:\n{steps}"
        );
        assert!(
            &warm.stdout == expected,
            "{argv:?}: the index written with the edges aside answers differently"
        );
    }
    assert_eq!(
        fs::read_dir(&tmp).unwrap().count(),
        0,
        "the scratch file outlived the command"
    );
}
