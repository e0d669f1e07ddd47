#!/usr/bin/env bash
# Profile lake benchmark (issue 21), each figure beside the per-file way or another engine, with
# the ratio, from one run:
#  1. ingest: `jsprof lake add` of N generated JS Self-Profiling traces (bench/lakegen: 20
#     versions × 50 pages, one `add` per label set, as the generator lays them out), traces/s
#     (target ≥ 1,000/s);
#  2. size: the lake's bytes vs the JSON it came from (target ≤ 10 %);
#  3. `lake top` over all N profiles (target ≤ 2 s at N = 100,000) vs `jsprof top` on each file,
#     summed — run on JSPROF_LAKE_PERFILE files (default 1,000) and scaled to N, which the line
#     says (target ≥ 100×); then the same table through DuckDB, Polars and chdb (ClickHouse) on
#     the same Parquet files (bench/lake_query.py; pip duckdb polars chdb), each checked to give
#     lake top's numbers;
#  4. `lake diff` between the two versions before the planted regression and the two from it on
#     (~N/10 profiles each: 10,000 at N = 100,000; target ≤ 5 s), and whether it found the planted
#     function and nothing else;
#  5. with JSPROF_LAKE_SEEDS=K (default 0: skipped), the false-positive rate of `lake diff` over K
#     seeds of JSPROF_LAKE_FP_N profiles each (default 4,000).
# Nothing here is committed: everything goes to bench/out/lake/ (N = 100,000 is ~3 GB of JSON;
# JSPROF_LAKE_KEEP=0 deletes the generated traces at the end).
#   bench/lake.sh [N]          (run from anywhere; needs python3, /usr/bin/time)
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init lake
N="${1:-100000}"
SEED="${JSPROF_LAKE_SEED:-1}"
PERFILE="${JSPROF_LAKE_PERFILE:-1000}"
RUNS="${RUNS:-3}"
LAKEGEN="$ROOT/bench/lakegen/target/release/lakegen"
PY="${JSPROF_LAKE_PYTHON:-python3}"

if [ -z "${JSPROF_PREBUILT:-}" ]; then
  build_jsprof
fi
(cd bench/lakegen && cargo build --release --quiet)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (timings on a shared box vary)"

# secs CMD...: wall seconds of one run (stdout discarded), in SECS.
secs() {
  /usr/bin/time -f '%e' -o "$OUT/time.once" "$@" > /dev/null
  SECS=$(tail -n 1 "$OUT/time.once")
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }'; }

# add_all LAKE GEN: one `lake add` per label set (the directories version=V/page=P). Sets SECS.
add_all() {
  local lake="$1" gen="$2" t0 dir v p
  rm -rf "$lake"
  t0=$(date +%s.%N)
  for dir in "$gen"/version=*/page=*; do
    # The directory names are the labels: version=V/page=P.
    IFS=/ read -r v p <<< "${dir#"$gen"/}"
    "$JSPROF" lake add "$lake" "$dir" --label "$v" --label "$p" > /dev/null
  done
  SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

# generate DIR N SEED [lakegen flags]: reuses DIR when it holds exactly that data set.
generate() {
  local dir="$1" n="$2" seed="$3"
  shift 3
  local want="$n $seed $*"
  if [ -f "$dir/truth.json" ] && [ "$(cat "$dir/.args" 2>/dev/null)" = "$want" ]; then
    return
  fi
  rm -rf "$dir"
  "$LAKEGEN" "$dir" --profiles "$n" --seed "$seed" "$@"
  echo "$want" > "$dir/.args"
}

GEN="$OUT/gen"
LAKE="$OUT/lake"
echo "== generating $N traces (seed $SEED) into $GEN"
generate "$GEN" "$N" "$SEED"
JSON_BYTES=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$GEN/truth.json")
REGRESS=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["regression"]["function"]["name"])' "$GEN/truth.json")
LABEL_SETS=$(find "$GEN" -mindepth 2 -maxdepth 2 -type d | wc -l)
echo "   $N traces, $(mb "$JSON_BYTES") MB of JSON, $LABEL_SETS label sets"

echo
if [ -n "${JSPROF_LAKE_REUSE:-}" ] && [ -d "$LAKE" ]; then
  echo "== 1. ingest: skipped (JSPROF_LAKE_REUSE: the lake of the last run)"
