//! Why a check failed (or could not run) on one side.

use aqueduct::hsa::HsaError;
use aqueduct::hsa::code_object::CodeObjectError;
use aqueduct::kfd::KfdError;

/// The error type of facade operations a check drives (request errors,
/// readback errors, errors popped from an error scope).
pub type FacadeSource = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The check does not apply to this device (another ISA, a missing
    /// feature); reported as SKIP with the reason.
    #[error("{reason}")]
    Unsupported { reason: String },
    /// A KFD ioctl or mmap failed.
    #[error("{step}: {source}")]
    Kfd {
        step: &'static str,
        #[source]
        source: KfdError,
    },
    /// A call of the HSA runtime failed.
    #[error("{step}: {source}")]
    Hsa {
        step: &'static str,
        #[source]
        source: HsaError,
    },
    /// Kernel arguments did not fit the kernel's metadata.
    #[error("{step}: {source}")]
    Kernarg {
        step: String,
        #[source]
        source: CodeObjectError,
    },
    /// A facade call failed or reported an error.
    #[error("{step}: {source}")]
    Facade {
        step: &'static str,
        #[source]
        source: FacadeSource,
    },
    /// A value the device returned is not the one the interface defines.
    #[error("{what}: expected {expected}, got {got}")]
    Unexpected {
        what: &'static str,
        expected: String,
        got: String,
    },
    /// A result differs from its host reference computation.
    #[error("[{case}] differs from the host reference: {message}")]
    Reference { case: String, message: String },
}

impl CheckError {
    pub fn kfd(step: &'static str) -> impl FnOnce(KfdError) -> CheckError {
        move |source| CheckError::Kfd { step, source }
    }

    pub fn hsa(step: &'static str) -> impl FnOnce(HsaError) -> CheckError {
        move |source| CheckError::Hsa { step, source }
    }

    pub fn facade<E: Into<FacadeSource>>(step: &'static str) -> impl FnOnce(E) -> CheckError {
        move |source| CheckError::Facade {
            step,
            source: source.into(),
        }
    }

    /// `what` is `got` where the interface says `expected`.
    pub fn unexpected(
        what: &'static str,
        expected: impl std::fmt::Display,
        got: impl std::fmt::Display,
    ) -> CheckError {
        CheckError::Unexpected {
            what,
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }
}
