// Two entry points in one module, each with its own binding subset.
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(1) @binding(0) var<uniform> k: u32;

@compute @workgroup_size(16)
fn square(@builtin(global_invocation_id) gid: vec3<u32>) {
    a[gid.x] = a[gid.x] * a[gid.x];
}

@compute @workgroup_size(8)
fn add_k(@builtin(global_invocation_id) gid: vec3<u32>) {
    b[gid.x] = b[gid.x] + k;
}
