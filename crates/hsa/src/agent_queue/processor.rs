//! The host packet processor of a soft queue: one thread that does for a
//! CPU agent what the command processor does for a GPU queue.
//!
//! It consumes packets in dispatch-id order from `read_dispatch_id`:
//! - an INVALID header means "nothing more yet": it sleeps in WAIT_EVENTS
//!   on the doorbell signal's event until a producer rings it (KFD's event
//!   ages make a ring between the check and the sleep wake it at once);
//! - the header is loaded with acquire order and decoded; a reserved fence
//!   scope is a malformed packet;
//! - packets run one at a time and each completes before the next starts,
//!   so the barrier bit always holds (a set bit asks for nothing more);
//! - AGENT_DISPATCH calls the registered host function of its `type`
//!   (or, for [`super::CALLBACK_FUNCTION_ID`], the queued closure named by
//!   arg 0); an unknown id or a failing (or panicking) function puts the
//!   queue into error;
//! - BARRIER_AND waits until every nonzero dependency signal is 0,
//!   BARRIER_OR until one is (or there are none), as gfxsim's CP does,
//!   sleeping on the dependency signals' events; a dependency whose packet
//!   a failed GPU queue dropped (the hub marks its signal failed) puts the
//!   queue into error instead of waiting forever, unless the barrier was
//!   submitted as tolerant (`AgentQueue::submit_callback_after`): then it
//!   completes and leaves the error for the callback that follows it;
//! - KERNEL_DISPATCH, VENDOR_SPECIFIC and unknown types are unsupported
//!   packets (a CPU agent runs no kernels).
//!
//! Completion is the CP's: the completion signal is decremented and its
//! event raised, the slot's header becomes INVALID and `read_dispatch_id`
//! advances. On error the failing packet's signal is left untouched and the
//! processor halts until a producer recovers the queue (see `soft_queue`).
//! Once the queue is stopping, a barrier wait is abandoned and nothing new
//! starts; a host function already running finishes first.

use std::sync::Arc;
use std::sync::atomic::{Ordering, fence};
use std::time::Duration;

use aqueduct_kfd::abi::{
    AgentDispatchPacket, BarrierPacket, FenceScope, PacketHeader, RawPacket, packet_type,
};
use aqueduct_kfd::uapi::exception_code::{
    EC_PROCESS_RUNTIME, EC_QUEUE_PACKET_RESERVED, EC_QUEUE_PACKET_UNSUPPORTED,
};

use super::CALLBACK_FUNCTION_ID;
use super::raw_signal::{EventAges, POLL_INTERVAL, RawSignal};
use super::registry::HostCall;
use super::shared::Shared;
use crate::error::QueueFaultDetail;
use crate::queue::ring::INVALID_HEADER_WORD;
use crate::signal::MemoryOrder;
use crate::signal::event::MAX_WAIT_SLICE_MS;

const SLICE: Duration = Duration::from_millis(MAX_WAIT_SLICE_MS as u64);

enum Outcome {
    Done,
    Stopped,
    Failed { code: u32, detail: QueueFaultDetail },
}

pub(super) struct Processor {
    shared: Arc<Shared>,
    ages: EventAges,
    doorbell_event: Option<u32>,
}

impl Processor {
    pub fn new(shared: Arc<Shared>) -> Self {
        let doorbell_event = shared.doorbell.event_id();
        Self {
            shared,
            ages: EventAges::default(),
            doorbell_event,
        }
    }

