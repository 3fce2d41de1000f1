//! The facade on gfxsim's MI300X (gfx942): the adapter comes up on the
//! part, a gfx942 code object makes a pipeline, and a dispatch, which
//! gfxsim does not execute yet, is reported as a GPU queue fault naming the
//! kernel, with gfxsim's reason in its account of the queue error; the
//! device stays usable (every dispatch, the facade's own copy kernels
//! included, is refused the same way until gfxsim executes GFX9 code).

use std::borrow::Cow;

use aqueduct::gfxsim::{SimConfig, SimPart};
use aqueduct::*;
use aqueduct_test_harness::facade::*;

#[test]
fn a_gfx942_dispatch_is_a_queue_fault_naming_the_kernel() {
    let (c, sim) = sim_ctx_with(SimConfig {
        part: SimPart::Mi300x,
        threads: 1,
        vram_size: 2 << 30,
        ..SimConfig::default()
    });
    let code = aqueduct_test_support::repo::kernel("gfx942/empty.co");
    let module = code_object_module(&c.device, "empty", Cow::Owned(code), [64, 1, 1]);
    let pipeline = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "empty"));
    c.device.poll(PollType::wait_indefinitely()).expect("setup");

    // The queue recovers after each refusal: the next submission runs (and
    // is refused the same way) instead of hanging or losing the device.
    for _ in 0..2 {
        dispatch_is_refused(&c, &sim, &pipeline);
    }
}

fn dispatch_is_refused(c: &Ctx, sim: &aqueduct::gfxsim::SimDevice, pipeline: &ComputePipeline) {
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.dispatch_workgroups(4, 1, 1);
    }
    let submission = c.queue.submit([enc.finish()]);
    c.device
        .poll(PollType::Wait {
            submission_index: Some(submission),
            timeout: Some(std::time::Duration::from_secs(30)),
        })
        .expect("the waiter is released, not timed out");
    let err = scope.pop_now().expect("the refusal is reported");
    assert!(is_queue_fault(&err, Some("empty")), "{err}");
    assert!(err.to_string().contains("illegal instruction"), "{err}");
    let detail = wave_error(sim, &err).expect("gfxsim's account");
    assert!(
        detail.contains("gfxsim does not execute gfx942 code yet"),
        "{detail}"
    );
}
