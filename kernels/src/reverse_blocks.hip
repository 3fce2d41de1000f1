// reverse_blocks: in place, each workgroup of size S reverses its slice data[g*S .. g*S + S)
// (1D; the last group's slice ends at n). The slice goes through `extern __shared__` memory
// of S elements that the host sizes at launch (hipLaunchKernelGGL's sharedMem;
// aqueduct-run: --dynamic-lds BYTES), after the static __shared__ `count`, so the dynamic
// array starts past the kernel's static LDS. Two overloads (unsigned and float elements)
// share the name, as C++ kernels often do: their symbols are the Itanium-mangled
// _Z14reverse_blocksPjj and _Z14reverse_blocksPfj.
// block_ids: out[i] = the workgroup id of work-item i, for i < n (symbol _Z9block_idsPjj,
// a C++ kernel whose plain name is unique).
// Built device-only with clang-19 -x hip -nogpuinc (kernels/build.sh), so the HIP keywords
// and work-item functions are spelled with clang's attributes and AMDGPU builtins.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define KERNEL __global__ __attribute__((amdgpu_flat_work_group_size(1, 1024)))

__device__ inline void wg_barrier()
{
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

extern __shared__ unsigned char dynamic_lds[];

template <typename T> __device__ void reverse_slice(T* data, unsigned n)
{
    __shared__ unsigned count;
    T* tile = reinterpret_cast<T*>(dynamic_lds);
    unsigned lid = __builtin_amdgcn_workitem_id_x();
    unsigned size = __builtin_amdgcn_workgroup_size_x();
    unsigned first = __builtin_amdgcn_workgroup_id_x() * size;
    if (lid == 0)
        count = n - first < size ? n - first : size;
    wg_barrier();
    unsigned live = count;
    if (lid < live)
        tile[lid] = data[first + lid];
    wg_barrier();
    if (lid < live)
        data[first + lid] = tile[live - 1 - lid];
}

KERNEL void reverse_blocks(unsigned* data, unsigned n) { reverse_slice(data, n); }
KERNEL void reverse_blocks(float* data, unsigned n) { reverse_slice(data, n); }

KERNEL void block_ids(unsigned* out, unsigned n)
{
    unsigned group = __builtin_amdgcn_workgroup_id_x();
    unsigned i = group * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i < n)
        out[i] = group;
}
