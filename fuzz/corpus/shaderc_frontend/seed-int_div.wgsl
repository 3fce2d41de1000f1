// WGSL integer division and remainder rules: x / 0 = x, x % 0 = 0,
// i32::MIN / -1 = i32::MIN, i32::MIN % -1 = 0; and masked shift amounts.
struct Pair { a: i32, b: i32 }
@group(0) @binding(0) var<storage, read> pairs: array<Pair>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> uout: array<vec4<u32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&pairs)) { return; }
    let p = pairs[i];
    out[i] = vec4<i32>(p.a / p.b, p.a % p.b, p.a << u32(p.b), p.a >> u32(p.b));
    let ua = u32(p.a);
    let ub = u32(p.b);
    uout[i] = vec4<u32>(ua / ub, ua % ub, ua << ub, ua >> ub);
}
