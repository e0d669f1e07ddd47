#!/usr/bin/env bash
# Speed benchmark (not a test) for `jsprof events` on a big Chromium trace, against the DevTools
# trace engine (target/oracle/trace-oracle.mjs).
#
#   bash bench/trace.sh [--record]
#
# Records a >= 100 MB Performance-panel trace of a busy page (bench/trace-workload/page.html) in
# headless Chromium with `jsprof record --chrome … --trace --cpu`, then times
# `jsprof events --mode unique-events` and the trace oracle on it in the same run and prints both,
# the speed ratio and jsprof's peak RSS relative to the file size.
# Goals: oracle/jsprof wall time >= 20x, jsprof peak RSS <= 1x the file size.
# Then checks jsprof's calls and Bottom-up rows against the oracle's (bench/trace-compare.py).
# With JSPROF_BENCH_BIG_MB=2000, finally writes a trace of that size from the recording
# (bench/tracegen: the recording's processes repeated) and times `summary` and
# `events --mode unique-events` on it, checking that each copy's threads read as the recording's.
#
# Options / environment:
#   --record                 re-record the trace even if one exists
#   JSPROF_BENCH_SECONDS=50  recording length
#   JSPROF_BENCH_RUNS=3      timed runs per tool (best and median reported)
#   JSPROF_BENCH_NO_BUILD=1  skip `cargo build --profile "${JSPROF_PROFILE:-release}" --features lake -p jsprof`
#   JSPROF_BENCH_BIN=PATH    jsprof binary to time (default target/${JSPROF_PROFILE:-release}/jsprof)
#   JSPROF_BESIDE=dist       also time the build of that cargo profile beside it (bench/lib.sh)
#   JSPROF_BENCH_BIG_MB=N    also time a generated trace of N MB (needs N MB free under bench/out)
#   CHROMIUM=PATH            the browser (default: chromium on PATH)
#
# Everything generated lives under bench/out/trace/ (gitignored); nothing here is committed.
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
oracle_bench_init trace 2,28 "$@"
need trace.sh python3

SECONDS_WANTED="${JSPROF_BENCH_SECONDS:-50}"
MIN_BYTES=$((100 * 1000 * 1000))
TRACE="$OUT/page.trace.json"
ORACLE=target/oracle/trace-oracle.mjs
BROWSER="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"

# ---------------------------------------------------------------- tools
build_tools "the oracles"

# ---------------------------------------------------------------- recording
BROWSER_PID=
stop_browser() { [ -n "$BROWSER_PID" ] && kill "$BROWSER_PID" 2>/dev/null && wait "$BROWSER_PID" 2>/dev/null; BROWSER_PID=; true; }
trap stop_browser EXIT

record() {
  local secs="$1" err="$OUT/chromium.err" addr=
  [ -n "$BROWSER" ] || { echo "trace.sh: no chromium found (set CHROMIUM=…)" >&2; exit 1; }
  rm -rf "$OUT/user-data" "$OUT/rec" "$OUT/oracle.json"
  echo "== recording ${secs}s of bench/trace-workload/page.html in headless $("$BROWSER" --version 2>/dev/null | head -n 1)"
  "$BROWSER" --headless --no-sandbox --disable-gpu --remote-debugging-port=0 \
    --user-data-dir="$OUT/user-data" "file://$PWD/bench/trace-workload/page.html" > /dev/null 2> "$err" &
  BROWSER_PID=$!
  for _ in $(seq 100); do
    addr=$(sed -n 's|^DevTools listening on ws://\([^/]*\)/.*|\1|p' "$err" | head -n 1)
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { echo "trace.sh: chromium did not open its DevTools port (see $err)" >&2; exit 1; }
  sleep 1   # let the page start its work
  "$JSPROF" record --chrome "$addr" --trace --cpu --duration "$secs" -o "$OUT/rec" --name page > /dev/null
  stop_browser
  mv "$OUT/rec/page.trace.json" "$TRACE"
  rm -rf "$OUT/rec" "$OUT/user-data"
}

ensure_recorded "$TRACE" "$MIN_BYTES" "$SECONDS_WANTED" "$RECORD" trace

# ---------------------------------------------------------------- timing

echo "== timing ($RUNS runs each)"
time_runs oracle node --max-old-space-size=16000 "$ORACLE" "$TRACE"
O_BEST=$BEST O_MED=$MEDIAN O_RSS=$RSS
time_jsprof events "$TRACE" --mode unique-events --json

# ---------------------------------------------------------------- report
echo
oracle_report trace events "r <= 1" "<= 1x"

# ---------------------------------------------------------------- check
if [ ! -s "$OUT/oracle.json" ] || [ "$OUT/oracle.json" -ot "$TRACE" ]; then
  node --max-old-space-size=16000 "$ORACLE" "$TRACE" > "$OUT/oracle.json"
fi
echo
echo "check (calls within 1 us, unique Bottom-up rows within 0.01 ms, per sampled thread):"
python3 bench/trace-compare.py "$JSPROF" "$TRACE" "$OUT/oracle.json" && echo "check: PASS" || echo "check: MISS"

# ---------------------------------------------------------------- a trace DevTools cannot open
BIG_MB="${JSPROF_BENCH_BIG_MB:-0}"
if [ "$BIG_MB" -gt 0 ]; then
  BIG="$OUT/big.trace.json"
  echo
  echo "== bench/tracegen: a ${BIG_MB} MB trace from the recording"
  (cd bench/tracegen && cargo build --release --quiet)
  bench/tracegen/target/release/tracegen "$TRACE" "$BIG" --mb "$BIG_MB"
  BIG_BYTES=$(filesize "$BIG")
  RUNS=1
  time_runs big-summary "$JSPROF" summary "$BIG" --json
  S_WALL=$BEST S_RSS=$RSS
  time_runs big-events "$JSPROF" events "$BIG" --mode unique-events --json
  E_WALL=$BEST E_RSS=$RSS
  echo
  echo "generated trace $(mb "$BIG_BYTES") MB (the recording's processes repeated); one run each"
  big_row() {
    printf '%-30s %8.2f %14.1f %16.2f\n' "$1" "$2" "$(awk -v k="$3" 'BEGIN { print k * 1024 / 1e6 }')" \
      "$(awk -v k="$3" -v b="$BIG_BYTES" 'BEGIN { print k * 1024 / b }')"
  }
  printf '%-30s %8s %14s %16s\n' command "wall s" "peak RSS MB" "RSS / file size"
  big_row summary "$S_WALL" "$S_RSS"
  big_row "events --mode unique-events" "$E_WALL" "$E_RSS"
  echo
  echo "check (every copy's threads read as the recording's, first and last copy):"
  python3 bench/trace-repeat-check.py "$JSPROF" "$TRACE" "$BIG" && echo "check: PASS" || echo "check: MISS"
  rm -f "$BIG"
fi
