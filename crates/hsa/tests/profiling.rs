//! Dispatch profiling on gfxsim: `Queue::set_profiling` turns on the CP's
//! timestamps in completion signals, `Runtime::dispatch_time` reads them
//! and translates them into the system clock (CLOCK_BOOTTIME) through
//! GET_CLOCK_COUNTERS samples.

use std::time::Duration;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::{
    HsaError, HsaStatus, ProfilingError, Runtime, RuntimeOptions, Signal, system_timestamp,
};
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::GetClockCountersArgs;
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Program, read_u32, wait_zero};

/// kernels/'s `write_timestamp(queries, index)`: it stores the GPU's
/// realtime counter at `queries[index]`.
fn write_timestamp(gpu: &Gpu) -> Program {
    gpu.load("write_timestamp")
}

/// Run `write_timestamp` on `queue` with a fresh completion signal; the
/// signal and the tick the kernel read.
fn run(gpu: &Gpu, program: &Program, queue: &aqueduct_hsa::Queue) -> (Signal, u64) {
    let out = gpu.filled_u32(2, 0);
    let launch = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(out.gpu_va()), Arg::U32(0)],
        [1, 1, 1],
        [1, 1, 1],
    );
    let done = gpu.signal(1);
    let mut d = launch.dispatch;
    d.completion_signal = done.handle();
    queue
        .submit_dispatch(&d.to_packet().expect("packet"))
        .expect("submit");
    wait_zero(&done).expect("dispatch completes");
    let words = read_u32(&out, 2);
    (done, u64::from(words[0]) | u64::from(words[1]) << 32)
}

#[test]
fn a_profiled_dispatch_lies_between_the_hosts_clock_before_and_after() {
    let gpu = Gpu::new();
    let program = write_timestamp(&gpu);
    let queue = gpu.queue(64);
    queue.set_profiling(true);
    let before = system_timestamp();
    let (signal, kernel_tick) = run(&gpu, &program, &queue);
    let after = system_timestamp();
    let (start_tick, end_tick) = signal.dispatch_ticks().expect("timestamps");
    assert!(
        start_tick <= kernel_tick && kernel_tick <= end_tick,
        "{start_tick} <= {kernel_tick} <= {end_tick}"
    );
    let time = gpu
        .rt
        .dispatch_time(&gpu.agent, &signal)
        .expect("dispatch time");
    let kernel = gpu
        .rt
        .gpu_ticks_to_system(&gpu.agent, kernel_tick)
        .expect("kernel tick");
    assert!(
        before <= time.start && time.start <= kernel && kernel <= time.end && time.end <= after,
        "expected {before} <= start {} <= kernel {kernel} <= end {} <= {after}",
        time.start,
        time.end
    );
}

/// A barrier-AND with the barrier bit and no dependencies is a timestamp
/// marker (a HIP event's marker, the facade's timestamp query): on a
/// profiled queue the CP stamps its completion signal once every earlier
/// packet completed. Markers before and after a dispatch bracket the
/// dispatch's own start_ts/end_ts window.
#[test]
fn barrier_markers_bracket_the_dispatch_between_them() {
    let gpu = Gpu::new();
    let program = write_timestamp(&gpu);
    let queue = gpu.queue(64);
    queue.set_profiling(true);
    let begin = gpu.signal(1);
    queue
        .submit_barrier_and(&[], Some(&begin))
        .expect("begin marker");
    let (dispatch, kernel_tick) = run(&gpu, &program, &queue);
    let end = gpu.signal(1);
    queue
        .submit_barrier_and(&[], Some(&end))
        .expect("end marker");
    wait_zero(&end).expect("end marker completes");
    let (_, begin_end) = begin.dispatch_ticks().expect("begin marker stamped");
    let (start, finish) = dispatch.dispatch_ticks().expect("dispatch stamped");
    let (end_start, end_end) = end.dispatch_ticks().expect("end marker stamped");
    assert!(
        begin_end <= start
            && start <= kernel_tick
            && kernel_tick <= finish
            && finish <= end_start
            && end_start <= end_end,
        "begin {begin_end} <= dispatch {start}..{finish} (kernel {kernel_tick}) <= end \
         {end_start}..{end_end}"
    );
}

#[test]
fn without_profiling_the_signal_holds_no_timestamps() {
    let gpu = Gpu::new();
    let program = write_timestamp(&gpu);
    let queue = gpu.queue(64);
    let (signal, kernel_tick) = run(&gpu, &program, &queue);
    assert_ne!(kernel_tick, 0, "the kernel ran");
    let amd = signal.amd_signal();
    assert_eq!((amd.start_ts, amd.end_ts), (0, 0));
    let err = gpu.rt.dispatch_time(&gpu.agent, &signal).unwrap_err();
    assert!(
        matches!(
            err,
            HsaError::Profiling(ProfilingError::NoTimestamps {
                start: 0,
                end: 0,
                ..
            })
        ),
        "{err:?}"
    );
    assert_eq!(err.status(), HsaStatus::InvalidSignal);

    // Off again after on: the bit is cleared, not only set.
    queue.set_profiling(true);
    let (profiled, _) = run(&gpu, &program, &queue);
    profiled.dispatch_ticks().expect("profiled");
    queue.set_profiling(false);
    let (unprofiled, _) = run(&gpu, &program, &queue);
    assert!(matches!(
        unprofiled.dispatch_ticks(),
        Err(ProfilingError::NoTimestamps { .. })
    ));
}

/// A signal that has not completed a profiled packet yet has no times.
#[test]
fn a_pending_signal_has_no_dispatch_time() {
    let gpu = Gpu::new();
    let signal = gpu.signal(1);
    assert!(matches!(
        gpu.rt.dispatch_time(&gpu.agent, &signal),
        Err(HsaError::Profiling(ProfilingError::NoTimestamps { .. }))
    ));
}

/// Ticks sampled together with the system clock translate back to that
/// clock (the GPU counter runs at 100 MHz, the system clock in
/// nanoseconds): one from before the runtime's first sample, one at the
/// start and one after a wait.
#[test]
fn gpu_ticks_translate_to_the_system_clock_they_were_sampled_with() {
    let sim = SimDevice::new(SimConfig {
        threads: 1,
        ..SimConfig::default()
    })
    .expect("device");
    let gpu_id = sim
        .topology()
        .expect("topology")
        .gpu_nodes()
        .next()
        .expect("a GPU")
        .gpu_id;
    let sample = || {
        let mut args = GetClockCountersArgs {
            gpu_id,
            ..Default::default()
        };
        sim.get_clock_counters(&mut args).expect("clock counters");
        args
    };
    let early = sample();
    std::thread::sleep(Duration::from_millis(30));
    let options = RuntimeOptions {
        visible_devices: None,
        aperture_size: 16 << 30,
    };
    let rt = Runtime::with_options(sim.clone(), options).expect("runtime");
    let agent = rt.gpu_agent(0).expect("a GPU agent").clone();
    let first = sample();
    std::thread::sleep(Duration::from_millis(50));
    let second = sample();
    let tolerance = 1_000_000; // 1 ms
    for s in [second, first, early] {
        let t = rt
            .gpu_ticks_to_system(&agent, s.gpu_clock_counter)
            .expect("translate");
        assert!(
            t.abs_diff(s.system_clock_counter) < tolerance,
            "tick {} -> {t}, sampled with {}",
            s.gpu_clock_counter,
            s.system_clock_counter
        );
    }
}
