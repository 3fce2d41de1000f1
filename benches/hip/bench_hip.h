// Shared by every benchmark in benches/hip: the device-side helpers (identical in both
// builds) and, for hipcc builds only, the host-side timing and result printing.
//
// Two builds of each NAME.hip:
//  - hipcc (ROCm, a machine with an AMD GPU): device + host code, a benchmark program.
//  - clang-19 -x hip --cuda-device-only -nogpuinc -DAQ_DEVICE_ONLY (build.sh, no ROCm):
//    only the kernels, as the gfx code object Aqueduct loads (benches/hip/gfx1100/NAME.co).
// The kernels use AMDGPU builtins rather than threadIdx/blockIdx so that the device code is
// the same text in both builds; they are extern "C" so their symbols are the plain names.
// Float contraction is off in both builds: results are reproducible on the host.
#pragma once
#pragma clang fp contract(off)

#ifdef AQ_DEVICE_ONLY
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#else
#include <hip/hip_runtime.h>
#endif

#define KERNEL extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, 1024)))

typedef unsigned int u32;

__device__ inline u32 lid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ inline u32 lid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ inline u32 wg_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ inline u32 wg_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ inline u32 wgsize_x() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ inline u32 gid_x() { return wg_x() * wgsize_x() + lid_x(); }

// __syncthreads: a workgroup barrier ordering LDS and global accesses at workgroup scope.
__device__ inline void wg_barrier()
{
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#ifndef AQ_DEVICE_ONLY
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define HIP_CHECK(call)                                                                     \
    do {                                                                                    \
        hipError_t err_ = (call);                                                           \
        if (err_ != hipSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                         hipGetErrorString(err_));                                          \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

// Wall-clock seconds since an arbitrary start (steady clock, as the Rust side's Instant).
inline double now_s()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One result line; benches/hip/run.sh joins these with the Aqueduct side's by metric name.
inline void report(const char* metric, double value, const char* unit)
{
    std::printf("RESULT %s %.3f %s\n", metric, value, unit);
}

// Quick mode (fewer samples) when the first argument is --quick.
inline bool quick(int argc, char** argv) { return argc > 1 && std::string(argv[1]) == "--quick"; }

inline void fail(const char* what)
{
    std::fprintf(stderr, "check failed: %s\n", what);
    std::exit(1);
}
#endif
