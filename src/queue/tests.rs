//! Unit tests of the queue: fault recovery races and reports.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aqueduct_hsa::queue::packet;
use aqueduct_hsa::{HsaError, MemoryOrder, PacketFence, QueueErrorReason};
use wgpu_types::{BufferUsages, PollStatus};

use super::recovery::{FaultSite, fault_summary};
use super::{PollType, Queue, SubmissionIndex};
use crate::buffer::Buffer;
use crate::command::encoder::CommandBuffer;
use crate::command::hazard::Access;
use crate::command::lower::{self, Work};
use crate::device::{Device, DeviceShared};
use crate::error::Error;
use crate::registry::MapMode;
use crate::ring::Ring;
use crate::test_support::{device, fault_at_work};

const TIMEOUT: Duration = Duration::from_secs(60);

thread_local! {
    /// Runs once in this thread's next `submit`, after the fault check
    /// and before the packets are written.
    pub(super) static BEFORE_WRITE: std::cell::Cell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::Cell::new(None) };
}
/// Clears per submission; the test ring holds 1.5 submissions' blocks.
const CLEARS: usize = 6;

/// Replace the kernarg ring by one holding `blocks` fill-kernel blocks
/// (so a submission of CLEARS clears leaves no room for a second).
fn shrink_kernarg_ring(dev: &Arc<DeviceShared>, blocks: u64) {
    let access = Access {
        range: 0x1000..0x1100,
        write: true,
        host_visible: true,
        object: 0x1000,
        group: crate::command::hazard::NOT_BOUND,
        binding: 0,
    };
    let ops = lower::fill_ops(&dev.blit, access, 0).expect("fill op");
    let Work::Dispatch(d) = &ops.ops()[0].work else {
        panic!("a fill is a dispatch")
    };
    let per = (d.kernarg.len as u64).next_multiple_of(d.kernarg_align.max(1));
    let pool = dev.runtime.kernarg_pool(&dev.agent).expect("kernarg pool");
    let ring = Ring::new(pool, per * blocks).expect("small ring");
    dev.lock_state().kernargs = ring;
}

/// A barrier-AND on the GPU queue that holds every later packet until
/// the returned signal is stored 0.
fn gate(dev: &Arc<DeviceShared>) -> aqueduct_hsa::Signal {
    let gate = dev.runtime.create_signal(1).expect("gate signal");
    let _w = dev.submit_lock.lock().unwrap();
    let p =
        packet::barrier_and(&[gate.handle()], 0, PacketFence::SYSTEM_ORDERED).expect("gate packet");
    dev.hsa_queue.submit(&p).expect("gate submitted");
    gate
}

