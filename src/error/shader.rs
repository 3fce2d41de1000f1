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
    /// The module's code could not be loaded or reflected, or its WGSL did not resolve.
    #[error(
        "shader module {}: {source}",
        label.as_deref().map(|l| format!("`{l}`")).unwrap_or_default()
    )]
    Create {
        /// The module's label, if it has one.
        label: Option<String>,
        /// Why the module is invalid.
        #[source]
        source: ShaderLoadError,
    },
    /// `Device::register_precompiled` refused the object or its reflection.
    #[error("register_precompiled: {0}")]
    RegisterPrecompiled(#[source] ShaderLoadError),
}

/// Why a shader's code could not be made into entry points.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ShaderLoadError {
    /// The HSA runtime could not load the code object for the device's agent.
    #[error("the code object could not be loaded for {target}: {source}")]
    Load {
        /// The agent's ISA target, e.g. `gfx1100`.
        target: String,
        /// The HSA runtime's error.
        #[source]
        source: Arc<HsaError>,
    },
    /// The HSA runtime cannot give a kernel of the loaded code object.
    #[error("{0}")]
    Kernel(#[source] Arc<HsaError>),
    /// A kernel argument has a kind the facade cannot bind.
    #[error(
        "kernel `{kernel}` argument {index} has kind `{kind}`, which Aqueduct cannot bind (only \
         global pointers and by-value arguments are supported)"
    )]
    UnsupportedArgument {
        /// The kernel's name.
        kernel: String,
        /// The argument's index among the kernel's explicit arguments.
        index: usize,
        /// The argument's kind, as the code object's metadata spells it.
        kind: String,
    },
    /// A raw code object's workgroup size has a zero dimension.
    #[error("workgroup size {size:?} has a zero dimension")]
    ZeroWorkgroupSize {
        /// The size given.
        size: [u32; 3],
    },
    /// The reflection JSON does not describe the code object.
    #[error(transparent)]
    Reflection(#[from] ReflectionError),
    /// The WGSL source did not resolve to a compiled variant.
    #[error(transparent)]
    Wgsl(#[from] WgslError),
    /// A SPIR-V or GLSL shader was invalid, or cannot be written as the
    /// WGSL the run-time compiler takes.
    #[cfg(feature = "wgsl")]
    #[error("the {language} shader could not be translated: {source}")]
    Translate {
        /// The shader's language.
        language: ShaderLanguage,
        /// naga's error, rendered.
        #[source]
        source: Arc<aqueduct_shaderc::CompileError>,
    },
    /// A precompiled object's reflection lacks the hash of its WGSL source.
    #[error(
        "the reflection has no `source_hash`: rebuild the shader with an aqueduct-shaderc that \
         records it, so the object can be matched to its WGSL source"
    )]
    NoSourceHash,
}

/// A reflection JSON that does not describe its code object.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReflectionError {
    /// The reflection is not valid JSON or does not have the expected shape.
    #[error("the shader's reflection JSON is malformed: {0}")]
    Malformed(#[source] Arc<serde_json::Error>),
    /// The reflection's format version is not the one this build reads.
    #[error(
        "reflection version {version} is not supported (this build reads version 1); rebuild \
         the shader with a matching aqueduct-shaderc"
    )]
    UnsupportedVersion {
        /// The reflection's version.
        version: u32,
    },
    /// The reflection's `constants` is not an object of numbers.
    #[error("the reflection's `constants` must map names to numbers")]
    BadConstants,
    /// A binding's `kind` is not `uniform`, `storage_read` or `storage_read_write`.
    #[error("reflection: unknown binding kind `{kind}`")]
    UnknownBindingKind {
        /// The kind the reflection gives.
        kind: String,
    },
    /// A binding names a kernel argument the kernel lacks.
    #[error("kernel `{kernel}` has no argument `{arg}` named by its reflection")]
    MissingArgument {
        /// The kernel's name.
        kernel: String,
        /// The argument's name.
        arg: String,
    },
    /// A binding names a binding-size argument the kernel lacks.
    #[error("kernel `{kernel}` has no size argument `{arg}`")]
    MissingSizeArgument {
        /// The kernel's name.
        kernel: String,
        /// The argument's name.
        arg: String,
    },
    /// The reflected immediates and the kernel's by-value argument differ in size.
    #[error(
        "kernel `{kernel}` takes {kernel_size} bytes in its immediates argument `{arg}` but its \
         reflection gives {reflected}"
    )]
    ImmediateSize {
        /// The kernel's name.
        kernel: String,
        /// The argument's name.
        arg: String,
        /// The size the reflection gives.
        reflected: u32,
        /// The argument's size in the kernel's metadata.
        kernel_size: u32,
    },
    /// The kernel's explicit arguments and the ones the reflection accounts for differ in number.
    #[error(
        "kernel `{kernel}` has {explicit} explicit arguments but its reflection accounts for {bound}"
    )]
    ArgumentCount {
        /// The kernel's name.
        kernel: String,
        /// How many explicit arguments the kernel takes.
        explicit: usize,
        /// How many arguments the reflection's bindings account for.
        bound: usize,
    },
}

