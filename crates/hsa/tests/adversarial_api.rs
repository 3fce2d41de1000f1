//! The HSA API given hostile sizes and bytes, row by row: queue sizes,
//! allocation sizes in every pool, code objects that are empty, random,
//! truncated or corrupted. Each invalid row must return a typed error
//! (never panic, abort or allocate the impossible), each valid row must
//! work, and the runtime must keep working afterwards (a dispatch runs and
//! gives the host's result).

use std::time::{Duration, Instant};

use aqueduct_hsa::{
    Allocation, MemoryOrder, PoolKind, Queue, QueueErrorReason, Signal, WaitCondition, WaitHint,
};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Launch, Program, Rng, kernel_file, read_u32};
use aqueduct_test_support::bytes::bytes_of;
use aqueduct_test_support::thread::bounded;

/// After the hostile rows: a copy kernel still runs and gives the input.
fn still_works(gpu: &Gpu) {
    let program = gpu.load("vector_copy");
    let input: Vec<u32> = (0..256).map(|i| i * 7 + 1).collect();
    let src = gpu.upload_u32(&input);
    let dst = gpu.alloc(256 * 4);
    gpu.run(
        &program.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst.gpu_va()),
            Arg::U32(256),
        ],
        [256, 1, 1],
        [64, 1, 1],
    )
    .expect("a dispatch after the hostile rows");
    assert_eq!(read_u32(&dst, 256), input);
}

#[test]
fn queue_sizes_past_the_limits_are_errors() {
    let gpu = Gpu::new();
    // (packets, valid): a power of two within the agent's range only.
    let rows: [(u32, bool); 8] = [
        (0, false),
        (1, false),
        (3, false),
        (100, false),
        (64, true),
        (1 << 31, false),
        (u32::MAX, false),
        (4096, true),
    ];
    for (packets, valid) in rows {
        let got = gpu.rt.create_queue(&gpu.agent, packets);
        assert_eq!(got.is_ok(), valid, "{packets} packets: {:?}", got.err());
    }
    still_works(&gpu);
}

#[test]
fn impossible_allocations_are_errors_in_every_pool() {
    let gpu = Gpu::new();
    for kind in [
        PoolKind::CoarseDevice,
        PoolKind::FineSystem,
        PoolKind::Kernarg,
    ] {
        let pool = gpu.rt.pool(&gpu.agent, kind).expect("pool");
        for size in [0, u64::MAX, u64::MAX / 2, 1 << 50] {
            let got = pool.allocate(size);
            assert!(got.is_err(), "{kind:?}: {size} bytes allocated");
        }
        // Just valid sizes work.
        for size in [1, 4095, 4097] {
            let a = pool
                .allocate(size)
                .unwrap_or_else(|e| panic!("{kind:?} {size}: {e}"));
            assert!(a.len() >= size);
        }
    }
    still_works(&gpu);
}

#[test]
fn hostile_code_objects_are_errors() {
    let gpu = Gpu::new();
    let real = kernel_file("vector_copy.co");
    let random = bytes_of(&Rng::new(0x9E37_79B9_7F4A_7C15).u32s(2048));
    let mut corrupted_sections = real.clone();
    corrupted_sections[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut corrupted_phdrs = real.clone();
    corrupted_phdrs[0x20..0x28].copy_from_slice(&(real.len() as u64 - 8).to_le_bytes());
    let mut random_with_magic = random.clone();
    random_with_magic[..4].copy_from_slice(b"\x7fELF");
    let rows: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("random", random),
        ("random with ELF magic", random_with_magic),
        ("ELF magic only", b"\x7fELF".to_vec()),
        ("first 64 bytes", real[..64].to_vec()),
        ("first half", real[..real.len() / 2].to_vec()),
        ("section headers past the end", corrupted_sections),
        ("program headers at the end", corrupted_phdrs),
        (
            "offload bundle magic only",
            b"__CLANG_OFFLOAD_BUNDLE__".to_vec(),
        ),
    ];
    for (what, bytes) in rows {
        let got = gpu.rt.load_executable(&gpu.agent, &bytes);
        assert!(got.is_err(), "{what}: loaded");
    }
    still_works(&gpu);
}

/// How an in-flight row's dispatch ended.
#[derive(Debug, PartialEq)]
enum Ended {
    /// Its completion signal reached 0.
    Finished,
    /// It did not within the bounded wait (its queue is gone or stopped).
    Abandoned,
}

/// A dispatch that takes tens of milliseconds on gfxsim: `sqrt_exp_loop`
/// over 8192 items, 400 rounds each.
fn slow_launch(gpu: &Gpu, program: &Program, out: &Allocation, input: &Allocation) -> Launch {
    gpu.launch(
        &program.kernel,
        &[
            Arg::Ptr(input.gpu_va()),
            Arg::Ptr(out.gpu_va()),
            Arg::U32(400),
            Arg::U32(8192),
        ],
        [8192, 1, 1],
        [64, 1, 1],
    )
}

