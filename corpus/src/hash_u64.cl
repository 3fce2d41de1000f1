// hash_u64: out[i] = four rounds of the splitmix64 finaliser applied to seed + i * golden
// (64-bit multiplies, shifts and xors), where golden = 0x9e3779b97f4a7c15.
#include "corpus_cl.h"

UP_TO_1024 kernel void hash_u64(global ulong* out, ulong seed)
{
    uint i = GID_X();
    ulong z = seed + (ulong)i * 0x9e3779b97f4a7c15ul;
    for (int r = 0; r < 4; r++) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
        z ^= z >> 31;
    }
    out[i] = z;
}