/// A shader language the run-time path translates to WGSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderLanguage {
    /// SPIR-V (`ShaderSource::SpirV`).
    SpirV,
    /// GLSL compute shaders (`ShaderSource::Glsl`).
    Glsl,
}

impl std::fmt::Display for ShaderLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ShaderLanguage::SpirV => "SPIR-V",
            ShaderLanguage::Glsl => "GLSL",
        })
    }
}

/// Why WGSL text did not resolve to a compiled variant.
#[derive(Clone, Debug, thiserror::Error)]
pub enum WgslError {
    /// Overrides without defaults need values, or name no override.
    #[error(
        "override specialisation failed ({message}): give every override without a default a \
         value, and only name the shader's overrides, in PipelineCompilationOptions::constants"
    )]
    NeedsConstants {
        /// The specialiser's message.
        message: String,
    },
    /// No precompiled object matches and the compiler's tools are missing.
    #[cfg(feature = "wgsl")]
    #[error(
        "no precompiled object matches this WGSL for {} and it cannot be compiled at run time \
         ({source}): {hint}",
        hint.target
    )]
    NotPrecompiled {
        /// The command that precompiles the source, and how to load its output.
        hint: Box<PrecompileHint>,
        /// Why the compiler cannot run here.
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
    NoCompiler {
        /// The command that precompiles the source, and how to load its output.
        hint: Box<PrecompileHint>,
    },
    /// The WGSL compiler rejected the source.
    #[cfg(feature = "wgsl")]
    #[error("{0}")]
    Compile(#[source] Arc<aqueduct_shaderc::CompileError>),
    /// The shader needs features the device was not opened with (`f16`
    /// without `Features::SHADER_F16`), as in wgpu.
    #[cfg(feature = "wgsl")]
    #[error(
        "the shader needs {missing:?}, which the device was not opened with: request them in \
         DeviceDescriptor::required_features\n{source}"
    )]
    MissingFeatures {
        /// The features the shader needs beyond the device's.
        missing: wgpu_types::Features,
        /// The validator's error.
        #[source]
        source: Arc<aqueduct_shaderc::CompileError>,
    },
    /// The compiler's reflection could not be written as JSON.
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
    /// The WGSL source's file name.
    pub file: String,
    /// The ISA target to compile for, e.g. `gfx1100`.
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
    /// No entry point has the given name.
    #[error(
        "the shader module has no entry point `{name}`; it has: {}",
        available.join(", ")
    )]
    NotFound {
        /// The entry point name given.
        name: String,
        /// The module's entry points.
        available: Vec<String>,
    },
    /// No entry point is named, and the module has more than one.
    #[error(
        "entry_point is None but the module has {} entry points ({}); name one",
        available.len(),
        available.join(", ")
    )]
    Ambiguous {
        /// The module's entry points.
        available: Vec<String>,
    },
    /// A kernel of a multi-kernel code object with an argument Aqueduct
    /// cannot bind; the module's other kernels stay usable.
    #[error(
        "entry point `{name}` cannot be used: its argument {index} has kind `{kind}`, which \
         Aqueduct cannot bind (only global pointers and by-value arguments are supported)"
    )]
    Unusable {
        /// The kernel's name.
        name: String,
        /// The position of the argument among the kernel's arguments.
        index: usize,
        /// The argument's value kind in the code object's metadata.
        kind: String,
    },
}
