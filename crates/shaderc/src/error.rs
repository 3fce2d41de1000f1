//! The compiler's one error type. Front-end and validation errors keep
//! naga's rendering (codespan style, with the file name, line and column),
//! and so do the back end's "unsupported construct" errors, which are
//! rendered through `naga::WithSpan` so they look like naga's own.

use std::path::PathBuf;

/// Why a shader did not compile.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The WGSL, SPIR-V or GLSL front end rejected the source (`rendered` is
    /// naga's diagnostic with file:line:col).
    #[error("{rendered}")]
    Parse { rendered: String },
    /// naga's validator rejected the module.
    #[error("{rendered}")]
    Validation { rendered: String },
    /// The module is valid only with validator capabilities that
    /// `Options::capabilities` leaves out (`missing`: all of them), e.g.
    /// `f16` without `SHADER_FLOAT16`.
    #[error(
        "{rendered}the shader needs validator capabilities it was not given: {}",
        capability_names(*missing)
    )]
    MissingCapabilities {
        missing: naga::valid::Capabilities,
        rendered: String,
    },
    /// Pipeline-overridable constants could not be specialised.
    #[error("override specialisation failed: {message}")]
    Override { message: String },
    /// A valid shader uses something this compiler does not lower.
    /// `kind` is the class of construct, `construct` names it; `location`
    /// is `file:line:col` when the construct has a span.
    #[error("{rendered}")]
    Unsupported {
        kind: UnsupportedKind,
        construct: String,
        location: Option<String>,
        rendered: String,
    },
    /// An entry point needs more of a per-workgroup resource than every
    /// gfx target has (`rendered` points at the variable, as naga does).
    #[error("{rendered}")]
    LimitExceeded {
        entry_point: String,
        limit: ComputeLimit,
        /// What the entry point asks for (bytes or invocations).
        requested: u64,
        /// The most the targets allow.
        allowed: u64,
        /// The `var<workgroup>` that brings the total past the limit.
        variable: Option<String>,
        location: Option<String>,
        rendered: String,
    },
    /// A valid SPIR-V or GLSL module that naga's WGSL writer cannot
    /// express (the run-time path compiles such shaders through WGSL).
    #[error("{file}: the shader cannot be translated to WGSL: {message}")]
    NotExpressibleInWgsl { file: String, message: String },
    /// `--entry NAME` named no compute entry point.
    #[error("no compute entry point named `{name}` (the shader has: {available})")]
    EntryPointNotFound { name: String, available: String },
    /// The shader has no `@compute` entry point at all.
    #[error("{file}: the shader has no @compute entry point")]
    NoComputeEntryPoint { file: String },
    /// A target name this compiler does not know.
    #[error("unknown target `{0}` (known: gfx1100, gfx942, gfx90a, gfx1030, gfx1201)")]
    UnknownTarget(String),
    /// A `--define NAME=VALUE` that does not parse.
    #[error("bad define `{0}`: expected NAME=VALUE with a number or true/false")]
    BadDefine(String),
    /// `Options::symbol_prefix` is not `[A-Za-z_][A-Za-z0-9_]*`.
    #[error(
        "bad symbol prefix `{0}`: expected ASCII letters, digits and `_`, not starting with a digit"
    )]
    BadSymbolPrefix(String),
    /// Two modules of one batch define a symbol of the same name (their
    /// symbol prefixes are equal); `module` is the later one's index.
    #[error("module {module} of the batch reuses the symbol prefix `{prefix}` of module {first}")]
    SymbolPrefixClash {
        module: usize,
        first: usize,
        prefix: String,
    },
    /// An LLVM tool is not installed.
    #[error("`{tool}` not found: install it with `apt-get install -y {package}`")]
    ToolMissing { tool: String, package: String },
    /// An LLVM tool ran and failed (this is a compiler bug: the generated IR
    /// should always be accepted).
    #[error("`{tool}` failed ({status}):\n{stderr}")]
    ToolFailed {
        tool: String,
        status: String,
        stderr: String,
    },
    /// libLLVM-19 could not be loaded for in-process compilation (only an
    /// error when `AQUEDUCT_SHADERC_LLVM=in-process` demands it; otherwise
    /// the subprocess tools are used).
    #[error("libLLVM-19 ({library}) is not usable in process: {reason}")]
    LlvmUnavailable { library: String, reason: String },
    /// In-process LLVM rejected or failed on the IR (a compiler bug, as
    /// with [`CompileError::ToolFailed`]); `message` is LLVM's.
    #[error("in-process LLVM failed at {stage}: {message}")]
    LlvmFailed { stage: LlvmStage, message: String },
    /// The in-process linker met an object it does not link (the compile
    /// then falls back to ld.lld-19).
    #[error("linking the code object: {0}")]
    Link(#[from] crate::link::LinkError),
    /// `AQUEDUCT_SHADERC_LLVM` holds a value other than `process` or
    /// `in-process`.
    #[error("AQUEDUCT_SHADERC_LLVM={value}: expected `process` or `in-process`")]
    BadLlvmSelection { value: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("writing reflection: {0}")]
    Json(#[from] serde_json::Error),
}

/// Where in-process LLVM failed.
pub use aqueduct_llvm::Stage as LlvmStage;

/// `A, B, C`: naga's names of the capabilities in `caps`.
fn capability_names(caps: naga::valid::Capabilities) -> String {
    caps.iter_names()
        .map(|(name, _)| name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The classes of WGSL constructs this compiler does not lower, so a
/// caller can tell a construct compute shaders lack from one this
/// compiler does not lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnsupportedKind {
    /// The sampling operations with no lowering: those needing implicit
    /// derivatives or a bias (`textureSampleLevel`,
    /// `textureSampleCompareLevel`, the gathers, `textureSampleGrad` and
    /// `textureSampleBaseClampToEdge`, with their offset forms, are
    /// lowered).
    Sampling,
    /// Texture classes and operations with no lowering: external textures,
    /// multisampled textures other than 2D, 1D-array textures, texel
    /// formats without a gfx11 layout here, texture atomics other than on
    /// r32uint and r32sint.
    TextureClass,
    /// Textures (any texture binding) on a target without image
    /// instructions here: the GFX9 targets.
    TargetTextures,
    /// Ray queries, acceleration structures and ray tracing calls.
    RayQueries,
    /// Derivatives (`dpdx`, `fwidth`, ...): fragment shaders only.
    Derivatives,
    /// `discard`: fragment shaders only.
    Discard,
    /// Cooperative matrices.
    CooperativeMatrices,
    /// Binding arrays (`binding_array<T>`).
    BindingArrays,
    /// A builtin value compute shaders do not have, or an entry point
    /// input that is not a compute builtin.
    NonComputeBuiltin,
    /// A resource without `@group`/`@binding`.
    UnboundResource,
    /// A workgroup size out of range.
    WorkgroupSize,
    /// A construct of another class (a type or an operation on it).
    Other,
}

impl std::fmt::Display for UnsupportedKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UnsupportedKind::Sampling => "texture sampling without an explicit level",
            UnsupportedKind::TextureClass => "external textures and other texture classes",
            UnsupportedKind::TargetTextures => "textures on targets without image instructions",
            UnsupportedKind::RayQueries => "ray queries",
            UnsupportedKind::Derivatives => "derivatives",
            UnsupportedKind::Discard => "discard",
            UnsupportedKind::CooperativeMatrices => "cooperative matrices",
            UnsupportedKind::BindingArrays => "binding arrays",
            UnsupportedKind::NonComputeBuiltin => "non-compute builtins",
            UnsupportedKind::UnboundResource => "resources without a binding",
            UnsupportedKind::WorkgroupSize => "workgroup sizes",
            UnsupportedKind::Other => "other constructs",
        })
    }
}

