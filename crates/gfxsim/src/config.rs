//! Configuration of a simulated device: how many GPUs, how many host worker
//! threads run each GPU's workgroups, how much VRAM each reports, whether
//! coarse-grained memory is modelled strictly (see `coherence.rs`), and the
//! watchdog's per-dispatch time limit (a kernel that never ends becomes a
//! queue error naming the PC where it was stopped, instead of a hang).
//!
//! VRAM is an accounting limit only: a buffer object's pages are committed
//! when first touched, so the default (24 GiB, an RX 7900 XTX) costs nothing.

use std::time::Duration;

/// Environment variable that overrides [`SimConfig::threads`].
pub const THREADS_ENV: &str = "AQUEDUCT_SIM_THREADS";

/// Environment variable that turns on [`SimConfig::strict_coherence`]
/// (`1`, `true`, `on` or `yes`; `0`, `false`, `off`, `no` or empty leave it off).
pub const STRICT_COHERENCE_ENV: &str = "AQUEDUCT_SIM_STRICT_COHERENCE";

/// Environment variable that overrides [`SimConfig::dispatch_timeout`]:
/// milliseconds, `0` turns the watchdog off.
pub const DISPATCH_TIMEOUT_ENV: &str = "AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS";

/// The watchdog's default limit: far above any test or benchmark dispatch on
/// a loaded 2-core machine, and below the 60 s the tests wait before
/// calling a dispatch hung.
pub const DEFAULT_DISPATCH_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// The watchdog: how long one dispatch may run, from the start of its
    /// first workgroup, before its waves are stopped and its queue reports
    /// an error (`EC_QUEUE_WAVE_ABORT`, detail naming the PC). None: no limit.
    pub dispatch_timeout: Option<Duration>,
}

impl Default for SimConfig {
    /// One GPU, 24 GiB of VRAM, one worker thread per available host CPU
    /// unless `AQUEDUCT_SIM_THREADS` says otherwise, strict coherence as
    /// `AQUEDUCT_SIM_STRICT_COHERENCE` says (off when unset), a dispatch
    /// time limit as `AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS` says (30 s when unset).
    fn default() -> Self {
        Self {
            gpus: 1,
            threads: default_threads(),
            vram_size: DEFAULT_VRAM_SIZE,
            strict_coherence: default_strict_coherence(),
            dispatch_timeout: default_dispatch_timeout(),
        }
    }
}

/// `AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS` if set (milliseconds, 0 = no limit),
/// else [`DEFAULT_DISPATCH_TIMEOUT`].
pub fn default_dispatch_timeout() -> Option<Duration> {
    match std::env::var(DISPATCH_TIMEOUT_ENV) {
        Ok(text) => parse_timeout_ms(&text).unwrap_or_else(|| {
            tracing::warn!(
                "{DISPATCH_TIMEOUT_ENV}={text:?} is not a number of milliseconds; using {} ms",
                DEFAULT_DISPATCH_TIMEOUT.as_millis()
            );
            Some(DEFAULT_DISPATCH_TIMEOUT)
        }),
        Err(_) => Some(DEFAULT_DISPATCH_TIMEOUT),
    }
}

/// A time limit in milliseconds as the environment spells it: `0` is no
/// limit; None if it is not a number.
fn parse_timeout_ms(text: &str) -> Option<Option<Duration>> {
    let ms = text.trim().parse::<u64>().ok()?;
    Some((ms > 0).then(|| Duration::from_millis(ms)))
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
    use super::{parse_switch, parse_timeout_ms};
    use std::time::Duration;

    #[test]
    fn timeout_spellings() {
        assert_eq!(
            parse_timeout_ms("250"),
            Some(Some(Duration::from_millis(250)))
        );
        assert_eq!(
            parse_timeout_ms(" 10000 "),
            Some(Some(Duration::from_secs(10)))
        );
        assert_eq!(parse_timeout_ms("0"), Some(None));
        assert_eq!(parse_timeout_ms(""), None);
        assert_eq!(parse_timeout_ms("-5"), None);
        assert_eq!(parse_timeout_ms("10s"), None);
    }

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
