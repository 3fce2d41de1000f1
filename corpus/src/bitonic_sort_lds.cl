// bitonic_sort_lds: sorts each group's S u32 keys ascending in LDS (S a power of two);
// log2(S)*(log2(S)+1)/2 compare-exchange stages, one barrier each.
#include "corpus_cl.h"

UP_TO_1024 kernel void bitonic_sort_lds(global uint* keys)
{
    local uint k[1024];
    uint lid = LID_X(), size = WGSIZE_X(), base = WG_X() * size;
    k[lid] = keys[base + lid];
    BARRIER();
    for (uint len = 2; len <= size; len <<= 1) {
        for (uint j = len >> 1; j > 0; j >>= 1) {
            uint partner = lid ^ j;
            if (partner > lid) {
                bool up = (lid & len) == 0;
                uint a = k[lid], b = k[partner];
                if ((a > b) == up) {
                    k[lid] = b;
                    k[partner] = a;
                }
            }
            BARRIER();
        }
    }
    keys[base + lid] = k[lid];
}
