#!/usr/bin/env bash
# Regenerates runtime/titles/spirv/*.spv from runtime/titles/shaders/*.comp
# with glslc. The SPIR-V is committed so the crate builds without glslc;
# the test `spirv_is_current` (tests/scene.rs) fails when it
# is stale.
#   usage: runtime/titles/regen-shaders.sh [--check]
#   --check: compile into a temporary folder and report stale files, change nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v glslc >/dev/null || { echo "regen-shaders: glslc is missing (Debian package glslc)" >&2; exit 1; }
check=0
out="$here/spirv"
if [ "${1:-}" = --check ]; then
  check=1
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
stale=0
for src in "$here"/shaders/*.comp; do
  name=$(basename "$src" .comp)
  glslc -O --target-env=vulkan1.1 "$src" -o "$out/$name.spv"
  if [ $check = 1 ] && ! cmp -s "$out/$name.spv" "$here/spirv/$name.spv"; then
    echo "stale: runtime/titles/spirv/$name.spv (run ./x regen)" >&2
    stale=1
  fi
done
if [ $check = 1 ]; then
  [ $stale = 0 ] && echo "SPIR-V is current"
  exit $stale
fi
echo "regenerated $(ls "$here"/spirv/*.spv | wc -l) SPIR-V module(s) in runtime/titles/spirv/"
