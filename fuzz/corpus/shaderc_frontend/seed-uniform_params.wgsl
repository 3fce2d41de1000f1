// var<uniform> parameters (a vec4 and scalars) drive a saxpy-like kernel.
struct Params { scale: vec4<f32>, count: u32, offset: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(1) @binding(0) var<storage, read_write> y: array<vec4<f32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.count) { return; }
    y[i] = params.scale * x[i] + y[i] + params.offset;
}
