// Helper functions: pointer parameters (function and private), struct
// results, call chains, var<private> with an initialiser.
struct MinMax { lo: i32, hi: i32 }
@group(0) @binding(0) var<storage, read> values: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<i32>>;
var<private> calls: i32 = 100;

fn bump(p: ptr<private, i32>) { *p = *p + 1; }

fn swap(a: ptr<function, i32>, b: ptr<function, i32>) {
    let t = *a;
    *a = *b;
    *b = t;
}

fn min_max(base: u32) -> MinMax {
    bump(&calls);
    var m = MinMax(values[base], values[base]);
    for (var k = 1u; k < 4u; k++) {
        m.lo = min(m.lo, values[base + k]);
        m.hi = max(m.hi, values[base + k]);
    }
    return m;
}

fn sort2(x: i32, y: i32) -> vec2<i32> {
    var a = x;
    var b = y;
    if (a > b) { swap(&a, &b); }
    return vec2<i32>(a, b);
}

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = min_max(i * 4u);
    let s = sort2(values[i * 4u], values[i * 4u + 1u]);
    bump(&calls);
    out[i] = vec4<i32>(m.lo, m.hi, s.x * 1000 + s.y, calls);
}
