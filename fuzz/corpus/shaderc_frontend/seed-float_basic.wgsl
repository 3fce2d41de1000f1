// f32 arithmetic and comparison builtins: + - * / %, abs, min, max, clamp,
// fma, saturate, sign, comparisons.
@group(0) @binding(0) var<storage, read> ab: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<array<f32, 12>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let a = ab[i].x;
    let b = ab[i].y;
    var r: array<f32, 12>;
    r[0] = a + b;
    r[1] = a - b;
    r[2] = a * b;
    r[3] = a / b;
    r[4] = a % b;
    r[5] = abs(a);
    r[6] = min(a, b) + max(a, b) * 10.0;
    r[7] = clamp(a, -0.5, 0.75);
    r[8] = fma(a, b, 0.25);
    r[9] = saturate(a);
    r[10] = sign(a) + 10.0 * sign(b - b);
    r[11] = f32(a < b) + 2.0 * f32(a >= b) + 4.0 * f32(a == a) + 8.0 * f32(a != b);
    out[i] = r;
}
