// Assorted clang-19 code paths for the emulator: 64-bit integer math, bit
// counting, half precision, private arrays with dynamic indexing (scratch),
// wave-level reduction via ds_bpermute, float atomics and min/max atomics,
// and a switch. Each work-item i writes results to out[i*8 + k].
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void features(global const uint* restrict in, global uint* restrict out,
                     global float* restrict facc, global int* restrict imin)
{
    uint lid = __builtin_amdgcn_workitem_id_x();
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + lid;
    uint x = in[i];
    ulong w = (ulong)x * 0x9E3779B97F4A7C15UL + ((ulong)x << 40);
    out[i * 8 + 0] = (uint)(w >> 32) ^ (uint)w;
    out[i * 8 + 1] = __builtin_popcount(x) + __builtin_clz(x | 1) * 100 + __builtin_ctz(x | 0x80000000u) * 10000;
    half h = (half)((float)(x & 0xffff) / 4096.0f);
    half h2 = h * h + (half)0.5f;
    out[i * 8 + 2] = __builtin_astype(h2, ushort);
    uint priv[16];
    for (int k = 0; k < 16; ++k)
        priv[k] = x * (k + 1);
    out[i * 8 + 3] = priv[x & 15] + priv[(x >> 4) & 15];
    uint v = x & 0xff;
    uint sum = v;
    for (int off = 1; off < 32; off <<= 1)
        sum += __builtin_amdgcn_ds_bpermute((int)(((lid ^ off) & 31) * 4), (int)sum);
    out[i * 8 + 4] = sum;
    __atomic_fetch_add(facc, (float)(x & 0xf), __ATOMIC_RELAXED);
    __atomic_fetch_min(imin, (int)x, __ATOMIC_RELAXED);
    uint r;
    switch (x % 5) {
        case 0: r = x + 7; break;
        case 1: r = x * 3; break;
        case 2: r = x ^ 0x55aa; break;
        case 3: r = x >> 3; break;
        default: r = ~x; break;
    }
    out[i * 8 + 5] = r;
    long sx = (long)(int)x;
    out[i * 8 + 6] = (uint)((sx * sx) >> 17) + (uint)(sx / 7) ;
    out[i * 8 + 7] = (uint)(((ulong)x * 0xdeadbeefu) >> 32) + ((x << 13) | (x >> 19));
}
