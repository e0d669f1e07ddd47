#!/usr/bin/env bash
# How fast the UI's heap views answer on a big snapshot (issue 17: "Summary's first page shows as
# soon as the analysis ends; paging, expanding a class with millions of members, retainers and
# dominators answer in under 200 ms on the 5 GB file").
#
#   bench/heap-ui.sh SNAPSHOT [RUNS]
#
# Starts `jsprof view --no-open SNAPSHOT` (reading the heap index from JSPROF_CACHE_DIR when there
# is one: run `jsprof heap summary SNAPSHOT` first to write it), then sends the requests the
# page's heap views send (crates/jsprof_server/ui/source.js), each RUNS times (default 3), and
# prints the first, the best and the median wall time of each as curl saw it (the first of a
# sort order includes ordering the class, unless the service did it in the background). The
# first request opens the snapshot; it is timed on its own ("open"). The class expanded is the
# Summary's largest by count; its rows are paged at the top, the middle and the end in three
# orders, and the retainers, dominated objects and edges of the object at its middle are asked
# for.
#
# The service builds the dominator tree, the retainer index, the classes' members and the large
# classes' default order in the background once the snapshot is loaded; the script prints when
# each was ready (`JSPROF_HEAP_PHASES=1`'s lines) and, with WAIT=1 (the default), waits for the
# last before clicking, so the figures are those of a user who clicks after the build; WAIT=0
# clicks at once (a click then waits for the build it needs). A binary without the background
# build (JSPROF=… an older one) is not waited for. JSPROF_HEAP_PREPARE=0 turns the build off.
# Needs curl and python3. Nothing is written outside a temporary directory.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"   # JSPROF
SNAP="${1:?usage: bench/heap-ui.sh SNAPSHOT [RUNS]}"
RUNS="${2:-3}"
WAIT="${WAIT:-1}"
TMP="$(mktemp -d)"
trap 'kill "$VIEW" 2>/dev/null || true; wait "$VIEW" 2>/dev/null || true; rm -rf "$TMP"' EXIT

JSPROF_HEAP_PHASES=1 "$JSPROF" view --no-open "$SNAP" >"$TMP/url" 2>"$TMP/view.err" &
VIEW=$!
# view prints its URL once the snapshot is open (analysed, or read from its index).
while [ ! -s "$TMP/url" ] && kill -0 "$VIEW" 2>/dev/null; do sleep 0.2; done
URL="$(head -1 "$TMP/url")"
[ -n "$URL" ] || { echo "jsprof view printed no URL:" >&2; cat "$TMP/view.err" >&2; exit 1; }
PORT="$(echo "$URL" | sed 's|http://127.0.0.1:\([0-9]*\).*|\1|')"
TOKEN="$(echo "$URL" | sed 's/.*token=\([0-9a-f]*\).*/\1/')"
H="http://127.0.0.1:$PORT"

get() { # PATH → body on stdout, seconds in $TMP/t
  curl -sS --fail-with-body -H "Authorization: Bearer $TOKEN" -o "$TMP/body" -w '%{time_total}' "$H$1" >"$TMP/t"
  cat "$TMP/body"
}

SESSION="$(get /api/sessions | python3 -c 'import json,sys; s=json.load(sys.stdin)["sessions"][0]; print(s["session_id"], s["artifacts"][0]["artifact_id"])')"
read -r SID AID <<<"$SESSION"
BASE="/api/sessions/$SID/artifacts/$AID/heap"
UI="/api/ui/sessions/$SID/artifacts/$AID/heap"

get "$BASE/summary?limit=0" >"$TMP/summary.json"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(stat -c %s "$SNAP" | awk '{printf "%.2f GB", $1/1e9}') snapshot"
printf '  %-52s %7.0f ms   (the snapshot opened by the first request)\n' "open + Summary" "$(awk '{print $1*1000}' "$TMP/t")"

read -r KEY COUNT < <(python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); c=max(d["classes"], key=lambda c: c["count"])
print(c["key"], c["count"])' "$TMP/summary.json")
ENC_KEY="$(python3 -c 'import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=""))' "$KEY")"
MID=$((COUNT / 2))
END=$((COUNT > 100 ? COUNT - 100 : 0))

# The background build: its lines so far; with WAIT=1, its end (a binary that printed no line a
# few seconds after the Summary has none).
if [ "$WAIT" = 1 ]; then
  for _ in $(seq 25); do grep -q 'heap views:' "$TMP/view.err" && break; sleep 0.2; done
  if grep -q 'heap views:' "$TMP/view.err"; then
    while ! grep -q 'heap views: everything ready' "$TMP/view.err" && kill -0 "$VIEW" 2>/dev/null; do sleep 0.2; done
  fi
fi
sed -n 's/^jsprof serve: heap views: /  background: /p' "$TMP/view.err"

timed() { # LABEL PATH
  local label="$1" path="$2" all=()
  for _ in $(seq "$RUNS"); do get "$path" >/dev/null; all+=("$(cat "$TMP/t")"); done
  python3 - "$label" "${all[@]}" <<'PY'
import statistics, sys
label, raw = sys.argv[1], [float(x) * 1000 for x in sys.argv[2:]]
t = sorted(raw)
print(f"  {label:52} {raw[0]:7.0f} ms first {t[0]:7.0f} ms best {statistics.median(t):7.0f} ms median")
PY
}

echo "class $KEY: $COUNT objects"
timed "Summary (limit 0), again" "$BASE/summary?limit=0"
# The first page of the default order first: expanding the class in the Summary.
for SORT in retained id distance; do
  timed "class page 0, by $SORT" "$UI/class?key=$ENC_KEY&offset=0&limit=100&sort=$SORT"
  timed "class page at the middle ($MID), by $SORT" "$UI/class?key=$ENC_KEY&offset=$MID&limit=100&sort=$SORT"
  timed "class page at the end ($END), by $SORT" "$UI/class?key=$ENC_KEY&offset=$END&limit=100&sort=$SORT"
done
get "$UI/class?key=$ENC_KEY&offset=$MID&limit=1" >"$TMP/mid.json"
ID="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["objects"][0]["id"])' "$TMP/mid.json")"
echo "object @$ID at the class's middle"
timed "retainers of @$ID (5 paths)" "$BASE/retainers/$ID?paths=5"
timed "dominated by the root, first 100" "$UI/dominated/root?offset=0&limit=100"
timed "dominated by @$ID" "$UI/dominated/$ID?offset=0&limit=100"
timed "edges of @$ID" "$UI/edges/$ID?offset=0&limit=100"
timed "retainer edges of @$ID" "$UI/edges/$ID?retainers=1&offset=0&limit=100"
echo "jsprof view peak RSS: $(awk '/VmHWM/ {printf "%.0f MB", $2/1024}' "/proc/$VIEW/status")"