fn readback_buffers(device: &Device, n: usize, size: u64) -> Vec<Buffer> {
    (0..n)
        .map(|_| {
            device.create_buffer(&wgpu_types::BufferDescriptor {
                label: None,
                size,
                usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect()
}

fn clears(device: &Device, buffers: &[Buffer]) -> CommandBuffer {
    let mut enc = device.create_command_encoder(&Default::default());
    for b in buffers {
        enc.clear_buffer(b, 0, None);
    }
    enc.finish()
}

fn read(device: &Device, b: &Buffer) -> Vec<u8> {
    let (tx, rx) = mpsc::channel();
    b.map_async(MapMode::Read, .., move |r| tx.send(r).unwrap());
    device.poll(PollType::wait_indefinitely()).expect("poll");
    rx.recv_timeout(TIMEOUT).unwrap().expect("mapped");
    let bytes = b.get_mapped_range(..).expect("view").to_vec();
    b.unmap();
    bytes
}

/// Wait until a submission is being written (and so waits for ring
/// space: the gate holds the GPU queue).
fn wait_for_blocked_submit(dev: &Arc<DeviceShared>) {
    let start = Instant::now();
    while !dev.lock_state().in_submit {
        assert!(start.elapsed() < TIMEOUT, "the submission never started");
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(30));
    assert!(
        dev.lock_state().in_submit,
        "the submission finished while the GPU queue was held"
    );
}

/// A submission waiting for kernarg ring space holds the writer lock
/// but not the queue-state lock: polls and write_buffer on another
/// thread go on, and another thread's submission waits its turn and
/// gets the next index; everything completes once the GPU goes on.
#[test]
fn a_submission_waiting_for_ring_space_lets_others_go_on() {
    let (device, queue) = device();
    let dev = queue.shared.clone();
    let buffers = readback_buffers(&device, 3 * CLEARS, 256);
    for b in &buffers {
        queue.write_buffer(b, 0, &[0xab; 256]);
    }
    queue.submit([]);
    device.poll(PollType::wait_indefinitely()).expect("setup");
    shrink_kernarg_ring(&dev, (CLEARS + CLEARS / 2) as u64);
    let gate = gate(&dev);
    let first = queue.submit([clears(&device, &buffers[..CLEARS])]);
    let indices = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        s.spawn(|| {
            let i = queue.submit([clears(&device, &buffers[CLEARS..2 * CLEARS])]);
            indices.lock().unwrap().push(("waiting", i));
        });
        wait_for_blocked_submit(&dev);
        s.spawn(|| {
            let i = queue.submit([clears(&device, &buffers[2 * CLEARS..])]);
            indices.lock().unwrap().push(("queued", i));
        });
        // The queue-state lock is free: a poll and an upload go through.
        let (tx, rx) = mpsc::channel();
        let (device, queue, buffers) = (&device, &queue, &buffers);
        s.spawn(move || {
            let status = device.poll(PollType::Poll);
            queue.write_buffer(&buffers[0], 0, &[0xcd; 8]);
            tx.send(status).unwrap();
        });
        let status = rx
            .recv_timeout(TIMEOUT)
            .expect("poll and write_buffer ran while a submission waited");
        assert!(matches!(status, Ok(PollStatus::Poll)), "{status:?}");
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            indices.lock().unwrap().is_empty(),
            "both later submissions wait for the GPU queue"
        );
        gate.store(0, MemoryOrder::Release);
    });
    // The two threads record their index after submit returns, in
    // either order; what matters is which index each submission got.
    let mut indices = indices.into_inner().unwrap();
    indices.sort_by_key(|&(_, i)| i.0);
    assert_eq!(
        indices,
        vec![
            ("waiting", SubmissionIndex(first.0 + 1)),
            ("queued", SubmissionIndex(first.0 + 2))
        ]
    );
    device.poll(PollType::wait_indefinitely()).expect("drain");
    let mut expect_first = vec![0u8; 256];
    expect_first[..8].fill(0xcd);
    assert_eq!(read(&device, &buffers[0]), expect_first, "buffer 0");
    for (i, b) in buffers.iter().enumerate().skip(1) {
        assert_eq!(read(&device, b), vec![0u8; 256], "buffer {i}");
    }
}

/// A device whose uncaptured errors are collected, and `n` readback
/// buffers holding 0xab.
fn fault_fixture(n: usize) -> (Device, Queue, Arc<Mutex<Vec<String>>>, Vec<Buffer>) {
    let (device, queue) = device();
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e: Error| {
        sink.lock().unwrap().push(e.to_string())
    }));
    let buffers = readback_buffers(&device, n, 256);
    for b in &buffers {
        queue.write_buffer(b, 0, &[0xab; 256]);
    }
    queue.submit([]);
    device.poll(PollType::wait_indefinitely()).expect("setup");
    (device, queue, errors, buffers)
}

/// Exactly one uncaptured error reports the fault of `faulting`, naming
/// its kernel and submission.
fn assert_one_fault_report(errors: &Mutex<Vec<String>>, faulting: SubmissionIndex) {
    let errors = errors.lock().unwrap().clone();
    let summary = format!("GPU fault in kernel fault_at (submission {})", faulting.0);
    assert_eq!(
        errors.iter().filter(|e| e.contains(&summary)).count(),
        1,
        "one fault report naming the kernel: {errors:?}"
    );
}

