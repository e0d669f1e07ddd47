#!/usr/bin/env bash
# Speed benchmark (not a test) for `jsprof top` against the DevTools cpu oracle.
#
#   bash bench/cpu.sh [--record]
#
# Records a large .cpuprofile of a real workload (the TypeScript compiler, see
# bench/cpu-workload/workload.js) with `node --cpu-prof --cpu-prof-interval 25`,
# then times `jsprof top` and the cpu oracle on it in the same run and prints
# both, the speed ratio and jsprof's peak RSS relative to the file size.
# Goals: oracle/jsprof wall time >= 20x, jsprof peak RSS < 2x the file size.
# Also spot-checks the top 10 functions' self times against the oracle.
#
# Options / environment:
#   --record                 re-record the profile even if one exists
#   JSPROF_BENCH_SECONDS=40  workload duration when recording
#   JSPROF_BENCH_RUNS=3      timed runs per tool (best and median reported)
#   JSPROF_BENCH_NO_BUILD=1  skip `cargo build --profile "${JSPROF_PROFILE:-release}" --features lake -p jsprof`
#   JSPROF_BENCH_BIN=PATH    jsprof binary to time (default target/${JSPROF_PROFILE:-release}/jsprof)
#   JSPROF_BESIDE=dist       also time the build of that cargo profile beside it (bench/lib.sh)
#
# Everything generated lives under bench/out/cpu/ (gitignored); nothing here
# is meant to be committed.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
oracle_bench_init cpu 2,22 "$@"

SECONDS_WANTED="${JSPROF_BENCH_SECONDS:-40}"
MIN_BYTES=$((15 * 1000 * 1000))
TS_VERSION=5.6.3
WS="$OUT/ws"                              # npm workspace for the workload
PROFILE="$OUT/workload.cpuprofile"
ORACLE=target/oracle/cpu-oracle.mjs

# ---------------------------------------------------------------- workload
if [ ! -f "$WS/node_modules/typescript/package.json" ] ||
   [ "$(node -p "require('./$WS/node_modules/typescript/package.json').version")" != "$TS_VERSION" ]; then
  echo "== installing typescript@$TS_VERSION into $WS"
  mkdir -p "$WS"
  [ -f "$WS/package.json" ] || echo '{"private": true}' > "$WS/package.json"
  (cd "$WS" && npm install --no-audit --no-fund --silent "typescript@$TS_VERSION")
fi

record() {
  local secs="$1" tmp="$OUT/rec.tmp"
  rm -rf "$tmp"
  echo "== recording ${secs}s of the TypeScript workload (node --cpu-prof --cpu-prof-interval 25)"
  node --cpu-prof --cpu-prof-interval 25 --cpu-prof-dir "$tmp" --cpu-prof-name workload.cpuprofile \
    bench/cpu-workload/workload.js "$WS/node_modules/typescript" "$secs"
  mv "$tmp/workload.cpuprofile" "$PROFILE"
  rm -rf "$tmp" "$OUT/oracle.json"
}

ensure_recorded "$PROFILE" "$MIN_BYTES" "$SECONDS_WANTED" "$RECORD" profile

# ---------------------------------------------------------------- tools
build_tools "the cpu oracle"

oracle_cmd() { node --max-old-space-size=16000 "$ORACLE" "$PROFILE"; }
jsprof_cmd() { "$JSPROF" top "$PROFILE" --json --limit 0; }

# Does `jsprof top` work yet? (One untimed run, kept for the spot-check.)
JSPROF_OK=0
if [ -x "$JSPROF" ] && jsprof_cmd > "$OUT/jsprof.json" 2> "$OUT/jsprof.err" &&
   node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
            if (!Array.isArray(j.functions) || j.functions.length === 0) process.exit(1);' \
      "$OUT/jsprof.json" 2>/dev/null; then
  JSPROF_OK=1
else
  echo "== jsprof top does not produce function JSON yet (see $OUT/jsprof.err); timing the oracle only"
fi


echo "== timing ($RUNS runs each)"
time_runs oracle node --max-old-space-size=16000 "$ORACLE" "$PROFILE"
O_BEST=$BEST O_MED=$MEDIAN O_RSS=$RSS
if [ "$JSPROF_OK" = 1 ]; then
  time_jsprof top "$PROFILE" --json --limit 0
fi

# ---------------------------------------------------------------- report
echo
if [ "$JSPROF_OK" = 1 ]; then
  oracle_report profile top "r < 2" "< 2x"
else
  echo "profile $(mb "$BYTES") MB; wall = best of $RUNS (median in parentheses); RSS = max peak over runs"
  printf '%-8s %16s %14s %16s\n' tool "wall s" "peak RSS MB" "RSS / file size"
  row oracle "$O_BEST" "$O_MED" "$O_RSS"
  echo "jsprof: n/a (jsprof top not implemented yet)"
fi

# ---------------------------------------------------------------- spot-check
if [ "$JSPROF_OK" = 1 ]; then
  if [ ! -s "$OUT/oracle.json" ] || [ "$OUT/oracle.json" -ot "$PROFILE" ]; then
    oracle_cmd > "$OUT/oracle.json"
  fi
  echo
  node -e '
    const fs = require("fs");
    const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const o = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    // Oracle: line/column 0-based, -1 unknown. jsprof: 1-based or null.
    const key = (name, url, line, col) => `${name}\u0000${url}\u0000${line}\u0000${col}`;
    const oracle = new Map();
    for (const f of o.functions) oracle.set(key(f.name, f.url, f.line, f.column), f);
    const top = [...j.functions].sort((a, b) => b.self_ms - a.self_ms).slice(0, 10);
    let maxSelf = 0, missing = 0;
    for (const f of top) {
      const g = oracle.get(key(f.name, f.url, f.line == null ? -1 : f.line - 1, f.column == null ? -1 : f.column - 1));
      if (!g) { missing++; console.log(`  not in oracle: ${f.name} ${f.url}:${f.line}:${f.column}`); continue; }
      const d = Math.abs(f.self_ms - g.self);
      maxSelf = Math.max(maxSelf, d);
      console.log(`  ${f.self_ms.toFixed(3).padStart(10)} ms  ${g.self.toFixed(3).padStart(10)} ms  ${f.name || "(anonymous)"} ${f.url ? f.url.split("/").pop() + ":" + f.line : ""}`);
    }
    const ok = missing === 0 && maxSelf <= 0.005;
    console.log(`spot-check (top 10 by self, jsprof vs oracle): max |self diff| = ${maxSelf.toFixed(6)} ms, ${missing} unmatched (expect <= 0.005 ms, 0): ${ok ? "PASS" : "MISS"}`);
    console.log(`duration_ms: jsprof ${j.duration_ms}, oracle ${o.duration_ms}`);
  ' "$OUT/jsprof.json" "$OUT/oracle.json"
fi
