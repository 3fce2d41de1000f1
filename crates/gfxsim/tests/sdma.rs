//! SDMA queues at the KFD boundary: CREATE_QUEUE's rules for them, the
//! per-process limit, and the engine's packets (copies, fills, fences,
//! atomics, traps, polls, timestamps), its ring protocol and its errors.
//! Packets are written as raw dwords after Linux's
//! `sdma_v6_0_0_pkt_open.h`.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aqueduct_gfxsim::{MAX_SDMA_QUEUES, SDMA_ENGINES, SDMA_QUEUES_PER_ENGINE};
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::exception_code::{self, exception_mask};
use aqueduct_kfd::uapi::*;
use aqueduct_test_harness::sim::*;

const EINVAL: i32 = 22;
const ENOMEM: i32 = 12;

/// An SDMA queue: its ring, the page holding its read pointer (offset 0)
/// and write pointer (offset 8), an error word and event, and its doorbell.
struct SdmaQueue {
    ring: Buffer,
    ring_size: u64,
    pointers: Buffer,
    error_reason: Buffer,
    error_event: u32,
    doorbell_va: u64,
    wptr: u64,
}

fn sdma_args(h: &Harness, ring: &Buffer, ring_size: u64, pointers: &Buffer) -> CreateQueueArgs {
    CreateQueueArgs {
        ring_base_address: ring.va,
        read_pointer_address: pointers.va,
        write_pointer_address: pointers.va + 8,
        ring_size: ring_size as u32,
        gpu_id: h.gpu_id,
        queue_type: KFD_IOC_QUEUE_TYPE_SDMA,
        queue_percentage: 100,
        queue_priority: 7,
        ..Default::default()
    }
}

impl SdmaQueue {
    fn new(h: &Harness, ring_size: u64) -> SdmaQueue {
        let ring = h.buffer(ring_size.max(PAGE), GTT_FLAGS);
        let pointers = h.buffer(PAGE, GTT_FLAGS);
        let error_reason = h.buffer(PAGE, GTT_FLAGS);
        let error_event = h.create_event(event_type::SIGNAL, false);
        let header_page = h.buffer(PAGE, GTT_FLAGS);
        let header = UserContextSaveAreaHeader {
            error_reason: error_reason.va,
            error_event_id: error_event.event_id,
            ..Default::default()
        };
        header_page.write_bytes(0, bytemuck::bytes_of(&header));
        let mut args = sdma_args(h, &ring, ring_size, &pointers);
        args.ctx_save_restore_address = header_page.va;
        h.dev.create_queue(&mut args).expect("create SDMA queue");
        let doorbell_page = reserve_va(8192);
        // SAFETY: the VA was just reserved for the doorbell page.
        unsafe {
            h.dev
                .mmap_kfd(doorbell_page, 8192, args.doorbell_offset & !0x1fff)
        }
        .expect("mmap doorbells");
        SdmaQueue {
            ring,
            ring_size,
            pointers,
            error_reason,
            error_event: error_event.event_id,
            doorbell_va: doorbell_page + (args.doorbell_offset & 0x1fff),
            wptr: 0,
        }
    }

    /// Write `dwords` at the write pointer (wrapping) and ring the doorbell.
    fn submit(&mut self, h: &Harness, dwords: &[u32]) {
        for d in dwords {
            self.ring
                .write_bytes(self.wptr % self.ring_size, &d.to_le_bytes());
            self.wptr += 4;
        }
        self.pointers
            .atomic_u64(8)
            .store(self.wptr, Ordering::Release);
        h.dev.write_doorbell(self.doorbell_va, self.wptr);
    }

    fn rptr(&self) -> u64 {
        self.pointers.atomic_u64(0).load(Ordering::Acquire)
    }

    /// Wait for the engine to consume everything submitted.
    fn wait_idle(&self) {
        let start = Instant::now();
        while self.rptr() != self.wptr {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "SDMA queue stuck at {:#x} of {:#x} (error bits {:#x})",
                self.rptr(),
                self.wptr,
                self.error_bits()
            );
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    fn error_bits(&self) -> u64 {
        self.error_reason.atomic_u64(0).load(Ordering::Acquire)
    }

    /// Wait for the queue's error event and return the error bits.
    fn wait_error(&self, h: &Harness) -> u64 {
        let (result, _) = h.wait(&[self.error_event], false, 5000);
        assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE, "no queue error event");
        self.error_bits()
    }
}

fn lo(a: u64) -> u32 {
    a as u32
}
fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

fn copy_linear(src: u64, dst: u64, bytes: u32) -> [u32; 7] {
    [1, bytes - 1, 0, lo(src), hi(src), lo(dst), hi(dst)]
}
fn constant_fill_dwords(dst: u64, data: u32, bytes: u32) -> [u32; 5] {
    [11 | (2 << 30), lo(dst), hi(dst), data, bytes - 1]
}
fn fence(addr: u64, data: u32) -> [u32; 4] {
    [5, lo(addr), hi(addr), data]
}
fn trap(event_id: u32) -> [u32; 2] {
    [6, event_id]
}
fn poll_equal(addr: u64, value: u32) -> [u32; 6] {
    [
        8 | (3 << 28) | (1 << 31),
        lo(addr),
        hi(addr),
        value,
        u32::MAX,
        0x0fff_0004,
    ]
}
fn atomic_add64(addr: u64, value: u64) -> [u32; 8] {
    [
        10 | (47 << 25),
        lo(addr),
        hi(addr),
        lo(value),
        hi(value),
        0,
        0,
        0,
    ]
}
fn timestamp(addr: u64) -> [u32; 3] {
    [13 | (2 << 8), lo(addr), hi(addr)]
}

