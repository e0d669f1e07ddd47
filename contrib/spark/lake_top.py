"""The profile lake's function table and A/B diff on Spark, for lakes past one machine.

Reads a jsprof profile lake (docs/lake.md, schema version 2) from any path Spark can read — a
local directory, hdfs://…, s3a://bucket/lake — and answers the questions `jsprof lake top` and
`jsprof lake diff` answer in-process:

  spark-submit contrib/spark/lake_top.py LAKE top  [--where WHERE]... [--unit ns|bytes] [--limit N]
                                                   [--out PATH]
  spark-submit contrib/spark/lake_top.py LAKE diff --base WHERE --target WHERE [--metric self|total]
                                                   [--alpha 0.05] [--floor 1.0] [--out PATH]

WHERE is `jsprof lake --where`'s grammar: `version=1.14.0,page=home|search`, `release!=canary`,
`since=2026-11-01`.

`top`: every function's self and total weight (ns, or bytes with `--unit bytes`) summed over the
selected profiles.
Self counts samples whose stack has the function on top; total counts samples whose stack contains
it, once however often it recurses (DevTools' rule) — the writer keeps both per profile and
function in the lake's `profile_functions` table, so sums over it are exact. The numbers are the
lake's integer ns and equal `jsprof lake top --json`'s to the nanosecond (which prints them as ms,
`self_ms` = self / 10⁶; tests/it/lake_engines.rs checks it).

`diff`: per profile, each function's share of the profile's weight (idle and samples with an empty
stack included, as `jsprof top`'s percentages); per function,
a Mann-Whitney U test of the base group's shares against the target group's (profiles where the
function never ran have share 0: those ties are ranked in closed form, not materialised, so the
job scales with the non-zero shares only), Benjamini-Hochberg over all functions, and the change of
the mean share in points with a 95 % normal confidence interval. A change is reported when it is
significant (q < alpha) and its mean moved by at least `--floor` points.

Nothing is read or written outside Spark's own I/O except the printed result, so the job runs
unchanged on a cluster (`--master yarn`, `k8s://…`) as in local mode. With `--out PATH` the full
table is also written as Parquet to PATH (any Spark path). The printed result is one JSON object.
"""

import argparse
import json
import math
import sys

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

TABLES = ("profiles", "samples", "profile_functions", "functions")


def read_lake(spark, lake):
    """The tables it needs, read recursively (the day/label directories are Hive-style, but every
    column a query needs is in the files, so partition discovery is switched off: a lake whose
    partition label differs between writers still reads as one table). Only `part-*.parquet`:
    a writer's temporary file is `.tmp-part-….parquet` (Spark skips names starting with `.`
    anyway; the filter says so for any reader of this code)."""
    base = lake.rstrip("/")
    return {
        t: spark.read.option("recursiveFileLookup", "true")
        .option("pathGlobFilter", "part-*.parquet")
        .parquet(f"{base}/{t}")
        for t in TABLES
    }


# Names that are the profiles table's own columns, not labels (as in `jsprof lake --where`).
COLUMNS = ("kind", "thread", "source_name", "profile_id", "weight_unit")


def label_filter(wheres):
    """`jsprof lake --where`'s grammar (docs/lake.md): each argument holds terms separated by
    `,`, all must hold: `NAME=VALUE`, `NAME=V1|V2`, `NAME!=VALUE` (absent or different),
    `since=TIME`, `until=TIME` (start time, else the time it was added; a day or RFC 3339).
    `kind`, `thread`, `source_name`, `profile_id`, `weight_unit` are columns, other names labels."""
    cond = F.lit(True)
    for term in (t.strip() for w in wheres for t in w.split(",") if t.strip()):
        negate = "!=" in term
        name, sep, value = term.partition("!=" if negate else "=")
        name = name.strip()
        if not sep or not name:
            raise SystemExit(f"lake_top.py: --where {term!r}: expected NAME=VALUE or NAME!=VALUE")
        if name in ("since", "until") and not negate:
            when = F.coalesce(F.col("start_time"), F.col("added_at"))
            at = F.to_timestamp(F.lit(value.strip()))
            cond = cond & (when >= at if name == "since" else when < at)
            continue
        col = F.col(name) if name in COLUMNS else F.col("labels").getItem(name)
        match = F.coalesce(col.isin(value.split("|")), F.lit(False))
        cond = cond & (~match if negate else match)
    return cond


def dictionaries(t):
    """The function dictionary, deduplicated: the same content-addressed row may be in many files
    (every writer writes the rows it needs)."""
    return t["functions"].groupBy("function_id").agg(
        *(F.first(c).alias(c) for c in ("name", "url", "line", "column"))
    )


