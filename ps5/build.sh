#!/usr/bin/env bash
# Builds the PS5 payload (`./x ps5` and `./x test` call this) and prints its
# path on standard output; progress goes to standard error.
#
#   ps5/build.sh [--vulkan-driver LIB.a] [--debug]
#   ps5/build.sh --clippy     lint the console-only code (clippy of the pinned
#                             nightly for the PS5 target; ./x test runs it)
#
# Steps (targets/README.md explains each choice):
#  1. the host tool ps5-tool (stable toolchain);
#  2. the stub libraries from ps5/sysmap.txt: sources by ps5-tool, objects by
#     rustc, shared objects by rust-lld;
#  3. the payload: the pinned nightly, -Z build-std, the target
#     targets/x86_64-sony-ps5.json, the linker script targets/ps5-payload.ld;
#  4. <target dir>/ps5/cellport-ps5.elf (what to send: debug info stripped)
#     and cellport-ps5.debug.elf (the same with line tables, for addr2line).
#
# Environment: PS5_NIGHTLY (default: the one pinned in ./x), CARGO_TARGET_DIR,
# PS5_VULKAN_DRIVER (same as --vulkan-driver).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '\033[1mps5:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mps5: error:\033[0m %s\n' "$*" >&2; exit 1; }

NIGHTLY="${PS5_NIGHTLY:-$(sed -n 's/^PS5_NIGHTLY="\(.*\)"/\1/p' "$ROOT/x")}"
[ -n "$NIGHTLY" ] || die "no pinned nightly (PS5_NIGHTLY in ./x)"
TARGET_JSON="$ROOT/targets/x86_64-sony-ps5.json"
LINKER_SCRIPT="$ROOT/targets/ps5-payload.ld"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/ps5"
STUBS="$OUT/stubs"
PROFILE=release
CLIPPY=0
VULKAN_DRIVER="${PS5_VULKAN_DRIVER:-}"

while [ $# -gt 0 ]; do
  case "$1" in
    --vulkan-driver) VULKAN_DRIVER="${2:?--vulkan-driver needs a static library}"; shift 2 ;;
    --debug) PROFILE=dev; shift ;;
    --clippy) CLIPPY=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see ps5/build.sh --help)" ;;
  esac
done

rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1 ||
  die "Rust $NIGHTLY is not installed: run ./x ps5 (it installs it)"
SYSROOT="$(rustup run "$NIGHTLY" rustc --print sysroot)"
[ -d "$SYSROOT/lib/rustlib/src/rust/library" ] ||
  die "Rust $NIGHTLY lacks rust-src: rustup component add rust-src --toolchain $NIGHTLY"
HOST="$(rustup run "$NIGHTLY" rustc -vV | sed -n 's/^host: //p')"
LLD="$SYSROOT/lib/rustlib/$HOST/bin/rust-lld"
OBJCOPY="$SYSROOT/lib/rustlib/$HOST/bin/rust-objcopy"
[ -x "$LLD" ] || die "no rust-lld in $SYSROOT"

BUILD_STD=(-Z json-target-spec -Z build-std=std,panic_abort -Z build-std-features=compiler-builtins-mem)

if [ "$CLIPPY" = 1 ]; then
  if ! rustup component list --installed --toolchain "$NIGHTLY" 2>/dev/null | grep -q '^clippy'; then
    [ "${X_NO_INSTALL:-0}" = 1 ] && die "Rust $NIGHTLY lacks clippy (X_NO_INSTALL=1)"
    say "installing clippy for Rust $NIGHTLY"
    rustup component add clippy --toolchain "$NIGHTLY" >&2 || die "could not install clippy for $NIGHTLY"
  fi
  say "clippy of the console code (ps5 only; its dependencies are linted on the host)"
  # A target dir of its own: clippy's check artifacts would invalidate the build's.
  CARGO_TARGET_DIR="$TARGET_DIR/ps5-clippy" cargo "+$NIGHTLY" clippy -q -p ps5 --no-deps --all-targets \
    --target "$TARGET_JSON" "${BUILD_STD[@]}" -- -D warnings
  exit
fi

# 1. The host tool.
say "building ps5-tool"
# (The dev profile: ./x test builds the same artifacts for its tests next.)
cargo build -q -p ps5 --bin ps5-tool
TOOL="$TARGET_DIR/debug/ps5-tool"

