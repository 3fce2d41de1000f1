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

/// Why a compile in a child process ([`crate::Llvm::compile_object_isolated`])
/// gave no object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsolatedError {
    /// LLVM rejected or failed on the input, or is not usable here.
    #[error(transparent)]
    Llvm(#[from] LlvmError),
    /// The compile was still running after `limit_ms` (LLVM does not
    /// terminate on some inputs); the child was killed.
    #[error("the compile was still running after {limit_ms} ms and was stopped")]
    TimedOut { limit_ms: u64 },
    /// Other threads' calls into the library did not finish within
    /// `limit_ms`, so no child could be made (it is made while no thread
    /// is inside the library); the module was not tried.
    #[error(
        "calls into libLLVM on other threads ran past {limit_ms} ms; the compile did not start"
    )]
    Busy { limit_ms: u64 },
    /// The child ended without an object: LLVM reported the fatal error
    /// `fatal` (and ended it), or it died by `signal` or exited with
    /// `status`.
    #[error(
        "the compiling child process ended without a result ({})",
        fatal.as_deref().map_or_else(
            || format!("signal {signal:?}, exit status {status:?}"),
            |f| format!("LLVM ERROR: {f}")
        )
    )]
    Crashed {
        fatal: Option<String>,
        signal: Option<i32>,
        status: Option<i32>,
    },
    /// The operating system refused the child or its pipe: `call` failed
    /// with error number `errno`.
    #[error("cannot compile in a child process: {call} failed (OS error {errno})")]
    Os { call: &'static str, errno: i32 },
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
