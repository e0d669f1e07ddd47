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
  stacks AS (
    SELECT stack_id, any_value(function_id) AS function_id, any_value(functions) AS functions
    FROM read_parquet('{lake}/stacks/**/part-*.parquet', hive_partitioning = false) GROUP BY stack_id),
  weights AS (
    SELECT stack_id, sum(self_weight) AS weight
    FROM read_parquet('{lake}/samples/**/part-*.parquet', hive_partitioning = false) GROUP BY stack_id),
  self AS (
    SELECT s.function_id, sum(w.weight) AS self_weight
    FROM weights w JOIN stacks s USING (stack_id) GROUP BY s.function_id),
  total AS (
    SELECT function_id, sum(weight) AS total_weight FROM (
      SELECT unnest(s.functions) AS function_id, w.weight
      FROM weights w JOIN stacks s USING (stack_id)) GROUP BY function_id),
  funcs AS (
    SELECT function_id, any_value(name) AS name, any_value(url) AS url,
           any_value(line) AS line, any_value("column") AS "column"
    FROM read_parquet('{lake}/functions/**/part-*.parquet', hive_partitioning = false) GROUP BY function_id)
SELECT f.name, f.url, f.line, f."column", coalesce(s.self_weight, 0) AS self, t.total_weight AS total
FROM total t JOIN funcs f USING (function_id) LEFT JOIN self s USING (function_id)
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

    stacks = scan("stacks").group_by("stack_id").agg(pl.first("function_id"), pl.first("functions"))
    weights = (
        scan("samples")
        .group_by("stack_id")
        .agg(pl.col("self_weight").sum().alias("weight"))
        .join(stacks, on="stack_id")
    )
    self_ = weights.group_by("function_id").agg(pl.col("weight").sum().alias("self"))
    total = (
        weights.select("functions", "weight")
        .explode("functions")
        .group_by("functions")
        .agg(pl.col("weight").sum().alias("total"))
        .rename({"functions": "function_id"})
    )
    funcs = scan("functions").group_by("function_id").agg(
        pl.first("name"), pl.first("url"), pl.first("line"), pl.first("column")
    )
    out = (
        total.join(funcs, on="function_id")
        .join(self_, on="function_id", how="left")
        .with_columns(pl.col("self").fill_null(0))
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
        diffs = [
            (key(w), got.get(key(w)), (w["self_ns"], w["total_ns"]))
            for w in want
            if got.get(key(w)) != (w["self_ns"], w["total_ns"])
        ]
        if diffs or len(got) != len(want):
            sys.exit(f"{engine}: {len(diffs)} functions differ from lake top, e.g. {diffs[:3]}")


if __name__ == "__main__":
    main()