/// A per-workgroup limit of the gfx targets, checked before LLVM runs, as
/// wgpu checks a device's limits at pipeline creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeLimit {
    /// Bytes of `var<workgroup>` memory (LDS): 64 KiB per workgroup on
    /// every target (AMDGPUUsage, "Memory Spaces"; the kernel descriptor's
    /// group segment size).
    WorkgroupStorageSize,
}

impl ComputeLimit {
    /// The limit's value on every target this compiler knows.
    pub const fn max(self) -> u64 {
        match self {
            ComputeLimit::WorkgroupStorageSize => 64 << 10,
        }
    }
}

impl std::fmt::Display for ComputeLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComputeLimit::WorkgroupStorageSize => f.write_str("max_compute_workgroup_storage_size"),
        }
    }
}

impl CompileError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CompileError::Io {
            path: path.into(),
            source,
        }
    }
}

/// The back end's error inside naga's `WithSpan` renderer.
#[derive(Debug, thiserror::Error)]
#[error("unsupported by aqueduct-shaderc: {0}")]
pub(crate) struct UnsupportedConstruct(pub String);

/// A limit error inside naga's `WithSpan` renderer.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct LimitMessage(pub String);

/// A back-end error before it is rendered against the source.
#[derive(Debug)]
pub(crate) struct EmitError {
    pub kind: UnsupportedKind,
    pub construct: String,
    pub span: naga::Span,
    /// Set when the error is a limit, not an unsupported construct.
    pub limit: Option<LimitBreach>,
}

