//! Which compilation of the wave loop runs.
//!
//! The wave loop and the pre-resolved forms it inlines (`Dispatch::run_batch`)
//! are compiled for three x86-64 levels: the baseline (SSE2: 4 lanes of a
//! 32-lane row per vector instruction), AVX2 with FMA (8) and AVX-512 as
//! x86-64-v4 defines it (F, BW, CD, DQ, VL: 16 lanes, and mask registers for
//! the EXEC-masked writes and lane compares), also with FMA, so that the
//! fused multiply-adds the loop inlines (`mul_add`) compile to the host's
//! FMA instructions instead of libm calls. The level is chosen once per
//! process: by default the best the CPU has, except that AVX-512 runs only
//! where 512-bit work does not lower the core clock ([`default_level`]);
//! `AQUEDUCT_SIM_WAVE_LOOP` picks another level the CPU has, and tests pick
//! each in turn ([`force_wave_loop`]). Integer and IEEE float operations
//! give the same bits at every level: only how many lanes one host
//! instruction handles changes. The
//! big out-of-line bodies the loop calls (the general VALU path, WMMA,
//! scratch) have an AVX2 copy only, taken at AVX2 and above
//! ([`with_avx2_copy`]).
//!
//! Each copy lengthens the build: the wave loop is one large function,
//! optimised once per level. So debug builds (the dev profile the
//! tests use) compile the baseline and AVX2 copies only and run AVX2 where
//! the CPU has AVX-512; optimised builds compile all three. aqueduct-isa's
//! own unit tests compile the baseline alone (`COMPILED`); the emulator's
//! levels are compared by the tests of the crates above it.
//!
//! Other hosts (aarch64) run the baseline compilation.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Environment variable that picks the wave loop's compilation: `baseline`,
/// `avx2` or `avx512` (a level the CPU lacks gives the best it has; unset:
/// [`default_level`]).
pub const WAVE_LOOP_ENV: &str = "AQUEDUCT_SIM_WAVE_LOOP";

/// A compilation of the wave loop, from the baseline up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WaveLoop {
    Baseline = 0,
    Avx2 = 1,
    Avx512 = 2,
}

impl WaveLoop {
    /// Every level, lowest first.
    pub const ALL: [WaveLoop; 3] = [WaveLoop::Baseline, WaveLoop::Avx2, WaveLoop::Avx512];

    /// The level's name as `AQUEDUCT_SIM_WAVE_LOOP` spells it.
    pub fn name(self) -> &'static str {
        match self {
            WaveLoop::Baseline => "baseline",
            WaveLoop::Avx2 => "avx2",
            WaveLoop::Avx512 => "avx512",
        }
    }

    fn from_u8(v: u8) -> WaveLoop {
        match v {
            0 => WaveLoop::Baseline,
            1 => WaveLoop::Avx2,
            _ => WaveLoop::Avx512,
        }
    }

    /// The best level this host's CPU runs and this build has a copy of
    /// the wave loop for: optimised builds have all three, debug builds
    /// stop at AVX2 (the module's documentation says why).
    pub fn host_best() -> WaveLoop {
        static BEST: OnceLock<WaveLoop> = OnceLock::new();
        *BEST.get_or_init(|| detect().min(COMPILED))
    }
}

/// The highest level this build compiles the wave loop for: all three in
/// optimised builds, AVX2 at most in debug builds, the baseline alone in
/// this crate's unit tests (the module comment says why).
#[cfg(all(not(debug_assertions), not(test)))]
pub(crate) const COMPILED: WaveLoop = WaveLoop::Avx512;
#[cfg(all(debug_assertions, not(test)))]
pub(crate) const COMPILED: WaveLoop = WaveLoop::Avx2;
#[cfg(test)]
pub(crate) const COMPILED: WaveLoop = WaveLoop::Baseline;

