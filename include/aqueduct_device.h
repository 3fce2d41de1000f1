// aqueduct_device.h: the work-item functions, barriers, atomics and common
// math of OpenCL C and HIP, for kernels compiled for AMD GPUs with plain
// clang-19 and no ROCm device library (-nogpulib, and -nogpuinc for HIP).
// Add `-include aqueduct_device.h` (with -I pointing here) to the compile:
//
//   clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1100 \
//       -nogpulib -O3 -cl-kernel-arg-info -I include -include aqueduct_device.h \
//       -c k.cl -o k.o && ld.lld-19 -shared k.o -o k.co
//   clang-19 -x hip --offload-arch=gfx1100 --cuda-device-only \
//       --no-gpu-bundle-output -nogpuinc -nogpulib -O3 -I include \
//       -include aqueduct_device.h -c k.hip -o k.co
//
// Everything lowers to AMDGPU builtins and LLVM intrinsics, which the
// AMDGPU backend expands inline (AMDGPUUsage, "AMDGPU builtins"). Sizes
// come from the AQL dispatch packet (grid size) and the code object v5
// hidden arguments (workgroup size, global offset); see the book's
// "Bringing HIP and OpenCL kernels" chapter. The math functions are the
// backend's expansions of the LLVM intrinsics, not the device library's:
// results agree with the host to a few ulp, not bit for bit.
#pragma once

#if defined(__HIP__)
#define AQ_FN static inline __attribute__((device, always_inline))
#define AQ_CONSTANT __attribute__((address_space(4)))
#else
#define AQ_FN static inline __attribute__((always_inline))
#define AQ_CONSTANT __constant
#endif

