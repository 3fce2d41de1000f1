//! End to end through aqueduct-hsa on gfxsim: SDMA queues. Copies and
//! fills land the bytes they should (past one packet's 4 MiB too), a copy
//! waits for the dispatch that produced its source and a dispatch for the
//! copy that produced its input (signals between the compute queue and the
//! SDMA queue), a bad address is a queue error the next command recovers
//! from, and the process's SDMA queues are limited as KFD limits them.

use std::time::Duration;

use aqueduct_hsa::{HsaError, QueueCreationError, QueueErrorReason, SdmaError};
use aqueduct_test_harness::hsa_sim::{
    Arg, Gpu, Rng, host_bytes, read_u32, unallocated_in_aperture, wait_zero,
};

#[test]
fn sdma_copy_and_fill_land_their_bytes() {
    let gpu = Gpu::new();
    let sdma = gpu.rt.create_sdma_queue(&gpu.agent).expect("SDMA queue");
    let mut rng = Rng::new(31);
    // Past one COPY_LINEAR's 4 MiB, at odd offsets and length.
    let len = 9 * (1 << 20) + 13;
    let bytes: Vec<u8> = (0..len).map(|_| rng.u32() as u8).collect();
    let src = gpu.upload(&bytes);
    let dst = gpu.upload(&vec![0u8; len + 16]);
    let done = gpu.signal(1);
    sdma.copy(dst.gpu_va() + 3, src.gpu_va(), len as u64, &[], Some(&done))
        .unwrap();
    wait_zero(&done).unwrap();
    let out = host_bytes(&dst);
    assert_eq!(&out[..3], &[0, 0, 0]);
    assert!(out[3..3 + len] == bytes[..], "copied bytes differ");
    assert_eq!(out[3 + len], 0, "nothing past the copy");

    let fill_done = gpu.signal(1);
    sdma.fill(
        dst.gpu_va() + 4,
        0x0102_0304,
        4 * 1000,
        &[],
        Some(&fill_done),
    )
    .unwrap();
    wait_zero(&fill_done).unwrap();
    let words = read_u32(&dst, 1002);
    assert!(words[1..1001].iter().all(|&w| w == 0x0102_0304));
    assert_ne!(words[1001], 0x0102_0304, "the fill stops at its size");
    let unaligned = sdma.fill(dst.gpu_va() + 2, 0, 8, &[], None).unwrap_err();
    assert!(
        matches!(
            unaligned,
            HsaError::Sdma(SdmaError::UnalignedFill { address, bytes: 8 })
                if address == dst.gpu_va() + 2
        ),
        "{unaligned:?}"
    );
    let stamp = gpu.upload(&[0u8; 16]);
    let stamped = gpu.signal(1);
    sdma.timestamp(stamp.gpu_va(), &[], None).unwrap();
    sdma.timestamp(stamp.gpu_va() + 8, &[], Some(&stamped))
        .unwrap();
    wait_zero(&stamped).unwrap();
    let ticks = |at: usize| u64::from_le_bytes(host_bytes(&stamp)[at..at + 8].try_into().unwrap());
    assert_ne!(ticks(0), 0, "TIMESTAMP wrote the GPU counter");
    assert!(ticks(8) >= ticks(0), "the counter runs forward");
    // The signal is decremented before the FENCE and TRAP after it are
    // consumed: the engine catches up with the write pointer soon after.
    let start = std::time::Instant::now();
    while sdma.read_pointer() != sdma.write_pointer() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the engine stopped"
        );
        std::thread::yield_now();
    }
}

