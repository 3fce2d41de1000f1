//! The binding model: bind group layouts, bind groups and pipeline layouts.
//!
//! Layouts are immutable and shared (cheap clones). Two explicit layouts
//! with equal entries are interchangeable (WebGPU's layout deduplication);
//! a layout derived by a pipeline's auto layout is compatible only with
//! itself (`origin` records the pipeline). A bind group resolves each entry
//! to (buffer, offset, size) at creation, after the WebGPU checks, and
//! lowers it there to what a dispatch needs (device address, registry key,
//! memory; `BoundBuffer`), so binding a new group per dispatch reads one
//! entry list and no buffer objects; a
//! texture view resolves to its texture's buffer, the byte range of the
//! view's layers and the view's image descriptor (`src/texture.rs`); a
//! sampler resolves to its S# words (`src/sampler.rs`).

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use wgpu_types::{BindGroupLayoutEntry, BindingType, BufferBindingType, BufferSize, BufferUsages};

use crate::Label;
use crate::binding_limits::BindingCounts;
use crate::buffer::Buffer;
use crate::command::hazard::{Access, NOT_BOUND};
use crate::device::DeviceShared;
use crate::error::{
    BindGroupError, BindGroupLayoutError, BufferIdent, BufferRole, DeviceId, DeviceMismatch,
    LayoutIdent, ObjectKind, SamplerBindingError, same_device,
};
use crate::registry::BufferId;
use crate::sampler::Sampler;
use crate::texture::TextureView;
use aqueduct_isa::gfx11::image_desc::ImageDescriptor;

/// Describes a bind group layout.
pub struct BindGroupLayoutDescriptor<'a> {
    /// The layout's label, for error messages and debugging.
    pub label: Label<'a>,
    /// The layout's entries, at most one per binding number.
    pub entries: &'a [BindGroupLayoutEntry],
}

#[derive(Debug)]
pub(crate) struct BindGroupLayoutInner {
    pub device: DeviceId,
    pub label: Option<String>,
    /// Sorted by binding number.
    pub entries: Vec<BindGroupLayoutEntry>,
    /// Some(pipeline id) for a layout derived by an auto layout.
    pub origin: Option<u64>,
    pub valid: bool,
}

/// A bind group layout (cheap to clone).
#[derive(Clone, Debug)]
pub struct BindGroupLayout {
    pub(crate) inner: Arc<BindGroupLayoutInner>,
}

impl PartialEq for BindGroupLayout {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl BindGroupLayout {
    /// Whether a bind group made with `self` may be used where `other` is
    /// expected.
    /// `Ok` when the layout belongs to `device`.
    pub(crate) fn check_device(&self, device: &DeviceShared) -> Result<(), DeviceMismatch> {
        same_device(
            ObjectKind::BindGroupLayout,
            self.inner.label.as_deref(),
            self.inner.device,
            device.id,
        )
    }

    pub(crate) fn compatible(&self, other: &BindGroupLayout) -> bool {
        if Arc::ptr_eq(&self.inner, &other.inner) {
            return true;
        }
        match (self.inner.origin, other.inner.origin) {
            (None, None) => self.inner.entries == other.inner.entries,
            _ => false,
        }
    }

    pub(crate) fn entry(&self, binding: u32) -> Option<&BindGroupLayoutEntry> {
        self.inner.entries.iter().find(|e| e.binding == binding)
    }

