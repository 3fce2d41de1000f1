//! AQL packet processing through the KFD boundary: barrier packets, the
//! INVALID header, dispatches of the checked-in gfx1100 kernels, queue
//! errors and VM faults.

use std::time::{Duration, Instant};

use aqueduct_gfxsim::SimConfig;
use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::{
    BarrierPacket, FenceScope, KernelDescriptor, KernelDispatchPacket, PacketHeader, packet_type,
};
use aqueduct_kfd::uapi::exception_code::*;
use aqueduct_kfd::uapi::*;
use aqueduct_test_harness::sim::*;
use object::{Object, ObjectSegment, ObjectSymbol};

const WAIT_MS: u32 = 5000;

fn header(kind: u16, barrier: bool) -> u16 {
    PacketHeader::new(kind, barrier, FenceScope::System, FenceScope::System).to_bits()
}

fn barrier_packet(kind: u16, deps: &[u64], completion: u64) -> [u8; 64] {
    let mut dep_signal = [0; 5];
    dep_signal[..deps.len()].copy_from_slice(deps);
    let p = BarrierPacket {
        header: header(kind, false),
        dep_signal,
        completion_signal: completion,
        ..Default::default()
    };
    bytemuck::cast(p)
}

fn dispatch_packet(
    kernel_object: u64,
    kernarg: u64,
    grid: u32,
    wg: u16,
    completion: u64,
) -> [u8; 64] {
    let p = KernelDispatchPacket {
        header: header(packet_type::KERNEL_DISPATCH, false),
        setup: 1,
        workgroup_size_x: wg,
        workgroup_size_y: 1,
        workgroup_size_z: 1,
        grid_size_x: grid,
        grid_size_y: 1,
        grid_size_z: 1,
        kernel_object,
        kernarg_address: kernarg,
        completion_signal: completion,
        ..Default::default()
    };
    bytemuck::cast(p)
}

/// Load a code object of kernels/gfx1100/ into a fresh executable BO (as a
/// loader would) and return (BO, address of `<kernel>.kd`).
fn load_kernel(h: &Harness, file: &str, kernel: &str) -> (Buffer, u64) {
    load_object(h, &format!("kernels/gfx1100/{file}"), kernel)
}

/// Load the PT_LOAD segments of the code object at `path` (relative to the
/// repository root) into a fresh executable BO and return (BO, address of
/// `<kernel>.kd`).
fn load_object(h: &Harness, path: &str, kernel: &str) -> (Buffer, u64) {
    let path = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).expect("checked-in kernel");
    let elf = object::File::parse(&*bytes).expect("ELF");
    let end = elf
        .segments()
        .map(|s| s.address() + s.size())
        .max()
        .expect("segments");
    let bo = h.buffer(end.next_multiple_of(PAGE), GTT_FLAGS);
    for seg in elf.segments() {
        let data = seg.data().expect("segment data");
        bo.write_bytes(seg.address(), data);
    }
    let kd = elf
        .symbols()
        .find(|s| s.name() == Ok(&format!("{kernel}.kd")))
        .expect("kd symbol");
    (bo, bo.va + kd.address())
}

struct Setup {
    h: Harness,
    signals: Signals,
    done: CreateEventArgs,
}

fn setup() -> Setup {
    let h = Harness::new();
    let (signals, done) = Signals::new(&h);
    Setup { h, signals, done }
}

impl Setup {
    fn queue(&self) -> TestQueue {
        TestQueue::new(&self.h, &self.signals, 16 * 64)
    }
    fn wait_done(&self) -> u32 {
        self.h.wait(&[self.done.event_id], false, WAIT_MS).0
    }
}

#[test]
fn barrier_and_completes_only_after_its_dependency() {
    let s = setup();
    let mut q = s.queue();
    let dep = s.signals.signal(1, None);
    let dep_event = s.h.create_event(event_type::SIGNAL, true);
    // The dep signal's event wakes the CP when the host sets it.
    let completion = s.signals.signal(1, Some(&s.done));
    let index = q.write_packet(&barrier_packet(
        packet_type::BARRIER_AND,
        &[dep, 0, 0],
        completion,
    ));
    q.ring_doorbell(&s.h, index);
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, 50).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    assert_eq!(s.signals.value(completion), 1, "dependency still 1");
    assert_eq!(q.read_index(), 0);

    s.signals.store(dep, 0);
    s.h.set_event(dep_event.event_id);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(s.signals.value(completion), 0);
    assert_eq!(q.read_index(), 1);
    assert_eq!(
        q.header_at(0),
        packet_type::INVALID,
        "consumed slot reads INVALID"
    );
    // The mailbox was acknowledged by the interrupt handler.
    let slot = s
        .signals
        .event_page
        .atomic_u64(s.done.event_slot_index as u64 * 8);
    assert_eq!(slot.load(std::sync::atomic::Ordering::Acquire), u64::MAX);
}

