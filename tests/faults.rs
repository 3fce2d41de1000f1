//! GPU faults through the facade: a kernel that reads an address no buffer
//! covers, one that executes s_trap, and one that executes a word no gfx11
//! encoding decodes. Each is reported as one Internal error naming the
//! kernel, the submission and the fault (the address for a memory
//! violation; for it, KFD's VM fault data ends the message), while gfxsim's
//! own account (`SimDevice::wave_error`) names the PC. Around each
//! fault: results written by earlier submissions and a buffer nobody wrote
//! keep their contents, and the next submissions run. A second device of
//! the same adapter works on through another device's faults, and a
//! destroyed buffer never reaches the GPU (a validation error, not a fault).
//! The out-of-bounds write is tests/queue_fault.rs; the watchdog is
//! tests/faults_watchdog.rs (it needs its own process for its environment
//! variable).
//!
//! Kernels: tests/kernels/<target>/{faults,stress}.co (tests/kernels/src).
//! About 1 s on 2 cores.

use std::borrow::Cow;
use std::time::Duration;

use aqueduct::*;
use aqueduct_test_harness::facade::*;

const WAIT: Duration = Duration::from_secs(60);

fn faults_pipeline(device: &Device, entry: &str) -> ComputePipeline {
    let m = code_object_module(
        device,
        "faults",
        Cow::Owned(test_kernel("faults")),
        [64, 1, 1],
    );
    expect_valid(device, || auto_pipeline(device, &m, entry))
}

fn stamp_pipeline(device: &Device) -> ComputePipeline {
    let m = code_object_module(
        device,
        "stress",
        Cow::Owned(test_kernel("stress")),
        [64, 1, 1],
    );
    expect_valid(device, || auto_pipeline(device, &m, "stamp"))
}

/// What stamp writes at word `i` for `seed`.
fn stamped(seed: u32, i: u32) -> u32 {
    seed.wrapping_mul(2_654_435_761).wrapping_add(i)
}

/// Record one dispatch of `pipeline` over `groups` workgroups of 64.
fn dispatch(
    device: &Device,
    pipeline: &ComputePipeline,
    buffers: &[&Buffer],
    immediates: &[u8],
    groups: u32,
) -> CommandBuffer {
    let bg = bind_group(device, pipeline, 0, buffers);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bg, &[]);
        if !immediates.is_empty() {
            pass.set_immediates(0, immediates);
        }
        pass.dispatch_workgroups(groups, 1, 1);
    }
    enc.finish()
}

/// stamp over `n` words of `out` with `seed`, counting in `counters[slot]`.
fn stamp(
    c: &Ctx,
    pipeline: &ComputePipeline,
    out: &Buffer,
    counters: &Buffer,
    slot: u32,
    seed: u32,
    n: u32,
) -> CommandBuffer {
    let mut imm = Vec::new();
    for v in [slot, seed, n] {
        imm.extend(v.to_le_bytes());
    }
    dispatch(&c.device, pipeline, &[out, counters], &imm, n.div_ceil(64))
}

/// Submit `cb`, wait, and return the one Internal error it raised.
fn expect_fault(c: &Ctx, cb: CommandBuffer) -> (SubmissionIndex, Error) {
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let index = c.queue.submit([cb]);
    let status = c
        .device
        .poll(PollType::Wait {
            submission_index: Some(index),
            timeout: Some(WAIT),
        })
        .expect("the waiter is released, not timed out");
    assert_eq!(status, PollStatus::QueueEmpty);
    let err = scope.pop_now().expect("the fault is reported");
    assert_eq!(err.filter(), ErrorFilter::Internal);
    (index, err)
}

/// The submission a fault summary names (`... (submission N): ...`).
fn submission_in(message: &str) -> SubmissionIndex {
    let head = "(submission ";
    let at = message.find(head).unwrap_or_else(|| panic!("{message}")) + head.len();
    let (number, _) = message[at..].split_once(')').expect("submission number");
    SubmissionIndex::from_epoch(number.parse().expect("a number"))
}

