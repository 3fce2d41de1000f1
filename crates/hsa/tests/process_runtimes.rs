//! Several runtimes over one device share its KFD process state
//! (`crates/hsa/src/process.rs`): gfxsim refuses a second ACQUIRE_VM file
//! (EBUSY) and a second event page (EINVAL) as amdkfd does, so each test
//! here fails if a runtime opens its own render node or registers its own
//! event page.

use std::sync::Arc;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, read_u32};

fn device() -> Arc<SimDevice> {
    SimDevice::new(SimConfig {
        threads: 2,
        ..SimConfig::default()
    })
    .expect("SimDevice::new")
}

fn runtime_on(sim: &Arc<SimDevice>) -> Gpu {
    Gpu::over(sim.clone())
}

/// vector_copy through `gpu`, waited for through a signal with an event
/// (its mailbox is in the shared event page), checked on the host.
fn copy_runs(gpu: &Gpu, seed: u32) {
    const N: u32 = 256;
    let words: Vec<u32> = (0..N).map(|i| i.wrapping_mul(2654435761) ^ seed).collect();
    let src = gpu.upload_u32(&words);
    let dst = gpu.filled_u32(N as usize, 0);
    let program = gpu.load("vector_copy");
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(src.gpu_va()), Arg::Ptr(dst.gpu_va()), Arg::U32(N)],
        [N, 1, 1],
        [64, 1, 1],
    )
    .expect("vector_copy runs");
    assert_eq!(read_u32(&dst, N as usize), words);
}

#[test]
fn two_live_runtimes_share_one_device() {
    let sim = device();
    let a = runtime_on(&sim);
    let b = runtime_on(&sim);
    copy_runs(&a, 1);
    copy_runs(&b, 2);
    copy_runs(&a, 3);
}

#[test]
fn a_runtime_after_a_dropped_one_reuses_the_process_state() {
    let sim = device();
    let first = runtime_on(&sim);
    copy_runs(&first, 4);
    drop(first);
    let second = runtime_on(&sim);
    copy_runs(&second, 5);
}

#[test]
fn runtimes_on_different_devices_stay_apart() {
    let (sa, sb) = (device(), device());
    let a = runtime_on(&sa);
    let b = runtime_on(&sb);
    copy_runs(&a, 6);
    copy_runs(&b, 7);
}
