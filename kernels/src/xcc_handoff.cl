// xcc_handoff: a handoff between workgroups with no waiting (the "last
// block" pattern). Work-item 0 of each of the `groups` workgroups stores
// partial[g] = 7 * g + 3, then takes a ticket (an atomic add on a counter)
// with acquire-release ordering at the kernel's scope; the workgroup that
// takes the last ticket reads every partial value and stores their sum at
// out[0] and its own index at out[1].
//
// Built for gfx942, where the workgroups of a dispatch spread over XCCs
// that each have their own L2: at device scope clang-19 brackets the add
// with `buffer_wbl2 sc1` and `buffer_inv sc1`, which is correct; at
// work-group scope it emits no cache maintenance at all, which is correct
// only on an agent with one L2 (the last workgroup may read old lines).
#include "aqueduct_kernel.h"

#define HANDOFF(name, scope)                                                      \
    ANY_WG_SIZE kernel void name(global uint* partial, global atomic_uint* ticket, \
                                 global uint* out, uint groups)                   \
    {                                                                             \
        if (LID_X() != 0)                                                         \
            return;                                                               \
        uint g = WG_X();                                                          \
        partial[g] = 7 * g + 3;                                                   \
        uint t = __opencl_atomic_fetch_add(ticket, 1u, memory_order_acq_rel, scope); \
        if (t != groups - 1)                                                      \
            return;                                                               \
        uint sum = 0;                                                             \
        for (uint i = 0; i < groups; i++)                                         \
            sum += partial[i];                                                    \
        out[0] = sum;                                                             \
        out[1] = g;                                                               \
    }

HANDOFF(handoff_device, memory_scope_device)
HANDOFF(handoff_work_group, memory_scope_work_group)
