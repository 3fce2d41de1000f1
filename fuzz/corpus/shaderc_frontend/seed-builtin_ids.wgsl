// Compute builtins in a 3D dispatch: local_invocation_id/index,
// workgroup_id, global_invocation_id, num_workgroups.
struct Ids {
    lid: vec3<u32>, lidx: u32,
    wid: vec3<u32>, pad0: u32,
    gid: vec3<u32>, pad1: u32,
    nwg: vec3<u32>, pad2: u32,
}
@group(0) @binding(0) var<storage, read_write> out: array<Ids>;

@compute @workgroup_size(4, 2, 2)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) lidx: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let flat_group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    let slot = flat_group * 16u + lidx;
    out[slot] = Ids(lid, lidx, wid, 0u, gid, 0u, nwg, 0u);
}
