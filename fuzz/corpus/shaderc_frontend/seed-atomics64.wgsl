// 64-bit atomics (naga's SHADER_INT64_ATOMIC_*): add/max/min on storage and
// workgroup u64/i64.
@group(0) @binding(0) var<storage, read> data: array<u64>;
@group(0) @binding(1) var<storage, read_write> acc: array<atomic<u64>, 3>;
@group(0) @binding(2) var<storage, read_write> sacc: array<atomic<i64>, 2>;

var<workgroup> wmax: atomic<u64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let v = data[gid.x];
    atomicAdd(&acc[0], v);
    atomicMax(&acc[1], v);
    atomicMin(&acc[2], v);
    atomicMin(&sacc[0], bitcast<i64>(v));
    atomicMax(&wmax, v >> 1u);
    workgroupBarrier();
    if (li == 0u) {
        atomicAdd(&sacc[1], bitcast<i64>(atomicLoad(&wmax)) & 0xffffli);
    }
}
