//! GrowableBuffer: a buffer that grows in place by mapping VRAM chunks at
//! its end. Its address never moves, data written before a growth is still
//! there after it, a kernel uses the whole grown range as one buffer, a
//! shrink returns the trailing chunks' memory, and dropping it returns all.

use std::sync::Arc;

use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::vmem::{Access, GrowableBuffer, VirtualMemory, VmemError};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, assert_same, read_u32};

const CHUNK: u64 = 64 << 10;

#[test]
fn a_growable_buffer_keeps_its_address_and_contents() {
    let gpu = Gpu::new();
    let vram = || gpu.sim.vram_used(gpu.agent.gpu_id).unwrap();
    let start = vram();
    let vm = Arc::new(VirtualMemory::new(&gpu.rt).unwrap());
    let cpu = gpu.rt.cpu_agents().next().unwrap().clone();
    let pool = gpu.rt.pool(&gpu.agent, PoolKind::CoarseDevice).unwrap();
    let access = [(&gpu.agent, Access::ReadWrite), (&cpu, Access::ReadWrite)];

    let mut buf = GrowableBuffer::new(vm.clone(), pool, 4 * CHUNK, CHUNK, &access).unwrap();
    let va = buf.va();
    assert!(buf.is_empty());
    assert_eq!((buf.max_len(), buf.chunk()), (4 * CHUNK, CHUNK));
    assert_eq!(vram(), start, "nothing mapped yet");

    buf.grow_to(100).unwrap();
    assert_eq!((buf.va(), buf.len(), vram()), (va, CHUNK, start + CHUNK));
    let first = Rng::new(5).u32s((CHUNK / 4) as usize);
    // SAFETY: the first chunk is mapped with host read-write access and
    // stays mapped while this slice is used.
    unsafe { std::slice::from_raw_parts_mut(va as *mut u32, first.len()) }.copy_from_slice(&first);

    buf.grow_to(3 * CHUNK).unwrap();
    assert_eq!(
        (buf.va(), buf.len(), vram()),
        (va, 3 * CHUNK, start + 3 * CHUNK)
    );
    // SAFETY: as above, for the now three mapped chunks.
    let all = unsafe { std::slice::from_raw_parts_mut(va as *mut u32, (3 * CHUNK / 4) as usize) };
    assert_same(&all[..first.len()], &first, "first chunk after growing");

    // A kernel copies the whole grown range (across both seams) out.
    let n = all.len();
    let tail = Rng::new(6).u32s(n - first.len());
    all[first.len()..].copy_from_slice(&tail);
    let out = gpu.filled_u32(n, 0);
    let copy = gpu.load("vector_copy");
    gpu.run(
        &copy.kernel,
        &[Arg::Ptr(va), Arg::Ptr(out.gpu_va()), Arg::U32(n as u32)],
        [n as u32, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    let want: Vec<u32> = first.iter().chain(&tail).copied().collect();
    assert_same(&read_u32(&out, n), &want, "kernel over the grown buffer");

    match buf.grow_to(4 * CHUNK + 1) {
        Err(VmemError::ExceedsReservation { len, max_len }) => {
            assert_eq!((len, max_len), (4 * CHUNK + 1, 4 * CHUNK));
        }
        other => panic!("growing past the reservation: {other:?}"),
    }
    buf.shrink_to(CHUNK + 1).unwrap();
    assert_eq!((buf.len(), vram()), (2 * CHUNK, start + 2 * CHUNK));
    assert_same(&all[..first.len()], &first, "first chunk after shrinking");
    drop(buf);
    assert_eq!(vram(), start, "dropping returns every chunk");
    // The range was freed: the same address can be reserved again.
    assert_eq!(vm.reserve(4 * CHUNK, va).unwrap(), va);
    vm.free(va, 4 * CHUNK).unwrap();

    let fine = gpu.rt.pool(&gpu.agent, PoolKind::FineSystem).unwrap();
    match GrowableBuffer::new(vm.clone(), fine, CHUNK, 1000, &access) {
        Err(e) => assert_eq!(e.status(), 0x1001, "{e}"),
        Ok(_) => panic!("a chunk off the granule was accepted"),
    }
}
