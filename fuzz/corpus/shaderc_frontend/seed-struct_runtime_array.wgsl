// A storage struct with a header and a trailing runtime-sized array of
// vec4 (arrayLength subtracts the header), written from a reversed read.
struct Header { count: u32, scale: f32 }
struct Buf { header: Header, pad: vec2<u32>, items: array<vec4<f32>> }
@group(0) @binding(0) var<storage, read_write> buf: Buf;
@group(0) @binding(1) var<storage, read_write> info: vec4<u32>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&buf.items);
    let i = gid.x;
    if (i == 0u) { info = vec4<u32>(n, buf.header.count, 0u, 0u); }
    if (i < n / 2u) {
        let j = n - 1u - i;
        let x = buf.items[i];
        let y = buf.items[j];
        buf.items[i] = y * buf.header.scale;
        buf.items[j] = x * buf.header.scale;
    }
}
