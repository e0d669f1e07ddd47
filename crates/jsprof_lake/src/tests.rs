//! The lake end to end on hand-made profiles whose answers are worked out below: write, read,
//! select, recurse, skip a corrupt file, refuse writes through SQL, compact.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::prepare::{function_id, stack_id, FunctionRow, Prepared, PreparedProfile, StackRow};
use crate::query::{self, block_on};
use crate::{Lake, LakeReader, Selection};

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jsprof-lake-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A deterministic generator of numbers below `m` (an LCG: the tests' stacks are random but the
/// same every run).
pub(crate) fn numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % m
    }
}

/// Adds the stack of `function` under `parent` to `rows`, unless it is there already.
pub(crate) fn push_stack(rows: &mut Vec<StackRow>, parent: Option<&StackRow>, function: u64) {
    let id = stack_id(parent.map(|p| p.stack_id), function);
    if rows.iter().any(|s| s.stack_id == id) {
        return;
    }
    rows.push(StackRow {
        stack_id: id,
        parent_id: parent.map(|p| p.stack_id),
        function_id: function,
        depth: parent.map_or(0, |p| p.depth + 1),
    });
}

/// Functions a and b; stacks a, a→b, a→b→a (a recursing).
fn dictionaries() -> (Vec<FunctionRow>, Vec<StackRow>, [u64; 3], [u64; 2]) {
    let fa = function_id("a", "app.js", Some(1), Some(2));
    let fb = function_id("b", "app.js", Some(5), None);
    let s1 = stack_id(None, fa);
    let s2 = stack_id(Some(s1), fb);
    let s3 = stack_id(Some(s2), fa);
    let functions = vec![
        FunctionRow {
            function_id: fa,
            name: "a".into(),
            url: "app.js".into(),
            line: Some(1),
            column: Some(2),
        },
        FunctionRow {
            function_id: fb,
            name: "b".into(),
            url: "app.js".into(),
            line: Some(5),
            column: None,
        },
    ];
    let stacks = vec![
        StackRow {
            stack_id: s1,
            parent_id: None,
            function_id: fa,
            depth: 0,
        },
        StackRow {
            stack_id: s2,
            parent_id: Some(s1),
            function_id: fb,
            depth: 1,
        },
        StackRow {
            stack_id: s3,
            parent_id: Some(s2),
            function_id: fa,
            depth: 2,
        },
    ];
    (functions, stacks, [s1, s2, s3], [fa, fb])
}

fn input(n: u8, day: i64, version: &str, samples: Vec<(u64, i64, i64)>) -> Prepared {
    let (functions, stacks, _, _) = dictionaries();
    let mut labels = BTreeMap::new();
    labels.insert("version".to_string(), version.to_string());
    labels.insert("source".to_string(), "test".to_string());
    // Profile ids take the hash's first 16 digits: make them differ there.
    let hash = format!("{:016x}{}", n, "0".repeat(48));
    Prepared {
        source_name: format!("p{n}.cpuprofile"),
        profiles: vec![PreparedProfile {
            profile_id: format!("{}-0", &hash[..16]),
            kind: "cpuprofile",
            thread: None,
            start_time_us: Some(1_767_312_000_000_000 + day * 86_400_000_000),
            duration_us: samples.iter().map(|s| s.1).sum::<i64>() as f64,
            sample_interval_us: Some(1.0),
            sample_count: samples.iter().map(|s| s.2).sum(),
            weight_unit: "ns",
            samples,
            classes: Vec::new(),
        }],
        source_hash: hash,
        page_metrics: Vec::new(),
        labels,
        functions,
        stacks,
        warnings: Vec::new(),
    }
}

