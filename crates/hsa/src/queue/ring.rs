//! The AQL ring protocol, independent of any device: slot reservation by
//! atomic add on `write_dispatch_id` with back-pressure against
//! `read_dispatch_id`, packet publication (body first, then the 32-bit
//! header|setup word with release order), and ring reset.
//!
//! `AqlRing` only holds addresses (the ring slots and the two dispatch-id
//! words inside `amd_queue_t`), so tests can drive it over host memory with
//! a simulated consumer.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use aqueduct_kfd::abi::{RawPacket, packet_type};

/// The 64-bit word of every AQL packet format that holds its completion
/// signal (bytes 56..64).
pub(crate) const COMPLETION_SIGNAL_WORD: usize = 7;

use crate::error::{HsaError, HsaResult, ReservationError};

/// The raw header word of a slot nobody owns: type INVALID, no fences.
pub const INVALID_HEADER_WORD: u32 = packet_type::INVALID as u32;

#[derive(Debug)]
pub struct AqlRing {
    slots: NonNull<RawPacket>,
    size: u32,
    write_id: NonNull<u64>,
    read_id: NonNull<u64>,
}

// SAFETY: the ring only holds addresses of shared memory that is accessed atomically (ids, headers) or by the slot's sole owner (bodies).
unsafe impl Send for AqlRing {}
// SAFETY: as above.
unsafe impl Sync for AqlRing {}

impl AqlRing {
    /// # Safety
    /// `slots` must point at `size` 64-byte-aligned packets and
    /// `write_id`/`read_id` at 8-byte-aligned u64s, all valid for the
    /// life of the ring and accessed by others only atomically (ids,
    /// headers) or per the AQL protocol. `size` must be a power of two.
    pub unsafe fn from_raw_parts(
        slots: NonNull<RawPacket>,
        size: u32,
        write_id: NonNull<u64>,
        read_id: NonNull<u64>,
    ) -> HsaResult<Self> {
        if !size.is_power_of_two() {
            return Err(ReservationError::RingSize { size }.into());
        }
        Ok(Self {
            slots,
            size,
            write_id,
            read_id,
        })
    }

    /// Size in packets.
    pub fn size(&self) -> u32 {
        self.size
    }

    pub fn write_id(&self) -> &AtomicU64 {
        // SAFETY: per from_raw_parts, write_id is a live aligned u64 accessed atomically.
        unsafe { AtomicU64::from_ptr(self.write_id.as_ptr()) }
    }

    pub fn read_id(&self) -> &AtomicU64 {
        // SAFETY: per from_raw_parts, read_id is a live aligned u64 accessed atomically.
        unsafe { AtomicU64::from_ptr(self.read_id.as_ptr()) }
    }

    /// The slot a dispatch id maps to.
    pub fn slot_ptr(&self, index: u64) -> *mut RawPacket {
        // SAFETY: index is reduced modulo the (power-of-two) ring size, so the slot is in bounds.
        unsafe {
            self.slots
                .as_ptr()
                .add((index & (self.size as u64 - 1)) as usize)
        }
    }

    /// The header|setup word of a slot, accessed atomically.
    pub fn header(&self, index: u64) -> &AtomicU32 {
        // SAFETY: the first 4 bytes of an in-bounds, 64-byte-aligned slot; publication words are only accessed atomically.
        unsafe { AtomicU32::from_ptr(self.slot_ptr(index).cast::<u32>()) }
    }

    /// Completion-signal handles of the published packets the packet
    /// processor has not retired (dispatch ids read_id..write_id). Only
    /// meaningful while nothing consumes the ring (e.g. its queue halted).
    pub fn pending_completion_signals(&self) -> Vec<u64> {
        let read = self.read_id().load(Ordering::Acquire);
        let write = self.write_id().load(Ordering::Acquire);
        let mut signals = Vec::new();
        for index in read..write.min(read + self.size as u64) {
            let header = self.header(index).load(Ordering::Acquire) as u16;
            if header & 0xff == packet_type::INVALID {
                continue;
            }
            // Every AQL packet type keeps its completion signal in bytes 56..64.
            // SAFETY: the slot is in bounds and published (its header is not INVALID); word 7 is plain data.
            let signal = unsafe { self.slot_ptr(index).cast::<u64>().add(7).read_volatile() };
            if signal != 0 {
                signals.push(signal);
            }
        }
        signals
    }

