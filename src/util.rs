//! Helpers wgpu keeps in `wgpu::util`: `DeviceExt::create_buffer_init`,
//! `DispatchIndirectArgs`, plus a blocking readback helper that hides the
//! map_async + poll ceremony.

use wgpu_types::{BufferUsages, COPY_BUFFER_ALIGNMENT};

use crate::buffer::{Buffer, BufferDescriptor};
use crate::device::Device;
use crate::error::{BufferAsyncError, MapRangeError};
use crate::queue::PollType;
use crate::registry::MapMode;

pub use wgpu_types::DispatchIndirectArgs;

/// Contents and usage of a buffer created with its data.
pub struct BufferInitDescriptor<'a> {
    /// The buffer's label, for error messages and debugging.
    pub label: crate::Label<'a>,
    /// The bytes the buffer starts with.
    pub contents: &'a [u8],
    /// The buffer's usage; `create_buffer_init` adds nothing to it.
    pub usage: BufferUsages,
}

/// `Device` helpers that wgpu keeps in `wgpu::util`.
pub trait DeviceExt {
    /// A buffer holding `contents` (size padded to a multiple of 4).
    fn create_buffer_init(&self, desc: &BufferInitDescriptor<'_>) -> Buffer;
}

impl DeviceExt for Device {
    fn create_buffer_init(&self, desc: &BufferInitDescriptor<'_>) -> Buffer {
        let size = (desc.contents.len() as u64).next_multiple_of(COPY_BUFFER_ALIGNMENT);
        let buffer = self.create_buffer(&BufferDescriptor {
            label: desc.label,
            size,
            usage: desc.usage,
            mapped_at_creation: true,
        });
        if size > 0
            && let Ok(mut view) = buffer.get_mapped_range_mut(..)
        {
            view[..desc.contents.len()].copy_from_slice(desc.contents);
        }
        buffer.unmap();
        buffer
    }
}

/// Why [`read_mapped`] could not read a buffer back.
#[derive(Debug, thiserror::Error)]
pub enum ReadbackError {
    /// Waiting for the device failed.
    #[error("waiting for the mapping: {0}")]
    Poll(#[from] wgpu_types::PollError),
    /// The map callback was dropped without running (the device went away).
    #[error("the map callback did not run")]
    CallbackDropped,
    /// The mapping failed.
    #[error(transparent)]
    Map(#[from] BufferAsyncError),
    /// The mapped range could not be viewed.
    #[error(transparent)]
    Range(#[from] MapRangeError),
}

/// Map a MAP_READ buffer, wait for it, copy its bytes out and unmap it.
pub fn read_mapped(device: &Device, buffer: &Buffer) -> Result<Vec<u8>, ReadbackError> {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device.poll(PollType::wait_indefinitely())?;
    rx.recv().map_err(|_| ReadbackError::CallbackDropped)??;
    let bytes = buffer.get_mapped_range(..)?.to_vec();
    buffer.unmap();
    Ok(bytes)
}
