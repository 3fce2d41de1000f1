//! End to end through aqueduct-hsa on gfxsim: scratch (private segment)
//! memory. The runtime gives a queue scratch only when the command
//! processor asks for it through the queue's `queue_inactive_signal`
//! (gfxsim has none of its own), keeps it for later dispatches, frees a
//! use-once request after its dispatch, and turns a request past the
//! queue's limit into a queue error naming the sizes. Requests the hardware
//! cannot hold at all are refused by the packet processor itself.
//!
//! A dispatch asking for about 4 GiB of private memory per work-item needs more scratch per wave than gfx11's COMPUTE_TMPRING_SIZE.WAVESIZE
//! can describe: the packet processor refuses it as a queue error, which the
//! runtime reports as a packet error and recovers from, instead of the
//! device model sizing memory for it.

use std::time::{Duration, Instant};

use aqueduct_hsa::{Allocation, HsaError, QueueErrorReason, ScratchError};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Launch, Program, read_u32};

/// corpus/gfx1100/asm_scratch.co: 64 private bytes per work-item (wave32).
fn asm_scratch(gpu: &Gpu) -> Program {
    gpu.load_corpus("asm_scratch")
}

/// An asm_scratch launch over `n` items, its buffers and the expected
/// outputs (out[i] = sum over j < 16 of x[i] ^ j).
struct ScratchRun {
    launch: Launch,
    _input: Allocation,
    out: Allocation,
    want: Vec<u32>,
}

fn scratch_launch(gpu: &Gpu, program: &Program, n: u32, wg: u16) -> ScratchRun {
    let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) ^ 7).collect();
    let want = x
        .iter()
        .map(|&x| (0..16).fold(0u32, |a, j| a.wrapping_add(x ^ j)))
        .collect();
    let input = gpu.upload_u32(&x);
    let out = gpu.filled_u32(n as usize, 0);
    let launch = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(input.gpu_va()), Arg::Ptr(out.gpu_va())],
        [n, 1, 1],
        [wg, 1, 1],
    );
    ScratchRun {
        launch,
        _input: input,
        out,
        want,
    }
}

/// A kernel with private memory runs because the runtime gave the queue
/// scratch when the CP asked: none before, one allocation sized for every
/// scratch slot of the device (64 bytes x 32 lanes x 96 CUs x 32 slots),
/// kept for the next dispatch; a larger request replaces it.
#[test]
fn the_runtime_gives_scratch_when_the_cp_asks_for_it() {
    let gpu = Gpu::new();
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    assert_eq!(queue.scratch_size(), 0, "a queue starts with no scratch");
    let r = scratch_launch(&gpu, &program, 256, 64);
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(read_u32(&r.out, 256), r.want);
    assert_eq!(queue.scratch_allocations(), 1);
    assert_eq!(queue.scratch_size(), 64 * 32 * 96 * 32);
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(queue.scratch_allocations(), 1, "the scratch stays");

    let mut r = scratch_launch(&gpu, &program, 1024, 1024);
    r.launch.dispatch.private_segment_size = 256;
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(read_u32(&r.out, 1024), r.want);
    assert_eq!(queue.scratch_allocations(), 2);
    assert_eq!(queue.scratch_size(), 256 * 32 * 96 * 32);
    assert_eq!(queue.recreations(), 0);
}

/// Scratch for every slot past the limit (4 KiB per lane: 384 MiB) is
/// sized for the dispatch and given once: the queue gives it back after the
/// dispatch, when the CP hands it back, to the agent's scratch cache, from
/// which the next request of that size takes it without a device
/// allocation (ROCr's `ScratchCache`); a reclaim frees it.
#[test]
fn a_use_once_request_is_freed_after_its_dispatch() {
    let gpu = Gpu::new();
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    let mut r = scratch_launch(&gpu, &program, 256, 64);
    r.launch.dispatch.private_segment_size = 4096;
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(read_u32(&r.out, 256), r.want);
    assert_eq!(queue.scratch_allocations(), 1);
    let start = Instant::now();
    while queue.scratch_size() != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "use-once scratch of {} bytes is still held",
            queue.scratch_size()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // The queue goes on: the next dispatch asks again, and gets the cached
    // backing.
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(read_u32(&r.out, 256), r.want);
    assert_eq!(
        queue.scratch_allocations(),
        1,
        "the cached backing is reused"
    );
    let start = Instant::now();
    while queue.scratch_size() != 0 {
        assert!(start.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(1));
    }
    let used = gpu.rt.reclaim_scratch(&gpu.agent).unwrap();
    assert!(used > 0, "the reclaim frees the cached backing");
    assert_eq!(gpu.rt.reclaim_scratch(&gpu.agent).unwrap(), 0);
    // With the cache empty, the next request allocates again.
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(queue.scratch_allocations(), 2);
}

/// A request that even one workgroup per shader engine cannot meet within
/// the queue's limit is a queue error, with the sizes in the queue's scratch
/// error; the recreated queue runs the next dispatch.
#[test]
fn a_request_past_the_scratch_limit_is_a_queue_error() {
    let gpu = Gpu::new();
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    let mut r = scratch_launch(&gpu, &program, 1024, 1024);
    // WAVESIZE's largest wave32 lane: 8 MiB per wave, 32 waves per group.
    r.launch.dispatch.private_segment_size = 262_136;
    match gpu.run_on(&queue, &r.launch) {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::PacketInvalid,
            ..
        }) => {}
        other => panic!("expected a packet error, got {other:?}"),
    }
    match queue.scratch_error() {
        Some(ScratchError::ExceedsLimit {
            private_segment_size: 262_136,
            needed,
            limit,
            ..
        }) => assert!(needed > limit, "{needed} <= {limit}"),
        other => panic!("expected the limit, got {other:?}"),
    }
    let r = scratch_launch(&gpu, &program, 256, 64);
    gpu.run_on(&queue, &r.launch).unwrap();
    assert_eq!(read_u32(&r.out, 256), r.want);
    assert_eq!(queue.recreations(), 1);
}

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