    /// Reserve `count` consecutive slots; returns the first dispatch id.
    /// Waits (spinning, then yielding) while the ring is full; `abort` is
    /// polled while waiting and ends the wait with its error (e.g. the
    /// queue died and will never drain).
    pub fn reserve(&self, count: u32, abort: &dyn Fn() -> Option<HsaError>) -> HsaResult<u64> {
        self.check_reservation(count)?;
        let first = self.write_id().fetch_add(count as u64, Ordering::AcqRel);
        let last = first + count as u64 - 1;
        let mut polls = 0u32;
        while last - self.read_id().load(Ordering::Acquire) >= self.size as u64 {
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(256) {
                if let Some(e) = abort() {
                    return Err(e);
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        Ok(first)
    }

    /// Reserve `count` consecutive slots without waiting: the first
    /// dispatch id, or None while the ring lacks room (for a producer that
    /// is itself the only consumer, e.g. a host function on its own queue).
    pub fn try_reserve(&self, count: u32) -> HsaResult<Option<u64>> {
        self.check_reservation(count)?;
        let read = self.read_id().load(Ordering::Acquire);
        let mut write = self.write_id().load(Ordering::Acquire);
        loop {
            if write + count as u64 - read > self.size as u64 {
                return Ok(None);
            }
            match self.write_id().compare_exchange_weak(
                write,
                write + count as u64,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(Some(write)),
                Err(now) => write = now,
            }
        }
    }

    fn check_reservation(&self, count: u32) -> HsaResult<()> {
        if count == 0 || count > self.size {
            return Err(ReservationError::Count {
                count,
                size: self.size,
            }
            .into());
        }
        Ok(())
    }

    /// Write `packet` into the slot of `index` and publish it: bytes 4..64
    /// first, then bytes 0..4 (header | setup << 16) as one release store.
    /// The caller must own the slot (reserved and not yet published).
    pub fn publish(&self, index: u64, packet: &RawPacket) {
        self.publish_signalled(index, packet, packet.0[COMPLETION_SIGNAL_WORD]);
    }

    /// [`AqlRing::publish`] of `packet` with its completion signal (bytes
    /// 56..64 in every AQL packet format) replaced by `signal`. The signal
    /// is stored into the slot, not into a copy of the packet: an 8-byte
    /// store into a packet the CPU then copies with wide loads stalls on
    /// store forwarding, a few nanoseconds per packet.
    pub fn publish_signalled(&self, index: u64, packet: &RawPacket, signal: u64) {
        let slot = self.slot_ptr(index).cast::<u8>();
        let bytes: &[u8; 64] = bytemuck::cast_ref(packet);
        // One plain copy of the body (a few vector stores, not volatile
        // word stores): nothing reads it before the release store of the
        // header below, which orders it after the body.
        // SAFETY: the caller owns this reserved slot (64 bytes, in bounds), unread until the header store below; bytes 56..64 hold the signal, 8-aligned in the 64-aligned slot.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes[4..].as_ptr(), slot.add(4), 52);
            slot.add(56).cast::<u64>().write(signal);
        }
        let words: &[u32; 16] = bytemuck::cast_ref(packet);
        self.header(index).store(words[0], Ordering::Release);
    }

    /// Mark every slot INVALID (rest zeroed) and set both ids to 0. Only
    /// while nobody produces or consumes.
    pub fn reset(&self) {
        for i in 0..self.size as u64 {
            // SAFETY: in-bounds slot; no producer or consumer runs during a reset.
            unsafe { self.slot_ptr(i).write_volatile(RawPacket::default()) };
            self.header(i).store(INVALID_HEADER_WORD, Ordering::Relaxed);
        }
        self.read_id().store(0, Ordering::Relaxed);
        self.write_id().store(0, Ordering::Release);
    }
}
