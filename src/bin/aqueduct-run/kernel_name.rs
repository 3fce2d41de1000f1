//! Which kernel `--kernel NAME` means: the symbol as the metadata names it
//! (mangled for C++), or for C++ kernels the demangled signature
//! (`reverse_blocks(float*, unsigned int)`) or the plain function name
//! (`reverse_blocks`) when only one kernel has it.

use aqueduct::hsa::code_object::KernelInfo;

use crate::demangle::demangle;
use crate::error::RunError;

/// The metadata name of the kernel `wanted` names; `Ok(None)` when none
/// matches (the executable's lookup then reports the kernels it has).
pub fn resolve(kernels: &[KernelInfo], wanted: &str) -> Result<Option<String>, RunError> {
    if kernels.iter().any(|k| k.name == wanted) {
        return Ok(Some(wanted.to_string()));
    }
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let demangled: Vec<(&KernelInfo, _)> = kernels
        .iter()
        .filter_map(|k| demangle(&k.name).map(|d| (k, d)))
        .collect();
    if let Some((k, _)) = demangled
        .iter()
        .find(|(_, d)| squeeze(&d.full) == squeeze(wanted))
    {
        return Ok(Some(k.name.clone()));
    }
    let same_base: Vec<_> = demangled.iter().filter(|(_, d)| d.base == wanted).collect();
    match same_base.as_slice() {
        [] => Ok(None),
        [(k, _)] => Ok(Some(k.name.clone())),
        more => Err(RunError::AmbiguousKernel {
            name: wanted.to_string(),
            candidates: more
                .iter()
                .map(|(k, d)| format!("{} ({})", d.full, k.name))
                .collect(),
        }),
    }
}

/// The kernel's name as `--list` prints it: the symbol, and for C++ kernels
/// the demangled signature after it.
pub fn display_name(info: &KernelInfo) -> String {
    match demangle(&info.name) {
        Some(d) => format!("{} ({})", info.name, d.full),
        None => info.name.clone(),
    }
}
