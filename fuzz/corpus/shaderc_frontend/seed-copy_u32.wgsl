// out[i] = in[i] * 3 + i for every element (runtime-sized arrays, arrayLength).
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&dst)) {
        dst[i] = src[i] * 3u + i;
    }
}
