//! gfxsim's strict coherence mode through aqueduct-hsa: coarse-grained
//! memory (VRAM) is cached per GPU and only system-scope fences move it to
//! and from the memory the host sees, and a dispatch launched with acquire
//! scope NONE may read old per-CU cache lines of what earlier dispatches on
//! the same agent wrote.
//!
//! Each missing-fence case checks both halves: the stale bytes are really
//! read (exactly the old values, as on hardware), and the report names the
//! allocation, the packet and the stale range. Each correct sequence checks
//! the right data and no report. The same missing fence with strict mode
//! off reads fresh data: the default device stays coherent.

use aqueduct_gfxsim::{
    AMDGPU_POISON, CoherenceReport, FreshVram, PacketId, SimConfig, SimDevice, StaleRead,
};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::queue::packet;
use aqueduct_hsa::{Allocation, PacketFence, Queue, Runtime, RuntimeOptions};
use aqueduct_kfd::abi::FenceScope;
use aqueduct_test_harness::hsa_sim::*;

/// Words each test moves (a few workgroups of 64).
const N: usize = 1000;

/// What every word of a new VRAM BO holds on [`strict_gpu`]'s device.
const FRESH: u32 = AMDGPU_POISON;

fn strict_gpu(strict: bool, gpus: usize) -> Gpu {
    let sim = SimDevice::new(SimConfig {
        gpus,
        threads: SIM_THREADS,
        strict_coherence: strict,
        // Stale copies read as what a fresh BO holds: FRESH below.
        fresh_vram: FreshVram::Poison,
        ..SimConfig::default()
    })
    .expect("SimDevice::new");
    let options = RuntimeOptions {
        visible_devices: None,
        aperture_size: 16 << 30,
    };
    let rt = Runtime::with_options(sim.clone(), options).expect("runtime");
    let agent = rt.gpu_agent(0).expect("a GPU agent").clone();
    Gpu { rt, sim, agent }
}

fn fence(acquire: FenceScope, release: FenceScope) -> PacketFence {
    PacketFence {
        barrier: true,
        acquire,
        release,
    }
}

/// vector_copy(src, dst, N) on `queue` with `fence`; waits for it and
/// returns its packet index.
fn copy(gpu: &Gpu, queue: &Queue, prog: &Program, src: u64, dst: u64, f: PacketFence) -> u64 {
    copy_n(gpu, queue, prog, src, dst, N, f)
}

/// vector_copy(src, dst, n) on `queue` with `fence`; waits for it and
/// returns its packet index.
fn copy_n(
    gpu: &Gpu,
    queue: &Queue,
    prog: &Program,
    src: u64,
    dst: u64,
    n: usize,
    f: PacketFence,
) -> u64 {
    let launch = gpu.launch(
        &prog.kernel,
        &[Arg::Ptr(src), Arg::Ptr(dst), Arg::U32(n as u32)],
        [n as u32, 1, 1],
        [64, 1, 1],
    );
    let done = gpu.signal(1);
    let mut d = launch.dispatch;
    d.completion_signal = done.handle();
    d.fence = f;
    let index = queue
        .submit_dispatch(&d.to_packet().expect("packet"))
        .expect("submit");
    wait_zero(&done).expect("dispatch completes");
    index
}

/// Host-fill `a` with `words`.
fn fill(a: &mut Allocation, words: &[u32]) {
    host_bytes_mut(a)[..words.len() * 4].copy_from_slice(bytemuck::cast_slice(words));
}

/// Bytes that differ between two word arrays.
fn differing_bytes(a: &[u32], b: &[u32]) -> u64 {
    let (a, b): (&[u8], &[u8]) = (bytemuck::cast_slice(a), bytemuck::cast_slice(b));
    a.iter().zip(b).filter(|(x, y)| x != y).count() as u64
}

/// A nop barrier packet with `f`, waited for.
fn nop(gpu: &Gpu, queue: &Queue, f: PacketFence) {
    let done = gpu.signal(1);
    let mut p = packet::nop(f);
    p.completion_signal = done.handle();
    queue.submit(&p).expect("submit nop");
    wait_zero(&done).expect("nop completes");
}

fn only_report(reports: &[CoherenceReport]) -> &CoherenceReport {
    assert_eq!(reports.len(), 1, "reports: {reports:#?}");
    &reports[0]
}

