#!/usr/bin/env bash
# Builds the image test kernels (*.ll here) into gfx1100 code objects
# (gfx1100/NAME.co) with clang-19 / ld.lld-19, as crates/isa/tests/isa_exec.rs
# loads them. Deterministic: no debug info, no build id, no ident.
# Usage: kernels/image/build.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
mkdir -p gfx1100
for f in *.ll; do
  n="$(basename "$f" .ll)"
  clang-19 -x ir -target amdgcn-amd-amdhsa -mcpu=gfx1100 -nogpulib -O3 -mcode-object-version=5 \
    -fno-ident -c "$f" -o "/tmp/$n.$$.o"
  ld.lld-19 -shared --build-id=none "/tmp/$n.$$.o" -o "gfx1100/$n.co"
  rm -f "/tmp/$n.$$.o"
done
