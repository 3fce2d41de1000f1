//! The runtime's side of the KFD boundary, against a fake KFD that keeps
//! books and validates like the kernel: init sequence, BO flags and
//! mappings, allocation lifetime, signals, queue creation and submission,
//! queue-error reporting and recovery, executable loading.

use std::sync::Arc;
use std::time::Duration;

use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::queue::aql_queue::{
    QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET, QUEUE_PAGE_ERROR_REASON_OFFSET,
};
use aqueduct_hsa::queue::packet::PacketFence;
use aqueduct_hsa::runtime::{DOORBELL_PAGE_FLAGS, EVENT_PAGE_FLAGS, EVENT_PAGE_SIZE};
use aqueduct_hsa::{
    AllocOptions, ExecutableError, HsaError, KernelDispatch, MemoryError, MemoryOrder,
    QueueCreationError, QueueErrorReason, Runtime, RuntimeOptions, WaitCondition, WaitHint,
};
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::{AmdQueue, AmdSignal, KernelDispatchPacket, RawPacket};
use aqueduct_kfd::uapi::{
    MemoryExceptionData, UserContextSaveAreaHeader, alloc_flags, event_type, exception_code,
};
use aqueduct_test_harness::fake_kfd::FakeKfd;
use aqueduct_test_harness::topology::topology;

const GPU: (u32, u64) = (0x4242, 0x0123_4567_89ab_cdef);

fn options() -> RuntimeOptions {
    RuntimeOptions {
        visible_devices: None,
        aperture_size: 8 << 30,
    }
}

fn runtime() -> (Arc<Runtime>, Arc<FakeKfd>) {
    let fake = Arc::new(FakeKfd::new(topology(&[GPU])));
    let device: Arc<dyn KfdDevice> = fake.clone();
    (Runtime::with_options(device, options()).unwrap(), fake)
}

fn read<T: bytemuck::Pod>(va: u64) -> T {
    // SAFETY: tests read host-mapped BOs the runtime keeps alive.
    unsafe { std::ptr::read_volatile(va as *const T) }
}

#[test]
fn init_sequence() {
    let (rt, fake) = runtime();
    assert_eq!(rt.kfd_version(), (1, 17));
    let st = fake.state.lock().unwrap();
    assert_eq!(
        st.acquired_vms,
        vec![(1000 + 129, GPU.0)],
        "render node of node 1 opened and ACQUIRE_VM'd"
    );

    let pages: Vec<_> = st
        .bos
        .values()
        .filter(|b| b.flags == EVENT_PAGE_FLAGS)
        .collect();
    assert_eq!(pages.len(), 1);
    assert_eq!(
        EVENT_PAGE_FLAGS,
        alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT | alloc_flags::UNCACHED
    );
    assert_eq!(
        (pages[0].size, pages[0].host_mapped),
        (EVENT_PAGE_SIZE, true)
    );
    assert_eq!(pages[0].mapped_on, vec![GPU.0]);
    assert_eq!(
        st.first_event_page_offset,
        Some(pages[0].handle),
        "first CREATE_EVENT carries the page handle"
    );

    let bells: Vec<_> = st
        .bos
        .values()
        .filter(|b| b.flags == DOORBELL_PAGE_FLAGS)
        .collect();
    assert_eq!(bells.len(), 1);
    assert_eq!(
        (bells[0].size, bells[0].host_mapped, bells[0].gpu_id),
        (8192, true, GPU.0)
    );
    drop(st);
    assert_eq!(fake.events.events_of_type(event_type::MEMORY).len(), 1);
    assert_eq!(
        fake.events.events_of_type(event_type::HW_EXCEPTION).len(),
        1
    );

    let (base, size) = rt.aperture();
    assert_eq!((base % (2 << 20), size), (0, 8 << 30));
    let gpu = rt.gpu_agent(0).unwrap();
    assert_eq!(
        (gpu.name.as_str(), gpu.gpu_id, gpu.gpu_ordinal),
        ("gfx1100", GPU.0, Some(0))
    );
    assert_eq!(
        rt.agent_by_uuid("GPU-0123456789abcdef").unwrap().gpu_id,
        GPU.0
    );
    assert_eq!(rt.cpu_agents().count(), 1);
    assert!(
        rt.pools(rt.cpu_agents().next().unwrap()).is_err(),
        "CPU agents have no GPU pools here"
    );
}

