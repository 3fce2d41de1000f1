// Pipeline-overridable constants, specialised at compile time (defaults
// here; `--define SCALE=...` changes them), including the workgroup size.
override SCALE: u32 = 3u;
override BIAS: f32 = 0.5;
@id(7) override WG: u32 = 32u;
override USE_BIAS: bool = true;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var v = f32(gid.x * SCALE);
    if (USE_BIAS) { v += BIAS; }
    out[gid.x] = v + f32(WG) * 1000.0;
}
