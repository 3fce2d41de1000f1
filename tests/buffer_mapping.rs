//! Buffer creation and mapping, after wgpu's GPU tests `buffer.rs`
//! (MAP_OFFSET), `buffer_usages.rs` (BUFFER_USAGE, _MAPPABLE_PRIMARY_BUFFERS,
//! BUFFER_MAP_ASYNC_MAP_STATE), `life_cycle.rs` (BUFFER_DESTROY) and the
//! mapping rules of the WebGPU spec.

use aqueduct_test_harness::facade::*;

use std::sync::{Arc, Mutex};

use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;

type MapSlot = Arc<Mutex<Option<Result<(), BufferAsyncError>>>>;

fn map_result() -> (
    MapSlot,
    impl FnOnce(Result<(), BufferAsyncError>) + Send + 'static,
) {
    let slot = Arc::new(Mutex::new(None));
    let s2 = slot.clone();
    (slot, move |r| *s2.lock().unwrap() = Some(r))
}

#[test]
fn map_read_at_an_offset_sees_the_copied_bytes() {
    let c = ctx();
    let words: Vec<u32> = (0..64).map(|i| i * 11 + 1).collect();
    let src = storage_init(&c.device, &words);
    let rb = readback_buffer(&c.device, 256);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&src, 0, &rb, 0, 256);
    c.queue.submit([enc.finish()]);
    let (res, cb) = map_result();
    rb.slice(64..128).map_async(MapMode::Read, cb);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert_eq!(*res.lock().unwrap(), Some(Ok(())));
    let view = rb.slice(64..128).get_mapped_range().unwrap();
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&view), &words[16..32]);
    // Outside the mapped range.
    assert!(rb.get_mapped_range(0..64).is_err());
    drop(view);
    rb.unmap();
}

#[test]
fn map_write_uploads_through_a_copy() {
    let c = ctx();
    let up = c.device.create_buffer(&BufferDescriptor {
        label: Some("upload"),
        size: 128,
        usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let (res, cb) = map_result();
    up.map_async(MapMode::Write, .., cb);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert_eq!(*res.lock().unwrap(), Some(Ok(())));
    assert_eq!(up.owner(), Owner::Host);
    up.get_mapped_range_mut(..)
        .unwrap()
        .copy_from_slice(bytemuck::cast_slice(&(0..32u32).rev().collect::<Vec<_>>()));
    up.unmap();
    assert_eq!(up.owner(), Owner::Agent);
    let dst = storage(&c.device, 128);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&up, 0, &dst, 0, None);
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &dst), (0..32u32).rev().collect::<Vec<_>>());
}

#[test]
fn map_state_goes_unmapped_pending_mapped_unmapped() {
    let c = ctx();
    let b = readback_buffer(&c.device, 64);
    assert_eq!(b.map_state(), MapStateKind::Unmapped);
    let (res, cb) = map_result();
    b.map_async(MapMode::Read, .., cb);
    assert_eq!(b.map_state(), MapStateKind::Pending);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert_eq!(*res.lock().unwrap(), Some(Ok(())));
    assert_eq!(b.map_state(), MapStateKind::Mapped);
    b.unmap();
    assert_eq!(b.map_state(), MapStateKind::Unmapped);
}

#[test]
fn mapping_a_mapped_buffer_fails_its_callback() {
    let c = ctx();
    let b = readback_buffer(&c.device, 64);
    b.map_async(MapMode::Read, .., |r| assert!(r.is_ok()));
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let (res, cb) = map_result();
    expect_validation(
        &c.device,
        |e| matches!(e, ValidationError::Mapping(MapError::AlreadyMapped { .. })),
        || b.map_async(MapMode::Read, .., cb),
    );
    assert!(matches!(
        *res.lock().unwrap(),
        Some(Err(BufferAsyncError::Validation(
            MapError::AlreadyMapped { .. }
        )))
    ));
    // Still mapped and readable.
    assert_eq!(&*b.get_mapped_range(..).unwrap(), &[0u8; 64][..]);
}

#[test]
fn map_without_the_usage_or_misaligned_is_an_error() {
    let c = ctx();
    let b = readback_buffer(&c.device, 64);
    let (res, cb) = map_result();
    expect_validation(
        &c.device,
        |e| matches!(e, ValidationError::Mapping(MapError::MissingUsage { needed, mode: MapMode::Write, .. }) if *needed == BufferUsages::MAP_WRITE),
        || b.map_async(MapMode::Write, .., cb),
    );
    assert!(matches!(*res.lock().unwrap(), Some(Err(_))));
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Mapping(MapError::UnalignedOffset { offset: 4 })
            )
        },
        || b.map_async(MapMode::Read, 4..12, |r| assert!(r.is_err())),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Mapping(MapError::UnalignedSize { size: 2 })
            )
        },
        || b.map_async(MapMode::Read, 8..10, |r| assert!(r.is_err())),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Mapping(MapError::OutOfBounds { size: 64, .. })
            )
        },
        || b.map_async(MapMode::Read, 0..128, |r| assert!(r.is_err())),
    );
    assert_eq!(b.map_state(), MapStateKind::Unmapped);
}

