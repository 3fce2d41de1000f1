// wgpu_hello_compute's shader: each element n of the buffer becomes the
// number of Collatz steps (n -> n / 2 when even, 3n + 1 when odd) it takes
// to reach 1, or 0xffffffff when 3n + 1 would overflow 32 bits. One
// invocation per workgroup, one workgroup per element.
@group(0) @binding(0)
var<storage, read_write> values: array<u32>;

fn collatz_steps(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    loop {
        if (n <= 1u) {
            break;
        }
        if (n % 2u == 0u) {
            n = n / 2u;
        } else {
            // 3n + 1 overflows once n >= 0x55555555.
            if (n >= 1431655765u) {
                return 4294967295u;
            }
            n = 3u * n + 1u;
        }
        steps = steps + 1u;
    }
    return steps;
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    values[id.x] = collatz_steps(values[id.x]);
}
