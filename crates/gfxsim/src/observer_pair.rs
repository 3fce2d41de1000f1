//! Two observers of one dispatch as one: the executor takes a single
//! observer, while a dispatch may have both the sanitizer and strict
//! coherence's per-XCC L2 model watching it. Each sees every event, the
//! first before the second.

use std::sync::Arc;

use aqueduct_isa::observer::{
    CacheControl, DispatchObserver, LaneAccesses, WaveSync, WorkgroupObserver,
};

/// `first` and `second` watching one dispatch.
#[derive(Debug)]
pub struct ObserverPair {
    pub first: Arc<dyn DispatchObserver>,
    pub second: Arc<dyn DispatchObserver>,
}

impl ObserverPair {
    /// One observer of `a` and `b`, whichever exist.
    pub fn of(
        a: Option<Arc<dyn DispatchObserver>>,
        b: Option<Arc<dyn DispatchObserver>>,
    ) -> Option<Arc<dyn DispatchObserver>> {
        match (a, b) {
            (Some(first), Some(second)) => Some(Arc::new(ObserverPair { first, second })),
            (a, b) => a.or(b),
        }
    }
}

impl DispatchObserver for ObserverPair {
    fn workgroup(&self, id: [u32; 3], waves: u32, lds: u32) -> Box<dyn WorkgroupObserver + '_> {
        Box::new(WorkgroupPair(
            self.first.workgroup(id, waves, lds),
            self.second.workgroup(id, waves, lds),
        ))
    }
}

/// The two workgroup observers of one workgroup.
struct WorkgroupPair<'a>(
    Box<dyn WorkgroupObserver + 'a>,
    Box<dyn WorkgroupObserver + 'a>,
);

impl WorkgroupObserver for WorkgroupPair<'_> {
    fn access(&mut self, accesses: &LaneAccesses<'_>) {
        self.0.access(accesses);
        self.1.access(accesses);
    }

    fn barrier_released(&mut self, waves: &[WaveSync]) {
        self.0.barrier_released(waves);
        self.1.barrier_released(waves);
    }

    fn finish(&mut self) {
        self.0.finish();
        self.1.finish();
    }

    fn cache_control(&mut self, control: &CacheControl) {
        self.0.cache_control(control);
        self.1.cache_control(control);
    }
}
