// storageBarrier orders storage writes within a workgroup: each invocation
// writes its slot, then reads its neighbour's.
@group(0) @binding(0) var<storage, read_write> slots: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * 64u;
    slots[base + li] = li * li + wid.x;
    storageBarrier();
    out[base + li] = slots[base + (li + 1u) % 64u];
}
