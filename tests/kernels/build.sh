#!/usr/bin/env bash
# Rebuilds the facade tests' own kernels (tests/kernels/src/*.cl) into code
# objects for every target gfxsim simulates: tests/kernels/<gfx>/<name>.co for
# gfx1100, gfx942 and gfx90a (the facade suite runs on each). Same flags as kernels/build.sh
# (deterministic: relative paths, no ident, no build id). Needs clang-19 and
# ld.lld-19. An optional argument names another output root (the staleness
# test in crates/hsa/tests/code_object_stale.rs builds into a temporary one).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$DIR}"
INCLUDE="$(cd "$DIR/../../kernels/src" && pwd)"
KERNELS=(dynamic_lds fault_at faults stress)
TARGETS=(gfx1100 gfx942 gfx90a)
CFLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O3 -mcode-object-version=5 -cl-kernel-arg-info
        -fno-ident -ffile-prefix-map="$DIR"=. -I "$INCLUDE")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cd "$DIR/src"
for gfx in "${TARGETS[@]}"; do
    mkdir -p "$OUT/$gfx"
    for k in "${KERNELS[@]}"; do
        clang-19 "${CFLAGS[@]}" -mcpu="$gfx" -c "$k.cl" -o "$TMP/$k.o"
        ld.lld-19 -shared --build-id=none "$TMP/$k.o" -o "$OUT/$gfx/$k.co"
    done
done
