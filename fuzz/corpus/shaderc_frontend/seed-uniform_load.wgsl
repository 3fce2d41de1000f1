// workgroupUniformLoad: invocation 0 stores a value, every invocation
// reads it through workgroupUniformLoad (which includes the barriers).
@group(0) @binding(0) var<storage, read> seeds: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> shared_seed: u32;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if (li == 0u) { shared_seed = seeds[wid.x] * 3u; }
    let s = workgroupUniformLoad(&shared_seed);
    out[wid.x * 32u + li] = s + li;
}
