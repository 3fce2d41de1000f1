// Workgroup tree reduction in var<workgroup> memory with workgroupBarrier;
// out[wid] = sum of the group's 128 inputs.
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
var<workgroup> scratch: array<u32, 128>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    scratch[li] = data[wid.x * 128u + li];
    workgroupBarrier();
    for (var stride = 64u; stride > 0u; stride = stride / 2u) {
        if (li < stride) {
            scratch[li] = scratch[li] + scratch[li + stride];
        }
        workgroupBarrier();
    }
    if (li == 0u) {
        sums[wid.x] = scratch[0];
    }
}
