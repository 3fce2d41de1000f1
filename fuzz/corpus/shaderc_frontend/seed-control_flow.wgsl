// if/else, switch (case lists, default in the middle), for/while/loop with
// continue, continuing and break-if; out[i] = a mix of all of them.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn classify(x: u32) -> u32 {
    switch x % 7u {
        case 0u, 1u: { return 10u; }
        case 2u: { return 20u; }
        default: { return 99u; }
        case 5u: { return 50u; }
    }
}

fn collatz_steps(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    loop {
        if (n <= 1u) { break; }
        if (n % 2u == 0u) { n = n / 2u; } else { n = 3u * n + 1u; }
        continuing {
            steps = steps + 1u;
            break if steps >= 200u;
        }
    }
    return steps;
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var acc = 0u;
    for (var k = 0u; k < i; k++) {
        if (k % 3u == 0u) { continue; }
        acc += k;
    }
    var w = i;
    while (w > 10u) { w -= 7u; }
    var r: u32;
    if (i < 10u) { r = 1u; } else if (i < 20u) { r = 2u; } else { r = 3u; }
    out[i] = acc * 1000000u + classify(i) * 10000u + collatz_steps(i + 1u) * 10u + r + w * 0u;
    out[i + 32u] = w;
}
