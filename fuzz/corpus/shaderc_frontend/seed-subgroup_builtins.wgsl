// Subgroup builtins: size, lane id, subgroup id and count, with a partial
// last wave (80 invocations = 32 + 32 + 16 on wave32 targets).

@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(80)
fn main(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) id: u32,
    @builtin(num_subgroups) count: u32,
) {
    out[wg.x * 80u + li] = vec4<u32>(size, lane, id, count);
}
