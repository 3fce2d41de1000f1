//! The WGSL modules of the pipeline-creation benchmark: `count` distinct
//! small elementwise kernels. Shared by benches/shader_compile.rs (which
//! includes this file by path) and the peer's `pipelines` measurement, so
//! both sides create the same pipelines.

/// The entry point of every module.
pub const ENTRY: &str = "main";

/// Module `i`: a bounds-checked elementwise kernel whose operator and
/// constants depend on `i`, so no two modules share a text.
pub fn module(i: usize) -> String {
    let op = ["+", "*", "^", "|"][i % 4];
    format!(
        "@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(64)
fn {ENTRY}(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i >= arrayLength(&dst)) {{
        return;
    }}
    dst[i] = (src[i] {op} {k}u) * {m}u + (i >> {s}u);
}}
",
        k = i * 7 + 1,
        m = i + 3,
        s = i % 5
    )
}
