#!/usr/bin/env bash
# Rebuilds Aqueduct's test kernels (kernels/src/*.cl) into AMDGPU code objects,
# one per kernel per target, plus offload bundles of saxpy and vector_copy:
#
#   <out>/<gfx>/<name>.co        for gfx in gfx1100 gfx942 gfx90a (the
#                                GFX11_KERNELS for gfx1100 only)
#                                (the GFX9_KERNELS for gfx942 and gfx90a only,
#                                the GFX942_KERNELS for gfx942 only)
#   <out>/<gfx>/multi.co         vector_copy + saxpy + fill3d linked together
#   <out>/<gfx>/<hip>.co         for every HIP kernel file (kernels/src/*.hip), device only
#   <out>/bundles/saxpy.bundle       uncompressed clang offload bundle (3 targets + host)
#   <out>/bundles/vector_copy.bundle the same for vector_copy (the readback example's kernel)
#   <out>/bundles/saxpy.zstd.bundle  compressed (CCOB v2, zstd), by clang-offload-bundler
#   <out>/bundles/saxpy.zlib.bundle  compressed (CCOB v2, zlib); LLVM 19's bundler always
#                                    picks zstd when it has it, so this one is written by
#                                    the python3 snippet below in the same format, and is
#                                    checked by unbundling it with clang-offload-bundler.
#
# Usage: kernels/build.sh [OUT_DIR]   (default: the kernels/ directory itself)
# Needs clang-19, ld.lld-19, clang-offload-bundler-19 and python3.
# The output is deterministic: sources are compiled by relative path from
# kernels/src (the only path that lands in the objects, as the STT_FILE symbol),
# no debug info, no build ids, fixed compression levels.
set -euo pipefail

KERNELS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$KERNELS_DIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

CLANG=clang-19
LLD=ld.lld-19
BUNDLER=clang-offload-bundler-19
TARGETS=(gfx1100 gfx942 gfx90a)
KERNELS=(vector_copy saxpy reduce_lds histogram histogram_global matmul_tiled sqrt_exp_loop
         fill2d fill3d oob_write empty lookup_table write_timestamp group_scan
         lds_uninit lds_race divergent_barrier scalar_overrun global_race private_overrun)
# Kernels written with gfx11 instructions in inline assembly (MUBUF, MTBUF,
# s_buffer_load, global_store_addtid): built for gfx1100 only.
GFX11_KERNELS=(buffer_overrun addtid_overrun typed_buffer_overrun)
# Kernels of GFX9-only instructions (matrix cores, GFX9 buffer resources): built
# for gfx942 and gfx90a.
GFX9_KERNELS=(mfma gfx9_buffer_overrun packed_const)
# Kernels reading gfx942-only hardware registers (HW_REG_XCC_ID) or exercising its
# per-XCC L2s: built for gfx942.
GFX942_KERNELS=(xcc_id xcc_handoff)
# HIP sources (device code only, no ROCm headers: -nogpuinc; a fixed -cuid keeps the
# output deterministic).
HIP_KERNELS=(reverse_blocks)
HIPFLAGS=(-x hip -nogpuinc -nogpulib --cuda-device-only --no-gpu-bundle-output -std=c++17 -O3
          -mcode-object-version=5 -fno-ident -ffile-prefix-map="$KERNELS_DIR"=.)
MULTI=(vector_copy saxpy fill3d)
# Fixed compile flags (code object v5 is clang-19's default; spelled out to stay fixed).
CFLAGS=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib -O3 -mcode-object-version=5 -cl-kernel-arg-info
        -fno-ident -ffile-prefix-map="$KERNELS_DIR"=.)

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

