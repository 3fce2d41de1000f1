// faults: kernels that go wrong on purpose, for the fault tests
// (tests/faults*.rs, crates/hsa/tests/faults.rs). Each names one way a
// kernel can fail on a GPU: a read of any 64-bit address, s_trap, an
// instruction word no gfx11 encoding uses, and a loop that never ends.
#include "aqueduct_kernel.h"

// read_at: work-item 0 copies the word at `address` (an immediate in the
// facade) into out[0].
ANY_WG_SIZE kernel void read_at(global uint* out, ulong address)
{
    if (GID_X() == 0)
        out[0] = *(volatile global const uint*)address;
}

// trap_now: every work-item writes gid + 1 to out[gid] (when gid < n), then
// the wave executes s_trap 2 (llvm.trap), which has no handler.
ANY_WG_SIZE kernel void trap_now(global uint* out, uint n)
{
    uint i = GID_X();
    if (i < n)
        out[i] = i + 1;
    __builtin_trap();
}

// illegal_word: executes 0xffffffff, which no gfx11 encoding decodes.
ANY_WG_SIZE kernel void illegal_word(global uint* out)
{
    out[GID_X()] = 1;
    __asm__ volatile(".long 0xffffffff");
}

// spin: loops until *flag is nonzero (the host never sets it in the
// watchdog tests); then work-item 0 writes 1 to *flag + 1.
ANY_WG_SIZE kernel void spin(global uint* flag)
{
    while (*(volatile global uint*)flag == 0) {
    }
    if (GID_X() == 0)
        flag[1] = 1;
}
