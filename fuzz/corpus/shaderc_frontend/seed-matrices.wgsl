// Matrix arithmetic: mat*vec, vec*mat, mat*mat, mat+mat, mat*scalar,
// transpose, determinant (2x2, 3x3, 4x4), mat2x3 shapes.
@group(0) @binding(0) var<storage, read> ms: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = ms[i];
    let v = vs[i];
    let mm = m * transpose(m) + m * 0.5 - m;
    let m3 = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    let m2 = mat2x2<f32>(m[0].xy, m[1].xy);
    let m23 = mat2x3<f32>(m[0].xyz, m[1].xyz);
    let r23 = m23 * v.xy;
    out[i * 5u + 0u] = m * v;
    out[i * 5u + 1u] = v * m;
    out[i * 5u + 2u] = mm[i % 4u];
    out[i * 5u + 3u] = vec4<f32>(determinant(m2), determinant(m3), determinant(m), r23.z);
    out[i * 5u + 4u] = vec4<f32>(r23.xy, (v.xyz * m23).y, 0.0);
}