/// The level that runs by default on a CPU whose best level is `best`:
/// `best`, but AVX2 instead of AVX-512 where `wide_is_cheap` is false.
///
/// Skylake-SP, Cascade Lake and Cooper Lake lower a core's clock while it
/// runs dense 512-bit work, the more so the more cores do. Measured with
/// saxpy over 16M elements (`cargo bench --bench gfxsim -- --saxpy-only
/// 16777216 8 --threads T`, best times) on a Cascade Lake host, AVX2 took
/// 1-3% less time than AVX-512 on one thread and 3-10% less on two; on a
/// Sapphire Rapids host AVX-512 took about 10% less on one thread and on
/// 16. LLVM's own tuning makes the same split (it prefers 256-bit vectors
/// on the first three). The CPUs that have AVX-512 IFMA (Ice Lake and
/// later, AMD Zen 4 and later) are the ones without that penalty, hence
/// the test.
pub fn default_level(best: WaveLoop, wide_is_cheap: bool) -> WaveLoop {
    if best == WaveLoop::Avx512 && !wide_is_cheap {
        WaveLoop::Avx2
    } else {
        best
    }
}

/// Whether this CPU runs 512-bit work at full clock ([`default_level`]).
#[cfg(target_arch = "x86_64")]
fn wide_is_cheap() -> bool {
    std::arch::is_x86_feature_detected!("avx512ifma")
}

#[cfg(not(target_arch = "x86_64"))]
fn wide_is_cheap() -> bool {
    false
}

/// The features tested here are the ones `Dispatch::run_batch_avx512` and
/// `Dispatch::run_batch_avx2` (dispatch.rs) and [`with_avx2_copy`] enable:
/// their SAFETY rests on the lists being equal.
#[cfg(target_arch = "x86_64")]
fn detect() -> WaveLoop {
    use std::arch::is_x86_feature_detected as has;
    if has!("avx512f")
        && has!("avx512bw")
        && has!("avx512cd")
        && has!("avx512dq")
        && has!("avx512vl")
        && has!("fma")
    {
        WaveLoop::Avx512
    } else if has!("avx2") && has!("fma") {
        WaveLoop::Avx2
    } else {
        WaveLoop::Baseline
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> WaveLoop {
    WaveLoop::Baseline
}

/// An `AQUEDUCT_SIM_WAVE_LOOP` value; None if it names no level.
fn parse(text: &str) -> Option<WaveLoop> {
    let text = text.trim().to_ascii_lowercase();
    WaveLoop::ALL.into_iter().find(|l| l.name() == text)
}

/// Why a requested level was not taken as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unmet {
    /// Not a level's name: the default runs.
    Unknown,
    /// A level the CPU lacks: its best runs instead.
    AboveHost { best: WaveLoop },
}

/// The level a request (`AQUEDUCT_SIM_WAVE_LOOP`'s value, if set) gives on a
/// host whose best is `best`, and why it differs from the request if it does.
fn select(request: Option<&str>, best: WaveLoop, default: WaveLoop) -> (WaveLoop, Option<Unmet>) {
    let Some(text) = request else {
        return (default, None);
    };
    match parse(text) {
        None => (default, Some(Unmet::Unknown)),
        Some(level) if level > best => (best, Some(Unmet::AboveHost { best })),
        Some(level) => (level, None),
    }
}

/// The level `AQUEDUCT_SIM_WAVE_LOOP` picks (at most the host's best), or
/// [`default_level`] when it is unset.
fn configured() -> WaveLoop {
    static CONFIGURED: OnceLock<WaveLoop> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
        let best = WaveLoop::host_best();
        let default = default_level(best, wide_is_cheap());
        let request = std::env::var(WAVE_LOOP_ENV).ok();
        let (level, unmet) = select(request.as_deref(), best, default);
        match unmet {
            Some(Unmet::Unknown) => tracing::warn!(
                "{WAVE_LOOP_ENV}={request:?} is not baseline/avx2/avx512; using {}",
                level.name()
            ),
            Some(Unmet::AboveHost { best }) => tracing::warn!(
                "{WAVE_LOOP_ENV}={request:?} asks for more than this CPU has; using {}",
                best.name()
            ),
            None => {}
        }
        level
    })
}

