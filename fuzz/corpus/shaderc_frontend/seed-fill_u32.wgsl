// Facade blit kernel: fill bytes [offset, offset + size) of `dst` with a
// u32 pattern aligned to the buffer's words (byte a gets byte a % 4 of
// `pattern`). Edge words are read-modified-written so bytes outside the
// range keep their values; words past the buffer end are never touched.
// One invocation per destination word; 2D grid: word = x + y * (groups.x * 256).
struct FillParams { offset: u32, size: u32, pattern: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
@group(0) @binding(1) var<uniform> params: FillParams;

@compute @workgroup_size(256)
fn fill_u32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    if (params.size == 0u) { return; }
    let first = params.offset / 4u;
    let end = params.offset + params.size; // exclusive byte end
    let last = (end - 1u) / 4u;
    let w = first + gid.x + gid.y * groups.x * 256u;
    if (w > last || w >= arrayLength(&dst)) { return; }
    var mask = 0xffffffffu;
    let base = w * 4u;
    if (base < params.offset) { mask &= 0xffffffffu << ((params.offset - base) * 8u); }
    if (base + 4u > end) { mask &= 0xffffffffu >> ((base + 4u - end) * 8u); }
    if (mask == 0xffffffffu) {
        dst[w] = params.pattern;
    } else {
        dst[w] = (dst[w] & ~mask) | (params.pattern & mask);
    }
}