#[test]
fn missing_system_release_leaves_the_host_reading_stale_bytes() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(1).u32s(N);
    let old = Rng::new(2).u32s(N);
    let src = gpu.upload_u32(&input);
    let mut dst = gpu.alloc_vram(N as u64 * 4);
    fill(&mut dst, &old);

    // System acquire (the host filled dst), but only an agent-scope release.
    let index = copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::System, FenceScope::Agent),
    );
    // The host reads what memory holds: its own old bytes, not the kernel's.
    assert_same(&read_u32(&dst, N), &old, "host view without a release");
    // The GPU sees its own writes.
    let device: Vec<u32> = gpu
        .sim
        .with_gpu_memory(gpu.agent.gpu_id, |m| {
            let p = m
                .translate(dst.gpu_va(), N as u64 * 4, aqueduct_isa::Access::Read)
                .expect("dst mapped");
            // SAFETY: translate checked N*4 bytes at p; the queue is idle.
            let bytes = unsafe { std::slice::from_raw_parts(p, N * 4) };
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .expect("gpu");
    assert_same(&device, &input, "GPU view");

    let reports = gpu.sim.coherence_reports();
    let r = only_report(&reports);
    assert_eq!(r.kind, StaleRead::HostReadsUnreleasedKernelWrites);
    assert_eq!(r.allocation.handle, dst.kfd_handle());
    assert_eq!(r.allocation.va, dst.gpu_va());
    assert_eq!(r.gpu_id, gpu.agent.gpu_id);
    assert_eq!(r.packet_index, index);
    assert_eq!(r.scope, FenceScope::Agent);
    assert_eq!(r.stale_bytes, differing_bytes(&input, &old));
    let first = (0..N).find(|&i| input[i] != old[i]).unwrap();
    let last = (0..N).rev().find(|&i| input[i] != old[i]).unwrap();
    assert!(r.stale.start >= dst.gpu_va() + first as u64 * 4);
    assert!(r.stale.start < dst.gpu_va() + first as u64 * 4 + 4);
    assert!(r.stale.end > dst.gpu_va() + last as u64 * 4);
    assert!(r.stale.end <= dst.gpu_va() + last as u64 * 4 + 4);
    assert!(r.to_string().contains(&format!("{:#x}", dst.kfd_handle())));

    // The ownership transfer the runtime forgot: a system-scope release
    // (here a nop barrier packet) writes the GPU's copy back.
    nop(&gpu, &queue, fence(FenceScope::None, FenceScope::System));
    assert_same(&read_u32(&dst, N), &input, "host view after the release");
    assert_eq!(gpu.sim.coherence_reports().len(), 1, "no new report");
}

#[test]
fn system_release_makes_kernel_writes_visible_without_reports() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(3).u32s(N);
    let src = gpu.upload_u32(&input);
    let mut dst = gpu.alloc_vram(N as u64 * 4);
    fill(&mut dst, &vec![0xdead_beef; N]);
    let before = gpu.sim.coherence_stats();
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    assert_same(&read_u32(&dst, N), &input, "host view");
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    let after = gpu.sim.coherence_stats();
    assert_eq!(after.releases, before.releases + 1);
    assert!(after.written_back >= before.written_back + N as u64 * 4);
    assert_eq!(after.acquires, before.acquires + 1);
    assert!(after.reloaded >= N as u64 * 4, "the acquire reloaded dst");
}

#[test]
fn missing_system_acquire_lets_the_kernel_read_stale_host_writes() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(4).u32s(N);
    // src is coarse and host mapped; the GPU's copy was taken at MAP time
    // (a fresh BO's contents), then the host writes it.
    let mut src = gpu.alloc_vram(N as u64 * 4);
    fill(&mut src, &input);
    let dst = gpu.filled_u32(N, 0x5555_5555);

    let index = copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::Agent, FenceScope::System),
    );
    assert_same(
        &read_u32(&dst, N),
        &vec![FRESH; N],
        "kernel read the GPU's old copy",
    );
    let reports = gpu.sim.coherence_reports();
    let r = only_report(&reports);
    assert_eq!(r.kind, StaleRead::KernelReadsUnacquiredHostWrites);
    assert_eq!(r.allocation.handle, src.kfd_handle());
    assert_eq!(r.allocation.va, src.gpu_va());
    assert!(r.allocation.size >= N as u64 * 4);
    assert_eq!(r.packet_index, index);
    assert_eq!(r.scope, FenceScope::Agent);
    assert_eq!(r.stale_bytes, differing_bytes(&input, &vec![FRESH; N]));
    let (at, len) = r.read_at.expect("read address");
    assert!(at >= src.gpu_va() && at + len <= src.gpu_va() + N as u64 * 4);
    assert!(
        r.stale.start < at + len && at < r.stale.end,
        "the read hit the stale range"
    );

    // With the system-scope acquire the kernel sees the host's data.
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    assert_same(&read_u32(&dst, N), &input, "after a system acquire");
    assert_eq!(gpu.sim.coherence_reports().len(), 1, "no new report");
}