#[test]
fn init_rejects_bad_versions_and_no_gpus() {
    let mut fake = FakeKfd::new(topology(&[GPU]));
    fake.version = (2, 0);
    let r = Runtime::with_options(Arc::new(fake), options());
    assert!(
        matches!(r, Err(HsaError::UnsupportedKfdVersion { major: 2, .. })),
        "{r:?}"
    );
    // 1.10 predates the oldest interface the runtime is tested against;
    // the error names the version it needs.
    let mut fake = FakeKfd::new(topology(&[GPU]));
    fake.version = (1, 10);
    let r = Runtime::with_options(Arc::new(fake), options());
    match r {
        Err(
            e @ HsaError::UnsupportedKfdVersion {
                major: 1,
                minor: 10,
                oldest_minor: 11,
            },
        ) => assert!(e.to_string().contains("needs 1.11 or newer"), "{e}"),
        other => panic!("{other:?}"),
    }
    let r = Runtime::with_options(Arc::new(FakeKfd::new(topology(&[]))), options());
    assert!(matches!(r, Err(HsaError::NoGpuAgent)), "{r:?}");
    let hidden = RuntimeOptions {
        visible_devices: Some(String::new()),
        ..options()
    };
    let r = Runtime::with_options(Arc::new(FakeKfd::new(topology(&[GPU]))), hidden);
    assert!(matches!(r, Err(HsaError::NoGpuAgent)), "{r:?}");
}

#[test]
fn visible_devices_select_and_reorder_agents() {
    let fake = Arc::new(FakeKfd::new(topology(&[(0x10, 1), (0x20, 2), (0x30, 3)])));
    let only = RuntimeOptions {
        visible_devices: Some("2,0".into()),
        ..options()
    };
    let rt = Runtime::with_options(fake.clone(), only).unwrap();
    let ids: Vec<u32> = rt.gpu_agents().map(|a| a.gpu_id).collect();
    assert_eq!(ids, vec![0x30, 0x10]);
    let vms: Vec<u32> = fake
        .state
        .lock()
        .unwrap()
        .acquired_vms
        .iter()
        .map(|v| v.1)
        .collect();
    assert_eq!(vms, vec![0x30, 0x10], "only visible GPUs are acquired");
}

#[test]
fn pools_and_allocations() {
    let (rt, fake) = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    let pools = rt.pools(&gpu).unwrap();
    let kinds: Vec<PoolKind> = pools.iter().map(|p| p.kind()).collect();
    assert_eq!(
        kinds,
        vec![
            PoolKind::CoarseDevice,
            PoolKind::FineSystem,
            PoolKind::Kernarg
        ]
    );
    let coarse = pools[0].info();
    assert_eq!(
        (
            coarse.size,
            coarse.fine_grained,
            coarse.host_accessible,
            coarse.alloc_granule
        ),
        (24 << 30, false, false, 4096)
    );
    let kernarg = pools[2].info();
    assert_eq!(
        (
            kernarg.size,
            kernarg.fine_grained,
            kernarg.kernarg,
            kernarg.host_accessible
        ),
        (32 << 30, true, true, true)
    );

    let mut fine = pools[1].allocate(10_000).unwrap();
    assert_eq!((fine.len(), fine.reserved_len()), (10_000, 12_288));
    let bo = fake.bo_at(fine.gpu_va()).unwrap();
    assert_eq!(
        bo.flags,
        alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT
    );
    assert_eq!(
        (bo.size, bo.mapped_on.clone(), bo.host_mapped),
        (12_288, vec![GPU.0], true)
    );
    fine.as_mut_slice().unwrap()[9_999] = 0xa5;
    assert_eq!(read::<u8>(fine.gpu_va() + 9_999), 0xa5, "CPU VA == GPU VA");

    let vram = pools[0].allocate(3 << 20).unwrap();
    let bo = fake.bo_at(vram.gpu_va()).unwrap();
    assert_eq!(
        bo.flags,
        alloc_flags::VRAM | alloc_flags::WRITABLE | alloc_flags::NO_SUBSTITUTE
    );
    assert!(!bo.host_mapped && vram.host_ptr().is_none() && vram.as_slice().is_none());
    assert_eq!(
        vram.gpu_va() % (2 << 20),
        0,
        "large allocations are 2 MiB aligned"
    );

    let visible = pools[0]
        .allocate_with(
            4096,
            &AllocOptions {
                host_access: true,
                executable: true,
                alignment: 1 << 16,
            },
        )
        .unwrap();
    let bo = fake.bo_at(visible.gpu_va()).unwrap();
    assert_eq!(
        bo.flags & (alloc_flags::PUBLIC | alloc_flags::EXECUTABLE),
        alloc_flags::PUBLIC | alloc_flags::EXECUTABLE
    );
    assert!(bo.host_mapped && visible.gpu_va() % (1 << 16) == 0);

    assert!(matches!(
        pools[1].allocate(0),
        Err(HsaError::Memory(MemoryError::ZeroSize { pool })) if pool == pools[1].kind()
    ));
    assert!(matches!(
        pools[0].allocate(25 << 30),
        Err(HsaError::Memory(MemoryError::ExceedsPool { size, pool, .. }))
            if size == 25 << 30 && pool == pools[0].kind()
    ));
    assert!(matches!(
        pools[1].allocate(33 << 30),
        Err(HsaError::Memory(MemoryError::ExceedsPool { size, pool, .. }))
            if size == 33 << 30 && pool == pools[1].kind()
    ));

    // Drop = UNMAP + FREE; the VA is reused.
    let (va, handle) = (fine.gpu_va(), fine.kfd_handle());
    drop(fine);
    let freed = fake
        .state
        .lock()
        .unwrap()
        .freed
        .iter()
        .find(|b| b.handle == handle)
        .cloned()
        .unwrap();
    assert!(freed.mapped_on.is_empty());
    let again = pools[1].allocate(4096).unwrap();
    assert_eq!(again.gpu_va(), va, "first fit reuses the freed range");

    // allow_access maps on more GPUs (here: the same one again is a no-op).
    rt.allow_access(&vram, &[&gpu]).unwrap();
    assert_eq!(vram.mapped_gpus(), vec![GPU.0]);
}

