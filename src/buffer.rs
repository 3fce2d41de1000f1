//! Buffers, slices and mapped views.
//!
//! A `Buffer` is a cheap clone of a handle: its size, usage, memory (shared
//! with in-flight submissions) and its key in the device registry, where
//! the mutable state lives (see `registry`). Mapping follows WebGPU:
//! `map_async` validates, waits (via `Device::poll`) for the last submission
//! that used the buffer, then hands the bytes to the host; `unmap` hands
//! them back; a buffer that is mapped or has a map pending cannot be used
//! by a submission. Views give the mapped bytes directly (fine-grained
//! memory, zero copy); a device-only buffer mapped at creation is backed by
//! host staging memory that `unmap` uploads.

use std::ops::{Bound, Deref, DerefMut, Range, RangeBounds};
use std::sync::Arc;

use wgpu_types::{BufferAddress, BufferSize, BufferUsages, MAP_ALIGNMENT};

use crate::binding::{BindingResource, BufferBinding};
use crate::command::hazard::Access;
use crate::device::DeviceShared;
use crate::error::{
    BufferAsyncError, BufferError, BufferIdent, BufferRole, MapError, MapRangeError, ObjectKind,
    UnusableBuffer, ValidationError, same_device,
};
use crate::placement::{BufferMemory, Placement};
use crate::registry::{BufferId, MapMode, MapState, Owner};

/// Describes a buffer to create.
pub type BufferDescriptor<'a> = wgpu_types::BufferDescriptor<crate::Label<'a>>;

#[derive(Debug)]
pub(crate) struct BufferInner {
    pub device: Arc<DeviceShared>,
    pub id: BufferId,
    pub size: u64,
    pub usage: BufferUsages,
    pub label: Option<String>,
    /// None for an invalid buffer.
    pub memory: Option<Arc<BufferMemory>>,
}

impl Drop for BufferInner {
    fn drop(&mut self) {
        self.device.forget_buffer(self.id, self.memory.take());
    }
}

/// A GPU buffer (cheap to clone; clones are the same buffer).
#[derive(Clone, Debug)]
pub struct Buffer {
    pub(crate) inner: Arc<BufferInner>,
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Self) -> bool {
        self.same(other)
    }
}

/// The memory a mapped view points into, held only to keep it alive.
pub(crate) enum MapTarget {
    Memory(#[allow(dead_code)] Arc<BufferMemory>),
    Staging(#[allow(dead_code)] Arc<crate::memory_reuse::ReusableAllocation>),
}

fn bounds_to_range(bounds: impl RangeBounds<u64>, size: u64) -> Option<Range<u64>> {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => size,
    };
    (start <= end).then_some(start..end)
}

impl Buffer {
    /// The buffer's size in bytes, as created.
    pub fn size(&self) -> BufferAddress {
        self.inner.size
    }
    /// The usage the buffer was created with.
    pub fn usage(&self) -> BufferUsages {
        self.inner.usage
    }
    /// Where the buffer's memory was placed (None if the buffer is invalid).
    pub fn placement(&self) -> Option<Placement> {
        self.inner.memory.as_ref().map(|m| m.placement)
    }
    /// Who owns the bytes now (host while mapped, agent otherwise).
    pub fn owner(&self) -> Owner {
        self.inner
            .device
            .with_buffer(self.inner.id, |s| s.owner)
            .unwrap_or(Owner::Agent)
    }

    pub(crate) fn same(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
    pub(crate) fn memory(&self) -> Option<&Arc<BufferMemory>> {
        self.inner.memory.as_ref()
    }
    /// The buffer as error messages name it.
    pub(crate) fn ident(&self) -> BufferIdent {
        BufferIdent {
            label: self.inner.label.clone(),
            size: self.inner.size,
        }
    }

    /// Valid, of `device` and not destroyed; `role` is the use the check is
    /// for.
    pub(crate) fn check_usable(
        &self,
        device: &DeviceShared,
        role: BufferRole,
    ) -> Result<(), UnusableBuffer> {
        same_device(
            ObjectKind::Buffer,
            self.inner.label.as_deref(),
            self.inner.device.id,
            device.id,
        )
        .map_err(|source| UnusableBuffer::WrongDevice { role, source })?;
        if self.inner.memory.is_none() {
            return Err(UnusableBuffer::Invalid {
                role,
                buffer: self.ident(),
            });
        }
        let destroyed = self
            .inner
            .device
            .with_buffer(self.inner.id, |s| s.destroyed)
            .unwrap_or(true);
        if destroyed {
            return Err(UnusableBuffer::Destroyed {
                role,
                buffer: self.ident(),
            });
        }
        Ok(())
    }

    /// A device access to the buffer-relative `range`.
    pub(crate) fn access(&self, range: Range<u64>, write: bool) -> Access {
        match &self.inner.memory {
            Some(m) => Access {
                range: m.va_range(range),
                write,
                host_visible: m.placement.host_visible(),
                object: self.inner.id.hazard_object(),
                group: crate::command::hazard::NOT_BOUND,
                binding: 0,
            },
            None => Access {
                range: 0..0,
                write,
                host_visible: false,
                object: 0,
                group: crate::command::hazard::NOT_BOUND,
                binding: 0,
            },
        }
    }

    /// A slice of the buffer. Out-of-range bounds are clamped to the buffer
    /// and reported as a validation error (wgpu panics).
    pub fn slice<S: RangeBounds<BufferAddress>>(&self, bounds: S) -> BufferSlice<'_> {
        let range = match bounds_to_range(bounds, self.size()) {
            Some(r) if r.end <= self.size() => r,
            _ => {
                self.inner.device.report(BufferError::SliceOutOfRange {
                    buffer: self.ident(),
                });
                0..0
            }
        };
        BufferSlice {
            buffer: self,
            offset: range.start,
            size: range.end - range.start,
        }
    }

