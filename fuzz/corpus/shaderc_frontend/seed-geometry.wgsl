// Geometric builtins: dot, cross, length, normalize, distance, reflect,
// faceForward, refract, mix, step, smoothstep.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<array<vec4<f32>, 4>>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let p = a[i];
    let q = b[i];
    let n = normalize(q.xyz);
    out[i] = array<vec4<f32>, 4>(
        vec4<f32>(cross(p.xyz, q.xyz), dot(p, q)),
        vec4<f32>(length(p), distance(p, q), length(p.x), f32(dot(vec2<i32>(i32(i), 2), vec2<i32>(3, -1)))),
        vec4<f32>(reflect(p.xyz, n), smoothstep(-1.0, 1.0, p.w)),
        vec4<f32>(refract(normalize(p.xyz), n, 0.7) + faceForward(n, p.xyz, q.xyz), step(0.0, p.w)) + mix(p, q, 0.25));
}
