// Facade blit kernel: copy `size` bytes from `src` at `src_offset` to `dst`
// at `dst_offset`, any alignment. The buffers are seen as 16-byte groups
// (group g: bytes [16g, 16g + 16) from the binding's start) and the
// invocations walk the destination's groups in a grid-stride loop (any 1D
// or 2D grid of fewer than 2^32 invocations covers the range; the facade
// gives each invocation about 8 groups, so the kernel's setup is paid once
// per 128 bytes): a group fully inside the range
// whose source is 16-byte aligned relative to it is one vec4 copy (the
// common case: the facade binds both ranges at their start); otherwise each
// of the group's words that the range touches is stored alone — a word fully
// inside the range with a 4-aligned source is a plain copy, others gather
// their bytes one by one and keep the bytes outside the range. Nothing
// outside the range is ever rewritten, so copies into neighbouring ranges
// may run at the same time. A binding whose size is not a multiple of 16
// has its last partial group out of bounds (the facade rounds the binding
// sizes up; it never moves bytes past `dst_offset + size`). Reads outside
// `src` are clamped by the compiler's robust access, so a bad range never
// faults.
struct CopyParams { src_offset: u32, dst_offset: u32, size: u32 }
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: CopyParams;

fn src_word(i: u32) -> u32 {
    return src[i / 4u][i % 4u];
}

fn src_byte(a: u32) -> u32 {
    return (src_word(a / 4u) >> ((a % 4u) * 8u)) & 0xffu;
}

// Word k of group g, for destination bytes [wb, wb + 4) with wb = 16g + 4k,
// of the destination range [start, end).
fn copy_word(g: u32, k: u32, wb: u32, start: u32, end: u32, shift: u32) {
    if (wb + 4u <= start || wb >= end) { return; }
    if (wb >= start && wb + 4u <= end && (shift % 4u) == 0u) {
        dst[g][k] = src_word((wb + shift) / 4u);
        return;
    }
    var word = dst[g][k];
    for (var j = 0u; j < 4u; j++) {
        let a = wb + j;
        if (a >= start && a < end) {
            let b = src_byte(a + shift);
            word = (word & ~(0xffu << (j * 8u))) | (b << (j * 8u));
        }
    }
    dst[g][k] = word;
}

@compute @workgroup_size(256)
fn copy_bytes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // The params once, in registers (stores to dst could alias them for all
    // the compiler knows, which would make it reload them per group).
    let p = params;
    if (p.size == 0u) { return; }
    let start = p.dst_offset;
    let end = start + p.size;
    let last = (end - 1u) / 16u;
    let len = arrayLength(&dst);
    let shift = p.src_offset - start; // wraps; used modulo 2^32
    let aligned = (shift % 16u) == 0u;
    // Grid-stride loop: invocation i handles groups first + i + k * stride.
    let stride = max(groups.x * groups.y * 256u, 1u);
    for (var g = start / 16u + gid.x + gid.y * groups.x * 256u; g <= last && g < len; g += stride) {
        let base = g * 16u;
        if (aligned && base >= start && base + 16u <= end) {
            dst[g] = src[(base + shift) / 16u];
        } else {
            for (var k = 0u; k < 4u; k++) {
                copy_word(g, k, base + k * 4u, start, end, shift);
            }
        }
    }
}
