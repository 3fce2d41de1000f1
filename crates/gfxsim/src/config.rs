//! Configuration of a simulated device: how many GPUs, how many host worker
//! threads run each GPU's workgroups, how much VRAM each reports, and
//! whether coarse-grained memory is modelled strictly (see `coherence.rs`).
//!
//! VRAM is an accounting limit only: a buffer object's pages are committed
//! when first touched, so the default (24 GiB, an RX 7900 XTX) costs nothing.

/// Environment variable that overrides [`SimConfig::threads`].
pub const THREADS_ENV: &str = "AQUEDUCT_SIM_THREADS";

/// Environment variable that turns on [`SimConfig::strict_coherence`]
/// (`1`, `true`, `on` or `yes`; `0`, `false`, `off`, `no` or empty leave it off).
pub const STRICT_COHERENCE_ENV: &str = "AQUEDUCT_SIM_STRICT_COHERENCE";

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
    /// Strict coherence mode: each GPU keeps its own copy of coarse-grained
    /// memory that only fences move to and from the memory the host sees,
    /// and stale reads are reported (`SimDevice::coherence_reports`).
    pub strict_coherence: bool,
}

impl Default for SimConfig {
    /// One GPU, 24 GiB of VRAM, one worker thread per available host CPU
    /// unless `AQUEDUCT_SIM_THREADS` says otherwise, strict coherence as
    /// `AQUEDUCT_SIM_STRICT_COHERENCE` says (off when unset).
    fn default() -> Self {
        Self {
            gpus: 1,
            threads: default_threads(),
            vram_size: DEFAULT_VRAM_SIZE,
            strict_coherence: default_strict_coherence(),
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

/// Whether `AQUEDUCT_SIM_STRICT_COHERENCE` asks for strict coherence.
pub fn default_strict_coherence() -> bool {
    match std::env::var(STRICT_COHERENCE_ENV) {
        Ok(text) => parse_switch(&text).unwrap_or_else(|| {
            tracing::warn!("{STRICT_COHERENCE_ENV}={text:?} is not 1/0/true/false/on/off; ignored");
            false
        }),
        Err(_) => false,
    }
}

/// An on/off switch as environment variables spell it.
fn parse_switch(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "" | "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_switch;

    #[test]
    fn switch_spellings() {
        for on in ["1", "true", "ON", " yes "] {
            assert_eq!(parse_switch(on), Some(true), "{on:?}");
        }
        for off in ["", "0", "False", "off", "no"] {
            assert_eq!(parse_switch(off), Some(false), "{off:?}");
        }
        assert_eq!(parse_switch("2"), None);
        assert_eq!(parse_switch("strict"), None);
    }
}
