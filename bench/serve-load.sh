#!/usr/bin/env bash
# Load script (not a test) for `jsprof serve`: 32 concurrent clients query the events of an
# imported >= 50 MB .cpuprofile for 60 s; prints p50/p90/p99 latency per query kind, the error
# count and the server's RSS over time.
#
#   bash bench/serve-load.sh [--record]
#
# The profile: bench/out/serve/workload.cpuprofile, ~80 s of the TypeScript workload of
# bench/cpu.sh (node --cpu-prof --cpu-prof-interval 10), re-recorded with --record or when it is
# under 50 MB. The client is crates/jsprof_server/examples/serve_load.rs (std only).
#
# Environment:
#   JSPROF_LOAD_SECONDS=60     how long the clients run
#   JSPROF_LOAD_CLIENTS=32     how many clients
#   JSPROF_LOAD_RECORD_SECONDS=80  workload length when recording
#   JSPROF_LOAD_INTERVAL_US=10     sampling interval when recording
#   JSPROF_LOAD_FILE=PATH          load this file instead (any format jsprof reads with timelines,
#                                  e.g. bench/out/trace/page.trace.json from bench/trace.sh); on
#                                  the 2-core dev box the TypeScript .cpuprofile levels off at
#                                  41-46 MB however long it records
#   JSPROF_LOAD_TARGET_DIR=DIR     cargo target directory to build into and run from (default target)
#
# Everything generated lives under bench/out/serve/ (gitignored).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
record_arg serve-load.sh 2,17 "$@"

SECS="${JSPROF_LOAD_SECONDS:-60}"
CLIENTS="${JSPROF_LOAD_CLIENTS:-32}"
REC_SECS="${JSPROF_LOAD_RECORD_SECONDS:-80}"
INTERVAL="${JSPROF_LOAD_INTERVAL_US:-10}"
MIN_BYTES=$((50 * 1000 * 1000))
TS_VERSION=5.6.3
OUT=bench/out/serve
WS=bench/out/cpu/ws
PROFILE="$OUT/workload.cpuprofile"
mkdir -p "$OUT"

need serve-load.sh node curl

if [ ! -f "$WS/node_modules/typescript/package.json" ]; then
  echo "== installing typescript@$TS_VERSION into $WS"
  mkdir -p "$WS"
  [ -f "$WS/package.json" ] || echo '{"private": true}' > "$WS/package.json"
  (cd "$WS" && npm install --no-audit --no-fund --silent "typescript@$TS_VERSION")
fi

record() {
  local tmp="$OUT/rec.tmp"
  rm -rf "$tmp"
  echo "== recording ${1}s of the TypeScript workload (every ${INTERVAL} us)"
  node --cpu-prof --cpu-prof-interval "$INTERVAL" --cpu-prof-dir "$tmp" --cpu-prof-name workload.cpuprofile \
    bench/cpu-workload/workload.js "$WS/node_modules/typescript" "$1"
  mv "$tmp/workload.cpuprofile" "$PROFILE"
  rm -rf "$tmp"
}
if [ -n "${JSPROF_LOAD_FILE:-}" ]; then
  PROFILE="$JSPROF_LOAD_FILE"
else
  if [ "$RECORD" = 1 ] || [ ! -f "$PROFILE" ]; then record "$REC_SECS"; fi
  secs="$REC_SECS"
  for _ in 1 2; do
    [ "$(stat -c %s "$PROFILE")" -ge "$MIN_BYTES" ] && break
    secs=$((secs * 2)); record "$secs"
  done
fi
BYTES=$(stat -c %s "$PROFILE")
echo "== profile: $PROFILE, $((BYTES / 1000000)) MB"
[ "$BYTES" -ge "$MIN_BYTES" ] || echo "serve-load.sh: warning: the profile is under 50 MB" >&2

TARGET="${JSPROF_LOAD_TARGET_DIR:-target}"
echo "== cargo build --profile "${JSPROF_PROFILE:-release}" --features lake -p jsprof, the load client (into $TARGET)"
CARGO_TARGET_DIR="$TARGET" build_jsprof -q
CARGO_TARGET_DIR="$TARGET" cargo build --release -q -p jsprof_server --example serve_load

DATA="$OUT/data"
rm -rf "$DATA"
"$TARGET/release/jsprof" serve --addr 127.0.0.1:0 --data-dir "$DATA" > "$OUT/serve.url" 2> "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$OUT/serve.url" ] && break; sleep 0.1; done
URL=$(head -1 "$OUT/serve.url")
ADDR=${URL#http://}; ADDR=${ADDR%%/*}
TOKEN=${URL##*token=}
echo "== server $ADDR (pid $SERVER), RSS $(awk '/VmRSS/ {print $2/1024 " MB"}' /proc/$SERVER/status)"

echo "== importing (upload, parse, timelines)"
START=$(date +%s.%N)
SESSION_JSON=$(curl -sS --fail-with-body -H "Authorization: Bearer $TOKEN" --data-binary @"$PROFILE" \
  "http://$ADDR/api/sessions/import?name=$(basename "$PROFILE")")
END=$(date +%s.%N)
read -r SESSION TIMELINE < <(node -e '
  const s = JSON.parse(process.argv[1]);
  const t = s.timelines.find(t => t.name === "CrRendererMain") || s.timelines[0];
  console.log(s.session_id, t.timeline_id);' "$SESSION_JSON")
SPAN=$(curl -sS -H "Authorization: Bearer $TOKEN" \
  "http://$ADDR/api/sessions/$SESSION/timelines/$TIMELINE/events?mode=reduce-all" |
  node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>console.log(JSON.parse(t).events[0].total_ms))')
echo "   session $SESSION, timeline $TIMELINE, $(awk -v a="$START" -v b="$END" 'BEGIN{printf "%.2f", b-a}') s, span $SPAN ms, RSS $(awk '/VmRSS/ {print $2/1024 " MB"}' /proc/$SERVER/status)"

echo "== $CLIENTS clients for ${SECS}s"
"$TARGET/release/examples/serve_load" "$ADDR" "$TOKEN" "$SESSION" "$TIMELINE" "$((SECS * 1000))" "$SERVER" "$CLIENTS" "$SPAN" | tee "$OUT/result.txt"
