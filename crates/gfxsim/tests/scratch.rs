//! Scratch (private memory) through the KFD boundary: the command processor
//! takes it only from the queue's `amd_queue_t` scratch fields, stops the
//! queue through `queue_inactive_signal` when they do not hold a dispatch
//! and resumes when the runtime stores 0 there, and the waves' private
//! memory lives in the backing memory, through the GPU's page table. The CP
//! supports asynchronous scratch reclaim: it records the last dispatch that
//! used scratch, and a zeroed lane size makes the next one ask again.

use std::time::Duration;

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::queue::{
    AMD_QUEUE_CAPS_ASYNC_RECLAIM, AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE,
};
use aqueduct_kfd::abi::{AmdQueue, FenceScope, KernelDispatchPacket, PacketHeader, packet_type};
use aqueduct_kfd::uapi::exception_code::*;
use aqueduct_kfd::uapi::*;
use aqueduct_test_harness::sim::*;
use object::{Object, ObjectSegment, ObjectSymbol};

const WAIT_MS: u32 = 5000;
/// asm_scratch's private segment: 16 dwords per work-item, wave32.
const PRIVATE: u32 = 64;
/// Bytes of one asm_scratch wave: 64 bytes for each of 32 lanes.
const WAVE_BYTES: u64 = 64 * 32;
/// gfxsim's shader engines (its topology: 12 arrays, 2 per engine): gfx11's
/// COMPUTE_TMPRING_SIZE.WAVES counts slots per engine.
const ENGINES: u64 = 6;

/// Load the PT_LOAD segments of corpus/gfx1100/asm_scratch.co into a fresh
/// executable BO; returns (BO, address of `asm_scratch.kd`).
fn load_asm_scratch(h: &Harness) -> (Buffer, u64) {
    let path = format!(
        "{}/../../corpus/gfx1100/asm_scratch.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).expect("checked-in kernel");
    let elf = object::File::parse(&*bytes).expect("ELF");
    let end = elf
        .segments()
        .map(|s| s.address() + s.size())
        .max()
        .expect("segments");
    let bo = h.buffer(end.next_multiple_of(PAGE), GTT_FLAGS);
    for seg in elf.segments() {
        bo.write_bytes(seg.address(), seg.data().expect("segment data"));
    }
    let kd = elf
        .symbols()
        .find(|s| s.name() == Ok("asm_scratch.kd"))
        .expect("kd symbol");
    (bo, bo.va + kd.address())
}

/// One asm_scratch run: input, output, kernargs and its packet.
struct Run {
    input: Vec<u32>,
    out: Buffer,
    _x: Buffer,
    _kernarg: Buffer,
    packet: [u8; 64],
}

impl Run {
    fn new(h: &Harness, kd: u64, n: u32, wg: u16, private: u32, completion: u64) -> Run {
        let input: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ 0x55)
            .collect();
        let x = h.buffer((4 * n as u64).next_multiple_of(PAGE), GTT_FLAGS);
        x.write_bytes(0, bytemuck::cast_slice(&input));
        let out = h.buffer((4 * n as u64).next_multiple_of(PAGE), GTT_FLAGS);
        let kernarg = h.buffer(PAGE, GTT_FLAGS);
        kernarg.write_bytes(0, &x.va.to_le_bytes());
        kernarg.write_bytes(8, &out.va.to_le_bytes());
        let p = KernelDispatchPacket {
            header: PacketHeader::new(
                packet_type::KERNEL_DISPATCH,
                false,
                FenceScope::System,
                FenceScope::System,
            )
            .to_bits(),
            setup: 1,
            workgroup_size_x: wg,
            workgroup_size_y: 1,
            workgroup_size_z: 1,
            grid_size_x: n,
            grid_size_y: 1,
            grid_size_z: 1,
            private_segment_size: private,
            kernel_object: kd,
            kernarg_address: kernarg.va,
            completion_signal: completion,
            ..Default::default()
        };
        Run {
            input,
            out,
            _x: x,
            _kernarg: kernarg,
            packet: bytemuck::cast(p),
        }
    }

    /// out[i] = sum over j < 16 of x[i] ^ j (corpus/src/asm_scratch.s).
    fn check(&self) {
        for (i, &x) in self.input.iter().enumerate() {
            let want = (0..16).fold(0u32, |a, j| a.wrapping_add(x ^ j));
            // SAFETY: out holds 4 * n bytes, host mapped.
            let got = unsafe { *self.out.ptr::<u32>(4 * i as u64) };
            assert_eq!(got, want, "item {i}");
        }
    }
}

/// The queue's `amd_queue_t` as a struct over its buffer.
fn amd_queue(q: &TestQueue) -> &'static mut AmdQueue {
    // SAFETY: the amd_queue buffer is a host-mapped page the test owns; the CP only reads
    // the scratch fields while the queue is stopped or before the doorbell.
    unsafe { &mut *q.amd_queue.ptr::<AmdQueue>(0) }
}