// The AQL dispatch packet (hsa_kernel_dispatch_packet_t): grid sizes at
// bytes 12, 16, 20.
AQ_FN unsigned aq_grid_size(unsigned dim)
{
    const AQ_CONSTANT unsigned* p = (const AQ_CONSTANT unsigned*)__builtin_amdgcn_dispatch_ptr();
    return dim < 3 ? p[3 + dim] : 1u;
}
AQ_FN unsigned aq_local_id(unsigned dim)
{
    return dim == 0 ? __builtin_amdgcn_workitem_id_x()
         : dim == 1 ? __builtin_amdgcn_workitem_id_y()
         : dim == 2 ? __builtin_amdgcn_workitem_id_z() : 0u;
}
AQ_FN unsigned aq_group_id(unsigned dim)
{
    return dim == 0 ? __builtin_amdgcn_workgroup_id_x()
         : dim == 1 ? __builtin_amdgcn_workgroup_id_y()
         : dim == 2 ? __builtin_amdgcn_workgroup_id_z() : 0u;
}
AQ_FN unsigned aq_group_size(unsigned dim)
{
    return dim == 0 ? __builtin_amdgcn_workgroup_size_x()
         : dim == 1 ? __builtin_amdgcn_workgroup_size_y()
         : dim == 2 ? __builtin_amdgcn_workgroup_size_z() : 1u;
}
AQ_FN unsigned aq_num_groups(unsigned dim)
{
    unsigned size = aq_group_size(dim);
    return (aq_grid_size(dim) + size - 1) / size;
}
// hidden_global_offset_x/y/z: 8 bytes each at +40 of the implicit arguments.
AQ_FN unsigned long aq_global_offset(unsigned dim)
{
    const AQ_CONSTANT unsigned long* p =
        (const AQ_CONSTANT unsigned long*)__builtin_amdgcn_implicitarg_ptr();
    return dim < 3 ? p[5 + dim] : 0ul;
}
// A workgroup barrier that orders memory at workgroup scope (LDS and
// global), as OpenCL's barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
// and HIP's __syncthreads().
AQ_FN void aq_barrier(void)
{
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#if defined(__OPENCL_C_VERSION__)
// ---- OpenCL C ------------------------------------------------------------
#define AQ_OVL __attribute__((overloadable, always_inline))
static inline AQ_OVL size_t get_local_id(uint d) { return aq_local_id(d); }
static inline AQ_OVL size_t get_group_id(uint d) { return aq_group_id(d); }
static inline AQ_OVL size_t get_local_size(uint d) { return aq_group_size(d); }
static inline AQ_OVL size_t get_enqueued_local_size(uint d) { return aq_group_size(d); }
static inline AQ_OVL size_t get_num_groups(uint d) { return aq_num_groups(d); }
static inline AQ_OVL size_t get_global_size(uint d) { return aq_grid_size(d); }
static inline AQ_OVL size_t get_global_offset(uint d) { return aq_global_offset(d); }
static inline AQ_OVL size_t get_global_id(uint d)
{
    return (size_t)aq_group_id(d) * aq_group_size(d) + aq_local_id(d) + aq_global_offset(d);
}
static inline AQ_OVL uint get_work_dim(void)
{
    return aq_grid_size(2) > 1 ? 3u : aq_grid_size(1) > 1 ? 2u : 1u;
}
static inline AQ_OVL void barrier(cl_mem_fence_flags flags)
{
    (void)flags;
    aq_barrier();
}

// 32-bit atomics on global and local memory (OpenCL 1.x names), relaxed at
// device scope as the OpenCL 1.x functions are.
#define AQ_ATOMIC2(name, builtin)                                                         \
    static inline AQ_OVL int name(volatile __global int* p, int v) { return builtin(p, v, __ATOMIC_RELAXED); } \
    static inline AQ_OVL uint name(volatile __global uint* p, uint v) { return builtin(p, v, __ATOMIC_RELAXED); } \
    static inline AQ_OVL int name(volatile __local int* p, int v) { return builtin(p, v, __ATOMIC_RELAXED); } \
    static inline AQ_OVL uint name(volatile __local uint* p, uint v) { return builtin(p, v, __ATOMIC_RELAXED); }
AQ_ATOMIC2(atomic_add, __atomic_fetch_add)
AQ_ATOMIC2(atomic_sub, __atomic_fetch_sub)
AQ_ATOMIC2(atomic_and, __atomic_fetch_and)
AQ_ATOMIC2(atomic_or, __atomic_fetch_or)
AQ_ATOMIC2(atomic_xor, __atomic_fetch_xor)
AQ_ATOMIC2(atomic_min, __atomic_fetch_min)
AQ_ATOMIC2(atomic_max, __atomic_fetch_max)
AQ_ATOMIC2(atomic_xchg, __atomic_exchange_n)
#undef AQ_ATOMIC2
#define AQ_ATOMIC_CMPXCHG(T, AS)                                                          \
    static inline AQ_OVL T atomic_cmpxchg(volatile AS T* p, T cmp, T v)                   \
    {                                                                                     \
        __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
        return cmp;                                                                       \
    }                                                                                     \
    static inline AQ_OVL T atomic_inc(volatile AS T* p) { return __atomic_fetch_add(p, (T)1, __ATOMIC_RELAXED); } \
    static inline AQ_OVL T atomic_dec(volatile AS T* p) { return __atomic_fetch_sub(p, (T)1, __ATOMIC_RELAXED); }
AQ_ATOMIC_CMPXCHG(int, __global)
AQ_ATOMIC_CMPXCHG(uint, __global)
AQ_ATOMIC_CMPXCHG(int, __local)
AQ_ATOMIC_CMPXCHG(uint, __local)
#undef AQ_ATOMIC_CMPXCHG

// Common float math (float; the backend expands each intrinsic inline).
static inline AQ_OVL float sqrt(float x) { return __builtin_sqrtf(x); }
static inline AQ_OVL float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
static inline AQ_OVL float fabs(float x) { return __builtin_fabsf(x); }
static inline AQ_OVL float fmin(float a, float b) { return __builtin_fminf(a, b); }
static inline AQ_OVL float fmax(float a, float b) { return __builtin_fmaxf(a, b); }
static inline AQ_OVL float floor(float x) { return __builtin_floorf(x); }
static inline AQ_OVL float ceil(float x) { return __builtin_ceilf(x); }
static inline AQ_OVL float trunc(float x) { return __builtin_truncf(x); }
static inline AQ_OVL float rint(float x) { return __builtin_rintf(x); }
static inline AQ_OVL float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static inline AQ_OVL float mad(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static inline AQ_OVL float exp2(float x) { return __builtin_exp2f(x); }
static inline AQ_OVL float exp(float x) { return __builtin_expf(x); }
static inline AQ_OVL float log2(float x) { return __builtin_log2f(x); }
static inline AQ_OVL float log(float x) { return __builtin_logf(x); }
static inline AQ_OVL float sin(float x) { return __builtin_sinf(x); }
static inline AQ_OVL float cos(float x) { return __builtin_cosf(x); }
static inline AQ_OVL uint min(uint a, uint b) { return a < b ? a : b; }
static inline AQ_OVL uint max(uint a, uint b) { return a > b ? a : b; }
static inline AQ_OVL int min(int a, int b) { return a < b ? a : b; }
static inline AQ_OVL int max(int a, int b) { return a > b ? a : b; }
#undef AQ_OVL

#elif defined(__HIP__)
// ---- HIP -----------------------------------------------------------------
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(n, ...) __attribute__((amdgpu_flat_work_group_size(1, n)))

struct aq_dim3 {
    unsigned x, y, z;
};
#define threadIdx (aq_dim3{aq_local_id(0), aq_local_id(1), aq_local_id(2)})
#define blockIdx (aq_dim3{aq_group_id(0), aq_group_id(1), aq_group_id(2)})
#define blockDim (aq_dim3{aq_group_size(0), aq_group_size(1), aq_group_size(2)})
#define gridDim (aq_dim3{aq_num_groups(0), aq_num_groups(1), aq_num_groups(2)})

__device__ inline void __syncthreads() { aq_barrier(); }
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }

// Device-scope relaxed atomics, as HIP's.
template <typename T> __device__ inline T atomicAdd(T* p, T v)
{
    return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicSub(T* p, T v)
{
    return __hip_atomic_fetch_add(p, (T)0 - v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicMin(T* p, T v)
{
    return __hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicMax(T* p, T v)
{
    return __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicExch(T* p, T v)
{
    return __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicCAS(T* p, T cmp, T v)
{
    __hip_atomic_compare_exchange_strong(p, &cmp, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_AGENT);
    return cmp;
}
template <typename T> __device__ inline T atomicAnd(T* p, T v)
{
    return __hip_atomic_fetch_and(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
template <typename T> __device__ inline T atomicOr(T* p, T v)
{
    return __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Common float math.
__device__ inline float sqrtf(float x) { return __builtin_sqrtf(x); }
__device__ inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
__device__ inline float fabsf(float x) { return __builtin_fabsf(x); }
__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ inline float floorf(float x) { return __builtin_floorf(x); }
__device__ inline float ceilf(float x) { return __builtin_ceilf(x); }
__device__ inline float truncf(float x) { return __builtin_truncf(x); }
__device__ inline float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__device__ inline float exp2f(float x) { return __builtin_exp2f(x); }
__device__ inline float expf(float x) { return __builtin_expf(x); }
__device__ inline float log2f(float x) { return __builtin_log2f(x); }
__device__ inline float logf(float x) { return __builtin_logf(x); }
__device__ inline float sinf(float x) { return __builtin_sinf(x); }
__device__ inline float cosf(float x) { return __builtin_cosf(x); }
__device__ inline double sqrt(double x) { return __builtin_sqrt(x); }
__device__ inline double fabs(double x) { return __builtin_fabs(x); }
__device__ inline double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
#else
#error "aqueduct_device.h is for OpenCL C (-x cl) or HIP (-x hip) device code"
#endif