/// A queue fault while a submission waits for ring space is a fault,
/// not a completion: it is reported with its kernel, the outstanding
/// submissions count as done, and the waiting submission runs on the
/// recreated queue.
#[test]
fn a_fault_while_the_ring_is_full_is_recovered() {
    let (device, queue, errors, buffers) = fault_fixture(2 * CLEARS);
    let dev = queue.shared.clone();
    shrink_kernarg_ring(&dev, (CLEARS + CLEARS / 2) as u64);
    let gate = gate(&dev);
    let faulting = queue.submit([fault_at_work(&device)]);
    let dropped = queue.submit([clears(&device, &buffers[..CLEARS])]);
    std::thread::scope(|s| {
        let waiting = s.spawn(|| queue.submit([clears(&device, &buffers[CLEARS..])]));
        wait_for_blocked_submit(&dev);
        gate.store(0, MemoryOrder::Release);
        assert_eq!(
            waiting.join().unwrap(),
            SubmissionIndex(dropped.0 + 1),
            "the waiting submission went on after the fault"
        );
        assert!(
            !errors.lock().unwrap().is_empty(),
            "the waiter reported the fault, not took it for completion"
        );
    });
    device.poll(PollType::wait_indefinitely()).expect("drain");
    assert_one_fault_report(&errors, faulting);
    // The clears after the fault were dropped; the waiting ones ran.
    for (i, b) in buffers.iter().enumerate() {
        let expect = if i < CLEARS { 0xab } else { 0 };
        assert_eq!(read(&device, b), vec![expect; 256], "buffer {i}");
    }
}

/// A fault that shows up after a submission checked the queue and
/// before its packets go on it (the race behind a rare hang under load):
/// the submission the fault dropped is counted complete and reported
/// once, and the new one runs on the recreated queue and completes.
/// Before, the write recreated the queue on its own, the dropped
/// submission was never counted, and waits for the new one hung.
#[test]
fn a_fault_between_the_check_and_the_write_is_counted() {
    let (device, queue, errors, buffers) = fault_fixture(2);
    let dev = queue.shared.clone();
    let gate = gate(&dev);
    let faulting = queue.submit([fault_at_work(&device)]);
    let watched = dev.clone();
    BEFORE_WRITE.set(Some(Box::new(move || {
        gate.store(0, MemoryOrder::Release);
        let start = Instant::now();
        while watched.hsa_queue.error().is_none() {
            assert!(start.elapsed() < TIMEOUT, "the fault never showed");
            std::thread::sleep(Duration::from_millis(1));
        }
    })));
    let after = queue.submit([clears(&device, &buffers)]);
    assert!(BEFORE_WRITE.take().is_none(), "the hook ran");
    assert_eq!(after, SubmissionIndex(faulting.0 + 1));
    let waited = device.poll(PollType::Wait {
        submission_index: Some(after),
        timeout: Some(Duration::from_secs(20)),
    });
    assert!(
        waited.is_ok(),
        "the submission after the fault completes: {waited:?}"
    );
    assert_one_fault_report(&errors, faulting);
    for (i, b) in buffers.iter().enumerate() {
        assert_eq!(read(&device, b), vec![0; 256], "buffer {i} cleared");
    }
}

fn violation(address: Option<u64>) -> HsaError {
    HsaError::QueueError {
        queue_id: 3,
        reason: QueueErrorReason::MemoryViolation { address },
        detail: address.map(|address| {
            aqueduct_hsa::QueueFaultDetail::MemoryFault(aqueduct_hsa::GpuMemoryFault {
                gpu_id: 0x1002,
                address,
                access: aqueduct_hsa::FaultAccess::NotPresent,
                imprecise: false,
            })
        }),
    }
}

#[test]
fn fault_summaries_name_what_is_known() {
    let in_kernel = FaultSite {
        submission: 7,
        kernel: Some(Arc::from("saxpy")),
    };
    assert_eq!(
        fault_summary(&violation(Some(0x7f00_1000)), Some(&in_kernel)),
        "GPU fault in kernel saxpy (submission 7): memory violation at GPU address 0x7f001000"
    );
    let in_barrier = FaultSite {
        submission: 2,
        kernel: None,
    };
    assert_eq!(
        fault_summary(&violation(None), Some(&in_barrier)),
        "GPU fault in a barrier packet (submission 2): memory violation"
    );
    let illegal = HsaError::QueueError {
        queue_id: 1,
        reason: QueueErrorReason::IllegalInstruction,
        detail: None,
    };
    assert_eq!(
        fault_summary(&illegal, None),
        "GPU fault in an unidentified packet: illegal instruction"
    );
}

