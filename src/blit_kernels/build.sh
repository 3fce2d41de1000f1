#!/usr/bin/env bash
# Rebuilds the facade's OpenCL kernels (blit.cl: dispatch_patch, write_timestamp) into one code object per target:
#   src/blit_kernels/<gfx>/blit.co   for gfx in gfx1100 gfx942 gfx90a
# Same fixed flags as kernels/build.sh; needs clang-19 and ld.lld-19.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CFLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O3 -mcode-object-version=5 -cl-kernel-arg-info
        -fno-ident -ffile-prefix-map="$DIR"=.)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$DIR"
for gfx in gfx1100 gfx942 gfx90a; do
    mkdir -p "$DIR/$gfx"
    clang-19 "${CFLAGS[@]}" -mcpu="$gfx" -c blit.cl -o "$TMP/$gfx.o"
    ld.lld-19 -shared --build-id=none "$TMP/$gfx.o" -o "$DIR/$gfx/blit.co"
done
