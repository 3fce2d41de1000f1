// switch on i32 with negative cases, case lists and default in a list;
// nested loops with break and continue inside switch.
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    var r = 0;
    switch v {
        case -3, -2: { r = 1; }
        case 0: { r = 2; }
        case 7, default: { r = 3; }
        case 100: { r = 4; }
    }
    var count = 0;
    for (var i = 0; i < 6; i++) {
        for (var j = 0; j < 6; j++) {
            switch (i + j) % 3 {
                case 0: { continue; }
                case 1: { count += 1; }
                default: { count += 10; }
            }
            if (j > i) { break; }
        }
    }
    out[gid.x] = r * 1000 + count + v * 0;
}