/// The error's text and its source's (the device's report).
fn texts(err: &Error) -> (String, String) {
    let source = std::error::Error::source(err)
        .map(|s| s.to_string())
        .unwrap_or_default();
    (err.to_string(), source)
}

#[test]
fn each_fault_names_its_kernel_and_pc_and_the_device_keeps_working() {
    let (c, sim) = sim_ctx();
    let stamp_p = stamp_pipeline(&c.device);
    let intact_words: Vec<u32> = (0..2048u32).map(|i| i ^ 0xa5a5_0000).collect();
    let intact = storage_init(&c.device, &intact_words);
    let counters = storage_init(&c.device, &[0; 16]);

    struct Case {
        entry: &'static str,
        /// The summary after `(submission N): `.
        what: &'static str,
        /// KFD's VM fault data, which ends the message (memory violations
        /// only).
        kfd: Option<&'static str>,
        /// What gfxsim's own account must say.
        report: &'static str,
    }
    let cases = [
        Case {
            entry: "read_at",
            what: "memory violation at GPU address 0x2000;",
            kfd: Some("VM fault: page not present at page 0x2000)"),
            report: "Read at address 0x2040 (pc 0x",
        },
        Case {
            entry: "trap_now",
            what: "wave trap or abort;",
            kfd: None,
            report: "s_trap 2 at pc 0x",
        },
        Case {
            entry: "illegal_word",
            what: "illegal instruction;",
            kfd: None,
            report: "unsupported instruction [0xffffffff] at pc 0x",
        },
    ];
    for (k, case) in cases.iter().enumerate() {
        // Work that completes before the fault: its results must stay.
        let seed = 0x1000 + k as u32;
        let before = storage(&c.device, 256 * 4);
        c.queue
            .submit([stamp(&c, &stamp_p, &before, &counters, k as u32, seed, 256)]);

        let out = storage_init(&c.device, &[0x5555_5555; 128]);
        let cb = match case.entry {
            "read_at" => {
                let faults = faults_pipeline(&c.device, "read_at");
                dispatch(&c.device, &faults, &[&out], &0x2040u64.to_le_bytes(), 1)
            }
            "trap_now" => {
                let faults = faults_pipeline(&c.device, "trap_now");
                dispatch(&c.device, &faults, &[&out], &128u32.to_le_bytes(), 2)
            }
            _ => {
                let faults = faults_pipeline(&c.device, "illegal_word");
                dispatch(&c.device, &faults, &[&out], &[], 2)
            }
        };
        let (index, err) = expect_fault(&c, cb);
        let (message, source) = texts(&err);
        let head = format!("GPU fault in kernel {} (submission ", case.entry);
        assert!(message.contains(&head), "{message}");
        assert!(message.contains(&format!("): {}", case.what)), "{message}");
        assert_eq!(submission_in(&message), index, "{message}");
        assert!(!message.contains('\n'), "one line: {message}");
        match case.kfd {
            Some(kfd) => {
                assert!(source.contains(kfd), "{}: {source}", case.entry);
                assert!(
                    message.contains("(device report: GPU ") && message.ends_with(kfd),
                    "the message ends with KFD's fault data: {message}"
                );
            }
            None => assert!(!message.contains("device report"), "{message}"),
        }
        let sim_report = wave_error(&sim, &err).expect("gfxsim's account of the fault");
        assert!(
            sim_report.contains(case.report),
            "{}: {sim_report}",
            case.entry
        );

        // The earlier results, the untouched buffer, and new work.
        let scope = c.device.push_error_scope(ErrorFilter::Internal);
        let got = read_words(&c, &before);
        let want: Vec<u32> = (0..256).map(|i| stamped(seed, i)).collect();
        assert_eq!(got, want, "{}: results from before the fault", case.entry);
        assert_eq!(read_words(&c, &intact), intact_words, "{}", case.entry);
        let after = storage(&c.device, 100 * 4);
        c.queue.submit([stamp(
            &c,
            &stamp_p,
            &after,
            &counters,
            8 + k as u32,
            seed,
            100,
        )]);
        let want: Vec<u32> = (0..100).map(|i| stamped(seed, i)).collect();
        assert_eq!(
            read_words(&c, &after),
            want,
            "{}: after the fault",
            case.entry
        );
        if let Some(e) = scope.pop_now() {
            panic!("{}: an error after recovery: {e}", case.entry);
        }
        if case.entry == "read_at" {
            assert_eq!(read_words(&c, &out)[0], 0x5555_5555, "nothing was read");
        }
    }
    let counts = read_words(&c, &counters);
    assert_eq!(&counts[..3], &[256; 3], "each earlier stamp ran once");
    assert_eq!(&counts[8..11], &[100; 3], "each later stamp ran once");
}

