//! The vmem API on gfxsim: every call's success path and each documented
//! error (with the HSA status code ROCr returns for it), host access
//! through mappings that alias one handle, a kernel reading and writing a
//! range grown from two handles, and the leak check (all handles released
//! and ranges freed: the device's memory use is back where it started).

use std::os::fd::AsFd;

use aqueduct_hsa::memory::{MemoryPool, PoolKind};
use aqueduct_hsa::vmem::{Access, AllocHandle, MemoryType, VirtualMemory, VmemError};
use aqueduct_hsa::{Agent, DeviceType};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, assert_same, read_u32};

const PAGE: u64 = 4096;
const MIB2: u64 = 2 << 20;

struct Vm {
    gpu: Gpu,
    vm: VirtualMemory,
    cpu: Agent,
}

impl Vm {
    fn new() -> Vm {
        let gpu = Gpu::new();
        let vm = VirtualMemory::new(&gpu.rt).expect("VirtualMemory::new");
        let cpu = gpu.rt.cpu_agents().next().expect("a CPU agent").clone();
        Vm { gpu, vm, cpu }
    }

    fn pool(&self, kind: PoolKind) -> MemoryPool {
        self.gpu.rt.pool(&self.gpu.agent, kind).unwrap().clone()
    }

    /// (VRAM of the GPU, GTT) the device has handed out.
    fn usage(&self) -> (u64, u64) {
        (
            self.gpu.sim.vram_used(self.gpu.agent.gpu_id).unwrap(),
            self.gpu.sim.gtt_used(),
        )
    }
}

/// The error's variant must have ROCr's status code `status`.
#[track_caller]
fn expect_status<T: std::fmt::Debug>(result: Result<T, VmemError>, status: u32) {
    match result {
        Err(e) => assert_eq!(e.status(), status, "{e} ({})", e.status_name()),
        Ok(v) => panic!("expected status {status:#x}, got Ok({v:?})"),
    }
}

const INVALID_ARGUMENT: u32 = 0x1001;
const INVALID_ALLOCATION: u32 = 0x1003;
const INVALID_AGENT: u32 = 0x1004;
const OUT_OF_RESOURCES: u32 = 0x1008;
const RESOURCE_FREE: u32 = 0x100A;
const INCOMPATIBLE_ARGUMENTS: u32 = 0x100D;

/// `words` as host-visible u32s at `va` (the CPU agent must have access).
fn host_words(va: u64, words: usize) -> &'static mut [u32] {
    // SAFETY: the tests call this only for ranges mapped with host access
    // that stay mapped while the slice is used.
    unsafe { std::slice::from_raw_parts_mut(va as *mut u32, words) }
}

#[test]
fn reserve_honours_address_and_alignment_and_free_checks_its_arguments() {
    let v = Vm::new();
    let (base, size) = v.gpu.rt.aperture();
    let a = v.vm.reserve(16 * PAGE, 0).unwrap();
    assert!(
        a >= base && a + 16 * PAGE <= base + size,
        "inside the aperture"
    );
    assert_eq!(a % PAGE, 0);

    // A free address is honoured; a taken one gives another range.
    let want = base + size - 64 * PAGE;
    assert_eq!(v.vm.reserve(8 * PAGE, want).unwrap(), want);
    let other = v.vm.reserve(8 * PAGE, want).unwrap();
    assert_ne!(other, want);
    // An address misaligned for the requested alignment is not honoured.
    let aligned = v.vm.reserve_aligned(MIB2, want - 3 * PAGE, MIB2).unwrap();
    assert_eq!(aligned % MIB2, 0);
    assert_ne!(aligned, want - 3 * PAGE);

    expect_status(v.vm.reserve(0, 0), INVALID_ARGUMENT);
    expect_status(v.vm.reserve(PAGE + 1, 0), INVALID_ARGUMENT);
    expect_status(v.vm.reserve_aligned(PAGE, 0, 3 * PAGE), INVALID_ARGUMENT);
    expect_status(v.vm.reserve_aligned(PAGE, 0, 512), INVALID_ARGUMENT);
    expect_status(v.vm.reserve(size + PAGE, 0), OUT_OF_RESOURCES);

    expect_status(v.vm.free(a + PAGE, 15 * PAGE), INVALID_ALLOCATION);
    expect_status(v.vm.free(a, 8 * PAGE), INVALID_ARGUMENT);
    v.vm.free(a, 16 * PAGE).unwrap();
    expect_status(v.vm.free(a, 16 * PAGE), INVALID_ALLOCATION);
    // The freed range can be had again at the same address.
    assert_eq!(v.vm.reserve(16 * PAGE, a).unwrap(), a);
    for (va, len) in [
        (a, 16 * PAGE),
        (want, 8 * PAGE),
        (other, 8 * PAGE),
        (aligned, MIB2),
    ] {
        v.vm.free(va, len).unwrap();
    }
}

