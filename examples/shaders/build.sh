#!/usr/bin/env bash
# Precompiles the examples' WGSL shaders with aqueduct-shaderc into
# examples/shaders/NAME.co + NAME.reflect.json (checked in, so
# `cargo run --example ...` needs no LLVM). Each NAME.co is one offload
# bundle for gfx1100, gfx942 and gfx90a: the loader picks the GPU's own
# object, so the examples run unchanged on every part. Needs clang-19/ld.lld-19.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"
for s in collatz scan_blocks add_block_offsets; do
    # Paths relative to this folder: the reflection records the source as given.
    cargo run -q --manifest-path ../../Cargo.toml -p aqueduct-shaderc -- \
        compile "$s.wgsl" --target gfx1100,gfx942,gfx90a -o "$s.co"
done
