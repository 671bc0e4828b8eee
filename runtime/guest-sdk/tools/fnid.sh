#!/usr/bin/env bash
# Prints the PS3 FNID of each function name given: the first 4 bytes of
# SHA-1(name || 67 59 65 99 04 25 04 90 56 64 27 49 94 89 74 1A) read as a
# little-endian u32 (../../shared/FACTS.md), as 0xXXXXXXXX.
#   tools/fnid.sh sys_process_exit     ->  0xE6F2C1E7
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: fnid.sh NAME..." >&2; exit 2; }
for name in "$@"; do
  hex=$({ printf '%s' "$name"; printf '\147\131\145\231\004\045\004\220\126\144\047\111\224\211\164\032'; } |
    sha1sum | cut -c1-8)
  printf '0x%s%s%s%s\n' "${hex:6:2}" "${hex:4:2}" "${hex:2:2}" "${hex:0:2}" | tr 'a-f' 'A-F' | sed 's/^0X/0x/'
done