def chosen_profiles(t, wheres, unit):
    """The selection's profiles of one weight unit: time and bytes are never added."""
    return (
        t["profiles"]
        .where(label_filter(wheres) & (F.col("weight_unit") == unit))
        .select("profile_id")
        .distinct()
    )


def function_table(t, where, unit):
    funcs = dictionaries(t)
    weights = (
        t["profile_functions"]
        .join(chosen_profiles(t, where, unit), "profile_id")
        .groupBy("function_id")
        .agg(F.sum("self_weight").alias("self"), F.sum("total_weight").alias("total"))
    )
    return (
        weights.join(funcs, "function_id")
        .select(
            "name",
            "url",
            "line",
            "column",
            F.coalesce("self", F.lit(0)).cast("long").alias("self"),
            F.col("total").cast("long").alias("total"),
        )
        .orderBy(F.desc("self"), F.desc("total"), "name", "url", "line", "column")
    )


def diff_table(t, base, target, metric, unit):
    """Per function: the Mann-Whitney statistics of its per-profile shares, base vs target."""
    funcs = dictionaries(t)
    b = chosen_profiles(t, base, unit).withColumn("grp", F.lit(0))
    g = chosen_profiles(t, target, unit).withColumn("grp", F.lit(1))
    both = b.join(g, "profile_id", "left_semi").count()
    if both:
        raise SystemExit(f"lake_top.py: {both} profiles match both --base and --target")
    groups = b.unionByName(g)
    chosen = t["samples"].join(groups, "profile_id")
    # A profile's weight counts every sample, the bare root's (stack_id 0, on no function) too:
    # `jsprof top`'s base for percentages.
    totals = chosen.groupBy("profile_id", "grp").agg(F.sum("self_weight").alias("profile_w"))
    totals = totals.where(F.col("profile_w") > 0).cache()
    n = {r["grp"]: r["count"] for r in totals.groupBy("grp").count().collect()}
    n_b, n_t = n.get(0, 0), n.get(1, 0)
    if n_b == 0 or n_t == 0:
        raise SystemExit(f"lake_top.py: the base has {n_b} profiles, the target {n_t}: need both")
    weight = "self_weight" if metric == "self" else "total_weight"
    fw = (
        t["profile_functions"]
        .join(groups, "profile_id")
        .groupBy("profile_id", "function_id")
        .agg(F.sum(weight).alias("fw"))
    )
    shares = (
        fw.join(totals, "profile_id")
        .select("function_id", "grp", (F.col("fw") / F.col("profile_w")).alias("share"))
        .where(F.col("share") > 0)
    )
    # Ranks among the function's non-zero shares, ties averaged; the zeros (profiles where the
    # function did not run) all tie below them, so their rank is closed-form.
    by_value = Window.partitionBy("function_id", "share")
    ranked = shares.withColumn(
        "rank", F.rank().over(Window.partitionBy("function_id").orderBy("share"))
    ).withColumn("ties", F.count(F.lit(1)).over(by_value))
    ranked = ranked.withColumn("avg_rank", F.col("rank") + (F.col("ties") - 1) / 2.0)
    tie_term = (
        ranked.groupBy("function_id", "share")
        .agg(F.first("ties").alias("t"))
        .groupBy("function_id")
        .agg(F.sum(F.col("t") ** 3 - F.col("t")).alias("nonzero_ties"))
    )
    stats = (
        ranked.groupBy("function_id")
        .agg(
            F.sum(F.when(F.col("grp") == 1, F.col("avg_rank"))).alias("rank_t_nz"),
            F.sum(F.when(F.col("grp") == 1, 1).otherwise(0)).alias("nz_t"),
            F.sum(F.when(F.col("grp") == 0, 1).otherwise(0)).alias("nz_b"),
            F.sum(F.when(F.col("grp") == 1, F.col("share"))).alias("sum_t"),
            F.sum(F.when(F.col("grp") == 0, F.col("share"))).alias("sum_b"),
            F.sum(F.when(F.col("grp") == 1, F.col("share") ** 2)).alias("sq_t"),
            F.sum(F.when(F.col("grp") == 0, F.col("share") ** 2)).alias("sq_b"),
        )
        .join(tie_term, "function_id")
        .join(funcs, "function_id")
        .collect()
    )
    return [finish(r.asDict(), n_b, n_t) for r in stats], n_b, n_t


