//! Configuration of a simulated device: how many GPUs, how many host worker
//! threads run each GPU's workgroups, and how much VRAM each reports.
//!
//! VRAM is an accounting limit only: a buffer object's pages are committed
//! when first touched, so the default (24 GiB, an RX 7900 XTX) costs nothing.

/// Environment variable that overrides [`SimConfig::threads`].
pub const THREADS_ENV: &str = "AQUEDUCT_SIM_THREADS";

/// VRAM of an RX 7900 XTX.
pub const DEFAULT_VRAM_SIZE: u64 = 24 << 30;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// Number of simulated gfx1100 GPUs (nodes 1..=gpus of the topology).
    pub gpus: usize,
    /// Host worker threads per GPU that execute workgroups.
    pub threads: usize,
    /// Bytes of VRAM each GPU reports and allows to be allocated.
    pub vram_size: u64,
}

impl Default for SimConfig {
    /// One GPU, 24 GiB of VRAM, and one worker thread per available host
    /// CPU unless `AQUEDUCT_SIM_THREADS` says otherwise.
    fn default() -> Self {
        Self {
            gpus: 1,
            threads: default_threads(),
            vram_size: DEFAULT_VRAM_SIZE,
        }
    }
}

/// `AQUEDUCT_SIM_THREADS` if set to a positive integer, else the host's
/// available parallelism.
pub fn default_threads() -> usize {
    if let Ok(text) = std::env::var(THREADS_ENV) {
        match text.trim().parse::<usize>() {
            Ok(n) if n > 0 => return n,
            _ => tracing::warn!("{THREADS_ENV}={text:?} is not a positive integer; ignored"),
        }
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
