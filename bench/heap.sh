#!/usr/bin/env bash
# Heap benchmark, two parts, both printing time, peak RSS, RSS / file size and MB/s:
#  1. recorded: a ~450 MB snapshot of a Node process holding ~250 MB of ASTs, timed against DevTools'
#     own code (the heap oracle) and `memlab analyze object-size` on the same file, in the same run,
#     and checked to give the oracle's numbers;
#  2. replicated: the recorded snapshot copied K times under one root (`heapgen --replicate`, real
#     object shapes) to about JSPROF_HEAP_REPL_GB gigabytes each (default "0.5 5 10"), checked against
#     the Summary predicted from DevTools' numbers for the original (the oracle's, K times: every
#     class's count, self and retained size, the same distance; the plain-Object classes DevTools
#     names by their properties, whose grouping depends on how many objects share a shape, as one
#     sum of count and self size). Each replicated file is deleted after its run unless
#     JSPROF_HEAP_KEEP=1;
#  3. generated: snapshots of JSPROF_HEAP_GEN_MB megabytes each (default "500 2000 5000") written by
#     bench/heapgen, whose DevTools numbers are known by construction (docs/heap.md), checked against
#     that construction; the oracle and memlab also run on those of at most JSPROF_HEAP_PEERS_MB
#     (default 600) — past ~4 GB DevTools cannot load a snapshot at all. Each generated file is
#     deleted after its run unless JSPROF_HEAP_KEEP=1 (a 5 GB file is 5 GB of disk), which also keeps
#     the last index in bench/out/heap-cache (for bench/heap-ui.sh).
# Each jsprof row is a first analysis with an empty heap index cache (bench/out/heap-cache, never
# the user's), which includes writing the index; the `cached` row is the same command run again,
# reading that index, and its share of the first run is printed ("reopen in a blink"), with when the
# first run printed its answer (the index is written after it); the `graph`
# row is `heap dominators --depth 1` from the same index, a command that reads every section.
# Nothing here is committed: everything goes to bench/out/heap/ and bench/out/heapgen/.
#   bench/heap.sh [TARGET_MB]       (run from anywhere; needs node, npm, /usr/bin/time)
#   JSPROF_HEAP_GEN_MB="" JSPROF_HEAP_REPL_GB="" bench/heap.sh      (the recorded part only)
#   JSPROF_HEAP_GEN_MB="" JSPROF_HEAP_REPL_GB=5 bench/heap.sh       (recorded, and ~5 GB of it)
#   JSPROF_HEAP_RECORDED=0 bench/heap.sh     (the generated part only)
#   JSPROF_BESIDE=dist bench/heap.sh          (also the first analysis by that profile's build)
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init heap
TARGET_MB="${1:-250}"
export JSPROF_CACHE_DIR="$ROOT/bench/out/heap-cache"

if [ -z "${JSPROF_PREBUILT:-}" ]; then
  build_jsprof
  build_beside
fi
if [ ! -f target/oracle/heap-oracle.mjs ]; then
  bash tools/oracle/build.sh target/oracle
fi
node_modules() { # acorn (the workload) and memlab, once, when something needs them
  if [ ! -d "$OUT/node_modules/acorn" ] || [ ! -d "$OUT/node_modules/memlab" ]; then
    (cd "$OUT" && npm init -y >/dev/null && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund acorn memlab >/dev/null)
  fi
}

GEN_OUT="$ROOT/bench/out/heapgen"
HEAPGEN="$ROOT/bench/heapgen/target/release/heapgen"
if [ -n "${JSPROF_HEAP_GEN_MB-500 2000 5000}${JSPROF_HEAP_REPL_GB-0.5 5 10}" ]; then
  (cd bench/heapgen && cargo build --release --quiet)
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (timings on a shared box vary)"

measure() { # name, output file, command…  (prints one row; the figures stay in $dir/$name.time)
  local name="$1" out="$2"; shift 2
  local dir; dir="$(dirname "$out")"
  /usr/bin/time -f '%e %M' -o "$dir/$name.time" "$@" >"$out" 2>"$dir/$name.err" || {
    echo "$name failed:" >&2; tail -5 "$dir/$name.err" >&2; echo "nan 0" >"$dir/$name.time"; }
}

