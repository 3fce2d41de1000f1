// Entry point inputs gathered in a struct of builtins.
struct Inputs {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(16)
fn main(inputs: Inputs) {
    out[inputs.gid.x] = inputs.gid.x * 100u + inputs.li;
}
