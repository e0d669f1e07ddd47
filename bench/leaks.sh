#!/usr/bin/env bash
# Leak-detection benchmark: makes three snapshots (each ≥ 100 MB) of one Node process that holds N
# records from the start and leaks N/2 more into a Map-held cache between the first two snapshots, then times `jsprof heap leaks BASE TARGET FINAL` beside
# `jsprof heap summary` on each of the three, and prints the ratio (goal: leaks ≤ 3× the three
# summaries). Then the series: S snapshots (default 6) of a process holding N records that leaks
# N/10 more into a Map at every step, timed as `jsprof heap leaks DIR` against S × `heap summary`
# (goal: ≤ S× one summary + 20 %; every run with the heap index cache off, so each reads and
# analyses every snapshot, as a first look does). With REPLICATE=K each snapshot of the series is
# replaced by K copies of itself under one root (`heapgen --series`, one id numbering for the
# series, so an object keeps its ids from snapshot to snapshot): a series of GB snapshots with the
# recorded shapes, whose verdicts are the recorded series'. Nothing here is committed: everything
# goes to bench/out/leaks/.
#   bench/leaks.sh [N] [S]  (default 130000 and 6: 119, 178 and 176 MB with Node 20; run from anywhere; needs node, /usr/bin/time)
#   RUNS=N for more timed runs (best and median are printed); JSPROF_PREBUILT=1 skips the build;
#   SERIES_ONLY=1 skips the triple.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init leaks
N="${1:-130000}"
S="${2:-6}"
RUNS="${RUNS:-1}"

if [ -z "${JSPROF_PREBUILT:-}" ]; then
  build_jsprof
fi
if [ -z "${SERIES_ONLY:-}" ]; then

# The process: N records held from the start (so even BASE is over 100 MB), N/2 cache entries leaked
# into a Map between BASE and TARGET, and garbage made and dropped between TARGET and FINAL.
cat > "$OUT/app.js" <<'JS'
const v8 = require('v8'), path = require('path');
const [out, n] = [process.argv[2], Number(process.argv[3])];
class Kept { constructor(i) { this.i = i; this.rows = Array.from({ length: 4 }, (_, j) => ({ j, text: 'kept ' + i + '/' + j })); } }
class CacheEntry { constructor(i) { this.id = i; this.rows = Array.from({ length: 4 }, (_, j) => ({ j, text: 'row ' + i + '/' + j })); } }
const app = { kept: [], cache: new Map() };
globalThis.app = app;
for (let i = 0; i < n; i++) app.kept.push(new Kept(i));
v8.writeHeapSnapshot(path.join(out, '1-base.heapsnapshot'));
for (let i = 0; i < n / 2; i++) app.cache.set('key' + i, new CacheEntry(i));
v8.writeHeapSnapshot(path.join(out, '2-target.heapsnapshot'));
let junk = []; for (let i = 0; i < n; i++) junk.push({ i }); junk = null;
v8.writeHeapSnapshot(path.join(out, '3-final.heapsnapshot'));
JS
SNAPS=("$OUT/1-base.heapsnapshot" "$OUT/2-target.heapsnapshot" "$OUT/3-final.heapsnapshot")
if [ ! -f "$OUT/3-final.heapsnapshot" ] || [ "$(cat "$OUT/n" 2>/dev/null)" != "$N" ]; then
  echo "== making three snapshots ($N records, $((N / 2)) leaked)…"
  node --max-old-space-size=8000 "$OUT/app.js" "$OUT" "$N"
  echo "$N" > "$OUT/n"
fi
BYTES=0
for f in "${SNAPS[@]}"; do
  echo "== $(basename "$f"): $(mb "$(filesize "$f")") MB"
  BYTES=$((BYTES + $(filesize "$f")))
done

echo "== heap summary ×3"
time_runs summary bash -c 'for f in "${@:2}"; do "$1" heap summary "$f" --json --limit 0 > /dev/null; done' \
  _ "$JSPROF" "${SNAPS[@]}"
SUMMARY_BEST=$BEST SUMMARY_MEDIAN=$MEDIAN SUMMARY_RSS=$RSS
echo "== heap leaks"
time_runs leaks "$JSPROF" heap leaks "${SNAPS[@]}" --json --limit 0
"$JSPROF" heap leaks "${SNAPS[@]}" --limit 3

