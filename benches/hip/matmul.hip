// matmul: C = A * B, row-major f32, 256 x 256 x 256, 16 x 16 tiles staged in LDS (the same
// algorithm as kernels/src/matmul_tiled.cl). The k order of the sums is sequential, so the
// host reference in f32 matches bit for bit.
// Aqueduct side: benches/hip/aqueduct.rs `matmul_gflop_per_s` (one dispatch + poll(wait)).
#include "bench_hip.h"

#define TS 16

KERNEL void matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                   u32 M, u32 N, u32 K)
{
    __shared__ float tile_a[TS][TS];
    __shared__ float tile_b[TS][TS];
    u32 tx = lid_x();
    u32 ty = lid_y();
    u32 row = wg_y() * TS + ty;
    u32 col = wg_x() * TS + tx;
    float acc = 0.0f;
    for (u32 t = 0; t < K; t += TS) {
        u32 a_col = t + tx;
        u32 b_row = t + ty;
        tile_a[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        tile_b[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        wg_barrier();
        for (u32 k = 0; k < TS; ++k)
            acc += tile_a[ty][k] * tile_b[k][tx];
        wg_barrier();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

#ifndef AQ_DEVICE_ONLY
int main(int argc, char** argv)
{
    const u32 M = 256, N = 256, K = 256;
    const int runs = quick(argc, argv) ? 3 : 20;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (u32 i = 0; i < M * K; ++i)
        a[i] = (float)((i * 7) % 17) * 0.125f - 1.0f;
    for (u32 i = 0; i < K * N; ++i)
        b[i] = (float)((i * 5) % 13) * 0.25f - 1.5f;
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    HIP_CHECK(hipMalloc(&da, a.size() * sizeof(float)));
    HIP_CHECK(hipMalloc(&db, b.size() * sizeof(float)));
    HIP_CHECK(hipMalloc(&dc, c.size() * sizeof(float)));
    HIP_CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(float), hipMemcpyHostToDevice));
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        double t0 = now_s();
        hipLaunchKernelGGL(matmul, dim3(N / TS, M / TS), dim3(TS, TS), 0, 0, da, db, dc, M, N, K);
        HIP_CHECK(hipDeviceSynchronize());
        times.push_back(now_s() - t0);
    }
    HIP_CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
    for (u32 r = 0; r < M; ++r)
        for (u32 col = 0; col < N; ++col) {
            float acc = 0.0f;
            for (u32 k = 0; k < K; ++k)
                acc += a[r * K + k] * b[k * N + col];
            if (c[r * N + col] != acc)
                fail("matmul: wrong element");
        }
    report("matmul_gflop_per_s", 2.0 * M * N * K / median(times) / 1e9, "GFLOP/s");
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    return 0;
}
#endif
