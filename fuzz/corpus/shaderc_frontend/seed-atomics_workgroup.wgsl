// Histogram with workgroup atomics (16 bins per group), merged into
// storage with atomicAdd; plus a workgroup atomicMax of the values.
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 17>;
var<workgroup> local_bins: array<atomic<u32>, 16>;
var<workgroup> local_max: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let v = data[gid.x];
    atomicAdd(&local_bins[v % 16u], 1u);
    atomicMax(&local_max, v);
    workgroupBarrier();
    if (li < 16u) {
        atomicAdd(&bins[li], atomicLoad(&local_bins[li]));
    }
    if (li == 0u) {
        atomicMax(&bins[16], atomicLoad(&local_max));
    }
}
