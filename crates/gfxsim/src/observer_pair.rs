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

#[cfg(test)]
mod tests {
    use super::*;
    use aqueduct_isa::Access;
    use aqueduct_isa::observer::{CacheOp, Segment};
    use std::sync::Mutex;

    /// Counts what its workgroups see.
    #[derive(Debug, Default)]
    struct Counter(Mutex<[u32; 4]>);

    struct WorkgroupCounter<'a>(&'a Mutex<[u32; 4]>);

    impl DispatchObserver for Counter {
        fn workgroup(&self, _: [u32; 3], _: u32, _: u32) -> Box<dyn WorkgroupObserver + '_> {
            Box::new(WorkgroupCounter(&self.0))
        }
    }

    impl WorkgroupObserver for WorkgroupCounter<'_> {
        fn access(&mut self, _: &LaneAccesses<'_>) {
            self.0.lock().unwrap()[0] += 1;
        }
        fn barrier_released(&mut self, _: &[WaveSync]) {
            self.0.lock().unwrap()[1] += 1;
        }
        fn finish(&mut self) {
            self.0.lock().unwrap()[2] += 1;
        }
        fn cache_control(&mut self, _: &CacheControl) {
            self.0.lock().unwrap()[3] += 1;
        }
    }

    #[test]
    fn both_observers_see_every_event() {
        let (a, b) = (Arc::new(Counter::default()), Arc::new(Counter::default()));
        let pair = ObserverPair::of(Some(a.clone()), Some(b.clone())).expect("a pair");
        let mut w = pair.workgroup([0, 0, 0], 1, 0);
        w.access(&LaneAccesses {
            pc: 0,
            wave: 0,
            first_lane: 0,
            segment: Segment::Global,
            access: Access::Read,
            size: 4,
            exec: 1,
            addrs: &[0; 32],
            scalar: false,
            sc1: false,
        });
        w.barrier_released(&[]);
        w.cache_control(&CacheControl {
            wave: 0,
            op: CacheOp::Invalidate,
            sc0: false,
            sc1: true,
        });
        w.finish();
        assert_eq!(*a.0.lock().unwrap(), [1, 1, 1, 1]);
        assert_eq!(*b.0.lock().unwrap(), [1, 1, 1, 1]);
    }

    #[test]
    fn one_observer_is_itself() {
        let a: Arc<dyn DispatchObserver> = Arc::new(Counter::default());
        let one = ObserverPair::of(None, Some(a.clone())).expect("one");
        assert!(Arc::ptr_eq(&one, &a));
        assert!(ObserverPair::of(None, None).is_none());
    }
}