    /// The whole buffer as a bind group resource.
    pub fn as_entire_binding(&self) -> BindingResource<'_> {
        BindingResource::Buffer(self.as_entire_buffer_binding())
    }

    /// The whole buffer as a buffer binding.
    pub fn as_entire_buffer_binding(&self) -> BufferBinding<'_> {
        BufferBinding {
            buffer: self,
            offset: 0,
            size: None,
        }
    }

    /// Map `bounds` for the host once the device is done with the buffer;
    /// `callback` runs from `Device::poll` (or `Queue::submit`).
    pub fn map_async<S: RangeBounds<BufferAddress>>(
        &self,
        mode: MapMode,
        bounds: S,
        callback: impl FnOnce(Result<(), BufferAsyncError>) + Send + 'static,
    ) {
        let range = bounds_to_range(bounds, self.size());
        self.inner
            .device
            .map_async(self, mode, range, Box::new(callback));
    }

    /// The mapped bytes of `bounds` (must lie in the mapped range and not
    /// overlap another live view).
    pub fn get_mapped_range<S: RangeBounds<BufferAddress>>(
        &self,
        bounds: S,
    ) -> Result<BufferView, MapRangeError> {
        let range = bounds_to_range(bounds, self.size()).ok_or(MapRangeError::InvertedRange)?;
        let (ptr, keep) = self.inner.device.map_view(self, range.clone(), false)?;
        Ok(BufferView {
            buffer: self.clone(),
            range,
            ptr,
            _keep: keep,
        })
    }

    /// The mapped bytes of `bounds`, writable.
    pub fn get_mapped_range_mut<S: RangeBounds<BufferAddress>>(
        &self,
        bounds: S,
    ) -> Result<BufferViewMut, MapRangeError> {
        let range = bounds_to_range(bounds, self.size()).ok_or(MapRangeError::InvertedRange)?;
        let (ptr, keep) = self.inner.device.map_view(self, range.clone(), true)?;
        Ok(BufferViewMut {
            buffer: self.clone(),
            range,
            ptr,
            _keep: keep,
        })
    }

    /// Give the bytes back to the device (uploading a mapped-at-creation
    /// device-only buffer's staging memory); a pending map is aborted.
    pub fn unmap(&self) {
        self.inner.device.unmap(self);
    }

    /// Destroy the buffer: later use is a validation error; its memory is
    /// released once in-flight work no longer needs it.
    pub fn destroy(&self) {
        self.inner.device.destroy_buffer(self);
    }

    /// The state of the buffer's mapping.
    pub fn map_state(&self) -> MapStateKind {
        self.inner
            .device
            .with_buffer(self.inner.id, |s| match s.map {
                MapState::Unmapped => MapStateKind::Unmapped,
                MapState::Pending { .. } => MapStateKind::Pending,
                MapState::Mapped { .. } => MapStateKind::Mapped,
            })
            .unwrap_or(MapStateKind::Unmapped)
    }
}

/// `GPUBufferMapState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapStateKind {
    /// Not mapped and no mapping pending.
    Unmapped,
    /// `map_async` was called and its mapping has not completed.
    Pending,
    /// Mapped for the host.
    Mapped,
}

/// A range of a buffer.
#[derive(Clone, Copy, Debug)]
pub struct BufferSlice<'a> {
    buffer: &'a Buffer,
    offset: u64,
    size: u64,
}

