#!/usr/bin/env bash
# Builds the image test kernels (*.ll here) into gfx1100 code objects
# (OUT_DIR/gfx1100/NAME.co) with clang-19 / ld.lld-19; crates/isa/tests
# (image_exec) and crates/gfxsim/tests/images.rs load them, and image_exec
# checks the checked-in objects against a fresh build when the tools exist.
# Deterministic: no debug info, no build id, no ident.
# Usage: kernels/image/build.sh [OUT_DIR]   (default: kernels/image itself)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
OUT="${1:-.}"
mkdir -p "$OUT/gfx1100"
for f in *.ll; do
  n="$(basename "$f" .ll)"
  clang-19 -x ir -target amdgcn-amd-amdhsa -mcpu=gfx1100 -nogpulib -O3 -mcode-object-version=5 \
    -fno-ident -c "$f" -o "/tmp/$n.$$.o"
  ld.lld-19 -shared --build-id=none "/tmp/$n.$$.o" -o "$OUT/gfx1100/$n.co"
  rm -f "/tmp/$n.$$.o"
done
