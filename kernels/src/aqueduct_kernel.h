// Shared helpers for Aqueduct's test kernels.
//
// The kernels are built with -nogpulib (no ROCm device library), so the OpenCL
// work-item functions are spelled with the AMDGPU builtins directly. The
// workgroup size comes from the code object v5 hidden arguments
// (hidden_group_size_*), which the builtins read; global offsets come from the
// implicit argument block (hidden_global_offset_* at +40/+48/+56).
#pragma once

#define LID_X() __builtin_amdgcn_workitem_id_x()
#define LID_Y() __builtin_amdgcn_workitem_id_y()
#define LID_Z() __builtin_amdgcn_workitem_id_z()
#define WG_X() __builtin_amdgcn_workgroup_id_x()
#define WG_Y() __builtin_amdgcn_workgroup_id_y()
#define WG_Z() __builtin_amdgcn_workgroup_id_z()
#define WGSIZE_X() __builtin_amdgcn_workgroup_size_x()
#define WGSIZE_Y() __builtin_amdgcn_workgroup_size_y()
#define WGSIZE_Z() __builtin_amdgcn_workgroup_size_z()

// Global id in x without the global offset (what most kernels use).
#define GID_X() (WG_X() * WGSIZE_X() + LID_X())

// Workgroup barrier with release/acquire fences at workgroup scope, so LDS
// writes before the barrier are visible after it.
#define WG_BARRIER()                                       \
    do {                                                   \
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
        __builtin_amdgcn_s_barrier();                      \
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); \
    } while (0)

// Without an attribute, clang limits OpenCL kernels to 256 work-items per
// workgroup (.max_flat_workgroup_size 256); the test kernels allow up to 1024.
#define ANY_WG_SIZE __attribute__((amdgpu_flat_work_group_size(1, 1024)))
