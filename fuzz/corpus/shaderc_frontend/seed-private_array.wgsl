// var<private> array state updated by helper functions.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> hist: array<u32, 8>;
var<private> total: u32;

fn record(v: u32) {
    hist[v % 8u] += 1u;
    total += v;
}

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var k = 0u; k < gid.x; k++) { record(k * 3u); }
    out[gid.x * 2u] = hist[gid.x % 8u];
    out[gid.x * 2u + 1u] = total;
}
