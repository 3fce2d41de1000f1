//! AQL agent dispatch on gfxsim: CPU-agent soft queues running host
//! functions in order with GPU work.
//!
//! Covered: the agent-dispatch packet's exact bytes (hsa.h layout); the
//! soft queue's `amd_queue_t`; a host function between two dependent
//! kernels (the second sees what the host wrote); cross-queue ordering both
//! ways (a GPU barrier-AND on a CPU-queue signal, a CPU barrier-AND on a
//! kernel's signal); barrier-OR; callbacks from several producer threads
//! run in dispatch order; an unknown function id puts the queue in error
//! (API, error callback, waiters) and the queue recovers; a failing
//! function; dropping a queue with work pending.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aqueduct_hsa::agent_queue::{
    AgentDispatch, AgentQueue, CALLBACK_FUNCTION_ID, HostCall, HostFunctionRegistry,
};
use aqueduct_hsa::queue::AqlPacket;
use aqueduct_hsa::queue::packet::PacketFence;
use aqueduct_hsa::{
    HsaError, MemoryOrder, QueueErrorReason, QueueFaultDetail, ReservationError, Signal,
    WaitCondition, WaitHint,
};
use aqueduct_kfd::abi::queue::{HSA_QUEUE_FEATURE_AGENT_DISPATCH, HSA_QUEUE_TYPE_MULTI};
use aqueduct_kfd::abi::{FenceScope, agent_dispatch_type, packet_type};
use aqueduct_test_harness::hsa_sim::{
    Arg, Gpu, TIMEOUT, read_f32, read_u32, unallocated_in_aperture, wait_zero,
};

/// How long a held packet is watched before its dependency is released.
const HOLD: Duration = Duration::from_millis(60);

fn agent_queue(gpu: &Gpu, functions: Arc<HostFunctionRegistry>) -> AgentQueue {
    let cpu = gpu.rt.cpu_agents().next().expect("a CPU agent").clone();
    AgentQueue::new(&gpu.rt, &cpu, 64, functions).expect("AgentQueue::new")
}

#[test]
fn agent_dispatch_packet_bytes() {
    let d = AgentDispatch {
        return_address: 0x7f00_0000_2040,
        completion_signal: 0x1122_3344_5566_7780,
        ..AgentDispatch::new(0x8003, [1, 0x0102_0304_0506_0708, u64::MAX, 0x10])
    };
    let bytes: [u8; 64] = bytemuck::cast(d.to_packet().to_raw());
    #[rustfmt::skip]
    let expected: [u8; 64] = [
        0x04, 0x15,             // header: AGENT_DISPATCH | barrier | acq SYSTEM | rel SYSTEM = 0x1504
        0x03, 0x80,             // type: function 0x8003
        0, 0, 0, 0,             // reserved0
        0x40, 0x20, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00, // return_address
        0x01, 0, 0, 0, 0, 0, 0, 0,                      // arg[0]
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // arg[1]
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // arg[2]
        0x10, 0, 0, 0, 0, 0, 0, 0,                      // arg[3]
        0, 0, 0, 0, 0, 0, 0, 0, // reserved2
        0x80, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // completion_signal
    ];
    assert_eq!(bytes, expected);
    let unordered = AgentDispatch {
        fence: PacketFence {
            barrier: false,
            acquire: FenceScope::Agent,
            release: FenceScope::None,
        },
        ..AgentDispatch::new(CALLBACK_FUNCTION_ID, [0; 4])
    };
    let p = unordered.to_packet();
    assert_eq!(p.header, 0x0204);
    assert_eq!(p.dispatch_type, 1);
    assert_eq!(packet_type::AGENT_DISPATCH, 4);
    assert_eq!(agent_dispatch_type::APPLICATION_START, 0x8000);
    assert_eq!(agent_dispatch_type::VENDOR_END, 0x7fff);
}

#[test]
fn registry_ids_follow_hsa_ranges() {
    let r = HostFunctionRegistry::new();
    assert_eq!(r.register(|_| Ok(())).unwrap(), 0x8000);
    assert_eq!(r.register(|_| Ok(())).unwrap(), 0x8001);
    r.register_at(0x9000, |_| Ok(())).unwrap();
    assert!(r.register_at(0x9000, |_| Ok(())).is_err(), "taken id");
    assert!(r.register_at(0x0042, |_| Ok(())).is_err(), "vendor id");
    assert!(r.unregister(0x8000));
    assert!(!r.unregister(0x8000));
    assert_eq!(r.register(|_| Ok(())).unwrap(), 0x8000, "freed id reused");
    assert_eq!(r.len(), 3);
}

