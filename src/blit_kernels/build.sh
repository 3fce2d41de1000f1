#!/usr/bin/env bash
# Rebuilds the facade's OpenCL kernels (blit.cl: dispatch_patch, copy_strided_u64) into one
# code object per target:
#   <out>/<gfx>/blit.co   for gfx in gfx1100 gfx942 gfx90a
# Usage: src/blit_kernels/build.sh [OUT_DIR]   (default: src/blit_kernels itself; the
# staleness test in crates/hsa/tests/code_object_stale.rs builds into a temporary one).
# Same fixed flags as kernels/build.sh (deterministic output); needs clang-19 and ld.lld-19.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$DIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
CFLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O3 -mcode-object-version=5 -cl-kernel-arg-info
        -fno-ident -ffile-prefix-map="$DIR"=.)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$DIR"
for gfx in gfx1100 gfx942 gfx90a; do
    mkdir -p "$OUT/$gfx"
    clang-19 "${CFLAGS[@]}" -mcpu="$gfx" -c blit.cl -o "$TMP/$gfx.o"
    ld.lld-19 -shared --build-id=none "$TMP/$gfx.o" -o "$OUT/$gfx/blit.co"
done
