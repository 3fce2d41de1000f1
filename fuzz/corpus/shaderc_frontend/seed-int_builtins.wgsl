// Integer builtins: abs, min, max, clamp, sign (i32), dot of integer
// vectors, wrapping arithmetic.
@group(0) @binding(0) var<storage, read> x: array<vec2<i32>>;
@group(0) @binding(1) var<storage, read_write> out: array<array<i32, 8>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let a = x[gid.x].x;
    let b = x[gid.x].y;
    let ua = u32(a);
    let ub = u32(b);
    out[gid.x] = array<i32, 8>(abs(a), min(a, b), max(a, b), clamp(a, -100, 100), sign(b),
        i32(min(ua, ub)), dot(vec3<i32>(a, b, 3), vec3<i32>(2, -1, a)), a * b + a - b);
}