#[test]
fn agent_scope_suffices_between_queues_of_one_agent() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let producer = gpu.queue(64);
    let consumer = gpu.queue(64);
    let input = Rng::new(5).u32s(N);
    let src = gpu.upload_u32(&input);
    // A device-only coarse intermediate (not host mapped).
    let mid = gpu
        .rt
        .pool(&gpu.agent, PoolKind::CoarseDevice)
        .unwrap()
        .allocate(N as u64 * 4)
        .unwrap();
    let dst = gpu.filled_u32(N, 0);

    // Producer: agent-scope release, its completion signal consumed by a
    // barrier packet of another queue on the same GPU (agent scope too).
    let launch = gpu.launch(
        &prog.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(mid.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    );
    let produced = gpu.signal(1);
    let mut d = launch.dispatch;
    d.completion_signal = produced.handle();
    d.fence = fence(FenceScope::System, FenceScope::Agent);
    let wait = packet::barrier_and(
        &[produced.handle()],
        0,
        fence(FenceScope::Agent, FenceScope::Agent),
    )
    .unwrap();
    consumer.submit(&wait).unwrap();
    producer.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    copy(
        &gpu,
        &consumer,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::Agent, FenceScope::System),
    );
    assert_same(&read_u32(&dst, N), &input, "consumer on the same agent");
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    assert!(
        gpu.sim.coherence_stats().cached_mappings >= 1,
        "mid has a GPU copy"
    );
}

#[test]
fn strict_mode_off_keeps_coarse_memory_coherent() {
    let gpu = strict_gpu(false, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(6).u32s(N);
    let src = gpu.upload_u32(&input);
    let dst = gpu.alloc_vram(N as u64 * 4);
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::Agent, FenceScope::None),
    );
    assert_same(&read_u32(&dst, N), &input, "coherent default");
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    assert_eq!(gpu.sim.coherence_stats().cached_mappings, 0);
}

