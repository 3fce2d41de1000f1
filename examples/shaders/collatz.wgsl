// Collatz step counts: each element n is replaced by the number of steps
// n -> n/2 (even) or 3n+1 (odd) takes to reach 1; 0xffffffff marks an
// overflow of 3n+1 in 32 bits.
@group(0) @binding(0) var<storage, read_write> numbers: array<u32>;

fn steps_to_one(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    while (n > 1u) {
        if ((n & 1u) == 0u) {
            n = n >> 1u;
        } else {
            if (n > 1431655764u) {
                return 0xffffffffu;
            }
            n = n * 3u + 1u;
        }
        steps = steps + 1u;
    }
    return steps;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&numbers)) {
        numbers[id.x] = steps_to_one(numbers[id.x]);
    }
}
