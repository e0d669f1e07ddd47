# Helpers shared by the bench scripts (sourced, not run). The timing ones use OUT (the script's
# output folder), RUNS (timed runs per tool) and BYTES (the input's size), set by the script.

# ROOT, the repository; JSPROF, the binary the scripts time: $JSPROF, else the build of cargo
# profile JSPROF_PROFILE (default release).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JSPROF="${JSPROF:-$ROOT/target/${JSPROF_PROFILE:-release}/jsprof}"

# bench_init NAME: the working directory becomes ROOT, and OUT=$ROOT/bench/out/NAME (made).
bench_init() {
  OUT="$ROOT/bench/out/$1"
  mkdir -p "$OUT"
  cd "$ROOT"
}

# oracle_bench_init NAME HELP_LINES ARG...: the head of a script that times jsprof beside a
# DevTools oracle on a recording it makes (cpu.sh, trace.sh). The working directory becomes ROOT;
# parses ARG (record_arg); sets RUNS (JSPROF_BENCH_RUNS, default 3), OUT=bench/out/NAME (made)
# and JSPROF (JSPROF_BENCH_BIN, else the JSPROF_PROFILE build); needs node and GNU time.
oracle_bench_init() {
  local name="$1"
  cd "$ROOT"
  record_arg "$name.sh" "$2" "${@:3}"
  RUNS="${JSPROF_BENCH_RUNS:-3}"
  OUT="bench/out/$name"
  JSPROF="${JSPROF_BENCH_BIN:-target/${JSPROF_PROFILE:-release}/jsprof}"
  mkdir -p "$OUT"
  need "$name.sh" node
  [ -x /usr/bin/time ] || { echo "$name.sh: /usr/bin/time (GNU time) not found" >&2; exit 1; }
}

# build_tools WHAT: the oracles when ORACLE is missing ("== building WHAT"), and the jsprof timed
# (beside BESIDE's) unless JSPROF_BENCH_NO_BUILD=1 or JSPROF_BENCH_BIN names it.
build_tools() {
  if [ ! -f "$ORACLE" ]; then
    echo "== building $1"
    bash tools/oracle/build.sh target/oracle
  fi
  if [ "${JSPROF_BENCH_NO_BUILD:-0}" != 1 ] && [ -z "${JSPROF_BENCH_BIN:-}" ]; then
    echo "== cargo build --profile ${JSPROF_PROFILE:-release} --features lake -p jsprof"
    build_jsprof
    build_beside
  fi
}

# time_jsprof ARG...: RUNS timed runs of `jsprof ARG...` (J_BEST, J_MED, J_RSS), and of BESIDE's
# (B_BEST, B_MED, B_RSS) when asked for, whose outputs go to OUT/jsprof.json and OUT/beside.json.
time_jsprof() {
  time_runs jsprof "$JSPROF" "$@"
  J_BEST=$BEST J_MED=$MEDIAN J_RSS=$RSS
  if [ -n "$BESIDE" ]; then
    time_runs "$JSPROF_BESIDE" "$BESIDE" "$@"
    B_BEST=$BEST B_MED=$MEDIAN B_RSS=$RSS
    "$JSPROF" "$@" > "$OUT/jsprof.json"
    "$BESIDE" "$@" > "$OUT/beside.json"
  fi
}

# oracle_report WHAT COMMAND RSS_TEST RSS_GOAL: the table of the oracle's and jsprof's times
# (O_*, J_*, B_* for the BESIDE build and its COMMAND's output), then the speed ratio against the
# goal of 20x and jsprof's peak RSS per byte of input against RSS_GOAL (RSS_TEST, an awk test of
# r: "r < 2").
oracle_report() {
  echo "$1 $(mb "$BYTES") MB; wall = best of $RUNS (median in parentheses); RSS = max peak over runs"
  printf '%-8s %16s %14s %16s\n' tool "wall s" "peak RSS MB" "RSS / file size"
  row oracle "$O_BEST" "$O_MED" "$O_RSS"
  row jsprof "$J_BEST" "$J_MED" "$J_RSS"
  if [ -n "$BESIDE" ]; then
    row "$JSPROF_BESIDE" "$B_BEST" "$B_MED" "$B_RSS"
    beside_report "$2" "$J_BEST" "$B_BEST" "$OUT/jsprof.json" "$OUT/beside.json"
  fi
  SPEEDUP=$(awk -v o="$O_BEST" -v j="$J_BEST" 'BEGIN { printf "%.1f", o / (j > 0 ? j : 0.005) }')
  RSSX=$(awk -v k="$J_RSS" -v b="$BYTES" 'BEGIN { printf "%.2f", k * 1024 / b }')
  echo
  echo "speed: oracle / jsprof = ${SPEEDUP}x (goal >= 20x): $(awk -v s="$SPEEDUP" 'BEGIN { print (s >= 20) ? "PASS" : "MISS" }')"
  echo "memory: jsprof peak RSS / file size = ${RSSX}x (goal $4): $(awk -v r="$RSSX" "BEGIN { print ($3) ? \"PASS\" : \"MISS\" }")"
}