/// Give the queue scratch as a runtime does: `waves` slots per engine of
/// `WAVE_BYTES` at `base`.
fn give_scratch(q: &TestQueue, base: u64, waves: u64, properties: u32) {
    let a = amd_queue(q);
    a.compute_tmpring_size = ((WAVE_BYTES / 256) << 12 | waves) as u32;
    a.scratch_backing_memory_location = base;
    a.scratch_backing_memory_byte_size = waves * ENGINES * WAVE_BYTES;
    a.scratch_wave64_lane_byte_size = (WAVE_BYTES / 64) as u32;
    a.queue_properties |= properties;
}

struct Setup {
    h: Harness,
    signals: Signals,
    done: CreateEventArgs,
    /// The queue's queue_inactive_signal and its event.
    inactive: u64,
    inactive_event: CreateEventArgs,
}

fn setup(threads: usize) -> (Setup, TestQueue) {
    let h = Harness::with(1, threads);
    let (signals, done) = Signals::new(&h);
    let inactive_event = h.create_event(event_type::SIGNAL, true);
    let inactive = signals.signal(0, Some(&inactive_event));
    let q = TestQueue::new(&h, &signals, 16 * 64);
    amd_queue(&q).queue_inactive_signal = inactive;
    (
        Setup {
            h,
            signals,
            done,
            inactive,
            inactive_event,
        },
        q,
    )
}

impl Setup {
    /// Store 0 into the inactive signal and set its event, as the runtime's
    /// signal store does.
    fn resume(&self) {
        self.signals.store(self.inactive, 0);
        self.h.set_event(self.inactive_event.event_id);
    }
    /// Wait until the CP stores a code into the inactive signal (its value:
    /// the test's own SET_EVENT in `resume` may fire the event first, so
    /// the value decides).
    fn wait_inactive(&self) -> i64 {
        let start = std::time::Instant::now();
        loop {
            let v = self.signals.value(self.inactive);
            if v != 0 || start.elapsed() > Duration::from_millis(WAIT_MS.into()) {
                return v;
            }
            self.h.wait(&[self.inactive_event.event_id], false, 10);
        }
    }
}

/// With no scratch the CP stops before the dispatch with the wave32
/// insufficient-scratch code and consumes nothing; it resumes at the same
/// packet when the runtime gives scratch and stores 0, and the waves'
/// private memory is then in the backing memory.
#[test]
fn no_scratch_stops_the_queue_until_the_runtime_gives_some() {
    let (s, mut q) = setup(2);
    let (_code, kd) = load_asm_scratch(&s.h);
    let completion = s.signals.signal(1, Some(&s.done));
    let run = Run::new(&s.h, kd, 256, 64, PRIVATE, completion);
    let i = q.write_packet(&run.packet);
    q.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_inactive(), 0x401, "insufficient, wave32");
    assert_eq!(q.read_index(), 0, "the packet is not consumed");
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(s.signals.value(completion), 1, "nothing ran");
    assert_eq!(q.error_bits(), 0, "not an error");

    // Scratch that is too small for a wave changes nothing: stopped again.
    let backing = s.h.buffer(4 * ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, backing.va, 4, 0);
    amd_queue(&q).scratch_wave64_lane_byte_size = (WAVE_BYTES / 64) as u32 - 1;
    s.resume();
    assert_eq!(s.wait_inactive(), 0x401);
    assert_eq!(q.read_index(), 0);

    give_scratch(&q, backing.va, 4, 0);
    s.resume();
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, WAIT_MS).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );
    assert_eq!(s.signals.value(completion), 0);
    assert_eq!(q.error_bits(), 0);
    run.check();
    // Private word 0 of a wave's lane 0 (x ^ 0) is dword row 0, lane 0, of
    // its wave slot: the slots the waves used hold first items of waves.
    let firsts: Vec<u32> = run.input.iter().step_by(32).copied().collect();
    let slots: Vec<u32> = (0..4 * ENGINES)
        .map(|k| {
            // SAFETY: the backing BO is host mapped and holds 4 * ENGINES slots.
            unsafe { *backing.ptr::<u32>(k * WAVE_BYTES) }
        })
        .filter(|&v| v != 0)
        .collect();
    assert!(!slots.is_empty(), "no wave slot was used");
    assert!(
        slots.iter().all(|v| firsts.contains(v)),
        "wave slots {slots:?}, first items {firsts:?}"
    );
}

