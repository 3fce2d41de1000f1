//! An SDMA queue on a GPU agent (ROCr `BlitSdma` over its KFD queue).
//!
//! Buffers (each its own BO, so KFD's `kfd_queue_buffer_get` finds each at
//! the start of a mapping of exactly its size):
//! - the ring: [`SDMA_RING_BYTES`], fine-grained, host mapped;
//! - the queue page (4 KiB, fine-grained, host mapped): the read pointer
//!   (u64, bytes, written by the engine) at 0, the write pointer (u64,
//!   bytes) at 8, the error word at 64 and a
//!   `kfd_context_save_area_header` at 128 naming the error word and the
//!   queue's error event, through which gfxsim reports the queue's errors
//!   as it does a compute queue's.
//!
//! A command is a run of packets written at the write pointer (the ring
//! is addressed modulo its size, so a packet may wrap, as Linux's
//! `amdgpu_ring_write` lets it), after waiting for ring space against the
//! read pointer; the write pointer is then stored and the doorbell rung
//! with it, in bytes (ROCr `BlitSdma::ReleaseWriteAddress`).
//!
//! Ordering with other queues follows ROCr's `BlitSdma`: before its work a
//! command polls each dependency signal's value until it reads 0
//! (POLL_REGMEM on the low dword, as `BuildPollCommand` does), and after
//! it the completion signal is decremented by an ATOMIC add of -1; an
//! interrupt signal then gets its event id in its mailbox (FENCE) and the
//! event raised (TRAP), so a host waiter or a compute queue's barrier-AND
//! packet sees the completion.
//!
//! After a queue error the next command destroys and recreates the KFD
//! queue over the same buffers (pointers back to 0, error word cleared).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::abi::signal::AMD_SIGNAL_VALUE_OFFSET;
use aqueduct_kfd::uapi::{
    CreateQueueArgs, DestroyQueueArgs, KFD_IOC_QUEUE_TYPE_SDMA, UserContextSaveAreaHeader,
    event_type,
};

use super::error::SdmaError;
use super::packet;
use crate::error::{HsaResult, QueueCreationError, QueueError};
use crate::memory::{Allocation, MemoryPool};
use crate::queue::aql_queue::{DOORBELL_PAGE_MASK, QUEUE_PRIORITY_NORMAL, host_base};
use crate::signal::Signal;
use crate::signal::event::{EventHub, KfdEvent, QueueErrorSource};

/// Bytes of an SDMA queue's ring.
pub const SDMA_RING_BYTES: u64 = 64 * 1024;
const QUEUE_PAGE_SIZE: u64 = 4096;
const READ_POINTER_OFFSET: u64 = 0;
const WRITE_POINTER_OFFSET: u64 = 8;
const ERROR_REASON_OFFSET: u64 = 64;
const ERROR_HEADER_OFFSET: u64 = 128;
/// Most dependency signals one command polls.
pub const MAX_DEPENDENCIES: usize = 5;

/// What an SDMA queue needs from the runtime's per-GPU state.
pub(crate) struct SdmaQueueSetup<'a> {
    pub device: Arc<dyn KfdDevice>,
    pub hub: Arc<EventHub>,
    pub gpu_id: u32,
    pub node_id: u32,
    pub fine_pool: &'a MemoryPool,
    pub doorbell_page: Arc<Allocation>,
}

#[derive(Debug)]
struct KfdSdmaState {
    queue_id: u32,
    doorbell_va: u64,
    /// Bytes written so far (the write pointer).
    wptr: u64,
}

#[derive(Debug)]
pub struct SdmaQueue {
    device: Arc<dyn KfdDevice>,
    hub: Arc<EventHub>,
    gpu_id: u32,
    state: Mutex<KfdSdmaState>,
    create_args: CreateQueueArgs,
    error_source: Arc<QueueErrorSource>,
    recreations: AtomicU64,
    _error_event: KfdEvent,
    ring: Allocation,
    queue_page: Allocation,
    doorbell_page: Arc<Allocation>,
}