/// P1 (version 1.10, 2026-01-03): a 100, a→b 50, a→b→a 30, bare root 20. P2 (version 1.2,
/// 2026-01-04): a→b 10.
fn lake(name: &str) -> Lake {
    let (_, _, [s1, s2, s3], _) = dictionaries();
    let lake = Lake::init(&fresh(name), None).unwrap();
    let mut w = lake.writer();
    let out = w
        .append(vec![input(
            1,
            1,
            "1.10",
            vec![(s1, 100, 10), (s2, 50, 5), (s3, 30, 3), (0, 20, 2)],
        )])
        .unwrap();
    assert_eq!(out.profiles, 1);
    w.append(vec![input(2, 2, "1.2", vec![(s2, 10, 1)])])
        .unwrap();
    lake
}

fn top(lake: &Lake, wheres: &[&str]) -> (BTreeMap<String, (i64, i64)>, i64, i64) {
    let sel = Selection::parse(
        &wheres.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        None,
        None,
    )
    .unwrap();
    block_on(async {
        let r = LakeReader::open(lake, &sel).await.unwrap();
        let t = query::top(&r, &sel, None).await.unwrap();
        let rows = t
            .rows
            .iter()
            .map(|r| (r.name.clone(), (r.self_weight, r.total_weight)))
            .collect();
        (rows, t.total, t.profiles)
    })
}

fn table(rows: &[(&str, i64, i64)]) -> BTreeMap<String, (i64, i64)> {
    rows.iter()
        .map(|(n, s, t)| (n.to_string(), (*s, *t)))
        .collect()
}

