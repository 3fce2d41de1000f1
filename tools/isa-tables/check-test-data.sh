#!/usr/bin/env bash
# Fails (exit 1, printing the difference) when the ISA crate's generated test
# inputs differ from what their generators make now:
#   crates/isa/tests/isa_vectors/*.txt       (isa_vectors/generate.sh, llvm-mc-19)
#   crates/isa/tests/isa_vectors/generated/  (isa_vectors/gen_vectors.py, llvm-objdump-19)
#   crates/isa/tests/isa_kernels/kernels.rs  (isa_kernels/generate.sh, llvm-mc-19)
#   crates/isa/tests/isa_kernels/*.co        (isa_kernels/build_cl.sh, clang-19, ld.lld-19)
# The generators run on a copy, so the tree is never written.
# Usage: tools/isa-tables/check-test-data.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# gen_vectors.py reads the opcode tables at ../../src/gfx11/opcodes.
mkdir -p "$tmp/tests" "$tmp/src/gfx11"
cp -r "$root/crates/isa/src/gfx11/opcodes" "$tmp/src/gfx11/"
cp -r "$root/crates/isa/tests/isa_vectors" "$root/crates/isa/tests/isa_kernels" "$tmp/tests/"
# Independent generators: run them side by side.
"$tmp/tests/isa_vectors/generate.sh" > /dev/null &
vectors=$!
python3 "$tmp/tests/isa_vectors/gen_vectors.py" > /dev/null &
generated=$!
"$tmp/tests/isa_kernels/generate.sh"
"$tmp/tests/isa_kernels/build_cl.sh"
wait "$vectors"
wait "$generated"
status=0
for d in isa_vectors isa_kernels; do
  if ! diff -ru "$root/crates/isa/tests/$d" "$tmp/tests/$d"; then
    echo "check-test-data.sh: crates/isa/tests/$d is not what its generators make" >&2
    status=1
  fi
done
exit "$status"