/// What [`CompileError::LimitExceeded`] reports.
#[derive(Debug)]
pub(crate) struct LimitBreach {
    pub entry_point: String,
    pub limit: ComputeLimit,
    pub requested: u64,
    pub variable: Option<String>,
}

pub(crate) type EmitResult<T> = Result<T, EmitError>;

/// An "unsupported" error at `span` (of class [`UnsupportedKind::Other`]).
pub(crate) fn unsupported<T>(construct: impl Into<String>, span: naga::Span) -> EmitResult<T> {
    unsupported_as(UnsupportedKind::Other, construct, span)
}

/// An "unsupported" error of class `kind` at `span`.
pub(crate) fn unsupported_as<T>(
    kind: UnsupportedKind,
    construct: impl Into<String>,
    span: naga::Span,
) -> EmitResult<T> {
    Err(EmitError {
        kind,
        construct: construct.into(),
        span,
        limit: None,
    })
}

impl EmitError {
    /// Render against the source text (empty for SPIR-V input, which has
    /// no text to point into).
    pub(crate) fn render(self, source: Option<&str>, file: &str) -> CompileError {
        let location = source.and_then(|src| {
            self.span
                .is_defined()
                .then(|| self.span.location(src))
                .map(|l| format!("{file}:{}:{}", l.line_number, l.line_position))
        });
        if let Some(breach) = self.limit {
            let rendered = match source {
                Some(src) => crate::frontend::render_with_span(
                    &naga::WithSpan::new(LimitMessage(self.construct.clone()))
                        .with_span(self.span, "declared here"),
                    src,
                    file,
                ),
                None => format!("error: {} ({file})\n", self.construct),
            };
            return CompileError::LimitExceeded {
                entry_point: breach.entry_point,
                limit: breach.limit,
                requested: breach.requested,
                allowed: breach.limit.max(),
                variable: breach.variable,
                location,
                rendered,
            };
        }
        let with_span = naga::WithSpan::new(UnsupportedConstruct(self.construct.clone()))
            .with_span(self.span, self.construct.clone());
        let rendered = match source {
            Some(src) => crate::frontend::render_with_span(&with_span, src, file),
            None => format!(
                "error: unsupported by aqueduct-shaderc: {} ({file})\n",
                self.construct
            ),
        };
        CompileError::Unsupported {
            kind: self.kind,
            construct: self.construct,
            location,
            rendered,
        }
    }
}
