//! Doorbells: one 8 KiB page of 1024 64-bit doorbells per GPU (the SOC15
//! process doorbell slice). CREATE_QUEUE gives each queue a slot; the
//! runtime maps the page with mmap of /dev/kfd at the TYPE_DOORBELL offset
//! and rings a queue with `write_doorbell`, which stores the value here
//! (release) and wakes the queue's command processor.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::memory::DOORBELL_SLICE_SIZE;
use crate::memory::backing::Backing;
use crate::wake::Wake;

/// Doorbells per page.
pub const DOORBELLS_PER_PAGE: u32 = (DOORBELL_SLICE_SIZE / 8) as u32;

#[derive(Debug)]
pub struct DoorbellPage {
    backing: Arc<Backing>,
    /// Slot index -> the command processor to wake.
    owners: Mutex<HashMap<u32, Arc<Wake>>>,
}

impl DoorbellPage {
    pub fn new() -> std::io::Result<Self> {
        Ok(Self {
            backing: Arc::new(Backing::new_memfd("gfxsim-doorbells", DOORBELL_SLICE_SIZE)?),
            owners: Mutex::new(HashMap::new()),
        })
    }

    pub fn backing(&self) -> Arc<Backing> {
        self.backing.clone()
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Arc<Wake>>> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claim the lowest free slot for a queue woken through `wake`.
    pub fn claim(&self, wake: Arc<Wake>) -> Option<u32> {
        let mut owners = self.owners();
        let index = (0..DOORBELLS_PER_PAGE).find(|i| !owners.contains_key(i))?;
        self.slot(index).store(0, Ordering::Release);
        owners.insert(index, wake);
        Some(index)
    }

    pub fn release(&self, index: u32) {
        self.owners().remove(&index);
    }

    fn slot(&self, index: u32) -> &AtomicU64 {
        let offset = (index % DOORBELLS_PER_PAGE) as usize * 8;
        // SAFETY: the page is DOORBELL_SLICE_SIZE bytes, page aligned, and
        // lives as long as self; offset is a multiple of 8 inside it.
        unsafe { &*(self.backing.ptr().add(offset) as *const AtomicU64) }
    }

    /// The last value stored into doorbell `index` (an SDMA queue's write
    /// pointer in bytes).
    pub fn value(&self, index: u32) -> u64 {
        self.slot(index).load(Ordering::Acquire)
    }

    /// Store `value` into doorbell `index` and wake its queue.
    pub fn ring(&self, index: u32, value: u64) {
        self.slot(index).store(value, Ordering::Release);
        let wake = self.owners().get(&index).cloned();
        match wake {
            Some(wake) => wake.notify(),
            None => tracing::debug!("gfxsim: doorbell {index} rung with no queue behind it"),
        }
    }
}
