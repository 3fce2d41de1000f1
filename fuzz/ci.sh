#!/usr/bin/env bash
# fuzz/ci.sh [SECONDS]: build every cargo-fuzz target and run each for a
# short fixed budget (default 15 s) from the checked-in seeds, as CI does
# when asked (AQUEDUCT_CI_FUZZ).
# A crash, timeout or out-of-memory stops the run with libFuzzer's report and
# the input under $FUZZ_OUT/artifacts/<target>/ (reproduce it with
# `cargo +nightly fuzz run -O -a -s none <target> <file>`, see README.md).
# What the targets add to their corpora goes to a scratch directory, so the
# checked-in seeds stay as they are. Long runs: see README.md.
set -euo pipefail
budget="${1:-15}"
cd "$(dirname "$0")"

# cargo-fuzz needs a nightly toolchain (libFuzzer's -Z sanitizer flags).
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
CARGO_FUZZ_VERSION=0.13.2
if ! command -v cargo-fuzz >/dev/null || [[ "$(cargo fuzz --version)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

# Optimised, with debug assertions and overflow checks, no sanitizer
# (README.md says why).
cargo +nightly fuzz build -O -a -s none
echo "fuzz: [${SECONDS} s] targets built"

out="${FUZZ_OUT:-$(mktemp -d)}"
bin=target/x86_64-unknown-linux-gnu/release
# run TARGET [FLAG...] -- [SEED_DIR...]: libFuzzer writes what it finds to
# the first corpus directory, so the scratch one goes first and the seed
# directories, read only, after it.
run() {
  local target="$1"
  shift
  local flags=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do
    flags+=("$1")
    shift
  done
  [[ $# -gt 0 ]] && shift
  mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
  echo "fuzz: $target for ${budget} s"
  # -print_final_stats=1: executions and coverage close each run's log.
  "$bin/$target" -max_total_time="$budget" -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$target/" "${flags[@]}" "$out/corpus/$target" "$@" \
    2> "$out/$target.log" || {
    tail -n 60 "$out/$target.log"
    echo "fuzz: $target failed; its input is in $out/artifacts/$target/" >&2
    return 1
  }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/$target.log" \
    | sed "s/^/  $target /"
}

run gfx11_decode -max_len=512 -- corpus/gfx11_decode
run topology -- corpus/topology
run code_object -max_len=65536 -- ../kernels/gfx1100 ../kernels/gfx942 ../kernels/gfx90a \
  ../kernels/bundles ../corpus/gfx1100 ../shaders/gfx1100
run shaderc_frontend -- ../shaders ../shaders/tests
AQUEDUCT_SIM_SPIN_US=0 AQUEDUCT_SIM_THREADS=1 \
  run facade_api -timeout=20 -rss_limit_mb=4096 -- corpus/facade_api