/// kfd_chardev.c `set_queue_properties_from_user` and kfd_queue.c
/// `kfd_queue_acquire_buffers`: an SDMA queue's ring and pointers are
/// checked as a compute queue's, its EOP buffer and CWSR area are not.
#[test]
fn sdma_create_checks_ring_and_pointers_only() {
    let h = Harness::new();
    let ring = h.buffer(PAGE, GTT_FLAGS);
    let pointers = h.buffer(PAGE, GTT_FLAGS);
    let good = sdma_args(&h, &ring, PAGE, &pointers);
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
    expect_einval("unmapped read pointer", &|a| {
        a.read_pointer_address = reserve_va(PAGE)
    });
    expect_einval("unaligned write pointer", &|a| {
        a.write_pointer_address = pointers.va + 12
    });
    expect_einval("percentage", &|a| a.queue_percentage = 101);
    expect_einval("priority", &|a| a.queue_priority = 16);
    expect_einval("unreadable error header", &|a| {
        a.ctx_save_restore_address = reserve_va(PAGE)
    });
    expect_einval("XGMI SDMA queue (no XGMI engines)", &|a| {
        a.queue_type = KFD_IOC_QUEUE_TYPE_SDMA_XGMI
    });

    // No EOP buffer, no context-save area, any sizes for them.
    let mut args = good;
    args.eop_buffer_size = 12345;
    args.ctl_stack_size = 7;
    h.dev.create_queue(&mut args).expect("SDMA queue");
    assert_eq!(
        args.doorbell_offset & mmap_offset::TYPE_MASK,
        mmap_offset::TYPE_DOORBELL
    );
    assert_eq!(
        errno(h.unmap(ring.handle, &[h.gpu_id]).unwrap_err()),
        16,
        "the queue holds its ring (EBUSY)"
    );
    h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: args.queue_id,
            pad: 0,
        })
        .unwrap();
    h.unmap(ring.handle, &[h.gpu_id])
        .expect("unmap after destroy");
}

/// kfd_device_queue_manager.c `allocate_sdma_queue`: engines x queues per
/// engine (what the topology reports), then ENOMEM; compute queues do not
/// count against it.
#[test]
fn sdma_queues_are_limited_per_process() {
    let h = Harness::new();
    let topology = h.dev.topology().unwrap();
    let node = topology.gpu_nodes().next().unwrap();
    assert_eq!(node.properties.num_sdma_engines, SDMA_ENGINES as u64);
    assert_eq!(
        node.properties.num_sdma_queues_per_engine,
        SDMA_QUEUES_PER_ENGINE as u64
    );
    let create = || {
        let mut args = sdma_args(
            &h,
            &h.buffer(PAGE, GTT_FLAGS),
            PAGE,
            &h.buffer(PAGE, GTT_FLAGS),
        );
        h.dev.create_queue(&mut args).map(|()| args.queue_id)
    };
    let ids: Vec<u32> = (0..MAX_SDMA_QUEUES)
        .map(|_| create().expect("within the limit"))
        .collect();
    assert_eq!(errno(create().unwrap_err()), ENOMEM);
    let (signals, _) = Signals::new(&h);
    let _compute = TestQueue::new(&h, &signals, PAGE);
    h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: ids[3],
            pad: 0,
        })
        .unwrap();
    create().expect("a destroyed queue frees its place");
}

#[test]
fn sdma_copies_fills_and_completes_signals() {
    let h = Harness::new();
    let (signals, event) = Signals::new(&h);
    let mut q = SdmaQueue::new(&h, PAGE);
    // Source and destination span several BOs' worth of pages.
    let src = h.buffer(64 * PAGE, GTT_FLAGS);
    let dst = h.buffer(64 * PAGE, GTT_FLAGS);
    let bytes: Vec<u8> = (0..64 * PAGE).map(|i| (i * 7 + 3) as u8).collect();
    src.write_bytes(0, &bytes);
    let done = signals.signal(1, Some(&event));
    let mailbox = signals.event_page.va + event.event_slot_index as u64 * 8;
    let stamp = h.buffer(PAGE, GTT_FLAGS);
    let mut packets = Vec::new();
    packets.extend(copy_linear(src.va + 5, dst.va + 9, 100_000));
    packets.extend(constant_fill_dwords(dst.va + 200_000, 0xdead_beef, 4096));
    packets.extend([11, lo(dst.va + 210_000), hi(dst.va + 210_000), 0x5a, 9]);
    packets.extend(timestamp(stamp.va));
    packets.extend(atomic_add64(done + 8, u64::MAX));
    packets.extend(fence(mailbox, event.event_id));
    packets.extend(trap(event.event_id));
    q.submit(&h, &packets);
    let (result, _) = h.wait(&[event.event_id], false, 5000);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE, "the TRAP's event");
    q.wait_idle();
    assert_eq!(signals.value(done), 0, "ATOMIC decremented the signal");
    let out = |offset: u64, len: usize| {
        // SAFETY: inside the destination BO's host mapping.
        unsafe { std::slice::from_raw_parts(dst.ptr::<u8>(offset), len) }.to_vec()
    };
    assert_eq!(out(9, 100_000), bytes[5..100_005]);
    assert_eq!(out(8, 1), [0], "bytes before the copy stay");
    let fill = out(200_000, 4096);
    assert!(fill.chunks(4).all(|c| c == 0xdead_beef_u32.to_le_bytes()));
    assert_eq!(
        out(210_000, 11),
        [
            0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0
        ]
    );
    assert_ne!(
        stamp.atomic_u64(0).load(Ordering::Acquire),
        0,
        "a timestamp"
    );
    assert_eq!(q.error_bits(), 0);
}

