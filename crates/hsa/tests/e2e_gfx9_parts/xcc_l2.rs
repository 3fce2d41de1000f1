//! The MI300X's per-XCC L2s in strict coherence mode: a kernel on one XCC
//! reads what a kernel on another stored only after the writer's L2 wrote
//! it back and the reader's L2 invalidated (gfxsim's
//! `coherence/xcc_l2.rs`). kernels/gfx942/xcc_handoff.co hands partial
//! values from every workgroup to the last one through a ticket counter,
//! with device-scope ordering (`buffer_wbl2 sc1` / `buffer_inv sc1`) or
//! work-group-scope ordering (no cache maintenance); vector_copy moves data
//! between two dispatches of one queue whose workgroups split it
//! differently, so most bytes change XCC on the way. The queue is the
//! device's first, so workgroup `g` runs on XCC `g mod 8` (xcc.rs).

use super::{SENTINEL, load};
use aqueduct_gfxsim::{SimConfig, SimPart, StaleRead, XccPair};
use aqueduct_hsa::{PacketFence, Queue};
use aqueduct_kfd::abi::FenceScope;
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Launch, Rng, read_u32, wait_zero};
use aqueduct_test_support::repo;

const XCCS: u32 = 8;

/// Workgroups of the handoff (more than one round over the XCCs).
const GROUPS: u32 = 12;

fn mi300x(strict: bool) -> Gpu {
    Gpu::with_config(SimConfig {
        part: SimPart::Mi300x,
        threads: 2,
        vram_size: 2 << 30,
        strict_coherence: strict,
        ..SimConfig::default()
    })
}

fn strict_mi300x() -> Gpu {
    mi300x(true)
}

/// Run `kernel` of xcc_handoff.co over [`GROUPS`] workgroups on a strict
/// MI300X; returns the device, what the kernel stored at out[0..2], the
/// partial buffer's address and the launched kernel object.
fn handoff(kernel: &str) -> (Gpu, [u32; 2], u64, u64) {
    handoff_on(strict_mi300x(), kernel)
}

/// [`handoff`] on `gpu`.
fn handoff_on(gpu: Gpu, kernel: &str) -> (Gpu, [u32; 2], u64, u64) {
    let program = gpu
        .load_bytes(&repo::kernel("gfx942/xcc_handoff.co"), kernel)
        .unwrap_or_else(|e| panic!("gfx942/xcc_handoff.co {kernel}: {e}"));
    let queue = gpu.queue(64);
    // Coarse-grained VRAM: what the L2s cache.
    let partial = gpu.alloc_device_only(u64::from(GROUPS) * 4);
    let ticket = gpu.filled_u32(1, 0);
    let out = gpu.filled_u32(2, SENTINEL);
    let launch = gpu.launch(
        &program.kernel,
        &[
            Arg::Ptr(partial.gpu_va()),
            Arg::Ptr(ticket.gpu_va()),
            Arg::Ptr(out.gpu_va()),
            Arg::U32(GROUPS),
        ],
        [GROUPS * 64, 1, 1],
        [64, 1, 1],
    );
    gpu.run_on(&queue, &launch)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    assert_eq!(
        read_u32(&ticket, 1),
        [GROUPS],
        "{kernel}: every ticket taken"
    );
    let got = read_u32(&out, 2);
    (
        gpu,
        [got[0], got[1]],
        partial.gpu_va(),
        launch.dispatch.kernel_object,
    )
}

/// What the last workgroup sums.
fn handoff_sum() -> u32 {
    (0..GROUPS).map(|g| 7 * g + 3).sum()
}

#[test]
fn device_scope_handoff_across_xccs_is_not_reported() {
    let (gpu, out, _, _) = handoff("handoff_device");
    assert_eq!(out[0], handoff_sum());
    assert!(out[1] < GROUPS, "last workgroup {}", out[1]);
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    // Every workgroup wrote its XCC's L2 back and the last invalidated its
    // own: the model saw the cache controls (plus the packet's fences).
    let stats = gpu.sim.coherence_stats();
    assert!(
        stats.l2_writebacks > u64::from(GROUPS) && stats.l2_invalidates > 0,
        "{stats:?}"
    );
}

