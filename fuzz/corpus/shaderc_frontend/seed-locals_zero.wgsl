// Function-scope variables are zero-initialised, also when declared in a
// loop body (fresh each iteration); const arrays indexed dynamically.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
const TABLE = array<u32, 6>(3u, 1u, 4u, 1u, 5u, 9u);

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var z: u32;
    var zv: vec3<f32>;
    var za: array<u32, 4>;
    var sum = 0u;
    for (var k = 0u; k < 3u; k++) {
        var fresh: u32;
        fresh += k + 1u;
        sum += fresh;
    }
    let t = TABLE;
    out[i] = z + u32(zv.x + zv.y + zv.z) + za[i % 4u] + sum * 100u + t[i % 6u];
}
