//! Errors of shader modules: loading a code object, reading its
//! reflection, resolving WGSL to a compiled variant, and picking an entry
//! point.

use std::fmt;
use std::sync::Arc;

use aqueduct_hsa::HsaError;

/// Why a shader module is invalid, or `register_precompiled` refused an
/// object.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ShaderModuleError {
    #[error(
        "shader module {}: {source}",
        label.as_deref().map(|l| format!("`{l}`")).unwrap_or_default()
    )]
    Create {
        label: Option<String>,
        #[source]
        source: ShaderLoadError,
    },
    #[error("register_precompiled: {0}")]
    RegisterPrecompiled(#[source] ShaderLoadError),
}

/// Why a shader's code could not be made into entry points.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ShaderLoadError {
    #[error("the code object could not be loaded for {target}: {source}")]
    Load {
        target: String,
        #[source]
        source: Arc<HsaError>,
    },
    #[error("{0}")]
    Kernel(#[source] Arc<HsaError>),
    #[error(
        "kernel `{kernel}` argument {index} has kind `{kind}`, which Aqueduct cannot bind (only \
         global pointers and by-value arguments are supported)"
    )]
    UnsupportedArgument {
        kernel: String,
        index: usize,
        kind: String,
    },
    #[error("workgroup size {size:?} has a zero dimension")]
    ZeroWorkgroupSize { size: [u32; 3] },
    #[error(transparent)]
    Reflection(#[from] ReflectionError),
    #[error(transparent)]
    Wgsl(#[from] WgslError),
    #[error(
        "the reflection has no `source_hash`: rebuild the shader with an aqueduct-shaderc that \
         records it, so the object can be matched to its WGSL source"
    )]
    NoSourceHash,
}

/// A reflection JSON that does not describe its code object.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReflectionError {
    #[error("the shader's reflection JSON is malformed: {0}")]
    Malformed(#[source] Arc<serde_json::Error>),
    #[error(
        "reflection version {version} is not supported (this build reads version 1); rebuild \
         the shader with a matching aqueduct-shaderc"
    )]
    UnsupportedVersion { version: u32 },
    #[error("the reflection's `constants` must map names to numbers")]
    BadConstants,
    #[error("reflection: unknown binding kind `{kind}`")]
    UnknownBindingKind { kind: String },
    #[error("kernel `{kernel}` has no argument `{arg}` named by its reflection")]
    MissingArgument { kernel: String, arg: String },
    #[error("kernel `{kernel}` has no size argument `{arg}`")]
    MissingSizeArgument { kernel: String, arg: String },
    #[error(
        "kernel `{kernel}` has {explicit} explicit arguments but its reflection accounts for {bound}"
    )]
    ArgumentCount {
        kernel: String,
        explicit: usize,
        bound: usize,
    },
}

/// Why WGSL text did not resolve to a compiled variant.
#[derive(Clone, Debug, thiserror::Error)]
pub enum WgslError {
    /// Overrides without defaults need values, or name no override.
    #[error(
        "override specialisation failed ({message}): give every override without a default a \
         value, and only name the shader's overrides, in PipelineCompilationOptions::constants"
    )]
    NeedsConstants { message: String },
    /// No precompiled object matches and the compiler's tools are missing.
    #[cfg(feature = "wgsl")]
    #[error(
        "no precompiled object matches this WGSL for {} and it cannot be compiled at run time \
         ({source}): {hint}",
        hint.target
    )]
    NotPrecompiled {
        hint: Box<PrecompileHint>,
        #[source]
        source: Arc<aqueduct_shaderc::CompileError>,
    },
    /// No precompiled object matches and this build has no compiler.
    #[cfg(not(feature = "wgsl"))]
    #[error(
        "no precompiled object matches this WGSL for {} and this build of Aqueduct has no WGSL \
         compiler (cargo feature `wgsl` is off): {hint}",
        hint.target
    )]
    NoCompiler { hint: Box<PrecompileHint> },
    #[cfg(feature = "wgsl")]
    #[error("{0}")]
    Compile(#[source] Arc<aqueduct_shaderc::CompileError>),
    #[error("reflection: {0}")]
    ReflectionJson(#[source] Arc<serde_json::Error>),
}

impl WgslError {
    /// How to precompile the source, when nothing could compile it here.
    pub fn precompile_hint(&self) -> Option<&PrecompileHint> {
        match self {
            #[cfg(feature = "wgsl")]
            WgslError::NotPrecompiled { hint, .. } => Some(hint),
            #[cfg(not(feature = "wgsl"))]
            WgslError::NoCompiler { hint } => Some(hint),
            _ => None,
        }
    }
}

/// How to precompile a WGSL source nothing else resolves: the command and
/// the ways to load its output.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecompileHint {
    pub file: String,
    pub target: String,
    /// Override values the variant needs (`--define`).
    pub constants: Vec<(String, f64)>,
    /// Hex SHA-256 of the source.
    pub hash: String,
}

impl fmt::Display for PrecompileHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let defines: String = self
            .constants
            .iter()
            .map(|(n, v)| format!(" --define {n}={v}"))
            .collect();
        let stem = std::path::Path::new(&self.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("shader");
        write!(
            f,
            "precompile it with `aqueduct-shaderc compile {file} --target {target}{defines} -o \
             shaders/{target}/{stem}.co` (writes {stem}.reflect.json beside it, with the source \
             hash {hash}) and either load it with \
             `aqueduct::include_shader!(\"shaders/{target}/{stem}\")` or pass both files to \
             `Device::register_precompiled` before creating the module; or install clang-19 and \
             lld-19 (or set {env} to their directory) to compile WGSL at run time",
            file = self.file,
            target = self.target,
            hash = self.hash,
            env = crate::wgsl::LLVM_BIN_ENV,
        )
    }
}

/// Why a pipeline's entry point is not in its module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryPointError {
    #[error(
        "the shader module has no entry point `{name}`; it has: {}",
        available.join(", ")
    )]
    NotFound {
        name: String,
        available: Vec<String>,
    },
    #[error(
        "entry_point is None but the module has {} entry points ({}); name one",
        available.len(),
        available.join(", ")
    )]
    Ambiguous { available: Vec<String> },
    /// A kernel of a multi-kernel code object with an argument Aqueduct
    /// cannot bind; the module's other kernels stay usable.
    #[error(
        "entry point `{name}` cannot be used: its argument {index} has kind `{kind}`, which \
         Aqueduct cannot bind (only global pointers and by-value arguments are supported)"
    )]
    Unusable {
        name: String,
        index: usize,
        kind: String,
    },
}