#[test]
fn soft_queue_structure_and_cpu_agent_only() {
    let gpu = Gpu::new();
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let amd = q.amd_queue();
    assert_eq!(amd.queue_type, HSA_QUEUE_TYPE_MULTI);
    assert_eq!(amd.features, HSA_QUEUE_FEATURE_AGENT_DISPATCH);
    assert_eq!(amd.size, 64);
    assert_eq!(amd.doorbell_signal, q.doorbell_signal().handle());
    assert_eq!(amd.id, q.id() as u64);
    assert_eq!(amd.read_dispatch_id, 0);
    assert_eq!(amd.write_dispatch_id, 0);
    // Every ring slot starts INVALID.
    for i in 0..64u64 {
        // SAFETY: the ring is a live host-mapped BO of 64 slots.
        let h = unsafe { ((amd.base_address + i * 64) as *const u16).read_volatile() };
        assert_eq!(h, packet_type::INVALID);
    }
    assert!(
        AgentQueue::new(&gpu.rt, &gpu.agent, 64, HostFunctionRegistry::new()).is_err(),
        "a GPU agent gets no soft queue"
    );
    let cpu = gpu.rt.cpu_agents().next().unwrap().clone();
    assert!(AgentQueue::new(&gpu.rt, &cpu, 100, HostFunctionRegistry::new()).is_err());
}

