// Facade blit kernel: copy `size` bytes from `src` at `src_offset` to `dst`
// at `dst_offset`, any alignment. One invocation per destination word; a
// word fully inside the range with a 4-aligned source is a plain copy,
// otherwise bytes are gathered one by one and edge bytes outside the range
// keep their values. Reads outside `src` are clamped by the compiler's
// robust access, so a bad range never faults.
struct CopyParams { src_offset: u32, dst_offset: u32, size: u32 }
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: CopyParams;

fn src_byte(a: u32) -> u32 {
    return (src[a / 4u] >> ((a % 4u) * 8u)) & 0xffu;
}

@compute @workgroup_size(256)
fn copy_bytes(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    if (params.size == 0u) { return; }
    let end = params.dst_offset + params.size;
    let w = params.dst_offset / 4u + gid.x + gid.y * groups.x * 256u;
    if (w > (end - 1u) / 4u || w >= arrayLength(&dst)) { return; }
    let base = w * 4u;
    let shift = params.src_offset - params.dst_offset; // wraps; used modulo 2^32
    if (base >= params.dst_offset && base + 4u <= end && (params.src_offset % 4u) == (params.dst_offset % 4u)) {
        dst[w] = src[(base + shift) / 4u];
        return;
    }
    var word = dst[w];
    for (var k = 0u; k < 4u; k++) {
        let a = base + k;
        if (a >= params.dst_offset && a < end) {
            let b = src_byte(a + shift);
            word = (word & ~(0xffu << (k * 8u))) | (b << (k * 8u));
        }
    }
    dst[w] = word;
}
