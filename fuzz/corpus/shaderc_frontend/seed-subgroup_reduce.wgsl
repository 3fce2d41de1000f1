// Subgroup reductions, scans, all/any and ballots, over full waves and over
// a divergent subset of lanes (only the active lanes take part).

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

const SLOTS: u32 = 32u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = data[i];
    let s = i32(x) - 500;
    let f = f32(x) * 0.125 - 3.0;
    let base = i * SLOTS;
    out[base + 0u] = subgroupAdd(x);
    out[base + 1u] = subgroupMul(x | 1u);
    out[base + 2u] = subgroupMin(x);
    out[base + 3u] = subgroupMax(x);
    out[base + 4u] = subgroupAnd(x | 0x10000u);
    out[base + 5u] = subgroupOr(x);
    out[base + 6u] = subgroupXor(x);
    out[base + 7u] = bitcast<u32>(subgroupMin(s));
    out[base + 8u] = bitcast<u32>(subgroupMax(s));
    out[base + 9u] = bitcast<u32>(subgroupAdd(f));
    out[base + 10u] = subgroupInclusiveAdd(x);
    out[base + 11u] = subgroupExclusiveAdd(x);
    out[base + 12u] = subgroupInclusiveMul(x | 1u);
    out[base + 13u] = subgroupExclusiveMul(x | 1u);
    out[base + 14u] = u32(subgroupAll(x < 1000u)) | (u32(subgroupAll(x % 2u == 0u)) << 1u);
    out[base + 15u] = u32(subgroupAny(x == 7u)) | (u32(subgroupAny(x < 1000u)) << 1u);
    let b = subgroupBallot(x % 3u == 0u);
    out[base + 16u] = b.x;
    out[base + 17u] = b.y | b.z | b.w;
    let v = subgroupAdd(vec3<u32>(x, x * 2u, x + 1u));
    out[base + 18u] = v.x ^ (v.y << 8u) ^ (v.z << 16u);
    out[base + 19u] = bitcast<u32>(subgroupMax(vec2<f32>(f, -f)).y);
    out[base + 20u] = bitcast<u32>(subgroupExclusiveAdd(f));
    if (x % 3u != 0u) {
        out[base + 21u] = subgroupAdd(x);
        out[base + 22u] = subgroupMin(x);
        out[base + 23u] = subgroupExclusiveAdd(x);
        out[base + 24u] = subgroupBallot().x;
        out[base + 25u] = u32(subgroupAll(x % 3u == 1u));
        out[base + 26u] = subgroupBroadcastFirst(x);
        out[base + 27u] = subgroupInclusiveMul(x % 5u + 1u);
        if (x % 2u == 0u) {
            out[base + 28u] = subgroupMax(x);
            out[base + 29u] = subgroupBallot(true).x;
        }
    }
    subgroupBarrier();
}
