//! Access enforcement of vmem mappings on gfxsim: a kernel touching a
//! mapped range its GPU has no access to, or a reserved range with nothing
//! mapped, faults with the address (the queue's error path: the wait
//! reports a memory violation naming the address); the same queue then
//! recovers, and once access is granted the same store lands. With two
//! GPUs, access granted to one does not open the range to the other.

use std::sync::Arc;

use aqueduct_gfxsim::SimConfig;
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::vmem::{Access, MemoryType, VirtualMemory};
use aqueduct_hsa::{HsaError, QueueErrorReason, QueueFaultDetail};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, SIM_THREADS, oob_write};

const PAGE: u64 = 4096;

/// The result must be a memory violation at `address` (its page in the
/// reason, the exact address in gfxsim's detail).
#[track_caller]
fn expect_fault_at(gpu: &Gpu, result: Result<(), HsaError>, address: u64) {
    match result {
        Err(HsaError::QueueError {
            reason: QueueErrorReason::MemoryViolation { address: reported },
            detail,
            queue_id,
        }) => {
            assert_eq!(reported, Some(address & !(PAGE - 1)), "faulting page");
            let Some(QueueFaultDetail::MemoryFault(fault)) = detail else {
                panic!("the VM fault's data: {detail:?}");
            };
            assert_eq!(
                (fault.gpu_id, fault.address),
                (gpu.agent.gpu_id, address & !(PAGE - 1))
            );
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(
                detail.contains(&format!("{address:#x}")),
                "detail names {address:#x}: {detail}"
            );
        }
        other => panic!("expected a memory violation at {address:#x}, got {other:?}"),
    }
}

/// The u32 at `va` (host access must be granted).
fn host_read(va: u64) -> u32 {
    // SAFETY: callers pass an address inside a mapping with host access.
    unsafe { std::ptr::read_volatile(va as *const u32) }
}

/// Store `value` at `va` (host access must be granted).
fn host_write(va: u64, value: u32) {
    // SAFETY: callers pass an address inside a mapping with host access.
    unsafe { std::ptr::write_volatile(va as *mut u32, value) }
}

#[test]
fn no_access_and_unmapped_ranges_fault_and_the_queue_recovers() {
    let gpu = Gpu::new();
    let vm = VirtualMemory::new(&gpu.rt).unwrap();
    let cpu = gpu.rt.cpu_agents().next().unwrap().clone();
    let agent = gpu.agent.clone();
    let program = gpu.load("oob_write");
    let queue = gpu.queue(64);

    let coarse = gpu.rt.pool(&agent, PoolKind::CoarseDevice).unwrap();
    let va = vm.reserve(4 * PAGE, 0).unwrap();
    let h = vm
        .handle_create(coarse, 2 * PAGE, MemoryType::None)
        .unwrap();
    vm.map(va, 2 * PAGE, 0, h).unwrap();
    vm.set_access(va, 2 * PAGE, &[(&cpu, Access::ReadWrite)])
        .unwrap();

    host_write(va + 0x44, 0x5eed);
    // Mapped, but the GPU was never given access.
    expect_fault_at(
        &gpu,
        oob_write(&gpu, &program, &queue, va + 0x44, 1),
        va + 0x44,
    );
    // A read faults the same way (one lane reads one word).
    let copy = gpu.load("vector_copy");
    let sink = gpu.filled_u32(1, 0);
    let launch = gpu.launch(
        &copy.kernel,
        &[Arg::Ptr(va + 0x40), Arg::Ptr(sink.gpu_va()), Arg::U32(1)],
        [1, 1, 1],
        [1, 1, 1],
    );
    expect_fault_at(&gpu, gpu.run_on(&queue, &launch), va + 0x40);
    // Reserved, nothing mapped.
    let hole = va + 3 * PAGE + 0x10;
    expect_fault_at(&gpu, oob_write(&gpu, &program, &queue, hole, 2), hole);
    assert_eq!(
        host_read(va + 0x44),
        0x5eed,
        "the faulting store did not land"
    );

    vm.set_access(va, 2 * PAGE, &[(&agent, Access::ReadWrite)])
        .unwrap();
    oob_write(&gpu, &program, &queue, va + PAGE + 8, 0xacce_55ed).unwrap();
    assert_eq!(host_read(va + PAGE + 8), 0xacce_55ed);
    assert_eq!(queue.recreations(), 3, "the same queue recovered each time");

    // Revoked: faults again; the host still sees the data.
    vm.set_access(va, 2 * PAGE, &[(&agent, Access::None)])
        .unwrap();
    expect_fault_at(&gpu, oob_write(&gpu, &program, &queue, va + 8, 3), va + 8);
    assert_eq!(host_read(va + PAGE + 8), 0xacce_55ed);

    // Unmapped after use: faults, and the range is free to go.
    vm.set_access(va, 2 * PAGE, &[(&agent, Access::ReadWrite)])
        .unwrap();
    vm.unmap(va, 2 * PAGE).unwrap();
    expect_fault_at(&gpu, oob_write(&gpu, &program, &queue, va + 8, 4), va + 8);
    vm.handle_release(h).unwrap();
    vm.free(va, 4 * PAGE).unwrap();
}

#[test]
fn access_is_per_gpu() {
    let gpu0 = Gpu::with_config(SimConfig {
        gpus: 2,
        threads: SIM_THREADS,
        ..SimConfig::default()
    });
    let rt = Arc::clone(&gpu0.rt);
    let gpu1 = Gpu {
        rt: Arc::clone(&rt),
        sim: Arc::clone(&gpu0.sim),
        agent: rt.gpu_agent(1).unwrap().clone(),
    };
    let vm = VirtualMemory::new(&rt).unwrap();
    let cpu = rt.cpu_agents().next().unwrap().clone();

    let fine = rt.pool(&gpu0.agent, PoolKind::FineSystem).unwrap();
    let va = vm.reserve(PAGE, 0).unwrap();
    let h = vm.handle_create(fine, PAGE, MemoryType::None).unwrap();
    vm.map(va, PAGE, 0, h).unwrap();
    vm.set_access(
        va,
        PAGE,
        &[(&gpu0.agent, Access::ReadWrite), (&cpu, Access::ReadOnly)],
    )
    .unwrap();
    assert_eq!(vm.get_access(va, &gpu1.agent).unwrap(), Access::None);

    let (p0, p1) = (gpu0.load("oob_write"), gpu1.load("oob_write"));
    let (q0, q1) = (gpu0.queue(64), gpu1.queue(64));
    oob_write(&gpu0, &p0, &q0, va + 16, 0x600d_0000).unwrap();
    expect_fault_at(&gpu1, oob_write(&gpu1, &p1, &q1, va + 20, 0xbad), va + 20);
    assert_eq!(host_read(va + 16), 0x600d_0000);
    assert_eq!(host_read(va + 20), 0);

    vm.set_access(va, PAGE, &[(&gpu1.agent, Access::ReadWrite)])
        .unwrap();
    oob_write(&gpu1, &p1, &q1, va + 20, 0x600d_0001).unwrap();
    assert_eq!(host_read(va + 20), 0x600d_0001);
    // GPU 0 kept its access.
    oob_write(&gpu0, &p0, &q0, va + 24, 0x600d_0002).unwrap();
    assert_eq!(host_read(va + 24), 0x600d_0002);

    vm.unmap(va, PAGE).unwrap();
    vm.handle_release(h).unwrap();
    vm.free(va, PAGE).unwrap();
}