    /// The layout as error messages name it.
    pub(crate) fn ident(&self) -> LayoutIdent {
        LayoutIdent {
            label: self.inner.label.clone(),
            derived_by: self.inner.origin,
        }
    }
}

pub(crate) fn create_layout(
    device: &DeviceShared,
    desc: &BindGroupLayoutDescriptor<'_>,
    origin: Option<u64>,
) -> BindGroupLayout {
    let mut entries = desc.entries.to_vec();
    entries.sort_by_key(|e| e.binding);
    let label = || desc.label.map(str::to_string);
    let check = || -> Result<(), BindGroupLayoutError> {
        let limits = &device.limits;
        for pair in entries.windows(2) {
            if pair[0].binding == pair[1].binding {
                return Err(BindGroupLayoutError::DuplicateBinding {
                    label: label(),
                    binding: pair[0].binding,
                });
            }
        }
        for e in &entries {
            if e.binding >= limits.max_bindings_per_bind_group {
                return Err(BindGroupLayoutError::BindingLimit {
                    label: label(),
                    binding: e.binding,
                    max: limits.max_bindings_per_bind_group,
                });
            }
            if e.count.is_some() {
                return Err(BindGroupLayoutError::BindingArray {
                    label: label(),
                    binding: e.binding,
                });
            }
            match e.ty {
                BindingType::Buffer { .. } => {}
                // Every sampler binding type is one a kernel binds: the S#
                // is a by-value kernel argument.
                BindingType::Sampler(_) => {}
                BindingType::StorageTexture { .. } | BindingType::Texture { .. } => {
                    crate::texture_binding::check_layout_entry(&e.ty, device.features).map_err(
                        |source| BindGroupLayoutError::Texture {
                            label: label(),
                            binding: e.binding,
                            source,
                        },
                    )?;
                }
                other => {
                    return Err(BindGroupLayoutError::NotBuffer {
                        label: label(),
                        binding: e.binding,
                        ty: other,
                    });
                }
            }
        }
        BindingCounts::of(&entries)
            .check(limits)
            .map_err(|source| BindGroupLayoutError::TooManyBindings {
                label: label(),
                source,
            })?;
        Ok(())
    };
    let valid = match check() {
        Ok(()) => true,
        Err(e) => {
            device.report(e);
            false
        }
    };
    BindGroupLayout {
        inner: Arc::new(BindGroupLayoutInner {
            device: device.id,
            label: desc.label.map(str::to_string),
            entries,
            origin,
            valid,
        }),
    }
}

/// A buffer range to bind.
#[derive(Clone, Debug)]
pub struct BufferBinding<'a> {
    /// The buffer to bind.
    pub buffer: &'a Buffer,
    /// The range's start in bytes.
    pub offset: u64,
    /// None: to the end of the buffer.
    pub size: Option<BufferSize>,
}

/// What a bind group entry binds.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub enum BindingResource<'a> {
    /// A range of a buffer.
    Buffer(BufferBinding<'a>),
    /// A texture view, for a storage or sampled texture entry.
    TextureView(&'a TextureView),
    /// A sampler, for a sampler entry.
    Sampler(&'a Sampler),
}

/// One binding of a bind group.
pub struct BindGroupEntry<'a> {
    /// The binding number, as in the layout and the shader's `@binding`.
    pub binding: u32,
    /// What the binding binds.
    pub resource: BindingResource<'a>,
}

/// Describes a bind group.
pub struct BindGroupDescriptor<'a> {
    /// The bind group's label, for error messages and debugging.
    pub label: Label<'a>,
    /// The layout the bind group follows.
    pub layout: &'a BindGroupLayout,
    /// One entry per layout entry.
    pub entries: &'a [BindGroupEntry<'a>],
}

/// One resolved entry of a bind group, lowered at creation to what a
/// dispatch needs: the binding's device address and the buffer's registry
/// key, so recording a dispatch reads this entry alone (not the buffer's
/// handle and memory objects, one cache miss each when a pass binds a new
/// group per dispatch). What errors and textures need is apart, in the
/// entry's `BoundCold`. It holds no memory: the bind group keeps the
/// buffer's handle, and a submission marks the buffer used in the
/// registry, which keeps a dropped buffer's memory until the submission
/// completes (`Registry::forget`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundBuffer {
    /// The range's device address: the buffer memory's first address plus
    /// the entry's offset (the offset alone for an invalid buffer, which
    /// binds nothing). Offset and memory address apart are in `BoundCold`.
    pub addr: u64,
    pub size: u64,
    /// The buffer's key in the device registry (checked at submit).
    pub id: BufferId,
    pub binding: u32,
    /// Which of `set_bind_group`'s dynamic offsets applies, or
    /// `NO_DYNAMIC_INDEX` (see `dynamic_index`).
    dynamic: u16,
    pub ty: BufferBindingType,
    /// `FLAG_*` bits.
    flags: u8,
}

