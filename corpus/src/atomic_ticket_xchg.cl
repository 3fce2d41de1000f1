// atomic_ticket_xchg: each item takes a ticket t = counter++ and writes order[t] = i (so order
// is a permutation of the ids), and swaps its id into last (prev[i] = the value it replaced):
// the prev values plus the final last are the initial value plus every id, each once.
#include "corpus_cl.h"

UP_TO_1024 kernel void atomic_ticket_xchg(global uint* counter, global uint* order, global uint* last,
                                          global uint* prev)
{
    uint i = GID_X();
    uint t = __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
    order[t] = i;
    prev[i] = __atomic_exchange_n(last, i, __ATOMIC_RELAXED);
}