impl SdmaQueue {
    pub(crate) fn create(setup: SdmaQueueSetup<'_>) -> HsaResult<SdmaQueue> {
        let ring = setup.fine_pool.allocate(SDMA_RING_BYTES)?;
        let queue_page = setup.fine_pool.allocate(QUEUE_PAGE_SIZE)?;
        host_base(&ring, "ring")?;
        let qbase = host_base(&queue_page, "queue page")?;
        let error_event = setup
            .hub
            .create_event(event_type::SIGNAL, true, setup.node_id)?;
        let qva = queue_page.gpu_va();
        let header = UserContextSaveAreaHeader {
            error_reason: qva + ERROR_REASON_OFFSET,
            error_event_id: error_event.event_id,
            ..Default::default()
        };
        // SAFETY: the header lies inside the fresh 4 KiB queue page, 8-byte aligned; nothing else uses the page yet.
        unsafe {
            qbase
                .add(ERROR_HEADER_OFFSET as usize)
                .cast::<UserContextSaveAreaHeader>()
                .write_volatile(header);
        }
        let create_args = CreateQueueArgs {
            ring_base_address: ring.gpu_va(),
            read_pointer_address: qva + READ_POINTER_OFFSET,
            write_pointer_address: qva + WRITE_POINTER_OFFSET,
            ring_size: SDMA_RING_BYTES as u32,
            gpu_id: setup.gpu_id,
            queue_type: KFD_IOC_QUEUE_TYPE_SDMA,
            queue_percentage: 100,
            queue_priority: QUEUE_PRIORITY_NORMAL,
            ctx_save_restore_address: qva + ERROR_HEADER_OFFSET,
            ..Default::default()
        };
        // SAFETY: the error word is an aligned u64 of the queue page, which the queue (and so every holder of the source through it) keeps mapped.
        let error_source = Arc::new(unsafe {
            QueueErrorSource::new(
                0,
                setup.gpu_id,
                qva + ERROR_REASON_OFFSET,
                error_event.event_id,
            )
        });
        let queue = SdmaQueue {
            device: setup.device,
            hub: setup.hub,
            gpu_id: setup.gpu_id,
            state: Mutex::new(KfdSdmaState {
                queue_id: 0,
                doorbell_va: 0,
                wptr: 0,
            }),
            create_args,
            error_source,
            recreations: AtomicU64::new(0),
            _error_event: error_event,
            ring,
            queue_page,
            doorbell_page: setup.doorbell_page,
        };
        queue.reset_pointers();
        let state = queue.create_kfd_queue()?;
        *queue.lock_state() = state;
        queue.hub.register_queue(queue.error_source.clone());
        tracing::debug!(
            queue_id = queue.id(),
            gpu_id = queue.gpu_id,
            "created SDMA queue"
        );
        Ok(queue)
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, KfdSdmaState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn word(&self, offset: u64) -> &AtomicU64 {
        // SAFETY: an aligned u64 in the live queue page (offsets are constants below 4 KiB); the engine and the runtime touch it atomically.
        unsafe { AtomicU64::from_ptr(self.queue_page.gpu_va().wrapping_add(offset) as *mut u64) }
    }

    fn reset_pointers(&self) {
        self.word(READ_POINTER_OFFSET).store(0, Ordering::Release);
        self.word(WRITE_POINTER_OFFSET).store(0, Ordering::Release);
        self.word(ERROR_REASON_OFFSET).store(0, Ordering::Release);
    }

    /// CREATE_QUEUE with the fixed arguments; the doorbell's address.
    fn create_kfd_queue(&self) -> HsaResult<KfdSdmaState> {
        let mut args = self.create_args;
        self.device
            .create_queue(&mut args)
            .map_err(|source| QueueCreationError::CreateQueue {
                gpu_id: self.gpu_id,
                source,
            })?;
        let doorbell_va = self.doorbell_page.gpu_va() + (args.doorbell_offset & DOORBELL_PAGE_MASK);
        self.error_source
            .queue_id
            .store(args.queue_id, Ordering::Relaxed);
        Ok(KfdSdmaState {
            queue_id: args.queue_id,
            doorbell_va,
            wptr: 0,
        })
    }

    /// The KFD queue id (changes if the queue was recreated).
    pub fn id(&self) -> u32 {
        self.error_source.queue_id.load(Ordering::Relaxed)
    }

    pub fn gpu_id(&self) -> u32 {
        self.gpu_id
    }

    /// Bytes the engine has consumed.
    pub fn read_pointer(&self) -> u64 {
        self.word(READ_POINTER_OFFSET).load(Ordering::Acquire)
    }

    /// Bytes written to the ring.
    pub fn write_pointer(&self) -> u64 {
        self.word(WRITE_POINTER_OFFSET).load(Ordering::Acquire)
    }

    /// Times the KFD queue was recreated after an error.
    pub fn recreations(&self) -> u64 {
        self.recreations.load(Ordering::Relaxed)
    }

    /// The queue's pending error, if the device reported one.
    pub fn error(&self) -> Option<QueueError> {
        self.hub.queue_error(&self.error_source)
    }

    /// Recover now from an error instead of on the next command: destroy
    /// and recreate the KFD queue if it is in error.
    pub fn recover(&self) -> HsaResult<()> {
        let mut state = self.lock_state();
        self.recover_if_needed(&mut state)
    }

    /// Destroy and recreate the KFD queue if it is in error; the packets
    /// it had not executed are dropped.
    fn recover_if_needed(&self, state: &mut KfdSdmaState) -> HsaResult<()> {
        if self.word(ERROR_REASON_OFFSET).load(Ordering::Acquire) == 0 {
            return Ok(());
        }
        let err = self.error();
        tracing::warn!(queue_id = state.queue_id, error = ?err, "recreating SDMA queue after an error");
        if let Err(e) = self.device.destroy_queue(&mut DestroyQueueArgs {
            queue_id: state.queue_id,
            pad: 0,
        }) {
            tracing::warn!(
                queue_id = state.queue_id,
                "DESTROY_QUEUE of a failed SDMA queue: {e}"
            );
        }
        if let Some(err) = err {
            self.hub.record_recovered(err);
        }
        self.reset_pointers();
        self.hub.clear_memory_fault(self.gpu_id);
        *state = self.create_kfd_queue()?;
        self.recreations.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Write `dwords` at the write pointer once the ring has room for
    /// them, then publish the write pointer and ring the doorbell.
    fn submit(&self, dwords: &[u32]) -> HsaResult<()> {
        let mut state = self.lock_state();
        self.recover_if_needed(&mut state)?;
        let bytes = dwords.len() as u64 * 4;
        debug_assert!(bytes <= SDMA_RING_BYTES);
        loop {
            if let Some(e) = self.error() {
                return Err(e.into());
            }
            let used = state.wptr.wrapping_sub(self.read_pointer());
            if used + bytes <= SDMA_RING_BYTES {
                break;
            }
            std::thread::yield_now();
        }
        let base = self.ring.gpu_va();
        for (i, &d) in dwords.iter().enumerate() {
            let offset = (state.wptr + i as u64 * 4) % SDMA_RING_BYTES;
            // SAFETY: offset is a dword inside the live ring BO, which the engine only reads.
            unsafe { AtomicU32::from_ptr((base + offset) as *mut u32) }.store(d, Ordering::Relaxed);
        }
        state.wptr += bytes;
        self.word(WRITE_POINTER_OFFSET)
            .store(state.wptr, Ordering::Release);
        self.device.write_doorbell(state.doorbell_va, state.wptr);
        Ok(())
    }

    /// Append the polls on `deps` (each until its value reads 0).
    fn push_waits(dwords: &mut Vec<u32>, deps: &[&Signal]) -> Result<(), SdmaError> {
        if deps.len() > MAX_DEPENDENCIES {
            return Err(SdmaError::TooManyDependencies {
                count: deps.len(),
                limit: MAX_DEPENDENCIES,
            });
        }
        for dep in deps {
            dwords.extend(packet::poll_memory_equal(
                dep.handle() + AMD_SIGNAL_VALUE_OFFSET as u64,
                0,
                u32::MAX,
            ));
        }
        Ok(())
    }

    /// Append the completion of `signal`: decrement, then for an interrupt
    /// signal its mailbox and event.
    fn push_completion(dwords: &mut Vec<u32>, signal: Option<&Signal>) {
        let Some(signal) = signal else {
            return;
        };
        dwords.extend(packet::atomic_add64(
            signal.handle() + AMD_SIGNAL_VALUE_OFFSET as u64,
            u64::MAX,
        ));
        if let Some(event_id) = signal.event_id()
            && signal.event_mailbox() != 0
        {
            dwords.extend(packet::fence(signal.event_mailbox(), event_id));
            dwords.extend(packet::trap(event_id));
        }
    }

    /// Submit a command: `body`'s packets between the waits on `deps` and
    /// the completion of `completion`, split into ring-sized submissions.
    fn command(
        &self,
        deps: &[&Signal],
        body: impl IntoIterator<Item = Vec<u32>>,
        completion: Option<&Signal>,
    ) -> HsaResult<()> {
        let mut dwords = Vec::new();
        Self::push_waits(&mut dwords, deps)?;
        let limit = (SDMA_RING_BYTES / 4 / 2) as usize;
        for p in body {
            if dwords.len() + p.len() > limit {
                self.submit(&dwords)?;
                dwords.clear();
            }
            dwords.extend(p);
        }
        Self::push_completion(&mut dwords, completion);
        self.submit(&dwords)
    }

    /// Copy `bytes` from `src` to `dst` (GPU addresses) once every signal
    /// in `deps` reads 0, then complete `completion`.
    pub fn copy(
        &self,
        dst: u64,
        src: u64,
        bytes: u64,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<()> {
        let chunks = (0..bytes)
            .step_by(packet::MAX_BYTES_PER_PACKET as usize)
            .map(|off| {
                let n = (bytes - off).min(packet::MAX_BYTES_PER_PACKET);
                packet::copy_linear(dst + off, src + off, n).to_vec()
            });
        self.command(deps, chunks, completion)
    }

    /// Fill `bytes` at `dst` (both multiples of 4) with the dword
    /// `pattern` once every signal in `deps` reads 0, then complete
    /// `completion`.
    pub fn fill(
        &self,
        dst: u64,
        pattern: u32,
        bytes: u64,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<()> {
        if !dst.is_multiple_of(4) || !bytes.is_multiple_of(4) {
            return Err(SdmaError::UnalignedFill {
                address: dst,
                bytes,
            }
            .into());
        }
        let chunks = (0..bytes)
            .step_by(packet::MAX_BYTES_PER_PACKET as usize)
            .map(|off| {
                let n = (bytes - off).min(packet::MAX_BYTES_PER_PACKET);
                packet::constant_fill(dst + off, pattern, n).to_vec()
            });
        self.command(deps, chunks, completion)
    }

    /// Store the GPU's global timestamp at the 8-byte-aligned `addr` once
    /// every signal in `deps` reads 0, then complete `completion`.
    pub fn timestamp(
        &self,
        addr: u64,
        deps: &[&Signal],
        completion: Option<&Signal>,
    ) -> HsaResult<()> {
        self.command(deps, [packet::timestamp(addr).to_vec()], completion)
    }
}

impl Drop for SdmaQueue {
    fn drop(&mut self) {
        self.hub.unregister_queue(&self.error_source);
        let queue_id = self.lock_state().queue_id;
        if let Err(e) = self
            .device
            .destroy_queue(&mut DestroyQueueArgs { queue_id, pad: 0 })
        {
            tracing::warn!(queue_id, "DESTROY_QUEUE of an SDMA queue: {e}");
        }
    }
}
