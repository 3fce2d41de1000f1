//! Signal semantics on the host: blocking waits for each condition,
//! timeouts, and atomic updates under every memory order. Each case runs
//! on a host-only signal (condition variable) and on a signal with a KFD
//! event (SET_EVENT / WAIT_EVENTS through an in-test events device).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aqueduct_hsa::signal::event::EventHub;
use aqueduct_hsa::{HsaError, MemoryOrder, Signal, WaitCondition, WaitHint};
use aqueduct_kfd::KfdDevice;
use aqueduct_test_harness::event_device::EventDevice;

fn event_signal(initial: i64) -> (Signal, Arc<EventDevice>) {
    let device = Arc::new(EventDevice::new());
    let dyn_device: Arc<dyn KfdDevice> = device.clone();
    let hub = Arc::new(EventHub::new(dyn_device));
    (Signal::new_host_backed(initial, Some(hub)).unwrap(), device)
}

fn both(initial: i64) -> Vec<Signal> {
    vec![Signal::new_host(initial), event_signal(initial).0]
}

/// Another thread stores `value` after `delay_ms`; wait for `cond`.
fn delayed_store(
    signal: &Signal,
    value: i64,
    delay_ms: u64,
    cond: WaitCondition,
    compare: i64,
) -> i64 {
    let s = signal.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(delay_ms));
        s.store(value, MemoryOrder::Release);
    });
    let start = Instant::now();
    let got = signal
        .wait(
            cond,
            compare,
            Some(Duration::from_secs(10)),
            WaitHint::Blocked,
        )
        .unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(delay_ms / 2),
        "returned before the store"
    );
    t.join().unwrap();
    got
}

#[test]
fn waits_for_each_condition() {
    for s in both(5) {
        assert_eq!(delayed_store(&s, 0, 20, WaitCondition::Eq, 0), 0);
        assert_eq!(delayed_store(&s, 7, 20, WaitCondition::Ne, 0), 7);
        assert_eq!(delayed_store(&s, 2, 20, WaitCondition::Lt, 3), 2);
        assert_eq!(delayed_store(&s, 9, 20, WaitCondition::Gte, 9), 9);
        // Already satisfied: immediate.
        assert_eq!(
            s.wait(
                WaitCondition::Eq,
                9,
                Some(Duration::ZERO),
                WaitHint::Blocked
            )
            .unwrap(),
            9
        );
    }
}

#[test]
fn countdown_from_many_threads() {
    for s in both(8) {
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let s = s.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(2 * i));
                    s.sub(1, MemoryOrder::AcqRel);
                })
            })
            .collect();
        assert_eq!(
            s.wait(
                WaitCondition::Eq,
                0,
                Some(Duration::from_secs(10)),
                WaitHint::Blocked
            )
            .unwrap(),
            0
        );
        threads.into_iter().for_each(|t| t.join().unwrap());
    }
}

#[test]
fn timeout_is_reported() {
    for s in both(1) {
        let start = Instant::now();
        let r = s.wait(
            WaitCondition::Eq,
            0,
            Some(Duration::from_millis(30)),
            WaitHint::Blocked,
        );
        assert!(matches!(r, Err(HsaError::Timeout)), "{r:?}");
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(start.elapsed() < Duration::from_secs(5));
        let r = s.wait(
            WaitCondition::Lt,
            1,
            Some(Duration::from_millis(5)),
            WaitHint::Active,
        );
        assert!(matches!(r, Err(HsaError::Timeout)), "{r:?}");
    }
}

#[test]
fn rmw_ops_under_every_order() {
    for s in both(0) {
        for order in MemoryOrder::ALL {
            s.store(0b1100, order);
            assert_eq!(s.load(order), 0b1100);
            assert_eq!(s.add(3, order), 0b1100);
            assert_eq!(s.load(order), 15);
            assert_eq!(s.sub(5, order), 15);
            assert_eq!(s.and(0b0110, order), 10);
            assert_eq!(s.load(order), 0b0010);
            assert_eq!(s.or(0b1000, order), 0b0010);
            assert_eq!(s.xor(0b1111, order), 0b1010);
            assert_eq!(s.load(order), 0b0101);
            assert_eq!(s.exchange(-7, order), 5);
            assert_eq!(s.cas(-7, 42, order), -7);
            assert_eq!(
                s.cas(-7, 43, order),
                42,
                "failed CAS returns the observed value"
            );
            assert_eq!(s.load(order), 42);
            assert_eq!(s.sub(i64::MAX, order), 42);
            assert_eq!(s.load(order), 42 - i64::MAX);
        }
    }
}

#[test]
fn event_signals_notify_through_kfd_events() {
    let (s, device) = event_signal(1);
    let amd = s.amd_signal();
    assert_eq!(amd.kind, aqueduct_kfd::abi::signal::AMD_SIGNAL_KIND_USER);
    assert_eq!(amd.value, 1);
    assert_eq!(amd.event_id, s.event_id().unwrap());
    assert_eq!(s.handle() % 64, 0, "amd_signal_t is 64-byte aligned");

    // Every host update issues SET_EVENT (failed CAS excepted).
    let before = device.set_calls.load(Ordering::Relaxed);
    s.store(2, MemoryOrder::Relaxed);
    s.add(1, MemoryOrder::Relaxed);
    s.cas(0, 5, MemoryOrder::Relaxed);
    s.cas(3, 5, MemoryOrder::Relaxed);
    assert_eq!(device.set_calls.load(Ordering::Relaxed) - before, 3);

    // A long blocked wait sleeps in WAIT_EVENTS rather than spinning.
    let waits = device.wait_calls.load(Ordering::Relaxed);
    assert_eq!(delayed_store(&s, 0, 150, WaitCondition::Eq, 0), 0);
    let used = device.wait_calls.load(Ordering::Relaxed) - waits;
    assert!(
        (1..=6).contains(&used),
        "{used} WAIT_EVENTS calls for one 150 ms wait"
    );

    drop(s);
    assert_eq!(
        device.live_events(),
        0,
        "the signal's event is destroyed with it"
    );
}
