// enable f16: half arithmetic, conversions, f16 vectors in storage.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> hout: array<vec2<f16>>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let s = v.x * v.y + 1.5h;
    let m = max(v.x, v.y);
    hout[gid.x] = vec2<f16>(s, -v.x) * 2.0h;
    out[gid.x] = vec4<f32>(f32(s), f32(m), f32(v.x / 2.0h), f32(f16(f32(v.y) * 3.0)));
}
