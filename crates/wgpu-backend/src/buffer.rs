//! Buffers and mapped ranges over the facade's buffers.
//!
//! wgpu's front end keeps the map bookkeeping (the requested range, the
//! views and their aliasing rules) and asks the backend for the bytes of
//! each view by range only, without saying whether it will read or write
//! them, and may hold several overlapping read views. The facade gives one
//! non-overlapping view per range, read or write by the map mode. So the
//! backend takes one facade view of the whole mapped range on the first
//! request (writable when mapped for writing or at creation), shares it
//! between wgpu's views, and gives it back at `unmap`.
//!
//! wgpu offers a custom backend no way to build its `MapRangeError`, so a
//! range the backend cannot give (the buffer is not mapped, the mapping is
//! still pending or failed, the range is outside it) panics with the text
//! wgpu's error would carry: handing out bytes that are not the buffer's
//! would let the program go on with wrong data. A write view of a read
//! mapping reports a validation error (a panic unless a scope or handler
//! takes it) and its writes go to a scratch range.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use wgpu::custom::{
    BufferInterface, BufferMapCallback, BufferMappedRangeInterface, DispatchBufferMappedRange,
};

use crate::error::{BackendValidationError, MappedRangeError, report_validation};
use crate::lock;

/// The facade view of a whole mapped range, shared by wgpu's views.
struct HeldView {
    /// Keeps the mapping's bytes and their registration in the facade.
    view: FacadeView,
    base: *mut u8,
    range: Range<u64>,
}

enum FacadeView {
    Read(#[allow(dead_code)] aqueduct::BufferView),
    Write(#[allow(dead_code)] aqueduct::BufferViewMut),
}

// SAFETY: `base` points into memory owned by `view` (itself Send + Sync); wgpu's front end keeps the views that write through it disjoint from every other view.
unsafe impl Send for HeldView {}
// SAFETY: as above; shared access only reads unless a view holds the range exclusively.
unsafe impl Sync for HeldView {}

impl HeldView {
    /// Whether the mapping may be written (a write view of the facade's).
    fn writable(&self) -> bool {
        matches!(self.view, FacadeView::Write(_))
    }

    fn take(
        buffer: &aqueduct::Buffer,
        mode: aqueduct::MapMode,
        range: Range<u64>,
    ) -> Result<Self, aqueduct::MapRangeError> {
        match mode {
            aqueduct::MapMode::Write => {
                let mut view = buffer.get_mapped_range_mut(range.clone())?;
                let base = view.as_mut_ptr();
                Ok(HeldView {
                    view: FacadeView::Write(view),
                    base,
                    range,
                })
            }
            aqueduct::MapMode::Read => {
                let view = buffer.get_mapped_range(range.clone())?;
                let base = view.as_ptr().cast_mut();
                Ok(HeldView {
                    view: FacadeView::Read(view),
                    base,
                    range,
                })
            }
        }
    }
}

#[derive(Default)]
struct MapTracking {
    /// Mode and range of the current or pending mapping.
    current: Option<(aqueduct::MapMode, Range<u64>)>,
    view: Option<Arc<HeldView>>,
}

/// `wgpu::Buffer`'s backend.
pub struct AqueductBuffer {
    device: aqueduct::Device,
    buffer: aqueduct::Buffer,
    tracking: Mutex<MapTracking>,
}

impl std::fmt::Debug for AqueductBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AqueductBuffer")
            .field("buffer", &self.buffer)
            .finish_non_exhaustive()
    }
}

impl AqueductBuffer {
    pub(crate) fn create(device: &aqueduct::Device, desc: &wgpu::BufferDescriptor<'_>) -> Self {
        let buffer = device.create_buffer(desc);
        let current = desc
            .mapped_at_creation
            .then_some((aqueduct::MapMode::Write, 0..desc.size));
        AqueductBuffer {
            device: device.clone(),
            buffer,
            tracking: Mutex::new(MapTracking {
                current,
                view: None,
            }),
        }
    }

    /// The facade buffer underneath.
    pub fn aqueduct(&self) -> &aqueduct::Buffer {
        &self.buffer
    }