#[test]
fn kernarg_blocks_and_signals_come_from_slabs() {
    let (rt, fake) = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    let region = rt.kernargs(&gpu).unwrap();
    let mut a = region.allocate(24).unwrap();
    let b = region.allocate(200).unwrap();
    assert_eq!(a.gpu_va() % 64, 0);
    assert_eq!(
        b.gpu_va(),
        a.gpu_va() + 64,
        "blocks are packed in 64-byte granules"
    );
    assert_eq!(region.slab_count(), 1);
    a.as_mut_slice().copy_from_slice(&[7; 24]);
    assert_eq!(read::<[u8; 24]>(a.gpu_va()), [7; 24]);
    assert!(matches!(
        region.allocate(64 << 10),
        Err(HsaError::Memory(MemoryError::BlockSize {
            size: 0x1_0000,
            max: 0x1_0000
        }))
    ));
    drop(a);
    assert_eq!(region.used_granules(), 4);

    let s = rt.create_signal(3).unwrap();
    let amd: AmdSignal = read(s.handle());
    assert_eq!((amd.kind, amd.value), (1, 3));
    let event_id = s.event_id().unwrap();
    assert_eq!(amd.event_id, event_id);
    let page = fake.bos_with_flags(EVENT_PAGE_FLAGS)[0].va;
    assert_eq!(
        amd.event_mailbox_ptr,
        page + event_id as u64 * 8,
        "mailbox = page + slot * 8"
    );
    let slab = fake.bo_at(s.handle() & !0xfff).or_else(|| {
        let st = fake.state.lock().unwrap();
        st.bos
            .values()
            .find(|b| b.va <= s.handle() && s.handle() < b.va + b.size)
            .cloned()
    });
    assert_eq!(
        slab.unwrap().mapped_on,
        vec![GPU.0],
        "signal slabs are mapped on every GPU"
    );

    let t = {
        let s = s.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            s.sub(3, MemoryOrder::Release);
        })
    };
    assert_eq!(
        s.wait(
            WaitCondition::Eq,
            0,
            Some(Duration::from_secs(5)),
            WaitHint::Blocked
        )
        .unwrap(),
        0
    );
    t.join().unwrap();
}

