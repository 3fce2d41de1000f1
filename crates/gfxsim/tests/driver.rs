//! The simulated driver at the KFD boundary: topology, memory ioctls and
//! translation, events, queue creation checks.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_isa::Access;
use aqueduct_kfd::topology::{HeapType, NodeKind};
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdError, NoDeviceError};
use aqueduct_test_harness::sim::*;

const EINVAL: i32 = 22;
const ENOMEM: i32 = 12;
const EFAULT: i32 = 14;
const EBUSY: i32 = 16;
const EPERM: i32 = 1;

#[test]
fn topology_is_a_7900xtx_per_gpu() {
    let dev = SimDevice::new(SimConfig {
        gpus: 2,
        threads: 1,
        vram_size: 24 << 30,
        ..SimConfig::default()
    })
    .unwrap();
    let topo = dev.topology().unwrap();
    assert_eq!(topo.nodes.len(), 3);
    assert_eq!(topo.nodes[0].kind, NodeKind::Cpu);
    assert_eq!(topo.nodes[0].gpu_id, 0);
    assert_eq!(topo.nodes[0].properties.cpu_cores_count, 16);
    let gpus: Vec<_> = topo.gpu_nodes().collect();
    assert_eq!(gpus.len(), 2);
    for (i, node) in gpus.iter().enumerate() {
        let p = &node.properties;
        assert_eq!(p.gfx_target_version, 110000);
        assert_eq!(node.gfx_version().unwrap().name(), "gfx1100");
        assert_eq!(node.compute_unit_count(), 96);
        assert_eq!(node.wave_front_size(), 32);
        assert_eq!(p.lds_size_in_kb, 64);
        assert_eq!(p.capability, 671588992);
        assert_eq!(node.doorbell_type(), 2);
        assert_eq!(
            (p.vendor_id, p.device_id, p.fw_version, p.num_cp_queues),
            (4098, 29772, 2140, 8)
        );
        assert_eq!(node.drm_render_minor(), Some(128 + i as u32));
        assert_eq!(node.mem_banks.len(), 1);
        assert_eq!(node.mem_banks[0].heap_type, HeapType::FrameBufferPublic);
        assert_eq!(node.mem_banks[0].size_in_bytes, 24 << 30);
        assert_eq!(p.local_mem_size, 24 << 30);
        assert_eq!(node.io_links[0].node_to, 0);
        let cwsr = node.cwsr_sizes().unwrap();
        assert_eq!(cwsr.eop_buffer_size, 4096);
        // 96 CUs, 3072 waves: ALIGN(40 + 3072*12 + 8, 4K) = 0xA000.
        assert_eq!(cwsr.ctl_stack_size, 0xA000);
        assert_eq!(cwsr.cwsr_size, 0xA000 + 96 * 0x75000);
    }
    assert_ne!(gpus[0].gpu_id, 0);
    assert_ne!(gpus[0].gpu_id, gpus[1].gpu_id);
    assert_ne!(gpus[0].properties.unique_id, gpus[1].properties.unique_id);

    let mut v = GetVersionArgs::default();
    dev.get_version(&mut v).unwrap();
    assert_eq!((v.major_version, v.minor_version), (1, 17));

    let mut args = GetProcessAperturesNewArgs::default();
    dev.get_process_apertures_new(&mut args, &mut []).unwrap();
    assert_eq!(args.num_of_nodes, 2);
    let mut ap = [ProcessDeviceApertures::default(); 2];
    dev.get_process_apertures_new(&mut args, &mut ap).unwrap();
    assert_eq!(ap[0].lds_base, 1 << 48);
    assert_eq!(ap[0].lds_limit, (1 << 48) | 0xFFFF_FFFF);
    assert_eq!(ap[0].scratch_base, 2 << 48);
    assert_eq!(ap[1].gpu_id, gpus[1].gpu_id);
}

#[test]
fn acquire_vm_needs_the_gpus_render_node() {
    let dev = SimDevice::new(SimConfig {
        gpus: 2,
        threads: 1,
        vram_size: 1 << 30,
        ..SimConfig::default()
    })
    .unwrap();
    let topo = dev.topology().unwrap();
    let gpus: Vec<_> = topo.gpu_nodes().collect();
    let fd0 = dev.open_render_node(128).unwrap();
    let err = dev
        .acquire_vm(&mut AcquireVmArgs {
            drm_fd: fd0,
            gpu_id: gpus[1].gpu_id,
        })
        .unwrap_err();
    assert_eq!(errno(err), EINVAL);
    // ALLOC before ACQUIRE_VM fails like the kernel (no drm_priv).
    let mut a = AllocMemoryOfGpuArgs {
        va_addr: 1 << 30,
        size: PAGE,
        gpu_id: gpus[0].gpu_id,
        flags: GTT_FLAGS,
        ..Default::default()
    };
    assert_eq!(errno(dev.alloc_memory_of_gpu(&mut a).unwrap_err()), EINVAL);
    for _ in 0..2 {
        // The same file again is accepted.
        dev.acquire_vm(&mut AcquireVmArgs {
            drm_fd: fd0,
            gpu_id: gpus[0].gpu_id,
        })
        .unwrap();
    }
    dev.alloc_memory_of_gpu(&mut a).unwrap();
    assert_eq!(a.handle >> 32, gpus[0].gpu_id as u64);
    assert_ne!(a.mmap_offset, 0);
}