    /// The thread body: runs until the queue is stopping.
    pub fn run(mut self) {
        let shared = self.shared.clone();
        let ring = &shared.ring;
        let mut next = ring.read_id().load(Ordering::Acquire);
        while !self.shared.stopping() {
            let word = ring.header(next).load(Ordering::Acquire);
            if word as u16 & 0xff == packet_type::INVALID {
                self.sleep(&[]);
                continue;
            }
            // SAFETY: the slot is in bounds and published (header not INVALID): the processor owns it until it invalidates it.
            let packet: RawPacket = unsafe { ring.slot_ptr(next).read_volatile() };
            match self.process(next, word as u16, &packet) {
                Outcome::Done => {
                    self.complete(next, packet.0[7]);
                    next += 1;
                }
                Outcome::Stopped => break,
                Outcome::Failed { code, detail } => {
                    self.shared.fail(code, detail);
                    if !self.wait_recovered() {
                        break;
                    }
                    next = ring.read_id().load(Ordering::Acquire);
                }
            }
        }
        tracing::debug!(queue_id = self.shared.id, "agent queue processor stopped");
    }

    /// Sleep until the doorbell or one of `events` fires (or a slice ends).
    fn sleep(&mut self, events: &[u32]) {
        let mut all: Vec<u32> = self.doorbell_event.into_iter().collect();
        all.extend_from_slice(events);
        self.ages.wait_any(self.shared.device.as_ref(), &all, SLICE);
    }

    /// While halted, wait for a recovery; false if the queue stopped.
    fn wait_recovered(&self) -> bool {
        let mut control = self.shared.control();
        while control.halted && !self.shared.stopping() {
            control = self
                .shared
                .control_changed
                .wait(control)
                .unwrap_or_else(|p| p.into_inner());
        }
        !self.shared.stopping()
    }

    fn process(&mut self, index: u64, header_bits: u16, packet: &RawPacket) -> Outcome {
        let Some(header) = PacketHeader::from_bits(header_bits) else {
            return Outcome::Failed {
                code: EC_QUEUE_PACKET_RESERVED,
                detail: QueueFaultDetail::ReservedFenceScope {
                    packet: index,
                    header: header_bits,
                },
            };
        };
        if header.acquire != FenceScope::None {
            fence(Ordering::Acquire);
        }
        let outcome = match header.packet_type {
            packet_type::AGENT_DISPATCH => {
                let p: AgentDispatchPacket = bytemuck::cast(*packet);
                self.call(index, &p)
            }
            packet_type::BARRIER_AND | packet_type::BARRIER_OR => {
                let p: BarrierPacket = bytemuck::cast(*packet);
                self.barrier(index, &p, header.packet_type == packet_type::BARRIER_AND)
            }
            other => Outcome::Failed {
                code: EC_QUEUE_PACKET_UNSUPPORTED,
                detail: QueueFaultDetail::UnsupportedPacketType {
                    packet: index,
                    packet_type: other,
                },
            },
        };
        if matches!(outcome, Outcome::Done) && header.release != FenceScope::None {
            fence(Ordering::SeqCst);
        }
        outcome
    }

