// Accuracy sweeps: sin/cos/tan over large arguments (range reduction) and
// asin/acos near +-1, compared with the f64 host by exec_math.rs.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn trig(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    out[gid.x] = vec4<f32>(sin(v), cos(v), tan(v), 0.0);
}

@compute @workgroup_size(64)
fn inverse(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let p = vec2<f32>(asin(v), acos(v));
    out[gid.x] = vec4<f32>(p, atan(v), 0.0);
}
