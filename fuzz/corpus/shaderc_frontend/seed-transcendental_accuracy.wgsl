// Accuracy sweeps of exp/exp2/log/log2/pow/tanh/atan2 against the f64 host
// (WGSL's accuracy rules, checked by exec_math.rs).
@group(0) @binding(0) var<storage, read> x: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<array<f32, 8>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let e = v.x * 0.01;          // exp argument in (-80, 80)
    let p = abs(v.y) + 1e-30;    // positive
    out[gid.x] = array<f32, 8>(
        exp(e), exp2(e), log(p), log2(p), pow(p, e * 0.05), tanh(e * 0.1), atan2(v.x, v.y), sinh(e * 0.1));
}
