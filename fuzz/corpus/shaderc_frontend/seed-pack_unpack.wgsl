// Packing builtins and their inverses, dot4I8Packed / dot4U8Packed.
@group(0) @binding(0) var<storage, read> f: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read_write> packed: array<array<u32, 10>>;
@group(0) @binding(3) var<storage, read_write> unpacked: array<array<vec4<f32>, 3>>;
@group(0) @binding(4) var<storage, read_write> ints: array<array<vec4<i32>, 2>>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = f[i];
    let u = w[i];
    let iv = vec4<i32>(i32(i) * 50 - 300, -1, 127, 200);
    packed[i] = array<u32, 10>(pack4x8snorm(v), pack4x8unorm(v), pack2x16snorm(v.xy), pack2x16unorm(v.zw),
        pack2x16float(v.xy), pack4xI8(iv), pack4xU8(vec4<u32>(iv)), pack4xI8Clamp(iv), pack4xU8Clamp(vec4<u32>(iv)),
        bitcast<u32>(dot4I8Packed(u, 0x01ff02feu)) ^ dot4U8Packed(u, 0x01ff02feu));
    unpacked[i] = array<vec4<f32>, 3>(unpack4x8snorm(u), unpack4x8unorm(u),
        vec4<f32>(unpack2x16snorm(u), unpack2x16unorm(u)));
    ints[i] = array<vec4<i32>, 2>(unpack4xI8(u), bitcast<vec4<i32>>(unpack4xU8(u)));
}