/// GPU: copy a -> b (S1); CPU: after S1, b[i] = 3*b[i] + 1 on the host
/// (S2); GPU: after S2, y = 2*b + y. All packets are queued before any
/// runs, so only the barriers order them.
#[test]
fn host_function_between_two_dependent_kernels() {
    let gpu = Gpu::new();
    let copy = gpu.load("vector_copy");
    let saxpy = gpu.load("saxpy");
    const N: usize = 1000;
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.25 - 7.0).collect();
    let y0: Vec<f32> = (0..N).map(|i| 100.0 - i as f32).collect();
    let a_buf = gpu.upload_f32(&a);
    let b_buf = gpu.filled_u32(N, 0);
    let y_buf = gpu.upload_f32(&y0);

    let functions = HostFunctionRegistry::new();
    let transform = functions
        .register(|call: &HostCall| {
            let (ptr, n) = (call.args[0] as *mut f32, call.args[1] as usize);
            // SAFETY: the test passes a live host-mapped buffer of n f32s that no kernel touches while this runs.
            let b = unsafe { std::slice::from_raw_parts_mut(ptr, n) };
            for v in b {
                *v = *v * 3.0 + 1.0;
            }
            Ok(())
        })
        .unwrap();
    let cpu_q = agent_queue(&gpu, functions);
    let gpu_q = gpu.queue(64);
    let (s1, s2, s3) = (gpu.signal(1), gpu.signal(1), gpu.signal(1));

    // The GPU side first: its barrier waits for the host function.
    let k1 = gpu.launch(
        &copy.kernel,
        &[
            Arg::Ptr(a_buf.gpu_va()),
            Arg::Ptr(b_buf.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    );
    let k2 = gpu.launch(
        &saxpy.kernel,
        &[
            Arg::F32(2.0),
            Arg::Ptr(b_buf.gpu_va()),
            Arg::Ptr(y_buf.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    );
    let mut d1 = k1.dispatch;
    d1.completion_signal = s1.handle();
    let mut d2 = k2.dispatch;
    d2.completion_signal = s3.handle();
    gpu_q.submit_dispatch(&d1.to_packet().unwrap()).unwrap();
    gpu_q.submit_barrier_and(&[&s2], None).unwrap();
    gpu_q.submit_dispatch(&d2.to_packet().unwrap()).unwrap();
    cpu_q
        .submit_call(
            transform,
            [b_buf.gpu_va(), N as u64, 0, 0],
            0,
            &[&s1],
            Some(&s2),
        )
        .unwrap();

    wait_zero(&s3).unwrap();
    assert_eq!(s1.load(MemoryOrder::Acquire), 0);
    assert_eq!(s2.load(MemoryOrder::Acquire), 0);
    let got = read_f32(&y_buf, N);
    let want: Vec<f32> = (0..N)
        .map(|i| 2.0f32.mul_add(a[i] * 3.0 + 1.0, y0[i]))
        .collect();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        "the second kernel must see the host's writes"
    );
    assert_eq!(cpu_q.error(), None);
    assert_eq!(gpu_q.error(), None);
}

/// A GPU barrier-AND waits for a CPU-queue packet's completion signal; the
/// CPU packet itself waits for a host gate, so the GPU is seen holding.
#[test]
fn gpu_queue_waits_for_cpu_queue_completion() {
    let gpu = Gpu::new();
    let copy = gpu.load("vector_copy");
    const N: usize = 256;
    let src = gpu.filled_u32(N, 0);
    let dst = gpu.filled_u32(N, 0xdead_beef);
    let functions = HostFunctionRegistry::new();
    let fill = functions
        .register(|call: &HostCall| {
            // SAFETY: the test passes a live host-mapped buffer of args[1] u32s.
            let s = unsafe {
                std::slice::from_raw_parts_mut(call.args[0] as *mut u32, call.args[1] as usize)
            };
            for (i, w) in s.iter_mut().enumerate() {
                *w = (i as u32).wrapping_mul(0x9e37_79b9) ^ call.args[2] as u32;
            }
            Ok(())
        })
        .unwrap();
    let cpu_q = agent_queue(&gpu, functions);
    let gpu_q = gpu.queue(64);
    let gate = gpu.signal(1);
    let cpu_done = gpu.signal(1);
    let gpu_done = gpu.signal(1);

    let k = gpu.launch(
        &copy.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    );
    let mut d = k.dispatch;
    d.completion_signal = gpu_done.handle();
    gpu_q.submit_barrier_and(&[&cpu_done], None).unwrap();
    gpu_q.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    cpu_q
        .submit_call(
            fill,
            [src.gpu_va(), N as u64, 0x55, 0],
            0,
            &[&gate],
            Some(&cpu_done),
        )
        .unwrap();

    std::thread::sleep(HOLD);
    assert_eq!(
        gpu_done.load(MemoryOrder::Acquire),
        1,
        "the kernel must wait"
    );
    assert_eq!(gpu_q.read_index(), 0, "the GPU barrier must still hold");
    assert_eq!(cpu_done.load(MemoryOrder::Acquire), 1);
    assert!(read_u32(&dst, N).iter().all(|&w| w == 0xdead_beef));

    gate.store(0, MemoryOrder::Release);
    wait_zero(&gpu_done).unwrap();
    let want: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x55)
        .collect();
    assert_eq!(read_u32(&dst, N), want);
}

/// A CPU barrier-AND waits for a kernel's completion signal, then a host
/// function reads what the kernel wrote.
#[test]
fn cpu_queue_waits_for_gpu_kernel() {
    let gpu = Gpu::new();
    let saxpy = gpu.load("saxpy");
    const N: usize = 512;
    let x: Vec<f32> = (0..N).map(|i| i as f32 - 100.5).collect();
    let y: Vec<f32> = (0..N).map(|i| (i * 3) as f32 * 0.125).collect();
    let xb = gpu.upload_f32(&x);
    let yb = gpu.upload_f32(&y);
    let seen: Arc<Mutex<Vec<f32>>> = Arc::default();
    let cpu_q = agent_queue(&gpu, HostFunctionRegistry::new());
    let gpu_q = gpu.queue(64);
    let gate = gpu.signal(1);
    let kernel_done = gpu.signal(1);
    let host_done = gpu.signal(1);

    let seen_in = seen.clone();
    let y_addr = yb.gpu_va();
    cpu_q
        .submit_callback(&[&kernel_done], Some(&host_done), move || {
            // SAFETY: the kernel that wrote y completed (the barrier held until then); the buffer outlives the test's wait.
            let ys = unsafe { std::slice::from_raw_parts(y_addr as *const f32, N) };
            seen_in.lock().unwrap().extend_from_slice(ys);
        })
        .unwrap();
    // The kernel is held behind a host gate, so the CPU barrier is seen
    // waiting on it.
    let k = gpu.launch(
        &saxpy.kernel,
        &[
            Arg::F32(-1.5),
            Arg::Ptr(xb.gpu_va()),
            Arg::Ptr(yb.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [128, 1, 1],
    );
    let mut d = k.dispatch;
    d.completion_signal = kernel_done.handle();
    gpu_q.submit_barrier_and(&[&gate], None).unwrap();
    gpu_q.submit_dispatch(&d.to_packet().unwrap()).unwrap();

    std::thread::sleep(HOLD);
    assert!(
        seen.lock().unwrap().is_empty(),
        "the callback must wait for the kernel"
    );
    assert_eq!(cpu_q.read_index(), 0, "the CPU barrier must still hold");
    assert_eq!(host_done.load(MemoryOrder::Acquire), 1);

    gate.store(0, MemoryOrder::Release);
    wait_zero(&host_done).unwrap();
    assert_eq!(kernel_done.load(MemoryOrder::Acquire), 0);
    let want: Vec<u32> = (0..N)
        .map(|i| (-1.5f32).mul_add(x[i], y[i]).to_bits())
        .collect();
    let got: Vec<u32> = seen.lock().unwrap().iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want, "the host function saw the kernel's results");
}

/// Barrier-OR on the CPU queue: the callback runs once one of two signals
/// is 0, not before.
#[test]
fn barrier_or_on_the_cpu_queue() {
    let gpu = Gpu::new();
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let (a, b) = (gpu.signal(1), gpu.signal(1));
    let or_done = gpu.signal(1);
    q.submit_barrier_or(&[&a, &b], Some(&or_done)).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let ran_in = ran.clone();
    let done = gpu.signal(1);
    q.submit_callback(&[], Some(&done), move || {
        ran_in.store(true, Ordering::SeqCst)
    })
    .unwrap();
    std::thread::sleep(HOLD);
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(or_done.load(MemoryOrder::Acquire), 1);
    b.store(0, MemoryOrder::Release);
    wait_zero(&done).unwrap();
    assert!(ran.load(Ordering::SeqCst));
    assert_eq!(or_done.load(MemoryOrder::Acquire), 0);
    assert_eq!(a.load(MemoryOrder::Acquire), 1);
}

/// Four producer threads submit 150 callbacks each; every callback runs
/// exactly once, in dispatch-id order, and each thread's in its own order.
#[test]
fn many_callbacks_from_several_threads_run_in_order() {
    let gpu = Gpu::new();
    let functions = HostFunctionRegistry::new();
    let log: Arc<Mutex<Vec<(u64, u64, u64)>>> = Arc::default();
    let log_in = log.clone();
    let record = functions
        .register(move |call: &HostCall| {
            log_in
                .lock()
                .unwrap()
                .push((call.dispatch_id, call.args[0], call.args[1]));
            Ok(())
        })
        .unwrap();
    let q = Arc::new(agent_queue(&gpu, functions));
    const THREADS: u64 = 4;
    const PER_THREAD: u64 = 150;
    let closures_run = Arc::new(AtomicU64::new(0));
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let q = q.clone();
            let closures_run = closures_run.clone();
            scope.spawn(move || {
                for i in 0..PER_THREAD {
                    if i % 3 == 0 {
                        // A one-shot closure, interleaved with registered calls.
                        let c = closures_run.clone();
                        q.submit_callback(&[], None, move || {
                            c.fetch_add(1, Ordering::SeqCst);
                        })
                        .unwrap();
                    }
                    q.submit_call(record, [t, i, 0, 0], 0, &[], None).unwrap();
                }
            });
        }
    });
    q.finish(Some(TIMEOUT)).unwrap();
    let log = log.lock().unwrap();
    assert_eq!(log.len() as u64, THREADS * PER_THREAD);
    assert!(
        log.windows(2).all(|w| w[0].0 < w[1].0),
        "host functions ran out of dispatch order"
    );
    for t in 0..THREADS {
        let mine: Vec<u64> = log.iter().filter(|e| e.1 == t).map(|e| e.2).collect();
        assert_eq!(mine, (0..PER_THREAD).collect::<Vec<_>>(), "thread {t}");
    }
    assert_eq!(
        closures_run.load(Ordering::SeqCst),
        THREADS * PER_THREAD.div_ceil(3)
    );
    // The ring (64 slots) wrapped many times.
    assert!(q.read_index() > 64 * 10);
    assert_eq!(q.read_index(), q.write_index());
}

