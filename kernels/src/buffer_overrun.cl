// buffer_overrun: work-item g stores `value` at byte 4 * g of `buf` with a
// MUBUF buffer_store_b32 through a raw buffer resource (V#) over `buf` of
// `num_records` bytes (OOB_SELECT 3: the range check is offset + 4 <=
// num_records, RDNA3 ISA guide "Buffer instructions"). Stores out of that range
// are dropped; a num_records larger than the buffer lets them past its end (a
// sanitizer memcheck test of the buffer path). One workgroup.
#include "aqueduct_kernel.h"

// DST_SEL_XYZW, FORMAT 32_FLOAT, RESOURCE_LEVEL 1, OOB_SELECT 3: the raw
// buffer resource word 3 LLVM builds for gfx11.
#define RAW_RESOURCE_WORD3 0x31016FACu

ANY_WG_SIZE kernel void buffer_overrun(global uint* buf, uint num_records, uint value)
{
    ulong base = (ulong)buf;
    uint4 rsrc = (uint4)((uint)base, (uint)(base >> 32) & 0xFFFFu, num_records, RAW_RESOURCE_WORD3);
    uint offset = LID_X() * 4u;
    __asm__ volatile("buffer_store_b32 %0, %1, %2, 0 offen" : : "v"(value), "v"(offset), "s"(rsrc) : "memory");
}
