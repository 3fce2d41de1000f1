//! End to end through aqueduct-hsa on gfxsim: what goes wrong, and that it
//! is reported precisely and recovered from.
//!
//! GPU memory faults (a write to address 0x10, a write and a read inside the
//! runtime's reserved aperture where nothing is allocated) come back from
//! the wait as `HsaError::QueueError` with a memory-violation reason
//! carrying the faulting page, and a detail naming the exact address; the
//! next submission on the same `Queue` recreates the hardware queue and
//! works. An instruction the emulator rejects (empty.co with its first
//! instruction patched) names the instruction words, mnemonic and PC. A
//! kernel object in unmapped memory is a packet error. Malformed shapes
//! never reach the ring. A wait nobody satisfies times out.
//!
//! Each test has its own device and runtime: a queue error fails every wait
//! of its runtime until the queue is recovered.

use aqueduct_test_harness::hsa_sim;

use std::time::{Duration, Instant};

use aqueduct_hsa::{
    FaultAccess, HsaError, KernelDispatch, MemoryOrder, PacketError, QueueErrorReason,
    QueueFaultDetail, WaitCondition, WaitHint,
};
use aqueduct_test_harness::hsa_sim::{
    Arg, Gpu, Rng, oob_write, read_u32, unallocated_in_aperture, wait_zero,
};
use object::{Object, ObjectSection, ObjectSymbol};

const PAGE: u64 = 4096;

/// The error must be a memory violation at `address`'s page, with the
/// exact address in the detail.
fn expect_memory_violation(gpu: &Gpu, result: Result<(), HsaError>, address: u64) -> u32 {
    match result {
        Err(HsaError::QueueError {
            queue_id,
            reason: QueueErrorReason::MemoryViolation { address: reported },
            detail,
        }) => {
            assert_eq!(
                reported,
                Some(address & !(PAGE - 1)),
                "fault address (KFD reports the page)"
            );
            // The detail is KFD's MEMORY event data, read through WAIT_EVENTS.
            let Some(QueueFaultDetail::MemoryFault(fault)) = detail else {
                panic!("the VM fault's data: {detail:?}");
            };
            assert_eq!(
                (fault.gpu_id, fault.address, fault.access),
                (
                    gpu.agent.gpu_id,
                    address & !(PAGE - 1),
                    FaultAccess::NotPresent
                ),
                "{fault}"
            );
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(
                detail.contains(&format!("{address:#x}")),
                "detail names the exact address {address:#x}: {detail}"
            );
            queue_id
        }
        other => panic!("expected a memory violation at {address:#x}, got {other:?}"),
    }
}

/// A copy of `n` words on `queue`, checked against its source.
fn copy_works(gpu: &Gpu, queue: &aqueduct_hsa::Queue, seed: u64) {
    let program = gpu.load("vector_copy");
    let words = Rng::new(seed).u32s(700);
    let src = gpu.upload_u32(&words);
    let dst = gpu.filled_u32(words.len(), 0);
    let launch = gpu.launch(
        &program.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst.gpu_va()),
            Arg::U32(words.len() as u32),
        ],
        [words.len() as u32, 1, 1],
        [64, 1, 1],
    );
    gpu.run_on(queue, &launch).expect("copy after recovery");
    assert_eq!(read_u32(&dst, words.len()), words);
}

/// Writes to 0x10 and to an unallocated aperture page fault; each time the
/// next dispatch on the same Queue object recreates it and runs.
#[test]
fn write_faults_report_the_address_and_the_same_queue_recovers() {
    let gpu = Gpu::new();
    let program = gpu.load("oob_write");
    let queue = gpu.queue(64);
    let first_id = queue.id();

    let null_page = 0x10;
    let failed_id =
        expect_memory_violation(&gpu, oob_write(&gpu, &program, &queue, null_page, 1), 0x10);
    assert_eq!(failed_id, first_id);
    assert!(queue.error().is_some(), "the queue reports its error");
    assert_eq!(queue.recreations(), 0);

    let target = gpu.filled_u32(4, 0);
    oob_write(&gpu, &program, &queue, target.gpu_va() + 4, 0x5eed_0001).unwrap();
    assert_eq!(queue.recreations(), 1);
    assert!(queue.error().is_none());
    assert_eq!(read_u32(&target, 4), [0, 0x5eed_0001, 0, 0]);

    let hole = unallocated_in_aperture(&gpu) + 0x24;
    expect_memory_violation(&gpu, oob_write(&gpu, &program, &queue, hole, 2), hole);
    oob_write(&gpu, &program, &queue, target.gpu_va() + 8, 0x5eed_0002).unwrap();
    assert_eq!(queue.recreations(), 2);
    assert_eq!(read_u32(&target, 4), [0, 0x5eed_0001, 0x5eed_0002, 0]);
    // The device keeps working for other kernels too.
    copy_works(&gpu, &queue, 20);
}

