//! End to end through aqueduct-hsa on gfxsim: scratch (private segment)
//! requests the hardware cannot hold.
//!
//! A dispatch asking for about 4 GiB of private memory per work-item needs more scratch per wave than gfx11's COMPUTE_TMPRING_SIZE.WAVESIZE
//! can describe: the packet processor refuses it as a queue error, which the
//! runtime reports as a packet error and recovers from, instead of the
//! device model sizing memory for it.

use aqueduct_hsa::{HsaError, QueueErrorReason};
use aqueduct_test_harness::hsa_sim::Gpu;

#[test]
fn four_gib_of_private_memory_per_work_item_is_a_packet_error() {
    let gpu = Gpu::new();
    let program = gpu.load("empty");
    let queue = gpu.queue(64);
    let mut launch = gpu.launch(&program.kernel, &[], [64, 1, 1], [64, 1, 1]);
    launch.dispatch.private_segment_size = 0xffff_fff0;
    match gpu.run_on(&queue, &launch) {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::PacketInvalid,
            queue_id,
            detail,
        }) => {
            // KFD reports no fault data for a packet error; gfxsim's own
            // account names the request.
            assert_eq!(detail, None);
            let account = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(account.contains("private segment 4294967280"), "{account}");
        }
        other => panic!("expected a packet error, got {other:?}"),
    }
    // The same kernel with its own (zero) private segment runs on the
    // recreated queue.
    launch.dispatch.private_segment_size = program.kernel.info.private_segment_fixed_size;
    gpu.run_on(&queue, &launch).unwrap();
    assert_eq!(queue.recreations(), 1);
}
