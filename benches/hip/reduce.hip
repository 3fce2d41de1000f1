// reduce: per-workgroup sums of 16M u32 (wrapping), a tree in LDS over 256 work-items, one
// partial per workgroup; the host checks every partial.
// Aqueduct side: benches/hip/aqueduct.rs `reduce_gb_per_s` (one dispatch + poll(wait)).
#include "bench_hip.h"

#define REDUCE_WG 256

KERNEL void reduce_sum(const u32* __restrict__ in, u32* __restrict__ partials, u32 n)
{
    __shared__ u32 lds[REDUCE_WG];
    u32 lid = lid_x();
    u32 i = gid_x();
    lds[lid] = i < n ? in[i] : 0u;
    wg_barrier();
    for (u32 stride = REDUCE_WG / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            lds[lid] += lds[lid + stride];
        wg_barrier();
    }
    if (lid == 0)
        partials[wg_x()] = lds[0];
}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const u32 n = quick(argc, argv) ? (1u << 20) : (16u << 20);
    const int runs = quick(argc, argv) ? 3 : 10;
    const u32 groups = (n + REDUCE_WG - 1) / REDUCE_WG;
    std::vector<u32> in(n), partials(groups);
    for (u32 i = 0; i < n; ++i)
        in[i] = i * 2654435761u;
    u32 *din = nullptr, *dpart = nullptr;
    HIP_CHECK(hipMalloc(&din, n * sizeof(u32)));
    HIP_CHECK(hipMalloc(&dpart, groups * sizeof(u32)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(u32), hipMemcpyHostToDevice));
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        double t0 = now_s();
        hipLaunchKernelGGL(reduce_sum, dim3(groups), dim3(REDUCE_WG), 0, 0, din, dpart, n);
        HIP_CHECK(hipDeviceSynchronize());
        times.push_back(now_s() - t0);
    }
    HIP_CHECK(hipMemcpy(partials.data(), dpart, groups * sizeof(u32), hipMemcpyDeviceToHost));
    for (u32 g = 0; g < groups; ++g) {
        u32 sum = 0;
        for (u32 i = g * REDUCE_WG; i < n && i < (g + 1) * REDUCE_WG; ++i)
            sum += in[i];
        if (partials[g] != sum)
            fail("reduce: wrong partial");
    }
    report("reduce_gb_per_s", 4.0 * n / median(times) / 1e9, "GB/s");
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dpart));
    return 0;
}
#endif
