//! The WGSL compiler's in-process LLVM: libLLVM-19 through aqueduct-llvm,
//! compiling IR to a relocatable AMDGPU object the way `clang-19 -x ir
//! -target amdgcn-amd-amdhsa -mcpu=<gfx> -O<n> -mcode-object-version=5 -c`
//! does. A small kernel then costs a few milliseconds instead of two
//! process start-ups.

pub(crate) use aqueduct_llvm::{Llvm as InProcessLlvm, locate};
use aqueduct_llvm::{LlvmError, ObjectTarget};

use crate::error::CompileError;

impl From<LlvmError> for CompileError {
    fn from(e: LlvmError) -> Self {
        match e {
            LlvmError::Unavailable { library, reason } => {
                CompileError::LlvmUnavailable { library, reason }
            }
            LlvmError::Failed { stage, message } => CompileError::LlvmFailed { stage, message },
        }
    }
}

/// Compile IR text to a relocatable object for `gpu` at `opt_level`; `file`
/// names the IR in LLVM's diagnostics (clang names the `.ll`).
pub(crate) fn compile(
    llvm: &InProcessLlvm,
    ir: &str,
    file: &str,
    gpu: &str,
    opt_level: u8,
) -> Result<Vec<u8>, CompileError> {
    let ir = with_code_object_version(ir);
    let target = ObjectTarget::amdgpu(gpu, opt_level.min(3));
    Ok(llvm.compile_object(&ir, file, &target)?)
}

/// `ir` with the module flag clang's `-mcode-object-version=5` adds
/// (`amdhsa_code_object_version` = 500, AMDGPUUsage "Code Object V5
/// Metadata"), unless the IR already names a version. The emitter writes
/// no numbered metadata, so `!0` is free; otherwise the highest number + 1.
pub(crate) fn with_code_object_version(ir: &str) -> std::borrow::Cow<'_, str> {
    if ir.contains("amdhsa_code_object_version") {
        return ir.into();
    }
    let next = ir
        .lines()
        .filter_map(|l| l.strip_prefix('!'))
        .filter_map(|l| l.split(|c: char| !c.is_ascii_digit()).next())
        .filter_map(|n| n.parse::<u64>().ok())
        .max()
        .map_or(0, |n| n + 1);
    if ir.lines().any(|l| l.starts_with("!llvm.module.flags")) {
        // The emitter writes no module flags; a list from elsewhere is left
        // alone (LLVM 19's default code object version is 5 as well).
        return ir.into();
    }
    let mut out = String::with_capacity(ir.len() + 96);
    out.push_str(ir);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "!llvm.module.flags = !{{!{next}}}\n!{next} = !{{i32 1, !\"amdhsa_code_object_version\", i32 500}}\n"
    ));
    out.into()
}