impl<'a> BufferSlice<'a> {
    /// The buffer the slice is of.
    pub fn buffer(&self) -> &'a Buffer {
        self.buffer
    }
    /// The slice's start in the buffer, in bytes.
    pub fn offset(&self) -> BufferAddress {
        self.offset
    }
    /// The slice's size in bytes.
    pub fn size(&self) -> BufferAddress {
        self.size
    }
    /// A sub-slice (bounds relative to this slice).
    pub fn slice<S: RangeBounds<BufferAddress>>(&self, bounds: S) -> BufferSlice<'a> {
        match bounds_to_range(bounds, self.size) {
            Some(r) if r.end <= self.size => BufferSlice {
                buffer: self.buffer,
                offset: self.offset + r.start,
                size: r.end - r.start,
            },
            _ => {
                self.buffer
                    .inner
                    .device
                    .report(BufferError::SubSliceOutOfRange {
                        slice_size: self.size,
                    });
                BufferSlice {
                    buffer: self.buffer,
                    offset: self.offset,
                    size: 0,
                }
            }
        }
    }
    /// Map the slice for the host, as `Buffer::map_async` over its range.
    pub fn map_async(
        &self,
        mode: MapMode,
        callback: impl FnOnce(Result<(), BufferAsyncError>) + Send + 'static,
    ) {
        self.buffer
            .map_async(mode, self.offset..self.offset + self.size, callback)
    }
    /// A view of the mapped slice for reading, as `Buffer::get_mapped_range` over its range.
    pub fn get_mapped_range(&self) -> Result<BufferView, MapRangeError> {
        self.buffer
            .get_mapped_range(self.offset..self.offset + self.size)
    }
    /// A view of the mapped slice for writing, as `Buffer::get_mapped_range_mut` over its range.
    pub fn get_mapped_range_mut(&self) -> Result<BufferViewMut, MapRangeError> {
        self.buffer
            .get_mapped_range_mut(self.offset..self.offset + self.size)
    }
}

impl<'a> TryFrom<BufferSlice<'a>> for BufferBinding<'a> {
    type Error = ValidationError;
    fn try_from(s: BufferSlice<'a>) -> Result<Self, Self::Error> {
        let size = BufferSize::new(s.size).ok_or(BufferError::EmptyBinding)?;
        Ok(BufferBinding {
            buffer: s.buffer,
            offset: s.offset,
            size: Some(size),
        })
    }
}

impl<'a> TryFrom<BufferSlice<'a>> for BindingResource<'a> {
    type Error = ValidationError;
    fn try_from(s: BufferSlice<'a>) -> Result<Self, Self::Error> {
        Ok(BindingResource::Buffer(s.try_into()?))
    }
}

/// Read access to mapped bytes; dropping it releases the range.
pub struct BufferView {
    buffer: Buffer,
    range: Range<u64>,
    ptr: *mut u8,
    _keep: MapTarget,
}

/// Write access to mapped bytes; dropping it releases the range.
pub struct BufferViewMut {
    buffer: Buffer,
    range: Range<u64>,
    ptr: *mut u8,
    _keep: MapTarget,
}

// SAFETY: the view owns (via _keep) the host-mapped memory its pointer points into, and the registry guarantees no other view overlaps it.
unsafe impl Send for BufferView {}
// SAFETY: as above; a BufferView only gives shared access.
unsafe impl Sync for BufferView {}
// SAFETY: as above; the writable view's range is exclusive to it.
unsafe impl Send for BufferViewMut {}
// SAFETY: &BufferViewMut only gives shared access to its exclusive range.
unsafe impl Sync for BufferViewMut {}

impl Deref for BufferView {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        let len = (self.range.end - self.range.start) as usize;
        // SAFETY: ptr..ptr+len lies in host-mapped memory kept alive by _keep, registered as this view's range.
        unsafe { std::slice::from_raw_parts(self.ptr, len) }
    }
}

impl AsRef<[u8]> for BufferView {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Deref for BufferViewMut {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        let len = (self.range.end - self.range.start) as usize;
        // SAFETY: as for BufferView.
        unsafe { std::slice::from_raw_parts(self.ptr, len) }
    }
}

impl DerefMut for BufferViewMut {
    fn deref_mut(&mut self) -> &mut [u8] {
        let len = (self.range.end - self.range.start) as usize;
        // SAFETY: as for BufferView; no other view overlaps this range, and &mut self is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, len) }
    }
}

impl AsMut<[u8]> for BufferViewMut {
    fn as_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl Drop for BufferView {
    fn drop(&mut self) {
        self.buffer
            .inner
            .device
            .release_view(self.buffer.inner.id, &self.range);
    }
}

impl Drop for BufferViewMut {
    fn drop(&mut self) {
        self.buffer
            .inner
            .device
            .release_view(self.buffer.inner.id, &self.range);
    }
}

/// Check a map_async range: offsets multiple of MAP_ALIGNMENT, sizes of 4.
pub(crate) fn check_map_range(range: &Range<u64>, size: u64) -> Result<(), MapError> {
    if range.end > size {
        return Err(MapError::OutOfBounds {
            range: range.clone(),
            size,
        });
    }
    if !range.start.is_multiple_of(MAP_ALIGNMENT) {
        return Err(MapError::UnalignedOffset {
            offset: range.start,
        });
    }
    if !(range.end - range.start).is_multiple_of(4) {
        return Err(MapError::UnalignedSize {
            size: range.end - range.start,
        });
    }
    Ok(())
}
