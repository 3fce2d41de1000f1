// spill_vgpr: 40 live u32 accumulators updated for `rounds` rounds, with the kernel limited to
// 24 VGPRs so the register allocator must spill to scratch. out[i*40 + k] = accumulator k:
// acc[k] starts at x + k and each round does acc[k] = acc[k] * 33 + acc[(k + 1) % 40] ^ r.
#include "corpus_cl.h"

#define K 40
__attribute__((amdgpu_num_vgpr(24))) UP_TO_1024 kernel void spill_vgpr(global const uint* x,
                                                                         global uint* out, uint rounds)
{
    uint i = GID_X();
    uint acc[K];
#pragma unroll
    for (uint k = 0; k < K; k++)
        acc[k] = x[i] + k;
    for (uint r = 0; r < rounds; r++) {
        uint first = acc[0];
#pragma unroll
        for (uint k = 0; k < K - 1; k++)
            acc[k] = (acc[k] * 33u + acc[k + 1]) ^ r;
        acc[K - 1] = (acc[K - 1] * 33u + first) ^ r;
    }
#pragma unroll
    for (uint k = 0; k < K; k++)
        out[i * K + k] = acc[k];
}