#[test]
fn barrier_or_completes_when_one_dependency_is_zero() {
    let s = setup();
    let mut q = s.queue();
    let deps = [
        s.signals.signal(1, None),
        s.signals.signal(2, None),
        s.signals.signal(1, None),
    ];
    let wake = s.h.create_event(event_type::SIGNAL, true);
    let completion = s.signals.signal(1, Some(&s.done));
    let index = q.write_packet(&barrier_packet(packet_type::BARRIER_OR, &deps, completion));
    q.ring_doorbell(&s.h, index);
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, 50).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    s.signals.store(deps[0], 5); // still nonzero: no completion
    s.h.set_event(wake.event_id);
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, 50).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    assert_eq!(s.signals.value(completion), 1);
    s.signals.store(deps[1], 0);
    s.h.set_event(wake.event_id);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(s.signals.value(completion), 0);
}

#[test]
fn an_invalid_header_stops_the_cp_until_the_next_doorbell() {
    let s = setup();
    let mut q = s.queue();
    let c0 = s.signals.signal(1, Some(&s.done));
    let c2 = s.signals.signal(1, None);
    let p0 = barrier_packet(packet_type::BARRIER_AND, &[], c0);
    q.write_packet(&p0);
    let i1 = q.write_index; // left INVALID for now
    q.write_index += 1;
    let i2 = q.write_packet(&barrier_packet(packet_type::BARRIER_AND, &[], c2));
    q.ring_doorbell(&s.h, i2);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(q.read_index(), 1, "stopped at the INVALID slot");
    assert_eq!(s.signals.value(c2), 1);

    let c1 = s.signals.signal(1, None);
    q.write_packet_at(i1, &barrier_packet(packet_type::BARRIER_AND, &[], c1));
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(s.signals.value(c1), 1, "no doorbell yet");
    // Last packet gets the event this time.
    let c3 = s.signals.signal(1, Some(&s.done));
    let i3 = q.write_packet(&barrier_packet(packet_type::BARRIER_AND, &[], c3));
    q.ring_doorbell(&s.h, i3);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(
        (
            s.signals.value(c1),
            s.signals.value(c2),
            s.signals.value(c3)
        ),
        (0, 0, 0)
    );
    assert_eq!(q.read_index(), 4);
}

#[test]
fn dispatch_of_the_empty_kernel_completes() {
    let s = setup();
    let mut q = s.queue();
    let (_code, kd) = load_kernel(&s.h, "empty.co", "empty");
    let kernarg = s.h.buffer(PAGE, GTT_FLAGS);
    let before = s.h.dev.stats();
    let completion = s.signals.signal(1, Some(&s.done));
    let started = std::time::Instant::now();
    let i = q.write_packet(&dispatch_packet(kd, kernarg.va, 1000, 64, completion));
    q.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    let took = started.elapsed();
    assert_eq!(s.signals.value(completion), 0);
    assert_eq!(q.error_bits(), 0);
    let after = s.h.dev.stats();
    assert_eq!(after.dispatches - before.dispatches, 1);
    assert_eq!(after.workgroups - before.workgroups, 16, "ceil(1000 / 64)");
    assert!(after.wave_instructions > before.wave_instructions);
    // The workers' time in the workgroups is counted: some, and no more
    // than every worker (and the command processor) busy for the whole
    // dispatch.
    let ran = Duration::from_nanos(after.workgroup_nanos - before.workgroup_nanos);
    let threads = s.h.dev.config().threads as u32 + 1;
    assert!(!ran.is_zero());
    assert!(ran <= took * threads, "{ran:?} of {took:?}");
}