/// An agent dispatch of an unregistered id: the queue goes into error
/// (API, error callback, a waiter on a later packet's signal), runs nothing
/// after it, and the next submission recovers it.
#[test]
fn unknown_function_id_is_a_queue_error() {
    let gpu = Gpu::new();
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let reported: Arc<Mutex<Vec<aqueduct_hsa::QueueError>>> = Arc::default();
    let reported_in = reported.clone();
    q.set_error_callback(move |e| reported_in.lock().unwrap().push(e.clone()));

    // A gate holds the processor until both packets are in the ring: a
    // submission that finds the queue already in error recovers it, which
    // would run the callback this test expects to be dropped.
    let gate = gpu.signal(1);
    q.submit_barrier_and(&[&gate], None).unwrap();
    let bad_done = gpu.signal(1);
    q.submit_call(0x8765, [0; 4], 0, &[], Some(&bad_done))
        .unwrap();
    let after = gpu.signal(1);
    let ran_after = Arc::new(AtomicBool::new(false));
    let ran_in = ran_after.clone();
    q.submit_callback(&[], Some(&after), move || {
        ran_in.store(true, Ordering::SeqCst)
    })
    .unwrap();
    gate.store(0, MemoryOrder::Release);

    let err = after
        .wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
        .unwrap_err();
    match err {
        HsaError::QueueError {
            queue_id,
            reason: QueueErrorReason::PacketInvalid,
            ..
        } => assert_eq!(queue_id, q.id()),
        other => panic!("expected the soft queue's error, got {other}"),
    }
    let e = q.error().expect("the queue is in error");
    assert_eq!(e.reason, QueueErrorReason::PacketInvalid);
    assert!(
        matches!(
            e.detail,
            Some(QueueFaultDetail::UnknownFunction {
                function_id: 0x8765,
                ..
            })
        ),
        "{:?}",
        e.detail
    );
    // The error callback runs on the processor thread, not necessarily
    // before waiters see the error (as with ROCr's queue callbacks).
    let deadline = Instant::now() + TIMEOUT;
    while reported.lock().unwrap().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(reported.lock().unwrap().as_slice(), &[e]);
    assert!(!ran_after.load(Ordering::SeqCst));
    assert_eq!(
        bad_done.load(MemoryOrder::Acquire),
        1,
        "a failed packet's signal is untouched"
    );
    // Only the gate's barrier was consumed.
    assert_eq!(q.read_index(), 1);

    // The next submission recovers: dropped packets' signals fail, the
    // dropped callback never runs, new work runs.
    let next = gpu.signal(1);
    let functions = q.functions().clone();
    let ok = functions.register(|_| Ok(())).unwrap();
    q.submit_call(ok, [0; 4], 0, &[], Some(&next)).unwrap();
    assert!(q.error().is_none());
    wait_zero(&next).unwrap();
    assert!(matches!(
        after.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked),
        Err(HsaError::QueueError { .. })
    ));
    assert!(!ran_after.load(Ordering::SeqCst));
    assert_eq!(reported.lock().unwrap().len(), 1);
}