/// ROCr's ordering: a POLL_REGMEM on a dependency signal holds the packets
/// after it until the signal reads 0.
#[test]
fn sdma_poll_waits_for_a_signal() {
    let h = Harness::new();
    let (signals, event) = Signals::new(&h);
    let mut q = SdmaQueue::new(&h, PAGE);
    let dep = signals.signal(1, Some(&event));
    let target = h.buffer(PAGE, GTT_FLAGS);
    let mut packets = Vec::new();
    packets.extend(poll_equal(dep + 8, 0));
    packets.extend(fence(target.va, 77));
    q.submit(&h, &packets);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        target.atomic_u64(0).load(Ordering::Acquire),
        0,
        "held by the poll"
    );
    assert_eq!(q.rptr(), 0, "the poll is not consumed");
    signals.store(dep, 0);
    q.wait_idle();
    assert_eq!(target.atomic_u64(0).load(Ordering::Acquire), 77);
}

/// Read and write pointers grow in bytes; the ring is addressed modulo its
/// size, so packets wrap.
#[test]
fn sdma_ring_wraps() {
    let h = Harness::new();
    let mut q = SdmaQueue::new(&h, 1024);
    let counter = h.buffer(PAGE, GTT_FLAGS);
    // 8-dword atomics and 4-dword fences go round a 1 KiB ring many
    // times, and the mix makes some packets straddle its end.
    for i in 0..300u64 {
        q.submit(&h, &atomic_add64(counter.va, 1));
        if i % 3 == 0 {
            q.submit(&h, &fence(counter.va + 8, i as u32));
        }
        if i % 20 == 0 {
            q.wait_idle();
        }
    }
    q.wait_idle();
    assert_eq!(counter.atomic_u64(0).load(Ordering::Acquire), 300);
    assert_eq!(q.rptr(), q.wptr);
    assert_eq!(q.error_bits(), 0);
}

#[test]
fn sdma_unknown_opcode_is_a_queue_error() {
    let h = Harness::new();
    let mut q = SdmaQueue::new(&h, PAGE);
    let target = h.buffer(PAGE, GTT_FLAGS);
    q.submit(&h, &[3]);
    q.submit(&h, &fence(target.va, 1));
    let bits = q.wait_error(&h);
    assert_eq!(
        bits,
        exception_mask(exception_code::EC_QUEUE_PACKET_UNSUPPORTED)
    );
    std::thread::sleep(Duration::from_millis(10));
    assert_eq!(q.rptr(), 0, "the queue halted before the bad packet");
    assert_eq!(target.atomic_u64(0).load(Ordering::Acquire), 0);
}

#[test]
fn sdma_bad_address_is_a_vm_fault() {
    let h = Harness::new();
    let memory_event = h.create_event(event_type::MEMORY, false);
    let mut q = SdmaQueue::new(&h, PAGE);
    let src = h.buffer(PAGE, GTT_FLAGS);
    let unmapped = reserve_va(4 * PAGE);
    q.submit(&h, &copy_linear(src.va, unmapped + PAGE + 4, 64));
    let bits = q.wait_error(&h);
    assert_eq!(
        bits,
        exception_mask(exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION)
    );
    let (result, data) = h.wait(&[memory_event.event_id], false, 5000);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
    let fault = data[0].memory_exception();
    assert_eq!(fault.va, unmapped + PAGE);
    assert_eq!(fault.gpu_id, h.gpu_id);
    assert_eq!(fault.failure.not_present, 1);
}

/// A read-only destination faults like a shader store to it would.
#[test]
fn sdma_honours_page_permissions() {
    let h = Harness::new();
    let mut q = SdmaQueue::new(&h, PAGE);
    let src = h.buffer(PAGE, GTT_FLAGS);
    let read_only = h.buffer(PAGE, alloc_flags::GTT);
    q.submit(&h, &copy_linear(src.va, read_only.va, 16));
    let bits = q.wait_error(&h);
    assert_eq!(
        bits,
        exception_mask(exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION)
    );
}