#[test]
fn top_sums_self_and_counts_a_recursing_function_once_in_total() {
    let lake = lake("top");
    // a: self 100 + 30 (+0), total 100 + 50 + 30 + 10 (a→b→a counted once); b: self 50 + 10,
    // total 50 + 30 + 10. The total holds the bare root's 20.
    assert_eq!(
        top(&lake, &[]),
        (table(&[("a", 130, 190), ("b", 60, 90)]), 210, 2)
    );
    assert_eq!(
        top(&lake, &["version=1.10"]),
        (table(&[("a", 130, 180), ("b", 50, 80)]), 200, 1)
    );
    assert_eq!(
        top(&lake, &["version!=1.10"]),
        (table(&[("a", 0, 10), ("b", 10, 10)]), 10, 1)
    );
    assert_eq!(top(&lake, &["since=2026-01-04"]).2, 1);
    assert_eq!(top(&lake, &["until=2026-01-04"]).2, 1);
    assert_eq!(top(&lake, &["version=9"]), (BTreeMap::new(), 0, 0));
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn re_adding_the_same_content_writes_nothing() {
    let lake = lake("readd");
    let mut w = lake.writer();
    let out = w.append(vec![input(1, 5, "other", vec![])]).unwrap();
    assert_eq!(out.profiles, 0);
    assert_eq!(out.duplicates, ["p1.cpuprofile"]);
    assert!(out.files.is_empty());
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn trend_sorts_versions_naturally() {
    let lake = lake("trend");
    let sel = Selection::default();
    let (_, points) = block_on(async {
        let r = LakeReader::open(&lake, &sel).await.unwrap();
        query::trend(&r, &sel, "b", None, "version", None)
            .await
            .unwrap()
    });
    let got: Vec<(Option<String>, i64, i64, i64)> = points
        .iter()
        .map(|p| (p.value.clone(), p.total, p.self_weight, p.total_weight))
        .collect();
    assert_eq!(
        got,
        [
            (Some("1.2".into()), 10, 10, 10),
            (Some("1.10".into()), 200, 50, 80)
        ]
    );
    // By the profiles' start days (`lake trend --by day`), which failed with "Unsupported CAST
    // from Date32 to Utf8View" until issue 35's windows gave it a use.
    let (_, points) = block_on(async {
        let r = LakeReader::open(&lake, &sel).await.unwrap();
        query::trend(&r, &sel, "b", None, "day", None)
            .await
            .unwrap()
    });
    let got: Vec<(Option<String>, i64, i64)> = points
        .iter()
        .map(|p| (p.value.clone(), p.profiles, p.total_weight))
        .collect();
    assert_eq!(
        got,
        [
            (Some("2026-01-03".into()), 1, 80),
            (Some("2026-01-04".into()), 1, 10)
        ]
    );
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn a_truncated_file_is_skipped_and_named_and_tmp_files_are_ignored() {
    let lake = lake("corrupt");
    // The second write's samples file: cut in half.
    let mut samples = crate::layout::table_files(&lake.root, "samples").unwrap();
    samples.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
    let victim = samples.last().unwrap().clone();
    let bytes = std::fs::read(&victim).unwrap();
    std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(victim.with_file_name(".tmp-part-x-000001.parquet"), b"junk").unwrap();
    let sel = Selection::default();
    let (warnings, answer) = block_on(async {
        let r = LakeReader::open(&lake, &sel).await.unwrap();
        let t = query::top(&r, &sel, None).await.unwrap();
        (r.warnings.clone(), t)
    });
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].path, victim);
    // Which write's samples were cut depends on the clock's resolution; either way only one
    // profile's samples remain.
    assert!(
        answer.total == 200 || answer.total == 10,
        "{}",
        answer.total
    );
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn sql_is_read_only() {
    let lake = lake("sql");
    let escape =
        std::env::temp_dir().join(format!("jsprof-lake-escape-{}.csv", std::process::id()));
    block_on(async {
        let r = LakeReader::open(&lake, &Selection::default())
            .await
            .unwrap();
        let b = r
            .query_read_only("SELECT count(*) AS n, max(labels['version']) AS v FROM profiles")
            .await
            .unwrap();
        let rows = query::rows_json(&b).unwrap();
        assert_eq!(rows[0]["n"], 2);
        assert_eq!(rows[0]["v"], "1.2");
        for sql in [
            format!("COPY (SELECT * FROM profiles) TO '{}'", escape.display()),
            "CREATE TABLE t AS SELECT 1".to_string(),
            "CREATE VIEW v AS SELECT 1".to_string(),
            "INSERT INTO _samples VALUES ('x', 1, 1, 1)".to_string(),
            "SET datafusion.execution.target_partitions = 1".to_string(),
            "DROP VIEW profiles".to_string(),
        ] {
            let err = r.query_read_only(&sql).await.unwrap_err();
            assert!(err.to_string().starts_with("lake sql:"), "{sql}: {err}");
        }
    });
    assert!(!escape.exists());
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn compact_keeps_every_answer_and_merges_files() {
    let lake = lake("compact");
    let before = top(&lake, &[]);
    let before_1 = top(&lake, &["version=1.10"]);
    let files = |t: &str| crate::layout::table_files(&lake.root, t).unwrap().len();
    assert_eq!(files("functions"), 2);
    let out = crate::compact::compact(&lake).unwrap();
    assert_eq!(files("functions"), 1);
    assert_eq!(files("stacks"), 1);
    assert!(
        out.rows_after < out.rows_before,
        "dictionary rows deduplicated"
    );
    assert_eq!(top(&lake, &[]), before);
    assert_eq!(top(&lake, &["version=1.10"]), before_1);
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn a_reader_listing_old_and_merged_files_counts_rows_once() {
    let lake = lake("replaces");
    // A third profile on P2's day: that partition's samples and profiles get merged too.
    let (_, _, [s1, _, _], _) = dictionaries();
    lake.writer()
        .append(vec![input(3, 2, "1.2", vec![(s1, 7, 1)])])
        .unwrap();
    let before = top(&lake, &[]);
    assert_eq!(before.2, 3);
    // As if a compaction had renamed its merged file in but not yet removed the old ones:
    // compact a copy, then put the old files back beside the merged ones.
    let saved: Vec<(PathBuf, Vec<u8>)> = crate::schema::TABLES
        .iter()
        .flat_map(|t| crate::layout::table_files(&lake.root, t).unwrap())
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    crate::compact::compact(&lake).unwrap();
    for (p, b) in &saved {
        std::fs::write(p, b).unwrap();
    }
    assert_eq!(top(&lake, &[]), before);
    let _ = std::fs::remove_dir_all(&lake.root);
}

/// Speed, not correctness: `lake top` over a synthetic lake of `JSPROF_LAKE_N` profiles (default
/// 100,000), each with 60 of 2,000 shared stacks (20 versions, written in batches of 10,000).
/// `cargo test -p jsprof_lake --release --lib -- --ignored --nocapture top_speed`
#[test]
#[ignore]
fn top_speed() {
    let n: usize = std::env::var("JSPROF_LAKE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let lake = Lake::init(&fresh("speed"), None).unwrap();
    let fids: Vec<u64> = (0..300)
        .map(|i| function_id(&format!("fn{i}"), "app.js", Some(i), None))
        .collect();
    let functions: Vec<FunctionRow> = (0..300u32)
        .map(|i| FunctionRow {
            function_id: fids[i as usize],
            name: format!("fn{i}"),
            url: "app.js".into(),
            line: Some(i as i32),
            column: None,
        })
        .collect();
    // 2,000 stacks: each a child of an earlier one (or a root), parents first.
    let mut stacks: Vec<StackRow> = Vec::new();
    let mut rnd = numbers(7);
    for i in 0..2000u64 {
        let f = fids[rnd(300) as usize];
        let parent = (i > 20).then(|| stacks[rnd(stacks.len() as u64) as usize].clone());
        push_stack(&mut stacks, parent.as_ref(), f);
    }
    let t0 = std::time::Instant::now();
    let mut w = lake.writer();
    for chunk in (0..n).collect::<Vec<_>>().chunks(10_000) {
        let batch: Vec<Prepared> = chunk
            .iter()
            .map(|&i| {
                let samples = (0..60)
                    .map(|_| {
                        (
                            stacks[rnd(stacks.len() as u64) as usize].stack_id,
                            100 + rnd(1000) as i64,
                            1,
                        )
                    })
                    .collect();
                let mut p = input(0, 0, &format!("1.{}", i % 20), samples);
                p.source_hash = format!("{:016x}{}", i + 1, "0".repeat(48));
                p.profiles[0].profile_id = format!("{:016x}-0", i + 1);
                p.functions = if i == chunk[0] {
                    functions.clone()
                } else {
                    Vec::new()
                };
                p.stacks = if i == chunk[0] {
                    stacks.clone()
                } else {
                    Vec::new()
                };
                p
            })
            .collect();
        w.append(batch).unwrap();
    }
    eprintln!("wrote {n} profiles in {:.1} s", t0.elapsed().as_secs_f64());
    let sel = Selection::default();
    for pass in 0..2 {
        let t = std::time::Instant::now();
        let rows = block_on(async {
            let r = LakeReader::open(&lake, &sel).await.unwrap();
            query::top(&r, &sel, None).await.unwrap().rows.len()
        });
        eprintln!(
            "lake top pass {pass}: {rows} functions in {:.2} s",
            t.elapsed().as_secs_f64()
        );
    }
    let sel = Selection::parse(&["version=1.3".into()], None, None).unwrap();
    let t = std::time::Instant::now();
    block_on(async {
        let r = LakeReader::open(&lake, &sel).await.unwrap();
        query::top(&r, &sel, None).await.unwrap()
    });
    eprintln!(
        "lake top --where version=1.3: {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&lake.root);
}

#[test]
fn a_version_1_lake_is_refused_with_what_to_do() {
    let dir = fresh("v1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("lake.json"),
        r#"{"format": "jsprof-lake", "version": 1, "partition_label": null}"#,
    )
    .unwrap();
    let err = Lake::open(&dir).unwrap_err().to_string();
    assert!(
        err.contains("version-1 lake") && err.contains("lake add"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