/// A function returning an error and a panicking callback both put the
/// queue into error with a detail saying which; no panic escapes.
#[test]
fn failing_and_panicking_host_functions_are_queue_errors() {
    let gpu = Gpu::new();
    let functions = HostFunctionRegistry::new();
    let bad = functions.register(|_| Err("disk on fire".into())).unwrap();
    let q = agent_queue(&gpu, functions);
    let s = gpu.signal(1);
    q.submit_call(bad, [0; 4], 0, &[], Some(&s)).unwrap();
    assert!(
        s.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
            .is_err()
    );
    let e = q.error().unwrap();
    assert!(
        matches!(&e.detail, Some(QueueFaultDetail::FunctionFailed { function_id, source, .. })
            if *function_id == bad && source.0 == "disk on fire"),
        "{:?}",
        e.detail
    );
    assert!(matches!(e.reason, QueueErrorReason::Other(_)));

    let s2 = gpu.signal(1);
    q.submit_callback(&[], Some(&s2), || {
        panic!("callback panic (expected by the test)")
    })
    .unwrap();
    assert!(
        s2.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
            .is_err()
    );
    let detail = q.error().unwrap().detail;
    assert!(
        matches!(detail, Some(QueueFaultDetail::CallbackPanicked { .. })),
        "{detail:?}"
    );
}

