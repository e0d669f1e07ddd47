//! The lake read by other engines: `contrib/spark/lake_top.py` in Spark's local mode and
//! `contrib/clickhouse/lake_top.sql` through chdb (ClickHouse in-process) must give exactly
//! `jsprof lake top --json`'s numbers — every function, self and total, to the nanosecond (the lake stores the engine's integer ns; `lake top` prints them as ms) — on a
//! lake built from the fixtures with `jsprof lake add`. Needs Java and a Python with pyspark and
//! chdb: `.ci/run` installs them in `target/lake-py` (or set `JSPROF_LAKE_PYTHON`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::lake::{assert_tables_equal, key, table_of, Table};
use crate::support::{
    all_rows, fixtures, jsprof, jsprof_json, output_ok, python, python_has, skip_without,
};

const ENGINES: &str = "pip install pyspark==3.5.3 chdb==4.4.0, or run .ci/run's install step";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh lake with the fixtures' sampled profiles in two label sets, so that a label filter
/// has something to leave out.
fn fixture_lake(name: &str) -> PathBuf {
    let lake = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lake-engines-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&lake);
    let f = fixtures();
    let lake_s = lake.to_str().unwrap();
    for (files, labels) in [
        (
            vec![
                f.join("selfprofile/primes.jsprofile.json"),
                f.join("selfprofile/mdn-example.jsprofile.json"),
                f.join("cpu/node-mix.cpuprofile.gz"),
            ],
            ["version=1.0", "page=home"],
        ),
        (
            vec![
                f.join("cpu/tsc.cpuprofile.gz"),
                f.join("trace/primes.trace.json.gz"),
            ],
            ["version=1.1", "page=home"],
        ),
    ] {
        let mut args = vec!["lake", "add", lake_s];
        let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        args.extend(files.iter().map(String::as_str));
        for l in &labels {
            args.extend(["--label", l]);
        }
        let out = jsprof(&args);
        assert!(
            out.status.success(),
            "jsprof {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    lake
}

/// `jsprof lake top --json` as function → (self ns, total ns): its ms are whole ns.
fn lake_top(lake: &Path, filter: &[&str]) -> Table {
    let mut args = all_rows(&["lake", "top"], lake.to_str().unwrap());
    for w in filter {
        args.extend(["--where", w]);
    }
    let table = table_of(&jsprof_json(&args));
    assert!(
        table.len() > 50,
        "a lake of the fixtures has many functions"
    );
    table
}

/// An engine's rows (`name, url, line, column, self, total`) as a [`Table`].
fn engine_table(rows: &[Value]) -> Table {
    rows.iter()
        .map(|r| {
            let n = |v: &Value| {
                v.as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            };
            (
                key(r),
                (n(&r["self"]).expect("self"), n(&r["total"]).expect("total")),
            )
        })
        .collect()
}

#[test]
fn chdb_gives_lake_tops_numbers() {
    let py = python();
    if !python_has(&py, "chdb", ENGINES) {
        return;
    }
    let lake = fixture_lake("chdb");
    let sql = repo().join("contrib/clickhouse/lake_top.sql");
    for (filter, map) in [(&[][..], "{}"), (&["version=1.1"][..], "{'version':'1.1'}")] {
        let want = lake_top(&lake, filter);
        let out = output_ok(
            Command::new(&py)
                .args([
                    "-c",
                    "import chdb, sys\n\
                     r = chdb.query(open(sys.argv[1]).read(), 'JSONEachRow',\n\
                         params={'lake': sys.argv[2], 'where': sys.argv[3], 'unit': 'ns'})\n\
                     sys.stdout.write(str(r))",
                ])
                .arg(&sql)
                .arg(&lake)
                .arg(map),
            "chdb",
        );
        let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("a JSON row"))
            .collect();
        assert_tables_equal(&engine_table(&rows), &want, &format!("chdb {map}"));
    }
    let _ = std::fs::remove_dir_all(&lake);
}

#[test]
fn spark_gives_lake_tops_numbers() {
    let py = python();
    if !python_has(&py, "pyspark", ENGINES) {
        return;
    }
    if !Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        skip_without("java", "apt-get install openjdk-17-jre-headless");
        return;
    }
    let lake = fixture_lake("spark");
    // One Spark run (a JVM start is most of a minute on a busy machine), with a label filter, so
    // the profiles join is exercised too: the other label set's functions must not appear.
    let want = lake_top(&lake, &["version=1.0"]);
    let out = output_ok(
        Command::new(&py)
            .arg(repo().join("contrib/spark/lake_top.py"))
            .arg(&lake)
            .args(["top", "--where", "version=1.0", "--master", "local[1]"])
            // Spark's driver binds to the loopback only; tests never reach the network.
            .env("SPARK_LOCAL_IP", "127.0.0.1"),
        "spark",
    );
    let result: Value =
        serde_json::from_slice(&out.stdout).expect("the job prints one JSON object");
    assert_eq!(result["kind"], "lake-top");
    let rows = result["functions"].as_array().expect("functions");
    assert_tables_equal(&engine_table(rows), &want, "spark");
    let _ = std::fs::remove_dir_all(&lake);
}
