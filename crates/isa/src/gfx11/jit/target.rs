//! Which x86-64 CPU the LLVM back end compiles translations for.
//!
//! By default a translation is compiled for the host's own CPU with every
//! feature it has (`-march=native`). The generic CPU of one of the wave
//! loop's levels (wave_loop.rs) can be picked instead: `baseline` is
//! x86-64 (SSE2), `avx2` x86-64-v3 (AVX2, FMA, F16C, BMI1/2, LZCNT,
//! MOVBE) and `avx512` x86-64-v4 (x86-64-v3 with AVX-512 F, BW, CD, DQ,
//! VL), as the x86-64 psABI defines the levels. That is the code an older
//! or AVX2-only host (AMD Zen 2 and 3, Intel before Skylake-SP: most CI
//! runners) compiles, run here on a CPU that has more: the differential
//! tests run translations at every level the host runs, not only at its
//! own.
//!
//! The IR of a block differs by target only where an inline form needs
//! an instruction the target may lack: the f16 conversions are F16C's
//! instructions (as the interpreter's are), so without F16C (the
//! baseline) those forms stay call-outs, as on a host without it.
//!
//! `AQUEDUCT_SIM_JIT_TARGET` (`host`, `baseline`, `avx2`, `avx512`) picks
//! the target for the process; a level the CPU cannot run gives the
//! host's own, with a warning. [`force_jit_target`] changes it for
//! translations made from then on; translations made already keep theirs
//! (each runs on this CPU either way).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::WaveLoop;

/// Environment variable that picks the CPU translations are compiled
/// for: `host` (the default) or a wave-loop level's name.
pub const JIT_TARGET_ENV: &str = "AQUEDUCT_SIM_JIT_TARGET";

/// The CPU the LLVM back end compiles translations for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JitTarget {
    /// The host's own CPU, with every feature it has.
    Host,
    /// The generic x86-64 CPU of a wave-loop level: x86-64, x86-64-v3 or
    /// x86-64-v4.
    Level(WaveLoop),
}

impl JitTarget {
    /// Every target, the host's first, then the levels from the lowest.
    pub const ALL: [JitTarget; 4] = [
        JitTarget::Host,
        JitTarget::Level(WaveLoop::Baseline),
        JitTarget::Level(WaveLoop::Avx2),
        JitTarget::Level(WaveLoop::Avx512),
    ];

    /// The name `AQUEDUCT_SIM_JIT_TARGET` gives it.
    pub fn name(self) -> &'static str {
        match self {
            JitTarget::Host => "host",
            JitTarget::Level(level) => level.name(),
        }
    }

    /// LLVM's name of the generic CPU (None: the host's own).
    pub fn cpu(self) -> Option<&'static str> {
        match self {
            JitTarget::Host => None,
            JitTarget::Level(WaveLoop::Baseline) => Some("x86-64"),
            JitTarget::Level(WaveLoop::Avx2) => Some("x86-64-v3"),
            JitTarget::Level(WaveLoop::Avx512) => Some("x86-64-v4"),
        }
    }

    /// Can this host run code compiled for it? The levels' features are
    /// the psABI's lists (x86-64-v2's are part of x86-64-v3's).
    pub fn runs_here(self) -> bool {
        match self {
            JitTarget::Host => true,
            JitTarget::Level(level) => level_runs_here(level),
        }
    }

    /// The targets this host runs, the host's own first.
    pub fn all_here() -> Vec<JitTarget> {
        JitTarget::ALL
            .into_iter()
            .filter(|t| t.runs_here())
            .collect()
    }

    /// Does code for this target have F16C (the f16 conversions inline)?
    #[cfg_attr(not(all(feature = "llvm-jit", unix)), allow(dead_code))]
    pub(crate) fn has_f16c(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            JitTarget::Host => std::arch::is_x86_feature_detected!("f16c"),
            // LLVM's half conversions elsewhere are the CPU's own IEEE ones.
            #[cfg(not(target_arch = "x86_64"))]
            JitTarget::Host => true,
            JitTarget::Level(level) => level >= WaveLoop::Avx2,
        }
    }

    /// Does code for this target have AVX2's gather instructions?
    #[cfg_attr(not(all(feature = "llvm-jit", unix)), allow(dead_code))]
    pub(crate) fn has_gathers(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            JitTarget::Host => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            JitTarget::Host => false,
            JitTarget::Level(level) => level >= WaveLoop::Avx2,
        }
    }

    fn index(self) -> u8 {
        match self {
            JitTarget::Host => 0,
            JitTarget::Level(level) => 1 + level as u8,
        }
    }

    fn from_index(v: u8) -> JitTarget {
        JitTarget::ALL
            .into_iter()
            .find(|t| t.index() == v)
            .unwrap_or(JitTarget::Host)
    }

    /// Index into a table of one entry per target.
    #[cfg_attr(not(all(feature = "llvm-jit", unix)), allow(dead_code))]
    pub(crate) fn slot(self) -> usize {
        self.index() as usize
    }
}