#[test]
fn alloc_rejects_what_the_kernel_rejects() {
    let h = Harness::new();
    let va = reserve_va(4 * PAGE);
    let try_alloc = |va: u64, size: u64, flags: u32, gpu_id: u32| {
        let mut a = AllocMemoryOfGpuArgs {
            va_addr: va,
            size,
            gpu_id,
            flags,
            ..Default::default()
        };
        h.dev.alloc_memory_of_gpu(&mut a).map(|_| a).map_err(errno)
    };
    assert_eq!(
        try_alloc(va, PAGE, alloc_flags::WRITABLE, h.gpu_id).unwrap_err(),
        EINVAL,
        "no type bit"
    );
    assert_eq!(
        try_alloc(va, PAGE, alloc_flags::VRAM | alloc_flags::GTT, h.gpu_id).unwrap_err(),
        EINVAL,
        "two type bits"
    );
    assert_eq!(
        try_alloc(va + 8, PAGE, GTT_FLAGS, h.gpu_id).unwrap_err(),
        EINVAL,
        "unaligned va"
    );
    // VA 0 is a memory-only BO (libhsakmt's NoAddress handles, what the
    // vmem API creates): allowed for VRAM/GTT, never mappable to a GPU.
    let memory_only = try_alloc(0, PAGE, GTT_FLAGS, h.gpu_id).expect("memory-only GTT BO");
    let mut map = MapMemoryToGpuArgs {
        handle: memory_only.handle,
        n_devices: 1,
        ..Default::default()
    };
    assert_eq!(
        h.dev
            .map_memory_to_gpu(&mut map, &[h.gpu_id])
            .map_err(errno)
            .unwrap_err(),
        EINVAL,
        "a memory-only BO has no VA to map"
    );
    h.dev
        .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs {
            handle: memory_only.handle,
        })
        .unwrap();
    assert_eq!(
        try_alloc(0, 8192, alloc_flags::DOORBELL, h.gpu_id).unwrap_err(),
        EINVAL,
        "null va for a doorbell BO"
    );
    assert_eq!(
        try_alloc(va, 100, GTT_FLAGS, h.gpu_id).unwrap_err(),
        EINVAL,
        "unaligned size"
    );
    assert_eq!(
        try_alloc(va, 0, GTT_FLAGS, h.gpu_id).unwrap_err(),
        EINVAL,
        "zero size"
    );
    assert_eq!(
        try_alloc(va, PAGE, GTT_FLAGS, 0xdead).unwrap_err(),
        EINVAL,
        "unknown gpu"
    );
    assert_eq!(
        try_alloc(va, PAGE, alloc_flags::DOORBELL, h.gpu_id).unwrap_err(),
        EINVAL,
        "doorbell slice is 8 KiB"
    );
    // VRAM is limited to the configured 1 GiB.
    let big = reserve_va(2 << 30);
    assert_eq!(
        try_alloc(big, 2 << 30, alloc_flags::VRAM, h.gpu_id).unwrap_err(),
        ENOMEM
    );
    let a = try_alloc(
        big,
        1 << 30,
        alloc_flags::VRAM | alloc_flags::WRITABLE,
        h.gpu_id,
    )
    .unwrap();
    assert_eq!(
        try_alloc(va, PAGE, alloc_flags::VRAM, h.gpu_id).unwrap_err(),
        ENOMEM,
        "VRAM exhausted"
    );
    h.dev
        .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle: a.handle })
        .unwrap();
    try_alloc(va, PAGE, alloc_flags::VRAM, h.gpu_id).expect("VRAM returned on free");
    // USERPTR: the CPU address must be page aligned and mapped.
    let mut u = AllocMemoryOfGpuArgs {
        va_addr: va,
        size: PAGE,
        gpu_id: h.gpu_id,
        flags: alloc_flags::USERPTR,
        mmap_offset: 0x1000,
        ..Default::default()
    };
    assert_eq!(
        errno(h.dev.alloc_memory_of_gpu(&mut u).unwrap_err()),
        14,
        "EFAULT for unmapped user memory"
    );
    u.mmap_offset = 12;
    assert_eq!(
        errno(h.dev.alloc_memory_of_gpu(&mut u).unwrap_err()),
        EINVAL
    );
}

/// MAP_MEMORY_TO_GPU commits gfxsim's view of a BO of at most
/// POPULATE_LIMIT bytes (as hardware fills its page tables at map time), so
/// kernels take no host page faults on it; a larger BO stays uncommitted
/// until touched.
#[test]
fn mapping_commits_the_view_of_a_small_bo_only() {
    let h = Harness::new();
    let view = |va: u64| {
        h.dev
            .with_gpu_memory(h.gpu_id, |m| {
                m.translate(va, 8, Access::Read).unwrap() as usize
            })
            .unwrap()
    };
    let small = 16 * PAGE;
    let a = h.alloc_args(small, GTT_FLAGS).unwrap();
    h.map(a.handle, &[h.gpu_id]).unwrap();
    assert_eq!(resident_kib(view(a.va_addr)), Some(small / 1024));
    let big = aqueduct_gfxsim::POPULATE_LIMIT * 2;
    let b = h.alloc_args(big, GTT_FLAGS).unwrap();
    h.map(b.handle, &[h.gpu_id]).unwrap();
    assert_eq!(resident_kib(view(b.va_addr)), Some(0));
}

