#!/usr/bin/env bash
# Runs every document command of one jsprof binary over the bundled fixtures and writes each
# answer (stdout, and the exit status) to a folder, one file per question. Two binaries' folders
# then compare with `diff -r`: the check that a restructuring changed no document's bytes.
#
#   tools/doc-golden.sh OLD_BINARY /tmp/golden-old
#   tools/doc-golden.sh target/release/jsprof /tmp/golden-new
#   diff -r /tmp/golden-old /tmp/golden-new
#
# The lake's answers are included (the binary must be built with `--features lake`); their
# switch from ns to ms is the one intended difference.
set -uo pipefail

bin="$(realpath "$1")"
out="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fixtures"
rm -rf "$out" && mkdir -p "$out"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export JSPROF_CACHE_DIR="$scratch/cache" COLUMNS=200 NO_COLOR=1

# ask NAME ARGS...: stdout to $out/NAME, then the exit status and stderr.
ask() {
  local name="$1"
  shift
  { "$bin" "$@" 2>"$scratch/stderr"; echo "exit=$?"; echo "--- stderr"; cat "$scratch/stderr"; } >"$out/$name"
}

slug() { echo "$1" | tr '/.' '__'; }

cpu_inputs=(cpu/*.cpuprofile.gz diff/*.cpuprofile.gz selfprofile/*.exported.cpuprofile
  selfprofile/*.jsprofile.json heapprofile/tsc.heapprofile trace/*.trace.json.gz)
for f in "${cpu_inputs[@]}"; do
  s="$(slug "$f")"
  for fmt in "" --json; do
    t="${fmt:+json}"; t="${t:-text}"
    ask "$s.summary.$t" summary $fmt "$f"
    ask "$s.top.$t" top --limit 0 $fmt "$f"
    ask "$s.top-total.$t" top --by total --limit 40 $fmt "$f"
    ask "$s.top-filtered.$t" top --hide-idle --collapse-recursion --exclude '^\(' $fmt "$f"
    ask "$s.tree.$t" tree $fmt "$f"
    ask "$s.tree-bu.$t" tree --bottom-up --max-depth 4 $fmt "$f"
    ask "$s.tree-min.$t" tree --min-percent 1 --collapse-packages $fmt "$f"
    ask "$s.threads.$t" threads $fmt "$f"
    ask "$s.events.$t" events --limit 0 $fmt "$f"
    ask "$s.events-types.$t" events --mode unique-types $fmt "$f"
    ask "$s.events-reduce.$t" events --mode reduce-all --max-depth 2 $fmt "$f"
    ask "$s.events-range.$t" events --range 1..40 $fmt "$f"
    ask "$s.lines.$t" lines --function . --no-source --limit 3 $fmt "$f"
  done
  ask "$s.top-range.json" top --range 5..60 --json "$f"
  ask "$s.flamegraph.svg" flamegraph -o - "$f"
  ask "$s.flamechart.svg" flamechart -o - "$f"
  for format in folded cpuprofile speedscope d3 chrome-trace; do
    ask "$s.export-$format" export -f "$format" -o - "$f"
  done
done

for f in trace/*.trace.json.gz; do
  s="$(slug "$f")"
  for cmd in insights network timings filmstrip; do
    ask "$s.$cmd.json" "$cmd" --json "$f"
    ask "$s.$cmd.text" "$cmd" "$f"
  done
  ask "$s.top-samples.json" top --samples --json "$f"
done

ask diff.json diff --json diff/before.cpuprofile.gz diff/after.cpuprofile.gz
ask diff.text diff diff/before.cpuprofile.gz diff/after.cpuprofile.gz
ask diff-groups.json diff --json --base diff/before.cpuprofile.gz --target diff/after.cpuprofile.gz

for f in heap/*.heapsnapshot.gz; do
  s="$(slug "$f")"
  for fmt in "" --json; do
    t="${fmt:+json}"; t="${t:-text}"
    ask "$s.summary.$t" heap summary --limit 0 $fmt "$f"
    ask "$s.stats.$t" heap stats $fmt "$f"
    ask "$s.dominators.$t" heap dominators --depth 4 $fmt "$f"
    ask "$s.strings.$t" heap strings --limit 0 $fmt "$f"
    ask "$s.detached.$t" heap detached --limit 0 $fmt "$f"
  done
  class="$("$bin" heap summary --json --limit 3 "$f" 2>/dev/null | jq -r '.rows[0].name // .classes[0].name // empty')"
  if [ -n "$class" ]; then
    ask "$s.class.json" heap class --json --limit 20 "$f" "$class"
    ask "$s.class-offset.json" heap class --json --sort self --offset 5 --limit 5 "$f" "$class"
  fi
  id="$("$bin" heap dominators --json --depth 2 "$f" 2>/dev/null | jq -r '.. | objects | .id? // empty' | sed -n 3p)"
  if [ -n "$id" ]; then
    ask "$s.node.json" heap node --json "$f" "$id"
    ask "$s.retainers.json" heap retainers --json "$f" "$id"
    ask "$s.edges.json" heap edges --json "$f" "$id"
    ask "$s.edges-ret.json" heap edges --retainers --json "$f" "$id"
    ask "$s.dominators-id.json" heap dominators --json --id "$id" "$f"
  fi
done
ask leaks.json heap leaks --json heap/leak-1-baseline.heapsnapshot.gz heap/leak-2-target.heapsnapshot.gz heap/leak-3-final.heapsnapshot.gz
ask leaks.text heap leaks heap/leak-1-baseline.heapsnapshot.gz heap/leak-2-target.heapsnapshot.gz heap/leak-3-final.heapsnapshot.gz
ask heapdiff.json heap diff --json --limit 0 heap/leak-1-baseline.heapsnapshot.gz heap/leak-2-target.heapsnapshot.gz
ask heapdiff.text heap diff heap/leak-1-baseline.heapsnapshot.gz heap/leak-2-target.heapsnapshot.gz
ask between.json heap summary --json --between heap/leak-1-baseline.heapsnapshot.gz heap/leak-2-target.heapsnapshot.gz heap/leak-3-final.heapsnapshot.gz
ask alloc.json heap allocations --json heap/alloc-known.heaptimeline.gz
ask alloc-bu.text heap allocations --bottom-up heap/alloc-known.heaptimeline.gz

# The lake: the same fixtures added with labels, then every query.
lake="$scratch/lake"
if "$bin" lake init "$lake" >/dev/null 2>&1; then
  "$bin" lake add "$lake" --label version=1.0 cpu/*.cpuprofile.gz diff/before.cpuprofile.gz >/dev/null 2>&1
  "$bin" lake add "$lake" --label version=1.1 diff/after.cpuprofile.gz selfprofile/primes.exported.cpuprofile >/dev/null 2>&1
  for fmt in "" --json; do
    t="${fmt:+json}"; t="${t:-text}"
    ask "lake.top.$t" lake top "$lake" $fmt
    ask "lake.top-v1.$t" lake top "$lake" --where version=1.0 $fmt
    ask "lake.tree.$t" lake tree "$lake" $fmt
    ask "lake.trend.$t" lake trend "$lake" "(garbage collector)" --by version $fmt
    ask "lake.diff.$t" lake diff "$lake" --base version=1.0 --target version=1.1 --min-profiles 1 $fmt
    ask "lake.sql.$t" lake sql "$lake" "select count(*) as n from samples" $fmt
  done
  "$bin" lake ls "$lake" --json 2>/dev/null | jq 'del(.. | .added_at?, .added?, .path?, .file?)' >"$out/lake.ls.json"
fi
echo "$(ls "$out" | wc -l) answers in $out"
