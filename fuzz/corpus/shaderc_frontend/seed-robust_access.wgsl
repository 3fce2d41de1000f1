// Robust buffer access: out-of-bounds reads of runtime-sized and fixed
// arrays return an element of the array, out-of-bounds writes are dropped.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read_write> fixed: array<u32, 4>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    // reads far past the end (and a negative-as-unsigned index)
    let far = src[i + 1000u];
    let neg = src[u32(-1 - i32(i))];
    var local_arr = array<u32, 3>(1u, 2u, 3u);
    let l = local_arr[i + 5u];
    dst[i] = far + neg * 1000u + l * 1000000u;
    // writes past the end: dropped (the destination has 8 elements)
    dst[i + 8u] = 0xdeadu;
    fixed[i + 2u] = 0x1000u + i;
}
