//! AMDGPU code objects: parsing, selecting and loading the kernels the
//! runtime dispatches.
//!
//! Design. A code object is an ELF64 shared object for EM_AMDGPU (code object
//! v4-v6, as `ld.lld -shared` makes them). [`CodeObject::parse`] validates it
//! once — identification, PT_LOAD layout, the msgpack metadata note, kernel
//! descriptors (against their target's rules), dynamic relocations — so the later steps cannot fail on
//! structure: [`CodeObject::load_image`] copies the segments into memory the
//! runtime allocated and applies relocations for the chosen GPU address, and
//! [`KernargBuilder`] lays out a dispatch's kernarg segment from the argument
//! metadata (explicit values from the caller, hidden values from a
//! [`DispatchShape`]). Fat binaries (clang offload bundles, plain or
//! compressed) are unwrapped by [`Bundle`] / [`code_object_for_agent`], which
//! pick the entry for an agent's [`IsaName`]. Nothing here touches a device:
//! the runtime owns memory and queues; this module only turns bytes into
//! bytes and typed descriptions. Every malformed input is a
//! [`CodeObjectError`], never a panic (a fuzz-style test holds us to it).
//!
//! Files: `elf` (the ELF reader and image loader), `metadata` (the msgpack
//! note), `kernel` (a kernel's metadata + descriptor), `descriptor_rules`
//! (what a descriptor must hold on its target), `isa` (processor and
//! target features), `bundle` (offload bundles), `kernarg` (kernarg
//! segments), `error` (with `bundle_error`, `elf_error`, `metadata_error`
//! and `kernarg_error`, the parts of its errors for bundles, the ELF
//! container, the metadata note and kernarg segments).

mod bundle;
mod bundle_error;
mod descriptor_rules;
mod elf;
mod elf_error;
mod error;
mod isa;
mod kernarg;
mod kernarg_error;
mod kernel;
mod metadata;
mod metadata_error;

use std::borrow::Cow;

pub use bundle::{BUNDLE_MAGIC, Bundle, BundleEntry, COMPRESSED_BUNDLE_MAGIC};
pub use bundle_error::{BundleError, Compression};
pub use descriptor_rules::{
    DescriptorFault, GFX9_MAX_USER_SGPRS, Gfx9Fields, UserSgpr, check_descriptor, gfx9_fields,
};
pub use elf::{
    CodeObject, ELFOSABI_AMDGPU_HSA, EM_AMDGPU, NT_AMDGPU_METADATA, R_AMDGPU_ABS32,
    R_AMDGPU_ABS32_HI, R_AMDGPU_ABS32_LO, R_AMDGPU_ABS64, R_AMDGPU_NONE, R_AMDGPU_RELATIVE64,
};
pub use elf_error::{ElfFault, ElfTable, ObjectError, RelocationFault, TruncatedPart, Unsupported};
pub use error::{CodeObjectError, MsgpackShapeError};
pub use isa::{HSA_TRIPLE, IsaName, TargetFeature, gfx_name_for_mach, mach_for_gfx_name};
pub use kernarg::{ArgRef, DispatchShape, KernargBuilder};
pub use kernarg_error::{ArgLabel, DispatchShapeError};
pub use kernel::KernelInfo;
pub use metadata::{AddressSpace, KernelArg, ValueKind};
pub use metadata_error::{MetadataError, MetadataNode, MetadataType, MsgpackRead};

/// Accept an ELF code object, a bundle or a compressed bundle; return the
/// code object for `agent` (borrowed unless it had to be decompressed), or
/// [`CodeObjectError::NoMatchingIsa`] listing the agent and what is available.
pub fn code_object_for_agent<'a>(
    bytes: &'a [u8],
    agent: &IsaName,
) -> Result<Cow<'a, [u8]>, CodeObjectError> {
    if bytes.starts_with(BUNDLE_MAGIC) {
        let entries = bundle::parse_entries(bytes)?;
        let index = bundle::select_entry(entries.iter().map(|(id, _)| id.as_str()), agent)?;
        return Ok(Cow::Borrowed(&bytes[entries[index].1.clone()]));
    }
    if bytes.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        let plain = bundle::decompress(bytes)?;
        let entries = bundle::parse_entries(&plain)?;
        let index = bundle::select_entry(entries.iter().map(|(id, _)| id.as_str()), agent)?;
        return Ok(Cow::Owned(plain[entries[index].1.clone()].to_vec()));
    }
    let isa = elf::isa_of(bytes)?;
    if isa.compatible_with(agent) {
        Ok(Cow::Borrowed(bytes))
    } else {
        Err(CodeObjectError::NoMatchingIsa {
            agent: agent.full_name(),
            available: vec![isa.full_name()],
        })
    }
}
