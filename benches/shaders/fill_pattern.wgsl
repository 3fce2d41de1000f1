// cargo bench --bench dispatch, readback: a seed-dependent pattern the
// host checks word for word (as benches/wgpu-peer/src/readback.rs).
struct Params { seed: u32, words: u32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + lid;
    if (i < params.words) {
        out[i] = (i * 2654435761u) ^ params.seed;
    }
}
