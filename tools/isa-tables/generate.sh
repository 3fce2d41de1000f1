#!/usr/bin/env bash
# Generates the opcode tables from llvm-mc-19's disassemblers and formats
# them with rustfmt: the shared Op enum (opcodes/op.rs), the gfx11 tables
# (gfx11/opcodes/tables.rs, mimg_shapes.rs) and the GFX9 ones
# (gfx9/opcodes/gfx90a.rs, gfx942.rs).
# Usage: tools/isa-tables/generate.sh [DIR]
#   DIR: the source root to write them under (default: crates/isa/src).
# Needs llvm-mc-19, python3 and rustfmt.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/crates/isa/src}"
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
mkdir -p "$raw/gfx11/opcodes"
# The two generators are independent: run them side by side.
python3 "$here/generate.py" "$raw" &
tables=$!
python3 "$here/generate_mimg.py" > "$raw/gfx11/opcodes/mimg_shapes.rs"
wait "$tables"
for f in opcodes/op.rs gfx11/opcodes/tables.rs gfx11/opcodes/mimg_shapes.rs \
  gfx9/opcodes/gfx90a.rs gfx9/opcodes/gfx942.rs; do
  mkdir -p "$(dirname "$out/$f")"
  rustfmt --edition 2024 < "$raw/$f" > "$out/$f"
done
