#!/usr/bin/env bash
# Precompiles the dispatch benchmark's WGSL shaders with aqueduct-shaderc into
# benches/shaders/gfx1100/NAME.co + NAME.reflect.json (checked in, so
# `cargo bench --bench dispatch` needs no LLVM). Needs clang-19/ld.lld-19.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"
for s in bump empty fill_pattern tiny_groups zero_init; do
    mkdir -p gfx1100
    # Paths relative to this folder: the reflection records the source as given.
    cargo run -q --manifest-path ../../Cargo.toml -p aqueduct-shaderc -- \
        compile "$s.wgsl" --target gfx1100 -o "gfx1100/$s.co"
done