#[test]
fn work_group_scope_handoff_across_xccs_is_reported() {
    let (gpu, out, partial, kernel_object) = handoff("handoff_work_group");
    // The model reports; it keeps no old lines, so the data is right.
    assert_eq!(out[0], handoff_sum());
    let reader = out[1] % XCCS;
    let reports = gpu.sim.coherence_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let r = &reports[0];
    assert_eq!(r.kind, StaleRead::KernelReadsOtherXccWrites);
    assert_eq!(r.kernel_object, Some(kernel_object));
    assert_eq!(r.allocation.va, partial);
    // The first stale word is the first partial value stored on another
    // XCC than the reader's.
    let first = (0..GROUPS)
        .find(|g| g % XCCS != reader)
        .expect("another XCC");
    let at = partial + u64::from(first) * 4;
    assert_eq!(r.stale.start, at, "{r}");
    assert_eq!(
        r.xccs,
        Some(XccPair {
            writer: first % XCCS,
            reader
        })
    );
    let (read, len) = r.read_at.expect("a read");
    assert!(read <= at && at < read + len, "{r}");
    assert!(
        r.to_string().contains(&format!("{kernel_object:#x}")),
        "{r}"
    );
}

#[test]
fn without_strict_mode_nothing_watches_the_xccs() {
    let (gpu, out, _, _) = handoff_on(mi300x(false), "handoff_work_group");
    assert_eq!(out[0], handoff_sum());
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    assert_eq!(gpu.sim.coherence_stats(), Default::default());
}

/// Run `launch` on `queue` with the barrier bit and the given fence
/// scopes; waits for it.
fn run_fenced(gpu: &Gpu, queue: &Queue, launch: &Launch, acquire: FenceScope, release: FenceScope) {
    let done = gpu.signal(1);
    let mut d = launch.dispatch;
    d.completion_signal = done.handle();
    d.fence = PacketFence {
        barrier: true,
        acquire,
        release,
    };
    queue
        .submit_dispatch(&d.to_packet().expect("packet"))
        .expect("submit");
    wait_zero(&done).expect("dispatch completes");
}

/// vector_copy src -> mid in workgroups of 64, then mid -> dst in
/// workgroups of 16 (workgroup `g` of the second reads what workgroup
/// `g / 4` of the first wrote, mostly on another XCC), with `between` as the first's release and the second's acquire.
/// Returns the device, whether dst matched src, and the second dispatch's
/// kernel object.
fn two_copies(between: [FenceScope; 2]) -> (Gpu, bool, u64) {
    const N: usize = 256;
    let gpu = strict_mi300x();
    let copy = load(&gpu, "gfx942", "vector_copy");
    let queue = gpu.queue(64);
    let words = Rng::new(9).u32s(N);
    let src = gpu.upload_u32(&words);
    let mid = gpu.alloc_device_only(N as u64 * 4);
    let dst = gpu.filled_u32(N, SENTINEL);
    let args = |from: u64, to: u64| [Arg::Ptr(from), Arg::Ptr(to), Arg::U32(N as u32)];
    let first = gpu.launch(
        &copy.kernel,
        &args(src.gpu_va(), mid.gpu_va()),
        [N as u32, 1, 1],
        [64, 1, 1],
    );
    let second = gpu.launch(
        &copy.kernel,
        &args(mid.gpu_va(), dst.gpu_va()),
        [N as u32, 1, 1],
        [16, 1, 1],
    );
    run_fenced(&gpu, &queue, &first, FenceScope::System, between[0]);
    run_fenced(&gpu, &queue, &second, between[1], FenceScope::System);
    let same = read_u32(&dst, N) == words;
    (gpu, same, second.dispatch.kernel_object)
}

#[test]
fn agent_scope_packet_fences_carry_data_across_xccs() {
    let (gpu, same, _) = two_copies([FenceScope::Agent, FenceScope::Agent]);
    assert!(same);
    assert_eq!(gpu.sim.coherence_reports(), vec![]);
    // Without the release, the second dispatch reads lines the first
    // dispatch's XCCs never wrote back.
    let (gpu, same, kernel_object) = two_copies([FenceScope::None, FenceScope::Agent]);
    assert!(same, "the model reports, it keeps no old lines");
    let reports = gpu.sim.coherence_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    assert_eq!(reports[0].kind, StaleRead::KernelReadsOtherXccWrites);
    assert_eq!(reports[0].kernel_object, Some(kernel_object));
    assert_eq!(
        reports[0].writer.map(|w| w.index + 1),
        Some(reports[0].packet_index)
    );
}
