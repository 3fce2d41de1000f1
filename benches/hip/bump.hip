// bump: 10k dispatches of a one-workgroup kernel whose first lane bumps a counter, launched
// back to back, then one synchronise; the counter proves every dispatch ran.
// Aqueduct side: benches/hip/aqueduct.rs `dispatch_10k_us_per_dispatch` (one encoder, one
// pass, 10k dispatch_workgroups, one submit, poll(wait)).
#include "bench_hip.h"

KERNEL void bump(u32* counter)
{
    if (lid_x() == 0)
        __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const int dispatches = 10000;
    const int runs = quick(argc, argv) ? 3 : 10;
    u32* counter = nullptr;
    HIP_CHECK(hipMalloc(&counter, sizeof(u32)));
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        HIP_CHECK(hipMemset(counter, 0, sizeof(u32)));
        HIP_CHECK(hipDeviceSynchronize());
        double t0 = now_s();
        for (int i = 0; i < dispatches; ++i)
            hipLaunchKernelGGL(bump, dim3(1), dim3(64), 0, 0, counter);
        HIP_CHECK(hipDeviceSynchronize());
        times.push_back(now_s() - t0);
        u32 count = 0;
        HIP_CHECK(hipMemcpy(&count, counter, sizeof(u32), hipMemcpyDeviceToHost));
        if (count != (u32)dispatches)
            fail("bump: the counter does not equal the number of dispatches");
    }
    report("dispatch_10k_us_per_dispatch", median(times) / dispatches * 1e6, "us");
    HIP_CHECK(hipFree(counter));
    return 0;
}
#endif
