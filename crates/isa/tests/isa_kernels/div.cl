// Division sequences clang-19 emits for gfx1100: correctly rounded f32
// (v_div_scale/v_div_fmas/v_div_fixup with -cl-fp32-correctly-rounded-divide-sqrt),
// f64 division and sqrt, and 32-bit integer division/remainder.
kernel void div(global const float* a, global const float* b, global float* out,
                global const double* da, global const double* db, global double* dout,
                global const int* ia, global const int* ib, global int* iout, global uint* uout,
                global float* sq, global double* dsq)
{
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    out[i] = a[i] / b[i];
    dout[i] = da[i] / db[i];
    iout[i] = ia[i] / ib[i] + 1000 * (ia[i] % ib[i]);
    uout[i] = (uint)ia[i] / (uint)ib[i];
    sq[i] = __builtin_sqrtf(a[i] * a[i]);
    dsq[i] = __builtin_sqrt(da[i] * da[i] + 1.0);
}
