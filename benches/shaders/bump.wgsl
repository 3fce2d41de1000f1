// cargo bench --bench dispatch, encode+submit: one atomic bump per
// workgroup, so the final count proves every dispatch ran (the same kernel
// as benches/wgpu-peer/src/encode_submit.rs).
@group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>>;

@compute @workgroup_size(64)
fn bump(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        atomicAdd(&counter[0], 1u);
    }
}
