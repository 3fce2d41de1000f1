// cargo bench --bench workgroups, "tiny": one invocation per workgroup that
// writes its flat workgroup index, so the cost measured is what each
// workgroup costs the device, with almost no work inside it (the same kernel
// as benches/wgpu-peer/src/workgroups.rs).
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn tiny(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = wg.x + wg.y * n.x + wg.z * n.x * n.y;
    out[i] = i + 1u;
}
