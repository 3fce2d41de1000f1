//! Building a kernel's kernarg segment from its metadata: the caller sets the
//! explicit arguments (by index among the explicit ones, or by name), and
//! `finish` fills every hidden argument the metadata lists from the dispatch
//! shape (code object v5 implicit arguments: block counts, group sizes,
//! remainders, grid dims, global offsets, buffers and pointers). Nothing is
//! assumed about where hidden arguments live; only `.args` is used, and the
//! segment is exactly `kernarg_segment_size` bytes.
//!
//! Block counts follow the ROCm runtime: `hidden_block_count_*` is the number
//! of *full* workgroups (grid / workgroup, rounded down) and
//! `hidden_remainder_*` the size of the partial last one (grid % workgroup),
//! so the device library computes the group count as count + (remainder != 0).

use super::error::CodeObjectError;
use super::kernarg_error::{ArgLabel, DispatchShapeError};
use super::kernel::KernelInfo;
use super::metadata::{KernelArg, ValueKind};

/// Which explicit argument to set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRef<'a> {
    /// Position among the explicit (non-hidden) arguments.
    Index(usize),
    /// Metadata `.name`.
    Name(&'a str),
}

/// What the hidden arguments describe: the dispatch's sizes and the runtime's
/// buffers. Grid sizes are in work-items, as in the AQL packet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchShape {
    /// Grid size in work-items per dimension (unused dimensions 1).
    pub grid: [u32; 3],
    /// Workgroup size per dimension (unused dimensions 1).
    pub workgroup: [u32; 3],
    /// Number of dimensions (1, 2 or 3).
    pub dims: u32,
    pub global_offset: [u64; 3],
    /// Dynamic LDS bytes requested by the dispatch (beyond the static size).
    pub dynamic_lds_size: u32,
    pub private_base: u64,
    pub shared_base: u64,
    pub queue_ptr: u64,
    pub heap_v1: u64,
    pub printf_buffer: u64,
    pub hostcall_buffer: u64,
    pub multigrid_sync_arg: u64,
    pub default_queue: u64,
    pub completion_action: u64,
}

impl DispatchShape {
    /// A 1D dispatch of `grid` work-items in groups of `workgroup`.
    pub fn linear(grid: u32, workgroup: u32) -> Self {
        Self::new([grid, 1, 1], [workgroup, 1, 1], 1)
    }

    /// A dispatch with the given sizes and dimension count; everything else zero.
    pub fn new(grid: [u32; 3], workgroup: [u32; 3], dims: u32) -> Self {
        Self {
            grid,
            workgroup,
            dims,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<(), DispatchShapeError> {
        if !(1..=3).contains(&self.dims) {
            return Err(DispatchShapeError::Dims { dims: self.dims });
        }
        let max = u32::from(u16::MAX);
        for (axis, &size) in self.workgroup.iter().enumerate() {
            if size == 0 || size > max {
                return Err(DispatchShapeError::WorkgroupSize { axis, size, max });
            }
        }
        Ok(())
    }
}

/// Fills one kernel's kernarg segment.
///
/// Building kernargs is on every new dispatch's path, so a builder made
/// with [`reusing`](Self::reusing) allocates nothing: the segment lives in
/// storage the caller hands back and forth, and which explicit arguments
/// were set is a bit mask (a list only past 64 explicit arguments).
#[derive(Clone, Debug)]
pub struct KernargBuilder<'k> {
    kernel: &'k KernelInfo,
    /// The number of explicit arguments.
    explicit: usize,
    /// Bit n: explicit argument n (n < 64) has been set.
    set_low: u64,
    /// Explicit arguments 64 and on that have been set (rare kernels).
    set_high: Vec<usize>,
    /// The segment, explicit arguments written in place as they are set.
    segment: Vec<u8>,
}

impl<'k> KernargBuilder<'k> {
    pub fn new(kernel: &'k KernelInfo) -> Self {
        Self::reusing(kernel, Vec::new())
    }

    /// A builder whose segment reuses `storage`'s allocation (its bytes
    /// are discarded); [`into_storage`](Self::into_storage) gives it back.
    pub fn reusing(kernel: &'k KernelInfo, mut storage: Vec<u8>) -> Self {
        storage.clear();
        storage.resize(kernel.kernarg_segment_size as usize, 0);
        Self {
            kernel,
            explicit: kernel.explicit_args().count(),
            set_low: 0,
            set_high: Vec::new(),
            segment: storage,
        }
    }