#[test]
fn queue_creation_submission_and_recovery() {
    let (rt, fake) = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    assert!(matches!(
        rt.create_queue(&gpu, 100),
        Err(HsaError::QueueCreation(QueueCreationError::PacketCount {
            packets: 100,
            ..
        }))
    ));
    assert!(matches!(
        rt.create_queue(&gpu, 32),
        Err(HsaError::QueueCreation(QueueCreationError::PacketCount {
            packets: 32,
            ..
        }))
    ));
    let q = rt.create_queue(&gpu, 128).unwrap();
    let qid = q.id();
    let args = fake.state.lock().unwrap().queues[&qid];
    assert_eq!(args.ring_size, 128 * 64);
    assert_eq!((args.queue_percentage, args.queue_priority), (100, 7));
    assert_eq!(args.write_pointer_address, q.amd_queue_va() + 56);
    assert_eq!(args.read_pointer_address, q.amd_queue_va() + 128);
    let eop = fake.bo_at(args.eop_buffer_address).unwrap();
    assert_eq!(eop.flags & alloc_flags::VRAM, alloc_flags::VRAM);

    let amd: AmdQueue = read(q.amd_queue_va());
    assert_eq!(
        (amd.queue_type, amd.features, amd.size, amd.id),
        (0, 1, 128, qid as u64)
    );
    assert_eq!(amd.base_address, q.ring_va());
    assert_eq!(amd.read_dispatch_id_field_base_byte_offset, 128);
    assert_eq!(amd.queue_properties, 2, "IS_PTR64");
    assert_eq!((amd.max_cu_id, amd.max_wave_id), (95, 31));
    assert_eq!(
        (
            amd.group_segment_aperture_base_hi,
            amd.private_segment_aperture_base_hi
        ),
        (0x10000, 0x20000)
    );
    assert_eq!(
        amd.doorbell_signal,
        q.amd_queue_va() + QUEUE_PAGE_DOORBELL_SIGNAL_OFFSET
    );
    let bell: AmdSignal = read(amd.doorbell_signal);
    let page = fake.bos_with_flags(DOORBELL_PAGE_FLAGS)[0].va;
    assert_eq!((bell.kind, bell.value as u64), (-1, page + qid as u64 * 8));
    assert_eq!(q.doorbell_va(), page + qid as u64 * 8);
    for i in 0..128 {
        assert_eq!(
            read::<u16>(q.ring_va() + i * 64),
            1,
            "slot {i} starts INVALID"
        );
    }
    let header: UserContextSaveAreaHeader = read(args.ctx_save_restore_address);
    assert_eq!(
        header.error_reason,
        q.amd_queue_va() + QUEUE_PAGE_ERROR_REASON_OFFSET
    );
    let cwsr = gpu.cwsr_sizes.unwrap();
    assert_eq!(
        (header.debug_offset, header.debug_size),
        (cwsr.cwsr_size, cwsr.debug_memory_size)
    );
    assert!(
        fake.events
            .events_of_type(event_type::SIGNAL)
            .contains(&header.error_event_id)
    );

    // Submission: packet in slot, doorbell rung with its id.
    let done = rt.create_signal(1).unwrap();
    let mut d = KernelDispatch::new(0x10_0000, 0x20_0000, [64, 1, 1], [64, 1, 1]);
    d.completion_signal = done.handle();
    let packet = d.to_packet().unwrap();
    assert_eq!(q.submit_dispatch(&packet).unwrap(), 0);
    assert_eq!(read::<KernelDispatchPacket>(q.ring_va()), packet);
    assert_eq!(q.submit_barrier_and(&[&done], None).unwrap(), 1);
    let mut r = q.reserve(3).unwrap();
    assert_eq!(r.index(0), 2);
    r.write(1, &packet).unwrap();
    assert!(r.write(1, &packet).is_err(), "a slot publishes once");
    assert!(r.write(3, &packet).is_err());
    r.commit();
    assert_eq!(
        read::<u16>(q.ring_va() + 2 * 64),
        0x0003,
        "unwritten slots become no-op barrier-ANDs"
    );
    let bells: Vec<(u64, u64)> = fake.state.lock().unwrap().doorbells.clone();
    assert_eq!(
        bells,
        vec![
            (q.doorbell_va(), 0),
            (q.doorbell_va(), 1),
            (q.doorbell_va(), 4)
        ]
    );
    assert_eq!(q.write_index(), 5);
    assert!(q.error().is_none());

    // A run: one packet image published into consecutive slots.
    let raw: RawPacket = bytemuck::cast(packet);
    let mut r = q.reserve(4).unwrap();
    assert!(
        r.write_repeated(1, 4, &raw).is_err(),
        "past the reservation"
    );
    r.write(2, &packet).unwrap();
    assert!(
        r.write_repeated(0, 3, &raw).is_err(),
        "over a published slot"
    );
    r.write_repeated(0, 2, &raw).unwrap();
    assert!(
        r.write_repeated(1, 1, &raw).is_err(),
        "a slot publishes once"
    );
    r.commit();
    for i in 5..8 {
        assert_eq!(read::<RawPacket>(q.ring_va() + i * 64), raw, "slot {i}");
    }
    assert_eq!(
        read::<u16>(q.ring_va() + 8 * 64),
        0x0003,
        "unwritten: no-op"
    );
    assert_eq!(q.write_index(), 9);

    // A profiled run: the same image, each copy completing its own signal
    // (the last 8 bytes of every AQL packet format).
    let mut r = q.reserve(4).unwrap();
    assert!(
        r.write_repeated_signalled(2, 3, &raw, 0x1000, 64).is_err(),
        "past the reservation"
    );
    r.write_repeated_signalled(1, 3, &raw, 0x1000, 64).unwrap();
    assert!(
        r.write_repeated_signalled(0, 2, &raw, 0x2000, 64).is_err(),
        "over a published slot"
    );
    r.commit();
    for (k, i) in (10..13u64).enumerate() {
        let mut want = raw;
        want.0[7] = 0x1000 + 64 * k as u64;
        assert_eq!(read::<RawPacket>(q.ring_va() + i * 64), want, "slot {i}");
    }
    assert_eq!(
        read::<u16>(q.ring_va() + 9 * 64),
        0x0003,
        "unwritten: no-op"
    );
    assert_eq!(q.write_index(), 13);

    // A VM fault: KFD posts the MEMORY event and the queue's error bits.
    fake.events.post_memory_fault(MemoryExceptionData {
        va: 0xdead_0000,
        gpu_id: GPU.0,
        ..Default::default()
    });
    fake.raise_queue_error(
        qid,
        exception_code::exception_mask(exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION),
    );
    let err = done
        .wait(
            WaitCondition::Eq,
            0,
            Some(Duration::from_secs(5)),
            WaitHint::Blocked,
        )
        .unwrap_err();
    match err {
        HsaError::QueueError {
            queue_id, reason, ..
        } => {
            assert_eq!(queue_id, qid);
            assert_eq!(
                reason,
                QueueErrorReason::MemoryViolation {
                    address: Some(0xdead_0000)
                }
            );
        }
        other => panic!("expected a queue error, got {other:?}"),
    }
    assert!(q.error().is_some());

    // The next submission recreates the KFD queue and runs from id 0.
    let id = q
        .submit(&aqueduct_hsa::queue::packet::nop(
            PacketFence::SYSTEM_ORDERED,
        ))
        .unwrap();
    assert_eq!(id, 0);
    assert_eq!(q.recreations(), 1);
    assert!(q.error().is_none());
    let st = fake.state.lock().unwrap();
    assert_eq!(st.destroyed_queues, vec![qid]);
    assert!(st.queues.contains_key(&q.id()) && q.id() != qid);
    assert_eq!(st.doorbells.last(), Some(&(q.doorbell_va(), 0)));
    drop(st);
    assert_eq!(
        read::<u16>(q.ring_va() + 64),
        1,
        "the ring was reset to INVALID"
    );
    assert_eq!(read::<RawPacket>(q.ring_va()).0[0] & 0xffff, 0x1503);
    // Waiting works again once the queue recovered.
    done.store(0, MemoryOrder::Release);
    assert_eq!(
        done.wait(
            WaitCondition::Eq,
            0,
            Some(Duration::from_secs(1)),
            WaitHint::Blocked
        )
        .unwrap(),
        0
    );

    let live = q.id();
    drop(q);
    assert!(fake.state.lock().unwrap().destroyed_queues.contains(&live));
}

