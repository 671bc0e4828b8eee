#!/usr/bin/env bash
# Regenerates runtime/titles/spirv/*.spv from runtime/titles/shaders/*.comp
# with glslc (framegen/present's script does the work). The SPIR-V is
# committed so the crate builds without glslc; the test `spirv_is_current`
# (tests/scene.rs) fails when it is stale.
#   usage: runtime/titles/regen-shaders.sh [--check]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../framegen/present/regen-shaders.sh" "$@" "$here"
