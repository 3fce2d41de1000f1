//! The runtime on older KFD interfaces: gfxsim presents 1.11 and 1.14 as
//! well as the current 1.17 (`SimConfig::kfd_minor_version`), refusing or
//! ignoring what a kernel of that version lacks. Dispatches and blocking
//! waits work on every version (before 1.14 WAIT_EVENTS has no event age);
//! dma-buf export needs 1.12 and says so on 1.11.

use std::sync::Arc;
use std::time::Duration;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::vmem::{MemoryType, VirtualMemory, VmemError};
use aqueduct_hsa::{AllocOptions, MemoryOrder, Runtime, RuntimeOptions, WaitCondition, WaitHint};

const TIMEOUT: Option<Duration> = Some(Duration::from_secs(20));

fn runtime(kfd_minor_version: u32) -> Arc<Runtime> {
    let device = SimDevice::new(SimConfig {
        threads: 2,
        kfd_minor_version,
        ..SimConfig::default()
    })
    .unwrap();
    let options = RuntimeOptions {
        visible_devices: None,
        aperture_size: 16 << 30,
    };
    let rt = Runtime::with_options(device, options).unwrap();
    assert_eq!(rt.kfd_version(), (1, kfd_minor_version));
    rt
}

/// vector_copy three times behind a host-set gate, each waited for with a
/// blocking wait (the event path of WAIT_EVENTS).
fn copies_and_blocking_waits(rt: &Runtime) {
    let gpu = rt.gpu_agent(0).unwrap().clone();
    let fine = rt.pool(&gpu, PoolKind::FineSystem).unwrap();
    let vram = rt.pool(&gpu, PoolKind::CoarseDevice).unwrap();
    const N: u32 = 4096;
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
    let code = std::fs::read(format!(
        "{}/../../kernels/gfx1100/vector_copy.co",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let exe = rt.load_executable(&gpu, &code).unwrap();
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
    for round in 0..3u32 {
        for (i, w) in src.as_mut_slice().unwrap().chunks_exact_mut(4).enumerate() {
            w.copy_from_slice(&(i as u32 ^ round.wrapping_mul(0x9e37_79b9)).to_le_bytes());
        }
        let gate = rt.create_signal(1).unwrap();
        let done = rt.create_signal(1).unwrap();
        queue.submit_barrier_and(&[&gate], None).unwrap();
        let mut dispatch = kernel.dispatch(kernarg.gpu_va(), [N, 1, 1], [64, 1, 1]);
        dispatch.completion_signal = done.handle();
        queue
            .submit_dispatch(&dispatch.to_packet().unwrap())
            .unwrap();
        let opener = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                gate.store(0, MemoryOrder::Release);
            })
        };
        let value = done
            .wait(WaitCondition::Eq, 0, TIMEOUT, WaitHint::Blocked)
            .unwrap();
        assert_eq!(value, 0, "round {round}");
        opener.join().unwrap();
        let out = dst.as_slice().unwrap();
        for i in 0..N as usize {
            let v = u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
            assert_eq!(
                v,
                i as u32 ^ round.wrapping_mul(0x9e37_79b9),
                "round {round} dst[{i}]"
            );
        }
    }
}

#[test]
fn dispatches_and_waits_work_on_kfd_1_11_1_14_and_1_17() {
    for minor in [11, 14, 17] {
        copies_and_blocking_waits(&runtime(minor));
    }
}

#[test]
fn dma_buf_export_needs_kfd_1_12_and_says_so() {
    // A virtual-memory handle is a dma-buf from its creation (import finds
    // it by the buffer's identity), so on 1.11 creating one already fails,
    // naming the version it needs.
    for (minor, exports) in [(11, false), (12, true), (17, true)] {
        let rt = runtime(minor);
        let gpu = rt.gpu_agent(0).unwrap().clone();
        let vm = VirtualMemory::new(&rt).unwrap();
        let coarse = rt.pool(&gpu, PoolKind::CoarseDevice).unwrap().clone();
        let exported = vm
            .handle_create(&coarse, 4096, MemoryType::None)
            .and_then(|h| {
                let fd = vm.export_shareable_handle(h);
                vm.handle_release(h)?;
                fd
            });
        match exported {
            Ok(_) => assert!(exports, "1.{minor} exported"),
            Err(
                e @ VmemError::KfdTooOld {
                    needed_minor: 12, ..
                },
            ) => {
                assert!(!exports, "1.{minor}: {e}");
                assert!(e.to_string().contains("1.12 or newer"), "{e}");
                assert!(e.to_string().contains("1.11"), "{e}");
            }
            Err(e) => panic!("1.{minor}: {e}"),
        }
    }
}