else
echo "== 1. ingest: jsprof lake add"
printf '%-44s %10s %12s\n' "" "seconds" "traces/s"
# One invocation over the whole tree, the labels from its version=V/page=P directories.
rm -rf "$LAKE"
T0=$(date +%s.%N)
/usr/bin/time -f '%M' -o "$OUT/add.rss" "$JSPROF" lake add "$LAKE" "$GEN" --labels-from-path 2> "$OUT/add.err" > /dev/null
ADD_SECS=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
printf '%-44s %10.2f %12.0f   (target >= 1000/s; peak RSS %s MB)\n' "lake add --labels-from-path (1 invocation)" "$ADD_SECS" \
  "$(awk -v n="$N" -v s="$ADD_SECS" 'BEGIN { print n / s }')" "$(( $(tail -n 1 "$OUT/add.rss") / 1024 ))"
# One invocation per label set, as a job that adds each run's files as they come would.
add_all "$OUT/lake-per-set" "$GEN" 2> /dev/null
printf '%-44s %10.2f %12.0f\n' "lake add ($LABEL_SETS invocations, one per label set)" "$SECS" \
  "$(awk -v n="$N" -v s="$SECS" 'BEGIN { print n / s }')"
rm -rf "$OUT/lake-per-set"
if "$JSPROF" lake compact --help > /dev/null 2>&1; then
  secs "$JSPROF" lake compact "$LAKE"
  printf '%-34s %10.2f\n' "lake compact" "$SECS"
fi

fi

echo
echo "== 2. size"
LAKE_BYTES=$(du -sb "$LAKE" | cut -f1)
printf 'JSON %s MB, lake %s MB: %s %% of the JSON (target <= 10 %%)\n' "$(mb "$JSON_BYTES")" \
  "$(mb "$LAKE_BYTES")" "$(awk -v a="$LAKE_BYTES" -v b="$JSON_BYTES" 'BEGIN { printf "%.2f", 100 * a / b }')"

echo
echo "== 3. the function table over all $N profiles"
"$JSPROF" lake top "$LAKE" --json --limit 0 > "$OUT/top.json"
BYTES=$LAKE_BYTES
time_runs lake-top "$JSPROF" lake top "$LAKE" --json --limit 0
LAKE_TOP=$BEST
# The per-file way: jsprof top on each of the first PERFILE files, the tables summed.
head -n "$PERFILE" "$GEN/manifest.tsv" | cut -f1 | sed "s|^|$GEN/|" > "$OUT/perfile.list"
PERFILE_N=$(wc -l < "$OUT/perfile.list")
# A script, so that /usr/bin/time can run it.
cat > "$OUT/perfile.sh" << EOF
while read -r f; do "$JSPROF" top "\$f" --json; echo; done < "$OUT/perfile.list" |
  "$PY" -c 'import json, sys, collections
s = collections.Counter()
for line in sys.stdin:
    if line.strip():
        for f in json.loads(line)["functions"]: s[(f["name"], f["url"], f["line"], f["column"])] += f["self_ms"]
print(len(s))'
EOF
secs bash "$OUT/perfile.sh"
PERFILE_SECS=$SECS
SCALED=$(awk -v s="$PERFILE_SECS" -v k="$PERFILE_N" -v n="$N" 'BEGIN { printf "%.1f", s / k * n }')
printf '%-40s %10s %10s\n' "" "seconds" "vs lake"
printf '%-40s %10.2f %10s   (target <= 2 s at 100,000)\n' "lake top ($N profiles, best of $RUNS)" "$LAKE_TOP" "1.0"
printf '%-40s %10.1f %10s   (target >= 100x; measured %.1f s on %d files, scaled)\n' \
  "jsprof top per file, summed" "$SCALED" "$(ratio "$SCALED" "$LAKE_TOP")x" "$PERFILE_SECS" "$PERFILE_N"
