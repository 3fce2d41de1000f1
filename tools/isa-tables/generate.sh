#!/usr/bin/env bash
# Generates the gfx11 opcode tables (tables.rs, mimg_shapes.rs) from
# llvm-mc-19's gfx1100 disassembler and formats them with rustfmt.
# Usage: tools/isa-tables/generate.sh [DIR]
#   DIR: where to write them (default: crates/isa/src/gfx11/opcodes).
# Needs llvm-mc-19, python3 and rustfmt.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/crates/isa/src/gfx11/opcodes}"
mkdir -p "$out"
# The two generators are independent: run them side by side.
python3 "$here/generate.py" > "$out/tables.rs.tmp" &
tables=$!
python3 "$here/generate_mimg.py" > "$out/mimg_shapes.rs.tmp"
wait "$tables"
for f in tables mimg_shapes; do
  rustfmt --edition 2024 < "$out/$f.rs.tmp" > "$out/$f.rs"
  rm "$out/$f.rs.tmp"
done
