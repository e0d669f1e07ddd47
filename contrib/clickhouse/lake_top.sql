-- The profile lake's function table (`jsprof lake top`) in ClickHouse SQL, straight over the
-- lake's Parquet files (docs/lake.md, schema version 2).
--
-- Parameters:
--   lake   the lake's root: a local directory for file(); for S3 replace each
--          file(concat({lake:String}, '/T/**/part-*.parquet'), Parquet) below by
--          s3(concat({lake:String}, '/T/**/part-*.parquet'), 'Parquet') with
--          lake = 'https://BUCKET.s3.REGION.amazonaws.com/PREFIX' (credentials from a named
--          collection or the server's config; see docs/fleet.md). Only `part-*` names: a
--          writer's temporary `.tmp-part-….parquet` also ends in .parquet and must not be read.
--   where  labels every chosen profile must have, e.g. {'version':'1.14.0','page':'checkout'};
--          {} chooses every profile.
--   unit   'ns' (time: CPU profiles, self-profiling traces, traces) or 'bytes' (.heapprofile):
--          weights of different units are never added.
--
--   clickhouse local --param_lake=/path/to/lake --param_where="{'version':'1.14.0'}" --param_unit=ns \
--       --queries-file contrib/clickhouse/lake_top.sql
--   python3 -c "import chdb; print(chdb.query(open('contrib/clickhouse/lake_top.sql').read(),
--       'JSONEachRow', params={'lake': '/path/to/lake', 'where': '{}', 'unit': 'ns'}))"
--
-- Self: the samples whose stack has the function on top. Total: the samples whose stack contains
-- it, once however often it recurses. The writer keeps both per profile and function in
-- `profile_functions`, so both are sums over the chosen profiles' rows: integer nanoseconds
-- (bytes for .heapprofile lakes), equal to `jsprof lake top --json`'s, which prints them as ms
-- (`self_ms` = self / 10⁶; tests/it/lake_engines.rs checks it). Dictionary rows repeat across files (every writer writes the ids it needs): they
-- are deduplicated by id before joining.
WITH
    chosen AS (
        SELECT DISTINCT profile_id
        FROM file(concat({lake:String}, '/profiles/**/part-*.parquet'), Parquet)
        WHERE weight_unit = {unit:String}
          AND arrayAll(k -> labels[k] = {where:Map(String, String)}[k], mapKeys({where:Map(String, String)}))
    ),
    weights AS (
        SELECT function_id, sum(self_weight) AS self_weight, sum(total_weight) AS total_weight
        FROM file(concat({lake:String}, '/profile_functions/**/part-*.parquet'), Parquet)
        WHERE profile_id IN (SELECT profile_id FROM chosen)
        GROUP BY function_id
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
    toInt64(w.self_weight) AS self,
    toInt64(w.total_weight) AS total
FROM weights AS w
INNER JOIN funcs AS f ON w.function_id = f.function_id
ORDER BY self DESC, total DESC, name, url, line, column
