#!/usr/bin/env bash
# Rebuilds the facade tests' own kernels (tests/kernels/src/*.cl) into gfx1100
# code objects: tests/kernels/gfx1100/<name>.co. Same flags as kernels/build.sh
# (deterministic: relative paths, no ident, no build id). Needs clang-19 and
# ld.lld-19. An optional argument names another output root (the staleness
# test in crates/hsa/tests/code_object_stale.rs builds into a temporary one).
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$DIR}"
INCLUDE="$(cd "$DIR/../../kernels/src" && pwd)"
KERNELS=(dynamic_lds fault_at faults stress)
CFLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O3 -mcode-object-version=5 -cl-kernel-arg-info
        -fno-ident -ffile-prefix-map="$DIR"=. -I "$INCLUDE")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cd "$DIR/src"
mkdir -p "$OUT/gfx1100"
for k in "${KERNELS[@]}"; do
    clang-19 "${CFLAGS[@]}" -mcpu=gfx1100 -c "$k.cl" -o "$TMP/$k.o"
    ld.lld-19 -shared --build-id=none "$TMP/$k.o" -o "$OUT/gfx1100/$k.co"
done
