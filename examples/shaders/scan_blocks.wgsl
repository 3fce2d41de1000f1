// Prefix sum, pass 1: an inclusive scan of each 256-element block in
// workgroup memory (Hillis-Steele), writing the scanned block and the
// block's total.
@group(0) @binding(0) var<storage, read_write> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> block_sums: array<u32>;

var<workgroup> tile: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let i = wg.x * 256u + li;
    var v = 0u;
    if (i < arrayLength(&values)) {
        v = values[i];
    }
    tile[li] = v;
    workgroupBarrier();
    for (var d = 1u; d < 256u; d = d * 2u) {
        var add = 0u;
        if (li >= d) {
            add = tile[li - d];
        }
        workgroupBarrier();
        tile[li] = tile[li] + add;
        workgroupBarrier();
    }
    if (i < arrayLength(&values)) {
        values[i] = tile[li];
    }
    if (li == 255u) {
        block_sums[wg.x] = tile[255];
    }
}