/// A new VRAM BO reads the amdgpu driver's wipe-on-release poison by
/// default (memory/fresh_vram.rs), through the host's and the device's
/// view alike, up to POISON_LIMIT bytes; with `FreshVram::Zero` (kernels
/// that allocate KFD VRAM cleared) and for GTT it reads zeros.
#[test]
fn fresh_vram_reads_the_drivers_poison() {
    use aqueduct_gfxsim::{AMDGPU_POISON, FreshVram, POISON_LIMIT};
    let vram = alloc_flags::VRAM | alloc_flags::WRITABLE | alloc_flags::PUBLIC;
    let first_dwords = |h: &Harness, flags: u32| {
        let buf = h.buffer(2 * PAGE, flags);
        let device = h
            .dev
            .with_gpu_memory(h.gpu_id, |m| {
                let p = m.translate(buf.va + PAGE, 4, Access::Read).unwrap();
                // SAFETY: translate returned 4 valid bytes.
                unsafe { std::ptr::read_unaligned(p as *const u32) }
            })
            .unwrap();
        // SAFETY: the BO is mapped on the host at its VA.
        let host = unsafe { std::ptr::read_volatile(buf.ptr::<u32>(2 * PAGE - 4)) };
        (host, device)
    };
    let poison = Harness::with_config(SimConfig {
        fresh_vram: FreshVram::Poison,
        ..SimConfig::default()
    });
    assert_eq!(first_dwords(&poison, vram), (AMDGPU_POISON, AMDGPU_POISON));
    assert_eq!(first_dwords(&poison, GTT_FLAGS), (0, 0));
    // Past the limit the pages stay untouched (uncommitted) and read zero.
    let big = poison.buffer(POISON_LIMIT + 2 * PAGE, vram);
    // SAFETY: the BO is mapped on the host at its VA.
    let (last_poisoned, first_clean) = unsafe {
        (
            std::ptr::read_volatile(big.ptr::<u32>(POISON_LIMIT - 4)),
            std::ptr::read_volatile(big.ptr::<u32>(POISON_LIMIT)),
        )
    };
    assert_eq!((last_poisoned, first_clean), (AMDGPU_POISON, 0));
    let zero = Harness::with_config(SimConfig {
        fresh_vram: FreshVram::Zero,
        ..SimConfig::default()
    });
    assert_eq!(first_dwords(&zero, vram), (0, 0));
}

/// A freed VRAM BO's memory backs the next BO of its GPU, flags and size
/// (memory/vram_pool.rs), and that BO reads exactly as a new one through
/// both views, whatever the last owner wrote: the poison up to
/// POISON_LIMIT and zeros after it, or zeros throughout under
/// `FreshVram::Zero`. Memory the runtime mapped or exported never comes
/// back.
#[test]
fn recycled_vram_reads_as_new_vram() {
    use aqueduct_gfxsim::{AMDGPU_POISON, FreshVram, POISON_LIMIT};
    let vram = alloc_flags::VRAM | alloc_flags::WRITABLE | alloc_flags::PUBLIC;
    let size = POISON_LIMIT + 2 * PAGE;
    let free = |h: &Harness, handle: u64| {
        h.dev
            .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle })
            .unwrap()
    };
    let device_view = |h: &Harness, va: u64| {
        h.dev
            .with_gpu_memory(h.gpu_id, |m| m.translate(va, size, Access::Write).unwrap())
            .unwrap()
    };
    for fresh in [FreshVram::Poison, FreshVram::Zero] {
        let h = Harness::with_config(SimConfig {
            fresh_vram: fresh,
            ..SimConfig::default()
        });
        let old = h.alloc_args(size, vram).unwrap();
        h.map(old.handle, &[h.gpu_id]).unwrap();
        // SAFETY: translate gave `size` writable bytes of the BO.
        unsafe { std::ptr::write_bytes(device_view(&h, old.va_addr), 0x5a, size as usize) };
        h.unmap(old.handle, &[h.gpu_id]).unwrap();
        free(&h, old.handle);
        assert_eq!(h.dev.pooled_vram(), size, "{fresh:?}");

        let new = h.alloc_args(size, vram).unwrap();
        assert_eq!(h.dev.pooled_vram(), 0, "{fresh:?}");
        // SAFETY: alloc_args reserved the VA for this BO.
        unsafe {
            h.dev
                .mmap_render_node(h.gpu_id, new.va_addr, size, new.mmap_offset)
        }
        .unwrap();
        h.map(new.handle, &[h.gpu_id]).unwrap();
        let poisoned = match fresh {
            FreshVram::Poison => POISON_LIMIT / 4,
            FreshVram::Zero => 0,
        } as usize;
        let mut expected = vec![AMDGPU_POISON; poisoned];
        expected.resize((size / 4) as usize, 0);
        for view in [new.va_addr as *mut u8, device_view(&h, new.va_addr)] {
            // SAFETY: both views hold the BO's `size` bytes, u32-aligned.
            let words = unsafe { std::slice::from_raw_parts(view.cast::<u32>(), expected.len()) };
            assert!(words == expected.as_slice(), "{fresh:?}");
        }
        // The runtime mapped it: its memory is gone for good when freed.
        h.unmap(new.handle, &[h.gpu_id]).unwrap();
        free(&h, new.handle);
        assert_eq!(h.dev.pooled_vram(), 0, "{fresh:?}");
    }

    // An exported BO's memfd outlives it in the fd's holders.
    let h = Harness::new();
    let exported = h.alloc_args(2 * PAGE, vram).unwrap();
    let mut export = ExportDmabufArgs {
        handle: exported.handle,
        flags: DMABUF_EXPORT_CLOEXEC,
        ..Default::default()
    };
    h.dev.export_dmabuf(&mut export).unwrap();
    free(&h, exported.handle);
    assert_eq!(h.dev.pooled_vram(), 0);
    // SAFETY: EXPORT_DMABUF handed this test the fd, and nothing else owns it.
    drop(unsafe {
        <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(export.dmabuf_fd as i32)
    });
    // A BO only the GPU saw does come back.
    let private = h.alloc_args(2 * PAGE, vram).unwrap();
    free(&h, private.handle);
    assert_eq!(h.dev.pooled_vram(), 2 * PAGE);
}