# report DIR SIZE REFERENCE(oracle|expected) TOOLS…: one row per tool, ratios to jsprof, and
# whether jsprof's numbers equal the reference's.
report() {
  python3 - "$@" <<'PY'
import json, os, sys
out, size, ref, tools = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
def t(name):
    try:
        secs, kb = open(f"{out}/{name}.time").read().split()[:2]
        return float(secs), int(kb) * 1024
    except (OSError, ValueError):
        return float("nan"), 0
mb = size / 1e6
print(f"  {'tool':8} {'seconds':>8} {'peak RSS':>10} {'RSS/file':>9} {'MB/s':>7}")
for name in tools:
    secs, rss = t(name)
    rate = mb / secs if secs == secs and secs > 0 else float("nan")
    print(f"  {name:8} {secs:8.2f} {rss / 1048576:8.0f} MB {rss / size:9.2f} {rate:7.0f}")
ours = t("jsprof")
beside = os.environ.get("JSPROF_BESIDE", "")
if beside and beside in tools:
    secs, rss = t(beside)
    print(f"  build: {os.environ.get('JSPROF_PROFILE', 'release')} / {beside} first-analysis time = {ours[0] / secs:.2f}x, peak RSS {ours[1] / max(rss, 1):.2f}x")
if "cached" in tools:
    secs, rss = t("cached")
    print(f"  second open (cached index): {100 * secs / ours[0]:.1f} % of the first's time, {rss / max(ours[1], 1):.2f}x its peak RSS")
if "graph" in tools:
    secs, rss = t("graph")
    print(f"  second open of the whole graph (heap dominators from the index): {100 * secs / ours[0]:.1f} % of the first's time, {rss / max(ours[1], 1):.2f}x its peak RSS")
for name in [n for n in tools[1:] if n not in ("cached", "graph", beside)]:
    secs, rss = t(name)
    if secs == secs and secs > 0:
        print(f"  jsprof vs {name}: {secs / ours[0]:.1f}x faster, {rss / max(ours[1], 1):.1f}x less memory")
try:
    a, b = json.load(open(f"{out}/jsprof.json")), json.load(open(f"{out}/{ref}.json"))
    if "inferred" in b:
        # A replicated snapshot: DevTools' names for plain objects by their properties
        # (`{a, b}`) depend on how many objects share a shape, so those classes and `Object`
        # are compared as one sum of count and self size.
        inferred = lambda c: c["key"] == ",Object" or c["name"].startswith("{")
        mine = [c for c in a["classes"] if not inferred(c)]
        group = (sum(c["count"] for c in a["classes"] if inferred(c)), sum(c["self_size"] for c in a["classes"] if inferred(c)))
        a = dict(a, classes=mine)
        print(f"  plain objects (Object and {{…}} classes): {group[0]} objects, {group[1]} bytes; predicted {tuple(b['inferred'])}: {group == tuple(b['inferred'])}")
    same = all(a[k] == b[k] for k in ("node_count", "total_size", "statistics"))
    rows = {c["key"]: (c["count"], c["self_size"], c["retained_size"], c["distance"]) for c in a["classes"]}
    # DevTools' Distance cell (and our JSON) shows nothing past the synthetic root's 100000000.
    shown = lambda d: d if d is not None and 0 <= d < 100000000 else None
    want = {c["key"]: (c["count"], c["self"], c["retained"], shown(c["distance"])) for c in b["classes"]}
    bad = [k for k in want if rows.get(k) != want[k]]
    print(f"  numbers equal to {ref}: {same and not bad and len(rows) == len(want)} ({len(want)} classes, {len(bad)} differ)")
except Exception as e:
    print(f"  could not compare outputs: {e}")
PY
}

first_and_cached() { # DIR SNAPSHOT: the first analysis (empty cache), then the same command again
  rm -rf "$JSPROF_CACHE_DIR"
  # With its phases on stderr: when the Summary was printed, before the index was written.
  JSPROF_HEAP_PHASES=1 measure jsprof "$1/jsprof.json" "$JSPROF" heap summary "$2" --json --limit 0
  local answered; answered=$(sed -n 's/^phase answered: \([0-9.]*\) s.*/\1/p' "$1/jsprof.err" | head -1)
  [ -z "$answered" ] || echo "  first open: the Summary printed after $answered s; the index was written after it"
  measure cached "$1/cached.json" "$JSPROF" heap summary "$2" --json --limit 0
  # A command that needs the whole graph reads every section of the index, not only the Summary's.
  measure graph "$1/graph.json" "$JSPROF" heap dominators "$2" --depth 1 --limit 5 --json
  cmp -s "$1/jsprof.json" "$1/cached.json" || echo "  the cached answer differs from the first!" >&2
  local index; index=$(du -sb "$JSPROF_CACHE_DIR" 2>/dev/null | cut -f1)
  echo "  index: $((index / 1048576)) MB on disk, $(python3 -c "print(f'{$index / $(stat -c %s "$2"):.2f}')")x the snapshot"
  if [ -n "$BESIDE" ]; then
    # The other build's first analysis, from an empty cache too.
    rm -rf "$JSPROF_CACHE_DIR"
    measure "$JSPROF_BESIDE" "$1/beside.json" "$BESIDE" heap summary "$2" --json --limit 0
    cmp -s "$1/jsprof.json" "$1/beside.json" || echo "  the $JSPROF_BESIDE build's answer differs!" >&2
  fi
  [ "${JSPROF_HEAP_KEEP:-0}" = 1 ] || rm -rf "$JSPROF_CACHE_DIR"
}

