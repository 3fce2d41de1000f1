//! The gfxsim watchdog through the facade: a kernel that never ends (spin on
//! a flag nobody sets) is stopped after the device's per-dispatch time limit
//! and reported like any GPU fault, naming the kernel; gfxsim's own
//! account (`SimDevice::wave_error`) names the PC where it was stopped; the
//! device runs the next submissions.
//!
//! The limit is the simulated device's `SimConfig::dispatch_timeout`.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use aqueduct::*;
use aqueduct_test_harness::facade::*;

const LIMIT_MS: u64 = 300;

#[test]
fn an_endless_kernel_is_stopped_and_reported() {
    let (c, sim) = sim_ctx_with(aqueduct::gfxsim::SimConfig {
        dispatch_timeout: Some(Duration::from_millis(LIMIT_MS)),
        ..Default::default()
    });
    let module = code_object_module(
        &c.device,
        "faults",
        Cow::Owned(test_kernel("faults")),
        [64, 1, 1],
    );
    let spin = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "spin"));
    let intact_words: Vec<u32> = (0..512u32).map(|i| i.wrapping_mul(77)).collect();
    let intact = storage_init(&c.device, &intact_words);
    let flag = storage_init(&c.device, &[0, 0]);
    let bg = bind_group(&c.device, &spin, 0, &[&flag]);

    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&spin);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(4, 1, 1);
    }
    let start = Instant::now();
    let index = c.queue.submit([enc.finish()]);
    let status = c
        .device
        .poll(PollType::Wait {
            submission_index: Some(index),
            timeout: Some(Duration::from_secs(60)),
        })
        .expect("the watchdog releases the waiter");
    let took = start.elapsed();
    assert_eq!(status, PollStatus::QueueEmpty);
    let err = scope.pop_now().expect("the stopped kernel is reported");
    let message = err.to_string();
    let head = "GPU fault in kernel spin (submission ";
    let at = message.find(head).unwrap_or_else(|| panic!("{message}")) + head.len();
    let (number, rest) = message[at..].split_once(')').expect("submission number");
    assert_eq!(
        SubmissionIndex::from_epoch(number.parse().expect("a number")),
        index,
        "{message}"
    );
    assert!(rest.starts_with(": wave trap or abort;"), "{message}");
    // KFD reports a wave abort with no data; gfxsim's own account names
    // the watchdog and the PC where it stopped the waves.
    assert!(!message.contains("device report"), "{message}");
    let report = wave_error(&sim, &err).expect("gfxsim's account of the stop");
    assert!(
        report.contains(&format!(
            "watchdog: the dispatch ran longer than its {LIMIT_MS} ms time limit; stopped at pc 0x"
        )),
        "{report}"
    );
    assert!(
        took >= Duration::from_millis(LIMIT_MS),
        "stopped after {took:?}"
    );
    assert!(took < Duration::from_secs(30), "stopped after {took:?}");

    // The device goes on; the flag was never set, so the loop never ended.
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    assert_eq!(read_words(&c, &flag), [0, 0]);
    assert_eq!(read_words(&c, &intact), intact_words);
    if let Some(e) = scope.pop_now() {
        panic!("an error after the watchdog: {e}");
    }
}
