//! Executables: a code object loaded into memory an agent can execute.
//!
//! Loading picks the code object for the agent's ISA (unwrapping offload
//! bundles), parses it, allocates `image_size()` bytes aligned to
//! `image_align()` of fine-grained system memory marked EXECUTABLE
//! (GTT|WRITABLE|COHERENT|EXECUTABLE, host writable, mapped on the agent),
//! and copies and relocates the image there for its GPU address. A kernel's
//! `kernel_object` (what a dispatch packet carries) is then the image base
//! plus its descriptor's offset.

use std::sync::Arc;

use crate::agent::Agent;
use crate::code_object::{self, CodeObject, IsaName, KernelInfo};
use crate::error::{AgentError, ExecutableError, HsaResult, MemoryError};
use crate::memory::{AllocOptions, Allocation, PoolKind};
use crate::queue::KernelDispatch;
use crate::runtime::Runtime;

#[derive(Debug)]
pub struct Executable {
    code_object: CodeObject,
    image: Allocation,
    gpu_id: u32,
}

/// A kernel of a loaded executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// GPU address of the 64-byte kernel descriptor.
    pub kernel_object: u64,
    /// The kernel's name (`info.name`), shared: dispatch records and fault
    /// reports carry it without allocating.
    pub name: Arc<str>,
    pub info: KernelInfo,
}

impl Kernel {
    /// A dispatch of this kernel with its static LDS and scratch sizes
    /// filled in (add dynamic LDS to `group_segment_size` if used).
    pub fn dispatch(
        &self,
        kernarg_address: u64,
        grid: [u32; 3],
        workgroup: [u16; 3],
    ) -> KernelDispatch {
        let mut d = KernelDispatch::new(self.kernel_object, kernarg_address, grid, workgroup);
        d.group_segment_size = self.info.group_segment_fixed_size;
        d.private_segment_size = self.info.private_segment_fixed_size;
        d
    }
}

impl Executable {
    pub fn load(runtime: &Runtime, agent: &Agent, bytes: &[u8]) -> HsaResult<Executable> {
        let isa_text = agent
            .isa_name
            .as_deref()
            .ok_or_else(|| AgentError::NotGpu {
                name: agent.name.clone(),
            })?;
        let isa = IsaName::parse(isa_text).ok_or_else(|| ExecutableError::InvalidIsaName {
            isa: isa_text.to_string(),
        })?;
        let bytes = code_object::code_object_for_agent(bytes, &isa)?;
        let code_object = CodeObject::parse(&bytes)?;
        let pool = runtime.pool(agent, PoolKind::FineSystem)?;
        let options = AllocOptions {
            executable: true,
            alignment: code_object.image_align(),
            ..Default::default()
        };
        let mut image = pool.allocate_with(code_object.image_size(), &options)?;
        let base = image.gpu_va();
        let dest = image.as_mut_slice().ok_or(MemoryError::NotHostMapped {
            memory: "executable image",
        })?;
        code_object.load_image(dest, base)?;
        // A simulated device names kernels in its reports (the real device
        // ignores this).
        for kernel in code_object.kernels() {
            runtime
                .device()
                .note_kernel(base + kernel.descriptor_offset, &kernel.name);
        }
        tracing::debug!(
            agent = %agent.name,
            base = format_args!("{base:#x}"),
            kernels = code_object.kernels().len(),
            "loaded code object"
        );
        Ok(Executable {
            code_object,
            image,
            gpu_id: agent.gpu_id,
        })
    }

    /// A kernel by name (`saxpy`) or descriptor symbol (`saxpy.kd`).
    pub fn kernel(&self, name: &str) -> HsaResult<Kernel> {
        let info =
            self.code_object
                .kernel(name)
                .ok_or_else(|| ExecutableError::KernelNotFound {
                    name: name.to_string(),
                    available: self
                        .code_object
                        .kernels()
                        .iter()
                        .map(|k| k.name.clone())
                        .collect(),
                })?;
        Ok(Kernel {
            kernel_object: self.image.gpu_va() + info.descriptor_offset,
            name: Arc::from(info.name.as_str()),
            info: info.clone(),
        })
    }

    pub fn kernels(&self) -> &[KernelInfo] {
        self.code_object.kernels()
    }
    pub fn code_object(&self) -> &CodeObject {
        &self.code_object
    }
    /// GPU address the image was loaded at.
    pub fn load_base(&self) -> u64 {
        self.image.gpu_va()
    }
    /// gpu_id of the agent it was loaded for.
    pub fn gpu_id(&self) -> u32 {
        self.gpu_id
    }
}
