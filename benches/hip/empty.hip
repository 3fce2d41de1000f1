// empty: launch + synchronise latency of a kernel that does nothing (one workgroup of 32).
// Aqueduct side: benches/hip/aqueduct.rs `empty_round_trip_us` (submit + poll(wait)).
#include "bench_hip.h"

KERNEL void empty() {}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const int samples = quick(argc, argv) ? 200 : 2000;
    hipLaunchKernelGGL(empty, dim3(1), dim3(32), 0, 0);  // warm-up: loads the code object
    HIP_CHECK(hipDeviceSynchronize());
    std::vector<double> times;
    for (int i = 0; i < samples; ++i) {
        double t0 = now_s();
        hipLaunchKernelGGL(empty, dim3(1), dim3(32), 0, 0);
        HIP_CHECK(hipDeviceSynchronize());
        times.push_back(now_s() - t0);
    }
    report("empty_round_trip_us", median(times) * 1e6, "us");
    return 0;
}
#endif
