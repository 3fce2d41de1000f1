// C = A * B with 8x8 tiles in workgroup memory (2D workgroups, 2D grid);
// dims in a uniform; row-major f32.
struct Dims { m: u32, n: u32, k: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> ta: array<array<f32, 8>, 8>;
var<workgroup> tb: array<array<f32, 8>, 8>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < dims.k; t += 8u) {
        ta[lid.y][lid.x] = select(0.0, a[row * dims.k + t + lid.x], row < dims.m && t + lid.x < dims.k);
        tb[lid.y][lid.x] = select(0.0, b[(t + lid.y) * dims.n + col], col < dims.n && t + lid.y < dims.k);
        workgroupBarrier();
        for (var q = 0u; q < 8u; q++) {
            acc = fma(ta[lid.y][q], tb[q][lid.x], acc);
        }
        workgroupBarrier();
    }
    if (row < dims.m && col < dims.n) {
        c[row * dims.n + col] = acc;
    }
}