cd "$KERNELS_DIR/src"
for gfx in "${TARGETS[@]}"; do
    mkdir -p "$OUT/$gfx" "$TMP/$gfx"
    for k in "${KERNELS[@]}"; do
        "$CLANG" "${CFLAGS[@]}" -mcpu="$gfx" -c "$k.cl" -o "$TMP/$gfx/$k.o"
        "$LLD" -shared --build-id=none "$TMP/$gfx/$k.o" -o "$OUT/$gfx/$k.co"
    done
    if [ "$gfx" = gfx1100 ]; then
        for k in "${GFX11_KERNELS[@]}"; do
            "$CLANG" "${CFLAGS[@]}" -mcpu="$gfx" -c "$k.cl" -o "$TMP/$gfx/$k.o"
            "$LLD" -shared --build-id=none "$TMP/$gfx/$k.o" -o "$OUT/$gfx/$k.co"
        done
    fi
    if [ "$gfx" != gfx1100 ]; then
        for k in "${GFX9_KERNELS[@]}"; do
            "$CLANG" "${CFLAGS[@]}" -mcpu="$gfx" -c "$k.cl" -o "$TMP/$gfx/$k.o"
            "$LLD" -shared --build-id=none "$TMP/$gfx/$k.o" -o "$OUT/$gfx/$k.co"
        done
    fi
    if [ "$gfx" = gfx942 ]; then
        for k in "${GFX942_KERNELS[@]}"; do
            "$CLANG" "${CFLAGS[@]}" -mcpu="$gfx" -c "$k.cl" -o "$TMP/$gfx/$k.o"
            "$LLD" -shared --build-id=none "$TMP/$gfx/$k.o" -o "$OUT/$gfx/$k.co"
        done
    fi
    multi_objs=()
    for k in "${MULTI[@]}"; do multi_objs+=("$TMP/$gfx/$k.o"); done
    "$LLD" -shared --build-id=none "${multi_objs[@]}" -o "$OUT/$gfx/multi.co"
    for k in "${HIP_KERNELS[@]}"; do
        "$CLANG" "${HIPFLAGS[@]}" --offload-arch="$gfx" -cuid="$k" -c "$k.hip" -o "$OUT/$gfx/$k.co"
    done
done

mkdir -p "$OUT/bundles"
: > "$TMP/host.o"
bundle_targets="host-x86_64-unknown-linux-gnu"
for gfx in "${TARGETS[@]}"; do
    bundle_targets+=",hipv4-amdgcn-amd-amdhsa--$gfx"
done
for k in saxpy vector_copy; do
    bundle_inputs=("--input=$TMP/host.o")
    for gfx in "${TARGETS[@]}"; do
        bundle_inputs+=("--input=$OUT/$gfx/$k.co")
    done
    "$BUNDLER" -type=o -targets="$bundle_targets" "${bundle_inputs[@]}" \
        --output="$OUT/bundles/$k.bundle"
done
bundle_inputs=("--input=$TMP/host.o")
for gfx in "${TARGETS[@]}"; do
    bundle_inputs+=("--input=$OUT/$gfx/saxpy.co")
done
OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1 "$BUNDLER" -type=o -targets="$bundle_targets" "${bundle_inputs[@]}" \
    -compress -compression-level=19 --output="$OUT/bundles/saxpy.zstd.bundle"

# CCOB v2 header (little-endian): 'CCOB', u16 version=2, u16 method (0 = zlib,
# 1 = zstd), u32 total file size, u32 uncompressed size, u64 = first 8 bytes of
# the MD5 of the uncompressed bundle read as little-endian; then the payload.
python3 - "$OUT/bundles/saxpy.bundle" "$OUT/bundles/saxpy.zlib.bundle" <<'PY'
import hashlib, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
payload = zlib.compress(data, 9)
digest = struct.unpack("<Q", hashlib.md5(data).digest()[:8])[0]
header = b"CCOB" + struct.pack("<HHIIQ", 2, 0, 24 + len(payload), len(data), digest)
open(sys.argv[2], "wb").write(header + payload)
PY

# Every compressed bundle must unbundle (with the LLVM tool) to the same objects.
for kind in zstd zlib; do
    for gfx in "${TARGETS[@]}"; do
        "$BUNDLER" -type=o -unbundle -targets="hipv4-amdgcn-amd-amdhsa--$gfx" \
            --input="$OUT/bundles/saxpy.$kind.bundle" --output="$TMP/unbundled.co"
        cmp -s "$TMP/unbundled.co" "$OUT/$gfx/saxpy.co" || {
            echo "build.sh: saxpy.$kind.bundle does not unbundle to $gfx/saxpy.co" >&2
            exit 1
        }
    done
done
echo "built into $OUT"