/// Compute → SDMA → compute: vector_copy(src → mid), then an SDMA copy of
/// mid → dst that polls the dispatch's completion signal, then a
/// barrier-AND on the SDMA copy's signal before vector_copy(dst → out).
#[test]
fn sdma_and_compute_order_through_signals() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let compute = gpu.queue(64);
    let sdma = gpu.rt.create_sdma_queue(&gpu.agent).expect("SDMA queue");
    let n = 4096usize;
    let words: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let src = gpu.upload_u32(&words);
    let mid = gpu.filled_u32(n, 0);
    let dst = gpu.filled_u32(n, 0);
    let out = gpu.filled_u32(n, 0);
    let hold = gpu.signal(1);
    let produced = gpu.signal(1);
    let copied = gpu.signal(1);
    let consumed = gpu.signal(1);
    let copy = |from: u64, to: u64| {
        gpu.launch(
            &program.kernel,
            &[Arg::Ptr(from), Arg::Ptr(to), Arg::U32(n as u32)],
            [n as u32, 1, 1],
            [64, 1, 1],
        )
    };
    let first = copy(src.gpu_va(), mid.gpu_va());
    let second = copy(dst.gpu_va(), out.gpu_va());
    // The first dispatch waits for the host, so the SDMA copy submitted
    // after it must wait for it in turn.
    compute.submit_barrier_and(&[&hold], None).unwrap();
    let mut d = first.dispatch;
    d.completion_signal = produced.handle();
    compute.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    sdma.copy(
        dst.gpu_va(),
        mid.gpu_va(),
        (n * 4) as u64,
        &[&produced],
        Some(&copied),
    )
    .unwrap();
    compute.submit_barrier_and(&[&copied], None).unwrap();
    let mut d = second.dispatch;
    d.completion_signal = consumed.handle();
    compute.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(copied.load(aqueduct_hsa::MemoryOrder::Acquire), 1, "held");
    assert!(read_u32(&dst, n).iter().all(|&w| w == 0), "held");
    hold.store(0, aqueduct_hsa::MemoryOrder::Release);
    wait_zero(&consumed).unwrap();
    assert_eq!(read_u32(&out, n), words);
}

#[test]
fn sdma_fault_is_a_queue_error_and_the_queue_recovers() {
    let gpu = Gpu::new();
    let sdma = gpu.rt.create_sdma_queue(&gpu.agent).expect("SDMA queue");
    let src = gpu.upload(&[7u8; 256]);
    let bad = unallocated_in_aperture(&gpu);
    let done = gpu.signal(1);
    sdma.copy(bad, src.gpu_va(), 256, &[], Some(&done)).unwrap();
    let start = std::time::Instant::now();
    let error = loop {
        if let Some(e) = sdma.error() {
            break e;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no queue error");
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(
        error.reason,
        QueueErrorReason::MemoryViolation { address: Some(bad) }
    );
    assert_eq!(done.load(aqueduct_hsa::MemoryOrder::Acquire), 1);

    let dst = gpu.upload(&[0u8; 256]);
    let again = gpu.signal(1);
    sdma.copy(dst.gpu_va(), src.gpu_va(), 256, &[], Some(&again))
        .unwrap();
    wait_zero(&again).unwrap();
    assert_eq!(sdma.recreations(), 1);
    assert_eq!(host_bytes(&dst)[..256], [7u8; 256]);
}

#[test]
fn sdma_queues_run_out_as_kfd_hands_them_out() {
    let gpu = Gpu::new();
    let limit = aqueduct_gfxsim::MAX_SDMA_QUEUES as usize;
    let queues: Vec<_> = (0..limit)
        .map(|_| {
            gpu.rt
                .create_sdma_queue(&gpu.agent)
                .expect("within the limit")
        })
        .collect();
    match gpu.rt.create_sdma_queue(&gpu.agent) {
        Err(HsaError::QueueCreation(QueueCreationError::CreateQueue { source, .. })) => {
            assert_eq!(source.errno(), Some(12), "ENOMEM");
        }
        other => panic!("expected ENOMEM, got {other:?}"),
    }
    drop(queues);
    gpu.rt
        .create_sdma_queue(&gpu.agent)
        .expect("dropped queues free their places");
}
