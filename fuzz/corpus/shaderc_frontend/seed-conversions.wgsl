// Conversions and bitcasts: f32->i32/u32 saturate, int->f32, bool->int,
// bitcast between u32, i32 and f32.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let as_i = i32(v);
    let as_u = u32(v);
    let back = f32(as_i) + f32(as_u) * 0.5;
    out[gid.x] = vec4<u32>(bitcast<u32>(as_i), as_u, bitcast<u32>(back), u32(v > 0.0) + bitcast<u32>(bitcast<f32>(0x3f800000u) * 2.0));
}