#[test]
fn map_unmap_free_and_their_errors() {
    let h = Harness::with_gpus(2);
    let a = h.alloc_args(2 * PAGE, GTT_FLAGS).unwrap();
    // Unknown handles: MAP/UNMAP say ENOMEM, FREE says EINVAL.
    let bogus = a.handle + 1000;
    assert_eq!(errno(h.map(bogus, &[h.gpu_id]).unwrap_err().1), ENOMEM);
    assert_eq!(errno(h.unmap(bogus, &[h.gpu_id]).unwrap_err()), ENOMEM);
    assert_eq!(
        errno(
            h.dev
                .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle: bogus })
                .unwrap_err()
        ),
        EINVAL
    );
    // Zero devices is EINVAL.
    assert_eq!(errno(h.map(a.handle, &[]).unwrap_err().1), EINVAL);
    // n_success counts the devices done before an unknown one.
    let (args, e) = h
        .map(a.handle, &[h.gpu_ids[0], 0xbeef, h.gpu_ids[1]])
        .unwrap_err();
    assert_eq!((errno(e), args.n_success), (EINVAL, 1));
    let inside = |gpu: u32| {
        h.dev
            .with_gpu_memory(gpu, |m| m.translate(a.va_addr, 8, Access::Read).is_ok())
            .unwrap()
    };
    assert!(inside(h.gpu_ids[0]));
    assert!(!inside(h.gpu_ids[1]));
    // Resuming from n_success maps the rest.
    let mut args = MapMemoryToGpuArgs {
        handle: a.handle,
        n_devices: 2,
        n_success: 1,
        ..Default::default()
    };
    h.dev.map_memory_to_gpu(&mut args, &h.gpu_ids).unwrap();
    assert_eq!(args.n_success, 2);
    assert!(inside(h.gpu_ids[1]));
    // An overlapping BO cannot be mapped.
    let mut b = AllocMemoryOfGpuArgs {
        va_addr: a.va_addr + PAGE,
        size: PAGE,
        gpu_id: h.gpu_id,
        flags: GTT_FLAGS,
        ..Default::default()
    };
    h.dev.alloc_memory_of_gpu(&mut b).unwrap();
    assert_eq!(errno(h.map(b.handle, &[h.gpu_id]).unwrap_err().1), EINVAL);
    h.unmap(a.handle, &[h.gpu_ids[1]]).unwrap();
    assert!(!inside(h.gpu_ids[1]));
    assert_eq!(
        errno(h.unmap(a.handle, &[h.gpu_ids[1]]).unwrap_err()),
        EINVAL,
        "not mapped there"
    );
    // FREE of a BO still mapped on a GPU is EBUSY and changes nothing:
    // the mapping and the handle stay.
    let free = |handle: u64| {
        h.dev
            .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle })
            .map_err(errno)
    };
    assert_eq!(free(a.handle), Err(EBUSY));
    assert!(inside(h.gpu_ids[0]));
    // Mapping again on a GPU it is mapped on succeeds and adds nothing: one
    // UNMAP undoes it.
    h.map(a.handle, &[h.gpu_ids[0]]).unwrap();
    h.unmap(a.handle, &[h.gpu_ids[0]]).unwrap();
    assert!(!inside(h.gpu_ids[0]));
    assert_eq!(free(a.handle), Ok(()));
    assert_eq!(errno(h.map(a.handle, &[h.gpu_id]).unwrap_err().1), ENOMEM);
    assert_eq!(free(a.handle), Err(EINVAL), "the handle is gone");
    assert_eq!(free(b.handle), Ok(()), "never mapped");
}

/// MAP/UNMAP device lists: n_success past n_devices is EINVAL, a list
/// shorter than n_devices is EFAULT, and an UNMAP fails at the first GPU
/// the BO is not mapped on, after unmapping the ones before it.
#[test]
fn device_list_rules_of_map_and_unmap() {
    let h = Harness::with_gpus(2);
    let a = h.alloc_args(PAGE, GTT_FLAGS).unwrap();
    let mut args = MapMemoryToGpuArgs {
        handle: a.handle,
        n_devices: 1,
        n_success: 2,
        ..Default::default()
    };
    let e = h.dev.map_memory_to_gpu(&mut args, &h.gpu_ids).unwrap_err();
    assert_eq!(errno(e), EINVAL);
    let e = h
        .dev
        .unmap_memory_from_gpu(&mut args, &h.gpu_ids)
        .unwrap_err();
    assert_eq!(errno(e), EINVAL);
    args.n_devices = 2;
    args.n_success = 0;
    let e = h
        .dev
        .map_memory_to_gpu(&mut args, &h.gpu_ids[..1])
        .unwrap_err();
    assert_eq!(errno(e), EFAULT);
    h.map(a.handle, &[h.gpu_ids[0]]).unwrap();
    let mut args = UnmapMemoryFromGpuArgs {
        handle: a.handle,
        n_devices: 2,
        ..Default::default()
    };
    let e = h
        .dev
        .unmap_memory_from_gpu(&mut args, &h.gpu_ids)
        .unwrap_err();
    assert_eq!((errno(e), args.n_success), (EINVAL, 1));
    h.dev
        .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle: a.handle })
        .expect("unmapped from the GPU it was mapped on");
}