/// Waves wait for free wave slots: one slot per engine (6 slots) for
/// workgroups of 2 waves still runs a grid of 32 waves, correctly.
#[test]
fn waves_beyond_the_slots_wait_for_them() {
    let (s, mut q) = setup(4);
    let (_code, kd) = load_asm_scratch(&s.h);
    let backing = s.h.buffer(ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, backing.va, 1, 0);
    let completion = s.signals.signal(1, Some(&s.done));
    let run = Run::new(&s.h, kd, 1024, 64, PRIVATE, completion);
    let i = q.write_packet(&run.packet);
    q.ring_doorbell(&s.h, i);
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, WAIT_MS).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );
    run.check();
    assert_eq!(s.signals.value(s.inactive), 0, "never stopped");
    // Workgroups of 1024 items (32 waves) do not fit 6 slots: the CP asks for more.
    let c2 = s.signals.signal(1, None);
    let run = Run::new(&s.h, kd, 1024, 1024, PRIVATE, c2);
    let j = q.write_packet(&run.packet);
    q.ring_doorbell(&s.h, j);
    assert_eq!(s.wait_inactive(), 0x401);
}

/// Backing memory the runtime did not map faults like any other access: a
/// memory violation of the dispatch, at an address in the backing range.
#[test]
fn unmapped_scratch_backing_faults() {
    let (s, mut q) = setup(2);
    let (_code, kd) = load_asm_scratch(&s.h);
    let memory_event = s.h.create_event(event_type::MEMORY, false);
    let size = 4 * ENGINES * WAVE_BYTES;
    let unmapped = reserve_va(size);
    give_scratch(&q, unmapped, 4, 0);
    let completion = s.signals.signal(1, None);
    let run = Run::new(&s.h, kd, 256, 64, PRIVATE, completion);
    let i = q.write_packet(&run.packet);
    q.ring_doorbell(&s.h, i);
    let (result, data) =
        s.h.wait(&[memory_event.event_id, q.error_event], true, WAIT_MS);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(
        q.error_bits(),
        exception_mask(EC_QUEUE_WAVE_MEMORY_VIOLATION)
    );
    let va = data[0].memory_exception().va;
    assert!(
        (unmapped & !(PAGE - 1)..unmapped + size).contains(&va),
        "fault at {va:#x}, backing {unmapped:#x}"
    );
    assert_eq!(s.signals.value(completion), 1);
    assert_eq!(s.signals.value(s.inactive), 0, "not a scratch request");
}

/// A private segment no wave slot can describe (COMPUTE_TMPRING_SIZE.WAVESIZE)
/// is a clean queue error, raised before any scratch is asked for.
#[test]
fn an_oversized_private_segment_is_a_queue_error() {
    let (s, mut q) = setup(2);
    let (_code, kd) = load_asm_scratch(&s.h);
    let completion = s.signals.signal(1, None);
    // 32767 granules of 256 bytes hold 262136 bytes per lane of a wave32.
    let run = Run::new(&s.h, kd, 64, 64, 262_140, completion);
    let i = q.write_packet(&run.packet);
    q.ring_doorbell(&s.h, i);
    assert_eq!(
        s.h.wait(&[q.error_event], false, WAIT_MS).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );
    assert_eq!(
        q.error_bits(),
        exception_mask(EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID)
    );
    assert_eq!(s.signals.value(s.inactive), 0, "no scratch was asked for");
    let detail = s.h.dev.wave_error(q.queue_id).expect("detail");
    assert!(detail.contains("private segment 262140"), "{detail}");
}

/// Scratch given for one dispatch (USE_SCRATCH_ONCE) is handed back: once
/// the dispatch is done the CP stops with the reclaim code 512, and goes on
/// when the runtime stores 0.
#[test]
fn use_once_scratch_is_handed_back_after_the_dispatch() {
    let (s, mut q) = setup(2);
    let (_code, kd) = load_asm_scratch(&s.h);
    let backing = s.h.buffer(4 * ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, backing.va, 4, AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE);
    let completion = s.signals.signal(1, None);
    let run = Run::new(&s.h, kd, 256, 64, PRIVATE, completion);
    let i = q.write_packet(&run.packet);
    let next = s.signals.signal(1, Some(&s.done));
    let barrier = aqueduct_kfd::abi::BarrierPacket {
        header: PacketHeader::new(
            packet_type::BARRIER_AND,
            false,
            FenceScope::System,
            FenceScope::System,
        )
        .to_bits(),
        completion_signal: next,
        ..Default::default()
    };
    let j = q.write_packet(&bytemuck::cast(barrier));
    q.ring_doorbell(&s.h, j);
    assert_eq!(s.wait_inactive(), 512);
    assert_eq!(s.signals.value(completion), 0, "the dispatch completed");
    run.check();
    assert_eq!(q.read_index(), i + 1);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(s.signals.value(next), 1, "the queue waits for the runtime");
    // The runtime frees the backing and clears the fields.
    let a = amd_queue(&q);
    a.scratch_backing_memory_location = 0;
    a.scratch_backing_memory_byte_size = 0;
    a.compute_tmpring_size = 0;
    a.queue_properties &= !AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE;
    s.resume();
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, WAIT_MS).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );
    assert_eq!(s.signals.value(next), 0);
    assert_eq!(q.read_index(), j + 1);
    s.h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: q.queue_id,
            pad: 0,
        })
        .unwrap();
}