/// A grid of many one-work-item workgroups of the empty kernel (hours of
/// work) stops at the watchdog's limit although no workgroup branches, on
/// the worker threads and on the command processor's own thread.
#[test]
fn the_watchdog_stops_a_grid_of_many_short_workgroups() {
    const LIMIT: Duration = Duration::from_millis(100);
    for threads in [2, 1] {
        let h = Harness::with_config(SimConfig {
            threads,
            vram_size: 1 << 30,
            dispatch_timeout: Some(LIMIT),
            ..SimConfig::default()
        });
        let (signals, done) = Signals::new(&h);
        let s = Setup { h, signals, done };
        let mut q = s.queue();
        let (_code, kd) = load_kernel(&s.h, "empty.co", "empty");
        let kernarg = s.h.buffer(PAGE, GTT_FLAGS);
        let completion = s.signals.signal(1, None);
        let start = Instant::now();
        let i = q.write_packet(&dispatch_packet(kd, kernarg.va, u32::MAX, 1, completion));
        q.ring_doorbell(&s.h, i);
        let (result, _) = s.h.wait(&[q.error_event], false, WAIT_MS);
        let took = start.elapsed();
        assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE, "{threads} threads");
        assert_eq!(q.error_bits(), exception_mask(EC_QUEUE_WAVE_ABORT));
        assert!(took >= LIMIT, "{threads} threads: stopped after {took:?}");
        assert!(
            took < 10 * LIMIT,
            "{threads} threads: stopped only after {took:?}"
        );
        assert_eq!(
            s.signals.value(completion),
            1,
            "the dispatch did not complete"
        );
        let detail = s.h.dev.wave_error(q.queue_id).expect("detail");
        assert!(
            detail.contains("watchdog: the dispatch ran longer than its 100 ms time limit")
                && detail.contains("AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS"),
            "{detail}"
        );
        s.h.dev
            .destroy_queue(&mut DestroyQueueArgs {
                queue_id: q.queue_id,
                pad: 0,
            })
            .unwrap();
    }
}

#[test]
fn a_fault_reports_a_memory_exception_and_halts_only_that_queue() {
    let s = setup();
    let mut q = s.queue();
    let memory_event = s.h.create_event(event_type::MEMORY, false);
    let (_code, kd) = load_kernel(&s.h, "empty.co", "empty");
    // A copy of the descriptor whose entry points 1 GiB away: unmapped.
    let mut desc = {
        let mut bytes = [0u8; 64];
        // SAFETY: the KD lies in the code BO's host mapping.
        unsafe { std::ptr::copy_nonoverlapping(kd as *const u8, bytes.as_mut_ptr(), 64) };
        KernelDescriptor::from_bytes(&bytes)
    };
    let bad = s.h.buffer(PAGE, GTT_FLAGS);
    let target = bad.va.wrapping_add(1 << 30);
    desc.kernel_code_entry_byte_offset = (target - bad.va) as i64;
    bad.write_bytes(0, bytemuck::bytes_of(&desc));
    let kernarg = s.h.buffer(PAGE, GTT_FLAGS);
    let completion = s.signals.signal(1, None);
    let i = q.write_packet(&dispatch_packet(bad.va, kernarg.va, 64, 64, completion));
    q.ring_doorbell(&s.h, i);

    let (result, data) =
        s.h.wait(&[memory_event.event_id, q.error_event], true, WAIT_MS);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
    let m = data[0].memory_exception();
    assert_eq!(m.failure.not_present, 1);
    assert_eq!(m.va, target & !(PAGE - 1));
    assert_eq!(m.gpu_id, s.h.gpu_id);
    assert_eq!(
        q.error_bits(),
        exception_mask(EC_QUEUE_WAVE_MEMORY_VIOLATION)
    );
    assert_eq!(
        s.signals.value(completion),
        1,
        "a failed dispatch does not complete"
    );
    let detail = s.h.dev.wave_error(q.queue_id).expect("detail");
    assert!(detail.contains(&format!("{target:#x}")), "{detail}");

    // The queue is halted: a later packet is not processed.
    let c = s.signals.signal(1, None);
    let j = q.write_packet(&barrier_packet(packet_type::BARRIER_AND, &[], c));
    q.ring_doorbell(&s.h, j);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(s.signals.value(c), 1);

    // A new queue on the same device works.
    let mut q2 = s.queue();
    let completion = s.signals.signal(1, Some(&s.done));
    let i = q2.write_packet(&dispatch_packet(kd, kernarg.va, 64, 64, completion));
    q2.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(s.signals.value(completion), 0);
    s.h.dev
        .destroy_queue(&mut DestroyQueueArgs {
            queue_id: q.queue_id,
            pad: 0,
        })
        .unwrap();
}