#[cfg(target_arch = "x86_64")]
fn level_runs_here(level: WaveLoop) -> bool {
    use std::arch::is_x86_feature_detected as has;
    let v3 = || {
        has!("sse3")
            && has!("ssse3")
            && has!("sse4.1")
            && has!("sse4.2")
            && has!("popcnt")
            && has!("cmpxchg16b")
            && has!("avx")
            && has!("avx2")
            && has!("bmi1")
            && has!("bmi2")
            && has!("f16c")
            && has!("fma")
            && has!("lzcnt")
            && has!("movbe")
    };
    match level {
        WaveLoop::Baseline => true,
        WaveLoop::Avx2 => v3(),
        WaveLoop::Avx512 => {
            v3() && has!("avx512f")
                && has!("avx512bw")
                && has!("avx512cd")
                && has!("avx512dq")
                && has!("avx512vl")
        }
    }
}

/// The generic x86-64 CPUs run nowhere else.
#[cfg(not(target_arch = "x86_64"))]
fn level_runs_here(_: WaveLoop) -> bool {
    false
}

/// An `AQUEDUCT_SIM_JIT_TARGET` value's target; None if it names none.
fn parse(text: &str) -> Option<JitTarget> {
    let text = text.trim().to_ascii_lowercase();
    JitTarget::ALL.into_iter().find(|t| t.name() == text)
}

/// The target a request (the variable's value, if set) gives on this
/// host, and whether it is the one asked for.
fn select(request: Option<&str>, runs: impl Fn(JitTarget) -> bool) -> (JitTarget, bool) {
    match request.map(parse) {
        None => (JitTarget::Host, true),
        Some(Some(t)) if runs(t) => (t, true),
        Some(_) => (JitTarget::Host, false),
    }
}

/// The target `AQUEDUCT_SIM_JIT_TARGET` picks (the host's when unset).
fn configured() -> JitTarget {
    static CONFIGURED: OnceLock<JitTarget> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
        let request = std::env::var(JIT_TARGET_ENV).ok();
        let (target, as_asked) = select(request.as_deref(), JitTarget::runs_here);
        if !as_asked {
            tracing::warn!(
                "{JIT_TARGET_ENV}={request:?} is not host/baseline/avx2/avx512 or this CPU \
                 cannot run it; translating for the host's own CPU"
            );
        }
        target
    })
}

/// No target forced ([`force_jit_target`]).
const UNFORCED: u8 = u8::MAX;
static FORCED: AtomicU8 = AtomicU8::new(UNFORCED);

/// Compile translations for `target` (one this host runs; any other
/// gives the host's own) instead of the configured one (None: back to
/// it), from the next translation the process makes. For tests.
#[doc(hidden)]
pub fn force_jit_target(target: Option<JitTarget>) {
    FORCED.store(target.map_or(UNFORCED, JitTarget::index), Ordering::Relaxed);
}

/// The target translations are compiled for now.
pub fn jit_target() -> JitTarget {
    match FORCED.load(Ordering::Relaxed) {
        UNFORCED => configured(),
        forced => Some(JitTarget::from_index(forced))
            .filter(|t| t.runs_here())
            .unwrap_or(JitTarget::Host),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_name_a_target_the_host_runs_or_get_the_hosts() {
        let all = |_: JitTarget| true;
        let none_but_host = |t: JitTarget| t == JitTarget::Host;
        assert_eq!(select(None, all), (JitTarget::Host, true));
        assert_eq!(
            select(Some(" AVX2 "), all),
            (JitTarget::Level(WaveLoop::Avx2), true)
        );
        assert_eq!(
            select(Some("avx2"), none_but_host),
            (JitTarget::Host, false)
        );
        assert_eq!(select(Some("native"), all), (JitTarget::Host, false));
        for t in JitTarget::ALL {
            assert_eq!(parse(t.name()), Some(t));
            assert_eq!(JitTarget::from_index(t.index()), t);
            assert!(t.slot() < JitTarget::ALL.len());
        }
    }

    #[test]
    fn the_levels_are_the_psabi_cpus() {
        let cpus: Vec<_> = JitTarget::ALL.iter().map(|t| t.cpu()).collect();
        assert_eq!(
            cpus,
            [None, Some("x86-64"), Some("x86-64-v3"), Some("x86-64-v4")]
        );
        // Only x86-64-v3 and up have F16C.
        assert!(!JitTarget::Level(WaveLoop::Baseline).has_f16c());
        assert!(JitTarget::Level(WaveLoop::Avx2).has_f16c());
        assert!(JitTarget::Level(WaveLoop::Avx512).has_f16c());
        // The host runs its own code, and a level runs where the next one up does.
        assert!(JitTarget::Host.runs_here());
        let here = JitTarget::all_here();
        assert_eq!(here[0], JitTarget::Host);
        if here.contains(&JitTarget::Level(WaveLoop::Avx512)) {
            assert!(here.contains(&JitTarget::Level(WaveLoop::Avx2)));
        }
        #[cfg(target_arch = "x86_64")]
        assert!(here.contains(&JitTarget::Level(WaveLoop::Baseline)));
    }
}