/// Two devices of one adapter share the runtime: faults on the first must
/// not fail, delay or corrupt the second's work.
/// A pass repeating a dispatch records one op for the run; a fault in the
/// dispatch after the run is still located packet by packet: it names the
/// faulting kernel, not the repeated one, and the run's results stay.
#[test]
fn a_fault_after_a_run_of_repeated_dispatches_names_its_kernel() {
    let c = ctx();
    let stamp_p = stamp_pipeline(&c.device);
    let faults = faults_pipeline(&c.device, "read_at");
    let out = storage(&c.device, 256 * 4);
    let counters = storage_init(&c.device, &[0; 16]);
    let target = storage_init(&c.device, &[0x5555_5555; 128]);
    let stamp_bg = bind_group(&c.device, &stamp_p, 0, &[&out, &counters]);
    let fault_bg = bind_group(&c.device, &faults, 0, &[&target]);
    let seed = 0x77u32;
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&stamp_p);
        pass.set_bind_group(0, &stamp_bg, &[]);
        let mut imm = Vec::new();
        for v in [3u32, seed, 256] {
            imm.extend(v.to_le_bytes());
        }
        pass.set_immediates(0, &imm);
        for _ in 0..5 {
            pass.dispatch_workgroups(4, 1, 1);
        }
        pass.set_pipeline(&faults);
        pass.set_bind_group(0, &fault_bg, &[]);
        pass.set_immediates(0, &0x2040u64.to_le_bytes());
        pass.dispatch_workgroups(1, 1, 1);
    }
    let cb = enc.finish();
    assert_eq!(
        cb.debug_packets().len(),
        7,
        "5 repeats, the fault, completion"
    );
    let (index, err) = expect_fault(&c, cb);
    let (message, _) = texts(&err);
    let head = "GPU fault in kernel read_at (submission ";
    assert!(message.contains(head), "{message}");
    assert_eq!(submission_in(&message), index, "{message}");
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let want: Vec<u32> = (0..256).map(|i| stamped(seed, i)).collect();
    assert_eq!(read_words(&c, &out), want, "the run's results");
    // stamp counts its work-items in counters[slot]: 5 runs of 256.
    assert_eq!(read_words(&c, &counters)[3], 5 * 256);
    if let Some(e) = scope.pop_now() {
        panic!("an error after recovery: {e}");
    }
}