#[test]
fn malformed_packets_raise_the_matching_queue_errors() {
    let s = setup();
    let (_code, kd) = load_kernel(&s.h, "empty.co", "empty");
    type Edit = Box<dyn Fn(&mut KernelDispatchPacket)>;
    let cases: [(&str, u32, Edit); 8] = [
        (
            "4 dimensions",
            EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
            Box::new(|p| p.setup = 0),
        ),
        (
            "zero grid",
            EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
            Box::new(|p| p.grid_size_x = 0),
        ),
        (
            // 2^64 workgroups of one work-item: past the grid max size, and
            // a count that wraps to 0 in 64 bits (nothing would run).
            "2^31 x 2^31 x 4 grid",
            EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
            Box::new(|p| {
                p.setup = 3;
                (p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z) = (1, 1, 1);
                (p.grid_size_x, p.grid_size_y, p.grid_size_z) = (1 << 31, 1 << 31, 4);
            }),
        ),
        (
            "2^32 work-items",
            EC_QUEUE_PACKET_DISPATCH_DIM_INVALID,
            Box::new(|p| {
                p.setup = 2;
                (p.grid_size_x, p.grid_size_y) = (1 << 16, 1 << 16);
            }),
        ),
        (
            "2048 work-items",
            EC_QUEUE_PACKET_DISPATCH_WORK_GROUP_SIZE_INVALID,
            Box::new(|p| p.workgroup_size_x = 2048),
        ),
        (
            "128 KiB LDS",
            EC_QUEUE_PACKET_DISPATCH_GROUP_SEGMENT_SIZE_INVALID,
            Box::new(|p| p.group_segment_size = 128 << 10),
        ),
        (
            "unaligned kernel object",
            EC_QUEUE_PACKET_DISPATCH_CODE_INVALID,
            Box::new(|p| p.kernel_object += 4),
        ),
        (
            // Past COMPUTE_TMPRING_SIZE.WAVESIZE for any wave size: refused
            // before anything is sized for it.
            "4 GiB of scratch per work-item",
            EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
            Box::new(|p| p.private_segment_size = 0xffff_fff0),
        ),
    ];
    for (what, code, edit) in cases {
        let mut q = s.queue();
        let mut p: KernelDispatchPacket = bytemuck::cast(dispatch_packet(kd, 0, 64, 64, 0));
        edit(&mut p);
        let i = q.write_packet(&bytemuck::cast(p));
        q.ring_doorbell(&s.h, i);
        assert_eq!(
            s.h.wait(&[q.error_event], false, WAIT_MS).0,
            KFD_IOC_WAIT_RESULT_COMPLETE,
            "{what}"
        );
        assert_eq!(q.error_bits(), exception_mask(code), "{what}");
    }
    // Agent-dispatch packets are not for GPUs; reserved fence scopes are malformed.
    for (kind_bits, code) in [
        (packet_type::AGENT_DISPATCH, EC_QUEUE_PACKET_UNSUPPORTED),
        (
            packet_type::BARRIER_AND | (3 << 9),
            EC_QUEUE_PACKET_RESERVED,
        ),
    ] {
        let mut q = s.queue();
        let mut raw = barrier_packet(packet_type::BARRIER_AND, &[], 0);
        raw[..2].copy_from_slice(&kind_bits.to_le_bytes());
        let i = q.write_packet(&raw);
        q.ring_doorbell(&s.h, i);
        assert_eq!(
            s.h.wait(&[q.error_event], false, WAIT_MS).0,
            KFD_IOC_WAIT_RESULT_COMPLETE
        );
        assert_eq!(q.error_bits(), exception_mask(code));
    }
}

#[test]
fn the_barrier_bit_waits_for_earlier_packets() {
    let s = setup();
    let mut q = s.queue();
    let gate = s.signals.signal(1, None);
    let wake = s.h.create_event(event_type::SIGNAL, true);
    let c0 = s.signals.signal(1, None);
    let c1 = s.signals.signal(1, Some(&s.done));
    q.write_packet(&barrier_packet(packet_type::BARRIER_AND, &[gate], c0));
    let mut p1 = barrier_packet(packet_type::BARRIER_AND, &[], c1);
    p1[..2].copy_from_slice(&header(packet_type::BARRIER_AND, true).to_le_bytes());
    let i = q.write_packet(&p1);
    q.ring_doorbell(&s.h, i);
    let t = Instant::now();
    assert_eq!(
        s.h.wait(&[s.done.event_id], false, 40).0,
        KFD_IOC_WAIT_RESULT_TIMEOUT
    );
    assert!(t.elapsed() >= Duration::from_millis(40));
    s.signals.store(gate, 0);
    s.h.set_event(wake.event_id);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!((s.signals.value(c0), s.signals.value(c1)), (0, 0));
}

