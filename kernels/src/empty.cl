// empty: does nothing (dispatch latency measurements).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void empty(void)
{
}
