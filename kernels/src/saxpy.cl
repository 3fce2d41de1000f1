// saxpy: y[i] = a * x[i] + y[i] for i < n (f32, 1D grid).
#include "aqueduct_kernel.h"

ANY_WG_SIZE kernel void saxpy(float a, global const float* restrict x, global float* restrict y, uint n)
{
    uint i = GID_X();
    if (i < n)
        y[i] = a * x[i] + y[i];
}
