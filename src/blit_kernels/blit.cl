// Aqueduct facade kernels for dispatch_workgroups_indirect and query resolves (copies and
// clears are the WGSL blit kernels in shaders/). OpenCL rather than WGSL because
// dispatch_patch publishes an AQL packet header with a system-scope release store,
// and copy_strided_u64 moves 64-bit words at a byte stride.
// Built by build.sh with clang-19 (-nogpulib, code object v5) and checked in.

#define GID_X() (__builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x())
#define ANY_WG_SIZE __attribute__((amdgpu_flat_work_group_size(1, 1024)))

// dispatch_patch: turns the AQL packet at `packet` (written by the host with an
// INVALID header, everything else final except the grid size) into the
// dispatch an indirect-args buffer asks for. Reads the x, y, z workgroup
// counts at `args`; if one is 0 or above `max_groups`, or the grid would hold
// more than `max_items` work-items (the agent's grid max size, which the
// command processor enforces), the packet becomes a no-op barrier-AND
// (WebGPU: such an indirect dispatch does nothing); otherwise it sets
// the grid size (counts times workgroup size), writes the workgroup counts into
// the dispatch's kernarg block at `block_count_offset` (the hidden
// hidden_block_count_x/y/z words; ~0 if the kernel has none; the host wrote the
// block for one whole workgroup per dimension, so the remainders are already 0),
// and publishes the header word last with a system-scope
// release so the command processor sees a complete packet.
ANY_WG_SIZE kernel void dispatch_patch(global const uint* restrict args, global uint* restrict packet,
                                       global uint* restrict kernarg, uint block_count_offset,
                                       uint header_dispatch, uint header_nop,
                                       uint wg_x, uint wg_y, uint wg_z, uint max_groups,
                                       uint max_items)
{
    if (GID_X() != 0)
        return;
    uint x = args[0], y = args[1], z = args[2];
    bool run = x != 0 && y != 0 && z != 0 && x <= max_groups && y <= max_groups && z <= max_groups;
    if (run) {
        // Each factor is at most 2^16 * 2^10 (max_groups and workgroup sizes are
        // validated on the host), so the partial products fit 64 bits.
        ulong xy = (ulong)(x * wg_x) * (ulong)(y * wg_y);
        run = xy <= max_items && xy * (ulong)(z * wg_z) <= max_items;
    }
    uint header;
    if (run) {
        packet[3] = x * wg_x;
        packet[4] = y * wg_y;
        packet[5] = z * wg_z;
        if (block_count_offset != ~0u) {
            kernarg[block_count_offset / 4 + 0] = x;
            kernarg[block_count_offset / 4 + 1] = y;
            kernarg[block_count_offset / 4 + 2] = z;
        }
        header = header_dispatch;
    } else {
        for (uint w = 2; w < 14; ++w)
            packet[w] = 0;
        header = header_nop;
    }
    __atomic_store_n(&packet[0], header, __ATOMIC_RELEASE);
}

// copy_strided_u64: dst[i] = the 64-bit word at byte src + i * src_stride,
// for i < count (one work-item each). resolve_query_set uses it to gather
// each query's end_ts (offset 40 of its 64-byte amd_signal_t) into the
// resolve buffer; src and src_stride are multiples of 8.
ANY_WG_SIZE kernel void copy_strided_u64(global const uchar* restrict src, uint src_stride,
                                         global ulong* restrict dst, uint count)
{
    uint i = GID_X();
    if (i >= count)
        return;
    dst[i] = *(global const ulong*)(src + (ulong)i * src_stride);
}