/// Dropping a queue whose packets wait on a signal that never fires: the
/// drop returns promptly, the held callback is dropped without running,
/// and a waiter on its signal gets an error instead of hanging.
#[test]
fn drop_with_work_pending() {
    let gpu = Gpu::new();
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let never = gpu.signal(1);
    let done = gpu.signal(1);
    struct DropFlag(Arc<AtomicBool>);
    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let ran = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let (ran_in, flag) = (ran.clone(), DropFlag(dropped.clone()));
    q.submit_callback(&[&never], Some(&done), move || {
        let _keep = &flag;
        ran_in.store(true, Ordering::SeqCst);
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(q.read_index(), 0);
    let start = Instant::now();
    drop(q);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "drop took {:?}",
        start.elapsed()
    );
    assert!(!ran.load(Ordering::SeqCst));
    assert!(
        dropped.load(Ordering::SeqCst),
        "the pending closure was freed"
    );
    assert!(matches!(
        done.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked),
        Err(HsaError::QueueError { .. })
    ));
    // The runtime still works: no queue is left registered in error.
    let q2 = agent_queue(&gpu, HostFunctionRegistry::new());
    let s: Signal = gpu.signal(1);
    q2.submit_callback(&[], Some(&s), || {}).unwrap();
    wait_zero(&s).unwrap();
}

/// A callback may submit to its own queue; when the ring is full it gets
/// an error instead of waiting for itself (only it could free slots).
#[test]
fn callback_submitting_to_its_own_full_queue_fails_instead_of_hanging() {
    let gpu = Gpu::new();
    let q = Arc::new(agent_queue(&gpu, HostFunctionRegistry::new()));
    let inner_runs = Arc::new(AtomicU64::new(0));
    let outcome: Arc<Mutex<Option<(u64, HsaError)>>> = Arc::default();
    let (q_in, runs_in, outcome_in) = (q.clone(), inner_runs.clone(), outcome.clone());
    let done = gpu.signal(1);
    q.submit_callback(&[], Some(&done), move || {
        let mut accepted = 0u64;
        for _ in 0..100 {
            let r = runs_in.clone();
            match q_in.submit_callback(&[], None, move || {
                r.fetch_add(1, Ordering::SeqCst);
            }) {
                Ok(_) => accepted += 1,
                Err(e) => {
                    *outcome_in.lock().unwrap() = Some((accepted, e));
                    return;
                }
            }
        }
    })
    .unwrap();
    wait_zero(&done).unwrap();
    q.finish(Some(TIMEOUT)).unwrap();
    let (accepted, refusal) = outcome.lock().unwrap().take().expect("the ring filled up");
    // 64 slots, one held by the running callback.
    assert_eq!(accepted, 63);
    assert!(
        matches!(refusal, HsaError::Reservation(ReservationError::QueueFull { queue_id })
            if queue_id == q.id()),
        "{refusal:?}"
    );
    assert_eq!(inner_runs.load(Ordering::SeqCst), 63);
    assert!(q.error().is_none());
}

