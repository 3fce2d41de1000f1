//! Staging: `write_buffer` uploads through the staging ring (or a dedicated
//! allocation for large ones) and kernarg blocks from the kernarg ring,
//! waiting for the oldest submission holding ring space when a ring is
//! full.

use std::sync::Arc;

use crate::error::QueueWriteError;

use crate::buffer::Buffer;
use crate::command::hazard::Access;
use crate::command::lower::{self, PacketRole, UniformInKernarg};
use crate::device::DeviceShared;
use crate::ring::RingBlock;

use super::lifetime::{KeepAlive, StateLock, completed_epoch};
use super::recovery::recover_from_queue_error;
use super::submit::submit;
use super::wait::wait_epoch;

/// A ring is full: wait, without the queue-state lock, until submission
/// `oldest` (the oldest holding ring blocks) completes, then free what
/// completed. A failed wait is a queue fault: it is reported and the
/// outstanding submissions counted complete (`recover_from_queue_error`),
/// which frees their blocks too, so the caller's retry makes progress
/// either way.
pub(super) fn wait_for_ring_space(dev: &Arc<DeviceShared>, state: &mut StateLock<'_>, oldest: u64) {
    state.unlocked(|| match wait_epoch(dev, oldest, None) {
        Ok(_) => {}
        Err(e) => recover_from_queue_error(dev, e),
    });
    let completed = completed_epoch(dev);
    state.retire(completed);
}

pub(super) fn stage_write(
    dev: &Arc<DeviceShared>,
    buffer: &Buffer,
    offset: u64,
    data: &[u8],
) -> Result<(), QueueWriteError> {
    let len = data.len() as u64;
    let mut state = StateLock::new(dev);
    let (src_va, keep): (u64, Option<KeepAlive>) = if len <= state.staging.capacity() / 2 {
        let block = loop {
            let epoch = state.open_epoch();
            if let Some(b) = state.staging.alloc(len, 64, epoch) {
                break b;
            }
            let oldest = state.staging.oldest_epoch().unwrap_or(epoch);
            if oldest >= epoch {
                // Only uploads still pending fill it: submit them.
                state.unlocked(|| submit(dev, Vec::new()));
                continue;
            }
            wait_for_ring_space(dev, &mut state, oldest);
        };
        // SAFETY: the block is len bytes of host-mapped staging memory reserved for this upload.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), block.host, data.len()) };
        (block.va, None)
    } else {
        // A dedicated allocation, filled without the lock.
        let alloc = state.unlocked(|| -> Result<_, QueueWriteError> {
            let pool = dev
                .runtime
                .pool(&dev.agent, aqueduct_hsa::PoolKind::FineSystem)?;
            let mut alloc = pool.allocate(len)?;
            let bytes = alloc
                .as_mut_slice()
                .ok_or(QueueWriteError::StagingNotHostMapped)?;
            bytes.copy_from_slice(data);
            Ok(alloc)
        })?;
        (alloc.gpu_va(), Some(Box::new(alloc)))
    };
    let src = Access {
        range: src_va..src_va + len,
        write: false,
        host_visible: true,
        // The ring block or dedicated allocation the bytes were put in.
        object: src_va,
        group: crate::command::hazard::NOT_BOUND,
        binding: 0,
    };
    let dst = buffer.access(offset..offset + len, true);
    match lower::copy_ops(&dev.blit, PacketRole::Upload, src, dst) {
        Ok(ops) => {
            let mut keep_all: Vec<KeepAlive> = Vec::new();
            if let Some(m) = buffer.memory() {
                keep_all.push(Box::new(m.clone()));
            }
            keep_all.extend(keep);
            state.push_pending(ops, Some(buffer.inner.id), keep_all);
        }
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// Place a kernarg block; with `uniform`, its pointer argument is set to
/// the uniform bytes at the end of the block. A full ring waits (without
/// the queue-state lock) for the oldest submission holding blocks.
pub(super) fn alloc_kernarg(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    bytes: &[u8],
    align: u64,
    uniform: Option<UniformInKernarg>,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
) -> Result<RingBlock, QueueWriteError> {
    if bytes.is_empty() {
        return Ok(RingBlock {
            va: 0,
            host: std::ptr::null_mut(),
            len: 0,
        });
    }
    if let Some(u) = uniform
        && (u.arg_offset as usize + 8 > bytes.len() || u.data_offset as usize > bytes.len())
    {
        return Err(QueueWriteError::UniformOutsideBlock);
    }
    let b = reserve_kernarg(dev, state, bytes.len() as u64, align, epoch, keep)?;
    // SAFETY: the block is len = bytes.len() bytes of host-mapped kernarg memory reserved for this submission.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.host, bytes.len()) };
    if let Some(u) = uniform {
        let ptr = b.va + u64::from(u.data_offset);
        // SAFETY: arg_offset + 8 <= len (checked above), inside the same reserved block.
        unsafe {
            std::ptr::copy_nonoverlapping(
                ptr.to_le_bytes().as_ptr(),
                b.host.add(u.arg_offset as usize),
                8,
            )
        };
    }
    Ok(b)
}

/// Reserve `len` (> 0) bytes of host-mapped kernarg memory for submission
/// `epoch`, unwritten: ring space, or for a block over a quarter of the
/// ring an allocation of its own that `keep` holds until the submission
/// retires. A full ring waits (without the queue-state lock) for the
/// oldest submission holding blocks.
fn reserve_kernarg(
    dev: &Arc<DeviceShared>,
    state: &mut StateLock<'_>,
    len: u64,
    align: u64,
    epoch: u64,
    keep: &mut Vec<KeepAlive>,
) -> Result<RingBlock, QueueWriteError> {
    if len > state.kernargs.capacity() / 4 {
        let mut alloc = dev.runtime.kernarg_pool(&dev.agent)?.allocate(len)?;
        let va = alloc.gpu_va();
        let host = alloc
            .as_mut_slice()
            .ok_or(QueueWriteError::KernargNotHostMapped)?
            .as_mut_ptr();
        keep.push(Box::new(alloc));
        return Ok(RingBlock { va, host, len });
    }
    loop {
        if let Some(b) = state.kernargs.alloc(len, align, epoch) {
            return Ok(b);
        }
        let oldest = state.kernargs.oldest_epoch().unwrap_or(epoch);
        if oldest >= epoch {
            return Err(QueueWriteError::KernargRingTooSmall);
        }
        wait_for_ring_space(dev, state, oldest);
    }
}
