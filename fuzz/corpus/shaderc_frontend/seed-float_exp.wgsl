// sqrt, inverseSqrt, exp, exp2, log, log2, pow on positive inputs.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<array<f32, 7>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    out[gid.x] = array<f32, 7>(sqrt(v), inverseSqrt(v), exp(v * 0.25), exp2(v * 0.5), log(v), log2(v), pow(v, 1.7));
}
