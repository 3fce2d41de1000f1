//! A `KfdDevice` for host-side tests that implements only KFD events
//! (CREATE/SET/RESET/DESTROY_EVENT, WAIT_EVENTS with KFD 1.14 event ages)
//! with a mutex and condition variable. Every other operation fails with
//! ENOSYS, so a test that needs one notices.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use aqueduct_kfd::topology::Topology;
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdError, KfdResult};

const ENOSYS: i32 = 38;
const EINVAL: i32 = 22;

#[derive(Debug)]
struct EventState {
    event_type: u32,
    memory_fault: Option<MemoryExceptionData>,
    auto_reset: bool,
    signaled: bool,
    age: u64,
}

#[derive(Debug, Default)]
pub struct EventDevice {
    events: Mutex<HashMap<u32, EventState>>,
    changed: Condvar,
    next_id: AtomicU64,
    pub set_calls: AtomicU64,
    pub wait_calls: AtomicU64,
}

impl EventDevice {
    pub fn new() -> Self {
        Self {
            next_id: AtomicU64::new(1),
            ..Default::default()
        }
    }
    pub fn live_events(&self) -> usize {
        self.events.lock().unwrap().len()
    }
    /// Ids of live events of `event_type`.
    pub fn events_of_type(&self, event_type: u32) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, e)| e.event_type == event_type)
            .map(|(id, _)| *id)
            .collect();
        ids.sort();
        ids
    }
    /// Post a VM fault on every MEMORY event, as KFD does on a GPU fault.
    pub fn post_memory_fault(&self, data: MemoryExceptionData) {
        let mut events = self.events.lock().unwrap();
        for ev in events
            .values_mut()
            .filter(|e| e.event_type == event_type::MEMORY)
        {
            ev.memory_fault = Some(data);
            ev.signaled = true;
        }
        self.changed.notify_all();
    }
}

fn nosys<T>(what: &'static str) -> KfdResult<T> {
    Err(KfdError::ioctl(what, ENOSYS))
}

impl KfdDevice for EventDevice {
    fn backend_name(&self) -> &'static str {
        "test-events"
    }
    fn topology(&self) -> KfdResult<Topology> {
        nosys("topology")
    }
    fn open_render_node(&self, _: u32) -> KfdResult<u32> {
        nosys("open_render_node")
    }
    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()> {
        args.major_version = 1;
        args.minor_version = 17;
        Ok(())
    }
    fn get_process_apertures_new(
        &self,
        _: &mut GetProcessAperturesNewArgs,
        _: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()> {
        nosys("GET_PROCESS_APERTURES_NEW")
    }
    fn acquire_vm(&self, _: &mut AcquireVmArgs) -> KfdResult<()> {
        nosys("ACQUIRE_VM")
    }
    fn set_memory_policy(&self, _: &mut SetMemoryPolicyArgs) -> KfdResult<()> {
        nosys("SET_MEMORY_POLICY")
    }
    fn get_clock_counters(&self, _: &mut GetClockCountersArgs) -> KfdResult<()> {
        nosys("GET_CLOCK_COUNTERS")
    }
    fn alloc_memory_of_gpu(&self, _: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        nosys("ALLOC_MEMORY_OF_GPU")
    }
    fn free_memory_of_gpu(&self, _: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        nosys("FREE_MEMORY_OF_GPU")
    }
    fn map_memory_to_gpu(&self, _: &mut MapMemoryToGpuArgs, _: &[u32]) -> KfdResult<()> {
        nosys("MAP_MEMORY_TO_GPU")
    }
    fn unmap_memory_from_gpu(&self, _: &mut UnmapMemoryFromGpuArgs, _: &[u32]) -> KfdResult<()> {
        nosys("UNMAP_MEMORY_FROM_GPU")
    }
    fn create_queue(&self, _: &mut CreateQueueArgs) -> KfdResult<()> {
        nosys("CREATE_QUEUE")
    }
    fn destroy_queue(&self, _: &mut DestroyQueueArgs) -> KfdResult<()> {
        nosys("DESTROY_QUEUE")
    }
    fn update_queue(&self, _: &mut UpdateQueueArgs) -> KfdResult<()> {
        nosys("UPDATE_QUEUE")
    }
    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) as u32;
        self.events.lock().unwrap().insert(
            id,
            EventState {
                event_type: args.event_type,
                memory_fault: None,
                auto_reset: args.auto_reset != 0,
                signaled: false,
                age: 1,
            },
        );
        args.event_id = id;
        args.event_slot_index = id;
        Ok(())
    }
    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()> {
        match self.events.lock().unwrap().remove(&args.event_id) {
            Some(_) => Ok(()),
            None => Err(KfdError::ioctl("DESTROY_EVENT", EINVAL)),
        }
    }
    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()> {
        self.set_calls.fetch_add(1, Ordering::Relaxed);
        let mut events = self.events.lock().unwrap();
        let ev = events
            .get_mut(&args.event_id)
            .ok_or_else(|| KfdError::ioctl("SET_EVENT", EINVAL))?;
        ev.signaled = true;
        ev.age += 1;
        self.changed.notify_all();
        Ok(())
    }
    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()> {
        let mut events = self.events.lock().unwrap();
        let ev = events
            .get_mut(&args.event_id)
            .ok_or_else(|| KfdError::ioctl("RESET_EVENT", EINVAL))?;
        ev.signaled = false;
        Ok(())
    }
    fn wait_events(&self, args: &mut WaitEventsArgs, data: &mut [KfdEventData]) -> KfdResult<()> {
        self.wait_calls.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + Duration::from_millis(args.timeout_ms as u64);
        let mut events = self.events.lock().unwrap();
        loop {
            let mut fired = false;
            for d in data.iter_mut() {
                let ev = events
                    .get_mut(&d.event_id)
                    .ok_or_else(|| KfdError::ioctl("WAIT_EVENTS", EINVAL))?;
                let age_in = d.last_event_age();
                let activated = ev.signaled || (age_in != 0 && age_in != ev.age);
                if activated {
                    fired = true;
                    if ev.auto_reset {
                        ev.signaled = false;
                    }
                    if let Some(fault) = ev.memory_fault.take() {
                        d.set_memory_exception(fault);
                    } else if age_in != 0 {
                        d.set_last_event_age(ev.age);
                    }
                }
            }
            if fired {
                args.wait_result = KFD_IOC_WAIT_RESULT_COMPLETE;
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                args.wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
                return Ok(());
            }
            events = self.changed.wait_timeout(events, deadline - now).unwrap().0;
        }
    }
    unsafe fn mmap_render_node(&self, _: u32, _: u64, _: u64, _: u64) -> KfdResult<()> {
        nosys("mmap render node")
    }
    unsafe fn mmap_kfd(&self, _: u64, _: u64, _: u64) -> KfdResult<()> {
        nosys("mmap kfd")
    }
    fn write_doorbell(&self, _: u64, _: u64) {}
}
