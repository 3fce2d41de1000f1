//! Profiling timestamps and clock counters at the KFD boundary: the CP's
//! `start_ts`/`end_ts` in completion signals of a queue whose
//! `amd_queue_t.queue_properties` has ENABLE_PROFILING, and
//! GET_CLOCK_COUNTERS.

use std::sync::atomic::{AtomicU32, Ordering};

use aqueduct_isa::realtime::realtime_ticks;
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::{
    AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, AMD_QUEUE_PROPERTIES_OFFSET, AMD_SIGNAL_END_TS_OFFSET,
    AMD_SIGNAL_START_TS_OFFSET, BarrierPacket, FenceScope, KernelDispatchPacket, PacketHeader,
    packet_type,
};
use aqueduct_kfd::uapi::*;
use aqueduct_test_harness::sim::*;
use object::{Object, ObjectSegment, ObjectSymbol};
use rustix::time::{ClockId, clock_gettime};

const WAIT_MS: u32 = 5000;

fn header(kind: u16) -> u16 {
    PacketHeader::new(kind, false, FenceScope::System, FenceScope::System).to_bits()
}

fn barrier_and(deps: &[u64], completion: u64) -> [u8; 64] {
    let mut dep_signal = [0; 5];
    dep_signal[..deps.len()].copy_from_slice(deps);
    bytemuck::cast(BarrierPacket {
        header: header(packet_type::BARRIER_AND),
        dep_signal,
        completion_signal: completion,
        ..Default::default()
    })
}

fn dispatch_packet(kernel_object: u64, kernarg: u64, completion: u64) -> [u8; 64] {
    bytemuck::cast(KernelDispatchPacket {
        header: header(packet_type::KERNEL_DISPATCH),
        setup: 1,
        workgroup_size_x: 1,
        workgroup_size_y: 1,
        workgroup_size_z: 1,
        grid_size_x: 1,
        grid_size_y: 1,
        grid_size_z: 1,
        kernel_object,
        kernarg_address: kernarg,
        completion_signal: completion,
        ..Default::default()
    })
}

