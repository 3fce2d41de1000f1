#!/usr/bin/env bash
# Fails (exit 1, printing the difference) when the checked-in gfx11 opcode
# tables differ from what generate.sh makes of llvm-mc-19's disassembler.
# Usage: tools/isa-tables/check.sh   (needs llvm-mc-19, python3, rustfmt)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tables="$root/crates/isa/src/gfx11/opcodes"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$here/generate.sh" "$tmp"
status=0
for f in tables.rs mimg_shapes.rs; do
  if ! diff -u "$tables/$f" "$tmp/$f"; then
    echo "check.sh: crates/isa/src/gfx11/opcodes/$f is not what tools/isa-tables/generate.sh makes" >&2
    status=1
  fi
done
exit "$status"