/// Code object v5 kernargs of `vector_copy(src, dst, n)` for a 1D grid.
fn vector_copy_kernargs(src: u64, dst: u64, n: u32, grid: u32, wg: u16) -> Vec<u8> {
    let mut k = vec![0u8; 280];
    k[0..8].copy_from_slice(&src.to_le_bytes());
    k[8..16].copy_from_slice(&dst.to_le_bytes());
    k[16..20].copy_from_slice(&n.to_le_bytes());
    k[24..28].copy_from_slice(&(grid / wg as u32).to_le_bytes()); // hidden_block_count_x
    k[28..32].copy_from_slice(&1u32.to_le_bytes());
    k[32..36].copy_from_slice(&1u32.to_le_bytes());
    k[36..38].copy_from_slice(&wg.to_le_bytes()); // hidden_group_size_x
    k[38..40].copy_from_slice(&1u16.to_le_bytes());
    k[40..42].copy_from_slice(&1u16.to_le_bytes());
    k[42..44].copy_from_slice(&((grid % wg as u32) as u16).to_le_bytes()); // hidden_remainder_x
    k[88..90].copy_from_slice(&1u16.to_le_bytes()); // hidden_grid_dims
    k
}

#[test]
fn overlapping_vector_copies_move_the_data() {
    let s = setup();
    let mut q = s.queue();
    let (_code, kd) = load_kernel(&s.h, "vector_copy.co", "vector_copy");
    const N: u32 = 1000;
    const GRID: u32 = 1024;
    let bufs: Vec<Buffer> = (0..4)
        .map(|_| s.h.buffer(GRID as u64 * 4, GTT_FLAGS))
        .collect();
    let input = |seed: u32| (0..GRID).map(move |i| i.wrapping_mul(2654435761) ^ seed);
    for (b, seed) in [(&bufs[0], 0x1234u32), (&bufs[2], 0xabcd)] {
        let words: Vec<u32> = input(seed).collect();
        b.write_bytes(0, bytemuck::cast_slice(&words));
    }
    let kernargs = s.h.buffer(PAGE, GTT_FLAGS);
    kernargs.write_bytes(
        0,
        &vector_copy_kernargs(bufs[0].va, bufs[1].va, N, GRID, 64),
    );
    kernargs.write_bytes(
        512,
        &vector_copy_kernargs(bufs[2].va, bufs[3].va, N, GRID, 128),
    );
    let c0 = s.signals.signal(1, None);
    let c1 = s.signals.signal(1, Some(&s.done));
    q.write_packet(&dispatch_packet(kd, kernargs.va, GRID, 64, c0));
    let i = q.write_packet(&dispatch_packet(kd, kernargs.va + 512, GRID, 128, c1));
    let before = s.h.dev.stats();
    q.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!((s.signals.value(c0), s.signals.value(c1)), (0, 0));
    assert_eq!(q.error_bits(), 0, "{:?}", s.h.dev.wave_error(q.queue_id));
    for (src_seed, dst) in [(0x1234u32, &bufs[1]), (0xabcd, &bufs[3])] {
        // SAFETY: the BO is mapped on the host at its VA for GRID words.
        let got = unsafe { std::slice::from_raw_parts(dst.ptr::<u32>(0), GRID as usize) };
        let want: Vec<u32> = input(src_seed)
            .enumerate()
            .map(|(i, v)| if i < N as usize { v } else { 0 })
            .collect();
        assert_eq!(got, &want[..]);
    }
    let after = s.h.dev.stats();
    assert_eq!(after.dispatches - before.dispatches, 2);
    assert_eq!(after.workgroups - before.workgroups, 16 + 8);
}