/// Submits `launch` on `queue` with `done` as its completion signal.
fn submit(queue: &Queue, launch: &Launch, done: &Signal) {
    let mut d = launch.dispatch;
    d.completion_signal = done.handle();
    queue
        .submit_dispatch(&d.to_packet().expect("packet"))
        .expect("submit");
}

/// Waits at most two seconds for `signal` to reach 0.
fn bounded_wait(signal: &Signal) -> Ended {
    let limit = Some(Duration::from_secs(2));
    match signal.wait(WaitCondition::Eq, 0, limit, WaitHint::Blocked) {
        Ok(0) => Ended::Finished,
        _ => Ended::Abandoned,
    }
}

/// Objects the GPU still uses, dropped while a dispatch runs: the queue,
/// the output buffer, the kernarg block, the kernel's executable, and the
/// whole runtime. The packet holds raw addresses, so hardware and ROCr
/// leave these to the caller; what the runtime owes is that nothing
/// crashes or hangs, each outcome is the GPU's (a fault on freed pages, a
/// packet error for an unmapped kernel object, a queue that is gone), and
/// the runtime keeps working afterwards.
#[test]
fn objects_dropped_in_flight_never_crash_or_hang() {
    bounded(Duration::from_secs(120), || {
        let gpu = Gpu::new();
        let program = gpu.load("sqrt_exp_loop");
        let inputs: Vec<f32> = (0..8192).map(|i| i as f32 * 0.25).collect();
        let input = gpu.upload_f32(&inputs);

        // The queue, dropped right after the doorbell: DESTROY_QUEUE
        // preempts the dispatch, whose signal then never reaches 0.
        let out = gpu.alloc(8192 * 4);
        let launch = slow_launch(&gpu, &program, &out, &input);
        let done = gpu.signal(1);
        let queue = gpu.queue(64);
        submit(&queue, &launch, &done);
        let dropped_at = Instant::now();
        drop(queue);
        let ended = bounded_wait(&done);
        // Work of tens of milliseconds cannot finish in the microseconds
        // before the drop unless this thread was descheduled meanwhile.
        if dropped_at.elapsed() < Duration::from_secs(1) || ended == Ended::Abandoned {
            assert_eq!(done.load(MemoryOrder::Acquire), 1, "queue dropped: signal");
        }
        still_works(&gpu);

        // On a queue that stays: the output pages freed under the
        // dispatch fault it (not-present), the freed kernel object makes
        // its packet invalid or its code fetch fault, and kernargs freed back into their still
        // mapped region change nothing the dispatch sees. Each error is
        // the queue's, and the queue recovers from it.
        let queue = gpu.queue(64);
        for what in ["output", "kernargs", "executable"] {
            let out = gpu.alloc(8192 * 4);
            let program = gpu.load("sqrt_exp_loop");
            let launch = slow_launch(&gpu, &program, &out, &input);
            let done = gpu.signal(1);
            submit(&queue, &launch, &done);
            match what {
                "output" => drop(out),
                "kernargs" => drop(launch),
                _ => drop(program),
            }
            let ended = bounded_wait(&done);
            let err = queue.error();
            match what {
                "kernargs" => {
                    assert_eq!(ended, Ended::Finished, "kernargs dropped");
                    assert!(err.is_none(), "kernargs dropped: {err:?}");
                }
                "output" => assert!(
                    matches!(&err, Some(e) if matches!(e.reason, QueueErrorReason::MemoryViolation { .. })),
                    "output dropped: {ended:?}, {err:?}"
                ),
                // Before the CP read the kernel descriptor: an invalid
                // packet; after: the waves' instruction fetch faults.
                _ => assert!(
                    matches!(&err, Some(e) if e.reason == QueueErrorReason::PacketInvalid
                        || matches!(e.reason, QueueErrorReason::MemoryViolation { .. })),
                    "executable dropped: {ended:?}, {err:?}"
                ),
            }
            if err.is_some() {
                queue
                    .recover()
                    .unwrap_or_else(|e| panic!("{what} dropped: recover: {e}"));
            }
        }
        drop(queue);
        still_works(&gpu);

        // The whole runtime, dropped with a dispatch in flight: teardown
        // finishes (the bound above catches a hang).
        let gpu = Gpu::new();
        let program = gpu.load("sqrt_exp_loop");
        let input = gpu.upload_f32(&[1.0; 8192]);
        let out = gpu.alloc(8192 * 4);
        let launch = slow_launch(&gpu, &program, &out, &input);
        let queue = gpu.queue(64);
        let done = gpu.signal(1);
        submit(&queue, &launch, &done);
        drop((queue, done, launch, out, input, program, gpu));
    });
}
