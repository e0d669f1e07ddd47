#!/usr/bin/env bash
# Heap benchmark: records a ~450 MB snapshot of a Node process holding ~250 MB of ASTs, then times
# `jsprof heap summary` against DevTools' own code (the heap oracle) and `memlab analyze object-size`
# on the same file, in the same run. Prints seconds, peak RSS and ratios, and checks that our numbers
# equal the oracle's. Nothing here is committed: everything goes to bench/out/heap/.
#   bench/heap.sh [TARGET_MB]       (run from anywhere; needs node, npm, /usr/bin/time)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/bench/out/heap"
TARGET_MB="${1:-250}"
JSPROF="${JSPROF:-$ROOT/target/release/jsprof}"
mkdir -p "$OUT"
cd "$ROOT"

if [ -z "${JSPROF_PREBUILT:-}" ]; then
  cargo build --release -p jsprof
fi
if [ ! -f target/oracle/heap-oracle.mjs ]; then
  bash tools/oracle/build.sh target/oracle
fi
if [ ! -d "$OUT/node_modules/acorn" ] || [ ! -d "$OUT/node_modules/memlab" ]; then
  (cd "$OUT" && npm init -y >/dev/null && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund acorn memlab >/dev/null)
fi

SNAP="$OUT/bench.heapsnapshot"
if [ ! -f "$SNAP" ]; then
  echo "recording $SNAP (holding ~${TARGET_MB} MB of ASTs)…" >&2
  NODE_PATH="$OUT/node_modules" node --max-old-space-size=8000 bench/heap-workload/workload.js "$SNAP" "$TARGET_MB"
fi
SIZE=$(stat -c %s "$SNAP")
echo "snapshot: $SNAP, $((SIZE / 1048576)) MB" >&2

measure() { # name, output file, command…
  local name="$1" out="$2"; shift 2
  /usr/bin/time -f '%e %M' -o "$OUT/$name.time" "$@" >"$out" 2>"$OUT/$name.err" || {
    echo "$name failed:" >&2; tail -5 "$OUT/$name.err" >&2; echo "nan 0" >"$OUT/$name.time"; }
  read -r secs kb <"$OUT/$name.time"
  printf '%-8s %8s s %8s MB\n' "$name" "$secs" "$((kb / 1024))"
}

echo "tool      seconds    peak RSS"
measure jsprof "$OUT/jsprof.json" "$JSPROF" heap summary "$SNAP" --json --limit 0
measure oracle "$OUT/oracle.json" node --max-old-space-size=16000 target/oracle/heap-oracle.mjs "$SNAP"
measure memlab "$OUT/memlab.txt" node --max-old-space-size=16000 "$(readlink -f "$OUT/node_modules/.bin/memlab")" analyze object-size --snapshot "$SNAP"

python3 - "$OUT" "$SIZE" <<'PY'
import json, sys
out, size = sys.argv[1], int(sys.argv[2])
def t(name):
    secs, kb = open(f"{out}/{name}.time").read().split()[:2]
    return float(secs), int(kb) * 1024
ours, oracle, memlab = t("jsprof"), t("oracle"), t("memlab")
for name, (secs, rss) in (("oracle", oracle), ("memlab", memlab)):
    if secs == secs and secs > 0:
        print(f"jsprof vs {name}: {secs / ours[0]:.1f}x faster, {rss / max(ours[1], 1):.1f}x less memory")
print(f"jsprof peak RSS / file size: {ours[1] / size:.2f} (goal <= 1.5); oracle: {oracle[1] / size:.2f}")
try:
    a, b = json.load(open(f"{out}/jsprof.json")), json.load(open(f"{out}/oracle.json"))
    same = a["node_count"] == b["node_count"] and a["total_size"] == b["total_size"] and a["statistics"] == b["statistics"]
    rows = {c["key"]: c for c in a["classes"]}
    bad = [c["key"] for c in b["classes"] if (lambda r: not r or (r["count"], r["self_size"], r["retained_size"], r["distance"]) != (c["count"], c["self"], c["retained"], c["distance"]))(rows.get(c["key"]))]
    print(f"numbers equal to DevTools: {same and not bad and len(rows) == len(b['classes'])} ({len(b['classes'])} classes, {len(bad)} differ)")
except Exception as e:
    print(f"could not compare outputs: {e}")
PY
