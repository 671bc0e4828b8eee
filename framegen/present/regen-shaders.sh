#!/usr/bin/env bash
# Regenerates CRATE/spirv/*.spv from CRATE/shaders/*.comp with glslc, for a
# crate whose compute shaders need no includes (CRATE: framegen/present, the
# default, or runtime/titles, whose regen-shaders.sh calls this one). The
# SPIR-V is committed so the crate (and the console build) needs no glslc;
# each crate's test `spirv_is_current` fails when it is stale.
#   usage: framegen/present/regen-shaders.sh [--check] [CRATE_DIR]
#   --check: compile into a temporary folder and report stale files, change nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
command -v glslc >/dev/null || { echo "regen-shaders: glslc is missing (Debian package glslc)" >&2; exit 1; }
check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
crate="$(cd "${1:-$here}" && pwd)"
rel="${crate#"$root"/}"
out="$crate/spirv"
if [ $check = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
stale=0
for src in "$crate"/shaders/*.comp; do
  name=$(basename "$src" .comp)
  glslc -O --target-env=vulkan1.1 "$src" -o "$out/$name.spv"
  if [ $check = 1 ] && ! cmp -s "$out/$name.spv" "$crate/spirv/$name.spv"; then
    echo "stale: $rel/spirv/$name.spv (run ./x regen)" >&2
    stale=1
  fi
done
if [ $check = 1 ]; then
  [ $stale = 0 ] && echo "SPIR-V is current"
  exit $stale
fi
echo "regenerated $(ls "$crate"/spirv/*.spv | wc -l) SPIR-V module(s) in $rel/spirv/"
