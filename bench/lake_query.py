"""The lake's function table (`jsprof lake top`) through other engines, for bench/lake.sh's
engine comparison: DuckDB and Polars (the in-process alternatives the lake's note weighs against
DataFusion) and chdb (ClickHouse in-process, running contrib/clickhouse/lake_top.sql).

    python3 bench/lake_query.py LAKE duckdb|polars|chdb [--check TOP.json]

Reads only `part-*.parquet` (a writer's temporary `.tmp-part-….parquet` must not be read). The
generated lake holds time profiles only, so no engine filters on weight_unit (lake top does not
join `profiles` either then). Prints how many functions it found. With --check, compares every function's self and total with
the `functions` of a `jsprof lake top --json` output and exits 1 on any difference, so a speed
figure is never reported for a wrong answer. The time of the whole process is what the bench
measures (the engines' import included, as a user running this would pay it).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DUCKDB_SQL = """
WITH
  weights AS (
    SELECT function_id, sum(self_weight) AS self_weight, sum(total_weight) AS total_weight
    FROM read_parquet('{lake}/profile_functions/**/part-*.parquet', hive_partitioning = false)
    GROUP BY function_id),
  funcs AS (
    SELECT function_id, any_value(name) AS name, any_value(url) AS url,
           any_value(line) AS line, any_value("column") AS "column"
    FROM read_parquet('{lake}/functions/**/part-*.parquet', hive_partitioning = false) GROUP BY function_id)
SELECT f.name, f.url, f.line, f."column", w.self_weight AS self, w.total_weight AS total
FROM weights w JOIN funcs f USING (function_id)
ORDER BY self DESC, total DESC
"""


def duckdb_top(lake):
    import duckdb

    rows = duckdb.sql(DUCKDB_SQL.format(lake=lake)).fetchall()
    return [dict(zip(("name", "url", "line", "column", "self", "total"), r)) for r in rows]


def polars_top(lake):
    import polars as pl

    def scan(t):
        return pl.scan_parquet(f"{lake}/{t}/**/part-*.parquet", hive_partitioning=False)

    weights = (
        scan("profile_functions")
        .group_by("function_id")
        .agg(
            pl.col("self_weight").sum().alias("self"),
            pl.col("total_weight").sum().alias("total"),
        )
    )
    funcs = scan("functions").group_by("function_id").agg(
        pl.first("name"), pl.first("url"), pl.first("line"), pl.first("column")
    )
    out = (
        weights.join(funcs, on="function_id")
        .sort(["self", "total"], descending=True)
        .select("name", "url", "line", "column", "self", "total")
        .collect()
    )
    return out.to_dicts()


def chdb_top(lake):
    import chdb

    sql = (ROOT / "contrib/clickhouse/lake_top.sql").read_text()
    res = chdb.query(sql, "JSONEachRow", params={"lake": lake, "where": "{}", "unit": "ns"})
    return [json.loads(line) for line in str(res).splitlines() if line.strip()]


def key(r):
    return (r["name"], r["url"] or "", r["line"], r["column"])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lake, engine = sys.argv[1].rstrip("/"), sys.argv[2]
    rows = {"duckdb": duckdb_top, "polars": polars_top, "chdb": chdb_top}[engine](lake)
    print(f"{engine}: {len(rows)} functions")
    if len(sys.argv) == 5 and sys.argv[3] == "--check":
        want = json.load(open(sys.argv[4]))["functions"]
        got = {key(r): (int(r["self"]), int(r["total"])) for r in rows}
        # lake top prints ms; the lake (and these engines) count whole ns.
        ns = lambda w: (round(w["self_ms"] * 1e6), round(w["total_ms"] * 1e6))
        diffs = [(key(w), got.get(key(w)), ns(w)) for w in want if got.get(key(w)) != ns(w)]
        if diffs or len(got) != len(want):
            sys.exit(f"{engine}: {len(diffs)} functions differ from lake top, e.g. {diffs[:3]}")


if __name__ == "__main__":
    main()