#[test]
fn host_and_device_views_alias() {
    let h = Harness::new();
    let buf = h.buffer(2 * PAGE, GTT_FLAGS);
    let host = buf.atomic_u64(PAGE + 8);
    host.store(0x1122_3344_5566_7788, Ordering::Release);
    let seen = h
        .dev
        .with_gpu_memory(h.gpu_id, |m| {
            let p = m.translate(buf.va + PAGE + 8, 8, Access::Read).unwrap();
            // SAFETY: translate returned 8 valid bytes.
            let v = unsafe { std::ptr::read_unaligned(p as *const u64) };
            let w = m.translate(buf.va + 16, 4, Access::Write).unwrap();
            // SAFETY: as above, 4 writable bytes.
            unsafe { std::ptr::write_unaligned(w as *mut u32, 0xcafe_f00d) };
            v
        })
        .unwrap();
    assert_eq!(seen, 0x1122_3344_5566_7788);
    // SAFETY: the BO is mapped on the host at its VA.
    assert_eq!(
        unsafe { std::ptr::read_volatile(buf.ptr::<u32>(16)) },
        0xcafe_f00d
    );

    let fault = |addr: u64, len: u64, access: Access| {
        h.dev
            .with_gpu_memory(h.gpu_id, |m| m.translate(addr, len, access).err())
            .unwrap()
    };
    assert_eq!(
        fault(buf.va - 8, 8, Access::Read).map(|f| f.address),
        Some(buf.va - 8),
        "below the BO"
    );
    assert!(
        fault(buf.va + 2 * PAGE - 4, 8, Access::Read).is_some(),
        "straddles the end"
    );
    assert!(
        fault(buf.va + 2 * PAGE, 4, Access::Read).is_some(),
        "past the end"
    );
    assert!(fault(u64::MAX - 3, 8, Access::Read).is_some(), "wraps");
    assert!(fault(buf.va, 2 * PAGE, Access::Write).is_none(), "whole BO");
    // Read-only and non-executable BOs.
    let ro = h.buffer(PAGE, alloc_flags::GTT);
    assert!(fault(ro.va, 4, Access::Read).is_none());
    assert!(fault(ro.va, 4, Access::Write).is_some());
    assert!(fault(ro.va, 4, Access::Execute).is_some());
    // After UNMAP the device no longer sees it, the host still does.
    h.unmap(buf.handle, &[h.gpu_id]).unwrap();
    assert!(fault(buf.va + 16, 4, Access::Read).is_some());
    assert_eq!(host.load(Ordering::Acquire), 0x1122_3344_5566_7788);
}

#[test]
fn userptr_uses_the_callers_memory() {
    let h = Harness::new();
    let mut memory = vec![0u64; 1024];
    let cpu = memory.as_mut_ptr() as u64;
    let aligned = cpu.next_multiple_of(PAGE);
    let gpu_va = reserve_va(PAGE);
    let mut a = AllocMemoryOfGpuArgs {
        va_addr: gpu_va,
        size: PAGE,
        gpu_id: h.gpu_id,
        flags: alloc_flags::USERPTR | alloc_flags::WRITABLE,
        mmap_offset: aligned,
        ..Default::default()
    };
    h.dev.alloc_memory_of_gpu(&mut a).unwrap();
    h.map(a.handle, &[h.gpu_id]).unwrap();
    let index = ((aligned - cpu) / 8) as usize + 3;
    memory[index] = 77;
    let v = h.dev.with_gpu_memory(h.gpu_id, |m| {
        let p = m.translate(gpu_va + 24, 8, Access::Read).unwrap();
        // SAFETY: 8 valid bytes of the caller's vector.
        unsafe { std::ptr::read_unaligned(p as *const u64) }
    });
    assert_eq!(v, Some(77));
    h.unmap(a.handle, &[h.gpu_id]).unwrap();
    h.dev
        .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle: a.handle })
        .unwrap();
}

