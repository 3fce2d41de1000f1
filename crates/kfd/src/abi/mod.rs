//! Hardware/firmware ABI structs shared by the runtime (which writes them)
//! and the device (which reads them): AQL packets, `amd_queue_t`,
//! `amd_signal_t` and the 64-byte kernel descriptor. Layouts follow ROCR's
//! `hsa.h`, `amd_hsa_queue.h`, `amd_hsa_signal.h` and LLVM's
//! `AMDHSAKernelDescriptor.h`; tests pin sizes and offsets.

pub mod descriptor;
pub mod packet;
pub mod queue;
pub mod signal;

pub use descriptor::KernelDescriptor;
pub use packet::*;
pub use queue::*;
pub use signal::*;