#[test]
fn mapped_range_needs_a_completed_map_and_no_overlap() {
    let c = ctx();
    let b = readback_buffer(&c.device, 64);
    b.map_async(MapMode::Read, .., |_| {});
    let err = b
        .get_mapped_range(..)
        .err()
        .expect("pending map has no range");
    assert!(matches!(err, MapRangeError::NotMapped { .. }), "{err}");
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let first = b.get_mapped_range(0..32).unwrap();
    let overlap = b.get_mapped_range(16..48).err().expect("overlap");
    assert_eq!(
        overlap,
        MapRangeError::OverlapsView {
            range: 16..48,
            view: 0..32
        }
    );
    let second = b.get_mapped_range(32..64).unwrap();
    assert_eq!(first.len() + second.len(), 64);
    assert!(
        matches!(
            b.get_mapped_range_mut(0..8),
            Err(MapRangeError::MappedForRead)
        ),
        "read mapping is not writable"
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Mapping(MapError::LiveViews { views: 2, .. })
            )
        },
        || b.unmap(),
    );
    drop((first, second));
    b.unmap();
    assert_eq!(b.map_state(), MapStateKind::Unmapped);
}

#[test]
fn unmap_or_destroy_while_pending_aborts_the_callback() {
    let c = ctx();
    for destroy in [false, true] {
        let b = readback_buffer(&c.device, 64);
        let (res, cb) = map_result();
        b.map_async(MapMode::Read, .., cb);
        if destroy {
            b.destroy();
        } else {
            b.unmap();
        }
        assert!(
            matches!(*res.lock().unwrap(), Some(Err(_))),
            "destroy={destroy}"
        );
        c.device.poll(PollType::wait_indefinitely()).unwrap();
        assert!(matches!(*res.lock().unwrap(), Some(Err(_))));
    }
}

#[test]
fn submitting_work_on_a_mapped_buffer_is_an_error_and_the_device_survives() {
    let c = ctx();
    let rb = readback_buffer(&c.device, 16);
    let src = storage_init(&c.device, &[1, 2, 3, 4]);
    rb.map_async(MapMode::Read, .., |_| {});
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&src, 0, &rb, 0, 16);
    let cb = enc.finish();
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::BufferMapped { index: 0, .. })
            )
        },
        || c.queue.submit([cb]),
    );
    rb.unmap();
    // Nothing ran: the buffer still holds zeros; a valid submission works.
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&src, 0, &rb, 0, 16);
    c.queue.submit([enc.finish()]);
    let bytes = aqueduct::util::read_mapped(&c.device, &rb).unwrap();
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &[1, 2, 3, 4]);
}

#[test]
fn mapped_at_creation_uploads_device_buffers_on_unmap() {
    let c = ctx();
    let words: Vec<u32> = (0..1000).map(|i| i * i).collect();
    let b = c.device.create_buffer_init(&BufferInitDescriptor {
        label: Some("init"),
        contents: bytemuck::cast_slice(&words),
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
    });
    assert_eq!(b.placement(), Some(Placement::CoarseDevice));
    assert_eq!(read_words(&c, &b), words);
    // Odd sizes are padded to 4 bytes.
    let odd = c.device.create_buffer_init(&BufferInitDescriptor {
        label: None,
        contents: &[1, 2, 3, 4, 5],
        usage: BufferUsages::COPY_SRC,
    });
    assert_eq!(odd.size(), 8);
    assert_eq!(read_words(&c, &odd), vec![0x0403_0201, 0x05]);
}

#[test]
fn new_device_buffers_read_as_zero() {
    let c = ctx();
    // Dirty some memory first, free it, then allocate again.
    let dirty = storage_init(&c.device, &[0xdead_beef; 4096]);
    drop(dirty);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let fresh = storage(&c.device, 4096 * 4);
    assert!(read_words(&c, &fresh).iter().all(|&w| w == 0));
}