/// Two GPUs share a coarse buffer of GPU 0: each has its own copy, so the
/// producer must release at system scope and the consumer acquire at system
/// scope; agent scope on either side leaves the other GPU stale.
#[test]
fn cross_agent_consumer_needs_system_scope_on_both_sides() {
    let gpu0 = strict_gpu(true, 2);
    let agent1 = gpu0.rt.gpu_agent(1).expect("second GPU").clone();
    let gpu1 = Gpu {
        rt: gpu0.rt.clone(),
        sim: gpu0.sim.clone(),
        agent: agent1,
    };
    let (prog0, prog1) = (gpu0.load("vector_copy"), gpu1.load("vector_copy"));
    let (q0, q1) = (gpu0.queue(64), gpu1.queue(64));
    let input = Rng::new(7).u32s(N);
    let src = gpu0.upload_u32(&input);
    let out = gpu1.filled_u32(N, 0x7777_7777);
    let shared = gpu0
        .rt
        .pool(&gpu0.agent, PoolKind::CoarseDevice)
        .unwrap()
        .allocate(N as u64 * 4)
        .unwrap();
    shared.map_to_gpus(&[gpu1.agent.gpu_id]).unwrap();

    // Producer on GPU 0 releases at agent scope only: reported, and GPU 1
    // (even with a system acquire) reads memory without the new data.
    let produced = copy(
        &gpu0,
        &q0,
        &prog0,
        src.gpu_va(),
        shared.gpu_va(),
        fence(FenceScope::System, FenceScope::Agent),
    );
    let reports = gpu0.sim.coherence_reports();
    let r = only_report(&reports);
    assert_eq!(r.kind, StaleRead::HostReadsUnreleasedKernelWrites);
    assert_eq!(r.allocation.handle, shared.kfd_handle());
    assert_eq!(r.gpu_id, gpu0.agent.gpu_id);
    assert_eq!(r.packet_index, produced);
    copy(
        &gpu1,
        &q1,
        &prog1,
        shared.gpu_va(),
        out.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    assert_same(
        &read_u32(&out, N),
        &vec![FRESH; N],
        "GPU 1 before GPU 0 released",
    );

    // GPU 0 releases; GPU 1 acquiring at agent scope still sees its old copy.
    nop(&gpu0, &q0, fence(FenceScope::None, FenceScope::System));
    let consumed = copy(
        &gpu1,
        &q1,
        &prog1,
        shared.gpu_va(),
        out.gpu_va(),
        fence(FenceScope::Agent, FenceScope::System),
    );
    assert_same(
        &read_u32(&out, N),
        &vec![FRESH; N],
        "GPU 1 without a system acquire",
    );
    let reports = gpu0.sim.coherence_reports();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    let r = &reports[1];
    assert_eq!(r.kind, StaleRead::KernelReadsUnacquiredHostWrites);
    assert_eq!(r.allocation.handle, shared.kfd_handle());
    assert_eq!(r.gpu_id, gpu1.agent.gpu_id);
    assert_eq!(r.packet_index, consumed);

    // Both sides at system scope: the data arrives, nothing new reported.
    copy(
        &gpu1,
        &q1,
        &prog1,
        shared.gpu_va(),
        out.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    assert_same(&read_u32(&out, N), &input, "GPU 1 after release + acquire");
    assert_eq!(gpu0.sim.coherence_reports().len(), 2, "no new report");
}

/// A device-only coarse VRAM buffer of `bytes` (not host mapped, so the L2
/// model has nothing to say about it).
fn device_vram(gpu: &Gpu, bytes: u64) -> Allocation {
    gpu.rt
        .pool(&gpu.agent, PoolKind::CoarseDevice)
        .expect("device pool")
        .allocate(bytes)
        .expect("VRAM allocation")
}

/// The one per-CU cache report in `reports`, checked against the packets
/// that wrote (`writer` on `writer_queue`) and read (`reader` on
/// `reader_queue`) allocation `a` (N words from its start).
fn check_cu_report(
    reports: &[CoherenceReport],
    a: &Allocation,
    (writer_queue, writer): (&Queue, u64),
    (reader_queue, reader): (&Queue, u64),
) {
    let r = only_report(reports);
    assert_eq!(r.kind, StaleRead::KernelReadsUnacquiredKernelWrites);
    assert_eq!(r.allocation.handle, a.kfd_handle());
    assert_eq!(r.allocation.va, a.gpu_va());
    assert_eq!(r.queue_id, reader_queue.id());
    assert_eq!(r.packet_index, reader);
    assert_eq!(r.scope, FenceScope::None);
    assert_eq!(
        r.writer,
        Some(PacketId {
            queue_id: writer_queue.id(),
            index: writer,
        })
    );
    assert_eq!(r.stale, a.gpu_va()..a.gpu_va() + N as u64 * 4);
    assert_eq!(r.stale_bytes, N as u64 * 4);
    let (at, len) = r.read_at.expect("read address");
    assert!(at >= a.gpu_va() && at + len <= a.gpu_va() + N as u64 * 4);
    let text = r.to_string();
    assert!(
        text.contains(&format!("packet {writer} of queue {}", writer_queue.id())),
        "{text}"
    );
}

/// Producer then consumer on one queue: the consumer's acquire decides
/// whether its CUs may still hold old lines of the producer's output.
#[test]
fn none_acquire_after_a_dispatch_on_the_same_queue_reads_stale_cu_lines() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(8).u32s(N);
    let src = gpu.upload_u32(&input);
    let mid = device_vram(&gpu, N as u64 * 4);
    let dst = gpu.filled_u32(N, 0);
    let produce = |acquire| {
        copy(
            &gpu,
            &queue,
            &prog,
            src.gpu_va(),
            mid.gpu_va(),
            fence(acquire, FenceScope::Agent),
        )
    };
    let consume = |acquire| {
        copy(
            &gpu,
            &queue,
            &prog,
            mid.gpu_va(),
            dst.gpu_va(),
            fence(acquire, FenceScope::System),
        )
    };

    let produced = produce(FenceScope::System);
    let consumed = consume(FenceScope::None);
    // gfxsim returns the current bytes; the report says they may be old.
    assert_same(&read_u32(&dst, N), &input, "consumer");
    check_cu_report(
        &gpu.sim.coherence_reports(),
        &mid,
        (&queue, produced),
        (&queue, consumed),
    );

    // The producer again, then consumers at agent and at system scope.
    for acquire in [FenceScope::Agent, FenceScope::System] {
        produce(FenceScope::Agent);
        consume(acquire);
        assert_eq!(
            gpu.sim.coherence_reports().len(),
            1,
            "no new report with acquire {acquire:?}"
        );
    }
    // The last acquire invalidated: a NONE consumer now has nothing stale.
    consume(FenceScope::None);
    assert_eq!(
        gpu.sim.coherence_reports().len(),
        1,
        "nothing changed since"
    );
}

/// Two queues of one agent share its CUs: a consumer queue needs the
/// agent-scope acquire as much as the producer's own queue does.
#[test]
fn none_acquire_after_a_dispatch_on_another_queue_of_the_agent_reads_stale_cu_lines() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let (producer, consumer) = (gpu.queue(64), gpu.queue(64));
    let input = Rng::new(9).u32s(N);
    let src = gpu.upload_u32(&input);
    let mid = device_vram(&gpu, N as u64 * 4);
    let dst = gpu.filled_u32(N, 0);
    let produced = copy(
        &gpu,
        &producer,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        fence(FenceScope::System, FenceScope::Agent),
    );
    let consumed = copy(
        &gpu,
        &consumer,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::None, FenceScope::System),
    );
    assert_ne!(producer.id(), consumer.id());
    check_cu_report(
        &gpu.sim.coherence_reports(),
        &mid,
        (&producer, produced),
        (&consumer, consumed),
    );

    copy(
        &gpu,
        &producer,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        fence(FenceScope::Agent, FenceScope::Agent),
    );
    copy(
        &gpu,
        &consumer,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::Agent, FenceScope::System),
    );
    assert_same(&read_u32(&dst, N), &input, "consumer");
    assert_eq!(gpu.sim.coherence_reports().len(), 1, "no new report");
}

