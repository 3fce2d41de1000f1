#!/usr/bin/env bash
# Rebuilds the device code of every benches/hip/NAME.hip into a code object for one gfx
# target: <out>/<gfx>/NAME.co (default: benches/hip/gfx1100/NAME.co; the gfx1100, gfx942
# and gfx90a objects are checked in: `build.sh gfx942` and `build.sh gfx90a` rebuild the others).
#
# Device-only HIP with clang-19, no ROCm needed (-nogpuinc, AQ_DEVICE_ONLY hides the host
# code; see bench_hip.h). Deterministic: relative paths, no ident, fixed -cuid, lld without
# build id, so tests/hip_kernels.rs can compare a rebuild with the checked-in bytes.
#
# Usage: benches/hip/build.sh [GFX [OUT_DIR]]    e.g. build.sh gfx90a /tmp/hip-objects
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GFX="${1:-gfx1100}"
OUT="${2:-$DIR}"
CLANG="${CLANG:-clang-19}"
BENCHES=(empty bump saxpy reduce readback matmul)

mkdir -p "$OUT/$GFX"
OUT="$(cd "$OUT" && pwd)"
cd "$DIR"
for b in "${BENCHES[@]}"; do
    "$CLANG" -x hip --offload-arch="$GFX" -nogpuinc -nogpulib --cuda-device-only \
        --no-gpu-bundle-output -std=c++17 -O3 -mcode-object-version=5 -fno-ident \
        -ffile-prefix-map="$DIR"=. -cuid="$b" -DAQ_DEVICE_ONLY -c "$b.hip" -o "$OUT/$GFX/$b.co"
done
echo "built ${#BENCHES[@]} code objects into $OUT/$GFX"