/// kernels/gfx1100/write_timestamp.co loaded into a fresh executable BO:
/// (BO, address of `write_timestamp.kd`).
/// `write_timestamp(queries, index)` stores the realtime counter it reads
/// with `s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME` at `queries[index]`.
fn load_write_timestamp(h: &Harness) -> (Buffer, u64) {
    let path = format!(
        "{}/../../kernels/gfx1100/write_timestamp.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).expect("checked-in test kernel");
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
        .find(|s| s.name() == Ok("write_timestamp.kd"))
        .expect("write_timestamp.kd");
    (bo, bo.va + kd.address())
}

struct Setup {
    h: Harness,
    signals: Signals,
    done: CreateEventArgs,
    queue: TestQueue,
    kernel: u64,
    _code: Buffer,
    /// Kernargs (queries pointer, index 0) and, at 512, the query slot.
    kernarg: Buffer,
}

fn setup() -> Setup {
    let h = Harness::new();
    let (signals, done) = Signals::new(&h);
    let queue = TestQueue::new(&h, &signals, 16 * 64);
    let (code, kernel) = load_write_timestamp(&h);
    let kernarg = h.buffer(PAGE, GTT_FLAGS);
    kernarg.write_bytes(0, &(kernarg.va + 512).to_le_bytes());
    kernarg.write_bytes(8, &0u32.to_le_bytes());
    Setup {
        h,
        signals,
        done,
        queue,
        kernel,
        _code: code,
        kernarg,
    }
}

impl Setup {
    /// Set or clear ENABLE_PROFILING in the queue's `amd_queue_t`, as ROCr's
    /// `Queue::SetProfiling` does.
    fn set_profiling(&self, enabled: bool) {
        // SAFETY: queue_properties is an aligned u32 of the mapped amd_queue_t BO.
        let properties = unsafe {
            &*(self
                .queue
                .amd_queue
                .ptr::<AtomicU32>(AMD_QUEUE_PROPERTIES_OFFSET as u64))
        };
        if enabled {
            properties.fetch_or(AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, Ordering::Release);
        } else {
            properties.fetch_and(!AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, Ordering::Release);
        }
    }

    fn submit(&mut self, packet: &[u8; 64]) {
        let i = self.queue.write_packet(packet);
        self.queue.ring_doorbell(&self.h, i);
    }

    fn wait_done(&self) {
        assert_eq!(
            self.h.wait(&[self.done.event_id], false, WAIT_MS).0,
            KFD_IOC_WAIT_RESULT_COMPLETE
        );
    }

    /// Run `write_timestamp` with `completion`; the counter value the
    /// kernel read.
    fn run_kernel(&mut self, completion: u64) -> u64 {
        self.kernarg.write_bytes(512, &0u64.to_le_bytes());
        self.submit(&dispatch_packet(self.kernel, self.kernarg.va, completion));
        self.wait_done();
        assert_eq!(self.signals.value(completion), 0);
        assert_eq!(self.queue.error_bits(), 0);
        self.kernarg.atomic_u64(512).load(Ordering::Acquire)
    }

    /// A signal's (start_ts, end_ts).
    fn timestamps(&self, signal: u64) -> (u64, u64) {
        let field = |offset: usize| {
            let at = signal - self.signals.memory.va + offset as u64;
            self.signals.memory.atomic_u64(at).load(Ordering::Acquire)
        };
        (
            field(AMD_SIGNAL_START_TS_OFFSET),
            field(AMD_SIGNAL_END_TS_OFFSET),
        )
    }
}

#[test]
fn a_profiled_dispatch_is_stamped_around_the_kernels_own_counter_read() {
    let mut s = setup();
    s.set_profiling(true);
    let completion = s.signals.signal(1, Some(&s.done));
    let before = realtime_ticks();
    let kernel_ticks = s.run_kernel(completion);
    let after = realtime_ticks();
    let (start, end) = s.timestamps(completion);
    assert!(
        before <= start && start <= kernel_ticks && kernel_ticks <= end && end <= after,
        "expected {before} <= start {start} <= kernel {kernel_ticks} <= end {end} <= {after}"
    );
}

#[test]
fn without_profiling_the_cp_writes_no_timestamps() {
    let mut s = setup();
    let completion = s.signals.signal(1, Some(&s.done));
    let kernel_ticks = s.run_kernel(completion);
    assert_ne!(kernel_ticks, 0, "the kernel ran");
    assert_eq!(s.timestamps(completion), (0, 0));
}

#[test]
fn the_cp_reads_the_profiling_bit_at_each_packet() {
    let mut s = setup();
    s.set_profiling(true);
    let profiled = s.signals.signal(1, Some(&s.done));
    s.run_kernel(profiled);
    s.set_profiling(false);
    let unprofiled = s.signals.signal(1, Some(&s.done));
    s.run_kernel(unprofiled);
    let (start, end) = s.timestamps(profiled);
    assert!(0 < start && start <= end, "{start} {end}");
    assert_eq!(s.timestamps(unprofiled), (0, 0));
    s.set_profiling(true);
    let again = s.signals.signal(1, Some(&s.done));
    s.run_kernel(again);
    let (start2, end2) = s.timestamps(again);
    assert!(end <= start2 && start2 <= end2, "{end} {start2} {end2}");
}

/// A barrier-AND's start_ts is when its condition holds (its launch), not
/// when the CP first looked at it.
#[test]
fn a_profiled_barrier_starts_when_its_dependency_is_met() {
    let mut s = setup();
    s.set_profiling(true);
    let gate = s.signals.signal(1, None);
    let wake = s.h.create_event(event_type::SIGNAL, true);
    let completion = s.signals.signal(1, Some(&s.done));
    s.submit(&barrier_and(&[gate], completion));
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, 20).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    assert_eq!(s.timestamps(completion), (0, 0), "not complete: no stamps");
    let released = realtime_ticks();
    s.signals.store(gate, 0);
    s.h.set_event(wake.event_id);
    s.wait_done();
    let after = realtime_ticks();
    let (start, end) = s.timestamps(completion);
    assert!(
        released <= start && start <= end && end <= after,
        "expected {released} <= start {start} <= end {end} <= {after}"
    );
}

fn nanos(clock: ClockId) -> u64 {
    let t = clock_gettime(clock);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[test]
fn clock_counters_sample_the_realtime_counter_and_the_host_clocks() {
    let h = Harness::new();
    let gpu_before = realtime_ticks();
    let (raw_before, boot_before) = (nanos(ClockId::MonotonicRaw), nanos(ClockId::Boottime));
    let mut args = GetClockCountersArgs {
        gpu_id: h.gpu_id,
        ..Default::default()
    };
    h.dev
        .get_clock_counters(&mut args)
        .expect("GET_CLOCK_COUNTERS");
    let (raw_after, boot_after) = (nanos(ClockId::MonotonicRaw), nanos(ClockId::Boottime));
    let gpu_after = realtime_ticks();
    assert!((gpu_before..=gpu_after).contains(&args.gpu_clock_counter));
    assert!((raw_before..=raw_after).contains(&args.cpu_clock_counter));
    assert!((boot_before..=boot_after).contains(&args.system_clock_counter));
    assert_eq!(args.system_clock_freq, 1_000_000_000);
    assert_eq!(args.gpu_id, h.gpu_id);
}

/// KFD answers a gpu_id without a device with success and a GPU counter of
/// 0; the host clocks are still sampled.
#[test]
fn clock_counters_of_an_unknown_gpu_have_no_gpu_counter() {
    let h = Harness::new();
    let mut args = GetClockCountersArgs {
        gpu_id: h.gpu_id ^ 0xffff,
        gpu_clock_counter: 7,
        ..Default::default()
    };
    h.dev
        .get_clock_counters(&mut args)
        .expect("GET_CLOCK_COUNTERS");
    assert_eq!(args.gpu_clock_counter, 0);
    assert_ne!(args.system_clock_counter, 0);
    assert_ne!(args.cpu_clock_counter, 0);
    assert_eq!(args.system_clock_freq, 1_000_000_000);
}