    fn tracking(&self) -> std::sync::MutexGuard<'_, MapTracking> {
        lock(&self.tracking)
    }

    /// The shared view holding `sub_range`, taken on first use.
    fn held_view(&self, sub_range: &Range<u64>) -> Result<Arc<HeldView>, MappedRangeError> {
        let range = sub_range.clone();
        let mut t = self.tracking();
        let view = match &t.view {
            Some(v) => v.clone(),
            None => {
                let Some((mode, mapped)) = t.current.clone() else {
                    return Err(MappedRangeError::NotMapped { range });
                };
                let v = HeldView::take(&self.buffer, mode, mapped)
                    .map_err(|source| MappedRangeError::Refused { range, source })?;
                let v = Arc::new(v);
                t.view = Some(v.clone());
                v
            }
        };
        if sub_range.start < view.range.start || sub_range.end > view.range.end {
            return Err(MappedRangeError::OutsideMapped {
                range: sub_range.clone(),
                mapped: view.range.clone(),
            });
        }
        Ok(view)
    }
}

impl BufferInterface for AqueductBuffer {
    fn map_async(&self, mode: wgpu::MapMode, range: Range<u64>, callback: BufferMapCallback) {
        let mode = match mode {
            wgpu::MapMode::Read => aqueduct::MapMode::Read,
            wgpu::MapMode::Write => aqueduct::MapMode::Write,
        };
        *self.tracking() = MapTracking {
            current: Some((mode, range.clone())),
            view: None,
        };
        self.buffer.map_async(mode, range, move |result| {
            if let Err(e) = &result {
                tracing::debug!("map_async failed: {e}");
            }
            callback(result.map_err(|_| wgpu::BufferAsyncError));
        });
    }

    fn get_mapped_range(
        &self,
        sub_range: Range<u64>,
    ) -> Result<DispatchBufferMappedRange, wgpu::MapRangeError> {
        let view = match self.held_view(&sub_range) {
            Ok(view) => view,
            // wgpu's `MapRangeError` text (see the module docs).
            Err(why) => panic!("Buffer view error: {why}"),
        };
        let len = (sub_range.end - sub_range.start) as usize;
        let offset = (sub_range.start - view.range.start) as usize;
        // SAFETY: sub_range lies inside the view's range (held_view checks it), so base + offset stays inside the mapped bytes.
        let ptr = unsafe { view.base.add(offset) };
        let range = AqueductMappedRange {
            device: self.device.clone(),
            bytes: RangeBytes::Mapped { view, ptr, len },
        };
        Ok(DispatchBufferMappedRange::custom(range))
    }

    fn unmap(&self) {
        *self.tracking() = MapTracking::default();
        self.buffer.unmap();
    }

    fn destroy(&self) {
        *self.tracking() = MapTracking::default();
        self.buffer.destroy();
    }
}

enum RangeBytes {
    Mapped {
        /// Keeps the bytes mapped; says whether they may be written.
        view: Arc<HeldView>,
        ptr: *mut u8,
        len: usize,
    },
    /// Takes the writes of a write view of a read mapping (reported).
    Scratch(Vec<u8>),
}

/// The bytes behind one `wgpu::BufferView`/`BufferViewMut`.
pub struct AqueductMappedRange {
    device: aqueduct::Device,
    bytes: RangeBytes,
}

// SAFETY: the pointer points into the HeldView this range keeps alive; wgpu's front end gives each writing view a range no other view overlaps.
unsafe impl Send for AqueductMappedRange {}
// SAFETY: shared access only reads (read_slice); writing needs &mut self.
unsafe impl Sync for AqueductMappedRange {}

impl std::fmt::Debug for AqueductMappedRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AqueductMappedRange")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

impl BufferMappedRangeInterface for AqueductMappedRange {
    fn len(&self) -> usize {
        match &self.bytes {
            RangeBytes::Mapped { len, .. } => *len,
            RangeBytes::Scratch(v) => v.len(),
        }
    }

    unsafe fn read_slice(&self) -> &[u8] {
        match &self.bytes {
            // SAFETY: ptr..ptr+len is mapped memory kept alive by view, and no writing view overlaps it (wgpu's aliasing check).
            RangeBytes::Mapped { ptr, len, .. } => unsafe {
                std::slice::from_raw_parts(*ptr, *len)
            },
            RangeBytes::Scratch(v) => v,
        }
    }

    unsafe fn write_slice(&mut self) -> wgpu::WriteOnly<'_, [u8]> {
        if let RangeBytes::Mapped { view, len, .. } = &self.bytes
            && !view.writable()
        {
            report_validation(&self.device, BackendValidationError::MappedForRead);
            self.bytes = RangeBytes::Scratch(vec![0; *len]);
        }
        match &mut self.bytes {
            // SAFETY: as for read_slice, and &mut self makes this the only access through this range, which wgpu keeps disjoint from all other views.
            RangeBytes::Mapped { ptr, len, .. } => {
                unsafe { std::slice::from_raw_parts_mut(*ptr, *len) }.into()
            }
            RangeBytes::Scratch(v) => v.as_mut_slice().into(),
        }
    }
}
