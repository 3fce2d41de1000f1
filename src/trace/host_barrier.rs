//! The GPU side of a host callback in a trace: the barrier-AND that
//! completes the callback's signal once everything submitted before it has
//! (`crate::host_callback`) becomes a slice on the compute queue's track,
//! with a flow arrow from it to the host callback's slice.
//!
//! The device's queue has profiling on, so the CP stamps the barrier's own
//! signal (`amd_signal_t` `start_ts`/`end_ts`): from when its condition held
//! to its completion. The stamps are read on the host-callback thread,
//! after the soft queue saw the signal complete and before the signal is
//! dropped (as `hsa_amd_profiling_get_dispatch_time` requires).

use std::sync::Arc;

use aqueduct_hsa::{Agent, Runtime, Signal};

use super::submission::next_flow_id;
use super::{EventKind, TraceEvent, Track, in_background, write_events};
use crate::device::DeviceShared;

/// A traced host callback's barrier signal.
pub(crate) struct HostBarrierTrace {
    runtime: Arc<Runtime>,
    agent: Agent,
    device: u64,
    signal: Signal,
}

impl HostBarrierTrace {
    /// Trace the barrier completing `signal` on `dev`'s queue.
    pub(crate) fn new(dev: &DeviceShared, signal: Signal) -> Self {
        HostBarrierTrace {
            runtime: dev.runtime.clone(),
            agent: dev.agent.clone(),
            device: dev.id.number(),
            signal,
        }
    }

    /// Record the barrier's slice and an arrow to the host callback that
    /// started at `callback_ns` (system clock). Called once the signal
    /// completed; a barrier the CP never stamped (dropped by a queue
    /// fault) leaves no event.
    pub(crate) fn record(self, callback_ns: u64) {
        let Ok(ticks) = self.signal.dispatch_ticks() else {
            return;
        };
        drop(self.signal);
        let (runtime, agent, device) = (self.runtime, self.agent, self.device);
        in_background(Box::new(move || {
            let Ok(t) = runtime.ticks_to_system(&agent, ticks.0, ticks.1) else {
                return;
            };
            let id = next_flow_id();
            let event = |track, ts_ns, kind| TraceEvent {
                device,
                track,
                ts_ns,
                kind,
            };
            let slice = EventKind::Slice {
                name: "barrier: host callback".into(),
                cat: "barrier",
                dur_ns: t.end - t.start,
                args: Default::default(),
            };
            let from = t.end.saturating_sub(1).max(t.start);
            write_events(vec![
                event(Track::Compute, t.start, slice),
                event(Track::Compute, from, EventKind::FlowStart { id }),
                event(Track::HostCallback, callback_ns, EventKind::FlowEnd { id }),
            ]);
        }));
    }
}
