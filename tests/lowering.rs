//! Lowering tests: the exact AQL packet sequence a recorded command buffer
//! becomes — packet types, barrier bits and fence scopes — and that the
//! same command buffers compute the right results when submitted.

use aqueduct_test_harness::facade::*;

use aqueduct::*;

const DISPATCH: u16 = 2;
const BARRIER_AND: u16 = 3;

struct Copy {
    pipeline: ComputePipeline,
}

impl Copy {
    fn new(c: &Ctx) -> Self {
        let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
        Copy {
            pipeline: auto_pipeline(&c.device, &module, "vector_copy"),
        }
    }

    /// dst[i] = src[i] for n words.
    fn record(&self, c: &Ctx, pass: &mut ComputePass<'_>, src: &Buffer, dst: &Buffer, n: u32) {
        let bg = bind_group(&c.device, &self.pipeline, 0, &[src, dst]);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
}

fn summary(packets: &[DebugPacket]) -> Vec<(PacketRole, u16, bool, FenceScope, FenceScope)> {
    packets
        .iter()
        .map(|p| (p.role, p.packet_type, p.barrier, p.acquire, p.release))
        .collect()
}

const COMPLETION: (PacketRole, u16, bool, FenceScope, FenceScope) = (
    PacketRole::Completion,
    BARRIER_AND,
    true,
    FenceScope::None,
    FenceScope::System,
);

#[test]
fn independent_dispatches_have_no_barrier_between_them() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 256u32;
    let a = storage_init(&c.device, &(0..n).collect::<Vec<_>>());
    let b = storage(&c.device, n as u64 * 4);
    let x = storage_init(&c.device, &(0..n).map(|i| i * 3).collect::<Vec<_>>());
    let y = storage(&c.device, n as u64 * 4);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.record(&c, &mut pass, &a, &b, n);
        k.record(&c, &mut pass, &x, &y, n);
    }
    let cb = enc.finish();
    assert_eq!(
        summary(&cb.debug_packets()),
        vec![
            (
                PacketRole::Dispatch,
                DISPATCH,
                false,
                FenceScope::Agent,
                FenceScope::Agent
            ),
            (
                PacketRole::Dispatch,
                DISPATCH,
                false,
                FenceScope::Agent,
                FenceScope::Agent
            ),
            COMPLETION,
        ]
    );
    assert_eq!(cb.debug_packets()[0].grid, [256, 1, 1]);
    assert_eq!(cb.debug_packets()[0].workgroup, [64, 1, 1]);
    c.queue.submit([cb]);
    assert_eq!(read_words(&c, &b), (0..n).collect::<Vec<_>>());
    assert_eq!(
        read_words(&c, &y),
        (0..n).map(|i| i * 3).collect::<Vec<_>>()
    );
}

#[test]
fn read_after_write_sets_the_barrier_bit() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 128u32;
    let a = storage_init(&c.device, &(0..n).map(|i| i + 7).collect::<Vec<_>>());
    let b = storage(&c.device, n as u64 * 4);
    let d = storage(&c.device, n as u64 * 4);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.record(&c, &mut pass, &a, &b, n); // writes b
        k.record(&c, &mut pass, &b, &d, n); // reads b: RAW
    }
    let cb = enc.finish();
    let p = summary(&cb.debug_packets());
    assert!(!p[0].2);
    assert!(p[1].2, "RAW on b needs the barrier bit: {p:?}");
    c.queue.submit([cb]);
    assert_eq!(
        read_words(&c, &d),
        (0..n).map(|i| i + 7).collect::<Vec<_>>()
    );
}