/// The CP sets AMD_QUEUE_CAPS_ASYNC_RECLAIM when the queue connects and
/// records each scratch dispatch's id in scratch_last_used_index (a
/// barrier packet leaves it alone). A reclaim as the runtime does it
/// (lane size zeroed, the index exchanged with u64::MAX) makes the next
/// scratch dispatch stop the queue for scratch, after recording its id, and
/// fresh scratch lets it run.
#[test]
fn the_cp_records_scratch_dispatches_and_asks_again_after_a_reclaim() {
    let (s, mut q) = setup(2);
    assert_ne!(
        amd_queue(&q).caps & AMD_QUEUE_CAPS_ASYNC_RECLAIM,
        0,
        "set on queue connect"
    );
    amd_queue(&q).scratch_last_used_index = u64::MAX;
    let (_code, kd) = load_asm_scratch(&s.h);
    let backing = s.h.buffer(4 * ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, backing.va, 4, 0);
    let wait_done = || {
        assert_eq!(
            s.h.wait(&[s.done.event_id], false, WAIT_MS).0,
            KFD_IOC_WAIT_RESULT_COMPLETE
        )
    };

    let marker = s.signals.signal(1, Some(&s.done));
    let barrier = aqueduct_kfd::abi::BarrierPacket {
        header: PacketHeader::new(
            packet_type::BARRIER_AND,
            true,
            FenceScope::System,
            FenceScope::System,
        )
        .to_bits(),
        completion_signal: marker,
        ..Default::default()
    };
    let b = q.write_packet(&bytemuck::cast(barrier));
    q.ring_doorbell(&s.h, b);
    wait_done();
    assert_eq!(amd_queue(&q).scratch_last_used_index, u64::MAX);

    let first = Run::new(
        &s.h,
        kd,
        256,
        64,
        PRIVATE,
        s.signals.signal(1, Some(&s.done)),
    );
    let i = q.write_packet(&first.packet);
    q.ring_doorbell(&s.h, i);
    wait_done();
    first.check();
    assert_eq!(amd_queue(&q).scratch_last_used_index, i);

    amd_queue(&q).scratch_wave64_lane_byte_size = 0;
    amd_queue(&q).scratch_last_used_index = u64::MAX;
    let second = Run::new(
        &s.h,
        kd,
        256,
        64,
        PRIVATE,
        s.signals.signal(1, Some(&s.done)),
    );
    let j = q.write_packet(&second.packet);
    q.ring_doorbell(&s.h, j);
    assert_eq!(s.wait_inactive(), 0x401, "a zeroed lane size holds nothing");
    assert_eq!(q.read_index(), j);
    assert_eq!(amd_queue(&q).scratch_last_used_index, j);
    let fresh = s.h.buffer(4 * ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, fresh.va, 4, 0);
    s.resume();
    wait_done();
    second.check();
    assert_eq!(q.error_bits(), 0);
}

/// Scratch dispatches without the barrier bit on one queue do not share
/// wave slots: the second waits for the first, and both compute the right
/// values with the backing holding one dispatch's slots.
#[test]
fn scratch_dispatches_without_the_barrier_bit_take_turns() {
    let (s, mut q) = setup(4);
    let (_code, kd) = load_asm_scratch(&s.h);
    let backing = s.h.buffer(ENGINES * WAVE_BYTES, GTT_FLAGS);
    give_scratch(&q, backing.va, 1, 0);
    let runs: Vec<Run> = (0..12)
        .map(|_| Run::new(&s.h, kd, 4096, 64, PRIVATE, s.signals.signal(1, None)))
        .collect();
    let mut last = 0;
    for run in &runs {
        last = q.write_packet(&run.packet);
    }
    let done = s.signals.signal(1, Some(&s.done));
    let barrier = aqueduct_kfd::abi::BarrierPacket {
        header: PacketHeader::new(
            packet_type::BARRIER_AND,
            true,
            FenceScope::System,
            FenceScope::System,
        )
        .to_bits(),
        completion_signal: done,
        ..Default::default()
    };
    last = last.max(q.write_packet(&bytemuck::cast(barrier)));
    q.ring_doorbell(&s.h, last);
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, WAIT_MS).0,
        KFD_IOC_WAIT_RESULT_COMPLETE
    );
    for run in &runs {
        run.check();
    }
    assert_eq!(q.error_bits(), 0);
}