#[test]
fn a_second_device_of_the_adapter_works_through_faults() {
    let c = ctx();
    let (device2, queue2) = block_on(c.adapter.request_device(&DeviceDescriptor {
        required_features: c.adapter.features(),
        experimental_features: experimental_features(),
        required_limits: c.adapter.limits(),
        ..Default::default()
    }))
    .expect("second device");
    device2.on_uncaptured_error(std::sync::Arc::new(|e| panic!("device 2: {e}")));
    let c2 = Ctx {
        instance: c.instance.clone(),
        adapter: c.adapter.clone(),
        device: device2,
        queue: queue2,
    };
    let trap = faults_pipeline(&c.device, "trap_now");
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let stamp_p = stamp_pipeline(&c2.device);
            let counters = storage_init(&c2.device, &[0; 64]);
            let scope = c2.device.push_error_scope(ErrorFilter::Internal);
            let mut rounds = 0u32;
            while rounds < 64 && !(rounds >= 8 && stop.load(std::sync::atomic::Ordering::Acquire)) {
                let seed = 0x77 + rounds;
                let out = storage(&c2.device, 500 * 4);
                c2.queue
                    .submit([stamp(&c2, &stamp_p, &out, &counters, rounds, seed, 500)]);
                let want: Vec<u32> = (0..500).map(|i| stamped(seed, i)).collect();
                assert_eq!(read_words(&c2, &out), want, "device 2 round {rounds}");
                rounds += 1;
            }
            if let Some(e) = scope.pop_now() {
                panic!("device 2 saw an error: {e}");
            }
            let counts = read_words(&c2, &counters);
            for (r, &count) in counts.iter().enumerate().take(rounds as usize) {
                assert_eq!(count, 500, "device 2 round {r}");
            }
        });
        for _ in 0..8 {
            let out = storage(&c.device, 128 * 4);
            let cb = dispatch(&c.device, &trap, &[&out], &128u32.to_le_bytes(), 2);
            let (_, err) = expect_fault(&c, cb);
            assert!(is_queue_fault(&err, Some("trap_now")), "{err}");
        }
        stop.store(true, std::sync::atomic::Ordering::Release);
        worker.join().expect("device 2's thread");
    });
}

/// A destroyed buffer is a validation error at submit: nothing reaches the
/// GPU, nothing faults, and the device keeps working.
#[test]
fn a_destroyed_buffer_never_reaches_the_gpu() {
    let c = ctx();
    let stamp_p = stamp_pipeline(&c.device);
    let counters = storage_init(&c.device, &[0; 4]);
    let out = storage(&c.device, 64 * 4);
    let cb = stamp(&c, &stamp_p, &out, &counters, 0, 1, 64);
    out.destroy();
    let validation = c.device.push_error_scope(ErrorFilter::Validation);
    let internal = c.device.push_error_scope(ErrorFilter::Internal);
    c.queue.submit([cb]);
    c.device.poll(PollType::wait_indefinitely()).expect("poll");
    assert!(internal.pop_now().is_none(), "no GPU fault");
    let err = validation
        .pop_now()
        .expect("using a destroyed buffer is invalid");
    assert!(
        matches!(
            validation_source(&err),
            Some(ValidationError::Queue(QueueError::BufferDestroyed {
                index: 0,
                ..
            }))
        ),
        "{err}"
    );
    assert_eq!(read_words(&c, &counters), [0; 4], "the dispatch never ran");

    let out2 = storage(&c.device, 64 * 4);
    c.queue
        .submit([stamp(&c, &stamp_p, &out2, &counters, 1, 2, 64)]);
    let want: Vec<u32> = (0..64).map(|i| stamped(2, i)).collect();
    assert_eq!(read_words(&c, &out2), want);
    assert_eq!(read_words(&c, &counters), [0, 64, 0, 0]);
}

/// Dropping a device whose kernel never ends returns promptly (its queue's
/// destroy stops the waves) instead of waiting for the kernel or the 30 s
/// watchdog; the instance opens a working device afterwards.
#[test]
fn dropping_a_device_stops_its_endless_kernel() {
    let c = ctx();
    let spin = faults_pipeline(&c.device, "spin");
    let flag = storage_init(&c.device, &[0, 0]);
    c.queue
        .submit([dispatch(&c.device, &spin, &[&flag], &[], 4)]);
    std::thread::sleep(Duration::from_millis(50));
    let Ctx {
        instance,
        adapter,
        device,
        queue,
    } = c;
    let (tx, rx) = std::sync::mpsc::channel();
    let started = std::time::Instant::now();
    std::thread::spawn(move || {
        drop((spin, flag, queue, device));
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("dropping the device returned");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the drop waited {:?}",
        started.elapsed()
    );
    let (device, queue) = block_on(adapter.request_device(&Default::default())).expect("device");
    let c = Ctx {
        instance,
        adapter,
        device,
        queue,
    };
    let words = storage_init(&c.device, &[5, 6, 7]);
    assert_eq!(read_words(&c, &words), [5, 6, 7]);
}
