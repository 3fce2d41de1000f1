// Bit counting: countOneBits, reverseBits, countLeadingZeros,
// countTrailingZeros, firstLeadingBit (u32 and i32), firstTrailingBit.
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<array<u32, 7>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    out[gid.x] = array<u32, 7>(countOneBits(v), reverseBits(v), countLeadingZeros(v), countTrailingZeros(v),
        firstLeadingBit(v), bitcast<u32>(firstLeadingBit(bitcast<i32>(v))), firstTrailingBit(v));
}
