#!/usr/bin/env bash
# Builds the OpenCL test kernels here (*.cl) into gfx1100 code objects (*.co) with
# clang-19/lld-19, as isa_exec.rs loads them; *wave64*.cl are built for wave64,
# *calls*.cl at -O0 (real call sequences and stack frames), the rest at -O3.
# Usage: crates/isa/tests/isa_kernels/build_cl.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for f in *.cl; do
  n="$(basename "$f" .cl)"
  wave=()
  case "$n" in *wave64*) wave=(-mwavefrontsize64) ;; esac
  opt=-O3
  case "$n" in *calls*) opt=-O0 ;; esac
  clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1100 "${wave[@]}" -nogpulib "$opt" \
    -cl-fp32-correctly-rounded-divide-sqrt -mcode-object-version=5 -fno-ident -c "$f" -o "/tmp/$n.$$.o"
  ld.lld-19 -shared --build-id=none "/tmp/$n.$$.o" -o "$n.co"
  rm -f "/tmp/$n.$$.o"
done
