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

use std::sync::Arc;

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
use crate::placement::BufferMemory;
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
/// key and memory, so recording a dispatch reads this entry alone (not the
/// buffer's handle and memory objects, one cache miss each when a pass
/// binds a new group per dispatch). It holds no `Buffer`: a submission
/// keeps the entry list alive, which keeps the memory (and not the device)
/// alive until the submission completes.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct BoundBuffer {
    // The fields a dispatch reads come first (56 bytes, after the list's
    // 16 bytes of reference counts).
    pub binding: u32,
    /// Which of `set_bind_group`'s dynamic offsets applies (dynamic-offset
    /// entries count in binding order).
    pub dynamic_index: Option<u32>,
    pub ty: BufferBindingType,
    pub has_dynamic_offset: bool,
    /// The buffer's memory is fine-grained and host visible.
    pub host_visible: bool,
    /// The buffer has memory (it is valid): `memory` is Some.
    pub has_memory: bool,
    /// The entry binds a texture view: `texture` is Some.
    pub is_texture: bool,
    pub offset: u64,
    pub size: u64,
    /// The buffer memory's first device address (0 for an invalid buffer).
    pub va: u64,
    /// The buffer's key in the device registry (checked at submit).
    pub id: BufferId,
    /// None for an invalid buffer.
    pub memory: Option<Arc<BufferMemory>>,
    /// The buffer as error messages name it (its size bounds dynamic offsets).
    pub buffer: BufferIdent,
    /// A texture view's image descriptor, its base address relative to
    /// the buffer (the texture's); `offset..offset + size` is then the range
    /// of the view's layers.
    pub texture: Option<Box<ImageDescriptor>>,
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
    ) -> Self {
        let memory = buffer.memory().cloned();
        BoundBuffer {
            binding,
            dynamic_index: None,
            ty,
            has_dynamic_offset,
            host_visible: memory.as_ref().is_some_and(|m| m.placement.host_visible()),
            has_memory: memory.is_some(),
            is_texture: texture.is_some(),
            offset,
            size,
            va: memory.as_ref().map_or(0, |m| m.va()),
            id: buffer.inner.id,
            memory,
            buffer: buffer.ident(),
            texture: texture.map(Box::new),
        }
    }

    /// A device access to the buffer-relative `range` (as `Buffer::access`).
    pub(crate) fn access(&self, range: std::ops::Range<u64>, write: bool) -> Access {
        if !self.has_memory {
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
            range: self.va + range.start..self.va + range.end,
            write,
            host_visible: self.host_visible,
            object: self.va,
            group: NOT_BOUND,
            binding: 0,
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
    // cache line of the reference count (a pass binding a new group per
    // dispatch meets each group cold).
    pub device: DeviceId,
    pub valid: bool,
    /// Entries with a dynamic offset.
    pub dynamic_count: u32,
    pub layout: BindGroupLayout,
    /// Sorted by binding; dynamic-offset entries in binding order are the
    /// ones `set_bind_group`'s offsets apply to. Shared: a recording and
    /// then its submission hold the list while they use its memory.
    pub entries: Arc<[BoundBuffer]>,
    pub label: Option<String>,
    /// The buffers the entries bind (in no order): the bind group keeps
    /// their handles, and so their registry entries, alive.
    pub _buffers: Vec<Buffer>,
    /// The sampler entries, sorted by binding.
    pub samplers: Vec<BoundSampler>,
}

impl BindGroupInner {
    /// The entry of `binding` (a binary search: entries are sorted).
    pub(crate) fn entry(&self, binding: u32) -> Option<&BoundBuffer> {
        self.entries
            .binary_search_by_key(&binding, |e| e.binding)
            .ok()
            .map(|i| &self.entries[i])
    }

    /// The S# words of the sampler entry `binding`.
    pub(crate) fn sampler(&self, binding: u32) -> Option<[u32; 4]> {
        self.samplers
            .binary_search_by_key(&binding, |s| s.binding)
            .ok()
            .map(|i| self.samplers[i].words)
    }
}

/// A bind group (cheap to clone).
#[derive(Clone, Debug)]
pub struct BindGroup {
    pub(crate) inner: Arc<BindGroupInner>,
}

impl BindGroup {
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
    let mut resolve = || -> Result<Vec<BoundBuffer>, BindGroupError> {
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
        let mut out: Vec<BoundBuffer> = Vec::new();
        for entry in desc.entries {
            let binding = entry.binding;
            if out.iter().any(|b| b.binding == binding)
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
        out.sort_by_key(|b| b.binding);
        samplers.sort_by_key(|s| s.binding);
        let dynamic = out.iter_mut().filter(|b| b.has_dynamic_offset);
        for (i, b) in dynamic.enumerate() {
            b.dynamic_index = Some(i as u32);
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
    BindGroup {
        inner: Arc::new(BindGroupInner {
            device: device.id,
            label: label(),
            layout,
            dynamic_count: entries.iter().filter(|e| e.has_dynamic_offset).count() as u32,
            entries: entries.into(),
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
