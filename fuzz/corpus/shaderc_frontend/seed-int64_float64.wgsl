// 64-bit scalars: i64 / u64 (naga's SHADER_INT64) and f64 (SHADER_FLOAT64)
// arithmetic, shifts, division, comparisons, conversions and builtins
// (extractBits/insertBits with 64-bit fields and clamped counts).
@group(0) @binding(0) var<storage, read> a: array<i64>;
@group(0) @binding(1) var<storage, read> b: array<u64>;
@group(0) @binding(2) var<storage, read> c: array<f64>;
@group(0) @binding(3) var<storage, read_write> o: array<u64>;

const SLOTS: u32 = 10u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let z = c[i];
    let base = i * SLOTS;
    o[base + 0u] = bitcast<u64>(x * 3li - (x >> 5u) + (x / 7li) + (x % 11li));
    o[base + 1u] = (y * 0x9E3779B97F4A7C15lu) ^ ((y >> 13u) + (y << 7u)) ^ (y / 1000003lu);
    o[base + 2u] = bitcast<u64>(z * z + f64(i) / 3.0lf);
    o[base + 3u] = bitcast<u64>(fma(z, 2.0lf, 1.0lf) - floor(z));
    o[base + 4u] = bitcast<u64>(sqrt(abs(z)));
    o[base + 5u] = u64(min(x, 5li) & 0xffffli) + u64(f32(z) * 1000.0) + bitcast<u64>(i64(z));
    o[base + 6u] = u64(countOneBits(y)) + (u64(max(y, 1lu << 63u) >> 62u) << 32u);
    o[base + 8u] = extractBits(y, 3u, 40u);
    o[base + 9u] = bitcast<u64>(extractBits(x, 20u, 30u)) ^ insertBits(y, 0x5alu, 60u, 8u);
    o[base + 7u] = select(0lu, 1lu, x < 0li) + select(0lu, 2lu, z > 0.0lf) + select(0lu, 4lu, y >= 0x8000000000000000lu);
}
