// Rounding builtins: floor, ceil, round (ties to even), trunc, fract.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> fr: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    out[gid.x] = vec4<f32>(floor(v), ceil(v), round(v), trunc(v));
    fr[gid.x] = fract(v);
}
