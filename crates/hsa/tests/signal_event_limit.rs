//! The runtime at KFD's signal-event limit (`KFD_SIGNAL_EVENT_LIMIT`, 4096
//! per process; gfxsim refuses the next CREATE_EVENT with ENOSPC as KFD
//! does): signals created past it are polling signals without an event,
//! and they still complete a dispatch and wake a blocked host wait.

use std::time::{Duration, Instant};

use aqueduct_hsa::{MemoryOrder, Signal, WaitCondition, WaitHint};
use aqueduct_kfd::uapi::KFD_SIGNAL_EVENT_LIMIT;
use aqueduct_test_harness::hsa_sim::{Gpu, TIMEOUT, oob_write_launch, read_u32, wait_zero};

#[test]
fn signals_past_the_event_limit_poll() {
    let gpu = Gpu::new();
    let program = gpu.load("oob_write");
    let queue = gpu.queue(64);
    let mut held: Vec<Signal> = Vec::new();
    let polling = loop {
        let s = gpu.signal(1);
        if s.event_id().is_none() {
            break s;
        }
        held.push(s);
        assert!(
            held.len() <= KFD_SIGNAL_EVENT_LIMIT as usize,
            "more signal events than KFD allows"
        );
    };
    assert!(
        held.len() > KFD_SIGNAL_EVENT_LIMIT as usize / 2,
        "{}",
        held.len()
    );
    // Queues still get their error event.
    let _second = gpu.queue(64);
    assert_eq!(polling.event_mailbox(), 0);

    // The device completes a dispatch on a polling signal.
    let target = gpu.filled_u32(1, 0);
    let launch = oob_write_launch(&gpu, &program, target.gpu_va(), 0x1234_5678);
    let mut d = launch.dispatch;
    d.completion_signal = polling.handle();
    queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    wait_zero(&polling).expect("the dispatch completes the polling signal");
    assert_eq!(read_u32(&target, 1), [0x1234_5678]);

    // A host store wakes a blocked wait on a polling signal.
    let other = gpu.signal(0);
    assert_eq!(other.event_id(), None);
    let writer = other.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        writer.store(7, MemoryOrder::Release);
    });
    let start = Instant::now();
    let got = other
        .wait(WaitCondition::Eq, 7, Some(TIMEOUT), WaitHint::Blocked)
        .unwrap();
    assert_eq!(got, 7);
    assert!(start.elapsed() < Duration::from_secs(5));
    t.join().unwrap();

    // Events freed by dropped signals are used again.
    held.truncate(held.len() - 1);
    assert!(gpu.signal(1).event_id().is_some());
}
