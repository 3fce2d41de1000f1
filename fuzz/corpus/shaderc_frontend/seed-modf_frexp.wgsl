// modf, frexp and ldexp (struct-returning builtins).
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> exps: array<i32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let m = modf(v);
    let f = frexp(v);
    out[gid.x] = vec4<f32>(m.fract, m.whole, f.fract, ldexp(f.fract, f.exp + 1));
    exps[gid.x] = f.exp;
}
