// Inclusive prefix sum of 64 values per workgroup (Hillis-Steele in
// workgroup memory, double-buffered, barriers every step).
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> buf: array<array<u32, 64>, 2>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    buf[0][li] = data[wid.x * 64u + li];
    workgroupBarrier();
    var cur = 0u;
    for (var d = 1u; d < 64u; d *= 2u) {
        var v = buf[cur][li];
        if (li >= d) { v += buf[cur][li - d]; }
        buf[1u - cur][li] = v;
        cur = 1u - cur;
        workgroupBarrier();
    }
    out[wid.x * 64u + li] = buf[cur][li];
}
