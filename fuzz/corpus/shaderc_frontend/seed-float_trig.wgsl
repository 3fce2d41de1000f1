// Trigonometric and hyperbolic builtins and their inverses.
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<array<f32, 16>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];      // in (-1, 1)
    let w = v * 3.0;       // in (-3, 3)
    out[gid.x] = array<f32, 16>(
        sin(w), cos(w), tan(v), asin(v), acos(v), atan(w), atan2(v, w - 0.5),
        sinh(v), cosh(v), tanh(w), asinh(w), acosh(2.0 + abs(w)), atanh(v * 0.9),
        radians(w * 60.0), degrees(v), atan2(-v, -1.0));
}