    /// The builder's segment storage, for a later [`reusing`](Self::reusing).
    pub fn into_storage(self) -> Vec<u8> {
        self.segment
    }

    /// The index in `kernel.args` of explicit argument `slot` (< `explicit`).
    fn arg_index(&self, slot: usize) -> usize {
        self.kernel
            .args
            .iter()
            .enumerate()
            .filter(|(_, arg)| !arg.value_kind.is_hidden())
            .nth(slot)
            .map_or(0, |(index, _)| index)
    }

    fn is_set(&self, slot: usize) -> bool {
        if slot < 64 {
            self.set_low & (1 << slot) != 0
        } else {
            self.set_high.contains(&slot)
        }
    }

    fn mark_set(&mut self, slot: usize) {
        if slot < 64 {
            self.set_low |= 1 << slot;
        } else if !self.set_high.contains(&slot) {
            self.set_high.push(slot);
        }
    }

    /// The kernel this builder fills arguments for.
    pub fn kernel(&self) -> &'k KernelInfo {
        self.kernel
    }

    fn label(&self, slot: usize) -> ArgLabel {
        ArgLabel {
            kernel: self.kernel.name.clone(),
            index: slot,
            name: self.kernel.args[self.arg_index(slot)].name.clone(),
        }
    }

    fn slot(&self, arg: ArgRef<'_>) -> Result<usize, CodeObjectError> {
        match arg {
            ArgRef::Index(index) if index < self.explicit => Ok(index),
            ArgRef::Index(index) => Err(CodeObjectError::ArgIndexOutOfRange {
                kernel: self.kernel.name.clone(),
                index,
                count: self.explicit,
            }),
            ArgRef::Name(name) => self
                .kernel
                .explicit_args()
                .position(|arg| arg.name.as_deref() == Some(name))
                .ok_or_else(|| CodeObjectError::UnknownArgName {
                    kernel: self.kernel.name.clone(),
                    name: name.to_string(),
                }),
        }
    }

    /// Set an explicit argument's bytes; the length must equal its `.size`.
    pub fn set(&mut self, arg: ArgRef<'_>, bytes: &[u8]) -> Result<&mut Self, CodeObjectError> {
        let slot = self.slot(arg)?;
        let arg = &self.kernel.args[self.arg_index(slot)];
        let expected = arg.size as usize;
        if bytes.len() != expected {
            return Err(CodeObjectError::ArgSizeMismatch {
                arg: self.label(slot),
                given: bytes.len(),
                expected,
            });
        }
        // Parsing checked that every argument lies inside the segment.
        self.segment[arg.offset as usize..][..expected].copy_from_slice(bytes);
        self.mark_set(slot);
        Ok(self)
    }

    pub fn set_u32(&mut self, arg: ArgRef<'_>, value: u32) -> Result<&mut Self, CodeObjectError> {
        self.set(arg, &value.to_le_bytes())
    }

    pub fn set_i32(&mut self, arg: ArgRef<'_>, value: i32) -> Result<&mut Self, CodeObjectError> {
        self.set(arg, &value.to_le_bytes())
    }

    pub fn set_u64(&mut self, arg: ArgRef<'_>, value: u64) -> Result<&mut Self, CodeObjectError> {
        self.set(arg, &value.to_le_bytes())
    }

    pub fn set_f32(&mut self, arg: ArgRef<'_>, value: f32) -> Result<&mut Self, CodeObjectError> {
        self.set(arg, &value.to_le_bytes())
    }

    /// A device address; the argument must be 8 bytes (a 64-bit pointer).
    pub fn set_ptr(&mut self, arg: ArgRef<'_>, address: u64) -> Result<&mut Self, CodeObjectError> {
        self.set(arg, &address.to_le_bytes())
    }

    /// The kernarg segment: `kernarg_segment_size` bytes with every explicit
    /// argument (all must be set) and every hidden argument the metadata asks for.
    pub fn finish(&self, shape: &DispatchShape) -> Result<Vec<u8>, CodeObjectError> {
        self.check_complete(shape)?;
        let mut segment = self.segment.clone();
        self.write_hidden_args(&mut segment, shape);
        Ok(segment)
    }

