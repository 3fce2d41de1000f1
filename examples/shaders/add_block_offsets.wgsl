// Prefix sum, pass 3: add the scanned total of all earlier blocks to every
// element of a block.
@group(0) @binding(0) var<storage, read_write> values: array<u32>;
@group(0) @binding(1) var<storage, read> scanned_sums: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    if (wg.x > 0u && id.x < arrayLength(&values)) {
        values[id.x] = values[id.x] + scanned_sums[wg.x - 1u];
    }
}
