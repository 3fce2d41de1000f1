// private_sort: each item insertion-sorts its own 48 u32 (keys[i*48 ..]) in a private array
// indexed with run-time indices (scratch memory), then writes them back in order.
#include "corpus_cl.h"

#define N 48
UP_TO_1024 kernel void private_sort(global uint* keys)
{
    uint a[N];
    global uint* mine = keys + GID_X() * N;
    for (uint j = 0; j < N; j++)
        a[j] = mine[j];
    for (uint j = 1; j < N; j++) {
        uint v = a[j];
        int k = (int)j - 1;
        while (k >= 0 && a[k] > v) {
            a[k + 1] = a[k];
            k--;
        }
        a[k + 1] = v;
    }
    for (uint j = 0; j < N; j++)
        mine[j] = a[j];
}