#[test]
fn events_set_wait_timeout_and_reset() {
    let h = Harness::new();
    let (_signals, first) = Signals::new(&h);
    let auto = first.event_id;
    let manual = h.create_event(event_type::SIGNAL, false).event_id;
    assert_ne!(auto, manual);

    // Poll with nothing set: timeout.
    assert_eq!(h.wait(&[auto], false, 0).0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    let t = Instant::now();
    assert_eq!(h.wait(&[auto], false, 30).0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    assert!(t.elapsed() >= Duration::from_millis(30));

    // Auto-reset: one wait consumes the set.
    h.set_event(auto);
    assert_eq!(h.wait(&[auto], false, 0).0, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(h.wait(&[auto], false, 0).0, KFD_IOC_WAIT_RESULT_TIMEOUT);

    // Manual reset: stays signaled until RESET_EVENT.
    h.set_event(manual);
    assert_eq!(h.wait(&[manual], false, 0).0, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(h.wait(&[manual], false, 0).0, KFD_IOC_WAIT_RESULT_COMPLETE);
    h.dev
        .reset_event(&mut ResetEventArgs {
            event_id: manual,
            pad: 0,
        })
        .unwrap();
    assert_eq!(h.wait(&[manual], false, 0).0, KFD_IOC_WAIT_RESULT_TIMEOUT);

    // Wait-all needs every event; wait-any one.
    h.set_event(manual);
    assert_eq!(
        h.wait(&[auto, manual], true, 0).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    assert_eq!(
        h.wait(&[auto, manual], false, 0).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );

    // Event ages: a stale age returns at once.
    let (_, data) = h.wait(&[manual], false, 0);
    let age = data[0].last_event_age();
    assert!(age > 1);
    h.dev
        .reset_event(&mut ResetEventArgs {
            event_id: manual,
            pad: 0,
        })
        .unwrap();
    let mut d = [KfdEventData::for_event(manual)];
    d[0].set_last_event_age(age - 1);
    let mut args = WaitEventsArgs {
        num_events: 1,
        timeout_ms: 0,
        ..Default::default()
    };
    h.dev.wait_events(&mut args, &mut d).unwrap();
    assert_eq!(args.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);

    // Unknown ids and CPU-setting a MEMORY event are EINVAL.
    let mem = h.create_event(event_type::MEMORY, false).event_id;
    assert!(mem >= 0x8000_0000);
    assert_eq!(
        errno(
            h.dev
                .set_event(&mut SetEventArgs {
                    event_id: mem,
                    pad: 0
                })
                .unwrap_err()
        ),
        EINVAL
    );
    assert_eq!(
        errno(
            h.dev
                .set_event(&mut SetEventArgs {
                    event_id: 4000,
                    pad: 0
                })
                .unwrap_err()
        ),
        EINVAL
    );
    h.dev
        .destroy_event(&mut DestroyEventArgs {
            event_id: manual,
            pad: 0,
        })
        .unwrap();
    assert_eq!(
        errno(
            h.dev
                .destroy_event(&mut DestroyEventArgs {
                    event_id: manual,
                    pad: 0
                })
                .unwrap_err()
        ),
        EINVAL
    );
}

#[test]
fn a_blocked_wait_any_wakes_on_a_set_from_another_thread() {
    let h = Harness::new();
    let (_signals, first) = Signals::new(&h);
    let ids: Vec<u32> = std::iter::once(first.event_id)
        .chain((0..3).map(|_| h.create_event(event_type::SIGNAL, true).event_id))
        .collect();
    let dev = h.dev.clone();
    let target = ids[2];
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(40));
        dev.set_event(&mut SetEventArgs {
            event_id: target,
            pad: 0,
        })
        .unwrap();
    });
    let t = Instant::now();
    let (result, _) = h.wait(&ids, false, u32::MAX);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert!(t.elapsed() >= Duration::from_millis(35));
    setter.join().unwrap();
    // Only the set one fired.
    assert_eq!(h.wait(&ids, false, 0).0, KFD_IOC_WAIT_RESULT_TIMEOUT);
}

/// Blocked waiters on different events: sets of other events leave a
/// waiter blocked (a set wakes only that event's waiters, as kfd_events.c
/// `set_event` wakes the event's own wait queue), its own set or its
/// event's destruction ends its wait, and each ended wait unregisters.
#[test]
fn a_blocked_wait_ends_on_its_own_events_only() {
    let h = Harness::new();
    let [a, b, c] = [0; 3].map(|_| h.create_event(event_type::SIGNAL, true).event_id);
    let set = |id| {
        h.dev
            .set_event(&mut SetEventArgs {
                event_id: id,
                pad: 0,
            })
            .unwrap()
    };
    let waits = [a, b].map(|id| {
        let dev = h.dev.clone();
        std::thread::spawn(move || {
            let mut data = [KfdEventData {
                event_id: id,
                ..Default::default()
            }];
            let mut args = WaitEventsArgs {
                events_ptr: 0,
                num_events: 1,
                wait_for_all: 0,
                timeout_ms: u32::MAX,
                wait_result: 0,
            };
            dev.wait_events(&mut args, &mut data).unwrap();
            args.wait_result
        })
    });
    std::thread::sleep(Duration::from_millis(30));
    for _ in 0..50 {
        set(c);
    }
    std::thread::sleep(Duration::from_millis(30));
    assert!(
        !waits.iter().any(|w| w.is_finished()),
        "a set of c ended a wait"
    );
    set(a);
    let [wait_a, wait_b] = waits;
    assert_eq!(wait_a.join().unwrap(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert!(!wait_b.is_finished());
    h.dev
        .destroy_event(&mut DestroyEventArgs {
            event_id: b,
            pad: 0,
        })
        .unwrap();
    assert_eq!(wait_b.join().unwrap(), KFD_IOC_WAIT_RESULT_FAIL);
    // Consumed and unregistered: polls see nothing pending.
    assert_eq!(h.wait(&[a], false, 0).0, KFD_IOC_WAIT_RESULT_TIMEOUT);
    assert_eq!(h.wait(&[c], false, 0).0, KFD_IOC_WAIT_RESULT_COMPLETE);
}

#[test]
fn event_page_handle_and_slots() {
    let h = Harness::new();
    let (signals, first) = Signals::new(&h);
    assert_eq!(first.event_page_offset, mmap_offset::TYPE_EVENTS);
    assert_eq!(first.event_slot_index, first.event_id);
    assert_eq!(first.event_trigger_data, first.event_id);
    // The slot was set to "unsignaled".
    assert_eq!(
        signals
            .event_page
            .atomic_u64(first.event_slot_index as u64 * 8)
            .load(Ordering::Acquire),
        u64::MAX
    );
    // A second page handle is refused.
    let mut again = CreateEventArgs {
        event_page_offset: signals.memory.handle,
        event_type: event_type::SIGNAL,
        ..Default::default()
    };
    assert_eq!(errno(h.dev.create_event(&mut again).unwrap_err()), EINVAL);
    // The registered page stays until the process ends: FREE is EPERM, even
    // once it is unmapped (kfd_ioctl_free_memory_of_gpu's first check).
    let free = |handle: u64| {
        h.dev
            .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle })
            .map_err(errno)
    };
    assert_eq!(free(signals.event_page.handle), Err(EPERM));
    h.unmap(signals.event_page.handle, &[h.gpu_id]).unwrap();
    assert_eq!(free(signals.event_page.handle), Err(EPERM));
}

/// kfd_queue.c `kfd_queue_acquire_buffers` / `kfd_queue_buffer_get`: each
/// queue buffer is the mapping that starts in its page with exactly the
/// expected number of pages; the queue holds them (UNMAP is EBUSY,
/// amdgpu_amdkfd_gpuvm.c `unmap_bo_from_gpuvm`) until it is destroyed;
/// UPDATE_QUEUE moves the hold to the new ring (kfd_process_queue_manager.c
/// `pqm_update_queue_properties`, EFAULT for an unknown queue or ring).
#[test]
fn queue_buffers_are_found_exactly_and_held_while_the_queue_lives() {
    let h = Harness::new();
    let ring = h.buffer(PAGE, GTT_FLAGS);
    let amd_queue = h.buffer(PAGE, GTT_FLAGS);
    let good = TestQueue::args(&h, &ring, PAGE, &amd_queue);
    let create = |args: &mut CreateQueueArgs| h.dev.create_queue(args).map_err(errno);
    let big_page = h.buffer(2 * PAGE, GTT_FLAGS);
    let mut a = good;
    a.read_pointer_address = big_page.va + 128;
    assert_eq!(create(&mut a), Err(EINVAL), "read pointer in a two-page BO");
    let mut a = good;
    a.write_pointer_address = big_page.va + PAGE + 56;
    assert_eq!(
        create(&mut a),
        Err(EINVAL),
        "write pointer past its BO's first page"
    );
    let mut a = good;
    a.ctx_save_restore_address = h.buffer(h.cwsr.total_size() + PAGE, GTT_FLAGS).va;
    assert_eq!(
        create(&mut a),
        Err(EINVAL),
        "context-save BO larger than the area"
    );
    let mut a = good;
    a.eop_buffer_address = h.buffer(2 * PAGE, GTT_FLAGS).va;
    assert_eq!(
        create(&mut a),
        Err(EINVAL),
        "EOP BO larger than the EOP size"
    );

    // No EOP buffer is allowed ("not required for all ASICs").
    let mut no_eop = TestQueue::args(
        &h,
        &h.buffer(PAGE, GTT_FLAGS),
        PAGE,
        &h.buffer(PAGE, GTT_FLAGS),
    );
    no_eop.eop_buffer_address = 0;
    no_eop.eop_buffer_size = 0;
    create(&mut no_eop).expect("a queue without an EOP buffer");

    let mut args = good;
    create(&mut args).expect("create");
    assert_eq!(h.unmap(ring.handle, &[h.gpu_id]).map_err(errno), Err(EBUSY));
    assert_eq!(
        h.unmap(amd_queue.handle, &[h.gpu_id]).map_err(errno),
        Err(EBUSY)
    );

    // UPDATE_QUEUE: unknown queue and unmapped ring are EFAULT.
    let mut update = UpdateQueueArgs {
        ring_base_address: ring.va,
        queue_id: 60,
        ring_size: PAGE as u32,
        queue_percentage: 100,
        queue_priority: 3,
    };
    assert_eq!(h.dev.update_queue(&mut update).map_err(errno), Err(EFAULT));
    update.queue_id = args.queue_id;
    update.ring_base_address = reserve_va(PAGE);
    assert_eq!(h.dev.update_queue(&mut update).map_err(errno), Err(EFAULT));
    // Moving to a new ring releases the old one and holds the new one.
    let ring2 = h.buffer(PAGE, GTT_FLAGS);
    update.ring_base_address = ring2.va;
    h.dev.update_queue(&mut update).unwrap();
    assert_eq!(
        h.unmap(ring2.handle, &[h.gpu_id]).map_err(errno),
        Err(EBUSY)
    );
    h.unmap(ring.handle, &[h.gpu_id])
        .expect("the old ring is free to unmap");

    h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: args.queue_id,
            pad: 0,
        })
        .unwrap();
    h.unmap(ring2.handle, &[h.gpu_id])
        .expect("unmap after destroy");
    h.unmap(amd_queue.handle, &[h.gpu_id])
        .expect("unmap after destroy");
}