def finish(r, n_b, n_t):
    """Mann-Whitney U (normal approximation, tie-corrected, continuity-corrected) and the mean
    share's change with a 95 % interval, from one function's sums."""
    N = n_b + n_t
    nz = r["nz_b"] + r["nz_t"]
    zeros, zeros_t = N - nz, n_t - r["nz_t"]
    rank_t = (r["rank_t_nz"] or 0.0) + r["nz_t"] * zeros + zeros_t * (zeros + 1) / 2.0
    u = rank_t - n_t * (n_t + 1) / 2.0
    ties = r["nonzero_ties"] + zeros**3 - zeros
    var = n_b * n_t / 12.0 * ((N + 1) - ties / (N * (N - 1)))
    mean_u = n_b * n_t / 2.0
    if var <= 0:
        p = 1.0
    else:
        z = max(abs(u - mean_u) - 0.5, 0.0) / math.sqrt(var)
        p = math.erfc(z / math.sqrt(2))
    m_b, m_t = (r["sum_b"] or 0.0) / n_b, (r["sum_t"] or 0.0) / n_t
    v_b = max((r["sq_b"] or 0.0) / n_b - m_b**2, 0.0) * n_b / max(n_b - 1, 1)
    v_t = max((r["sq_t"] or 0.0) / n_t - m_t**2, 0.0) * n_t / max(n_t - 1, 1)
    half = 1.96 * math.sqrt(v_b / n_b + v_t / n_t)
    delta = m_t - m_b
    return {
        "name": r["name"],
        "url": r["url"],
        "line": r["line"],
        "column": r["column"],
        "base_mean_share": 100 * m_b,
        "target_mean_share": 100 * m_t,
        "delta_points": 100 * delta,
        "ci95_points": [100 * (delta - half), 100 * (delta + half)],
        "u": u,
        "p": p,
    }


def benjamini_hochberg(rows):
    """Adds `q`, each p-value adjusted for the number of functions tested."""
    m = len(rows)
    order = sorted(range(m), key=lambda i: rows[i]["p"])
    running = 1.0
    for k in range(m - 1, -1, -1):
        i = order[k]
        running = min(running, rows[i]["p"] * m / (k + 1))
        rows[i]["q"] = running


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lake")
    ap.add_argument("command", choices=("top", "diff"))
    ap.add_argument("--where", action="append", default=[], help="top: K=V, K=V1|V2, K!=V, …")
    ap.add_argument("--base", action="append", default=[], help="diff: the base's --where")
    ap.add_argument("--target", action="append", default=[], help="diff: the target's --where")
    ap.add_argument("--unit", choices=("ns", "bytes"), default="ns", help="time or .heapprofile bytes")
    ap.add_argument("--metric", choices=("self", "total"), default="self")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--floor", type=float, default=1.0, help="diff: smallest change, points")
    ap.add_argument("--limit", type=int, default=0, help="top: print the first N (0: all)")
    ap.add_argument("--out", help="also write the whole table as Parquet to this Spark path")
    ap.add_argument("--master", help="Spark master when not set by spark-submit (e.g. local[2])")
    a = ap.parse_args(argv)

    builder = SparkSession.builder.appName(f"jsprof lake {a.command}").config(
        "spark.ui.showConsoleProgress", "false"
    )
    if a.master:
        builder = builder.master(a.master)
        if a.master.startswith("local"):
            # One machine: a few shuffle partitions, not the cluster default of 200.
            builder = builder.config("spark.sql.shuffle.partitions", "4")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        t = read_lake(spark, a.lake)
        if a.command == "top":
            table = function_table(t, a.where, a.unit)
            if a.out:
                table.write.mode("overwrite").parquet(a.out)
            rows = table.limit(a.limit).collect() if a.limit else table.collect()
            result = {
                "kind": "lake-top",
                "warnings": [],
                "functions": [r.asDict() for r in rows],
            }
        else:
            if not a.base or not a.target:
                raise SystemExit("lake_top.py: diff needs --base K=V and --target K=V")
            rows, n_b, n_t = diff_table(t, a.base, a.target, a.metric, a.unit)
            benjamini_hochberg(rows)
            rows.sort(key=lambda r: (r["p"], -abs(r["delta_points"])))
            if a.out:
                spark.createDataFrame(rows).write.mode("overwrite").parquet(a.out)
            result = {
                "kind": "lake-diff",
                "warnings": [],
                "metric": a.metric,
                "base_profiles": n_b,
                "target_profiles": n_t,
                "changes": [
                    r
                    for r in rows
                    if r["q"] < a.alpha and abs(r["delta_points"]) >= a.floor
                ],
            }
        json.dump(result, sys.stdout, default=str)
        sys.stdout.write("\n")
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
