// Helpers for the OpenCL C corpus kernels.
//
// The corpus is compiled with -nogpulib (no ROCm device library), so work-item
// queries are written with AMDGPU builtins. Group sizes come from the code object v5
// hidden arguments, which __builtin_amdgcn_workgroup_size_* read. Float contraction
// is off in every kernel (the pragma below): a fused multiply-add appears only where
// the source asks for one, so host references can reproduce results bit for bit.
#pragma once
#pragma OPENCL FP_CONTRACT OFF

#define LID_X() __builtin_amdgcn_workitem_id_x()
#define LID_Y() __builtin_amdgcn_workitem_id_y()
#define LID_Z() __builtin_amdgcn_workitem_id_z()
#define WG_X() __builtin_amdgcn_workgroup_id_x()
#define WG_Y() __builtin_amdgcn_workgroup_id_y()
#define WG_Z() __builtin_amdgcn_workgroup_id_z()
#define WGSIZE_X() ((uint)__builtin_amdgcn_workgroup_size_x())
#define WGSIZE_Y() ((uint)__builtin_amdgcn_workgroup_size_y())
#define WGSIZE_Z() ((uint)__builtin_amdgcn_workgroup_size_z())
#define GID_X() (WG_X() * WGSIZE_X() + LID_X())

// A workgroup barrier that also orders LDS (and global) accesses at workgroup scope.
#define BARRIER()                                               \
    do {                                                        \
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");  \
        __builtin_amdgcn_s_barrier();                           \
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");  \
    } while (0)

// Kernels that accept any group size up to the hardware limit (clang's OpenCL default is 256).
#define UP_TO_1024 __attribute__((amdgpu_flat_work_group_size(1, 1024)))

// Relaxed atomics at agent scope (the default scope of the __atomic builtins is system).
#define ATOMIC_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
