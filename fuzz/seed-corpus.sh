#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (git-ignored) with the committed hand-written seeds and the small
# fixtures of each format, decompressed. Small only: libFuzzer's default -max_len follows the
# largest seed, and every run parses every seed, so a 1 MB trace would slow each input a hundredfold.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")"
fixtures=../fixtures

seed() { # seed TARGET FILE...  (a .gz file is decompressed)
  local target=$1 f
  shift
  mkdir -p "corpus/$target"
  for f in "$@"; do
    case $f in
      *.gz) gzip -dc "$f" >"corpus/$target/$(basename "${f%.gz}")" ;;
      *) cp "$f" "corpus/$target/" ;;
    esac
  done
}

# Past crashes and hangs (fuzz/regressions/) are seeds too, so every run re-checks them.
for dir in seeds/*/ regressions/*/; do
  target=$(basename "$dir")
  seed "$target" "$dir"*
done
# A generated snapshot (bench/heapgen, 21 nodes): every node and edge type the big inputs use,
# edges across clusters and back up the tree.
cargo run --quiet --release --manifest-path ../bench/heapgen/Cargo.toml -- \
  corpus/heap_snapshot/generated.heapsnapshot --clusters 2 --mids 2 --leaves 1
seed trace "$fixtures/third-party/speedscope/Chrome-141-no-arg-data.json.gz"
seed cpuprofile "$fixtures/third-party/speedscope/node-10.11.0-example.cpuprofile.gz" \
  "$fixtures/selfprofile/mdn-example.exported.cpuprofile" "$fixtures/selfprofile/primes.exported.cpuprofile"
seed selfprofile "$fixtures/selfprofile/mdn-example.jsprofile.json" "$fixtures/selfprofile/primes.jsprofile.json"
seed detect "$fixtures/selfprofile/mdn-example.jsprofile.json" "$fixtures/heapprofile/tsc.heapprofile" \
  "$fixtures/selfprofile/mdn-example.exported.cpuprofile"
seed heapprofile "$fixtures/heapprofile/tsc.heapprofile"
# The lake's rows: every format `lake add` reads.
seed lake_rows "$fixtures/selfprofile/mdn-example.jsprofile.json" \
  "$fixtures/selfprofile/mdn-example.exported.cpuprofile" "$fixtures/heapprofile/tsc.heapprofile"
# An ingest post: query, user agent, Content-Length, then the trace (ingest_body.rs).
mkdir -p corpus/ingest_body
for f in mdn-example primes; do
  trace="$fixtures/selfprofile/$f.jsprofile.json"
  {
    printf 'key=k&page=%%2Fcart&release=1.4.0&label.tenant=acme\n'
    printf 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36\n'
    printf '%s\n' "$(wc -c <"$trace")"
    cat "$trace"
  } >"corpus/ingest_body/$f.post"
done
