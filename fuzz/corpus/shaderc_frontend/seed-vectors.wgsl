// Vector construction, swizzles, splats, dynamic component indexing,
// component-wise arithmetic, select and any/all.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> flags: array<vec4<u32>>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = a[i];
    let s = v.wzyx + vec4<f32>(v.xy, 1.0, 2.0) * 2.0;
    var t = vec3<f32>(v.x);
    t.y = v[i % 4u];
    t[(i + 1u) % 3u] = 7.0;
    let gt = v > vec4<f32>(0.5);
    out[i * 2u] = s;
    out[i * 2u + 1u] = vec4<f32>(t, select(-1.0, 1.0, any(gt)));
    let sel = select(vec4<u32>(0u), vec4<u32>(1u, 2u, 3u, 4u), gt);
    flags[i] = sel + vec4<u32>(u32(all(gt)) * 100u, 0u, 0u, 0u);
}
