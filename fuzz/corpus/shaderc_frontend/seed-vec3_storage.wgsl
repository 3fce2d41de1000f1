// array<vec3<f32>> in storage (stride 16) and vec3 pointers.
@group(0) @binding(0) var<storage, read_write> pts: array<vec3<f32>>;

fn scale(p: ptr<function, vec3<f32>>, s: f32) { *p = *p * s; }

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var v = pts[gid.x];
    scale(&v, 2.0);
    v.z = v.x + v.y;
    pts[gid.x] = v;
}
