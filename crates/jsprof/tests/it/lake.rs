//! `jsprof lake`: the lake's answers against the per-file commands on the recorded fixtures.
//!
//! The acceptance test: `lake top --json` over every `.cpuprofile`, self-profiling trace and
//! Chrome trace fixture that `jsprof top` reads equals the sum of `jsprof top --json` over the same
//! files (per trace thread with samples: `--thread ID`), function by function. Tolerance: 0 ns —
//! the lake stores the engine's integer nanoseconds (a `.cpuprofile`'s last sample gets DevTools'
//! mean interval, a fraction of a µs), so each file's `self_ms × 10⁶` is an integer and the sums
//! must be equal exactly: far inside the "to the microsecond".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{argv, fixtures, jsprof, jsprof_json};

pub(crate) type Key = (String, String, Option<i64>, Option<i64>);

pub(crate) fn key(f: &Value) -> Key {
    (
        f["name"].as_str().unwrap_or_default().to_string(),
        f["url"].as_str().unwrap_or_default().to_string(),
        f["line"].as_i64(),
        f["column"].as_i64(),
    )
}

/// A fresh directory for one test's lake.
fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lake-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Every sampled-profile fixture: `.cpuprofile`s, self-profiling traces, Chrome traces (DevTools'
/// goldens and other outputs left out).
fn sampled_fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![fixtures()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let golden = name.contains(".devtools.") || name.contains(".insights.");
            let sampled = name.ends_with(".cpuprofile")
                || name.ends_with(".cpuprofile.gz")
                || name.ends_with(".jsprofile.json")
                || name.ends_with(".trace.json.gz")
                || (dir.ends_with("speedscope") && name.ends_with(".json.gz"));
            if sampled && !golden {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Function → (self, total) in ns (or bytes).
pub(crate) type Table = BTreeMap<Key, (i64, i64)>;

/// Whole ns of `ms`: f64 carries ms with ~16 digits, so a whole number of ns (what the engine
/// and the lake count) comes back within 10⁻³ ns.
pub(crate) fn ns(ms: f64) -> i64 {
    let ns = ms * 1e6;
    assert!(
        (ns - ns.round()).abs() < 1e-3,
        "{ms} ms is not a whole number of ns"
    );
    ns.round() as i64
}

/// The functions of a `top --json` or `lake top --json` document (the same rows) as key →
/// (self, total): time in ns, bytes as they are.
pub(crate) fn table_of(doc: &Value) -> Table {
    let mut table = BTreeMap::new();
    for f in doc["functions"].as_array().expect("functions") {
        let weight = |w: &str| {
            f[format!("{w}_bytes")]
                .as_i64()
                .unwrap_or_else(|| ns(f[format!("{w}_ms")].as_f64().expect("a weight")))
        };
        let e: &mut (i64, i64) = table.entry(key(f)).or_default();
        e.0 += weight("self");
        e.1 += weight("total");
    }
    table
}

/// The total of a `top --json` or `lake top --json` document: `duration_ms` in ns, or
/// `total_bytes`.
pub(crate) fn total_of(doc: &Value) -> i64 {
    doc["total_bytes"]
        .as_i64()
        .unwrap_or_else(|| ns(doc["duration_ms"].as_f64().unwrap_or(0.0)))
}

/// `jsprof top --json --limit 0` (with extra args) as [`table_of`] and [`total_of`]; `None`
/// when top does not read the file.
pub(crate) fn top_ns(file: &Path, extra: &[&str]) -> Option<(Table, i64)> {
    let mut args = vec!["top", s(file), "--json", "--limit", "0"];
    args.extend(extra);
    let out = jsprof(&args);
    if !out.status.success() {
        return None;
    }
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    Some((table_of(&doc), total_of(&doc)))
}

/// The per-file tables of `file` as the lake holds it: the file, or each sampled thread of a
/// trace.
fn per_file(file: &Path) -> Option<Vec<(Table, i64)>> {
    let threads = jsprof(&["threads", s(file), "--json"]);
    let doc: Value = serde_json::from_slice(&threads.stdout).ok()?;
    if doc["kind"] == "trace" {
        let mut out = Vec::new();
        for t in doc["timelines"].as_array()? {
            if t["samples"].as_u64().unwrap_or(0) == 0 {
                continue;
            }
            let id = t["timeline_id"].to_string();
            out.push(top_ns(file, &["--thread", &id])?);
        }
        return Some(out);
    }
    Some(vec![top_ns(file, &[])?])
}

fn add_table(sum: &mut Table, t: &Table) {
    for (k, (a, b)) in t {
        let e = sum.entry(k.clone()).or_default();
        e.0 += a;
        e.1 += b;
    }
}

fn lake_top(lake: &Path, extra: &[&str]) -> (Table, Value) {
    let mut args = vec!["lake", "top", s(lake), "--json", "--limit", "0"];
    args.extend(extra);
    let doc = jsprof_json(&args);
    let table = table_of(&doc);
    (table, doc)
}

fn add(lake: &Path, files: &[PathBuf], labels: &[&str]) -> Value {
    let mut args = vec!["lake", "add", s(lake), "--json"];
    for f in files {
        args.push(s(f));
    }
    for l in labels {
        args.extend(["--label", l]);
    }
    jsprof_json(&args)
}

/// `got` (`what` answered it) holds `want`'s functions, and only those, with their weights.
pub(crate) fn assert_tables_equal(got: &Table, want: &Table, what: &str) {
    let differ: Vec<_> = want
        .iter()
        .filter(|(k, v)| got.get(*k) != Some(v))
        .map(|(k, v)| (k.clone(), *v, got.get(k).copied()))
        .take(5)
        .collect();
    assert!(
        differ.is_empty() && got.len() == want.len(),
        "{what} differs: {} vs {} functions; (function, want, {what}): {differ:?}",
        want.len(),
        got.len()
    );
}

#[test]
fn lake_top_is_the_sum_of_top_over_every_sampled_fixture_to_the_microsecond() {
    let lake = fresh("sum");
    let mut read = Vec::new();
    let mut want = BTreeMap::new();
    let mut want_total = 0;
    let (mut a_want, mut a_files) = (BTreeMap::new(), Vec::new());
    let mut b_files = Vec::new();
    for (i, file) in sampled_fixtures().into_iter().enumerate() {
        let Some(tables) = per_file(&file) else {
            continue;
        };
        for (t, total) in &tables {
            add_table(&mut want, t);
            want_total += total;
            if i % 2 == 0 {
                add_table(&mut a_want, t);
            }
        }
        if i % 2 == 0 {
            a_files.push(file.clone());
        } else {
            b_files.push(file.clone());
        }
        read.push(file);
    }
    assert!(
        read.len() >= 12,
        "the fixtures hold many sampled profiles, got {read:?}"
    );
    let added_a = add(&lake, &a_files, &["version=1.0", "run=a"]);
    let added_b = add(&lake, &b_files, &["version=1.1"]);
    assert!(added_a["profiles"].as_u64().unwrap() >= a_files.len() as u64);
    assert!(added_b["profiles"].as_u64().unwrap() >= b_files.len() as u64);

    let (got, doc) = lake_top(&lake, &[]);
    assert_tables_equal(&got, &want, "lake top");
    assert_eq!(total_of(&doc), want_total, "the selection's total");

    // Labels select: version=1.0 is set A alone; `!=` and `|` select the same sets.
    let (got_a, _) = lake_top(&lake, &["--where", "version=1.0"]);
    assert_tables_equal(&got_a, &a_want, "lake top");
    let (got_not_b, _) = lake_top(&lake, &["--where", "version!=1.1"]);
    assert_tables_equal(&got_not_b, &a_want, "lake top");
    let (got_both, _) = lake_top(&lake, &["--where", "version=1.0|1.1,source=cli"]);
    assert_tables_equal(&got_both, &want, "lake top");
    let (none, doc) = lake_top(&lake, &["--where", "version=1.0", "--where", "run=b"]);
    assert!(none.is_empty());
    assert_eq!(doc["profiles"], 0);
    // Everything was added today: a window in the past selects nothing, one around now all.
    let (past, _) = lake_top(&lake, &["--until", "2000-01-01"]);
    assert!(past.is_empty());
    let (all, _) = lake_top(&lake, &["--since", "2000-01-01"]);
    assert_tables_equal(&all, &want, "lake top");

    // Compaction keeps every answer and leaves one file per table and partition.
    let before_files = parquet_files(&lake).len();
    let out = jsprof(&["lake", "compact", s(&lake)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after_files = parquet_files(&lake).len();
    assert!(
        after_files < before_files,
        "{before_files} → {after_files} files"
    );
    let (got, _) = lake_top(&lake, &[]);
    assert_tables_equal(&got, &want, "lake top");
    let (got_a, _) = lake_top(&lake, &["--where", "version=1.0"]);
    assert_tables_equal(&got_a, &a_want, "lake top");
    let _ = std::fs::remove_dir_all(&lake);
}

/// `lake top` over one profile answers what `jsprof top` answers over its file, so its rows
/// are `top`'s rows: the same bytes (one row type, one order, one conversion to ms), for time
/// and bytes, ordered by self and by total.
#[test]
fn lake_top_of_one_profile_is_tops_rows_byte_for_byte() {
    let lake = fresh("one-profile");
    let files = [
        "cpu/tsc.cpuprofile.gz",
        "selfprofile/primes.jsprofile.json",
        "heapprofile/tsc.heapprofile",
    ];
    for (i, file) in files.iter().enumerate() {
        add(
            &lake,
            &[fixtures().join(file)],
            &[format!("file={i}").as_str()],
        );
    }
    // The rows are the documents' last field: the text from `"functions":` on.
    let rows = |out: std::process::Output| {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let at = text.find("\"functions\":[{").expect("rows");
        text[at..].to_string()
    };
    for (i, file) in files.iter().enumerate() {
        for by in ["self", "total"] {
            let file = fixtures().join(file);
            let want = rows(jsprof(&argv(
                "top {} --json --limit 0 --by {}",
                &[&s(&file), &by],
            )));
            let only = format!("file={i}");
            let got = rows(jsprof(&argv(
                "lake top {} --json --limit 0 --by {} --where {}",
                &[&s(&lake), &by, &only],
            )));
            assert_eq!(got, want, "{} --by {by}", file.display());
        }
    }
    let _ = std::fs::remove_dir_all(&lake);
}

fn parquet_files(lake: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![lake.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|e| e == "parquet") {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn re_adding_the_same_content_is_a_no_op() {
    let lake = fresh("readd");
    let file = fixtures().join("cpu/tsc.cpuprofile.gz");
    let first = add(&lake, std::slice::from_ref(&file), &["run=1"]);
    assert_eq!(first["profiles"], 1);
    let files = parquet_files(&lake).len();
    let again = add(&lake, std::slice::from_ref(&file), &["run=2"]);
    assert_eq!(again["profiles"], 0);
    assert_eq!(
        again["duplicates"],
        serde_json::json!(["tsc.cpuprofile.gz"])
    );
    assert_eq!(parquet_files(&lake).len(), files, "nothing written");
    let ls = jsprof_json(&["lake", "ls", s(&lake), "--json"]);
    assert_eq!(ls["profiles"].as_array().unwrap().len(), 1);
    assert_eq!(ls["profiles"][0]["labels"]["run"], "1");
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn a_corrupt_or_truncated_file_is_skipped_with_a_warning_naming_it() {
    let lake = fresh("corrupt");
    let files = [
        fixtures().join("cpu/tsc.cpuprofile.gz"),
        fixtures().join("selfprofile/primes.jsprofile.json"),
    ];
    // The fact tables `lake top` reads: samples (the total) and profile_functions (the
    // functions' weights).
    let facts = |lake: &Path| -> Vec<PathBuf> {
        parquet_files(lake)
            .into_iter()
            .filter(|p| {
                let p = p.to_string_lossy();
                p.contains("/samples/") || p.contains("/profile_functions/")
            })
            .collect()
    };
    add(&lake, &files[..1], &[]);
    let (want, _) = lake_top(&lake, &[]);
    let first = facts(&lake);
    add(&lake, &files[1..], &[]);
    // The second add's fact files, cut in half as a killed copy would leave them, and a
    // writer's temporary file with garbage beside them.
    let victims: Vec<PathBuf> = facts(&lake)
        .into_iter()
        .filter(|p| !first.contains(p))
        .collect();
    assert_eq!(
        victims.len(),
        2,
        "the second add wrote samples and profile_functions"
    );
    for victim in &victims {
        let bytes = std::fs::read(victim).unwrap();
        std::fs::write(victim, &bytes[..bytes.len() / 2]).unwrap();
    }
    let victim = &victims[0];
    std::fs::write(
        victim.parent().unwrap().join(".tmp-part-x-000001.parquet"),
        b"not parquet",
    )
    .unwrap();
    let out = jsprof(&["lake", "top", s(&lake), "--json", "--limit", "0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr.contains(&name) && stderr.contains("skipped"),
        "warning names the file: {stderr}"
    );
    assert!(
        !stderr.contains(".tmp-"),
        "temporary files are not read: {stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = table_of(&doc);
    // Only the intact first add's rows count.
    assert_tables_equal(&got, &want, "lake top");
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn lake_sql_answers_queries_and_refuses_to_write() {
    let lake = fresh("sql");
    add(
        &lake,
        &[fixtures().join("cpu/tsc.cpuprofile.gz")],
        &["version=2"],
    );
    let doc = jsprof_json(&argv(
        "lake sql {} {} --json",
        &[
            &s(&lake),
            &"SELECT count(*) AS n, min(labels['version']) AS v FROM profiles",
        ],
    ));
    assert_eq!(doc["rows"][0]["n"], 1);
    assert_eq!(doc["rows"][0]["v"], "2");
    let escape = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lake-sql-escape.csv");
    let _ = std::fs::remove_file(&escape);
    for sql in [
        format!("COPY (SELECT * FROM profiles) TO '{}'", escape.display()),
        "CREATE TABLE t AS SELECT 1".to_string(),
        "INSERT INTO samples VALUES ('x', 1, 1, 1)".to_string(),
        "CREATE VIEW v AS SELECT 1".to_string(),
        "SET datafusion.execution.target_partitions = 1".to_string(),
        "DROP VIEW profiles".to_string(),
    ] {
        let out = jsprof(&["lake", "sql", s(&lake), &sql]);
        assert_eq!(out.status.code(), Some(2), "{sql} must be refused");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("lake sql"), "{sql}: {stderr}");
    }
    assert!(!escape.exists(), "COPY wrote nothing");
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn a_traces_sampled_threads_are_profiles_of_their_own() {
    let lake = fresh("threads");
    let trace = fixtures().join("third-party/speedscope/Chrome-70-worker.json.gz");
    add(&lake, std::slice::from_ref(&trace), &[]);
    let threads = jsprof_json(&["threads", s(&trace), "--json"]);
    let want: Vec<String> = threads["timelines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["samples"].as_u64().unwrap() > 0)
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        want.len() >= 2,
        "a trace with a worker samples two threads: {want:?}"
    );
    let ls = jsprof_json(&["lake", "ls", s(&lake), "--json"]);
    let mut got: Vec<String> = ls["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["kind"], "trace");
            p["thread"].as_str().unwrap().to_string()
        })
        .collect();
    let mut want = want;
    got.sort();
    want.sort();
    assert_eq!(got, want);
    // One thread selected by its column.
    let main = &want[0];
    let (one, doc) = lake_top(&lake, &["--where", &format!("thread={main}")]);
    assert_eq!(doc["profiles"], 1);
    assert!(!one.is_empty());
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn a_heap_profile_adds_bytes_and_a_snapshot_its_summary() {
    let lake = fresh("heap");
    let heapprofile = fixtures().join("heapprofile/tsc.heapprofile");
    let snapshot = fixtures().join("heap/node-small.heapsnapshot.gz");
    add(&lake, &[heapprofile.clone(), snapshot.clone()], &[]);
    let top = jsprof_json(&["top", s(&heapprofile), "--json", "--limit", "0"]);
    let want = table_of(&top);
    let doc = jsprof_json(&["lake", "top", s(&lake), "--json", "--limit", "0"]);
    assert_eq!(
        doc["unit"], "bytes",
        "the only sampled profile weighs bytes"
    );
    assert_eq!(doc["total_bytes"], top["total_bytes"]);
    for doc in [&top, &doc] {
        assert!(doc["functions"][0]["self_bytes"].is_i64(), "bytes: {doc}");
    }
    assert_tables_equal(&table_of(&doc), &want, "lake top");

    // The classes table holds the Summary's rows (SQL names its columns as the Summary does).
    let classes = |rows: &Value| -> Vec<(String, i64, i64, i64)> {
        let mut rows: Vec<_> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let n = |k: &str| c[k].as_i64().unwrap();
                let name = c["name"].as_str().unwrap().to_string();
                (name, n("count"), n("self_size"), n("retained_size"))
            })
            .collect();
        rows.sort();
        rows
    };
    let summary = jsprof_json(&["heap", "summary", s(&snapshot), "--json", "--limit", "0"]);
    let want = classes(&summary["classes"]);
    let sql =
        "SELECT class_name AS name, count, shallow_size AS self_size, retained_size FROM classes";
    let rows = jsprof_json(&argv("lake sql {} {} --json", &[&s(&lake), &sql]));
    let got = classes(&rows["rows"]);
    assert!(want.len() > 20);
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn trend_orders_versions_naturally_and_tree_and_flamegraph_draw_the_merged_stacks() {
    let lake = fresh("trend");
    let a = fixtures().join("diff/before.cpuprofile.gz");
    let b = fixtures().join("diff/after.cpuprofile.gz");
    add(&lake, std::slice::from_ref(&a), &["version=1.10"]);
    add(&lake, std::slice::from_ref(&b), &["version=1.2"]);
    // The heaviest function of the later file, by self time.
    let top_b = jsprof_json(&["top", s(&b), "--json", "--limit", "1"]);
    let name = top_b["functions"][0]["name"].as_str().unwrap().to_string();
    let trend = jsprof_json(&argv(
        "lake trend {} {} --by version --json",
        &[&s(&lake), &name],
    ));
    let points = trend["points"].as_array().unwrap();
    let values: Vec<&str> = points
        .iter()
        .map(|p| p["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["1.2", "1.10"]);
    // Its share in 1.2 is the after file's: jsprof top's percentages of the same function(s).
    let top_all = jsprof_json(&["top", s(&b), "--json", "--limit", "0"]);
    let self_pct: f64 = top_all["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["name"] == name.as_str())
        .map(|f| f["self_percent"].as_f64().unwrap())
        .sum();
    let got = points[0]["self_percent"].as_f64().unwrap();
    assert!((got - self_pct).abs() < 1e-9, "{got} vs {self_pct}");

    // The merged tree of one file is that file's tree.
    let one = ["--where", "version=1.2"];
    let tree = jsprof_json(&["tree", s(&b), "--json"]);
    let mut args = vec!["lake", "tree", s(&lake), "--json"];
    args.extend(one);
    let lake_tree = jsprof_json(&args);
    let nodes = |doc: &Value| -> Vec<(String, i64, f64, f64)> {
        let mut v: Vec<_> = doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["name"].as_str().unwrap_or_default().to_string(),
                    n["depth"].as_i64().unwrap_or(-1),
                    (n["self_ms"].as_f64().unwrap() * 1e6).round(),
                    (n["total_ms"].as_f64().unwrap() * 1e6).round(),
                )
            })
            .collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v
    };
    assert_eq!(nodes(&lake_tree), nodes(&tree));

    let svg = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lake-flame.svg");
    let out = jsprof(&["lake", "flamegraph", s(&lake), "-o", s(&svg)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<?xml") || text.starts_with("<svg"));
    assert!(
        text.contains(&name),
        "the graph names the heaviest function"
    );
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn bad_where_terms_and_non_lakes_are_clear_errors() {
    let lake = fresh("bad");
    add(&lake, &[fixtures().join("cpu/tsc.cpuprofile.gz")], &[]);
    let out = jsprof(&["lake", "top", s(&lake), "--where", "version"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--where `version`"));
    let out = jsprof(&["lake", "top", s(&lake), "--since", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("yesterday"));
    let out = jsprof(&["lake", "top", s(&fixtures())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a lake"));
    let _ = std::fs::remove_dir_all(&lake);
}

/// `--labels-from-path`: each file gets the labels of its `NAME=VALUE` directories (the
/// innermost wins), `--label` wins over them, and other directories are not labels.
#[test]
fn labels_come_from_hive_style_directories() {
    let root = fresh("labels-from-path");
    let f = crate::support::fixtures();
    let place = |dir: &str, fixture: &str| {
        let d = root.join("runs").join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(
            f.join(fixture),
            d.join(Path::new(fixture).file_name().unwrap()),
        )
        .unwrap();
    };
    place("version=1.2/page=home", "selfprofile/primes.jsprofile.json");
    place(
        "version=1.3/plain/page=cart",
        "selfprofile/mdn-example.jsprofile.json",
    );
    place("version=1.3/page=a/page=b", "cpu/node-mix.cpuprofile.gz");
    let lake = root.join("lake");
    let out = jsprof_json(&argv(
        "lake add {} {} --labels-from-path --label host=ci --json",
        &[&s(&lake), &s(&root.join("runs"))],
    ));
    assert_eq!(out["profiles"], 3, "{out}");
    let ls = jsprof_json(&["lake", "ls", s(&lake), "--json"]);
    let mut got: Vec<(String, Value)> = ls["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["source_name"].as_str().unwrap().to_string(),
                p["labels"].clone(),
            )
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    let want = |v: &str, page: &str| serde_json::json!({"version": v, "page": page, "host": "ci", "source": "cli"});
    assert_eq!(
        got,
        vec![
            (
                "mdn-example.jsprofile.json".to_string(),
                want("1.3", "cart")
            ),
            ("node-mix.cpuprofile.gz".to_string(), want("1.3", "b")),
            ("primes.jsprofile.json".to_string(), want("1.2", "home")),
        ]
    );
    // Selecting by a path label works as any label.
    let (_, doc) = lake_top(&lake, &["--where", "version=1.3,page=cart"]);
    assert_eq!(doc["profiles"], 1);
}

/// A JS Self-Profiling trace of one chain of `depth` distinct functions (`f0` calls `f1` … calls
/// `f{depth-1}`), its `samples` first: `samples` samples 10 ms apart, on every
/// `depth / samples`-th stack of the chain, the deepest included. The review's attack: 16,000
/// stacks in one chain under 1 MB, whose lake rows (the distinct functions from the root, per
/// stack) were quadratic. Generated here, never committed.
pub(crate) fn deep_chain_trace(depth: usize, samples: usize) -> Vec<u8> {
    let mut out = String::from("{\"samples\":[");
    let step = (depth / samples).max(1);
    for j in 0..samples {
        if j > 0 {
            out.push(',');
        }
        let stack = ((j + 1) * step - 1).min(depth - 1);
        out.push_str(&format!(
            "{{\"timestamp\":{},\"stackId\":{stack}}}",
            1000 + j * 10
        ));
    }
    out.push_str("],\"frames\":[");
    for i in 0..depth {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"name\":\"f{i}\"}}"));
    }
    out.push_str("],\"resources\":[],\"stacks\":[");
    for i in 0..depth {
        if i > 0 {
            out.push(',');
        }
        if i == 0 {
            out.push_str("{\"frameId\":0}");
        } else {
            out.push_str(&format!("{{\"frameId\":{i},\"parentId\":{}}}", i - 1));
        }
    }
    out.push_str("]}");
    out.into_bytes()
}

/// The address-space limit for a jsprof process reading `input_bytes` of input: 256 MiB for the
/// program itself (its code, threads and allocator) plus 128 bytes per input byte. Linear in the
/// input: 16,000 stacks in one chain (849 KB) get 360 MiB, where the quadratic store peaked at
/// 3.8 GB.
pub(crate) fn memory_limit(input_bytes: usize) -> u64 {
    (256 << 20) + 128 * input_bytes as u64
}

/// `jsprof ARGS` with its address space limited to `limit` bytes (`prlimit --as`).
pub(crate) fn jsprof_within(limit: u64, args: &[&str]) -> std::process::Output {
    std::process::Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .output()
        .expect("run prlimit (util-linux)")
}

/// Bytes of the lake's Parquet files.
pub(crate) fn parquet_bytes(lake: &Path) -> u64 {
    parquet_files(lake)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}

/// Issue 33, finding 1: a 16,000-deep chain of distinct functions, every 16th stack sampled.
/// Version 1 of the lake stored each stack's distinct functions from the root — 128 M ids —
/// and every stack of the input, sampled or not: `lake add` peaked at 3.8 GB and wrote 28 MB of
/// Parquet, and every `lake top` took 10 s and 3.5 GB. Now `lake add` and `lake top` each run
/// within [`memory_limit`] of the input (360 MiB here) and the Parquet stays under 2 MB (about
/// 1 MB: a stacks row and a `profile_functions` row per function); `lake top` equals `jsprof
/// top` on the file to the nanosecond.
#[test]
fn a_16000_deep_chain_is_added_and_queried_in_memory_linear_in_the_input() {
    let root = fresh("deep-chain");
    std::fs::create_dir_all(&root).unwrap();
    let trace = deep_chain_trace(16_000, 1_000);
    assert!(
        trace.len() < 1 << 20,
        "under ingest's 1 MiB: {}",
        trace.len()
    );
    let file = root.join("chain.jsprofile.json");
    std::fs::write(&file, &trace).unwrap();
    let lake = root.join("lake");
    let limit = memory_limit(trace.len());
    let out = jsprof_within(limit, &["lake", "add", s(&lake), s(&file), "--json"]);
    assert!(
        out.status.success(),
        "lake add within {limit} bytes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = parquet_bytes(&lake);
    assert!(
        bytes < 2 << 20,
        "{bytes} bytes of Parquet for a 16,000-deep chain"
    );
    let (want, want_total) = top_ns(&file, &[]).expect("jsprof top reads the chain");
    assert_eq!(want.len(), 16_000);
    let out = jsprof_within(limit, &["lake", "top", s(&lake), "--json", "--limit", "0"]);
    assert!(
        out.status.success(),
        "lake top within {limit} bytes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = table_of(&doc);
    assert_tables_equal(&got, &want, "lake top");
    assert_eq!(total_of(&doc), want_total);
    let _ = std::fs::remove_dir_all(&root);
}

/// `jsprof ARGS` under umask 022, the usual default, which leaves what a program creates
/// readable by everyone unless it says otherwise.
pub(crate) fn jsprof_umask_022(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .args(["-c", "umask 022 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_jsprof"))
        .args(args)
        .output()
        .expect("run sh")
}

/// Every directory and file under `root` (itself included) is its owner's only: no group or
/// other permission bit.
pub(crate) fn assert_private(root: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut seen = 0;
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{} is mode {mode:o}", p.display());
        seen += 1;
        if meta.is_dir() {
            todo.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        }
    }
    assert!(seen > 2, "{}: nothing checked", root.display());
}

/// Issue 33 (Low): the lake's directories and Parquet files were created with the umask's modes,
/// readable by every local user (function names, script URLs, labels). Now, under umask 022:
/// `lake init`, `lake add` (partitioned by a label) and `lake compact` leave directories 0700
/// and files 0600; the lake reads as before.
#[test]
fn lake_files_and_directories_are_private_whatever_the_umask() {
    let lake = fresh("private");
    let init = jsprof_umask_022(&["lake", "init", s(&lake), "--partition-label", "run"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    for (i, file) in ["cpu/tsc.cpuprofile.gz", "selfprofile/primes.jsprofile.json"]
        .iter()
        .enumerate()
    {
        let label = format!("run={i}");
        let file = fixtures().join(file);
        let out = jsprof_umask_022(&["lake", "add", s(&lake), s(&file), "--label", &label]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(parquet_files(&lake).len() >= 8);
    assert_private(&lake);
    let out = jsprof_umask_022(&["lake", "compact", s(&lake)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_private(&lake);
    let ls = jsprof_json(&["lake", "ls", s(&lake), "--json"]);
    assert_eq!(ls["profiles"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&lake);
}

/// Issue 33 (Low): `lake sql` had no time or memory cap: `SELECT count(*) FROM range(1e11)` ran
/// for as long as it liked, and `repeat()` asked for gigabytes at once and aborted the process
/// under a memory limit. Now each query runs within `--timeout` (60 s by default) and
/// `--max-memory` (1 GiB): past either it fails (exit 2) with a message naming the limit and
/// its flag. Shown under an address-space limit of 2 GiB, where an abort is what a failed
/// allocation does: the big aggregate, the big result and the big `repeat` are refused cleanly.
#[test]
fn lake_sql_stops_at_its_time_and_memory_limits() {
    let lake = fresh("sql-limits");
    add(&lake, &[fixtures().join("cpu/tsc.cpuprofile.gz")], &[]);
    let within = |sql: &str, extra: &[&str]| {
        let mut args = vec!["lake", "sql", s(&lake), sql];
        args.extend_from_slice(extra);
        let out = std::process::Command::new("prlimit")
            .arg(format!("--as={}", 2u64 << 30))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_jsprof"))
            .args(&args)
            .env("MALLOC_ARENA_MAX", "2")
            .output()
            .expect("run prlimit (util-linux)");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), err)
    };

    let started = std::time::Instant::now();
    let (code, err) = within(
        "SELECT count(*) FROM range(100000000000)",
        &["--timeout", "1"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("stopped after 1 s, its time limit") && err.contains("--timeout"),
        "{err}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));

    for sql in [
        // An aggregate's hash table: DataFusion's memory pool.
        "SELECT count(DISTINCT value) FROM range(20000000)",
        // A result held whole.
        "SELECT value FROM range(1000000000)",
        // A function whose argument chooses its result's size: 2 GB in one allocation.
        "SELECT length(repeat('x', 2000000000))",
    ] {
        let (code, err) = within(sql, &["--max-memory", "64M"]);
        assert_eq!(code, Some(2), "{sql}: {err}");
        assert!(
            err.contains("more memory than its limit of 64 MiB") && err.contains("--max-memory"),
            "{sql}: {err}"
        );
    }
    // Within the limits a query answers as before.
    let (code, err) = within(
        "SELECT length(repeat('ab', 1000)) AS n, count(*) AS p FROM profiles",
        &["--max-memory", "64M", "--timeout", "30"],
    );
    assert_eq!(code, Some(0), "{err}");
    let _ = std::fs::remove_dir_all(&lake);
}
