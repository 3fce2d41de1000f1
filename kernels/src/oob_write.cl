// oob_write: work-item 0 stores `value` to the address `target` (any 64-bit
// address, typically one that is not mapped, to provoke a GPU memory fault).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void oob_write(global uint* target, uint value)
{
    if (GID_X() == 0)
        *(volatile global uint*)target = value;
}
