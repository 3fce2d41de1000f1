// mat3x3<f32> in storage (column stride 16), columns written through a
// dynamically indexed pointer.
@group(0) @binding(0) var<storage, read_write> ms: array<mat3x3<f32>>;
@group(0) @binding(1) var<storage, read> vs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    out[i] = vec4<f32>(ms[i] * vs[i].xyz, 1.0);
    let c = i % 3u;
    ms[i][c] = ms[i][c] + vec3<f32>(1.0, 2.0, 3.0);
    ms[i][(c + 1u) % 3u].y = -5.0;
}
