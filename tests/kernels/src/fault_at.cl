// fault_at: work-item 0 stores `value` at `address`, a 64-bit address given
// by value (an immediate in the facade), so a test can make a dispatch fault
// on an address no buffer covers.
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void fault_at(ulong address, uint value)
{
    if (GID_X() == 0)
        *(volatile global uint*)address = value;
}
