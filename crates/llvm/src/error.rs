//! What goes wrong with in-process LLVM, as values a caller can match.

/// Why libLLVM could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlvmError {
    /// libLLVM-19 could not be loaded, or lacks a function or target used.
    #[error("libLLVM-19 ({library}) is not usable in process: {reason}")]
    Unavailable { library: String, reason: String },
    /// LLVM rejected or failed on the input; `message` is LLVM's.
    #[error("in-process LLVM failed at {stage}: {message}")]
    Failed { stage: Stage, message: String },
}

/// Where in-process LLVM failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Creating the target machine for the target.
    TargetMachine,
    /// Parsing the IR text.
    Parse,
    /// The IR verifier.
    Verify,
    /// The optimisation pipeline.
    Optimise,
    /// Code generation to an object.
    Emit,
    /// Setting up the host JIT (its session and linking layer).
    Jit,
    /// Linking an object into this process.
    Link,
    /// Finding a symbol of a linked object.
    Lookup,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::TargetMachine => "target machine creation",
            Stage::Parse => "IR parsing",
            Stage::Verify => "IR verification",
            Stage::Optimise => "optimisation",
            Stage::Emit => "code generation",
            Stage::Jit => "JIT set-up",
            Stage::Link => "linking into the process",
            Stage::Lookup => "symbol lookup",
        })
    }
}
