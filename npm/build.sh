#!/usr/bin/env bash
# The npm packages for this machine: a release build of jsprof (or --binary), its platform
# package (@jsprof/<platform>) and the main package `jsprof`, as tarballs made by `npm pack`.
# Prints the tarballs' paths, the platform package's first. Install both to try them:
#
#   npm install --no-save target/npm/jsprof-linux-x64-gnu-0.1.0.tgz target/npm/jsprof-0.1.0.tgz
#
# The release workflow (.github/workflows/release.yml) makes the other platforms' packages with
# the same generator (npm/pack.mjs).
set -euo pipefail

usage() {
  cat <<'EOF'
usage: npm/build.sh [--binary PATH] [--out DIR] [--profile NAME]
  --binary PATH   package this jsprof binary instead of building one
  --out DIR       where the tarballs go (default: target/npm)
  --profile NAME  the cargo profile to build with (default: dist), as
                  cargo build --profile NAME -p jsprof --features lake
                  (dist on x86-64 Linux with glibc: a position-dependent
                  executable, built under target/x86_64-unknown-linux-gnu/)
EOF
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
binary=""
out="$root/target/npm"
profile="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
    --binary=*) binary="${1#*=}"; shift ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --profile) profile="${2:?--profile needs a name}"; shift 2 ;;
    --profile=*) profile="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "npm/build.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "npm/build.sh: $tool is not installed (Node 18 or newer)" >&2; exit 2; }
done

# The packages carry the workspace's version (Cargo.toml's [workspace.package]).
version="$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml")"
[ -n "$version" ] || { echo "npm/build.sh: no version in $root/Cargo.toml's [workspace.package]" >&2; exit 2; }

# This machine as the packages name it, by the same code the installed shim uses to pick one.
key="$(node -e 'process.stdout.write(require(process.argv[1]).hostKey())' "$here/jsprof/lib/binary.js")"

if [ -z "$binary" ]; then
  target_flags=()
  triple_dir=""
  # On x86-64 Linux with glibc, the published binary is a position-dependent executable: a PIE
  # carries a relocation for every pointer in its read-only tables (vtables, string tables), 2.3
  # MB of `.rela.dyn` in this one, which a fixed load address does without. rustc links without
  # -pie by itself under the static relocation model. The flags go to the target only (hence the
  # explicit --target, which builds under target/<triple>/): build scripts and proc-macros, which
  # are loaded as shared objects, stay position-independent. The release workflow does the same.
  if [ "$profile" = dist ] && [ "$key" = linux-x64-gnu ]; then
    triple=x86_64-unknown-linux-gnu
    target_flags=(--target "$triple")
    triple_dir="$triple/"
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C relocation-model=static"
  fi
  (cd "$root" && cargo build --profile "$profile" -p jsprof --features lake "${target_flags[@]}") >&2
  case "$profile" in
    dev | test) dir=debug ;;
    release | bench) dir=release ;;
    *) dir="$profile" ;;
  esac
  exe=""
  case "$key" in win32-*) exe=".exe" ;; esac
  binary="${CARGO_TARGET_DIR:-$root/target}/$triple_dir$dir/jsprof$exe"
fi
[ -f "$binary" ] || { echo "npm/build.sh: $binary: no such binary" >&2; exit 2; }

mkdir -p "$out"
node "$here/pack.mjs" --key "$key" --binary "$binary" --version "$version" --out "$out"
