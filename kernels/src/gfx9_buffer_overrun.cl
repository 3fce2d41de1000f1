// gfx9_buffer_overrun: work-item g loads the dword at byte 4 * g of `buf`
// with a MUBUF buffer_load_dword through a raw buffer resource (V#) over
// `buf` of `num_records` bytes, and stores it to out[g]. On GFX9 a raw
// buffer's range check is offset >= NUM_RECORDS (AMD CDNA3 ISA guide,
// "Range Checking"): out-of-range loads read 0; a num_records larger than
// the buffer lets them past its end (a sanitizer memcheck test of the GFX9
// buffer path). One workgroup.
#include "aqueduct_kernel.h"

// DATA_FORMAT 4 (32), NUM_FORMAT 7 (float), no ADD_TID_ENABLE: the raw
// buffer resource word 3 LLVM builds for GFX9 (SQ_BUF_RSRC_WORD3).
#define RAW_RESOURCE_WORD3 0x00027000

ANY_WG_SIZE kernel void gfx9_buffer_overrun(global uint* buf, uint num_records, global uint* out)
{
    __amdgpu_buffer_rsrc_t rsrc =
        __builtin_amdgcn_make_buffer_rsrc(buf, 0, (int)num_records, RAW_RESOURCE_WORD3);
    uint lid = LID_X();
    out[lid] = __builtin_amdgcn_raw_buffer_load_b32(rsrc, (int)(lid * 4u), 0, 0);
}
