-- The profile lake's A/B diff (`jsprof lake diff`) in ClickHouse SQL, over the lake's Parquet
-- files (docs/lake.md, schema version 2). Parameters as in lake_top.sql, plus:
--   base, target  the two groups' labels, e.g. {'version':'1.13.0'} and {'version':'1.14.0'}
--                 (a profile matching both is counted in the base);
--   alpha         false-discovery rate, e.g. 0.05;
--   floor         the smallest change of the mean share worth reporting, points, e.g. 1.
--
--   clickhouse local --param_lake=/path/to/lake --param_base="{'version':'1.13.0'}" \
--       --param_target="{'version':'1.14.0'}" --param_alpha=0.05 --param_floor=1 \
--       --queries-file contrib/clickhouse/lake_diff.sql
--
-- Per time profile (weight_unit 'ns'), each function's self share of the profile's weight (idle
-- and the bare root included, as `jsprof top`'s percentages); per function,
-- ClickHouse's mannWhitneyUTest of the base's shares against the target's, every chosen profile
-- counted (share 0 where the function did not run), Benjamini-Hochberg over all functions, and the
-- change of the mean share in points with a 95 % normal interval. Rows: the changes that are
-- significant (q < alpha) and at least `floor` points, largest first.
WITH
    groups AS (
        SELECT profile_id, if(base, 0, 1) AS grp
        FROM (
            SELECT
                profile_id,
                arrayAll(k -> labels[k] = {base:Map(String, String)}[k], mapKeys({base:Map(String, String)})) AS base,
                arrayAll(k -> labels[k] = {target:Map(String, String)}[k], mapKeys({target:Map(String, String)})) AS target
            FROM file(concat({lake:String}, '/profiles/**/part-*.parquet'), Parquet)
            WHERE weight_unit = 'ns'
        )
        WHERE base OR target
        GROUP BY profile_id, grp
    ),
    chosen_samples AS (
        SELECT profile_id, stack_id, self_weight
        FROM file(concat({lake:String}, '/samples/**/part-*.parquet'), Parquet)
        WHERE profile_id IN (SELECT profile_id FROM groups)
    ),
    -- Each profile's self weight per function, for the functions on top of some sample.
    per_function AS (
        SELECT profile_id, function_id, sum(self_weight) AS w
        FROM file(concat({lake:String}, '/profile_functions/**/part-*.parquet'), Parquet)
        WHERE profile_id IN (SELECT profile_id FROM groups) AND self_samples > 0
        GROUP BY profile_id, function_id
    ),
    -- A profile's weight counts every sample, the bare root's (stack_id 0, no stacks row) too:
    -- `jsprof top`'s base for percentages.
    totals AS (
        SELECT s.profile_id AS profile_id, g.grp AS grp, sum(s.self_weight) AS profile_w
        FROM chosen_samples AS s INNER JOIN groups AS g ON s.profile_id = g.profile_id
        GROUP BY profile_id, grp
        HAVING profile_w > 0
    ),
    -- Every (function, chosen profile) pair: the rank test needs the zeros too.
    dense AS (
        SELECT f.function_id AS function_id, t.grp AS grp, ifNull(p.w, 0) / t.profile_w AS share
        FROM (SELECT DISTINCT function_id FROM per_function) AS f
        CROSS JOIN totals AS t
        LEFT JOIN per_function AS p ON p.function_id = f.function_id AND p.profile_id = t.profile_id
        SETTINGS join_use_nulls = 1
    ),
    tests AS (
        SELECT
            function_id,
            mannWhitneyUTest('two-sided')(share, grp) AS mw,
            avgIf(share, grp = 0) AS mean_b,
            avgIf(share, grp = 1) AS mean_t,
            varSampIf(share, grp = 0) AS var_b,
            varSampIf(share, grp = 1) AS var_t,
            countIf(grp = 0) AS n_b,
            countIf(grp = 1) AS n_t
        FROM dense
        GROUP BY function_id
    ),
    ranked AS (
        SELECT *, mw.2 AS p, count() OVER () AS m, row_number() OVER (ORDER BY mw.2 ASC) AS k
        FROM tests
    ),
    adjusted AS (
        -- Benjamini-Hochberg: q of the k-th smallest p is min over j >= k of p_j * m / j.
        SELECT
            *,
            min(p * m / k) OVER (ORDER BY p DESC, k DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS q
        FROM ranked
    ),
    funcs AS (
        SELECT function_id, any(name) AS name, any(url) AS url, any(line) AS line, any(column) AS column
        FROM file(concat({lake:String}, '/functions/**/part-*.parquet'), Parquet)
        GROUP BY function_id
    )
SELECT
    f.name AS name,
    f.url AS url,
    f.line AS line,
    f.column AS column,
    100 * a.mean_b AS base_mean_share,
    100 * a.mean_t AS target_mean_share,
    100 * (a.mean_t - a.mean_b) AS delta_points,
    [100 * (a.mean_t - a.mean_b - 1.96 * sqrt(a.var_b / a.n_b + a.var_t / a.n_t)),
     100 * (a.mean_t - a.mean_b + 1.96 * sqrt(a.var_b / a.n_b + a.var_t / a.n_t))] AS ci95_points,
    a.mw.1 AS u,
    a.p AS p,
    a.q AS q,
    a.n_b AS base_profiles,
    a.n_t AS target_profiles
FROM adjusted AS a
INNER JOIN funcs AS f ON a.function_id = f.function_id
WHERE a.q < {alpha:Float64} AND abs(100 * (a.mean_t - a.mean_b)) >= {floor:Float64}
ORDER BY abs(delta_points) DESC, name