#[test]
fn an_out_of_bounds_store_faults_at_its_address() {
    let s = setup();
    let mut q = s.queue();
    let memory_event = s.h.create_event(event_type::MEMORY, false);
    let (_code, kd) = load_kernel(&s.h, "oob_write.co", "oob_write");
    let target = reserve_va(PAGE) + 0x40;
    let mut k = vec![0u8; 280];
    k[0..8].copy_from_slice(&target.to_le_bytes());
    k[8..12].copy_from_slice(&7u32.to_le_bytes());
    // oob_write's hidden args start at 16.
    k[16..20].copy_from_slice(&1u32.to_le_bytes());
    k[20..24].copy_from_slice(&1u32.to_le_bytes());
    k[24..28].copy_from_slice(&1u32.to_le_bytes());
    k[28..30].copy_from_slice(&64u16.to_le_bytes());
    k[30..32].copy_from_slice(&1u16.to_le_bytes());
    k[32..34].copy_from_slice(&1u16.to_le_bytes());
    let kernargs = s.h.buffer(PAGE, GTT_FLAGS);
    kernargs.write_bytes(0, &k);
    let completion = s.signals.signal(1, None);
    let i = q.write_packet(&dispatch_packet(kd, kernargs.va, 64, 64, completion));
    q.ring_doorbell(&s.h, i);
    let (result, data) =
        s.h.wait(&[memory_event.event_id, q.error_event], true, WAIT_MS);
    assert_eq!(result, KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(data[0].memory_exception().va, target & !(PAGE - 1));
    assert_eq!(data[0].memory_exception().failure.not_present, 1);
    assert_eq!(
        q.error_bits(),
        exception_mask(EC_QUEUE_WAVE_MEMORY_VIOLATION)
    );
    assert_eq!(s.signals.value(completion), 1);
    let detail = s.h.dev.wave_error(q.queue_id).unwrap();
    assert!(detail.contains(&format!("{target:#x}")), "{detail}");
}

/// Kernargs of faults.co's `spin(flag)` (tests/kernels/src/faults.cl):
/// it loops until `flag[0]` is nonzero, then work-item 0 sets `flag[1]`.
fn spin_kernel(h: &Harness) -> (Buffer, u64) {
    load_object(h, "tests/kernels/gfx1100/faults.co", "spin")
}

/// One workgroup, nothing behind it: the command processor runs it on its
/// own thread. Destroying the queue must still stop the endless kernel (as
/// it does for one on the worker threads) and the device stays usable.
#[test]
fn destroying_a_queue_stops_an_endless_one_workgroup_kernel() {
    destroy_stops_an_endless_kernel(&setup(), 64);
}

/// With one worker thread the command processor runs dispatches of any size
/// itself: destroying the queue stops an endless one of many workgroups too.
#[test]
fn with_one_worker_destroying_a_queue_stops_an_endless_kernel() {
    let h = Harness::with(1, 1);
    let (signals, done) = Signals::new(&h);
    destroy_stops_an_endless_kernel(&Setup { h, signals, done }, 16 * 64);
}

/// Dispatch `spin` over `grid` work-items (workgroups of 64), destroy its
/// queue while it spins, then run a kernel on another queue.
fn destroy_stops_an_endless_kernel(s: &Setup, grid: u32) {
    let mut q = s.queue();
    let (_code, spin) = spin_kernel(&s.h);
    let flag = s.h.buffer(PAGE, GTT_FLAGS);
    let kernarg = s.h.buffer(PAGE, GTT_FLAGS);
    kernarg.write_bytes(0, &flag.va.to_le_bytes());
    let completion = s.signals.signal(1, None);
    let i = q.write_packet(&dispatch_packet(spin, kernarg.va, grid, 64, completion));
    q.ring_doorbell(&s.h, i);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(s.signals.value(completion), 1, "still spinning");

    let (tx, rx) = std::sync::mpsc::channel();
    let dev = s.h.dev.clone();
    let queue_id = q.queue_id;
    std::thread::spawn(move || {
        let _ = tx.send(dev.destroy_queue(&mut DestroyQueueArgs {
            queue_id,
            ..Default::default()
        }));
    });
    let destroyed = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("destroying the queue did not stop its kernel");
    destroyed.expect("destroy queue");
    assert_eq!(
        s.signals.value(completion),
        1,
        "a destroyed packet never completes"
    );
    assert_eq!(
        flag.atomic_u64(0)
            .load(std::sync::atomic::Ordering::Acquire),
        0
    );

    // Another queue runs work after it.
    let mut q2 = s.queue();
    let (_empty, kd) = load_kernel(&s.h, "empty.co", "empty");
    let c = s.signals.signal(1, Some(&s.done));
    let i = q2.write_packet(&dispatch_packet(kd, kernarg.va, 64, 64, c));
    q2.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(s.signals.value(c), 0);
}

/// A one-workgroup kernel that waits for the dispatch written right behind
/// it (no barrier bit) ends: the command processor runs a small dispatch
/// itself only when no later packet is there to overlap with it, so here
/// both go to the workers and overlap, as on hardware.
#[test]
fn a_small_dispatch_overlaps_the_packet_already_behind_it() {
    let s = setup();
    let mut q = s.queue();
    let (_code, spin) = spin_kernel(&s.h);
    let (_copy, copy) = load_kernel(&s.h, "vector_copy.co", "vector_copy");
    let flag = s.h.buffer(PAGE, GTT_FLAGS);
    let one = s.h.buffer(PAGE, GTT_FLAGS);
    one.write_bytes(0, &7u32.to_le_bytes());
    let kernargs = s.h.buffer(PAGE, GTT_FLAGS);
    kernargs.write_bytes(0, &flag.va.to_le_bytes());
    kernargs.write_bytes(512, &vector_copy_kernargs(one.va, flag.va, 1, 64, 64));
    let c0 = s.signals.signal(1, None);
    let c1 = s.signals.signal(1, None);
    let done = s.signals.signal(1, Some(&s.done));
    q.write_packet(&dispatch_packet(spin, kernargs.va, 64, 64, c0));
    q.write_packet(&dispatch_packet(copy, kernargs.va + 512, 64, 64, c1));
    let i = q.write_packet(&barrier_packet(packet_type::BARRIER_AND, &[c0, c1], done));
    q.ring_doorbell(&s.h, i);
    assert_eq!(s.wait_done(), KFD_IOC_WAIT_RESULT_COMPLETE);
    assert_eq!(
        (
            s.signals.value(c0),
            s.signals.value(c1),
            s.signals.value(done)
        ),
        (0, 0, 0)
    );
    // SAFETY: the BO is mapped on the host at its VA.
    let words = unsafe { std::slice::from_raw_parts(flag.ptr::<u32>(0), 2) };
    assert_eq!(
        words,
        [7, 1],
        "the copy released the spin, which then set flag[1]"
    );
}

/// Forcing the translator off runs the interpreter from the next dispatch,
/// even for blocks the device's workers translated before (aqueduct-isa's
/// jit/tier.rs `Tiers::configure`); forcing it on again runs the shared
/// translations, and in the tiered mode from each block's first entry
/// (`Tiers::adopt`: the kernel's 32 waves enter each block fewer times
/// than a block must be entered to be made hot), also where the block had
/// counted entries before its translation was made.
#[test]
fn forcing_the_translator_off_runs_only_the_interpreter() {
    use aqueduct_isa::JitMode;
    let Some(_mode) = forced_mode() else {
        return;
    };
    let s = setup();
    let mut copy = ForcedCopy::new(&s, 2654435761);
    // The first tiered dispatch only counts entries (nothing is hot or
    // translated yet); every later one adopts the translations the `always`
    // dispatch made, although each block's count stands at 32 by then.
    for (k, mode) in [
        JitMode::Tiered,
        JitMode::Always,
        JitMode::Off,
        JitMode::Tiered,
        JitMode::Off,
        JitMode::Always,
    ]
    .into_iter()
    .enumerate()
    {
        let (all, translated) = copy.run(&s, mode);
        if mode == JitMode::Off || k == 0 {
            assert_eq!(translated, 0, "{all} wave instructions, some translated");
        } else {
            assert_eq!(translated, all, "{mode:?}: every block translated");
        }
    }
}

/// The process-wide translator mode (`force_jit`): one test at a time may force it.
static FORCED_MODE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Hold the right to force the translator mode, or None (having said why)
/// where this build or host has no back end to force.
fn forced_mode() -> Option<std::sync::MutexGuard<'static, ()>> {
    let guard = FORCED_MODE.lock().unwrap_or_else(|e| e.into_inner());
    if aqueduct_isa::jit_backend().is_none() {
        eprintln!("skipping: no translator back end in this build or host");
        return None;
    }
    Some(guard)
}