/// `BoundBuffer::dynamic` of an entry without a dynamic offset.
const NO_DYNAMIC_INDEX: u16 = u16::MAX;
/// The entry has a dynamic offset.
const FLAG_DYNAMIC: u8 = 1;
/// The buffer's memory is fine-grained and host visible.
const FLAG_HOST_VISIBLE: u8 = 2;
/// The buffer has memory (it is valid).
const FLAG_MEMORY: u8 = 4;
/// The entry binds a texture view: its `BoundCold::texture` is Some.
const FLAG_TEXTURE: u8 = 8;

// A one-entry group's header and entry fit in 80 bytes with the reference
// counts: two cache lines wherever the allocator puts it (16-byte aligned).
const _: () = assert!(std::mem::size_of::<BoundBuffer>() == 32);
const _: () = assert!(std::mem::size_of::<Entries>() == 32);

/// What an entry's errors and texture bindings need, kept apart from the
/// `BoundBuffer` a dispatch reads.
#[derive(Clone, Debug)]
pub(crate) struct BoundCold {
    /// The buffer as error messages name it (its size bounds dynamic offsets).
    pub buffer: BufferIdent,
    /// The range's start in the buffer.
    pub offset: u64,
    /// The buffer memory's first device address (0 for an invalid buffer).
    pub va: u64,
    /// A texture view's image descriptor, its base address relative to
    /// the buffer (the texture's); `offset..offset + size` is then a range
    /// covering the view's levels and layers.
    pub texture: Option<ImageDescriptor>,
    /// A texture view's subresources: its mip levels and array layers
    /// (layer 0 for 3D views). The byte range of a view of a chain also
    /// covers levels it does not see, so the usage scope compares these.
    pub subresources: Option<(Range<u32>, Range<u32>)>,
}

impl BoundCold {
    /// Whether this texture binding and `other` of the same texture see
    /// no subresource in common (WebGPU's usage scopes are per subresource).
    pub(crate) fn disjoint_subresources(&self, other: &BoundCold) -> bool {
        let apart = |a: &Range<u32>, b: &Range<u32>| a.end <= b.start || b.end <= a.start;
        match (&self.subresources, &other.subresources) {
            (Some((la, ya)), Some((lb, yb))) => apart(la, lb) || apart(ya, yb),
            _ => false,
        }
    }
}

impl BoundBuffer {
    /// `buffer`'s range `offset..offset + size`, bound as `ty`.
    pub(crate) fn new(
        binding: u32,
        buffer: &Buffer,
        offset: u64,
        size: u64,
        ty: BufferBindingType,
        has_dynamic_offset: bool,
        texture: Option<ImageDescriptor>,
    ) -> (Self, BoundCold) {
        let memory = buffer.memory();
        let va = memory.map_or(0, |m| m.va());
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        let hot = BoundBuffer {
            binding,
            dynamic: NO_DYNAMIC_INDEX,
            ty,
            flags: flag(has_dynamic_offset, FLAG_DYNAMIC)
                | flag(
                    memory.is_some_and(|m| m.placement.host_visible()),
                    FLAG_HOST_VISIBLE,
                )
                | flag(memory.is_some(), FLAG_MEMORY)
                | flag(texture.is_some(), FLAG_TEXTURE),
            addr: va + offset,
            size,
            id: buffer.inner.id,
        };
        let cold = BoundCold {
            buffer: buffer.ident(),
            offset,
            va,
            texture,
            subresources: None,
        };
        (hot, cold)
    }

