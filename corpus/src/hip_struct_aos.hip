// hip_struct_aos: array-of-structs in, struct-of-arrays out: for particle p = {x, y, z, id}
// (16-byte struct, one 128-bit load), len[i] = x*x + y*y + z*z (f32, left to right, unfused),
// ids[i] = id ^ i, and box[i] = {min(x,y,z), max(x,y,z)} as an 8-byte struct.
#include "corpus_hip.h"

struct Particle {
    float x, y, z;
    u32 id;
};
struct Range {
    float lo, hi;
};

KERNEL void hip_struct_aos(const Particle* p, float* len, u32* ids, Range* box)
{
    u32 i = gid_x();
    Particle q = p[i];
    len[i] = q.x * q.x + q.y * q.y + q.z * q.z;
    ids[i] = q.id ^ i;
    float lo = q.x < q.y ? q.x : q.y, hi = q.x < q.y ? q.y : q.x;
    lo = q.z < lo ? q.z : lo;
    hi = q.z > hi ? q.z : hi;
    box[i] = Range{lo, hi};
}