/// A block warming up in the tiered mode keeps its entry count while the
/// translator is forced off (aqueduct-isa's jit/tier.rs `Tiers::configure`):
/// each tiered dispatch here enters the kernel's blocks fewer times than a
/// block must be entered to be made hot, and no translation of them exists
/// to adopt, so the blocks get hot only if the counts of the tiered
/// dispatches add up across the interpreted ones between them.
#[test]
fn a_block_warming_up_keeps_its_count_while_the_translator_is_off() {
    use aqueduct_isa::JitMode;
    let Some(_mode) = forced_mode() else {
        return;
    };
    // One worker: every dispatch, tiered or not, reconfigures its tiers (a
    // worker that ran no workgroup of an interpreted dispatch would keep
    // its counts whatever the tiers do).
    let h = Harness::with(1, 1);
    let (signals, done) = Signals::new(&h);
    let s = Setup { h, signals, done };
    let mut copy = ForcedCopy::new(&s, 2246822519);
    // 32 entries of each block a dispatch.
    assert!(ForcedCopy::GRID / 32 < JitMode::Tiered.threshold());
    // The hot blocks' translations compile in the background: tiered
    // dispatches go on until one runs them, for at most this long.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut tiered = 0;
    let translated_in = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "{tiered} tiered dispatches, none translated: the counts start again after each \
             interpreted dispatch"
        );
        let (_, translated) = copy.run(&s, JitMode::Tiered);
        let (_, off) = copy.run(&s, JitMode::Off);
        assert_eq!(off, 0, "translated with the translator off");
        tiered += 1;
        if translated > 0 {
            break tiered;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // 64 entries after two tiered dispatches: hot at the third's first entry.
    assert!(
        translated_in >= 3,
        "translated in tiered dispatch {translated_in}"
    );
}

