// addtid_overrun: lane n of each wave stores `value` at byte 4 * n of `buf`
// with global_store_addtid_b32 (the address is the SGPR base plus 4 * the lane
// id, RDNA3 ISA guide, GLOBAL opcodes): a wave32 writes 128 bytes, past a
// smaller buffer (a sanitizer memcheck test of the addtid path). One wave.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void addtid_overrun(global uint* buf, uint value)
{
    __asm__ volatile("global_store_addtid_b32 %0, %1" : : "v"(value), "s"(buf) : "memory");
}
