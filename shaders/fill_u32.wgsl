// Facade blit kernel: fill bytes [offset, offset + size) of `dst` with a
// u32 pattern aligned to the buffer's words (byte a gets byte a % 4 of
// `pattern`). The buffer is seen as 16-byte groups (group g: bytes
// [16g, 16g + 16)) and each invocation fills one group: one vec4 store when
// the group is fully inside the range, else each word the range touches
// is stored alone, edge words read-modified-written so bytes outside the
// range keep their values. Nothing outside the range is ever rewritten. A
// binding whose size is not a multiple of 16 has its last partial group out
// of bounds (the facade rounds the binding size up; it never writes past
// `offset + size`). 2D grid: group = offset / 16 + x + y * (groups.x * 256).
struct FillParams { offset: u32, size: u32, pattern: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(1) var<uniform> params: FillParams;

// Word k of group g, for bytes [wb, wb + 4) with wb = 16g + 4k.
fn fill_word(g: u32, k: u32, wb: u32, end: u32) {
    if (wb + 4u <= params.offset || wb >= end) { return; }
    var mask = 0xffffffffu;
    if (wb < params.offset) { mask &= 0xffffffffu << ((params.offset - wb) * 8u); }
    if (wb + 4u > end) { mask &= 0xffffffffu >> ((wb + 4u - end) * 8u); }
    if (mask == 0xffffffffu) {
        dst[g][k] = params.pattern;
    } else {
        dst[g][k] = (dst[g][k] & ~mask) | (params.pattern & mask);
    }
}

@compute @workgroup_size(256)
fn fill_u32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    if (params.size == 0u) { return; }
    let end = params.offset + params.size; // exclusive byte end
    let g = params.offset / 16u + gid.x + gid.y * groups.x * 256u;
    if (g > (end - 1u) / 16u || g >= arrayLength(&dst)) { return; }
    let base = g * 16u;
    if (base >= params.offset && base + 16u <= end) {
        dst[g] = vec4<u32>(params.pattern);
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        fill_word(g, k, base + k * 4u, end);
    }
}
