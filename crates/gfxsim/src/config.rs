//! Configuration of a simulated device: which GPU part (`part.rs`), how many GPUs, how many host worker
//! threads run each GPU's workgroups, how much VRAM each reports, whether
//! coarse-grained memory is modelled strictly (see `coherence.rs`), and the
//! watchdog's per-dispatch time limit (a kernel that never ends becomes a
//! queue error naming the PC where it was stopped, instead of a hang).
//!
//! VRAM is host memory: a buffer object's pages are committed when first
//! touched, so allocating costs nothing until the memory is used, but a GPU
//! that reports more VRAM than the host can give lets a program fill it until
//! the host's OOM killer ends the process. The default VRAM is therefore half
//! of the host's available memory (`MemAvailable` in /proc/meminfo, read when
//! the configuration is made), at most the part's memory (24 GiB on an RX
//! 7900 XTX, 192 GiB on an MI300X, 64 GiB on a gfx90a GCD): the other
//! half is left for what the process keeps in system memory beside it
//! (staging copies, fine-grained and kernarg pools, the host's own data),
//! so allocations fail with ENOMEM, an out-of-memory error above, before the
//! host runs out. `AQUEDUCT_SIM_VRAM_MB` or [`SimConfig::vram_size`] set it.

use std::time::Duration;

use aqueduct_kfd::uapi::KFD_IOCTL_MINOR_VERSION;

use crate::memory::fresh_vram::FreshVram;
use crate::part::{ISA_ENV, PART_ENV, SimPart};
use crate::sanitizer::{SANITIZE_ENV, SanitizerConfig};
use crate::topology::MAX_GPUS;

pub use crate::kfd_version::MIN_KFD_MINOR_VERSION;

/// Environment variable that overrides [`SimConfig::threads`].
pub const THREADS_ENV: &str = "AQUEDUCT_SIM_THREADS";

/// Environment variable that overrides [`SimConfig::gpus`]: how many GPUs
/// (1 to 64).
pub const GPUS_ENV: &str = "AQUEDUCT_SIM_GPUS";

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

/// VRAM of an RX 7900 XTX: the most the default reports for that part.
pub const DEFAULT_VRAM_SIZE: u64 = 24 << 30;

/// The least VRAM the default reports, whatever the host has available
/// (the runtime's own rings and blit kernels need some).
pub const MIN_DEFAULT_VRAM_SIZE: u64 = 256 << 20;

/// Environment variable that overrides the default [`SimConfig::vram_size`]:
/// mebibytes per GPU.
pub const VRAM_MB_ENV: &str = "AQUEDUCT_SIM_VRAM_MB";

/// The most worker threads per GPU `AQUEDUCT_SIM_THREADS` may ask for: a
/// gfx1100 has 96 compute units, and each thread costs a stack and an LDS
/// copy, so more threads only cost memory.
pub const MAX_THREADS: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// The simulated part: its topology node, ISA and memory size. Every
    /// GPU of the device is this part.
    pub part: SimPart,
    /// Number of simulated GPUs (nodes 1..=gpus of the topology).
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
    /// The KFD interface version the device presents (GET_VERSION's minor
    /// number; the major is 1), from [`MIN_KFD_MINOR_VERSION`] to the UAPI's
    /// `KFD_IOCTL_MINOR_VERSION`. What a kernel of that version lacks is
    /// refused or ignored as that kernel does (`crates/gfxsim/src/kfd_version.rs`).
    pub kfd_minor_version: u32,
    /// The sanitizer tools every dispatch runs under (`sanitizer/`; off:
    /// none, and no cost).
    pub sanitize: SanitizerConfig,
    /// What a new VRAM BO holds: the driver's poison (the default) or
    /// zeros (`memory/fresh_vram.rs`).
    pub fresh_vram: FreshVram,
}

impl Default for SimConfig {
    /// The part `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` select (an RX 7900
    /// XTX when unset), as many GPUs as `AQUEDUCT_SIM_GPUS` says (one when
    /// unset), VRAM as `AQUEDUCT_SIM_VRAM_MB` says (else
    /// half the host's available memory, at most the part's), one worker thread per available
    /// host CPU unless `AQUEDUCT_SIM_THREADS` says otherwise, strict coherence as
    /// `AQUEDUCT_SIM_STRICT_COHERENCE` says (off when unset), a dispatch
    /// time limit as `AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS` says (30 s when unset),
    /// the sanitizer tools `AQUEDUCT_SIM_SANITIZE` names (none when unset),
    /// fresh VRAM as `AQUEDUCT_SIM_FRESH_VRAM` says (poison when unset).
    fn default() -> Self {
        let part = default_part();
        Self {
            part,
            gpus: default_gpus(),
            threads: default_threads(),
            vram_size: default_vram_size(part),
            strict_coherence: default_strict_coherence(),
            dispatch_timeout: default_dispatch_timeout(),
            kfd_minor_version: KFD_IOCTL_MINOR_VERSION,
            sanitize: default_sanitize(),
            fresh_vram: FreshVram::from_env(),
        }
    }
}

impl SimConfig {
    /// The default configuration with `part` in place of the one the
    /// environment selects, its VRAM sized for `part` as the default's is
    /// for its own.
    pub fn with_part(part: SimPart) -> Self {
        Self {
            part,
            vram_size: default_vram_size(part),
            ..Self::default()
        }
    }
}

