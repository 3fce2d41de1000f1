// saxpy: y[i] = a * x[i] + y[i] over 16M f32 (12 bytes of traffic per element).
// Aqueduct side: benches/hip/aqueduct.rs `saxpy_gb_per_s` (one dispatch + poll(wait)).
#include "bench_hip.h"

KERNEL void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, u32 n)
{
    u32 i = gid_x();
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const u32 n = quick(argc, argv) ? (1u << 20) : (16u << 20);
    const int runs = quick(argc, argv) ? 3 : 10;
    const float a = 2.5f;
    std::vector<float> x(n), y(n), out(n);
    for (u32 i = 0; i < n; ++i) {
        x[i] = (float)(i % 1000) * 0.25f;
        y[i] = (float)(i % 7);
    }
    float *dx = nullptr, *dy = nullptr;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
        double t0 = now_s();
        hipLaunchKernelGGL(saxpy, dim3((n + 255) / 256), dim3(256), 0, 0, a, dx, dy, n);
        HIP_CHECK(hipDeviceSynchronize());
        times.push_back(now_s() - t0);
    }
    HIP_CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
    for (u32 i = 0; i < n; ++i)
        if (out[i] != a * x[i] + y[i])
            fail("saxpy: wrong element");
    report("saxpy_gb_per_s", 12.0 * n / median(times) / 1e9, "GB/s");
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    return 0;
}
#endif
