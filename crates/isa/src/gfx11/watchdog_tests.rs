//! The watchdog against paused time (paused_time.rs): an endless kernel is
//! stopped its limit after the last wait for a translation ends, not its
//! limit after it started.

use std::sync::Arc;
use std::time::{Duration, Instant};

use aqueduct_kfd::abi::KernelDescriptor;

use super::{CodeCache, Dispatch, WorkerContext};
use crate::{Access, DispatchSetup, GpuMemory, Isa, MemoryFault, ScratchBacking, WaveErrorKind};

const BASE: u64 = 0x10_0000;
/// The kernel's code follows its 64-byte descriptor at this offset.
const ENTRY: usize = 256;

/// The descriptor and code of one kernel, readable and executable.
struct Kernel(Vec<u8>);

impl GpuMemory for Kernel {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = MemoryFault {
            address: addr,
            access,
        };
        let end = addr.checked_add(len).ok_or(fault)?;
        if !matches!(access, Access::Read | Access::Execute)
            || addr < BASE
            || end > BASE + self.0.len() as u64
        {
            return Err(fault);
        }
        Ok(self.0.as_ptr().wrapping_add((addr - BASE) as usize) as *mut u8)
    }
}

/// A one-wave wave32 dispatch of `s_branch -1` (llvm-mc-19 -mcpu=gfx1100:
/// `[0xff,0xff,0xa0,0xbf]`), which never ends, limited to `limit`.
fn endless(limit: Duration) -> (Kernel, Dispatch) {
    let kd = KernelDescriptor {
        kernel_code_entry_byte_offset: ENTRY as i64,
        // ENABLE_WAVEFRONT_SIZE32.
        kernel_code_properties: 1 << 10,
        ..Default::default()
    };
    let mut image = bytemuck::bytes_of(&kd).to_vec();
    image.resize(ENTRY, 0);
    image.extend_from_slice(&0xbfa0_ffffu32.to_le_bytes());
    image.resize(ENTRY + 64, 0);
    let setup = DispatchSetup {
        isa: Isa::Gfx11,
        kernel_object: BASE,
        descriptor: kd,
        packet_address: 0,
        queue_address: 0,
        kernarg_address: 0,
        dispatch_id: 0,
        dimensions: 1,
        grid_size: [32, 1, 1],
        workgroup_size: [32, 1, 1],
        group_segment_size: 0,
        private_segment_size: 0,
        shared_aperture_base: 0x1_0000_0000_0000,
        private_aperture_base: 0x2_0000_0000_0000,
        scratch: ScratchBacking::default(),
    };
    let dispatch = Dispatch::new(setup, Arc::new(CodeCache::for_isa(Isa::Gfx11)))
        .expect("a valid dispatch")
        .with_time_limit(Some(limit));
    (Kernel(image), dispatch)
}

#[test]
fn an_endless_kernel_is_stopped_after_its_limit() {
    let limit = Duration::from_millis(20);
    let (mem, d) = endless(limit);
    let started = Instant::now();
    let err = d
        .run_workgroup([0, 0, 0], &mem, &mut WorkerContext::new())
        .expect_err("the watchdog stops it");
    assert_eq!(err.kind, WaveErrorKind::TimeLimit { limit });
    assert!(started.elapsed() >= limit);
}

#[test]
fn time_waiting_for_a_translation_is_not_counted() {
    let limit = Duration::from_millis(20);
    let hold = Duration::from_millis(300);
    let (mem, d) = endless(limit);
    let started = Instant::now();
    let err = std::thread::scope(|s| {
        // A wait open from before the first workgroup until `hold` later,
        // as a worker compiling the loop's block would hold it.
        let pause = d.paused.pause();
        s.spawn(move || {
            std::thread::sleep(hold);
            drop(pause);
        });
        d.run_workgroup([0, 0, 0], &mem, &mut WorkerContext::new())
            .expect_err("the watchdog stops it once the wait ends")
    });
    assert_eq!(err.kind, WaveErrorKind::TimeLimit { limit });
    // Counting the wait, the wave would stop at about `limit`.
    let took = started.elapsed();
    assert!(took >= hold + limit, "stopped after {took:?}");
    assert!(d.paused.total() >= hold);
}