/// The part `AQUEDUCT_SIM_PART` and `AQUEDUCT_SIM_ISA` select; values that
/// select none leave the RX 7900 XTX and say so on stderr (a program asked
/// for a part it does not get).
pub fn default_part() -> SimPart {
    SimPart::from_env().unwrap_or_else(|e| {
        eprintln!(
            "gfxsim: {e}; simulating the {} ({PART_ENV} and {ISA_ENV} are ignored)",
            SimPart::default()
        );
        SimPart::default()
    })
}

/// The tools `AQUEDUCT_SIM_SANITIZE` names; a list naming an unknown tool
/// turns the sanitizer off and says so on stderr (a program asked for
/// checks it does not get).
pub fn default_sanitize() -> SanitizerConfig {
    SanitizerConfig::from_env().unwrap_or_else(|e| {
        eprintln!("gfxsim: {SANITIZE_ENV}: {e}; the sanitizer is off");
        SanitizerConfig::off()
    })
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

/// `AQUEDUCT_SIM_GPUS` if set to a positive integer (more than 64, the
/// most a simulated system has, is 64, with a warning), else one.
pub fn default_gpus() -> usize {
    let Ok(text) = std::env::var(GPUS_ENV) else {
        return 1;
    };
    match parse_positive(&text) {
        Some(n) if n > MAX_GPUS => {
            tracing::warn!("{GPUS_ENV}={n} is more than {MAX_GPUS}; using {MAX_GPUS}");
            MAX_GPUS
        }
        Some(n) => n,
        None => {
            tracing::warn!("{GPUS_ENV}={text:?} is not a positive integer; using 1");
            1
        }
    }
}

/// `AQUEDUCT_SIM_THREADS` if set to a positive integer (at most
/// [`MAX_THREADS`]), else the host's available parallelism.
pub fn default_threads() -> usize {
    if let Ok(text) = std::env::var(THREADS_ENV) {
        match parse_positive(&text) {
            Some(n) if n > MAX_THREADS => {
                tracing::warn!("{THREADS_ENV}={n} is more than {MAX_THREADS}; using {MAX_THREADS}");
                return MAX_THREADS;
            }
            Some(n) => return n,
            None => tracing::warn!("{THREADS_ENV}={text:?} is not a positive integer; ignored"),
        }
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// A count (threads, GPUs) as the environment spells it: a positive
/// integer (unclamped); None otherwise.
fn parse_positive(text: &str) -> Option<usize> {
    text.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

/// `AQUEDUCT_SIM_VRAM_MB` if set to a positive number of mebibytes, else
/// half the host's available memory within [`MIN_DEFAULT_VRAM_SIZE`] and
/// the memory of `part` (see the module comment for why).
pub fn default_vram_size(part: SimPart) -> u64 {
    if let Ok(text) = std::env::var(VRAM_MB_ENV) {
        match text.trim().parse::<u64>() {
            Ok(mb) if mb > 0 => return mb.saturating_mul(1 << 20),
            _ => tracing::warn!("{VRAM_MB_ENV}={text:?} is not a positive number of MiB; ignored"),
        }
    }
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    vram_for_available(available, part.properties().hbm_size)
}

/// The default VRAM for a host with `available` bytes of memory available
/// and a part with `part_memory` bytes (None: unknown, the RX 7900 XTX's
/// 24 GiB), rounded down to a MiB.
fn vram_for_available(available: Option<u64>, part_memory: u64) -> u64 {
    match available {
        Some(bytes) => (bytes / 2).clamp(MIN_DEFAULT_VRAM_SIZE, part_memory) & !((1 << 20) - 1),
        None => DEFAULT_VRAM_SIZE.min(part_memory),
    }
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    kib.checked_mul(1024)
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
    use super::{
        DEFAULT_VRAM_SIZE, MIN_DEFAULT_VRAM_SIZE, mem_available, parse_positive, parse_switch,
        parse_timeout_ms, vram_for_available,
    };
    use std::time::Duration;

    #[test]
    fn thread_spellings() {
        assert_eq!(parse_positive(" 4 "), Some(4));
        assert_eq!(parse_positive("100000"), Some(100000));
        assert_eq!(parse_positive("0"), None);
        assert_eq!(parse_positive("-1"), None);
        assert_eq!(parse_positive("many"), None);
    }

    #[test]
    fn vram_is_half_the_available_host_memory() {
        let meminfo =
            "MemTotal:       24000000 kB\nMemFree:  1000 kB\nMemAvailable:   23068672 kB\n";
        assert_eq!(mem_available(meminfo), Some(23068672 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        let xtx = DEFAULT_VRAM_SIZE;
        // 22 GiB available: 11 GiB of VRAM, not the 24 GiB of the card.
        assert_eq!(vram_for_available(Some(22 << 30), xtx), 11 << 30);
        assert_eq!(vram_for_available(Some(256 << 30), xtx), DEFAULT_VRAM_SIZE);
        assert_eq!(
            vram_for_available(Some(64 << 20), xtx),
            MIN_DEFAULT_VRAM_SIZE
        );
        assert_eq!(vram_for_available(Some((3 << 30) + 12345), xtx), 3 << 29);
        assert_eq!(vram_for_available(None, xtx), DEFAULT_VRAM_SIZE);
        // An MI300X's 192 GiB bound a large host; a gfx90a GCD's 64 GiB too.
        assert_eq!(vram_for_available(Some(1 << 40), 192 << 30), 192 << 30);
        assert_eq!(vram_for_available(Some(256 << 30), 192 << 30), 128 << 30);
        assert_eq!(vram_for_available(Some(256 << 30), 64 << 30), 64 << 30);
    }

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
