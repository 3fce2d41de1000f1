//! Why `aqueduct-run` stops: a command line it refuses (printed with the
//! usage) or a run that fails before or while the kernel runs.

use std::path::PathBuf;

use aqueduct::DeviceSelectError;
use aqueduct::hsa::HsaError;
use aqueduct::hsa::code_object::{CodeObjectError, ValueKind};

use crate::spec::{ScalarType, SpecError};

/// A command line `aqueduct-run` refuses.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0} needs a value")]
    MissingValue(&'static str),
    #[error("--gpu takes an ordinal (0, 1, ...)")]
    BadGpu,
    #[error("--repeat takes a positive integer")]
    BadRepeat,
    #[error("--repeat must be at least 1")]
    ZeroRepeat,
    #[error("--timeout takes seconds")]
    BadTimeout,
    #[error("--timeout must be a positive number of seconds")]
    NonPositiveTimeout,
    #[error("--dynamic-lds: {0}")]
    BadDynamicLds(#[source] SpecError),
    #[error("--device {0:?} is not one of kfd, sim, auto")]
    BadDevice(String),
    #[error("unknown option {0}")]
    UnknownOption(String),
    #[error("missing CODE_OBJECT")]
    MissingCodeObject,
    #[error("expected one CODE_OBJECT, got {}: {}", .0.len(), .0.join(" "))]
    TooManyCodeObjects(Vec<String>),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Device(#[from] DeviceSelectError),
    #[cfg(feature = "sim")]
    #[error("--sanitize: {0}")]
    BadSanitize(#[from] aqueduct::gfxsim::SanitizeParseError),
    #[cfg(feature = "sim")]
    #[error("--sanitize runs on gfxsim; --device kfd has no sanitizer")]
    SanitizeOnKfd,
    #[cfg(not(feature = "sim"))]
    #[error("--sanitize {0}: this aqueduct-run is built without gfxsim (the `sim` feature)")]
    SanitizeWithoutSim(String),
}

/// A run that failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The code object could not be disassembled.
    #[error(transparent)]
    Disasm(#[from] crate::disasm::DisasmError),
    #[error(transparent)]
    Device(#[from] DeviceSelectError),
    #[error("runtime init failed: {0}")]
    RuntimeInit(#[source] HsaError),
    #[error(transparent)]
    Hsa(#[from] HsaError),
    #[error(transparent)]
    Kernarg(#[from] CodeObjectError),
    #[error("--kernel is required; the code object has: {}", kernels.join(", "))]
    KernelRequired { kernels: Vec<String> },
    #[error("{0} is required")]
    Required(&'static str),
    #[error(
        "grid {grid:?} has {items} work-items; the agent's grid max size is {max} \
         (HSA_AGENT_INFO_GRID_MAX_SIZE)"
    )]
    GridTooLarge {
        grid: [u32; 3],
        items: u64,
        max: u64,
    },
    #[error("workgroup {workgroup:?} has {items} work-items; kernel {kernel} allows at most {max}")]
    WorkgroupTooLarge {
        workgroup: [u32; 3],
        items: u64,
        kernel: String,
        max: u64,
    },
    #[error("kernel {kernel} requires workgroup size {required:?}, not {workgroup:?}")]
    WorkgroupMismatch {
        kernel: String,
        required: [u32; 3],
        workgroup: [u32; 3],
    },
    #[error("workgroup dimension {0} exceeds 1024")]
    WorkgroupDimension(u32),
    #[error(
        "kernel {kernel} has {count} explicit arguments; there is no argument {index} \
         (arguments: {})",
        arguments.join(", ")
    )]
    NoArgumentIndex {
        kernel: String,
        index: usize,
        count: usize,
        arguments: Vec<String>,
    },
    #[error(
        "kernel {kernel} has no argument named {name:?} (arguments: {})",
        arguments.join(", ")
    )]
    NoArgumentName {
        kernel: String,
        name: String,
        arguments: Vec<String>,
    },
    #[error("argument {argument} is given twice")]
    ArgumentTwice { argument: String },
    #[error("missing --arg for argument {index} ({argument})")]
    MissingArgument { index: usize, argument: String },
    #[error("argument {index} ({argument}) is passed by value: give a scalar like u32:7")]
    ScalarExpected { index: usize, argument: String },
    #[error("argument {index} ({argument}) is one value, not a list of {count}")]
    ScalarList {
        index: usize,
        argument: String,
        count: usize,
    },
    #[error("argument {index} ({argument}) is {size} bytes; {ty:?} is {given} bytes")]
    ScalarSize {
        index: usize,
        argument: String,
        size: u32,
        ty: ScalarType,
        given: usize,
    },
    #[error("argument {index} ({argument}): {source}")]
    BufferValue {
        index: usize,
        argument: String,
        #[source]
        source: SpecError,
    },
    #[error("argument {index}: {source}")]
    BufferAllocation {
        index: usize,
        #[source]
        source: HsaError,
    },
    #[error("{0} is not host mapped")]
    NotHostMapped(&'static str),
    #[error(
        "argument {index} ({argument}) has value kind {kind:?}, which aqueduct-run cannot supply"
    )]
    UnsupportedKind {
        index: usize,
        argument: String,
        kind: ValueKind,
    },
    #[error(
        "kernel {kernel} failed: {source}{}",
        wave.as_ref().map(|w| format!("\n  gfxsim: {w}")).unwrap_or_default()
    )]
    KernelFailed {
        kernel: String,
        #[source]
        source: Box<HsaError>,
        /// gfxsim's account of the failed wave, its PC as kernel+offset.
        wave: Option<String>,
    },
    #[error(
        "kernel name {name:?} is ambiguous; use the full signature or the symbol: {}",
        candidates.join(", ")
    )]
    AmbiguousKernel {
        name: String,
        candidates: Vec<String>,
    },
    #[error(
        "kernel {kernel} needs {total} bytes of LDS ({static_bytes} static + local arguments \
         and --dynamic-lds); the agent has {limit}"
    )]
    LdsTooLarge {
        kernel: String,
        static_bytes: u32,
        total: u64,
        limit: u64,
    },
    #[error("argument {index} ({argument}) is a __local pointer: give its size as local:BYTES")]
    LocalExpected { index: usize, argument: String },
    #[error("argument {index} ({argument}) is not a __local pointer; local:BYTES is for those")]
    NotLocal { index: usize, argument: String },
    #[error(
        "argument {index} ({argument}) is declared {declared}; the value is {} \
         (write {declared_spec}:..., or pass --force to use the bytes as given)",
        given.name()
    )]
    ScalarType {
        index: usize,
        argument: String,
        declared: String,
        declared_spec: &'static str,
        given: ScalarType,
    },
}