/// A read fault (vector_copy from an unallocated page), and the packet
/// queued behind the faulting dispatch: it never completes, its signal
/// stays 1, and waiting on it reports the queue error, not a timeout.
#[test]
fn read_fault_stops_later_packets_until_the_queue_is_recreated() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let hole = unallocated_in_aperture(&gpu) + 0x100;
    let dst = gpu.filled_u32(64, 7);
    let bad = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(hole), Arg::Ptr(dst.gpu_va()), Arg::U32(64)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let words = Rng::new(21).u32s(64);
    let src = gpu.upload_u32(&words);
    let dst2 = gpu.filled_u32(64, 7);
    let good = gpu.launch(
        &program.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst2.gpu_va()),
            Arg::U32(64),
        ],
        [64, 1, 1],
        [64, 1, 1],
    );
    let bad_done = gpu.signal(1);
    let good_done = gpu.signal(1);
    // One reservation for both: a second submit after the fault would
    // recover the queue (and drop the error) before the waits below.
    let mut reservation = queue.reserve(2).unwrap();
    for (i, (launch, done)) in [(&bad, &bad_done), (&good, &good_done)]
        .into_iter()
        .enumerate()
    {
        let mut d = launch.dispatch;
        d.completion_signal = done.handle();
        reservation
            .write(i as u32, &d.to_packet().unwrap())
            .unwrap();
    }
    reservation.commit();
    expect_memory_violation(&gpu, wait_zero(&bad_done).map(drop), hole);
    expect_memory_violation(&gpu, wait_zero(&good_done).map(drop), hole);
    assert_eq!(good_done.load(MemoryOrder::Acquire), 1);
    assert_eq!(read_u32(&dst2, 64), vec![7; 64], "the later packet ran");

    copy_works(&gpu, &queue, 22);
    assert_eq!(queue.recreations(), 1);
}

/// File offset of symbol `name`'s code in an ELF code object.
fn code_file_offset(elf: &[u8], name: &str) -> usize {
    let file = object::read::elf::ElfFile64::<object::Endianness>::parse(elf).expect("ELF");
    let symbol = file
        .symbols()
        .find(|s| s.name() == Ok(name) && s.kind() == object::SymbolKind::Text)
        .expect("kernel symbol");
    let section = file
        .section_by_index(symbol.section_index().expect("symbol's section"))
        .expect("section");
    let (start, _) = section.file_range().expect("section in file");
    (start + symbol.address() - section.address()) as usize
}