    /// Whether the entry has a dynamic offset.
    pub(crate) fn has_dynamic_offset(&self) -> bool {
        self.flags & FLAG_DYNAMIC != 0
    }

    /// Which of `set_bind_group`'s dynamic offsets applies (dynamic-offset
    /// entries count in binding order).
    pub(crate) fn dynamic_index(&self) -> Option<u16> {
        (self.dynamic != NO_DYNAMIC_INDEX).then_some(self.dynamic)
    }

    /// Whether the buffer has memory (it is valid).
    pub(crate) fn has_memory(&self) -> bool {
        self.flags & FLAG_MEMORY != 0
    }

    /// Whether the entry binds a texture view.
    pub(crate) fn is_texture(&self) -> bool {
        self.flags & FLAG_TEXTURE != 0
    }

    /// A device access to the bound range moved by a dynamic offset of
    /// `dynamic` bytes (the range `Buffer::access` gives for the same bytes).
    pub(crate) fn access(&self, dynamic: u64, write: bool) -> Access {
        if !self.has_memory() {
            return Access {
                range: 0..0,
                write,
                host_visible: false,
                object: 0,
                group: NOT_BOUND,
                binding: 0,
            };
        }
        Access {
            range: self.addr + dynamic..self.addr + dynamic + self.size,
            write,
            host_visible: self.flags & FLAG_HOST_VISIBLE != 0,
            object: self.id.hazard_object(),
            group: NOT_BOUND,
            binding: 0,
        }
    }
}

/// A group's buffer entries: one is held inline, on the group's first
/// cache lines (a pass binding a new group per dispatch then meets one
/// cold allocation per group, not two).
#[derive(Debug)]
enum Entries {
    One(BoundBuffer),
    List(Box<[BoundBuffer]>),
}

impl Entries {
    fn new(mut list: Vec<BoundBuffer>) -> Self {
        if list.len() == 1
            && let Some(e) = list.pop()
        {
            return Entries::One(e);
        }
        Entries::List(list.into_boxed_slice())
    }

    fn as_slice(&self) -> &[BoundBuffer] {
        match self {
            Entries::One(e) => std::slice::from_ref(e),
            Entries::List(list) => list,
        }
    }
}

/// One resolved sampler entry of a bind group.
#[derive(Clone, Debug)]
pub(crate) struct BoundSampler {
    pub binding: u32,
    /// The S# words a dispatch writes into the sampler's argument.
    pub words: [u32; 4],
}

#[derive(Debug)]
#[repr(C)]
pub(crate) struct BindGroupInner {
    // What `set_bind_group` and a dispatch read comes first, to share the
    // cache lines of the reference count (a pass binding a new group per
    // dispatch meets each group cold): 16 bytes of counts, 32 of these,
    // then a one-entry group's 32-byte entry.
    pub device: DeviceId,
    pub layout: BindGroupLayout,
    /// The address of the group a pass set `LOOKAHEAD` groups after this
    /// one the last time one set this one (0: none yet), only ever
    /// prefetched, never read through (`BindGroup::prefetch_successor`).
    pub successor: AtomicUsize,
    pub valid: bool,
    /// Entries with a dynamic offset.
    pub dynamic_count: u32,
    /// Sorted by binding; dynamic-offset entries in binding order are the
    /// ones `set_bind_group`'s offsets apply to.
    entries: Entries,
    /// Each entry's error names and texture descriptor, in `entries`' order.
    pub cold: Box<[BoundCold]>,
    pub label: Option<String>,
    /// The buffers the entries bind (in no order): the bind group keeps
    /// their handles, and so their registry entries and memory, alive.
    pub _buffers: Vec<Buffer>,
    /// The sampler entries, sorted by binding.
    pub samplers: Vec<BoundSampler>,
}

impl BindGroupInner {
    /// The buffer entries, sorted by binding.
    #[inline]
    pub(crate) fn entries(&self) -> &[BoundBuffer] {
        self.entries.as_slice()
    }

