// Override-sized arrays: workgroup arrays whose lengths are pipeline-
// overridable constants or override expressions, specialised at compile
// time (`--define N=...`). WGSL allows override-sized arrays only in the
// workgroup address space.
override N: u32 = 48u;
override WG: u32 = 16u;
override M: u32 = 5u;
override K: i32 = i32(N) * 2;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> tile: array<u32, N>;
var<workgroup> pairs: array<vec2<u32>, N / 2u>;
var<workgroup> weights: array<u32, M>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    for (var i = li; i < N; i += WG) {
        tile[i] = i * 3u + wg.x;
    }
    for (var i = li; i < N / 2u; i += WG) {
        pairs[i] = vec2<u32>(i, N);
    }
    for (var j = li; j < M; j += WG) {
        weights[j] = j + 1u;
    }
    workgroupBarrier();
    for (var i = li; i < N; i += WG) {
        out[wg.x * N + i] = tile[N - 1u - i] + pairs[i / 2u].x * 1000u + u32(K) * 100000u
            + weights[i % M] * li * 10000000u;
    }
}