#[test]
fn create_queue_checks_its_buffers() {
    let h = Harness::new();
    let ring = h.buffer(PAGE, GTT_FLAGS);
    let amd_queue = h.buffer(PAGE, GTT_FLAGS);
    let good = TestQueue::args(&h, &ring, PAGE, &amd_queue);
    let expect_einval = |what: &str, f: &dyn Fn(&mut CreateQueueArgs)| {
        let mut args = good;
        f(&mut args);
        let e = h.dev.create_queue(&mut args).expect_err(what);
        assert_eq!(errno(e), EINVAL, "{what}");
    };
    expect_einval("non-power-of-two ring", &|a| a.ring_size = 3000);
    expect_einval("ring size differs from the BO", &|a| {
        a.ring_size = 2 * PAGE as u32
    });
    expect_einval("unmapped ring", &|a| a.ring_base_address = reserve_va(PAGE));
    // kfd_queue_buffer_get compares pages: an offset inside the first page
    // is the driver's business, a ring starting in a later page is not.
    let two_pages = h.buffer(2 * PAGE, GTT_FLAGS);
    expect_einval("ring not in its BO's first page", &|a| {
        a.ring_base_address = two_pages.va + PAGE;
        a.ring_size = 2 * PAGE as u32;
    });
    expect_einval("wrong EOP size", &|a| a.eop_buffer_size = 8192);
    expect_einval("unmapped EOP", &|a| a.eop_buffer_address = reserve_va(PAGE));
    expect_einval("wrong ctx save size", &|a| a.ctx_save_restore_size += 4096);
    expect_einval("wrong ctl stack size", &|a| a.ctl_stack_size = 4096);
    expect_einval("ctx save BO too small", &|a| {
        a.ctx_save_restore_address = ring.va
    });
    expect_einval("unmapped read pointer", &|a| {
        a.read_pointer_address = reserve_va(PAGE)
    });
    expect_einval("percentage", &|a| a.queue_percentage = 101);
    expect_einval("priority", &|a| a.queue_priority = 16);
    expect_einval("XGMI SDMA queue (no XGMI engines)", &|a| {
        a.queue_type = KFD_IOC_QUEUE_TYPE_SDMA_XGMI
    });
    expect_einval("unknown queue type", &|a| a.queue_type = 9);
    expect_einval("unknown gpu", &|a| a.gpu_id = 0x1234);

    let mut args = good;
    h.dev.create_queue(&mut args).unwrap();
    assert_eq!(
        args.doorbell_offset & mmap_offset::TYPE_MASK,
        mmap_offset::TYPE_DOORBELL
    );
    assert_eq!(mmap_offset::get_gpu_id(args.doorbell_offset), h.gpu_id);
    assert_eq!(args.doorbell_offset & 0x1fff, 0, "first queue: doorbell 0");
    let mut second = TestQueue::args(
        &h,
        &h.buffer(PAGE, GTT_FLAGS),
        PAGE,
        &h.buffer(PAGE, GTT_FLAGS),
    );
    h.dev.create_queue(&mut second).unwrap();
    assert_ne!(second.queue_id, args.queue_id);
    assert_eq!(second.doorbell_offset & 0x1fff, 8);
    // UPDATE_QUEUE checks too; DESTROY of an unknown queue is EINVAL.
    let mut update = UpdateQueueArgs {
        ring_base_address: ring.va,
        queue_id: args.queue_id,
        ring_size: PAGE as u32,
        queue_percentage: 100,
        queue_priority: 20,
    };
    assert_eq!(errno(h.dev.update_queue(&mut update).unwrap_err()), EINVAL);
    update.queue_priority = 3;
    h.dev.update_queue(&mut update).unwrap();
    h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: args.queue_id,
            pad: 0,
        })
        .unwrap();
    assert_eq!(
        errno(
            h.dev
                .destroy_queue(&mut DestroyQueueArgs {
                    queue_id: args.queue_id,
                    pad: 0
                })
                .unwrap_err()
        ),
        EINVAL
    );
}

