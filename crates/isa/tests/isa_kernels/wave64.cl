// Wave64 paths of the gfx11 emulator, built with -mwavefrontsize64 (build_cl.sh
// adds it for *wave64*.cl): a 64-bit ballot and mbcnt lane ranks, a reduction
// through ds_bpermute (which stays inside each 32-lane half on RDNA) whose two
// halves are joined with v_readlane, readfirstlane under divergence, a
// divergent loop, an LDS scan with barriers, and global/LDS atomics.
// Work-item i of group g (size wg, a kernel argument) writes out[i*8 + k].

// -nogpulib: OpenCL's barrier() is not linked in; this is what it lowers to.
static inline void group_barrier(void)
{
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

kernel void wave64(global const uint* restrict in, global uint* restrict out,
                   global uint* restrict counters, uint wg)
{
    local uint tmp[1024];
    local uint group_odd;
    uint lid = __builtin_amdgcn_workitem_id_x();
    uint grp = __builtin_amdgcn_workgroup_id_x();
    uint i = grp * wg + lid;
    uint x = in[i];
    if (lid == 0)
        group_odd = 0;
    ulong b = __builtin_amdgcn_ballot_w64((x & 1) != 0);
    out[i * 8 + 0] = (uint)b;
    out[i * 8 + 1] = (uint)(b >> 32);
    uint lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0));
    out[i * 8 + 2] = __builtin_amdgcn_mbcnt_hi((uint)(b >> 32), __builtin_amdgcn_mbcnt_lo((uint)b, 0)) | lane << 16;
    uint sum = x & 0xffff;
    for (uint off = 1; off < 32; off <<= 1)
        sum += __builtin_amdgcn_ds_bpermute((int)((lane ^ off) * 4), (int)sum);
    out[i * 8 + 3] = sum + (__builtin_amdgcn_readlane(sum, 0) << 16) + (__builtin_amdgcn_readlane(sum, 33) << 20);
    uint first = 0xdeadu;
    if ((x & 6) == 6)
        first = __builtin_amdgcn_readfirstlane(x);
    out[i * 8 + 4] = first;
    uint n = x % 97 + 1, steps = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    out[i * 8 + 5] = steps;
    tmp[lid] = x & 0xff;
    group_barrier();
    for (uint off = 1; off < wg; off <<= 1) {
        uint v = lid >= off ? tmp[lid - off] : 0;
        group_barrier();
        tmp[lid] += v;
        group_barrier();
    }
    out[i * 8 + 6] = tmp[lid];
    if (x & 1)
        __atomic_fetch_add(&group_odd, 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counters[0], x & 0xff, __ATOMIC_RELAXED);
    __atomic_fetch_max(&counters[1], x, __ATOMIC_RELAXED);
    group_barrier();
    out[i * 8 + 7] = group_odd;
}
