// typed_buffer_overrun: through a raw buffer resource (V#) over `buf` of
// `num_records` bytes (OOB_SELECT 3, RDNA3 ISA guide "Buffer instructions"),
// every work-item stores s_buffer_load_b32 of the dword at byte 64 to
// out[g], and work-item g stores `value` at byte 4 * g of `buf` with the
// typed tbuffer_store_format_x (format 32_UINT). Accesses out of the V#'s
// range are not made (the load reads 0, the store is dropped); a num_records
// larger than the buffer lets both past its end (a sanitizer memcheck test
// of the scalar buffer and typed buffer paths). One workgroup.
#include "aqueduct_kernel.h"

// DST_SEL_XYZW, FORMAT 32_FLOAT, RESOURCE_LEVEL 1, OOB_SELECT 3: the raw
// buffer resource word 3 LLVM builds for gfx11.
#define RAW_RESOURCE_WORD3 0x31016FACu

ANY_WG_SIZE kernel void typed_buffer_overrun(global uint* buf, uint num_records, uint value,
                                             global uint* out)
{
    ulong base = (ulong)buf;
    uint4 rsrc = (uint4)((uint)base, (uint)(base >> 32) & 0xFFFFu, num_records, RAW_RESOURCE_WORD3);
    uint loaded;
    __asm__ volatile("s_buffer_load_b32 %0, %1, 0x40\n\ts_waitcnt lgkmcnt(0)" : "=s"(loaded) : "s"(rsrc) : "memory");
    out[GID_X()] = loaded;
    uint offset = LID_X() * 4u;
    __asm__ volatile("tbuffer_store_format_x %0, %1, %2, 0 format:[BUF_FMT_32_UINT] offen" : : "v"(value), "v"(offset), "s"(rsrc) : "memory");
}
