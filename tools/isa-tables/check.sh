#!/usr/bin/env bash
# Fails (exit 1, printing the difference) when the checked-in opcode tables
# (the shared Op enum, gfx11's and GFX9's) differ from what generate.sh makes
# of llvm-mc-19's disassemblers.
# Usage: tools/isa-tables/check.sh   (needs llvm-mc-19, python3, rustfmt)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
src="$root/crates/isa/src"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$here/generate.sh" "$tmp"
status=0
for f in opcodes/op.rs gfx11/opcodes/tables.rs gfx11/opcodes/mimg_shapes.rs \
  gfx9/opcodes/gfx90a.rs gfx9/opcodes/gfx942.rs; do
  if ! diff -u "$src/$f" "$tmp/$f"; then
    echo "check.sh: crates/isa/src/$f is not what tools/isa-tables/generate.sh makes" >&2
    status=1
  fi
done
exit "$status"