#[test]
fn executable_loads_and_finds_kernels() {
    let (rt, fake) = runtime();
    let gpu = rt.gpu_agent(0).unwrap().clone();
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../kernels/gfx1100/vector_copy.co"
    ))
    .unwrap();
    let exe = rt.load_executable(&gpu, &bytes).unwrap();
    let bo = fake.bo_at(exe.load_base()).unwrap();
    assert_eq!(
        bo.flags,
        alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT | alloc_flags::EXECUTABLE
    );
    let name = exe.kernels()[0].name.clone();
    let k = exe.kernel(&name).unwrap();
    assert_eq!(k.kernel_object, exe.load_base() + k.info.descriptor_offset);
    assert_eq!(k.kernel_object % 64, 0);
    let kd: aqueduct_kfd::abi::KernelDescriptor = read(k.kernel_object);
    assert_eq!(
        kd, k.info.descriptor,
        "the descriptor is in GPU memory at kernel_object"
    );
    let d = k.dispatch(0x1000, [256, 1, 1], [64, 1, 1]);
    assert_eq!(d.group_segment_size, k.info.group_segment_fixed_size);
    match exe.kernel("no_such_kernel") {
        Err(HsaError::Executable(ExecutableError::KernelNotFound {
            name: missing,
            available,
        })) => {
            assert_eq!(missing, "no_such_kernel");
            assert!(available.contains(&name), "{available:?}");
        }
        other => panic!("{other:?}"),
    }
}
