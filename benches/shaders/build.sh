#!/usr/bin/env bash
# Precompiles the dispatch benchmark's WGSL shaders with aqueduct-shaderc into
# benches/shaders/TARGET/NAME.co + NAME.reflect.json for gfx1100, gfx942 and
# gfx90a (checked in, so `cargo bench --bench dispatch` and the library's
# unit tests need no LLVM, on every simulated part). Needs clang-19/ld.lld-19.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"
for target in gfx1100 gfx942 gfx90a; do
    mkdir -p "$target"
    for s in bump empty fill_pattern tiny_groups zero_init; do
        # Paths relative to this folder: the reflection records the source as given.
        cargo run -q --manifest-path ../../Cargo.toml -p aqueduct-shaderc -- \
            compile "$s.wgsl" --target "$target" -o "$target/$s.co"
    done
done
