#!/usr/bin/env bash
# Installs the reference implementations (Chrome DevTools front-end sources and the DevTools trace
# engine, both from npm, versions pinned by package-lock.json beside this script) into ORACLE_DIR
# and bundles the oracles there. Needs Node 20 and npm; nothing outside the repository.
#   bash tools/oracle/build.sh [ORACLE_DIR]   (default: target/oracle, relative to the caller)
# Then:
#   node ORACLE_DIR/cpu-oracle.mjs   FILE.cpuprofile          > golden.json
#   node ORACLE_DIR/heap-oracle.mjs  FILE.heapsnapshot [N]    > golden.json   (every Nth node sampled)
#   node ORACLE_DIR/heap-oracle.mjs  --contexts FILE          > golden.json   (per native context)
#   node ORACLE_DIR/lines-oracle.mjs FILE.cpuprofile|TRACE    > golden.json   (per-line times)
#   node ORACLE_DIR/trace-oracle.mjs FILE.json                > golden.json
#   node ORACLE_DIR/insights-oracle.mjs FILE.json             > golden.json
#   node ORACLE_DIR/lantern-oracle.mjs FILE.json              > golden.json   (Lantern's graphs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-target/oracle}
# Two commands, not `mkdir && cd`: under `set -e` a failing first half of `&&` does not stop the
# script, which then built into (and overwrote package.json in) the directory it was run from.
mkdir -p "$dir"
cd "$dir"
# The lock file, not `npm install`, so a fresh clone gets exactly the DevTools the goldens came from.
cp "$here/package.json" "$here/package-lock.json" .
npm ci --no-audit --no-fund --silent
node "$here/build.mjs" "$here/cpu-oracle.ts" cpu-oracle.mjs
node "$here/build.mjs" "$here/heap-oracle.ts" heap-oracle.mjs
node "$here/build.mjs" "$here/lines-oracle.ts" lines-oracle.mjs
node "$here/build.mjs" "$here/source-map.ts" source-map.mjs
cp "$here/trace-file.mjs" trace-file.mjs
cp "$here/trace-oracle.mjs" trace-oracle.mjs
cp "$here/insights-oracle.mjs" insights-oracle.mjs
cp "$here/lantern-oracle.mjs" lantern-oracle.mjs
echo "oracles ready in $(pwd)"