#[test]
fn buffer_usage_rules() {
    // Without MAPPABLE_PRIMARY_BUFFERS (WebGPU defaults).
    let c = ctx_with(|_| DeviceDescriptor::default());
    let make = |usage, size| {
        c.device.create_buffer(&BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    expect_valid(&c.device, || {
        make(BufferUsages::MAP_READ | BufferUsages::COPY_DST, 16)
    });
    expect_valid(&c.device, || {
        make(BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC, 16)
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Buffer(BufferError::MapReadCombined { .. })
            )
        },
        || make(BufferUsages::MAP_READ | BufferUsages::STORAGE, 16),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Buffer(BufferError::MapWriteCombined { .. })
            )
        },
        || make(BufferUsages::MAP_WRITE | BufferUsages::UNIFORM, 16),
    );
    expect_validation(
        &c.device,
        |e| matches!(e, ValidationError::Buffer(BufferError::EmptyUsage { .. })),
        || make(BufferUsages::empty(), 16),
    );
    let max = c.device.limits().max_buffer_size;
    expect_validation(
        &c.device,
        |e| matches!(e, ValidationError::Buffer(BufferError::TooLarge { size, max: m, .. }) if *size == max + 4 && *m == max),
        || make(BufferUsages::STORAGE, max + 4),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Buffer(BufferError::UnalignedMappedAtCreation { size: 6, .. })
            )
        },
        || {
            c.device.create_buffer(&BufferDescriptor {
                label: None,
                size: 6,
                usage: BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            })
        },
    );
    // With the feature, mappable storage is fine.
    let c = ctx();
    expect_valid(&c.device, || {
        c.device.create_buffer(&BufferDescriptor {
            label: None,
            size: 16,
            usage: BufferUsages::MAP_READ | BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    });
}

#[test]
fn destroyed_buffers_are_rejected_everywhere() {
    let c = ctx();
    let a = storage_init(&c.device, &[1; 16]);
    let b = storage(&c.device, 64);
    b.destroy();
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&a, 0, &b, 0, 64);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                command_error(e),
                Some(CommandError::Copy(CopyError::Unusable(
                    UnusableBuffer::Destroyed {
                        role: BufferRole::Destination,
                        ..
                    }
                )))
            )
        },
        || enc.finish(),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::WriteUnusable(UnusableBuffer::Destroyed { .. }))
            )
        },
        || c.queue.write_buffer(&b, 0, &[0; 4]),
    );
    // Destroy after recording, before submit.
    let d = storage(&c.device, 64);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&a, 0, &d, 0, 64);
    let cb = enc.finish();
    d.destroy();
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::BufferDestroyed { index: 0, .. })
            )
        },
        || c.queue.submit([cb]),
    );
    d.destroy(); // twice is fine
}

/// Minor page faults this thread has taken (Linux: /proc/thread-self/stat).
fn thread_minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("thread stat");
    // Fields after the parenthesised command: state is field 3, minflt 10.
    let rest = &stat[stat.rfind(')').expect("stat format") + 2..];
    rest.split(' ')
        .nth(7)
        .expect("minflt")
        .parse()
        .expect("minflt")
}

/// A MAP_READ buffer's views are its memory itself (zero copy), at the same
/// address in every map cycle, and later cycles map nothing anew: copying
/// the whole 1 MiB view out (into pre-touched host memory) takes no page
/// faults once the first cycle has touched it. A view copied into fresh
/// memory, or a host mapping made or dropped per cycle, faults per page (or
/// per 16 pages with the kernel's fault-around).
#[test]
fn map_read_views_are_the_memory_and_later_cycles_take_no_faults() {
    let c = ctx();
    let size: u64 = 1 << 20;
    let src = storage(&c.device, size);
    let rb = readback_buffer(&c.device, size);
    let mut host = vec![1u8; size as usize];
    let mut first_ptr = None;
    for round in 0..4u32 {
        let words: Vec<u32> = (0..size as u32 / 4)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ round)
            .collect();
        c.queue.write_buffer(&src, 0, bytemuck::cast_slice(&words));
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&src, 0, &rb, 0, size);
        c.queue.submit([enc.finish()]);
        let (res, cb) = map_result();
        rb.map_async(MapMode::Read, .., cb);
        c.device.poll(PollType::wait_indefinitely()).unwrap();
        assert_eq!(*res.lock().unwrap(), Some(Ok(())));
        let view = rb.get_mapped_range(..).unwrap();
        let ptr = view.as_ptr();
        assert!(ptr.addr().is_multiple_of(4096), "view at {ptr:p}");
        assert_eq!(*first_ptr.get_or_insert(ptr), ptr, "round {round}");
        let before = thread_minor_faults();
        host.copy_from_slice(&view);
        let faults = thread_minor_faults() - before;
        assert_eq!(bytemuck::cast_slice::<u8, u32>(&host), &words[..]);
        // Round 0 maps the pages into the host view; a stray fault or two
        // (page migration) is tolerated, a remapped MiB is 16 or more.
        if round > 0 {
            assert!(
                faults < 8,
                "round {round}: {faults} faults copying the view out"
            );
        }
        drop(view);
        rb.unmap();
    }
}