/// empty.co with its first instruction (s_endpgm) replaced by `words`.
fn patched_empty(words: &[u32]) -> Vec<u8> {
    let mut elf = hsa_sim::kernel_file("empty.co");
    let at = code_file_offset(&elf, "empty");
    assert_eq!(
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()),
        0xbfb0_0000,
        "empty's body starts with s_endpgm"
    );
    for (i, w) in words.iter().enumerate() {
        elf[at + 4 * i..at + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    elf
}

/// Run a patched empty kernel; returns the error and the kernel's entry PC.
fn run_patched(gpu: &Gpu, words: &[u32]) -> (HsaError, u64) {
    let program = gpu
        .load_bytes(&patched_empty(words), "empty")
        .expect("patched empty.co loads");
    let pc = program.exe.load_base() + program.kernel.info.entry_offset();
    let queue = gpu.queue(64);
    let err = gpu
        .run_on(
            &queue,
            &gpu.launch(&program.kernel, &[], [32, 1, 1], [32, 1, 1]),
        )
        .expect_err("the patched kernel must fail");
    // The device still works afterwards, on the same queue.
    copy_works(gpu, &queue, 23);
    (err, pc)
}

/// An image instruction (MIMG, which gfxsim does not implement):
/// `image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D`.
#[test]
fn unsupported_instruction_names_words_mnemonic_and_pc() {
    let gpu = Gpu::new();
    const IMAGE_LOAD: [u32; 2] = [0xf000_0f00, 0x0000_0000];
    let (err, pc) = run_patched(&gpu, &IMAGE_LOAD);
    match err {
        HsaError::QueueError {
            reason: QueueErrorReason::IllegalInstruction,
            queue_id,
            detail: None,
            ..
        } => {
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(detail.contains("0xf0000f00"), "instruction word: {detail}");
            assert!(detail.contains("image"), "mnemonic: {detail}");
            assert!(
                detail.contains(&format!("pc {pc:#x}")),
                "pc {pc:#x}: {detail}"
            );
        }
        other => panic!("expected an illegal-instruction queue error, got {other:?}"),
    }
}

/// `s_trap 2` with no trap handler stops the queue with a trap error.
#[test]
fn s_trap_is_a_trap_queue_error() {
    let gpu = Gpu::new();
    const S_TRAP_2: u32 = 0xbf90_0002;
    let (err, pc) = run_patched(&gpu, &[S_TRAP_2]);
    match err {
        HsaError::QueueError {
            reason: QueueErrorReason::Trap,
            queue_id,
            detail: None,
            ..
        } => {
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(detail.contains("s_trap 2"), "{detail}");
            assert!(
                detail.contains(&format!("pc {pc:#x}")),
                "pc {pc:#x}: {detail}"
            );
        }
        other => panic!("expected a trap queue error, got {other:?}"),
    }
}

/// A dispatch whose kernel object is 64-byte aligned but unmapped passes
/// the runtime's checks and is rejected by the packet processor.
#[test]
fn kernel_object_in_unmapped_memory_is_a_packet_error() {
    let gpu = Gpu::new();
    let program = gpu.load("empty");
    let queue = gpu.queue(64);
    let nowhere = unallocated_in_aperture(&gpu) + 0x40;
    let mut launch = gpu.launch(&program.kernel, &[], [32, 1, 1], [32, 1, 1]);
    launch.dispatch.kernel_object = nowhere;
    match gpu.run_on(&queue, &launch) {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::PacketInvalid,
            queue_id,
            detail: None,
        }) => {
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(detail.contains(&format!("{nowhere:#x}")), "{detail}");
        }
        other => panic!("expected a packet error, got {other:?}"),
    }
    // Back to the real kernel object on the same queue.
    launch.dispatch.kernel_object = program.kernel.kernel_object;
    gpu.run_on(&queue, &launch).unwrap();
    assert_eq!(queue.recreations(), 1);
}

/// Shapes the packet processor would reject never reach the ring.
#[test]
fn invalid_dispatch_shapes_are_rejected_before_submission() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let good = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(0), Arg::Ptr(0), Arg::U32(0)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let base = good.dispatch;
    let broken: Vec<(&str, KernelDispatch)> = vec![
        (
            "0 dimensions",
            KernelDispatch {
                dimensions: 0,
                ..base
            },
        ),
        (
            "4 dimensions",
            KernelDispatch {
                dimensions: 4,
                ..base
            },
        ),
        (
            "empty grid",
            KernelDispatch {
                grid_size: [0, 1, 1],
                ..base
            },
        ),
        (
            "empty workgroup",
            KernelDispatch {
                workgroup_size: [0, 1, 1],
                ..base
            },
        ),
        (
            "2048-item workgroup",
            KernelDispatch {
                workgroup_size: [32, 32, 2],
                grid_size: [32, 32, 2],
                dimensions: 3,
                ..base
            },
        ),
        (
            "1-D dispatch with a y extent",
            KernelDispatch {
                grid_size: [64, 2, 1],
                ..base
            },
        ),
        (
            "null kernel object",
            KernelDispatch {
                kernel_object: 0,
                ..base
            },
        ),
        (
            "unaligned kernel object",
            KernelDispatch {
                kernel_object: base.kernel_object + 8,
                ..base
            },
        ),
        (
            "unaligned kernarg",
            KernelDispatch {
                kernarg_address: base.kernarg_address + 4,
                ..base
            },
        ),
    ];
    for (what, d) in broken {
        let rejected = match d.to_packet() {
            Err(HsaError::Packet(e)) => e,
            other => panic!("{what}: expected a packet error, got {other:?}"),
        };
        let expected = match what {
            "0 dimensions" => matches!(rejected, PacketError::Dimensions { dimensions: 0 }),
            "4 dimensions" => matches!(rejected, PacketError::Dimensions { dimensions: 4 }),
            "empty grid" => matches!(
                rejected,
                PacketError::ZeroSize {
                    grid: 0,
                    dimension: 0,
                    ..
                }
            ),
            "empty workgroup" => matches!(
                rejected,
                PacketError::ZeroSize {
                    workgroup: 0,
                    dimension: 0,
                    ..
                }
            ),
            "2048-item workgroup" => matches!(
                rejected,
                PacketError::WorkgroupTooLarge {
                    items: 2048,
                    limit: 1024
                }
            ),
            "1-D dispatch with a y extent" => matches!(
                rejected,
                PacketError::UnusedDimension {
                    dimensions: 1,
                    dimension: 1
                }
            ),
            "null kernel object" => matches!(rejected, PacketError::KernelObject { address: 0 }),
            "unaligned kernel object" => matches!(rejected,
                PacketError::KernelObject { address } if address == base.kernel_object + 8),
            "unaligned kernarg" => matches!(rejected,
                PacketError::KernargAddress { address } if address == base.kernarg_address + 4),
            _ => unreachable!("{what} has no expected error"),
        };
        assert!(expected, "{what}: {rejected:?}");
    }
    assert_eq!(queue.write_index(), 0, "nothing was submitted");
    // The untouched original still runs (n = 0: it writes nothing).
    gpu.run_on(&queue, &good).unwrap();
    assert_eq!(queue.read_index(), 1);
}

