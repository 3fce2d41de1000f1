//! A workgroup's waves as the wave loop runs them between barriers: in
//! index order, each until it reaches a barrier or ends
//! (dispatch.rs `run_workgroup_waves`), and which of them runs now. The
//! wave loop hands it to a region's translation, whose code goes on with
//! the round's next wave at a barrier itself (jit/abi.rs `switch_wave`)
//! rather than returning to the wave loop for it, and at the round's last
//! wave releases the barrier and goes on with the next round's first; the
//! wave loop then goes on after the wave the code stopped with.

use super::wave::Wave;

// Without a translator only the wave loop reads it, one wave at a time.
#[cfg_attr(not(feature = "llvm-jit"), allow(dead_code))]
pub(crate) struct Round {
    /// The workgroup's waves (`len` of them), reached only through this
    /// pointer while the round runs.
    pub waves: *mut Wave,
    pub len: usize,
    /// The wave running now.
    pub current: usize,
    /// Barriers at which a region's code went on with another wave.
    pub switches: u64,
    /// Of those, the barriers a region's code released itself (abi.rs
    /// `switch_wave`).
    pub releases: u64,
}
