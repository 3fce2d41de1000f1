#!/usr/bin/env bash
# Rebuilds the kernel corpus (corpus/src) into gfx1100 code objects:
#
#   <out>/gfx1100/NAME.O0.co, NAME.O3.co   for every src/NAME.cl (OpenCL C 2.0) and
#                                          src/NAME.hip (HIP, device-only), at -O0 and -O3
#   <out>/gfx1100/NAME.co                  for every src/NAME.s (llvm-mc assembly, built once)
#
# Each source holds one kernel named like its file. A line "// corpus-flags: ..." (or
# "; corpus-flags: ..." in assembly) adds compiler flags for that file only (e.g.
# -mwavefrontsize64). Kernels are built without any device library (-nogpulib, and
# -nogpuinc for HIP): src/corpus_cl.h and src/corpus_hip.h spell what they need with
# AMDGPU builtins.
#
# Usage: corpus/build.sh [OUT_DIR]   (default: the corpus/ directory itself)
# Needs clang-19, ld.lld-19 and llvm-mc-19. The output is deterministic: sources are
# compiled by relative path from corpus/src, no debug info, no build ids, no ident,
# and a fixed HIP compilation-unit id (-cuid) per file.
set -euo pipefail

CORPUS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$CORPUS_DIR}"
mkdir -p "$OUT/gfx1100"
OUT="$(cd "$OUT" && pwd)"

CLANG=clang-19
LLD=ld.lld-19
MC=llvm-mc-19
GFX=gfx1100
COMMON=(-nogpulib -mcode-object-version=5 -fno-ident -ffile-prefix-map="$CORPUS_DIR"=.)
CL_FLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$GFX -cl-kernel-arg-info "${COMMON[@]}")
HIP_FLAGS=(-x hip --offload-arch=$GFX -nogpuinc --cuda-device-only --no-gpu-bundle-output -std=c++17
           "${COMMON[@]}")

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The per-file flags line, split into words (empty when the file has none).
file_flags() {
    sed -n 's/^\(\/\/\|;\) corpus-flags: //p' "$1" | head -n 1
}

cd "$CORPUS_DIR/src"
shopt -s nullglob
count=0
for src in *.cl *.hip; do
    name="${src%.*}"
    read -r -a extra <<< "$(file_flags "$src")"
    for opt in O0 O3; do
        if [[ "$src" == *.cl ]]; then
            "$CLANG" "${CL_FLAGS[@]}" "-$opt" "${extra[@]}" -c "$src" -o "$TMP/$name.$opt.o"
            "$LLD" -shared --build-id=none "$TMP/$name.$opt.o" -o "$OUT/$GFX/$name.$opt.co"
        else
            # HIP device-only compiles link the code object themselves (lld, no build id).
            "$CLANG" "${HIP_FLAGS[@]}" "-$opt" -cuid="$name" "${extra[@]}" -c "$src" \
                -o "$OUT/$GFX/$name.$opt.co"
        fi
        count=$((count + 1))
    done
done
for src in *.s; do
    name="${src%.s}"
    read -r -a extra <<< "$(file_flags "$src")"
    "$MC" -triple=amdgcn-amd-amdhsa -mcpu=$GFX -filetype=obj "${extra[@]}" "$src" -o "$TMP/$name.o"
    "$LLD" -shared --build-id=none "$TMP/$name.o" -o "$OUT/$GFX/$name.co"
    count=$((count + 1))
done
echo "built $count code objects into $OUT/$GFX"