/// A wait nobody satisfies ends in Timeout, after about the time asked.
#[test]
fn a_wait_on_a_signal_nobody_completes_times_out() {
    let gpu = Gpu::new();
    let signal = gpu.signal(1);
    for hint in [WaitHint::Blocked, WaitHint::Active] {
        let start = Instant::now();
        let result = signal.wait(WaitCondition::Eq, 0, Some(Duration::from_millis(60)), hint);
        let took = start.elapsed();
        assert!(
            matches!(result, Err(HsaError::Timeout)),
            "{hint:?}: {result:?}"
        );
        assert!(
            took >= Duration::from_millis(60),
            "{hint:?}: returned after {took:?}"
        );
        assert!(
            took < Duration::from_secs(10),
            "{hint:?}: returned after {took:?}"
        );
    }
    assert_eq!(signal.load(MemoryOrder::Relaxed), 1);
}

/// A waiter that looks only after someone else's submission recovered the
/// queue still learns that its dispatch failed (the recovery marks the
/// dropped packets' signals), instead of waiting for a signal that can
/// never complete.
#[test]
fn a_late_waiter_sees_the_error_a_recovery_cleared() {
    let gpu = Gpu::new();
    let program = gpu.load("oob_write");
    let queue = gpu.queue(64);
    let failed = gpu.signal(1);
    let launch = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(0x10), Arg::U32(7)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let mut d = launch.dispatch;
    d.completion_signal = failed.handle();
    queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    let start = Instant::now();
    while queue.error().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the fault is reported"
        );
        std::thread::yield_now();
    }

    // Another submission on the same queue recovers it and runs.
    copy_works(&gpu, &queue, 11);
    assert_eq!(queue.recreations(), 1);

    // The late wait fails with the original fault, at once.
    let start = Instant::now();
    expect_memory_violation(&gpu, wait_zero(&failed).map(|_| ()), 0x10);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        failed.load(MemoryOrder::Acquire),
        1,
        "the failed dispatch never completed"
    );

    // Re-arming the signal forgets the failure: a new dispatch completes it.
    failed.store(1, MemoryOrder::Release);
    let target = gpu.filled_u32(1, 0);
    let launch = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(target.gpu_va()), Arg::U32(9)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let mut d = launch.dispatch;
    d.completion_signal = failed.handle();
    queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    wait_zero(&failed).expect("a re-armed signal works again");
    assert_eq!(read_u32(&target, 1), [9]);
}

/// `reserve_unless_failed` and `submit_unless_failed` leave a faulted
/// queue as it is and return its error (a writer that counts dropped work
/// learns of the fault first); after `recover` they work again.
#[test]
fn reserving_unless_failed_keeps_the_fault_for_the_writer() {
    let gpu = Gpu::new();
    let program = gpu.load("oob_write");
    let queue = gpu.queue(64);
    expect_memory_violation(&gpu, oob_write(&gpu, &program, &queue, 0x10, 1), 0x10);
    let written_before = queue.write_index();
    match queue.reserve_unless_failed(1) {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::MemoryViolation { .. },
            ..
        }) => {}
        Err(e) => panic!("expected the queue's memory violation, got {e:?}"),
        Ok(_) => panic!("a faulted queue gave out slots"),
    }
    let nop =
        aqueduct_hsa::queue::packet::barrier_and(&[], 0, aqueduct_hsa::PacketFence::SYSTEM_ORDERED)
            .unwrap();
    assert!(matches!(
        queue.submit_unless_failed(&nop),
        Err(HsaError::QueueError { .. })
    ));
    assert!(queue.error().is_some(), "the error is still there");
    assert_eq!(queue.recreations(), 0, "nothing recreated the queue");
    assert_eq!(queue.write_index(), written_before, "no slot was taken");
    queue.recover().unwrap();
    assert_eq!(queue.recreations(), 1);
    queue
        .submit_unless_failed(&nop)
        .expect("the recreated queue takes packets");
    copy_works(&gpu, &queue, 22);
}