/// No level forced ([`force_wave_loop`]).
const UNFORCED: u8 = u8::MAX;
/// The level set by [`force_wave_loop`], or `UNFORCED`.
static FORCED: AtomicU8 = AtomicU8::new(UNFORCED);

/// Run waves at `level` (at most the host's best) instead of the configured
/// level; None goes back to it. Lets tests check that every level computes
/// the same. It applies to the whole process.
#[doc(hidden)]
pub fn force_wave_loop(level: Option<WaveLoop>) {
    FORCED.store(level.map_or(UNFORCED, |l| l as u8), Ordering::Relaxed);
}

/// The level waves run at now.
#[inline]
pub fn wave_loop() -> WaveLoop {
    match FORCED.load(Ordering::Relaxed) {
        UNFORCED => configured(),
        forced => WaveLoop::from_u8(forced).min(WaveLoop::host_best()),
    }
}

/// `$vis fn $name($args) -> $ret` that runs `$here` (an `#[inline(always)]`
/// body) through an AVX2-compiled copy where [`wave_loop`]'s level is AVX2
/// or above, else as compiled for the baseline: for the emulator's
/// out-of-line parts (big bodies the wave loop calls rather than inlines),
/// so that they follow the wave loop's level, caps included. No AVX-512
/// copy: each of those bodies (the general VALU path, WMMA, scratch) is a
/// small share of the run time, and a third copy lengthens the build.
macro_rules! with_avx2_copy {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty => $here:ident) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(all(target_arch = "x86_64", not(test)))]
            {
                use $crate::wave_loop::{WaveLoop, wave_loop};
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) -> $ret {
                    $here($($arg),*)
                }
                if wave_loop() >= WaveLoop::Avx2 {
                    // SAFETY: wave_loop() gives Avx2 or above only where the CPU has AVX2 and FMA.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $here($($arg),*)
        }
    };
}
pub(crate) use with_avx2_copy;

#[cfg(test)]
mod tests {
    use super::{Unmet, WaveLoop, default_level, parse, select};

    #[test]
    fn requests_past_the_host_fall_back_and_say_so() {
        let (best, default) = (WaveLoop::Avx2, WaveLoop::Avx2);
        assert_eq!(
            select(Some("avx512"), best, default),
            (WaveLoop::Avx2, Some(Unmet::AboveHost { best }))
        );
        assert_eq!(
            select(Some("baseline"), best, default),
            (WaveLoop::Baseline, None)
        );
        assert_eq!(
            select(Some("sse9"), best, default),
            (default, Some(Unmet::Unknown))
        );
        assert_eq!(
            select(None, best, WaveLoop::Baseline),
            (WaveLoop::Baseline, None)
        );
    }

    /// AVX-512 runs by default only where it is cheap; every other level is
    /// the CPU's best.
    #[test]
    fn default_level_avoids_costly_avx512() {
        use WaveLoop::*;
        assert_eq!(default_level(Avx512, true), Avx512);
        assert_eq!(default_level(Avx512, false), Avx2);
        for cheap in [false, true] {
            assert_eq!(default_level(Avx2, cheap), Avx2);
            assert_eq!(default_level(Baseline, cheap), Baseline);
        }
    }

    #[test]
    fn env_spellings() {
        assert_eq!(parse("avx2"), Some(WaveLoop::Avx2));
        assert_eq!(parse(" AVX512 "), Some(WaveLoop::Avx512));
        assert_eq!(parse("baseline"), Some(WaveLoop::Baseline));
        assert_eq!(parse("sse2"), None);
        assert_eq!(parse(""), None);
    }
}