for engine in duckdb polars chdb; do
  if ! "$PY" -c "import $engine" 2> /dev/null; then
    printf '%-40s %10s   (pip install %s)\n' "$engine" "missing" "$engine"
    continue
  fi
  "$PY" bench/lake_query.py "$LAKE" "$engine" --check "$OUT/top.json" > /dev/null
  time_runs "$engine" "$PY" bench/lake_query.py "$LAKE" "$engine"
  printf '%-40s %10.2f %10s   (same numbers as lake top; python + import included)\n' \
    "$engine (same query, same files)" "$BEST" "$(ratio "$BEST" "$LAKE_TOP")x"
done

echo
echo "== 4. lake diff: the two versions before the planted regression vs the two from it on"
diff_groups() { # TRUTH.json → the base's and the target's --where (lake's grammar: version=A|B)
  "$PY" -c 'import json, sys
t = json.load(open(sys.argv[1])); v = t["versions"]; r = v.index(t["regression"]["from_version"])
print("version=" + "|".join(v[r - 2:r]), "version=" + "|".join(v[r:r + 2]), sep="\t")' "$1"
}
if ! "$JSPROF" lake diff --help > /dev/null 2>&1; then
  echo "lake diff: not built"
else
  IFS=$'\t' read -r BASE TARGET <<< "$(diff_groups "$GEN/truth.json")"
  "$JSPROF" lake diff "$LAKE" --base "$BASE" --target "$TARGET" --json > "$OUT/diff.json"
  time_runs lake-diff "$JSPROF" lake diff "$LAKE" --base "$BASE" --target "$TARGET" --json
  "$PY" - "$OUT/diff.json" "$REGRESS" "$BEST" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2]
changes = d.get("changes", d.get("functions", []))
found = [c for c in changes if c["name"] == want]
# The regression's own footprint: its time comes from idle samples, and its callers' total
# shares grow with it (their self shares do not move). Anything else is a false positive.
idle = [c["name"] for c in changes if c["name"] == "(idle)"]
callers = [c["name"] for c in changes if c["name"] not in (want, "(idle)")
           and not c["self_share"].get("reported") and c["total_share"].get("reported")]
others = [c["name"] for c in changes if c["name"] not in [want] + idle + callers]
print(f"lake diff: {float(sys.argv[3]):.2f} s (target <= 5 s); planted {want}: "
      f"{'found' if found else 'NOT FOUND'}; its footprint: {idle + callers} "
      f"(idle gave the time, callers' total share only); other changes: {len(others)} {others[:5]}")
EOF
fi

if [ "${JSPROF_LAKE_SEEDS:-0}" -gt 0 ] && "$JSPROF" lake diff --help > /dev/null 2>&1; then
  echo
  FP_N="${JSPROF_LAKE_FP_N:-4000}"
  echo "== 5. false positives of lake diff over $JSPROF_LAKE_SEEDS null seeds of $FP_N profiles (nothing planted: --points 0)"
  : > "$OUT/fp.tsv"
  for ((s = 1; s <= JSPROF_LAKE_SEEDS; s++)); do
    generate "$OUT/fp-gen" "$FP_N" "$((1000 + s))" --points 0
    rm -rf "$OUT/fp-lake"
    "$JSPROF" lake add "$OUT/fp-lake" "$OUT/fp-gen" --labels-from-path 2> /dev/null > /dev/null
    IFS=$'\t' read -r BASE TARGET <<< "$(diff_groups "$OUT/fp-gen/truth.json")"
    "$JSPROF" lake diff "$OUT/fp-lake" --base "$BASE" --target "$TARGET" --json > "$OUT/fp-diff.json"
    "$PY" - "$OUT/fp-diff.json" >> "$OUT/fp.tsv" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["changes"]), d["tested"], ",".join(c["name"] for c in d["changes"]), sep="\t")
EOF
  done
  awk -F'\t' '{ fp += $1; runs += ($1 > 0); tested += $2 }
    END { printf "false positives: %d in total over %d seeds, seeds with any: %d/%d (%.1f %%), per function tested: %.4f %%\n",
          fp, NR, runs, NR, 100 * runs / NR, tested ? 100 * fp / tested : 0 }' "$OUT/fp.tsv"
  rm -rf "$OUT/fp-gen" "$OUT/fp-lake"
fi

if [ "${JSPROF_LAKE_KEEP:-1}" = 0 ]; then
  rm -rf "$GEN"
fi