peers() { # SNAPSHOT DIR: DevTools' worker and memlab on the same file
  node_modules
  measure oracle "$2/oracle.json" node --max-old-space-size=16000 target/oracle/heap-oracle.mjs "$1"
  measure memlab "$2/memlab.txt" node --max-old-space-size=16000 "$(readlink -f "$OUT/node_modules/.bin/memlab")" analyze object-size --snapshot "$1"
}

if [ "${JSPROF_HEAP_RECORDED:-1}" != 0 ]; then
  SNAP="$OUT/bench.heapsnapshot"
  node_modules
  if [ ! -f "$SNAP" ]; then
    echo "recording $SNAP (holding ~${TARGET_MB} MB of ASTs)…" >&2
    NODE_PATH="$OUT/node_modules" node --max-old-space-size=8000 bench/heap-workload/workload.js "$SNAP" "$TARGET_MB"
  fi
  SIZE=$(stat -c %s "$SNAP")
  echo "recorded snapshot: $SNAP, $((SIZE / 1048576)) MB"
  first_and_cached "$OUT" "$SNAP"
  peers "$SNAP" "$OUT"
  report "$OUT" "$SIZE" oracle jsprof cached graph ${JSPROF_BESIDE:+"$JSPROF_BESIDE"} oracle memlab
fi

# predict ORIGINAL_ORACLE.json K OUT.json: the oracle's numbers for K copies under one root.
predict() {
  python3 - "$@" <<'PY'
import json, sys
src, k, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
o = json.load(open(src))
scale = lambda v: {key: scale(x) for key, x in v.items()} if isinstance(v, dict) else v * k
inferred = lambda c: c["key"] == ",Object" or c["name"].startswith("{")
out = {
    "node_count": 1 + k * (o["node_count"] - 1),
    "total_size": k * o["total_size"],   # the root's self size is 0
    "statistics": scale(o["statistics"]),
    "classes": [dict(c, count=k * c["count"], self=k * c["self"], retained=k * c["retained"])
                for c in o["classes"] if not inferred(c)],
    "inferred": [k * sum(c["count"] for c in o["classes"] if inferred(c)),
                 k * sum(c["self"] for c in o["classes"] if inferred(c))],
}
json.dump(out, open(dst, "w"))
PY
}

REC="$OUT/bench.heapsnapshot"
for GB in ${JSPROF_HEAP_REPL_GB-0.5 5 10}; do
  if [ ! -f "$REC" ] || [ ! -f "$OUT/oracle.json" ]; then
    echo "the replicated part needs the recorded part's snapshot and oracle numbers (JSPROF_HEAP_RECORDED=1)" >&2
    break
  fi
  DIR="$ROOT/bench/out/heaprepl/$GB"
  mkdir -p "$DIR"
  SNAP="$DIR/replicated.heapsnapshot"
  K=$(python3 -c "import sys; print(max(1, round($GB * 1e9 / $(stat -c %s "$REC"))))")
  "$HEAPGEN" "$SNAP" --replicate "$REC" --times "$K"
  predict "$OUT/oracle.json" "$K" "$DIR/predicted.json"
  SIZE=$(stat -c %s "$SNAP")
  echo "replicated snapshot: $SNAP, $K copies of the recorded one, $((SIZE / 1048576)) MB"
  first_and_cached "$DIR" "$SNAP"
  report "$DIR" "$SIZE" predicted jsprof cached graph ${JSPROF_BESIDE:+"$JSPROF_BESIDE"}
  [ "${JSPROF_HEAP_KEEP:-0}" = 1 ] || rm -f "$SNAP"
done

for MB in ${JSPROF_HEAP_GEN_MB-500 2000 5000}; do
  DIR="$GEN_OUT/$MB"
  mkdir -p "$DIR"
  SNAP="$DIR/generated.heapsnapshot"
  "$HEAPGEN" "$SNAP" --mb "$MB" --expected "$DIR/expected.json"
  SIZE=$(stat -c %s "$SNAP")
  echo "generated snapshot: $SNAP, $((SIZE / 1048576)) MB"
  first_and_cached "$DIR" "$SNAP"
  tools=(jsprof cached graph ${JSPROF_BESIDE:+"$JSPROF_BESIDE"})
  if [ "$MB" -le "${JSPROF_HEAP_PEERS_MB:-600}" ]; then
    peers "$SNAP" "$DIR"
    tools+=(oracle memlab)
  fi
  report "$DIR" "$SIZE" expected "${tools[@]}"
  [ "${JSPROF_HEAP_KEEP:-0}" = 1 ] || rm -f "$SNAP"
done
