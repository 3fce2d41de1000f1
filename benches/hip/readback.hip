// readback: a kernel fills 1 MiB with a seed-dependent pattern (untimed), then the timed part
// copies it into host memory (hipMemcpy device-to-host into a pageable std::vector); the
// host checks every word.
// Aqueduct side: benches/hip/aqueduct.rs `readback_1mib_us` (copy_buffer_to_buffer into a
// MAP_READ buffer, submit, map, copy into a Vec, unmap).
#include "bench_hip.h"

KERNEL void fill_pattern(u32* out, u32 seed, u32 words)
{
    u32 i = gid_x();
    if (i < words)
        out[i] = (i * 2654435761u) ^ seed;
}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const u32 words = (1u << 20) / 4;
    const int samples = quick(argc, argv) ? 20 : 200;
    u32* dout = nullptr;
    HIP_CHECK(hipMalloc(&dout, words * sizeof(u32)));
    std::vector<u32> host(words);
    std::vector<double> times;
    for (int s = 0; s < samples; ++s) {
        u32 seed = 0x9e3779b9u * (u32)(s + 1);
        hipLaunchKernelGGL(fill_pattern, dim3(words / 256), dim3(256), 0, 0, dout, seed, words);
        HIP_CHECK(hipDeviceSynchronize());
        double t0 = now_s();
        HIP_CHECK(hipMemcpy(host.data(), dout, words * sizeof(u32), hipMemcpyDeviceToHost));
        times.push_back(now_s() - t0);
        for (u32 i = 0; i < words; ++i)
            if (host[i] != ((i * 2654435761u) ^ seed))
                fail("readback: wrong word");
    }
    report("readback_1mib_us", median(times) * 1e6, "us");
    HIP_CHECK(hipFree(dout));
    return 0;
}
#endif