/// The eager mode (`JitMode::Eager`) makes a block hot at its second entry
/// and compiles it in the background, where the tiered mode needs 64: one
/// eager dispatch (32 entries of each block) has every block's translation
/// made, and the next tiered dispatch adopts them all, although no block
/// has been entered the tiered threshold's times.
#[test]
fn the_eager_mode_makes_blocks_hot_at_their_second_entry() {
    use aqueduct_isa::JitMode;
    let Some(_mode) = forced_mode() else {
        return;
    };
    let h = Harness::with(1, 1);
    let (signals, done) = Signals::new(&h);
    let s = Setup { h, signals, done };
    let mut copy = ForcedCopy::new(&s, 3266489917);
    assert!(ForcedCopy::GRID / 32 < JitMode::Tiered.threshold());
    let (requested, _) = aqueduct_isa::background_translations();
    copy.run(&s, JitMode::Eager);
    assert!(
        aqueduct_isa::background_translations().0 > requested,
        "nothing made hot at its second entry"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while aqueduct_isa::background_translations().1 != 0 {
        assert!(std::time::Instant::now() < deadline, "compiles not done");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (all, translated) = copy.run(&s, JitMode::Tiered);
    assert_eq!(
        translated, all,
        "every block translated after one eager dispatch"
    );
}

/// vector_copy over a 1024-word grid in workgroups of 64 (16 workgroups of
/// two wave32 waves), dispatched under a forced translator mode.
struct ForcedCopy {
    q: TestQueue,
    kd: u64,
    kernargs: Buffer,
    dst: Buffer,
    words: Vec<u32>,
    /// One completion signal for every dispatch (a fresh one each would
    /// use up the signal page).
    completion: u64,
    _code: Buffer,
    _src: Buffer,
}

impl ForcedCopy {
    const GRID: u32 = 1024;

    fn new(s: &Setup, multiplier: u32) -> ForcedCopy {
        let q = s.queue();
        let (code, kd) = load_kernel(&s.h, "vector_copy.co", "vector_copy");
        let grid = Self::GRID;
        let (src, dst) = (
            s.h.buffer(grid as u64 * 4, GTT_FLAGS),
            s.h.buffer(grid as u64 * 4, GTT_FLAGS),
        );
        let words: Vec<u32> = (0..grid).map(|i| i.wrapping_mul(multiplier)).collect();
        src.write_bytes(0, bytemuck::cast_slice(&words));
        let kernargs = s.h.buffer(PAGE, GTT_FLAGS);
        kernargs.write_bytes(0, &vector_copy_kernargs(src.va, dst.va, grid, grid, 64));
        let completion = s.signals.signal(1, Some(&s.done));
        ForcedCopy {
            q,
            kd,
            kernargs,
            dst,
            words,
            completion,
            _code: code,
            _src: src,
        }
    }

    /// Dispatch the copy with the translator forced to `mode`, check that it
    /// completed and copied every word; its wave instructions and how many
    /// of them ran translated.
    fn run(&mut self, s: &Setup, mode: aqueduct_isa::JitMode) -> (u64, u64) {
        aqueduct_isa::force_jit(Some(mode));
        let before = s.h.dev.stats();
        s.signals.store(self.completion, 1);
        let packet = dispatch_packet(self.kd, self.kernargs.va, Self::GRID, 64, self.completion);
        let i = self.q.write_packet(&packet);
        self.q.ring_doorbell(&s.h, i);
        let done = s.wait_done();
        aqueduct_isa::force_jit(None);
        assert_eq!(done, KFD_IOC_WAIT_RESULT_COMPLETE);
        let q = &self.q;
        assert_eq!(q.error_bits(), 0, "{:?}", s.h.dev.wave_error(q.queue_id));
        let after = s.h.dev.stats();
        // SAFETY: the BO is mapped on the host at its VA for GRID words.
        let got =
            unsafe { std::slice::from_raw_parts(self.dst.ptr::<u32>(0), Self::GRID as usize) };
        assert_eq!(got, &self.words[..]);
        (
            after.wave_instructions - before.wave_instructions,
            after.translated_wave_instructions - before.translated_wave_instructions,
        )
    }
}