#[test]
fn write_after_read_and_write_after_write_set_the_barrier_bit() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 64u32;
    let a = storage_init(&c.device, &vec![1; n as usize]);
    let b = storage_init(&c.device, &vec![2; n as usize]);
    let e = storage_init(&c.device, &vec![3; n as usize]);
    let f = storage(&c.device, n as u64 * 4);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.record(&c, &mut pass, &a, &f, n); // reads a, writes f
        k.record(&c, &mut pass, &b, &a, n); // writes a: WAR
        k.record(&c, &mut pass, &e, &a, n); // writes a again: WAW
    }
    let cb = enc.finish();
    let barriers: Vec<bool> = cb.debug_packets().iter().map(|p| p.barrier).collect();
    assert_eq!(barriers, vec![false, true, true, true]);
    c.queue.submit([cb]);
    assert_eq!(read_words(&c, &f), vec![1; n as usize]);
    assert_eq!(read_words(&c, &a), vec![3; n as usize]);
}

#[test]
fn reads_of_the_same_buffer_overlap() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 64u32;
    let a = storage_init(&c.device, &vec![5; n as usize]);
    let outs: Vec<Buffer> = (0..3).map(|_| storage(&c.device, n as u64 * 4)).collect();
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for o in &outs {
            k.record(&c, &mut pass, &a, o, n);
        }
    }
    let cb = enc.finish();
    assert!(cb.debug_packets()[..3].iter().all(|p| !p.barrier));
    c.queue.submit([cb]);
    for o in &outs {
        assert_eq!(read_words(&c, o), vec![5; n as usize]);
    }
}

/// Past 64 accesses since the last barrier the tracker compares an access
/// only with those of the same memory object: a copy (which names its
/// buffers directly) and a dispatch (which reaches them through a bind
/// group) must name one buffer as the same object, or these hazards go
/// unseen.
#[test]
fn copies_and_bound_buffers_conflict_past_the_short_list() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 64u32;
    let w = storage_init(&c.device, &(0..n).map(|i| i * 5).collect::<Vec<_>>());
    let x = storage(&c.device, n as u64 * 4);
    let z = storage(&c.device, n as u64 * 4);
    let srcs: Vec<Buffer> = (0..80)
        .map(|i| storage_init(&c.device, &vec![i; n as usize]))
        .collect();
    let dsts: Vec<Buffer> = (0..80).map(|_| storage(&c.device, n as u64 * 4)).collect();
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&w, 0, &x, 0, n as u64 * 4);
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        for (s, d) in srcs[..40].iter().zip(&dsts[..40]) {
            k.record(&c, &mut pass, s, d, n);
        }
        // Reads x, which the copy wrote: RAW, 80 accesses later.
        k.record(&c, &mut pass, &x, &dsts[40], n);
        for (s, d) in srcs[41..].iter().zip(&dsts[41..]) {
            k.record(&c, &mut pass, s, d, n);
        }
    }
    // Reads what the dispatch of srcs[41] wrote: RAW, 78 accesses later.
    enc.copy_buffer_to_buffer(&dsts[41], 0, &z, 0, n as u64 * 4);
    let cb = enc.finish();
    let barriers: Vec<(usize, PacketRole)> = cb
        .debug_packets()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.barrier && p.role != PacketRole::Completion)
        .map(|(i, p)| (i, p.role))
        .collect();
    assert_eq!(
        barriers,
        [(41, PacketRole::Dispatch), (81, PacketRole::Copy)],
        "the two RAW hazards and nothing else"
    );
    c.queue.submit([cb]);
    assert_eq!(
        read_words(&c, &dsts[40]),
        (0..n).map(|i| i * 5).collect::<Vec<_>>()
    );
    assert_eq!(read_words(&c, &z), vec![41; n as usize]);
}

#[test]
fn disjoint_ranges_of_one_buffer_do_not_conflict() {
    let c = ctx();
    let a = storage_init(&c.device, &(0..512).collect::<Vec<u32>>());
    let b = storage(&c.device, 2048);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&a, 0, &b, 0, 1024);
    enc.copy_buffer_to_buffer(&a, 1024, &b, 1024, 1024); // other half of b
    enc.copy_buffer_to_buffer(&b, 0, &a, 1024, 512); // reads b[0..512]: RAW
    let cb = enc.finish();
    let p = summary(&cb.debug_packets());
    assert_eq!(p[0].0, PacketRole::Copy);
    assert_eq!((p[0].2, p[1].2, p[2].2), (false, false, true), "{p:?}");
    c.queue.submit([cb]);
    let mut want: Vec<u32> = (0..512).collect();
    want.copy_within(0..128, 256);
    assert_eq!(read_words(&c, &a), want);
}

