#!/usr/bin/env bash
# Regenerates framegen/spirv/*.spv from framegen/shaders/*.comp with glslc,
# and the test module framegen/tests/data/*.spv from its .comp.
# The SPIR-V is committed so that the crate builds without glslc; the test
# `spirv_is_current` (tests/shaders.rs) fails when it is stale.
#   usage: framegen/regen-shaders.sh [--check]
#   --check: compile into a temporary folder and report stale files, change nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v glslc >/dev/null || { echo "regen-shaders: glslc is missing (Debian package glslc)" >&2; exit 1; }
out=""
check=0
if [ "${1:-}" = --check ]; then
  check=1
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
stale=0
# compile SRC DEST_DIR REL_DEST_DIR
compile() {
  local src=$1 dir=$2 rel=$3 name
  name=$(basename "$src" .comp)
  local dest="$dir/$name.spv"
  [ $check = 1 ] && dest="$out/$name.spv"
  glslc -O --target-env=vulkan1.1 -I "$here/shaders" "$src" -o "$dest"
  if [ $check = 1 ] && ! cmp -s "$dest" "$dir/$name.spv"; then
    echo "stale: framegen/$rel/$name.spv (run ./x regen)" >&2
    stale=1
  fi
}
for src in "$here"/shaders/*.comp; do compile "$src" "$here/spirv" spirv; done
for src in "$here"/tests/data/*.comp; do compile "$src" "$here/tests/data" tests/data; done
if [ $check = 1 ]; then
  [ $stale = 0 ] && echo "SPIR-V is current"
  exit $stale
fi
echo "regenerated $(ls "$here"/spirv/*.spv | wc -l) SPIR-V modules in framegen/spirv/ and the test module in framegen/tests/data/"
