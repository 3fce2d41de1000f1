//! When blocks are translated and by which back end: the process-wide mode
//! (`AQUEDUCT_SIM_JIT`, [`force_jit`]), the back end
//! (`AQUEDUCT_SIM_JIT_BACKEND`, [`force_jit_backend`]) and, per worker,
//! each block's entry counter and the translation it runs once hot
//! ([`Tiers`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Environment variable that selects the translator: `0` (or `off`) turns it
/// off, `always` translates every block at its first entry, `eager` every
/// block that pays from its second entry in the background, anything else
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
    /// As `Tiered` (in the background, only where the translation pays),
    /// from a block's second entry (threshold 1): the state a kernel
    /// dispatched again and again reaches once each block it enters has
    /// been entered `HOT_ENTRIES` times, without the dispatches that takes
    /// (a block of the corpus's private_sort is entered a few times per
    /// dispatch). The corpus benchmark settles its kernels with it.
    Eager = 3,
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
            3 => JitMode::Eager,
            _ => JitMode::Always,
        }
    }

    /// Block entries before translation (`u32::MAX`: never).
    pub fn threshold(self) -> u32 {
        match self {
            JitMode::Off => u32::MAX,
            JitMode::Tiered => HOT_ENTRIES,
            JitMode::Always => 0,
            JitMode::Eager => 1,
        }
    }
}

/// An `AQUEDUCT_SIM_JIT` value's mode.
fn parse(text: &str) -> JitMode {
    match text.trim().to_ascii_lowercase().as_str() {
        "0" | "off" | "false" | "no" => JitMode::Off,
        "always" => JitMode::Always,
        "eager" => JitMode::Eager,
        _ => JitMode::Tiered,
    }
}

/// The mode `AQUEDUCT_SIM_JIT` selects (tiered when unset).
fn configured() -> JitMode {
    static CONFIGURED: OnceLock<JitMode> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
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
/// Without a back end ([`jit_backend`]) every mode runs as `Off`.
#[doc(hidden)]
pub fn force_jit(mode: Option<JitMode>) {
    FORCED.store(mode.map_or(UNFORCED, |m| m as u8), Ordering::Relaxed);
}

/// The mode in effect now (off when no back end is available).
pub fn jit_mode() -> JitMode {
    if jit_backend().is_none() {
        return JitMode::Off;
    }
    match FORCED.load(Ordering::Relaxed) {
        UNFORCED => configured(),
        forced => JitMode::from_u8(forced),
    }
}

/// Environment variable that selects the back end: `llvm` or `cranelift`.
/// Unset: LLVM when libLLVM-19 loads, else Cranelift when built in.
pub const JIT_BACKEND_ENV: &str = "AQUEDUCT_SIM_JIT_BACKEND";

/// Which code generator translates blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JitBackend {
    /// LLVM IR compiled in process by libLLVM-19 at run time (feature
    /// `llvm-jit`; needs the library on the host).
    Llvm = 0,
    /// Cranelift, linked in (feature `jit`).
    Cranelift = 1,
}

