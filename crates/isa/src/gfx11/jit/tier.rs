//! When blocks are translated: the process-wide mode (`AQUEDUCT_SIM_JIT`,
//! [`force_jit`]) and, per worker, each block's entry counter and the
//! translation it runs once hot ([`Tiers`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Environment variable that selects the translator: `0` (or `off`) turns it
/// off, `always` translates every block at its first entry, anything else
/// (or unset) translates blocks once they are hot.
pub const JIT_ENV: &str = "AQUEDUCT_SIM_JIT";

/// When blocks are translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitMode {
    /// Never: every block runs in the interpreter.
    Off = 0,
    /// Once a worker has entered a block `HOT_ENTRIES` (64) times, if the
    /// translation pays (most of the block runs inline).
    Tiered = 1,
    /// At a block's first entry, and run even where interpreting would be
    /// faster (threshold 0; what the tests force).
    Always = 2,
}

/// Entries of a block (per worker) before it is translated. Translating a
/// block costs about as much as interpreting a few hundred of its
/// instructions (`cargo bench --bench gfxsim` prints both), so a block
/// entered this often has paid for it.
pub const HOT_ENTRIES: u32 = 64;

impl JitMode {
    fn from_u8(v: u8) -> JitMode {
        match v {
            0 => JitMode::Off,
            1 => JitMode::Tiered,
            _ => JitMode::Always,
        }
    }

    /// Block entries before translation (`u32::MAX`: never).
    pub fn threshold(self) -> u32 {
        match self {
            JitMode::Off => u32::MAX,
            JitMode::Tiered => HOT_ENTRIES,
            JitMode::Always => 0,
        }
    }
}

/// An `AQUEDUCT_SIM_JIT` value's mode.
fn parse(text: &str) -> JitMode {
    match text.trim().to_ascii_lowercase().as_str() {
        "0" | "off" | "false" | "no" => JitMode::Off,
        "always" => JitMode::Always,
        _ => JitMode::Tiered,
    }
}

/// The mode `AQUEDUCT_SIM_JIT` selects (tiered when unset); off in a build
/// without the `jit` feature.
fn configured() -> JitMode {
    static CONFIGURED: OnceLock<JitMode> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
        if !cfg!(feature = "jit") {
            return JitMode::Off;
        }
        std::env::var(JIT_ENV)
            .ok()
            .map_or(JitMode::Tiered, |v| parse(&v))
    })
}

/// No mode forced ([`force_jit`]).
const UNFORCED: u8 = u8::MAX;
static FORCED: AtomicU8 = AtomicU8::new(UNFORCED);

/// Run with `mode` instead of the configured one (None: back to it), for
/// the whole process; it takes effect at each worker's next workgroup batch.
/// Lets tests and benchmarks compare the translator with the interpreter.
/// Without the `jit` feature every mode runs as `Off`.
#[doc(hidden)]
pub fn force_jit(mode: Option<JitMode>) {
    FORCED.store(mode.map_or(UNFORCED, |m| m as u8), Ordering::Relaxed);
}

/// The mode in effect now.
pub fn jit_mode() -> JitMode {
    if !cfg!(feature = "jit") {
        return JitMode::Off;
    }
    match FORCED.load(Ordering::Relaxed) {
        UNFORCED => configured(),
        forced => JitMode::from_u8(forced),
    }
}

#[cfg(feature = "jit")]
pub(crate) use per_worker::Tiers;

#[cfg(feature = "jit")]
mod per_worker {
    use std::sync::Arc;

    use super::super::abi::{BlockFn, Callout, callout};
    use super::super::translate::{Translation, translate};
    use super::jit_mode;
    use crate::gfx11::code_cache::{Block, CodeCache};

    /// One block's tier on one worker.
    #[derive(Default)]
    struct Tier {
        /// Entries so far (counted up to the threshold).
        entries: u32,
        /// The translation's entry point, once there is one.
        func: Option<BlockFn>,
        /// Keeps the machine code of `func` alive while this worker may run it.
        _code: Option<Arc<Translation>>,
        /// Translation failed or does not pay ([`Translation::pays`]): the
        /// block stays in the interpreter.
        failed: bool,
    }

    /// A worker's tiers, parallel to its private blocks (worker.rs).
    pub(crate) struct Tiers {
        tiers: Vec<Tier>,
        threshold: u32,
        callout: Callout,
    }

    impl Default for Tiers {
        fn default() -> Self {
            Tiers {
                tiers: Vec::new(),
                threshold: u32::MAX,
                callout: callout(crate::wave_loop()),
            }
        }
    }

    impl Tiers {
        /// Forget every block (the worker's private blocks were dropped).
        pub(crate) fn clear(&mut self) {
            self.tiers.clear();
        }

        /// Take the mode and wave-loop level in effect now.
        pub(crate) fn configure(&mut self) {
            self.threshold = jit_mode().threshold();
            self.callout = callout(crate::wave_loop());
        }

        /// A block was added to the worker's private list.
        pub(crate) fn push(&mut self) {
            self.tiers.push(Tier::default());
        }

        /// Count an entry of block `idx` (`block`, which the worker took
        /// from `cache` at generation `generation`) by a wave32 wave, and
        /// give its translation if it has one (translating it now if this
        /// entry makes it hot).
        #[inline]
        pub(crate) fn enter(
            &mut self,
            idx: u32,
            block: &Block,
            cache: &CodeCache,
            generation: u64,
        ) -> Option<(BlockFn, Callout)> {
            let t = &mut self.tiers[idx as usize];
            if let Some(f) = t.func {
                return Some((f, self.callout));
            }
            if t.entries < self.threshold {
                t.entries += 1;
                return None;
            }
            self.tier_up(idx, block, cache, generation)
        }

        #[cold]
        fn tier_up(
            &mut self,
            idx: u32,
            block: &Block,
            cache: &CodeCache,
            generation: u64,
        ) -> Option<(BlockFn, Callout)> {
            let t = &mut self.tiers[idx as usize];
            if t.failed {
                return None;
            }
            let code = match cache.translation(block.start, generation) {
                Some(code) => code,
                None => match translate(block) {
                    Ok(code) => {
                        tracing::debug!(
                            "translated the block at {:#x}: {} of {} entries inline",
                            block.start,
                            code.inlined,
                            block.compiled.len()
                        );
                        let code = Arc::new(code);
                        cache.keep_translation(block, &code, generation);
                        code
                    }
                    Err(e) => {
                        tracing::debug!("block at {:#x} stays interpreted: {e}", block.start);
                        t.failed = true;
                        return None;
                    }
                },
            };
            // `always` (threshold 0) runs every translation, so the tests
            // exercise each one.
            if self.threshold > 0 && !code.pays() {
                t.failed = true;
                return None;
            }
            t.func = Some(code.func());
            t._code = Some(code);
            t.func.map(|f| (f, self.callout))
        }
    }
}
