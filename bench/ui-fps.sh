#!/usr/bin/env bash
# The flame chart's frame rate while panning and zooming a profile of SAMPLES samples (default
# 1.2 M) in headless Chromium, through `jsprof view` (the server sends windows) and a
# `jsprof report` of it (embedded calls). Needs node, Debian's chromium and `npm ci` in
# crates/jsprof/tests/node. Prints one JSON line per phase; the goal is ≥ 30 fps.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
SAMPLES=${1:-1200000}
work=$(mktemp -d)
trap 'kill "${view_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
build_jsprof -q
node bench/ui-fps-profile.mjs "$SAMPLES" > "$work/big.cpuprofile"
ls -la "$work/big.cpuprofile" >&2
./target/${JSPROF_PROFILE:-release}/jsprof summary "$work/big.cpuprofile" >&2
./target/${JSPROF_PROFILE:-release}/jsprof view --no-open "$work/big.cpuprofile" > "$work/url" 2>/dev/null &
view_pid=$!
for _ in $(seq 1 600); do [ -s "$work/url" ] && break; sleep 0.5; done
echo "== jsprof view (server windows)"
(cd crates/jsprof/tests/node && node ui-fps.mjs "$(head -1 "$work/url")")
kill "$view_pid"
./target/${JSPROF_PROFILE:-release}/jsprof report "$work/big.cpuprofile" -o "$work/big.html"
echo "== jsprof report ($(du -h "$work/big.html" | cut -f1), embedded calls)"
(cd crates/jsprof/tests/node && node ui-fps.mjs "file://$work/big.html")
