#!/usr/bin/env bash
# HIP against Aqueduct on one AMD GPU: builds every benches/hip/NAME.hip with hipcc and runs
# it, runs `cargo bench --bench hip` (the same workloads through Aqueduct, with the same
# kernels built for this GPU by build.sh), and prints one table: metric, HIP, Aqueduct,
# ratio (> 1: Aqueduct is faster; for times that is HIP / Aqueduct, for rates
# Aqueduct / HIP). Both sides check every result and stop on a wrong one.
#
# Usage: benches/hip/run.sh [--quick] [--aqueduct-only]
#   --quick          fewer samples and smaller sizes on both sides
#   --aqueduct-only  no ROCm here: only the Aqueduct side (HIP column "-"); the device is
#                    then whatever AQUEDUCT_DEVICE says (default auto, so gfxsim without a GPU)
# Environment: GFX=gfx90a overrides the GPU target (default: the first GPU rocminfo lists);
#   HIPCC=/opt/rocm/bin/hipcc; AQUEDUCT_DEVICE (default kfd when HIP runs too);
#   PROFILE=dev builds the Aqueduct side with cargo's dev profile (quicker to build, slower
#   host code; default: bench, i.e. release).
# Needs: ROCm (hipcc, rocminfo) and clang-19 + ld.lld-19 (build.sh), unless --aqueduct-only.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DIR/../.." && pwd)"
BENCHES=(empty bump saxpy reduce readback matmul)
QUICK=()
HIP=1
for arg in "$@"; do
    case "$arg" in
        --quick) QUICK=(--quick) ;;
        --aqueduct-only) HIP=0 ;;
        *) echo "usage: $0 [--quick] [--aqueduct-only]" >&2; exit 2 ;;
    esac
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
: > "$WORK/hip.txt"

if [[ $HIP == 1 ]]; then
    HIPCC="${HIPCC:-hipcc}"
    GFX="${GFX:-$(rocminfo | grep -o -m1 'gfx[0-9a-f]*')}"
    echo "GPU target: $GFX" >&2
    for b in "${BENCHES[@]}"; do
        "$HIPCC" -O3 -std=c++17 --offload-arch="$GFX" "$DIR/$b.hip" -o "$WORK/$b"
        "$WORK/$b" "${QUICK[@]}" | tee -a "$WORK/hip.txt" >&2
    done
    # The same device code, built by clang-19 for this GPU, for the Aqueduct side.
    bash "$DIR/build.sh" "$GFX" "$WORK/objects" >&2
    export AQUEDUCT_HIP_OBJECTS="$WORK/objects/$GFX"
    export AQUEDUCT_DEVICE="${AQUEDUCT_DEVICE:-kfd}"
fi

(cd "$ROOT" && cargo bench --bench hip --profile "${PROFILE:-bench}" -- "${QUICK[@]}") | tee "$WORK/aqueduct.txt" >&2

awk -v hipfile="$WORK/hip.txt" -f "$DIR/table.awk" "$WORK/aqueduct.txt"
