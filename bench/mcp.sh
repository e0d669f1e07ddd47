#!/usr/bin/env bash
# MCP answers on the benches' big inputs: `tools/list` and every tool's default answer (only the
# arguments a tool requires) on the CPU bench's profile, the trace bench's page load and the heap
# bench's snapshot, each answer's bytes against the default budget (`max_bytes` 8000) and its
# wall time against the server's default --timeout (50 s). Exits 1 when an answer is an error or
# over its budget. No peer answers these questions on files (chrome-devtools-mcp reads the trace
# of a page it drives), so the figures stand alone.
#   bench/mcp.sh   (run bench/cpu.sh, bench/trace.sh and bench/heap.sh first: their outputs are
#                   the inputs; JSPROF_BENCH_NO_BUILD=1 skips the build)
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init mcp
need mcp.sh python3
inputs=(bench/out/cpu/workload.cpuprofile bench/out/trace/page.trace.json bench/out/heap/bench.heapsnapshot)
makers=(bench/cpu.sh bench/trace.sh bench/heap.sh)
for i in "${!inputs[@]}"; do
  if [ ! -f "${inputs[$i]}" ]; then
    echo "mcp.sh: ${inputs[$i]} is missing: run ${makers[$i]} first" >&2
    exit 1
  fi
done
if [ "${JSPROF_BENCH_NO_BUILD:-0}" != 1 ]; then
  build_jsprof
fi
for f in "${inputs[@]}"; do echo "$f: $(mb "$(filesize "$f")") MB"; done
python3 bench/mcp_answers.py "$JSPROF" bench/out "${inputs[@]}"