/// A CPU-queue barrier on a kernel that faults: once the GPU queue's
/// recovery drops that kernel, its signal is failed and the soft queue
/// reports an error instead of waiting forever; the callback never runs.
#[test]
fn dependency_on_a_faulted_kernel_fails_instead_of_hanging() {
    let gpu = Gpu::new();
    let copy = gpu.load("vector_copy");
    let gpu_q = gpu.queue(64);
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let hole = unallocated_in_aperture(&gpu) + 0x100;
    let dst = gpu.filled_u32(64, 7);
    let bad = gpu.launch(
        &copy.kernel,
        &[Arg::Ptr(hole), Arg::Ptr(dst.gpu_va()), Arg::U32(64)],
        [64, 1, 1],
        [64, 1, 1],
    );
    let bad_done = gpu.signal(1);
    let mut d = bad.dispatch;
    d.completion_signal = bad_done.handle();
    gpu_q.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let ran_in = ran.clone();
    let cb_done = gpu.signal(1);
    q.submit_callback(&[&bad_done], Some(&cb_done), move || {
        ran_in.store(true, Ordering::SeqCst)
    })
    .unwrap();
    assert!(wait_zero(&bad_done).is_err(), "the kernel faults");
    // The GPU queue's next use recovers it and drops the faulted packet.
    let ok_done = gpu.signal(1);
    gpu_q.submit_barrier_and(&[], Some(&ok_done)).unwrap();
    let deadline = Instant::now() + TIMEOUT;
    while q.error().is_none() {
        assert!(Instant::now() < deadline, "the soft queue never noticed");
        std::thread::sleep(Duration::from_millis(5));
    }
    let detail = q.error().unwrap().detail;
    assert!(
        matches!(&detail, Some(QueueFaultDetail::DependencyFailed { signal, queue_id, .. })
            if *signal == bad_done.handle() && *queue_id == gpu_q.id()),
        "{detail:?}"
    );
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(cb_done.load(MemoryOrder::Acquire), 1);
    // Both queues work again after recovery.
    let again = gpu.signal(1);
    q.submit_callback(&[], Some(&again), || {}).unwrap();
    wait_zero(&again).unwrap();
    wait_zero(&ok_done).unwrap();
    assert!(
        !ran.load(Ordering::SeqCst),
        "the dropped callback never runs"
    );
}

/// `submit_callback_after` on a kernel that faults: once the GPU queue
/// recovers (`Queue::recover`, no further GPU submission), the tolerant
/// barrier completes, the callback runs with the GPU queue's error, and the
/// soft queue stays out of error: a plain callback after it runs too, in
/// order. On a kernel that completes, the callback gets Ok.
#[test]
fn callback_after_a_faulted_kernel_runs_with_the_error() {
    let gpu = Gpu::new();
    let copy = gpu.load("vector_copy");
    let gpu_q = gpu.queue(64);
    let q = agent_queue(&gpu, HostFunctionRegistry::new());
    let hole = unallocated_in_aperture(&gpu) + 0x100;
    let dst = gpu.filled_u32(64, 7);
    let src = gpu.filled_u32(64, 9);
    let launch = |from: u64, done: &Signal| {
        let l = gpu.launch(
            &copy.kernel,
            &[Arg::Ptr(from), Arg::Ptr(dst.gpu_va()), Arg::U32(64)],
            [64, 1, 1],
            [64, 1, 1],
        );
        let mut d = l.dispatch;
        d.completion_signal = done.handle();
        gpu_q.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    };
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let good_done = gpu.signal(1);
    launch(src.gpu_va(), &good_done);
    let l = log.clone();
    q.submit_callback_after(&good_done, move |r| {
        l.lock()
            .unwrap()
            .push(format!("good: {:?}", r.map_err(|e| e.reason)))
    })
    .unwrap();
    // (Packets without the barrier bit may overlap: let the good kernel
    // finish before the faulting one stops the queue.)
    wait_zero(&good_done).expect("the good kernel completes");
    let bad_done = gpu.signal(1);
    launch(hole, &bad_done);
    let l = log.clone();
    q.submit_callback_after(&bad_done, move |r| {
        l.lock().unwrap().push(match r {
            Ok(()) => "bad: Ok".to_string(),
            Err(e) => format!("bad: {}", e.reason),
        })
    })
    .unwrap();
    let l = log.clone();
    let last = gpu.signal(1);
    q.submit_callback(&[], Some(&last), move || {
        l.lock().unwrap().push("then".into())
    })
    .unwrap();
    assert!(wait_zero(&bad_done).is_err(), "the kernel faults");
    gpu_q.recover().expect("recover");
    wait_zero(&last).expect("the soft queue went on");
    assert!(q.error().is_none(), "the soft queue is not in error");
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(log[0], "good: Ok(())");
    assert!(
        log[1].starts_with("bad: memory violation"),
        "the GPU queue's error: {log:?}"
    );
    assert_eq!(log[2], "then");
    assert!(gpu_q.error().is_none(), "recovered");
}