/// A NONE-acquire consumer that reads only bytes no dispatch changed since
/// the last agent-scope acquire has nothing stale to read.
#[test]
fn none_acquire_reading_unchanged_bytes_is_not_reported() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let half = N / 2;
    let input = Rng::new(10).u32s(N);
    let src = gpu.upload_u32(&input);
    let mid = device_vram(&gpu, N as u64 * 4);
    let dst = gpu.filled_u32(N, 0);
    // Fill all of mid, and let an agent-scope acquire invalidate.
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    nop(&gpu, &queue, fence(FenceScope::Agent, FenceScope::None));
    // Rewrite the first half only; the consumer reads the second half and
    // a buffer no kernel wrote.
    copy_n(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        half,
        fence(FenceScope::Agent, FenceScope::Agent),
    );
    copy_n(
        &gpu,
        &queue,
        &prog,
        mid.gpu_va() + half as u64 * 4,
        dst.gpu_va(),
        N - half,
        fence(FenceScope::None, FenceScope::System),
    );
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::None, FenceScope::System),
    );
    assert_same(&read_u32(&dst, N), &input, "consumer");
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    // The changed half is still stale for a NONE consumer.
    copy_n(
        &gpu,
        &queue,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        half,
        fence(FenceScope::None, FenceScope::System),
    );
    let reports = gpu.sim.coherence_reports();
    let r = only_report(&reports);
    assert_eq!(r.kind, StaleRead::KernelReadsUnacquiredKernelWrites);
    assert_eq!(r.stale, mid.gpu_va()..mid.gpu_va() + half as u64 * 4);
}

/// Fine-grained memory is MTYPE UC on gfx11, which keeps it out of the L2
/// only: the per-CU caches hold it like coarse memory, so a NONE-acquire
/// consumer of a kernel's fine-grained output is reported too.
#[test]
fn fine_grained_memory_is_cached_per_cu_too() {
    let gpu = strict_gpu(true, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(11).u32s(N);
    let src = gpu.upload_u32(&input);
    let mid = gpu.filled_u32(N, 0);
    let dst = gpu.filled_u32(N, 0);
    let produced = copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    let consumed = copy(
        &gpu,
        &queue,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::None, FenceScope::System),
    );
    assert_same(&read_u32(&dst, N), &input, "consumer");
    check_cu_report(
        &gpu.sim.coherence_reports(),
        &mid,
        (&queue, produced),
        (&queue, consumed),
    );
}

/// Off strict mode nothing of this is tracked or reported.
#[test]
fn strict_mode_off_reports_no_per_cu_staleness() {
    let gpu = strict_gpu(false, 1);
    let prog = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let input = Rng::new(12).u32s(N);
    let src = gpu.upload_u32(&input);
    let mid = device_vram(&gpu, N as u64 * 4);
    let dst = gpu.filled_u32(N, 0);
    copy(
        &gpu,
        &queue,
        &prog,
        src.gpu_va(),
        mid.gpu_va(),
        PacketFence::SYSTEM_ORDERED,
    );
    copy(
        &gpu,
        &queue,
        &prog,
        mid.gpu_va(),
        dst.gpu_va(),
        fence(FenceScope::None, FenceScope::System),
    );
    assert_same(&read_u32(&dst, N), &input, "consumer");
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
}
