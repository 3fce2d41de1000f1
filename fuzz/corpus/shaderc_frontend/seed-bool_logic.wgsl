// Booleans: && || ! on scalars and vectors, bool in var<workgroup> and
// var<function>, bool to u32 conversion.
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> marks: array<bool, 32>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
    let v = x[li];
    let even = v % 2u == 0u;
    let big = v > 1000u;
    marks[li] = even != big;
    workgroupBarrier();
    var b = vec2<bool>(marks[(li + 1u) % 32u], !marks[li]);
    let both = even && big;
    let either = even || big;
    let vb = !b & vec2<bool>(true, either);
    out[li] = u32(both) | (u32(either) << 1u) | (u32(vb.x) << 2u) | (u32(vb.y) << 3u) | (u32(marks[li]) << 4u);
}