    fn call(&mut self, index: u64, p: &AgentDispatchPacket) -> Outcome {
        let call = HostCall {
            function_id: p.dispatch_type,
            args: p.arg,
            return_address: p.return_address,
            dispatch_id: index,
        };
        let failed = |detail: QueueFaultDetail| Outcome::Failed {
            code: EC_PROCESS_RUNTIME,
            detail,
        };
        if call.function_id == CALLBACK_FUNCTION_ID {
            let token = call.args[0];
            let Some(callback) = self.shared.pending().callbacks.remove(&token) else {
                return Outcome::Failed {
                    code: EC_QUEUE_PACKET_UNSUPPORTED,
                    detail: QueueFaultDetail::UnknownCallback {
                        packet: index,
                        token,
                    },
                };
            };
            return match std::panic::catch_unwind(std::panic::AssertUnwindSafe(callback)) {
                Ok(()) => Outcome::Done,
                Err(_) => failed(QueueFaultDetail::CallbackPanicked { packet: index }),
            };
        }
        let Some(function) = self.shared.functions.get(call.function_id) else {
            return Outcome::Failed {
                code: EC_QUEUE_PACKET_UNSUPPORTED,
                detail: QueueFaultDetail::UnknownFunction {
                    packet: index,
                    function_id: call.function_id,
                },
            };
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| function(&call))) {
            Ok(Ok(())) => Outcome::Done,
            Ok(Err(source)) => failed(QueueFaultDetail::FunctionFailed {
                packet: index,
                function_id: call.function_id,
                source,
            }),
            Err(_) => failed(QueueFaultDetail::FunctionPanicked {
                packet: index,
                function_id: call.function_id,
            }),
        }
    }

    fn barrier(&mut self, index: u64, p: &BarrierPacket, and: bool) -> Outcome {
        let deps: Vec<RawSignal> = p
            .dep_signal
            .iter()
            .filter(|&&h| h != 0)
            // SAFETY: producers keep a packet's dependency signals live until it completes (AgentQueue holds them; raw submission is an unsafe contract).
            .map(|&h| unsafe { RawSignal::new(h) })
            .collect();
        let mut events = Vec::with_capacity(deps.len());
        loop {
            let mut waiting_on = Vec::with_capacity(deps.len());
            let mut satisfied = and;
            for dep in &deps {
                let zero = dep.load() == 0;
                if and && !zero {
                    satisfied = false;
                    waiting_on.push(*dep);
                } else if !and && zero {
                    satisfied = true;
                    break;
                } else if !and {
                    waiting_on.push(*dep);
                }
            }
            if deps.is_empty() || satisfied {
                for id in events {
                    self.ages.forget(id);
                }
                return Outcome::Done;
            }
            if self.shared.stopping() {
                return Outcome::Stopped;
            }
            // A dependency whose packet a GPU queue's recovery dropped
            // will never reach 0: fail instead of waiting forever.
            if let Some((dep, error)) = waiting_on
                .iter()
                .find_map(|d| self.shared.hub.signal_failure(d.handle()).map(|e| (*d, e)))
            {
                let tolerant = self.shared.pending().tolerant.remove(&index);
                if let Some(slot) = tolerant {
                    // The callback after it runs and learns of the failure.
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
                    for id in events {
                        self.ages.forget(id);
                    }
                    return Outcome::Done;
                }
                return Outcome::Failed {
                    code: EC_PROCESS_RUNTIME,
                    detail: QueueFaultDetail::DependencyFailed {
                        signal: dep.handle(),
                        queue_id: error.queue_id,
                        reason: error.reason,
                    },
                };
            }
            events.clear();
            let mut polling = false;
            for dep in &waiting_on {
                match dep.event_id() {
                    Some(id) => events.push(id),
                    None => polling = true,
                }
            }
            if polling {
                std::thread::sleep(POLL_INTERVAL);
            } else {
                self.sleep(&events);
            }
        }
    }

    /// Complete packet `index`: invalidate the slot and advance
    /// `read_dispatch_id` (the packet is consumed, as a CP does before its
    /// completion is visible), then decrement its completion signal and
    /// raise its event, so a waiter that sees the signal also sees the
    /// queue's read index past the packet.
    fn complete(&mut self, index: u64, completion_signal: u64) {
        let kept = {
            let mut pending = self.shared.pending();
            if !pending.tolerant.is_empty() {
                pending.tolerant.remove(&index);
            }
            pending.keep_alive.remove(&index)
        };
        let ring = &self.shared.ring;
        ring.header(index)
            .store(INVALID_HEADER_WORD, Ordering::Release);
        ring.read_id().store(index + 1, Ordering::Release);
        if completion_signal != 0 {
            match kept
                .as_ref()
                .and_then(|k| k.iter().find(|s| s.handle() == completion_signal))
            {
                // A Signal object also wakes waiters that have no KFD event.
                Some(signal) => {
                    signal.sub(1, MemoryOrder::AcqRel);
                }
                // SAFETY: the producer keeps a packet's completion signal live until it completes (raw submission is an unsafe contract).
                None => unsafe { RawSignal::new(completion_signal) }
                    .complete(self.shared.device.as_ref()),
            }
        }
        self.shared.completed.fetch_add(1, Ordering::Relaxed);
        drop(kept);
    }
}
