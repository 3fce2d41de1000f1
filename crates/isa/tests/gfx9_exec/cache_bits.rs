//! gfx942's cache-policy bits reach a dispatch's observer: each global
//! access shows the instruction's sc1 bit, and `buffer_wbl2` / `buffer_inv`
//! show their scope bits (gfxsim's per-XCC L2 model reads both).

use std::sync::Mutex;

use aqueduct_isa::Access;
use aqueduct_isa::observer::{
    CacheControl, CacheOp, DispatchObserver, LaneAccesses, Segment, WaveSync, WorkgroupObserver,
};

use super::*;

/// What the observer saw, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Global(Access, bool),
    Control(CacheOp, bool, bool),
}

#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<Seen>>);

struct WorkgroupRecorder<'a>(&'a Mutex<Vec<Seen>>);

impl DispatchObserver for Recorder {
    fn workgroup(&self, _id: [u32; 3], _waves: u32, _lds: u32) -> Box<dyn WorkgroupObserver + '_> {
        Box::new(WorkgroupRecorder(&self.0))
    }
}

impl WorkgroupObserver for WorkgroupRecorder<'_> {
    fn access(&mut self, a: &LaneAccesses<'_>) {
        if a.segment == Segment::Global && !a.scalar {
            self.0.lock().unwrap().push(Seen::Global(a.access, a.sc1));
        }
    }

    fn barrier_released(&mut self, _waves: &[WaveSync]) {}

    fn finish(&mut self) {}

    fn cache_control(&mut self, c: &CacheControl) {
        self.0
            .lock()
            .unwrap()
            .push(Seen::Control(c.op, c.sc0, c.sc1));
    }
}

#[test]
fn sc1_and_cache_controls_reach_the_observer() {
    let mut mem = TestMem::new();
    let (_, kd) = gfx9_kernel(&mut mem, kernels::CACHE_BITS_GFX942, KERNARG_PTR, 0, 0, 0);
    mem.map_zeroed(BUF_A, 64);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let recorder = Arc::new(Recorder::default());
    let s = gfx9_setup(Target::Gfx942, kd, [64, 1, 1], [64, 1, 1]);
    let d = Dispatch::new(s, Arc::new(CodeCache::for_isa(Isa::Gfx9(Target::Gfx942))))
        .expect("dispatch")
        .with_observer(Some(recorder.clone() as Arc<dyn DispatchObserver>));
    d.run_workgroup([0, 0, 0], &mem, &mut WorkerContext::new())
        .expect("runs");
    use {Access::*, CacheOp::*, Seen::*};
    assert_eq!(
        *recorder.0.lock().unwrap(),
        [
            Global(Write, false),
            Control(WritebackL2, false, true),
            Global(Write, true),
            Global(Read, true),
            Control(Invalidate, false, true),
            Control(Invalidate, true, false),
            Global(Read, false),
        ]
    );
    assert_eq!(mem.read_u32s(BUF_A, 2), [7, 7]);
}
