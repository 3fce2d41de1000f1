// hip_private_bareiss: det[i] = determinant of the 6x6 integer matrix m[i*36 ..] (row-major
// i64), by fraction-free Bareiss elimination with row swaps on a private copy (run-time
// indices: scratch); exact in i64 for small entries.
#include "corpus_hip.h"

#define N 6
KERNEL void hip_private_bareiss(const i64* m, i64* det)
{
    u32 i = gid_x();
    i64 a[N][N];
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            a[r][c] = m[i * N * N + r * N + c];
    i64 sign = 1, prev = 1;
    for (int k = 0; k < N - 1; k++) {
        if (a[k][k] == 0) {
            int p = k + 1;
            while (p < N && a[p][k] == 0)
                p++;
            if (p == N) {
                det[i] = 0;
                return;
            }
            for (int c = 0; c < N; c++) {
                i64 t = a[k][c];
                a[k][c] = a[p][c];
                a[p][c] = t;
            }
            sign = -sign;
        }
        for (int r = k + 1; r < N; r++)
            for (int c = k + 1; c < N; c++)
                a[r][c] = (a[r][c] * a[k][k] - a[r][k] * a[k][c]) / prev;
        prev = a[k][k];
    }
    det[i] = sign * a[N - 1][N - 1];
}