#[test]
fn copy_into_a_mapped_readback_buffer_releases_at_system_scope() {
    let c = ctx();
    let a = storage_init(&c.device, &[1, 2, 3, 4]);
    let rb = readback_buffer(&c.device, 16);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&a, 0, &rb, 0, 16);
    let cb = enc.finish();
    assert_eq!(
        summary(&cb.debug_packets()),
        vec![
            (
                PacketRole::Copy,
                DISPATCH,
                false,
                FenceScope::Agent,
                FenceScope::System
            ),
            COMPLETION,
        ]
    );
}

#[test]
fn dispatch_writing_a_host_mapped_buffer_releases_at_system_scope() {
    let c = ctx();
    let k = Copy::new(&c);
    // MAPPABLE_PRIMARY_BUFFERS: a storage buffer the host maps lives in
    // fine-grained memory; the dispatch writing it must release to the host.
    let host_out = c.device.create_buffer(&BufferDescriptor {
        label: Some("host_out"),
        size: 256,
        usage: BufferUsages::STORAGE | BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    assert_eq!(host_out.placement(), Some(Placement::FineSystem));
    let host_in = c.device.create_buffer(&BufferDescriptor {
        label: Some("host_in"),
        size: 256,
        usage: BufferUsages::STORAGE | BufferUsages::MAP_WRITE,
        mapped_at_creation: true,
    });
    host_in
        .get_mapped_range_mut(..)
        .unwrap()
        .copy_from_slice(bytemuck::cast_slice(&(100..164).collect::<Vec<u32>>()));
    host_in.unmap();
    let dev_out = storage(&c.device, 256);
    assert_eq!(dev_out.placement(), Some(Placement::CoarseDevice));
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.record(&c, &mut pass, &host_in, &dev_out, 64); // host-written input
        k.record(&c, &mut pass, &dev_out, &host_out, 64); // host-read output
    }
    let cb = enc.finish();
    assert_eq!(
        summary(&cb.debug_packets()),
        vec![
            (
                PacketRole::Dispatch,
                DISPATCH,
                false,
                FenceScope::System,
                FenceScope::Agent
            ),
            (
                PacketRole::Dispatch,
                DISPATCH,
                true,
                FenceScope::Agent,
                FenceScope::System
            ),
            COMPLETION,
        ]
    );
    c.queue.submit([cb]);
    let bytes = aqueduct::util::read_mapped(&c.device, &host_out).unwrap();
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&bytes),
        (100..164).collect::<Vec<u32>>()
    );
}

#[test]
fn clear_then_read_is_ordered() {
    let c = ctx();
    let k = Copy::new(&c);
    let a = storage_init(&c.device, &[9; 64]);
    let b = storage(&c.device, 256);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_buffer(&a, 64, Some(128));
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        k.record(&c, &mut pass, &a, &b, 64);
    }
    let cb = enc.finish();
    let p = summary(&cb.debug_packets());
    assert_eq!((p[0].0, p[0].2), (PacketRole::Clear, false));
    assert_eq!((p[1].0, p[1].2), (PacketRole::Dispatch, true));
    c.queue.submit([cb]);
    let mut want = vec![9u32; 64];
    want[16..48].fill(0);
    assert_eq!(read_words(&c, &b), want);
}