/// Older KFD interfaces (Linux `kfd_ioctl.h` version history): GET_VERSION
/// reports the presented version, EXPORT_DMABUF (1.12) is an unknown ioctl
/// before 1.12 (EINVAL), and WAIT_EVENTS ignores `last_event_age` before
/// 1.14, so a stale age no longer ends a wait at once.
#[test]
fn older_kfd_versions_lack_what_their_kernels_lacked() {
    let version_of = |minor: u32| {
        Harness::with_config(SimConfig {
            threads: 1,
            kfd_minor_version: minor,
            ..SimConfig::default()
        })
    };
    let err = SimDevice::new(SimConfig {
        kfd_minor_version: 10,
        ..SimConfig::default()
    })
    .map(|_| ())
    .unwrap_err();
    assert!(
        matches!(
            err,
            KfdError::NoDevice(NoDeviceError::KfdVersion {
                requested: 10,
                min: 11,
                ..
            })
        ),
        "{err}"
    );
    for minor in [11, 13, 14, 17] {
        let h = version_of(minor);
        let mut version = GetVersionArgs::default();
        h.dev.get_version(&mut version).unwrap();
        assert_eq!((version.major_version, version.minor_version), (1, minor));

        let bo = h.buffer(PAGE, GTT_FLAGS);
        let export = h
            .dev
            .export_dmabuf(&mut ExportDmabufArgs {
                handle: bo.handle,
                flags: DMABUF_EXPORT_CLOEXEC,
                ..Default::default()
            })
            .map_err(errno);
        if minor < 12 {
            assert_eq!(export, Err(EINVAL), "1.{minor}");
        } else {
            assert_eq!(export, Ok(()), "1.{minor}");
        }

        // Set, then consume; a wait passing the age it saw before that set
        // ends at once from 1.14 on and times out before.
        let (_signals, event) = Signals::new(&h);
        let id = event.event_id;
        h.set_event(id);
        let (result, data) = h.wait(&[id], false, 0);
        assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
        let returned_age = data[0].last_event_age();
        let mut stale = vec![KfdEventData::for_event(id)];
        stale[0].set_last_event_age(1);
        let mut args = WaitEventsArgs {
            num_events: 1,
            timeout_ms: 0,
            ..Default::default()
        };
        h.dev.wait_events(&mut args, &mut stale).unwrap();
        if minor >= 14 {
            assert_eq!(returned_age, 2, "1.{minor}: the age after one set");
            assert_eq!(args.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE, "1.{minor}");
        } else {
            assert_eq!(returned_age, 0, "1.{minor}: no age comes back");
            assert_eq!(args.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT, "1.{minor}");
        }
    }
}

/// kfd_chardev.c `kfd_ioctl_acquire_vm`: the process device keeps the first
/// render-node file it was given; the same fd again succeeds, another fd of
/// the same GPU is EBUSY, and an fd that is no open file is EINVAL.
#[test]
fn acquire_vm_binds_one_render_node_file_per_gpu() {
    let h = Harness::new();
    let topology = h.dev.topology().unwrap();
    let node = topology.gpu_nodes().next().unwrap();
    let minor = node.drm_render_minor().unwrap();
    let acquire = |drm_fd: u32| {
        h.dev
            .acquire_vm(&mut AcquireVmArgs {
                drm_fd,
                gpu_id: node.gpu_id,
            })
            .map_err(errno)
    };
    let second = h.dev.open_render_node(minor).unwrap();
    assert_eq!(acquire(second), Err(EBUSY), "another file of the same GPU");
    assert_eq!(acquire(9999), Err(EINVAL), "not an open file");
}