    /// [`finish`](Self::finish) that hands over the builder's own segment
    /// instead of a copy (one allocation fewer on a dispatch's path).
    pub fn into_segment(mut self, shape: &DispatchShape) -> Result<Vec<u8>, CodeObjectError> {
        self.check_complete(shape)?;
        let mut segment = std::mem::take(&mut self.segment);
        self.write_hidden_args(&mut segment, shape);
        Ok(segment)
    }

    /// [`finish`](Self::finish) appending the segment to `out` (no
    /// allocation once `out` has room): a recording's linear kernarg
    /// storage takes each dispatch's segment this way.
    pub fn finish_into(
        &self,
        shape: &DispatchShape,
        out: &mut Vec<u8>,
    ) -> Result<(), CodeObjectError> {
        self.check_complete(shape)?;
        let start = out.len();
        out.extend_from_slice(&self.segment);
        self.write_hidden_args(&mut out[start..], shape);
        Ok(())
    }

    fn check_complete(&self, shape: &DispatchShape) -> Result<(), CodeObjectError> {
        shape.validate()?;
        match (0..self.explicit).find(|&slot| !self.is_set(slot)) {
            Some(slot) => Err(CodeObjectError::MissingArg {
                arg: self.label(slot),
            }),
            None => Ok(()),
        }
    }

    fn write_hidden_args(&self, segment: &mut [u8], shape: &DispatchShape) {
        for arg in self.kernel.args.iter().filter(|a| a.value_kind.is_hidden()) {
            match hidden_value(&arg.value_kind, shape) {
                Some(value) => write_hidden(segment, arg, value),
                None => tracing::warn!(
                    kernel = %self.kernel.name,
                    kind = arg.value_kind.as_str(),
                    offset = arg.offset,
                    "unknown hidden kernel argument left zero"
                ),
            }
        }
    }
}

/// The value of a hidden argument, or `None` for kinds this builder does not know.
fn hidden_value(kind: &ValueKind, shape: &DispatchShape) -> Option<u64> {
    let full_groups = |axis: usize| u64::from(shape.grid[axis] / shape.workgroup[axis]);
    let remainder = |axis: usize| u64::from(shape.grid[axis] % shape.workgroup[axis]);
    let group_size = |axis: usize| u64::from(shape.workgroup[axis]);
    Some(match kind {
        ValueKind::HiddenBlockCountX => full_groups(0),
        ValueKind::HiddenBlockCountY => full_groups(1),
        ValueKind::HiddenBlockCountZ => full_groups(2),
        ValueKind::HiddenGroupSizeX => group_size(0),
        ValueKind::HiddenGroupSizeY => group_size(1),
        ValueKind::HiddenGroupSizeZ => group_size(2),
        ValueKind::HiddenRemainderX => remainder(0),
        ValueKind::HiddenRemainderY => remainder(1),
        ValueKind::HiddenRemainderZ => remainder(2),
        ValueKind::HiddenGridDims => u64::from(shape.dims),
        ValueKind::HiddenGlobalOffsetX => shape.global_offset[0],
        ValueKind::HiddenGlobalOffsetY => shape.global_offset[1],
        ValueKind::HiddenGlobalOffsetZ => shape.global_offset[2],
        ValueKind::HiddenDynamicLdsSize => u64::from(shape.dynamic_lds_size),
        ValueKind::HiddenPrivateBase => shape.private_base,
        ValueKind::HiddenSharedBase => shape.shared_base,
        ValueKind::HiddenQueuePtr => shape.queue_ptr,
        ValueKind::HiddenHeapV1 => shape.heap_v1,
        ValueKind::HiddenPrintfBuffer => shape.printf_buffer,
        ValueKind::HiddenHostcallBuffer => shape.hostcall_buffer,
        ValueKind::HiddenMultigridSyncArg => shape.multigrid_sync_arg,
        ValueKind::HiddenDefaultQueue => shape.default_queue,
        ValueKind::HiddenCompletionAction => shape.completion_action,
        ValueKind::HiddenNone => 0,
        _ => return None,
    })
}

/// Write `value` little-endian into the argument's bytes (truncated to its
/// size; bytes past 8 stay zero).
fn write_hidden(segment: &mut [u8], arg: &KernelArg, value: u64) {
    let size = (arg.size as usize).min(8);
    segment[arg.offset as usize..][..size].copy_from_slice(&value.to_le_bytes()[..size]);
}