impl JitBackend {
    /// Can this back end run in this build on this host?
    pub fn available(self) -> bool {
        match self {
            #[cfg(all(feature = "llvm-jit", unix))]
            JitBackend::Llvm => super::llvm::available(),
            JitBackend::Cranelift => cfg!(feature = "jit"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    fn from_u8(v: u8) -> JitBackend {
        if v == 0 {
            JitBackend::Llvm
        } else {
            JitBackend::Cranelift
        }
    }
}

/// The back end `AQUEDUCT_SIM_JIT_BACKEND` asks for, falling back to the
/// other one when it is unavailable (None: neither is).
fn configured_backend() -> Option<JitBackend> {
    static CONFIGURED: OnceLock<Option<JitBackend>> = OnceLock::new();
    *CONFIGURED.get_or_init(|| {
        let asked = std::env::var(JIT_BACKEND_ENV).ok();
        let order = match asked.as_deref().map(str::trim) {
            Some("cranelift") => [JitBackend::Cranelift, JitBackend::Llvm],
            _ => [JitBackend::Llvm, JitBackend::Cranelift],
        };
        let pick = order.into_iter().find(|b| b.available());
        if let Some(a) = asked
            && pick.is_none_or(|p| !a.trim().eq_ignore_ascii_case(&format!("{p:?}")))
        {
            tracing::info!("{JIT_BACKEND_ENV}={a}: translating with {pick:?}");
        }
        pick
    })
}

static FORCED_BACKEND: AtomicU8 = AtomicU8::new(UNFORCED);

/// Translate with `backend` instead of the configured one (None: back to
/// it), for the whole process, from each worker's next workgroup batch; an
/// unavailable back end means no translation. For tests and benchmarks.
#[doc(hidden)]
pub fn force_jit_backend(backend: Option<JitBackend>) {
    FORCED_BACKEND.store(backend.map_or(UNFORCED, |b| b as u8), Ordering::Relaxed);
}

/// The back end in effect now (None: blocks are interpreted).
pub fn jit_backend() -> Option<JitBackend> {
    match FORCED_BACKEND.load(Ordering::Relaxed) {
        UNFORCED => configured_backend(),
        forced => Some(JitBackend::from_u8(forced)).filter(|b| b.available()),
    }
}

#[cfg(feature = "llvm-jit")]
pub(crate) use per_worker::{Entered, Tiers};

#[cfg(feature = "llvm-jit")]
mod per_worker {
    use std::sync::Arc;

    use super::super::abi::{BlockFn, Callout, PairFn, callout};
    use super::super::region;
    use super::super::shared::{Slot, translations_made};
    use super::super::translation::{Translation, worth_translating};
    use super::{JitBackend, jit_backend, jit_mode};
    use crate::gfx11::code_cache::{Block, CodeCache};
    use crate::gfx11::paused_time::PausedTime;

    /// What the wave loop runs for a block with a translation: its entry
    /// point, the call-out it calls, the region's member blocks, head
    /// first (empty for a translation of the block alone), and the block's
    /// index among them (0 for the head or a block alone); the members
    /// live while the worker holds the translation (until its blocks are
    /// dropped).
    pub(crate) type Entered = (BlockFn, Callout, *const [Arc<Block>], u32);

    /// One block's tier on one worker.
    #[derive(Default)]
    struct Tier {
        /// Entries so far (counted up to the threshold).
        entries: u32,
        /// The translation's entry point and the members of `code`
        /// (`Translation::members`), once there is one: kept side by side so
        /// an entry reads both from this slot, without going through
        /// `code` (a miss less per block entry).
        running: Option<(BlockFn, Members)>,
        /// The translation `running` (and its two-wave entry point) come from;
        /// keeps their machine code alive while this worker may run it.
        code: Option<Arc<Translation>>,
        /// The translation being made (a background compile).
        pending: Option<Arc<Slot>>,
        /// Translation failed or does not pay ([`Translation::pays`]): the
        /// block stays in the interpreter.
        failed: bool,
        /// The block's member index in the region `code` (or `pending`)
        /// translates: 0 for its head or a block alone.
        member: u32,
        /// The region another block heads with this one as a member failed
        /// or does not pay for it: it heads its own.
        alone: bool,
        /// An entry looked for a translation to adopt ([`Tiers::adopt`])
        /// since the tiers last found new translations made
        /// ([`Tiers::configure`]).
        looked: bool,
    }

    /// A translation's members as [`Tier::running`] holds them: a pointer
    /// into the `Translation` the same tier holds (`Tier::code`), set
    /// with it.
    struct Members(*const [Arc<Block>]);

    // SAFETY: the pointer is into a `Translation` the same `Tier` holds
    // through an `Arc` (Send and Sync) and never mutates; moving the tier
    // to another thread moves that `Arc` with it.
    unsafe impl Send for Members {}

    /// A worker's tiers, parallel to its private blocks (worker.rs): one
    /// list for wave32 entries, one for wave64 (each size has its own
    /// translation of a block).
    pub(crate) struct Tiers {
        tiers: [Vec<Tier>; 2],
        threshold: u32,
        callout: Callout,
        backend: Option<JitBackend>,
        /// [`translations_made`] when the blocks' `looked` flags were last
        /// cleared.
        made: u64,
    }

    impl Default for Tiers {
        fn default() -> Self {
            Tiers {
                tiers: [Vec::new(), Vec::new()],
                threshold: u32::MAX,
                callout: callout(crate::wave_loop()),
                backend: None,
                made: 0,
            }
        }
    }

    impl Tiers {
        /// Forget every block (the worker's private blocks were dropped).
        pub(crate) fn clear(&mut self) {
            self.tiers.iter_mut().for_each(Vec::clear);
        }

        /// Take the mode, back end and wave-loop level in effect now.
        pub(crate) fn configure(&mut self) {
            let mode = jit_mode();
            self.threshold = mode.threshold();
            self.callout = callout(crate::wave_loop());
            // Off runs no translation, not even one made before.
            let backend = jit_backend().filter(|_| mode != super::JitMode::Off);
            if backend != self.backend {
                // Translations of the other back end (or of none) are not
                // this one's; the shared ones come back from the code cache
                // at the blocks' next entries (each block's first looks for
                // one). The entry counts stay (no back end counts none): a
                // block that was warming up when the translator was turned
                // off goes on from where it was, rather than counting from
                // nothing each time it is turned on again.
                for t in self.tiers.iter_mut().flatten() {
                    *t = Tier {
                        entries: t.entries,
                        ..Tier::default()
                    };
                }
                self.backend = backend;
            }
            // A block looks for a translation to adopt at its first entry;
            // one made since (by another worker, while this one ran other
            // dispatches or none) is adopted at the next entry after the
            // next batch starts, rather than after the block has counted
            // its way to the threshold.
            let made = translations_made();
            if made != self.made {
                self.made = made;
                self.tiers
                    .iter_mut()
                    .flatten()
                    .for_each(|t| t.looked = false);
            }
        }

        /// The two-wave translation of block `idx` (wave32), once its
        /// translation is in use ([`Tiers::enter`] gave it).
        #[inline]
        pub(crate) fn pair(&self, idx: u32) -> Option<PairFn> {
            self.tiers[0][idx as usize].code.as_ref()?.pair()
        }

        /// A block was added to the worker's private list.
        pub(crate) fn push(&mut self) {
            self.tiers.iter_mut().for_each(|t| t.push(Tier::default()));
        }

        /// Count an entry of block `idx` (`block`, which the worker took
        /// from `cache` at generation `generation`) by a wave of that size
        /// (`wave64`), and give its translation for that size if it has one
        /// (starting it if this entry makes the block hot).
        #[inline]
        pub(crate) fn enter(
            &mut self,
            idx: u32,
            wave64: bool,
            block: &Block,
            cache: &CodeCache,
            generation: u64,
            paused: &PausedTime,
        ) -> Option<Entered> {
            let t = &mut self.tiers[wave64 as usize][idx as usize];
            if let Some((f, members)) = &t.running {
                return Some((*f, self.callout, members.0, t.member));
            }
            // No back end (the translator off) counts no entries.
            self.backend?;
            if t.entries < self.threshold {
                // A translation made already (by another worker, or before
                // this worker's tiers were reset) is taken at the block's
                // first entry: it costs nothing more.
                if !t.looked {
                    t.looked = true;
                    if let Some(entered) = self.adopt(idx, wave64, block, cache, generation) {
                        return Some(entered);
                    }
                }
                let t = &mut self.tiers[wave64 as usize][idx as usize];
                t.entries += 1;
                return None;
            }
            self.tier_up(idx, wave64, block, cache, generation, paused)
        }

        /// Take the translation of block `idx` the code cache holds
        /// already, compiled and paying: the region it is a member of, or
        /// the one it heads (or its own). Starts nothing.
        #[cold]
        fn adopt(
            &mut self,
            idx: u32,
            wave64: bool,
            block: &Block,
            cache: &CodeCache,
            generation: u64,
        ) -> Option<Entered> {
            let backend = self.backend?;
            let member = (backend == JitBackend::Llvm)
                .then(|| cache.region_of(block, generation, backend, wave64))
                .flatten();
            let (slot, j) = match member {
                Some(found) => found,
                None => (
                    cache.existing_translation(block, generation, backend, wave64)?,
                    0,
                ),
            };
            let code = slot.try_get()??;
            if !code.pays() || !holds_at(&code, j, block) {
                return None;
            }
            let t = &mut self.tiers[wave64 as usize][idx as usize];
            t.member = j;
            Some(t.take(code, self.callout))
        }

        #[cold]
        fn tier_up(
            &mut self,
            idx: u32,
            wave64: bool,
            block: &Block,
            cache: &CodeCache,
            generation: u64,
            paused: &PausedTime,
        ) -> Option<Entered> {
            let (threshold, backend) = (self.threshold, self.backend?);
            let t = &mut self.tiers[wave64 as usize][idx as usize];
            if t.failed {
                return None;
            }
            let regions = backend == JitBackend::Llvm;
            // A block that a region made already for its wave size holds as
            // a member runs that region from its own label (LLVM back end).
            if regions
                && !t.alone
                && t.pending.is_none()
                && let Some((slot, j)) = cache.region_of(block, generation, backend, wave64)
            {
                t.pending = Some(slot);
                t.member = j;
            }
            // Any other block with decoded neighbours heads a region;
            // the slot's translation says which it got.
            let members = if !regions || t.pending.is_some() {
                Vec::new()
            } else {
                region::members(block, cache, generation, wave64)
            };
            // `always` (threshold 0) translates every block, so the tests
            // exercise each one.
            let worth = if t.member != 0 {
                true
            } else if members.is_empty() {
                worth_translating(block, wave64)
            } else {
                region::worth(&members, wave64)
            };
            if threshold > 0 && !worth {
                t.failed = true;
                return None;
            }
            // `always` (threshold 0) compiles on this thread or waits for
            // the worker that does, and runs the translation, so the tests
            // exercise each one; the watchdog does not count that wait.
            let _pause = (threshold == 0).then(|| paused.pause());
            let slot = match &t.pending {
                Some(s) => s.clone(),
                None => {
                    let span = if members.is_empty() {
                        (block.start, block.end)
                    } else {
                        region::span(&members)
                    };
                    let (slot, fresh) =
                        cache.translation_slot(block, span, generation, backend, wave64);
                    if fresh {
                        if !members.is_empty() {
                            cache.join_region(&members, span, generation, backend, wave64, &slot);
                        }
                        start(block, members, wave64, &slot, backend, threshold);
                    }
                    t.pending = Some(slot.clone());
                    slot
                }
            };
            let outcome = if threshold == 0 {
                slot.wait()
            } else {
                slot.try_get()?
            };
            t.pending = None;
            let usable = outcome
                .filter(|code| (threshold == 0 || code.pays()) && holds_at(code, t.member, block));
            let Some(code) = usable else {
                if t.member != 0 {
                    // Another block's region: this one heads its own.
                    t.member = 0;
                    t.alone = true;
                } else {
                    t.failed = true;
                }
                return None;
            };
            Some(t.take(code, self.callout))
        }
    }

    impl Tier {
        /// Run `code` from now on (entered at member `self.member`); what
        /// the wave loop runs for it.
        fn take(&mut self, code: Arc<Translation>, callout: Callout) -> Entered {
            let members: *const [Arc<Block>] = code.members();
            let func = code.func();
            (self.running, self.code) = (Some((func, Members(members))), Some(code));
            (func, callout, members, self.member)
        }
    }

    /// Does `code` run `block` from member `j` (0: the head, or the block
    /// alone)?
    fn holds_at(code: &Translation, j: u32, block: &Block) -> bool {
        j == 0 || code.members().get(j as usize).map(|b| b.start) == Some(block.start)
    }

    /// Make `block`'s translation with `backend` into `slot`: now with
    /// Cranelift, in the background with LLVM (on this thread when
    /// `threshold` is 0), of the region `members` where there is one (LLVM
    /// only). A block that would not pay is not compiled.
    fn start(
        block: &Block,
        members: Vec<Arc<Block>>,
        wave64: bool,
        slot: &Arc<Slot>,
        backend: JitBackend,
        threshold: u32,
    ) {
        match backend {
            // The Cranelift back end translates wave32 lists only.
            #[cfg(feature = "jit")]
            JitBackend::Cranelift if wave64 => slot.fill(None),
            #[cfg(feature = "jit")]
            JitBackend::Cranelift => {
                let code = match super::super::translate::translate(block) {
                    Ok(code) => {
                        tracing::debug!(
                            "translated the block at {:#x}: {} of {} entries inline",
                            block.start,
                            code.inlined,
                            block.compiled.len()
                        );
                        Some(Arc::new(code))
                    }
                    Err(e) => {
                        tracing::debug!("block at {:#x} stays interpreted: {e}", block.start);
                        None
                    }
                };
                slot.fill(code);
            }
            #[cfg(unix)]
            JitBackend::Llvm => {
                // The IR is written on the compiling thread too: written
                // here, the corpus's private_sort (some 1200 short blocks)
                // ran at half the interpreter's speed.
                let block = Arc::new(block.clone());
                let wait = threshold == 0;
                super::super::llvm::submit(block, members, wave64, slot.clone(), wait, !wait);
            }
            #[allow(unreachable_patterns)]
            _ => slot.fill(None),
        }
    }
}
