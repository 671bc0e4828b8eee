#!/usr/bin/env bash
# Regenerates the demo title's generated files (`./x regen` runs this):
#   guest/demo.elf   the PS3 executable, built from guest/demo.c by the
#                    guest SDK's ps3cc
#   lifted/*/        its lifted Rust (ppu-lift, as `./x recomp` lifts)
# The test tests/lift_current.rs checks that both are current.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
say() { printf '\033[1mdemo regen:\033[0m %s\n' "$*" >&2; }

say "building guest/demo.elf with ps3cc"
(cd "$HERE/guest" && "$ROOT/runtime/guest-sdk/ps3cc" -O2 -o "$TMP/demo.elf" demo.c)
say "lifting it (recomp lift)"
(cd "$ROOT" && cargo run -q --release -p recomp -- lift "$TMP/demo.elf" --work "$TMP/work" --quiet)
rm -rf "$HERE"/lifted/demo-elf-lifted-*
for d in "$TMP"/work/lifted/demo-elf-lifted-*; do
  cp -r "$d" "$HERE/lifted/"
  # The generator writes absolute paths; the committed crate uses the
  # repository's relative one.
  sed -i 's|^recomp-rt = { path = ".*" }$|recomp-rt = { path = "../../../recomp/rt" }|' "$HERE/lifted/$(basename "$d")/Cargo.toml"
done
cp "$TMP/demo.elf" "$HERE/guest/demo.elf"
say "wrote guest/demo.elf ($(stat -c %s "$HERE/guest/demo.elf") bytes) and $(ls -d "$HERE"/lifted/demo-elf-lifted-* | wc -l) lifted crate(s)"
