#!/usr/bin/env bash
# What the production agent (npm/jsprof/agent.js) costs a Node HTTP service: throughput and p99
# latency of a loopback node:http server (crates/jsprof/tests/node/agent-app.cjs, route /hot:
# ~0.3 ms of arithmetic per request) without and with `--require jsprof/agent`, in the same run,
# rounds alternating; the ratio of the medians, the app's CPU time per request (robust where other
# work shares the cores and throughput is not) and its RSS, with and without the agent.
#
#   bash bench/agent.sh
#
# The agent posts to a null sink (a node process answering 202 to every post), so the figure is
# the agent's cost in the app, not the service's. The load is bench/agent-load.mjs (keep-alive
# connections, each sending its next request when the last one is answered), the summary
# bench/agent-summary.mjs.
#
# Environment:
#   AGENT_BENCH_SECONDS=20       length of one round
#   AGENT_BENCH_ROUNDS=3         rounds of each (without, with), alternating
#   AGENT_BENCH_CONNECTIONS=16   concurrent connections
#   AGENT_BENCH_WARMUP_SECONDS=3 load before the measured round (not counted)
#   JSPROF_AGENT_WINDOW_S=10     the agent's window (its default is 60 s: 10 s closes six times as
#                                many windows, so the figure includes their cost); every other
#                                JSPROF_AGENT_* setting is the agent's default unless set here
#
# Everything generated lives under bench/out/agent/ (gitignored).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
record_arg agent.sh 2,24 "$@"
need agent.sh node

SECS="${AGENT_BENCH_SECONDS:-20}"
ROUNDS="${AGENT_BENCH_ROUNDS:-3}"
CONNS="${AGENT_BENCH_CONNECTIONS:-16}"
WARMUP="${AGENT_BENCH_WARMUP_SECONDS:-3}"
export JSPROF_AGENT_WINDOW_S="${JSPROF_AGENT_WINDOW_S:-10}"
OUT=bench/out/agent
mkdir -p "$OUT"
APP=crates/jsprof/tests/node/agent-app.cjs
AGENT="$PWD/npm/jsprof/agent.js"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# The null sink: 202 to every post, counting them.
node -e '
let n = 0, bytes = 0;
const s = require("node:http").createServer((q, r) => {
  q.on("data", (c) => (bytes += c.length));
  q.on("end", () => { n++; r.writeHead(202); r.end(`{"accepted":true,"n":${n},"bytes":${bytes}}`); });
});
s.listen(0, "127.0.0.1", () => console.log(s.address().port));
' >"$OUT/sink.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$OUT/sink.port" ] && break; sleep 0.1; done
SINK="http://127.0.0.1:$(cat "$OUT/sink.port")"

# round with|without: one app, one load, the app's stats; appends a JSON line to $OUT/rounds.jsonl.
round() {
  local mode="$1" preload=() port
  [ "$mode" = with ] && preload=(--require "$AGENT")
  rm -f "$OUT/app.out"
  JSPROF_AGENT_URL="$SINK" JSPROF_AGENT_LABELS=service=bench AGENT_APP_AGENT="$AGENT" \
    node "${preload[@]}" "$APP" >"$OUT/app.out" &
  local app=$!
  for _ in $(seq 100); do grep -q listening "$OUT/app.out" 2>/dev/null && break; sleep 0.05; done
  port=$(awk '/listening/ { print $2 }' "$OUT/app.out")
  local load before after
  # A warm-up (the JIT, the agent's start: its watchdog's isolate, the profiler's first code
  # log), then the measured load between two readings of the app's counters.
  node bench/agent-load.mjs "127.0.0.1:$port" "$WARMUP" "$CONNS" /hot >/dev/null
  before=$(stats "$port")
  load=$(node bench/agent-load.mjs "127.0.0.1:$port" "$SECS" "$CONNS" /hot)
  after=$(stats "$port")
  kill "$app"; wait "$app" 2>/dev/null || true
  echo "{\"mode\":\"$mode\",\"load\":$load,\"before\":$before,\"stats\":$after}" | tee -a "$OUT/rounds.jsonl"
}

stats() {
  node -e 'require("node:http").get(process.argv[1], (r) => { let b = ""; r.on("data", (c) => (b += c)); r.on("end", () => console.log(b)); })' "http://127.0.0.1:$1/stats"
}

rm -f "$OUT/rounds.jsonl"
echo "== $ROUNDS rounds of ${SECS}s each way, $CONNS connections, windows of ${JSPROF_AGENT_WINDOW_S}s"
for _ in $(seq "$ROUNDS"); do round without; round with; done

node bench/agent-summary.mjs "$OUT/rounds.jsonl"
