// extractBits (u32, i32, vectors) and insertBits with WGSL's clamping of
// offset and count.
struct Req { v: u32, nb: u32, off: u32, cnt: u32 }
@group(0) @binding(0) var<storage, read> reqs: array<Req>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = reqs[gid.x];
    let ev = extractBits(vec2<u32>(r.v, r.nb), r.off, r.cnt);
    out[gid.x] = vec4<u32>(extractBits(r.v, r.off, r.cnt), bitcast<u32>(extractBits(bitcast<i32>(r.v), r.off, r.cnt)),
                           insertBits(r.v, r.nb, r.off, r.cnt), ev.y);
}
