#!/usr/bin/env bash
# Rebuilds the kernel corpus (corpus/src) into code objects:
#
#   <out>/<gfx>/NAME.O0.co, NAME.O3.co     for every src/NAME.cl (OpenCL C 2.0) and
#                                          src/NAME.hip (HIP, device-only), at -O0 and -O3,
#                                          for gfx in gfx1100 gfx942 gfx90a
#                                          (GFX11_ONLY below: gfx1100 only)
#   <out>/gfx1100/NAME.co                  for every src/NAME.s (llvm-mc gfx11 assembly,
#                                          built once)
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
TARGETS=(gfx1100 gfx942 gfx90a)
# gfx1100 only: sources that use gfx10+/gfx11-only builtins (permlanex16, permlane64,
# WMMA), and hip_wave64_shfl, whose reference is RDNA's half-wave ds_bpermute (GFX9's
# spans the whole wave64).
GFX11_ONLY=(dpp_row_reduce lane_permute wave_compact wmma_f32_f16 wmma_i32_iu8 hip_wmma_bf16
            hip_wave64_shfl)
for gfx in "${TARGETS[@]}"; do mkdir -p "$OUT/$gfx"; done
OUT="$(cd "$OUT" && pwd)"

CLANG=clang-19
LLD=ld.lld-19
MC=llvm-mc-19
COMMON=(-nogpulib -mcode-object-version=5 -fno-ident -ffile-prefix-map="$CORPUS_DIR"=.)
CL_FLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -cl-kernel-arg-info "${COMMON[@]}")
HIP_FLAGS=(-x hip -nogpuinc --cuda-device-only --no-gpu-bundle-output -std=c++17 "${COMMON[@]}")

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The per-file flags line, split into words (empty when the file has none).
file_flags() {
    sed -n 's/^\(\/\/\|;\) corpus-flags: //p' "$1" | head -n 1
}

cd "$CORPUS_DIR/src"
shopt -s nullglob
count=0
for gfx in "${TARGETS[@]}"; do
    for src in *.cl *.hip; do
        name="${src%.*}"
        if [[ "$gfx" != gfx1100 && " ${GFX11_ONLY[*]} " == *" $name "* ]]; then
            continue
        fi
        read -r -a extra <<< "$(file_flags "$src")"
        # GFX9 is wave64 only: a wave-size flag there is a no-op and clang warns of it.
        [[ "$gfx" == gfx9* ]] && extra=()
        for opt in O0 O3; do
            if [[ "$src" == *.cl ]]; then
                "$CLANG" "${CL_FLAGS[@]}" -mcpu="$gfx" "-$opt" "${extra[@]}" -c "$src" \
                    -o "$TMP/$name.$gfx.$opt.o"
                "$LLD" -shared --build-id=none "$TMP/$name.$gfx.$opt.o" -o "$OUT/$gfx/$name.$opt.co"
            else
                # HIP device-only compiles link the code object themselves (lld, no build id).
                "$CLANG" "${HIP_FLAGS[@]}" --offload-arch="$gfx" "-$opt" -cuid="$name" "${extra[@]}" \
                    -c "$src" -o "$OUT/$gfx/$name.$opt.co"
            fi
            count=$((count + 1))
        done
    done
done
GFX=gfx1100
for src in *.s; do
    name="${src%.s}"
    read -r -a extra <<< "$(file_flags "$src")"
    "$MC" -triple=amdgcn-amd-amdhsa -mcpu=$GFX -filetype=obj "${extra[@]}" "$src" -o "$TMP/$name.o"
    "$LLD" -shared --build-id=none "$TMP/$name.o" -o "$OUT/$GFX/$name.co"
    count=$((count + 1))
done
echo "built $count code objects into $OUT/{${TARGETS[*]}}"