echo
echo "tool     best (median) s    peak RSS MB    RSS / input bytes"
row summary×3 "$SUMMARY_BEST" "$SUMMARY_MEDIAN" "$SUMMARY_RSS"
row leaks "$BEST" "$MEDIAN" "$RSS"
awk -v l="$BEST" -v s="$SUMMARY_BEST" 'BEGIN { printf "heap leaks / heap summary x3: %.2fx (goal <= 3x)\n", l / s }'
fi

# The series: N records held from the start, N/10 leaked into a Map at each step, and an LRU of
# N/10 entries refilled at each step (bounded); one snapshot after each step, Node's own names.
mkdir -p "$OUT/series"
cat > "$OUT/series-app.js" <<'JS'
const v8 = require('v8');
const [n, steps] = [Number(process.argv[2]), Number(process.argv[3])];
class Kept { constructor(i) { this.i = i; this.rows = Array.from({ length: 4 }, (_, j) => ({ j, text: 'kept ' + i + '/' + j })); } }
class Leaked { constructor(i) { this.i = i; this.rows = [{ i }, { i }]; } }
class LruEntry { constructor(i) { this.i = i; this.rows = [{ i }]; } }
const app = { kept: [], leak: new Map(), lru: new Map() };
globalThis.app = app;
for (let i = 0; i < n; i++) app.kept.push(new Kept(i));
let next = 0;
for (let s = 1; s <= steps; s++) {
  for (let i = 0; i < n / 10; i++, next++) app.leak.set('k' + next, new Leaked(next));
  app.lru.clear();
  for (let i = 0; i < n / 10; i++) app.lru.set('l' + i, new LruEntry(i));
  v8.writeHeapSnapshot();
}
JS
if [ "$(cat "$OUT/series/n" 2>/dev/null)" != "$N $S" ]; then
  echo "== making $S snapshots ($N records, $((N / 10)) leaked a step)…"
  rm -f "$OUT"/series/*.heapsnapshot
  (cd "$OUT/series" && node --max-old-space-size=8000 "$OUT/series-app.js" "$N" "$S")
  echo "$N $S" > "$OUT/series/n"
fi
SERIES=("$OUT"/series/*.heapsnapshot)
if [ -n "${REPLICATE:-}" ]; then
  (cd "$ROOT/bench/heapgen" && cargo build --release --quiet)
  mkdir -p "$OUT/series-x$REPLICATE"
  rm -f "$OUT/series-x$REPLICATE"/*.heapsnapshot
  # One id numbering for the whole series (ranks among all its ids): an object keeps its ids.
  series_args=()
  for f in "${SERIES[@]}"; do series_args+=(--series "$f"); done
  "$ROOT/bench/heapgen/target/release/heapgen" "$OUT/series-x$REPLICATE" --times "$REPLICATE" "${series_args[@]}"
  SERIES=("$OUT/series-x$REPLICATE"/*.heapsnapshot)
fi
export JSPROF_CACHE=0
BYTES=0
for f in "${SERIES[@]}"; do BYTES=$((BYTES + $(filesize "$f"))); done
echo "== ${#SERIES[@]} snapshots, $(mb "$BYTES") MB in all"
echo "== heap summary ×${#SERIES[@]}"
time_runs summaries bash -c 'for f in "${@:2}"; do "$1" heap summary "$f" --json --limit 0 > /dev/null; done' \
  _ "$JSPROF" "${SERIES[@]}"
SUMMARY_BEST=$BEST SUMMARY_MEDIAN=$MEDIAN SUMMARY_RSS=$RSS
echo "== heap leaks (series)"
SERIES_DIR="$(dirname "${SERIES[0]}")"
time_runs series "$JSPROF" heap leaks "$SERIES_DIR" --json --all --limit 0
"$JSPROF" heap leaks "$SERIES_DIR" --limit 3

echo
echo "tool     best (median) s    peak RSS MB    RSS / input bytes"
row "summ×${#SERIES[@]}" "$SUMMARY_BEST" "$SUMMARY_MEDIAN" "$SUMMARY_RSS"
row series "$BEST" "$MEDIAN" "$RSS"
awk -v l="$BEST" -v s="$SUMMARY_BEST" -v k="${#SERIES[@]}" \
  'BEGIN { printf "heap leaks (series) / heap summary x%d: %.2fx (goal <= 1.2x)\n", k, l / s }'
