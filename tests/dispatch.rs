//! Dispatch tests: raw code-object kernels through the full facade
//! (create_buffer_init, auto layout, bind groups, immediates, passes,
//! copies to a MAP_READ buffer, mapping), checked against host results.

use aqueduct_test_harness::facade::*;

#[path = "dispatch/allocations.rs"]
mod allocations;

#[test]
fn vector_copy_through_auto_layout_and_immediates() {
    let c = ctx();
    let n = 1000u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let src = storage_init(&c.device, &input);
    let dst = storage(&c.device, n as u64 * 4);
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "vector_copy");
    let bg = bind_group(&c.device, &pipeline, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &dst), input);
}
