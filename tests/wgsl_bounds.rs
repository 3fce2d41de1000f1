//! Out-of-bounds indices into workgroup, private and function arrays,
//! vectors and matrices (and `let` copies of them) read and write the last
//! element, as wgpu's `oob_indexing` test expects of every backend (naga's
//! `Restrict` bounds-check policy): index 4 into 3 elements is index 2.

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};

const SHADER: &str = "
@group(0) @binding(0) var<storage, read_write> index: u32;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> wg_array: array<u32, 3>;
var<workgroup> wg_vec: vec3u;
var<workgroup> wg_mat: mat3x3f;

var<private> private_array: array<u32, 3>;
var<private> private_vec: vec3u;
var<private> private_mat: mat3x3f;

@compute @workgroup_size(1)
fn main() {
    let i = index;

    var var_array = array<u32, 3>();
    wg_array[i] = 1u;
    private_array[i] = 1u;
    var_array[i] = 1u;
    let let_array = var_array;

    out[0] = wg_array[i];
    out[1] = private_array[i];
    out[2] = var_array[i];
    out[3] = let_array[i];

    var var_vec = vec3u();
    wg_vec[i] = 1u;
    private_vec[i] = 1u;
    var_vec[i] = 1u;
    let let_vec = var_vec;

    out[4] = wg_vec[i];
    out[5] = private_vec[i];
    out[6] = var_vec[i];
    out[7] = let_vec[i];

    var var_mat = mat3x3f();
    wg_mat[i][0] = 1f;
    private_mat[i][0] = 1f;
    var_mat[i][0] = 1f;
    let let_mat = var_mat;

    out[8] = u32(wg_mat[i][0]);
    out[9] = u32(private_mat[i][0]);
    out[10] = u32(var_mat[i][0]);
    out[11] = u32(let_mat[i][0]);

    // The last element itself reads back what the clamped writes stored.
    out[12] = var_array[2] + private_vec[2] + u32(var_mat[2][0]);
}
";

fn device() -> Option<Ctx> {
    if !llvm_installed("bounds") {
        return None;
    }
    no_disk_cache();
    Some(ctx())
}

fn run(c: &Ctx, index: u32) -> Vec<u32> {
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("oob.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    });
    let pipeline = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "main"));
    let idx = storage_init(&c.device, &[index]);
    let out = storage_init(&c.device, &[7; 13]);
    let bg = bind_group(&c.device, &pipeline, 0, &[&idx, &out]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    read_words(c, &out)
}

#[test]
fn out_of_bounds_indices_use_the_last_element() {
    let Some(c) = device() else { return };
    for index in [3, 4, 1000, u32::MAX] {
        let got = run(&c, index);
        assert_eq!(got[..12], [1; 12], "index {index}: {got:?}");
        assert_eq!(got[12], 3, "index {index}: the last elements: {got:?}");
    }
    // In bounds, nothing is clamped: index 0 leaves element 2 alone.
    let got = run(&c, 0);
    assert_eq!(got[..12], [1; 12]);
    assert_eq!(got[12], 0);
}