    /// The index of `binding`'s entry (a binary search: entries are sorted).
    #[inline]
    pub(crate) fn entry_index(&self, binding: u32) -> Option<usize> {
        self.entries()
            .binary_search_by_key(&binding, |e| e.binding)
            .ok()
    }

    /// The buffer `id` as error messages name it, if an entry binds it.
    pub(crate) fn ident_of(&self, id: BufferId) -> Option<BufferIdent> {
        let i = self.entries().iter().position(|e| e.id == id)?;
        Some(self.cold[i].buffer.clone())
    }

    /// The S# words of the sampler entry `binding`.
    pub(crate) fn sampler(&self, binding: u32) -> Option<[u32; 4]> {
        self.samplers
            .binary_search_by_key(&binding, |s| s.binding)
            .ok()
            .map(|i| self.samplers[i].words)
    }
}

// The header and a one-entry group's entry are the data's first 64 bytes,
// which `BindGroup::prefetch` relies on.
const _: () =
    assert!(std::mem::offset_of!(BindGroupInner, entries) + std::mem::size_of::<Entries>() == 64);

/// How many groups ahead `set_bind_group` prefetches (see
/// `BindGroup::follow`): recording a dispatch takes less time than a cold
/// line takes to arrive, so one ahead still leaves a wait (the dispatch
/// bench's distinct groups: encode 110 ns one ahead, 73 two, 66 four).
pub(crate) const LOOKAHEAD: usize = 4;