# 2. Stub libraries.
mkdir -p "$STUBS/src"
"$TOOL" stubs "$STUBS/src"
cp -f "$STUBS"/src/lib*.so "$STUBS/"
LINK_ARGS=()
while read -r stem soname; do
  src="$STUBS/src/$stem.rs" ver="$STUBS/src/$stem.ver" so="$STUBS/$stem.so"
  if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$ver" -nt "$so" ] || ! cmp -s "$src" "$STUBS/$stem.rs.built"; then
    rustup run "$NIGHTLY" rustc --edition 2024 --crate-type lib --emit obj -C panic=abort \
      --target "$HOST" -o "$STUBS/$stem.o" "$src"
    "$LLD" -flavor gnu -shared -soname "$soname" --version-script "$ver" -o "$so" "$STUBS/$stem.o"
    cp -f "$src" "$STUBS/$stem.rs.built"
  fi
  LINK_ARGS+=(-C "link-arg=$so")
done <"$STUBS/src/modules.txt"
say "stub libraries: $(cut -d' ' -f2 "$STUBS/src/modules.txt" | tr '\n' ' ')"

if [ -n "$VULKAN_DRIVER" ]; then
  [ -f "$VULKAN_DRIVER" ] || die "--vulkan-driver: $VULKAN_DRIVER does not exist"
  # The payload's reference is weak, which does not pull an archive member.
  LINK_ARGS+=(-C "link-arg=--undefined=vkGetInstanceProcAddr" -C "link-arg=$VULKAN_DRIVER")
  say "linking the Vulkan driver $VULKAN_DRIVER"
fi

# The title id the payload looks for its param.json with.
if [ -f "$ROOT/sce_sys/param.json" ]; then
  CELLPORT_TITLE_ID="$("$TOOL" title-id "$ROOT/sce_sys/param.json")" ||
    die "sce_sys/param.json: cannot read its titleId"
  export CELLPORT_TITLE_ID
fi

# C code in dependencies (zstd) is compiled with the host's C compiler as
# position-independent x86-64 for Zen 2, without asserts, zstd's weak trace
# hooks, stack protector or
# fortify (their helpers are glibc's, which the console lacks).
export CC_x86_64_sony_ps5="${CC_x86_64_sony_ps5:-${CC:-cc}}"
export CFLAGS_x86_64_sony_ps5="${CFLAGS_x86_64_sony_ps5:--O2 -fPIC -march=znver2 -DNDEBUG -DZSTD_NO_TRACE -fno-stack-protector -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0}"

# 3. The payload.
say "building the payload with Rust $NIGHTLY (build-std; the first build takes a few minutes)"
# CARGO_ENCODED_RUSTFLAGS (flags separated by 0x1f) keeps paths with spaces whole.
FLAGS=(-C "link-arg=-T$LINKER_SCRIPT" -L "native=$STUBS" "${LINK_ARGS[@]}")
CARGO_ENCODED_RUSTFLAGS="$(IFS=$'\x1f'; echo "${FLAGS[*]}")"
export CARGO_ENCODED_RUSTFLAGS
unset RUSTFLAGS
LOG="$OUT/build.log"
mkdir -p "$OUT"
if ! cargo "+$NIGHTLY" build --profile "$PROFILE" -p ps5 --bin cellport-ps5 \
  --target "$TARGET_JSON" "${BUILD_STD[@]}" 2>"$LOG"; then
  grep -v '^\s*Compiling' "$LOG" >&2 || true
  if grep -q 'undefined symbol:' "$LOG"; then
    printf '\n' >&2
    say "the payload uses library functions ps5/sysmap.txt does not list:"
    grep -o 'undefined symbol: [^ ]*' "$LOG" | sort -u | sed 's/^/  /' >&2
    say "add each under the console module that exports it (ps5/sysmap.txt says how)"
  fi
  die "the payload build failed (full log: $LOG)"
fi

# 4. The files to send and to debug with.
dir=release
[ "$PROFILE" = dev ] && dir=debug
BUILT="$TARGET_DIR/x86_64-sony-ps5/$dir/cellport-ps5"
cp -f "$BUILT" "$OUT/cellport-ps5.debug.elf"
LD_LIBRARY_PATH="$SYSROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$OBJCOPY" --strip-debug "$BUILT" "$OUT/cellport-ps5.elf"

"$TOOL" imports "$OUT/cellport-ps5.elf" >"$OUT/imports.txt"
if ! cmp -s "$OUT/imports.txt" "$ROOT/ps5/imports.txt"; then
  say "warning: the payload's imports differ from ps5/imports.txt (see ./x ps5 imports; update with ./x ps5 imports --update)"
fi
say "built $(stat -c %s "$OUT/cellport-ps5.elf") bytes; send it with: socat -t 3600 - TCP:<console-ip>:9021 < $OUT/cellport-ps5.elf"
echo "$OUT/cellport-ps5.elf"
