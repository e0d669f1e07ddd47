#!/usr/bin/env bash
# Leak-detection benchmark: makes three snapshots (each ≥ 100 MB) of one Node process that holds N
# records from the start and leaks N/2 more into a Map-held cache between the first two snapshots, then times `jsprof heap leaks BASE TARGET FINAL` beside
# `jsprof heap summary` on each of the three, and prints the ratio (goal: leaks ≤ 3× the three
# summaries). Nothing here is committed: everything goes to bench/out/leaks/.
#   bench/leaks.sh [N]     (default 130000: 119, 178 and 176 MB with Node 20; run from anywhere; needs node, /usr/bin/time)
#   RUNS=N for more timed runs (best and median are printed); JSPROF_PREBUILT=1 skips the build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/bench/out/leaks"
N="${1:-130000}"
RUNS="${RUNS:-1}"
JSPROF="${JSPROF:-$ROOT/target/${JSPROF_PROFILE:-release}/jsprof}"
mkdir -p "$OUT"
cd "$ROOT"
. bench/lib.sh

if [ -z "${JSPROF_PREBUILT:-}" ]; then
  build_jsprof
fi

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