/// Prefetch the cache line holding address `at`. Any address will do: a
/// prefetch never faults.
#[inline(always)]
fn prefetch_line(at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = std::ptr::without_provenance::<i8>(at);
        // SAFETY: a prefetch only hints the cache; it reads nothing and cannot fault.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A bind group (cheap to clone).
#[derive(Clone, Debug)]
pub struct BindGroup {
    pub(crate) inner: Arc<BindGroupInner>,
}

impl BindGroup {
    /// Start loading the last line of the group's hot part. The hot part
    /// (16 bytes of reference counts, then the header and a one-entry
    /// group's entry) spans two cache lines wherever the allocator puts it
    /// (16-byte aligned); `set_bind_group` waits for the first, and the
    /// dispatch after it reads the entry. A pass binding a new group per
    /// dispatch met the second line's miss only there, after the first:
    /// asked for at once, the two arrive together.
    #[inline(always)]
    pub(crate) fn prefetch(&self) {
        prefetch_line(Arc::as_ptr(&self.inner).addr() + 63);
    }

    /// Note that a pass set `next` `LOOKAHEAD` groups after this one.
    /// `set_bind_group` prefetches the group noted so for the group it sets
    /// (its address, if it is still a group, is what the pass most likely
    /// sets soon: command buffers recorded again and again, frame after
    /// frame, bind their groups in the same order), so a pass binding a new
    /// group per dispatch finds each group's lines on their way, loaded
    /// while the dispatches before it were recorded. The address is never
    /// read through: a prefetch of a freed one is harmless.
    #[inline]
    pub(crate) fn follow(&self, next: &BindGroup) {
        let next = Arc::as_ptr(&next.inner).addr();
        // Stored only when it changed: a line other threads may read
        // stays clean in the steady state.
        if self.inner.successor.load(Ordering::Relaxed) != next {
            self.inner.successor.store(next, Ordering::Relaxed);
        }
    }

    /// Start loading the hot lines of the group set `LOOKAHEAD` groups
    /// after this one the last time (see `follow`).
    #[inline]
    pub(crate) fn prefetch_successor(&self) {
        let next = self.inner.successor.load(Ordering::Relaxed);
        if next != 0 {
            // Both hot lines: the counts' (16 bytes before the data) and
            // the entry's.
            prefetch_line(next.wrapping_sub(16));
            prefetch_line(next.wrapping_add(63));
        }
    }

    /// `Ok` when the bind group belongs to `device`.
    pub(crate) fn check_device(&self, device: &DeviceShared) -> Result<(), DeviceMismatch> {
        same_device(
            ObjectKind::BindGroup,
            self.inner.label.as_deref(),
            self.inner.device,
            device.id,
        )
    }

    pub(crate) fn dynamic_count(&self) -> usize {
        self.inner.dynamic_count as usize
    }
}

pub(crate) fn create_bind_group(
    device: &DeviceShared,
    desc: &BindGroupDescriptor<'_>,
) -> BindGroup {
    let layout = desc.layout.clone();
    let limits = &device.limits;
    let label = || desc.label.map(str::to_string);
    let mut samplers: Vec<BoundSampler> = Vec::new();
    let mut handles: Vec<Buffer> = Vec::new();
    let mut resolve = || -> Result<Vec<(BoundBuffer, BoundCold)>, BindGroupError> {
        layout.check_device(device)?;
        if !layout.inner.valid {
            return Err(BindGroupError::InvalidLayout {
                label: label(),
                layout: layout.ident(),
            });
        }
        if desc.entries.len() != layout.inner.entries.len() {
            return Err(BindGroupError::EntryCount {
                label: label(),
                given: desc.entries.len(),
                layout: layout.ident(),
                expected: layout.inner.entries.len(),
            });
        }
        let mut out: Vec<(BoundBuffer, BoundCold)> = Vec::new();
        for entry in desc.entries {
            let binding = entry.binding;
            if out.iter().any(|(b, _)| b.binding == binding)
                || samplers.iter().any(|s| s.binding == binding)
            {
                return Err(BindGroupError::DuplicateBinding {
                    label: label(),
                    binding,
                });
            }
            let le = layout
                .entry(binding)
                .ok_or_else(|| BindGroupError::NotInLayout {
                    label: label(),
                    binding,
                    layout: layout.ident(),
                })?;
            let texture_error = |source| BindGroupError::Texture {
                label: label(),
                binding,
                source,
            };
            let sampler_error = |source| BindGroupError::Sampler {
                label: label(),
                binding,
                source,
            };
            let resource = match &entry.resource {
                BindingResource::Buffer(_) => "a buffer",
                BindingResource::TextureView(_) => "a texture view",
                BindingResource::Sampler(_) => "a sampler",
            };
            let bb = match (&entry.resource, le.ty) {
                (BindingResource::Sampler(sampler), BindingType::Sampler(ty)) => {
                    sampler.check_device(device)?;
                    let words = crate::sampler::bind_sampler(ty, sampler).map_err(sampler_error)?;
                    samplers.push(BoundSampler { binding, words });
                    continue;
                }
                (BindingResource::Sampler(_), layout) | (_, layout @ BindingType::Sampler(_)) => {
                    return Err(sampler_error(SamplerBindingError::ResourceKind {
                        layout,
                        resource,
                    }));
                }
                (BindingResource::TextureView(view), _) => {
                    let (bound, buffer) = crate::texture_binding::bind_view(device, le, view)
                        .map_err(texture_error)?;
                    out.push(bound);
                    handles.push(buffer);
                    continue;
                }
                (BindingResource::Buffer(bb), _) => bb,
            };
            let BindingType::Buffer {
                ty,
                has_dynamic_offset,
                min_binding_size,
            } = le.ty
            else {
                if let BindingType::StorageTexture { .. } | BindingType::Texture { .. } = le.ty {
                    return Err(texture_error(
                        crate::error::TextureBindingError::ResourceKind {
                            layout: le.ty,
                            resource: "a buffer",
                        },
                    ));
                }
                return Err(BindGroupError::NotBufferBinding {
                    label: label(),
                    binding,
                });
            };
            let buffer = bb.buffer;
            buffer
                .check_usable(device, BufferRole::Binding(binding))
                .map_err(|source| BindGroupError::Unusable {
                    label: label(),
                    source,
                })?;
            let (usage, align, max) = match ty {
                BufferBindingType::Uniform => (
                    BufferUsages::UNIFORM,
                    limits.min_uniform_buffer_offset_alignment,
                    limits.max_uniform_buffer_binding_size,
                ),
                BufferBindingType::Storage { .. } => (
                    BufferUsages::STORAGE,
                    limits.min_storage_buffer_offset_alignment,
                    limits.max_storage_buffer_binding_size,
                ),
            };
            if !buffer.usage().contains(usage) {
                return Err(BindGroupError::MissingUsage {
                    label: label(),
                    binding,
                    buffer: buffer.ident(),
                    usage: buffer.usage(),
                    needed: usage,
                    ty,
                });
            }
            if bb.offset % align as u64 != 0 {
                return Err(BindGroupError::UnalignedOffset {
                    label: label(),
                    binding,
                    offset: bb.offset,
                    alignment: align,
                    ty,
                });
            }
            if bb.offset > buffer.size() {
                return Err(BindGroupError::OffsetPastEnd {
                    label: label(),
                    binding,
                    offset: bb.offset,
                    buffer: buffer.ident(),
                });
            }
            let size = match bb.size {
                Some(s) => s.get(),
                None => buffer.size() - bb.offset,
            };
            // In u128: an explicit size near u64::MAX must not wrap past the check.
            let end = bb.offset as u128 + size as u128;
            if end > buffer.size() as u128 {
                return Err(BindGroupError::Overrun {
                    label: label(),
                    binding,
                    offset: bb.offset,
                    end,
                    buffer: buffer.ident(),
                });
            }
            if size == 0 {
                return Err(BindGroupError::EmptyRange {
                    label: label(),
                    binding,
                });
            }
            if let Some(min) = min_binding_size
                && size < min.get()
            {
                return Err(BindGroupError::BelowMinBindingSize {
                    label: label(),
                    binding,
                    size,
                    min: min.get(),
                });
            }
            if size > max {
                return Err(BindGroupError::BindingTooLarge {
                    label: label(),
                    binding,
                    size,
                    max,
                    ty,
                });
            }
            if matches!(ty, BufferBindingType::Storage { .. }) && size % 4 != 0 {
                return Err(BindGroupError::UnalignedStorageSize {
                    label: label(),
                    binding,
                    size,
                });
            }
            out.push(BoundBuffer::new(
                entry.binding,
                buffer,
                bb.offset,
                size,
                ty,
                has_dynamic_offset,
                None,
            ));
            handles.push(buffer.clone());
        }
        out.sort_by_key(|(b, _)| b.binding);
        samplers.sort_by_key(|s| s.binding);
        let dynamic = out.iter_mut().filter(|(b, _)| b.has_dynamic_offset());
        for (i, (b, _)) in dynamic.enumerate() {
            // At most the layout limits' few dynamic entries (checked with
            // the layout's binding counts), far below the sentinel.
            b.dynamic = u16::try_from(i).unwrap_or(NO_DYNAMIC_INDEX);
        }
        Ok(out)
    };
    let (entries, valid) = match resolve() {
        Ok(e) => (e, true),
        Err(e) => {
            device.report(e);
            samplers.clear();
            handles.clear();
            (Vec::new(), false)
        }
    };
    let (entries, cold): (Vec<BoundBuffer>, Vec<BoundCold>) = entries.into_iter().unzip();
    BindGroup {
        inner: Arc::new(BindGroupInner {
            device: device.id,
            label: label(),
            layout,
            successor: AtomicUsize::new(0),
            dynamic_count: entries.iter().filter(|e| e.has_dynamic_offset()).count() as u32,
            entries: Entries::new(entries),
            cold: cold.into_boxed_slice(),
            _buffers: handles,
            samplers,
            valid,
        }),
    }
}

/// A binding of a bind group, as WGSL's `@group(group) @binding(binding)`
/// names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BindingSlot {
    /// The bind group's index.
    pub group: u32,
    /// The binding's number in that group.
    pub binding: u32,
}
