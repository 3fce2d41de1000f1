// Subgroup broadcasts, shuffles and quad operations, on scalars and on
// vectors of 16-, 32- and (vec2 of) 32-bit elements.
enable f16;

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

const SLOTS: u32 = 16u;

fn lane_of(x: u32) -> u32 {
    return (x * 7u) % 32u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = data[i];
    let base = i * SLOTS;
    out[base + 0u] = subgroupBroadcastFirst(x);
    out[base + 1u] = subgroupBroadcast(x, 5u);
    out[base + 2u] = subgroupShuffle(x, lane_of(x));
    out[base + 3u] = subgroupShuffleXor(x, 5u);
    out[base + 4u] = subgroupShuffleUp(x, 3u);
    out[base + 5u] = subgroupShuffleDown(x, 2u);
    out[base + 6u] = quadBroadcast(x, 2u);
    out[base + 7u] = quadSwapX(x);
    out[base + 8u] = quadSwapY(x);
    out[base + 9u] = quadSwapDiagonal(x);
    let v = subgroupShuffleXor(vec3<f32>(f32(x), f32(x) * 0.5, -f32(x)), 9u);
    out[base + 10u] = bitcast<u32>(v.x + v.y * 4.0 - v.z * 16.0);
    let h = subgroupBroadcast(vec2<f16>(f16(x % 1024u), f16(1.5)), 17u);
    out[base + 11u] = pack2x16float(vec2<f32>(h));
    let q = subgroupShuffle(vec4<u32>(x, x + 1u, x + 2u, x + 3u), 31u - (x % 32u));
    out[base + 12u] = q.x ^ (q.w << 12u);
    out[base + 13u] = bitcast<u32>(subgroupShuffleDown(i32(x) - 100, 1u));
}