#[test]
fn a_destroyed_device_rejects_new_buffers_maps_and_writes() {
    let c = ctx();
    let readback = readback_buffer(&c.device, 64);
    let target = storage(&c.device, 64);
    c.device.destroy();
    // Creation gives an invalid buffer and says why.
    let (_invalid, err) = validation_error(&c.device, || storage(&c.device, 64));
    let err = err.expect("create_buffer on a destroyed device is an error");
    assert!(
        matches!(
            validation_source(&err),
            Some(ValidationError::Device(DeviceError::Destroyed {
                call: "create_buffer"
            }))
        ),
        "{err}"
    );
    // write_buffer is an error.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Device(DeviceError::Destroyed {
                    call: "write_buffer"
                })
            )
        },
        || c.queue.write_buffer(&target, 0, &[0; 4]),
    );
    // Mapping fails its callback at once.
    let (slot, cb) = map_result();
    readback.slice(..).map_async(MapMode::Read, cb);
    assert!(
        matches!(
            *slot.lock().unwrap(),
            Some(Err(BufferAsyncError::DeviceLost))
        ),
        "{:?}",
        slot.lock().unwrap()
    );
}

/// Dropped buffers' memory waits for reuse (src/memory_reuse.rs), but never
/// makes an allocation fail: a buffer that only fits once that memory is
/// freed is still created.
#[test]
fn memory_kept_for_reuse_gives_way_to_a_new_buffer() {
    let config = aqueduct::gfxsim::SimConfig {
        vram_size: 256 << 20,
        ..Default::default()
    };
    let (c, _sim) = sim_ctx_with(config);
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let kept: Vec<Buffer> = (0..3).map(|_| storage(&c.device, 64 << 20)).collect();
    drop(kept);
    // Their clears run with the next submission.
    c.queue.submit([]);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let (big, err) = validation_error(&c.device, || {
        c.device.create_buffer(&BufferDescriptor {
            label: Some("big"),
            size: 160 << 20,
            usage,
            mapped_at_creation: false,
        })
    });
    assert!(err.is_none(), "{err:?}");
    let small = storage_init(&c.device, &[7, 8, 9]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&small, 0, &big, (160 << 20) - 12, 12);
    c.queue.submit([enc.finish()]);
    let tail = c.device.create_buffer(&BufferDescriptor {
        label: None,
        size: 12,
        usage: BufferUsages::COPY_DST | BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&big, (160 << 20) - 12, &tail, 0, 12);
    c.queue.submit([enc.finish()]);
    let bytes = aqueduct::util::read_mapped(&c.device, &tail).unwrap();
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &[7, 8, 9]);
}

/// Buffers a dispatch reaches through a bind group are checked at submit
/// like copied ones: one destroyed after recording, or mapped, fails the
/// submission, which names it; one whose handle the program dropped stays
/// usable (its bind group keeps it) and the dispatch writes through it.
#[test]
fn bound_buffers_are_checked_at_submit_and_kept_alive_by_their_group() {
    let c = ctx();
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "vector_copy");
    let record = |bg: &BindGroup| {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_immediates(0, &4u32.to_le_bytes());
            pass.set_bind_group(0, bg, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        enc.finish()
    };
    let labelled = |label: &'static str, mapped_at_creation: bool| {
        c.device.create_buffer(&BufferDescriptor {
            label: Some(label),
            size: 16,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            mapped_at_creation,
        })
    };
    let named = |buffer: &BufferIdent, label: &str| buffer.label.as_deref() == Some(label);
    let src = storage_init(&c.device, &[1, 2, 3, 4]);

    let destroyed = labelled("destroyed after recording", false);
    let cb = record(&bind_group(&c.device, &p, 0, &[&src, &destroyed]));
    destroyed.destroy();
    expect_validation(
        &c.device,
        |e| {
            matches!(e, ValidationError::Queue(QueueError::BufferDestroyed { index: 0, buffer })
                if named(buffer, "destroyed after recording"))
        },
        || c.queue.submit([cb]),
    );

    let mapped = labelled("mapped at creation", true);
    let cb = record(&bind_group(&c.device, &p, 0, &[&src, &mapped]));
    expect_validation(
        &c.device,
        |e| {
            matches!(e, ValidationError::Queue(QueueError::BufferMapped { index: 0, buffer })
                if named(buffer, "mapped at creation"))
        },
        || c.queue.submit([cb]),
    );
    mapped.unmap();

    let out = storage(&c.device, 16);
    let dropped = storage_init(&c.device, &[5, 6, 7, 8]);
    let bg = bind_group(&c.device, &p, 0, &[&dropped, &out]);
    drop(dropped);
    let cb = expect_valid(&c.device, || record(&bg));
    drop(bg);
    expect_valid(&c.device, || c.queue.submit([cb]));
    assert_eq!(read_words(&c, &out), [5, 6, 7, 8]);
}