#[test]
fn handles_are_created_in_granules_and_report_their_properties() {
    let v = Vm::new();
    let coarse = v.pool(PoolKind::CoarseDevice);
    let fine = v.pool(PoolKind::FineSystem);
    let g = v.vm.granule(&coarse);
    assert_eq!((g.minimum, g.recommended), (PAGE, MIB2));
    assert_eq!(v.vm.granule(&fine).minimum, PAGE);

    let (vram0, gtt0) = v.usage();
    let h =
        v.vm.handle_create(&coarse, MIB2, MemoryType::Pinned)
            .unwrap();
    let f =
        v.vm.handle_create(&fine, 3 * PAGE, MemoryType::None)
            .unwrap();
    assert_ne!(h, f);
    assert_eq!(v.usage(), (vram0 + MIB2, gtt0 + 3 * PAGE));

    let p = v.vm.alloc_properties(h).unwrap();
    assert_eq!(
        (p.pool.kind(), p.pool.gpu_id(), p.memory_type, p.size),
        (
            PoolKind::CoarseDevice,
            v.gpu.agent.gpu_id,
            MemoryType::Pinned,
            MIB2
        )
    );
    let p = v.vm.alloc_properties(f).unwrap();
    assert_eq!(
        (p.pool.kind(), p.memory_type, p.size),
        (PoolKind::FineSystem, MemoryType::None, 3 * PAGE)
    );

    expect_status(
        v.vm.handle_create(&coarse, 0, MemoryType::None),
        INVALID_ARGUMENT,
    );
    expect_status(
        v.vm.handle_create(&coarse, PAGE + 512, MemoryType::None),
        INVALID_ARGUMENT,
    );
    let too_big = coarse.info().size + PAGE;
    expect_status(
        v.vm.handle_create(&coarse, too_big, MemoryType::None),
        OUT_OF_RESOURCES,
    );
    // Within the pool's size but beyond what is left of it: the driver's
    // ENOMEM is OutOfResources too (the big handle's pages are never
    // touched, so it costs no memory).
    let rest = coarse.info().size - v.usage().0 - MIB2;
    let big = v.vm.handle_create(&coarse, rest, MemoryType::None).unwrap();
    expect_status(
        v.vm.handle_create(&coarse, 2 * MIB2, MemoryType::None),
        OUT_OF_RESOURCES,
    );
    v.vm.handle_release(big).unwrap();
    // A pool of another runtime whose GPU this one does not have.
    let other = Vm::new();
    let two = aqueduct_gfxsim::SimDevice::new(aqueduct_gfxsim::SimConfig {
        gpus: 2,
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let rt2 = aqueduct_hsa::Runtime::new(two).unwrap();
    let second = rt2.gpu_agent(1).unwrap();
    let foreign = rt2.pool(second, PoolKind::CoarseDevice).unwrap();
    expect_status(
        other.vm.handle_create(foreign, PAGE, MemoryType::None),
        INVALID_ARGUMENT,
    );

    v.vm.handle_release(h).unwrap();
    v.vm.handle_release(f).unwrap();
    expect_status(v.vm.handle_release(h), INVALID_ALLOCATION);
    expect_status(v.vm.alloc_properties(h), INVALID_ALLOCATION);
    expect_status(v.vm.handle_release(AllocHandle(0xdead)), INVALID_ALLOCATION);
    assert_eq!(
        v.usage(),
        (vram0, gtt0),
        "released handles free their memory"
    );
}

#[test]
fn map_and_unmap_check_ranges_sizes_and_handles() {
    let v = Vm::new();
    let fine = v.pool(PoolKind::FineSystem);
    let va = v.vm.reserve(8 * PAGE, 0).unwrap();
    let h =
        v.vm.handle_create(&fine, 2 * PAGE, MemoryType::None)
            .unwrap();

    expect_status(v.vm.map(va, 2 * PAGE, PAGE, h), INVALID_ARGUMENT);
    expect_status(v.vm.map(va, PAGE, 0, h), INVALID_ARGUMENT);
    expect_status(v.vm.map(va + 7 * PAGE, 2 * PAGE, 0, h), INVALID_ARGUMENT);
    expect_status(v.vm.map(va + 1, 2 * PAGE, 0, h), INVALID_ARGUMENT);
    expect_status(
        v.vm.map(va, 2 * PAGE, 0, AllocHandle(0xdead)),
        INVALID_ARGUMENT,
    );
    let outside = v.gpu.rt.aperture().0; // the aperture's start: not reserved here
    expect_status(v.vm.map(outside, 2 * PAGE, 0, h), INVALID_ARGUMENT);

    v.vm.map(va + 2 * PAGE, 2 * PAGE, 0, h).unwrap();
    // Overlaps, from below and from inside.
    expect_status(v.vm.map(va + PAGE, 2 * PAGE, 0, h), INVALID_ARGUMENT);
    expect_status(v.vm.map(va + 3 * PAGE, 2 * PAGE, 0, h), INVALID_ARGUMENT);
    // The same handle again, elsewhere in the range, is fine.
    v.vm.map(va + 6 * PAGE, 2 * PAGE, 0, h).unwrap();

    expect_status(v.vm.free(va, 8 * PAGE), RESOURCE_FREE);
    assert_eq!(
        v.vm.free(va, 8 * PAGE).unwrap_err().status_name(),
        "HSA_STATUS_ERROR_RESOURCE_FREE"
    );
    expect_status(v.vm.unmap(va + 3 * PAGE, 2 * PAGE), INVALID_ALLOCATION);
    expect_status(v.vm.unmap(va + 2 * PAGE, PAGE), INVALID_ARGUMENT);
    v.vm.unmap(va + 2 * PAGE, 2 * PAGE).unwrap();
    expect_status(v.vm.free(va, 8 * PAGE), RESOURCE_FREE);
    v.vm.unmap(va + 6 * PAGE, 2 * PAGE).unwrap();
    v.vm.free(va, 8 * PAGE).unwrap();
    v.vm.handle_release(h).unwrap();
}

#[test]
fn host_access_aliases_one_handle_and_get_access_reports_it() {
    let v = Vm::new();
    let fine = v.pool(PoolKind::FineSystem);
    let va = v.vm.reserve(4 * PAGE, 0).unwrap();
    let h =
        v.vm.handle_create(&fine, 2 * PAGE, MemoryType::None)
            .unwrap();
    v.vm.map(va, 2 * PAGE, 0, h).unwrap();
    v.vm.map(va + 2 * PAGE, 2 * PAGE, 0, h).unwrap();

    let gpu = v.gpu.agent.clone();
    assert_eq!(v.vm.get_access(va, &gpu).unwrap(), Access::None);
    assert_eq!(v.vm.get_access(va + 5, &v.cpu).unwrap(), Access::None);
    // Both mappings at once (they tile the range).
    v.vm.set_access(
        va,
        4 * PAGE,
        &[(&v.cpu, Access::ReadWrite), (&gpu, Access::ReadOnly)],
    )
    .unwrap();
    assert_eq!(
        v.vm.get_access(va + 3 * PAGE, &v.cpu).unwrap(),
        Access::ReadWrite
    );
    assert_eq!(v.vm.get_access(va + PAGE, &gpu).unwrap(), Access::ReadOnly);

    let words = (2 * PAGE / 4) as usize;
    let mut rng = Rng::new(9);
    let data = rng.u32s(words);
    host_words(va, words).copy_from_slice(&data);
    assert_same(host_words(va + 2 * PAGE, words), &data, "second mapping");

    // Changing one agent leaves the other as it was.
    v.vm.set_access(va, 2 * PAGE, &[(&gpu, Access::ReadWrite)])
        .unwrap();
    assert_eq!(v.vm.get_access(va, &gpu).unwrap(), Access::ReadWrite);
    assert_eq!(v.vm.get_access(va, &v.cpu).unwrap(), Access::ReadWrite);

    // Errors.
    let mut stranger = gpu.clone();
    stranger.gpu_id ^= 0xffff;
    let mut cpu_stranger = v.cpu.clone();
    cpu_stranger.node_id = 999;
    assert_eq!(cpu_stranger.device_type, DeviceType::Cpu);
    expect_status(v.vm.get_access(va, &stranger), INVALID_AGENT);
    expect_status(
        v.vm.set_access(va, 2 * PAGE, &[(&cpu_stranger, Access::ReadOnly)]),
        INVALID_AGENT,
    );
    expect_status(v.vm.get_access(va + 4 * PAGE, &gpu), INVALID_ALLOCATION);
    expect_status(
        v.vm.set_access(va + PAGE, PAGE, &[(&gpu, Access::ReadOnly)]),
        INVALID_ALLOCATION,
    );
    expect_status(
        v.vm.set_access(va, 8 * PAGE, &[(&gpu, Access::ReadOnly)]),
        INVALID_ARGUMENT,
    );

    // Retain: the handle mapped there, one more reference.
    assert_eq!(v.vm.retain_alloc_handle(va + 2 * PAGE).unwrap(), h);
    expect_status(v.vm.retain_alloc_handle(va + PAGE), INVALID_ALLOCATION);
    v.vm.handle_release(h).unwrap();
    v.vm.handle_release(h).unwrap();
    // Released but still mapped: the memory stays until the last unmap.
    assert_same(host_words(va, words), &data, "after release");
    expect_status(v.vm.handle_release(h), INVALID_ALLOCATION);
    v.vm.unmap(va, 2 * PAGE).unwrap();
    v.vm.unmap(va + 2 * PAGE, 2 * PAGE).unwrap();
    expect_status(v.vm.alloc_properties(h), INVALID_ALLOCATION);
    v.vm.free(va, 4 * PAGE).unwrap();
}

#[test]
fn export_and_import_in_one_process_share_the_handle() {
    let v = Vm::new();
    let coarse = v.pool(PoolKind::CoarseDevice);
    let h =
        v.vm.handle_create(&coarse, 4 * PAGE, MemoryType::None)
            .unwrap();
    let fd = v.vm.export_shareable_handle(h).unwrap();
    // The same memory imported is the same handle, one more reference.
    assert_eq!(v.vm.import_shareable_handle(fd.as_fd()).unwrap(), h);
    drop(fd);
    v.vm.handle_release(h).unwrap();
    assert!(v.vm.alloc_properties(h).is_ok(), "one reference left");
    v.vm.handle_release(h).unwrap();
    expect_status(v.vm.export_shareable_handle(h), INVALID_ALLOCATION);

    // A runtime of its own (another gfxsim instance) imports it as a new
    // handle of the device pool.
    let h =
        v.vm.handle_create(&coarse, 4 * PAGE, MemoryType::Pinned)
            .unwrap();
    let fd = v.vm.export_shareable_handle(h).unwrap();
    let other = Vm::new();
    let imported = other.vm.import_shareable_handle(fd.as_fd()).unwrap();
    let p = other.vm.alloc_properties(imported).unwrap();
    assert_eq!(
        (p.pool.kind(), p.memory_type, p.size),
        (PoolKind::CoarseDevice, MemoryType::Pinned, 4 * PAGE)
    );
    other.vm.handle_release(imported).unwrap();
    v.vm.handle_release(h).unwrap();

    // Not a dma-buf of a GPU here.
    let memfd = rustix::fs::memfd_create("not-a-dmabuf", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
    rustix::fs::ftruncate(&memfd, PAGE).unwrap();
    expect_status(
        v.vm.import_shareable_handle(memfd.as_fd()),
        INCOMPATIBLE_ARGUMENTS,
    );
}

/// Grow an allocation: map a second handle right after the first in one
/// reserved range; a kernel copies across the seam, the host checks.
#[test]
fn a_kernel_uses_a_range_grown_from_two_handles() {
    let v = Vm::new();
    let coarse = v.pool(PoolKind::CoarseDevice);
    let gpu = v.gpu.agent.clone();
    let total = 4 * MIB2;
    let va = v.vm.reserve_aligned(total, 0, MIB2).unwrap();
    let first = v.vm.handle_create(&coarse, MIB2, MemoryType::None).unwrap();
    let second = v.vm.handle_create(&coarse, MIB2, MemoryType::None).unwrap();
    v.vm.map(va, MIB2, 0, first).unwrap();
    v.vm.set_access(
        va,
        MIB2,
        &[(&gpu, Access::ReadWrite), (&v.cpu, Access::ReadWrite)],
    )
    .unwrap();
    v.vm.map(va + MIB2, MIB2, 0, second).unwrap();
    v.vm.set_access(
        va + MIB2,
        MIB2,
        &[(&gpu, Access::ReadWrite), (&v.cpu, Access::ReadWrite)],
    )
    .unwrap();

    // 8 KiB straddling the seam in, copied to a fine buffer.
    let n = 2048usize;
    let start = va + MIB2 - 4096;
    let data = Rng::new(17).u32s(n);
    host_words(start, n).copy_from_slice(&data);
    let out = v.gpu.filled_u32(n, 0);
    let copy = v.gpu.load("vector_copy");
    v.gpu
        .run(
            &copy.kernel,
            &[Arg::Ptr(start), Arg::Ptr(out.gpu_va()), Arg::U32(n as u32)],
            [n as u32, 1, 1],
            [64, 1, 1],
        )
        .unwrap();
    assert_same(&read_u32(&out, n), &data, "GPU read across the seam");

    // And the other way: the GPU writes across the seam.
    let src = v
        .gpu
        .upload_u32(&data.iter().map(|x| !x).collect::<Vec<_>>());
    v.gpu
        .run(
            &copy.kernel,
            &[Arg::Ptr(src.gpu_va()), Arg::Ptr(start), Arg::U32(n as u32)],
            [n as u32, 1, 1],
            [64, 1, 1],
        )
        .unwrap();
    let want: Vec<u32> = data.iter().map(|x| !x).collect();
    assert_same(host_words(start, n), &want, "GPU write across the seam");

    v.vm.unmap(va, MIB2).unwrap();
    v.vm.unmap(va + MIB2, MIB2).unwrap();
    v.vm.handle_release(first).unwrap();
    v.vm.handle_release(second).unwrap();
    v.vm.free(va, total).unwrap();
}

/// Everything created, mapped, shared and imported, then released in an
/// order that leaves memory referenced by mappings the longest: the
/// device's VRAM and GTT use return to where they started, and so does the
/// aperture (the same reservation fits again at the same address).
#[test]
fn releasing_everything_returns_all_memory() {
    let v = Vm::new();
    let start = v.usage();
    let gpu = v.gpu.agent.clone();
    let va = v.vm.reserve(8 * MIB2, 0).unwrap();
    let mut handles = Vec::new();
    for (i, kind) in [
        PoolKind::CoarseDevice,
        PoolKind::FineSystem,
        PoolKind::CoarseDevice,
    ]
    .into_iter()
    .enumerate()
    {
        let h =
            v.vm.handle_create(&v.pool(kind), MIB2, MemoryType::None)
                .unwrap();
        let at = va + i as u64 * MIB2;
        v.vm.map(at, MIB2, 0, h).unwrap();
        v.vm.set_access(
            at,
            MIB2,
            &[(&gpu, Access::ReadWrite), (&v.cpu, Access::ReadOnly)],
        )
        .unwrap();
        handles.push((h, at));
    }
    let fd = v.vm.export_shareable_handle(handles[0].0).unwrap();
    let again = v.vm.import_shareable_handle(fd.as_fd()).unwrap();
    drop(fd);
    let retained = v.vm.retain_alloc_handle(handles[2].1).unwrap();
    assert_eq!(
        v.usage(),
        (start.0 + 2 * MIB2, start.1 + MIB2),
        "three handles' memory (the import shares the first's)"
    );
    // Release every reference first: mapped memory must stay.
    for (h, _) in &handles {
        v.vm.handle_release(*h).unwrap();
    }
    v.vm.handle_release(again).unwrap();
    v.vm.handle_release(retained).unwrap();
    assert_eq!(v.usage(), (start.0 + 2 * MIB2, start.1 + MIB2));
    for (_, at) in &handles {
        v.vm.unmap(*at, MIB2).unwrap();
    }
    assert_eq!(v.usage(), start, "the last unmap frees each handle");
    v.vm.free(va, 8 * MIB2).unwrap();
    assert_eq!(v.vm.reserve(8 * MIB2, va).unwrap(), va);
    v.vm.free(va, 8 * MIB2).unwrap();

    // Dropping the manager with things outstanding also frees them.
    let h =
        v.vm.handle_create(&v.pool(PoolKind::CoarseDevice), MIB2, MemoryType::None)
            .unwrap();
    let va = v.vm.reserve(MIB2, 0).unwrap();
    v.vm.map(va, MIB2, 0, h).unwrap();
    v.vm.set_access(va, MIB2, &[(&gpu, Access::ReadWrite)])
        .unwrap();
    let Vm { gpu: g, vm, .. } = v;
    drop(vm);
    assert_eq!(g.sim.vram_used(g.agent.gpu_id).unwrap(), start.0);
}

/// Threads reserving, creating, mapping, writing through the host and
/// tearing down at once: each sees only its own data, and everything is
/// returned.
#[test]
fn concurrent_users_do_not_interfere() {
    let v = Vm::new();
    let start = v.usage();
    let fine = v.pool(PoolKind::FineSystem);
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let (v, fine) = (&v, &fine);
            s.spawn(move || {
                for round in 0..25u32 {
                    let size = (1 + (t + round) as u64 % 3) * PAGE;
                    let va = v.vm.reserve(size, 0).unwrap();
                    let h = v.vm.handle_create(fine, size, MemoryType::None).unwrap();
                    v.vm.map(va, size, 0, h).unwrap();
                    v.vm.set_access(va, size, &[(&v.cpu, Access::ReadWrite)])
                        .unwrap();
                    let words = host_words(va, (size / 4) as usize);
                    let tag = (t << 16) | round;
                    words.fill(tag);
                    std::thread::yield_now();
                    assert!(words.iter().all(|w| *w == tag), "thread {t} round {round}");
                    assert_eq!(v.vm.retain_alloc_handle(va).unwrap(), h);
                    v.vm.handle_release(h).unwrap();
                    v.vm.unmap(va, size).unwrap();
                    v.vm.handle_release(h).unwrap();
                    v.vm.free(va, size).unwrap();
                }
            });
        }
    });
    assert_eq!(v.usage(), start);
}
