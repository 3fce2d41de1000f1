// Host-shareable layout: vec3 followed by a scalar (offset 12), nested
// structs, arrays of vec2 (stride 8), mat3x3 (column stride 16); the shader
// reads every field and writes a transformed copy.
struct Inner { v: vec2<f32>, k: u32 }
struct Rec {
    pos: vec3<f32>,
    w: f32,
    inner: Inner,
    arr: array<vec2<f32>, 3>,
    m: mat3x3<f32>,
    flag: u32,
}
@group(0) @binding(0) var<storage, read> recs: array<Rec>;
@group(0) @binding(1) var<storage, read_write> outs: array<Rec>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var r = recs[i];
    r.pos = r.pos * 2.0 + vec3<f32>(r.w);
    r.inner.k = r.inner.k + 1u;
    r.inner.v = r.inner.v.yx;
    r.arr[1] = r.arr[0] + r.arr[2];
    r.m = transpose(r.m);
    r.flag = r.flag ^ 0xffffffffu;
    outs[i] = r;
}
