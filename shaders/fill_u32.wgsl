// Facade blit kernel: fill bytes [offset, offset + size) of `dst` with a
// u32 pattern aligned to the buffer's words (byte a gets byte a % 4 of
// `pattern`). The buffer is seen as 16-byte groups (group g: bytes
// [16g, 16g + 16)), which the invocations walk in a grid-stride loop (any
// grid of fewer than 2^32 invocations covers the range): one vec4 store when
// the group is fully inside the range, else each word the range touches
// is stored alone, edge words read-modified-written so bytes outside the
// range keep their values. Nothing outside the range is ever rewritten. A
// binding whose size is not a multiple of 16 has its last partial group out
// of bounds (the facade rounds the binding size up; it never writes past
// `offset + size`). 2D grid: first group = offset / 16 + x + y * (groups.x * 256).
struct FillParams { offset: u32, size: u32, pattern: u32 }
@group(0) @binding(0) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(1) var<uniform> params: FillParams;

// Word k of group g, for bytes [wb, wb + 4) with wb = 16g + 4k, of the
// range [start, end).
fn fill_word(g: u32, k: u32, wb: u32, start: u32, end: u32, pattern: u32) {
    if (wb + 4u <= start || wb >= end) { return; }
    var mask = 0xffffffffu;
    if (wb < start) { mask &= 0xffffffffu << ((start - wb) * 8u); }
    if (wb + 4u > end) { mask &= 0xffffffffu >> ((wb + 4u - end) * 8u); }
    if (mask == 0xffffffffu) {
        dst[g][k] = pattern;
    } else {
        dst[g][k] = (dst[g][k] & ~mask) | (pattern & mask);
    }
}

@compute @workgroup_size(256)
fn fill_u32(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // The params once, in registers (stores to dst could alias them for all
    // the compiler knows, which would make it reload them per group).
    let p = params;
    if (p.size == 0u) { return; }
    let start = p.offset;
    let end = start + p.size; // exclusive byte end
    let last = (end - 1u) / 16u;
    let len = arrayLength(&dst);
    let stride = max(groups.x * groups.y * 256u, 1u);
    for (var g = start / 16u + gid.x + gid.y * groups.x * 256u; g <= last && g < len; g += stride) {
        let base = g * 16u;
        if (base >= start && base + 16u <= end) {
            dst[g] = vec4<u32>(p.pattern);
        } else {
            for (var k = 0u; k < 4u; k++) {
                fill_word(g, k, base + k * 4u, start, end, p.pattern);
            }
        }
    }
}