/// A dispatch packet built for another kernarg block differs from the
/// first in the word `write_slots` patches when it reuses a packet for a
/// dispatch whose bindings alone changed, and in no other.
#[test]
fn dispatch_packets_differ_only_in_the_patched_kernarg_word() {
    use crate::command::arena::Span;
    let work = lower::DispatchWork {
        kernel_object: 0x7f00_1000,
        kernel_name: Arc::from("k"),
        grid: [256, 4, 1],
        workgroup: [64, 2, 1],
        group_segment: 128,
        private_segment: 16,
        kernarg: Span { start: 0, len: 64 },
        kernarg_align: 16,
        patched: false,
        uniform_in_kernarg: None,
    };
    let fence = PacketFence {
        barrier: true,
        acquire: aqueduct_kfd::abi::FenceScope::Agent,
        release: aqueduct_kfd::abi::FenceScope::System,
    };
    let (a, _) = super::submit::dispatch_packet(&work, 0x4000_0040, fence).expect("packet");
    let (b, _) = super::submit::dispatch_packet(&work, 0x4000_0a00, fence).expect("packet");
    let differing: Vec<usize> = (0..8).filter(|&w| a.0[w] != b.0[w]).collect();
    assert_eq!(differing, [super::submit::DISPATCH_KERNARG_ADDRESS_WORD]);
    assert_eq!(
        b.0[super::submit::DISPATCH_KERNARG_ADDRESS_WORD],
        0x4000_0a00
    );
}

/// benches/shaders' bump, precompiled for the part a default gfxsim
/// device simulates.
fn bump_shader() -> crate::shader::ShaderSource<'static> {
    use crate::gfxsim::SimPart;
    use std::borrow::Cow;
    macro_rules! precompiled {
        ($target:literal) => {
            crate::shader::ShaderSource::Precompiled {
                code: Cow::Borrowed(include_bytes!(concat!(
                    "../../benches/shaders/",
                    $target,
                    "/bump.co"
                ))),
                reflection: Cow::Borrowed(include_str!(concat!(
                    "../../benches/shaders/",
                    $target,
                    "/bump.reflect.json"
                ))),
            }
        };
    }
    match crate::gfxsim::default_part() {
        SimPart::Rx7900Xtx => precompiled!("gfx1100"),
        SimPart::Mi300x => precompiled!("gfx942"),
        SimPart::Mi210 | SimPart::Mi250xGcd => precompiled!("gfx90a"),
    }
}

/// A buffer reached only through a bind group, dropped with its group
/// while the submission that binds it waits behind a gate: the registry
/// keeps its memory (a new buffer of the same size does not get it), and
/// lets it go once the submission completes (the next one does).
#[test]
fn a_dropped_bound_buffer_keeps_its_memory_until_its_submission_completes() {
    let (device, queue) = device();
    let dev = queue.shared.clone();
    let module = device.create_shader_module(crate::shader::ShaderModuleDescriptor {
        label: Some("bump"),
        source: bump_shader(),
    });
    let pipeline = device.create_compute_pipeline(&crate::pipeline::ComputePipelineDescriptor {
        label: Some("bump"),
        layout: None,
        module: &module,
        entry_point: Some("bump"),
        compilation_options: Default::default(),
        cache: None,
    });
    let storage = || {
        device.create_buffer(&wgpu_types::BufferDescriptor {
            label: None,
            size: 256,
            usage: BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    };
    let va = |b: &Buffer| b.memory().expect("valid buffer").va();
    let a = storage();
    let a_va = va(&a);
    let group = device.create_bind_group(&crate::binding::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[crate::binding::BindGroupEntry {
            binding: 0,
            resource: a.as_entire_binding(),
        }],
    });
    // The new buffer's clear completes first: only the dispatch uses it.
    queue.submit([]);
    device.poll(PollType::wait_indefinitely()).expect("setup");
    let gate = gate(&dev);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    queue.submit([enc.finish()]);
    drop((group, a));
    assert_eq!(dev.registry().deferred_len(), 1, "kept for the submission");
    let b = storage();
    assert_ne!(va(&b), a_va, "memory reused while its submission runs");
    gate.store(0, MemoryOrder::Release);
    device.poll(PollType::wait_indefinitely()).expect("drain");
    assert_eq!(dev.registry().deferred_len(), 0, "freed once complete");
    let c = storage();
    assert_eq!(va(&c), a_va, "the completed submission's memory is reused");
}