#[test]
fn indirect_dispatch_is_a_patch_packet_then_the_dispatch() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 200u32;
    let src = storage_init(&c.device, &(0..n).map(|i| i ^ 0x55).collect::<Vec<_>>());
    let dst = storage(&c.device, n as u64 * 4);
    let args = c.device.create_buffer(&BufferDescriptor {
        label: Some("args"),
        size: 16,
        usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    c.queue
        .write_buffer(&args, 4, bytemuck::cast_slice(&[n.div_ceil(64), 1, 1]));
    let bg = bind_group(&c.device, &k.pipeline, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&k.pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups_indirect(&args, 4);
    }
    let cb = enc.finish();
    let p = summary(&cb.debug_packets());
    assert_eq!(
        p,
        vec![
            (
                PacketRole::IndirectPatch,
                DISPATCH,
                false,
                FenceScope::Agent,
                FenceScope::System
            ),
            (
                PacketRole::IndirectDispatch,
                DISPATCH,
                false,
                FenceScope::Agent,
                FenceScope::Agent
            ),
            COMPLETION,
        ]
    );
    c.queue.submit([cb]);
    assert_eq!(
        read_words(&c, &dst),
        (0..n).map(|i| i ^ 0x55).collect::<Vec<_>>()
    );
}

/// A pass repeating a dispatch with unchanged state records the same
/// packet again (hazards still exact: each repeat writes `b` again, so it
/// waits); changing the bind group, the immediates or the counts makes a
/// new one, and rebinding the first group is seen as a change.
#[test]
fn repeated_dispatches_reuse_state_and_keep_exact_hazards() {
    let c = ctx();
    let k = Copy::new(&c);
    let n = 256u32;
    let a = storage_init(&c.device, &(0..n).map(|i| i + 7).collect::<Vec<_>>());
    let b = storage(&c.device, n as u64 * 4);
    let x = storage_init(&c.device, &(0..n).map(|i| i * 5).collect::<Vec<_>>());
    let y = storage(&c.device, n as u64 * 4);
    let d = storage(&c.device, n as u64 * 4);
    let ab = bind_group(&c.device, &k.pipeline, 0, &[&a, &b]);
    let xy = bind_group(&c.device, &k.pipeline, 0, &[&x, &y]);
    let ad = bind_group(&c.device, &k.pipeline, 0, &[&a, &d]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&k.pipeline);
        pass.set_immediates(0, &n.to_le_bytes());
        for _ in 0..3 {
            pass.set_pipeline(&k.pipeline);
            pass.set_bind_group(0, &ab, &[]);
            pass.dispatch_workgroups(n / 64, 1, 1);
        }
        pass.set_bind_group(0, &xy, &[]);
        pass.dispatch_workgroups(n / 64, 1, 1);
        pass.set_bind_group(0, &ab, &[]);
        pass.dispatch_workgroups(n / 128, 1, 1);
        // Immediates change between two otherwise equal dispatches.
        pass.set_bind_group(0, &ad, &[]);
        pass.set_immediates(0, &(n / 2).to_le_bytes());
        pass.dispatch_workgroups(n / 64, 1, 1);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n / 64, 1, 1);
    }
    let cb = enc.finish();
    let packets = cb.debug_packets();
    let barriers: Vec<bool> = packets.iter().map(|p| p.barrier).collect();
    // ab, ab (WAW b), ab (WAW b), xy (independent), ab/2 (WAW b),
    // ad (reads a only with b's writer: no conflict), ad (WAW d), completion.
    assert_eq!(
        barriers,
        [false, true, true, false, true, false, true, true]
    );
    let grids: Vec<u32> = packets.iter().map(|p| p.grid[0]).collect();
    assert_eq!(grids, [n, n, n, n, n / 2, n, n, 0]);
    c.queue.submit([cb]);
    let a_words: Vec<u32> = (0..n).map(|i| i + 7).collect();
    assert_eq!(read_words(&c, &b), a_words);
    assert_eq!(
        read_words(&c, &y),
        (0..n).map(|i| i * 5).collect::<Vec<_>>()
    );
    // The last dispatch copied all n words (its immediates were not the
    // stale n / 2 of the one before).
    assert_eq!(read_words(&c, &d), a_words);
}