# record_arg NAME HELP_LINES ARG...: the one flag of a recording script, --record (sets RECORD=1);
# -h/--help prints lines HELP_LINES ("2,22") of the script, its header; anything else is a usage
# error naming NAME.
record_arg() {
  local name="$1" lines="$2" arg
  shift 2
  RECORD=0
  for arg in "$@"; do
    case "$arg" in
      --record) RECORD=1 ;;
      -h|--help) sed -n "${lines}p" "$0"; exit 0 ;;
      *) echo "$name: unknown argument: $arg" >&2; exit 2 ;;
    esac
  done
}

# need NAME CMD...: exits 1, naming NAME, at the first CMD that is not on PATH.
need() {
  local name="$1" cmd
  shift
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null || { echo "$name: $cmd not found" >&2; exit 1; }
  done
}

# build_jsprof [CARGO ARG...]: the binary the scripts time, with the profile JSPROF_PROFILE
# (default release; bench/README.md says what each costs) and the lake feature.
build_jsprof() { cargo build --profile "${JSPROF_PROFILE:-release}" --features lake "$@" -p jsprof; }

# JSPROF_BESIDE=PROFILE: also time the jsprof built with cargo profile PROFILE, beside the first, on
# the same input in the same run: `JSPROF_PROFILE=release JSPROF_BESIDE=dist` prices the install
# profile against the published one. BESIDE is its path (empty when not asked for); build_beside
# builds it (with the lake, as build_jsprof).
BESIDE=""
if [ -n "${JSPROF_BESIDE:-}" ]; then BESIDE="target/$JSPROF_BESIDE/jsprof"; fi
build_beside() {
  if [ -n "$BESIDE" ]; then
    echo "== cargo build --profile $JSPROF_BESIDE --features lake -p jsprof (timed beside)"
    JSPROF_PROFILE="$JSPROF_BESIDE" build_jsprof
  fi
}

# beside_report NAME A_BEST B_BEST A_OUT B_OUT: the two builds' time ratio, and whether they
# printed the same bytes.
beside_report() {
  local same=no
  cmp -s "$4" "$5" && same=yes
  echo "build: ${JSPROF_PROFILE:-release} / $JSPROF_BESIDE wall ($1) = $(awk -v a="$2" -v b="$3" \
    'BEGIN { printf "%.2f", a / (b > 0 ? b : 0.005) }')x; the same output: $same"
}

filesize() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# time_runs NAME CMD...: RUNS timed runs, stdout discarded. Sets BEST, MEDIAN (s), RSS (max peak KiB).
# The wall time is bash's EPOCHREALTIME (µs) around the run, not GNU time's %e (0.01 s, too coarse
# for a command of 0.05 s); GNU time still gives the peak RSS. Both tools pay the same ~1 ms for
# GNU time's own fork and exec.
time_runs() {
  local name="$1" i walls=() rss=0 w m t0 t1
  shift
  for ((i = 1; i <= RUNS; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$OUT/time.$name" "$@" > /dev/null
    t1=$EPOCHREALTIME
    w=$(awk -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN { printf "%.4f", b - a }')
    m=$(tail -n 1 "$OUT/time.$name")
    echo "   $name run $i: ${w}s, $(mb $((m * 1024))) MB"
    walls+=("$w"); [ "$m" -gt "$rss" ] && rss=$m
  done
  BEST=$(printf '%s\n' "${walls[@]}" | sort -g | head -n 1)
  MEDIAN=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
  RSS=$rss
}

# row TOOL BEST MEDIAN RSS_KIB: one line of the report table.
row() { printf '%-8s %7.3f (%6.3f) %14.1f %16.2f\n' "$1" "$2" "$3" "$(awk -v k="$4" 'BEGIN { print k * 1024 / 1e6 }')" \
          "$(awk -v k="$4" -v b="$BYTES" 'BEGIN { print k * 1024 / b }')"; }

# ensure_recorded FILE MIN_BYTES SECONDS FORCE WHAT: record FILE with the script's own `record SECS`
# when FORCE=1 or it is missing, then double the recording time (twice at most) while it is
# smaller than MIN_BYTES (a slow or contended machine samples less); sets BYTES.
ensure_recorded() {
  local file="$1" min="$2" secs="$3" force="$4" what="$5"
  if [ "$force" = 1 ] || [ ! -f "$file" ]; then
    record "$secs"
  fi
  for _ in 1 2; do
    [ "$(filesize "$file")" -ge "$min" ] && break
    echo "== $file is only $(mb "$(filesize "$file")") MB (< $(mb "$min") MB); recording longer"
    secs=$((secs * 2))
    record "$secs"
  done
  BYTES=$(filesize "$file")
  echo "== $what: $file, $(mb "$BYTES") MB ($BYTES bytes)"
  [ "$BYTES" -ge "$min" ] || echo "warning: $what still < $(mb "$min") MB" >&2
}
