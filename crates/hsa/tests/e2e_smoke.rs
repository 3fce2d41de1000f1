//! End to end on gfxsim: runtime init, agent and pools, buffers, a queue,
//! signals, a loaded code object, dispatches, waits and a GPU fault with
//! recovery — the whole HSA core against the simulated KFD device.

use std::sync::Arc;
use std::time::Duration;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::{
    AllocOptions, HsaError, MemoryOrder, QueueErrorReason, Runtime, RuntimeOptions, WaitCondition,
    WaitHint,
};
use aqueduct_test_harness::hsa_sim::kernel_file;

const TIMEOUT: Option<Duration> = Some(Duration::from_secs(20));

fn runtime() -> Arc<Runtime> {
    let device = SimDevice::new(SimConfig {
        threads: 2,
        ..SimConfig::default()
    })
    .unwrap();
    let options = RuntimeOptions {
        visible_devices: None,
        aperture_size: 16 << 30,
    };
    Runtime::with_options(device, options).unwrap()
}

#[test]
fn vector_copy_runs_on_gfxsim() {
    let rt = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    assert_eq!(gpu.name, "gfx1100");
    let fine = rt.pool(&gpu, PoolKind::FineSystem).unwrap();
    let vram = rt.pool(&gpu, PoolKind::CoarseDevice).unwrap();

    const N: u32 = 1000;
    let bytes = N as u64 * 4;
    let mut src = fine.allocate(bytes).unwrap();
    let dst = vram
        .allocate_with(
            bytes,
            &AllocOptions {
                host_access: true,
                ..Default::default()
            },
        )
        .unwrap();
    for (i, w) in src.as_mut_slice().unwrap().chunks_exact_mut(4).enumerate() {
        w.copy_from_slice(&(i as u32 * 7 + 3).to_le_bytes());
    }

    let exe = rt
        .load_executable(&gpu, &kernel_file("vector_copy.co"))
        .unwrap();
    let kernel = exe.kernel("vector_copy").unwrap();
    let shape = DispatchShape::linear(N, 64);
    let mut args = KernargBuilder::new(&kernel.info);
    args.set_ptr(ArgRef::Index(0), src.gpu_va()).unwrap();
    args.set_ptr(ArgRef::Index(1), dst.gpu_va()).unwrap();
    args.set_u32(ArgRef::Index(2), N).unwrap();
    let kernarg_bytes = args.finish(&shape).unwrap();
    let mut kernarg = rt
        .kernargs(&gpu)
        .unwrap()
        .allocate(kernarg_bytes.len() as u64)
        .unwrap();
    kernarg.as_mut_slice().copy_from_slice(&kernarg_bytes);

    let queue = rt.create_queue(&gpu, 256).unwrap();
    let done = rt.create_signal(1).unwrap();
    let mut dispatch = kernel.dispatch(kernarg.gpu_va(), [N, 1, 1], [64, 1, 1]);
    dispatch.completion_signal = done.handle();
    queue
        .submit_dispatch(&dispatch.to_packet().unwrap())
        .unwrap();
    assert_eq!(
        done.wait(WaitCondition::Eq, 0, TIMEOUT, WaitHint::Blocked)
            .unwrap(),
        0
    );

    let out = dst.as_slice().unwrap();
    for i in 0..N as usize {
        let v = u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(v, i as u32 * 7 + 3, "dst[{i}]");
    }
    assert_eq!(queue.read_index(), 1);

    // A barrier-AND on a host-set signal gates a second copy.
    let gate = rt.create_signal(1).unwrap();
    let done2 = rt.create_signal(1).unwrap();
    queue.submit_barrier_and(&[&gate], None).unwrap();
    done.store(1, MemoryOrder::Relaxed);
    dispatch.completion_signal = done2.handle();
    queue
        .submit_dispatch(&dispatch.to_packet().unwrap())
        .unwrap();
    let r = done2.wait(
        WaitCondition::Eq,
        0,
        Some(Duration::from_millis(50)),
        WaitHint::Blocked,
    );
    assert!(
        matches!(r, Err(HsaError::Timeout)),
        "the barrier holds the dispatch back: {r:?}"
    );
    gate.store(0, MemoryOrder::Release);
    assert_eq!(
        done2
            .wait(WaitCondition::Eq, 0, TIMEOUT, WaitHint::Blocked)
            .unwrap(),
        0
    );
}

#[test]
fn gpu_fault_is_reported_and_the_queue_recovers() {
    let rt = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    let exe = rt
        .load_executable(&gpu, &kernel_file("oob_write.co"))
        .unwrap();
    let kernel = exe.kernel("oob_write").unwrap();
    let queue = rt.create_queue(&gpu, 64).unwrap();
    let region = rt.kernargs(&gpu).unwrap();

    let bad_address = 0x10u64 << 40;
    let run = |target: u64| -> Result<i64, HsaError> {
        let mut args = KernargBuilder::new(&kernel.info);
        args.set_ptr(ArgRef::Index(0), target).unwrap();
        args.set_u32(ArgRef::Index(1), 0x5eed).unwrap();
        let bytes = args.finish(&DispatchShape::linear(64, 64)).unwrap();
        let mut kernarg = region.allocate(bytes.len() as u64).unwrap();
        kernarg.as_mut_slice().copy_from_slice(&bytes);
        let done = rt.create_signal(1).unwrap();
        let mut d = kernel.dispatch(kernarg.gpu_va(), [64, 1, 1], [64, 1, 1]);
        d.completion_signal = done.handle();
        queue.submit_dispatch(&d.to_packet().unwrap())?;
        done.wait(WaitCondition::Eq, 0, TIMEOUT, WaitHint::Blocked)
    };

    match run(bad_address) {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::MemoryViolation { address },
            ..
        }) => {
            assert_eq!(
                address.map(|a| a & !0xfff),
                Some(bad_address & !0xfff),
                "fault address"
            );
        }
        other => panic!("expected a memory violation, got {other:?}"),
    }
    assert!(queue.error().is_some());

    // The next dispatch on the same queue recreates it and succeeds.
    let target = rt
        .pool(&gpu, PoolKind::FineSystem)
        .unwrap()
        .allocate(4096)
        .unwrap();
    assert_eq!(run(target.gpu_va()).unwrap(), 0);
    assert_eq!(queue.recreations(), 1);
    assert_eq!(
        u32::from_le_bytes(target.as_slice().unwrap()[0..4].try_into().unwrap()),
        0x5eed
    );
}
