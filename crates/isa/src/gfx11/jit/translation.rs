//! A translated block, whichever back end made it: its entry point and the
//! owner of the machine code behind it (freed when the last `Arc` of the
//! translation drops, and every holder of the entry point holds one).

use std::sync::Arc;

use super::abi::{BlockFn, PairFn};
#[cfg(feature = "jit")]
use super::code_memory::CodeMemory;
#[cfg(unix)]
use aqueduct_llvm::LinkedObject;

/// Who keeps a translation's code mapped (held only to be dropped).
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum Owner {
    /// Cranelift's JIT module (translate.rs).
    #[cfg(feature = "jit")]
    Cranelift(Box<CodeMemory>),
    /// The object LLVM made of the block's module, linked into the process
    /// (llvm/), which other translations of the same module share.
    #[cfg(unix)]
    Llvm(Arc<LinkedObject>),
}

/// A translated block: its machine code and entry point.
#[derive(Debug)]
pub(crate) struct Translation {
    _owner: Owner,
    func: BlockFn,
    /// The block for two wave32 waves at once, where it has that form
    /// (llvm/emit/pair.rs).
    pair: Option<PairFn>,
    /// Entries of the block's list that run inline (the rest are call-outs).
    pub(crate) inlined: usize,
    /// Entries of the block's list.
    pub(crate) entries: usize,
    /// A region's member blocks, its head first (jit/region.rs); empty for
    /// the translation of one block.
    members: Vec<Arc<crate::gfx11::code_cache::Block>>,
}

impl Translation {
    /// `func`, whose code `owner` keeps alive, translating a block of
    /// `entries` entries of which `inlined` run inline.
    pub(crate) fn new(owner: Owner, func: BlockFn, inlined: usize, entries: usize) -> Self {
        Translation {
            _owner: owner,
            func,
            pair: None,
            inlined,
            entries,
            members: Vec::new(),
        }
    }

    /// `self` as the translation of the region `members` (head first).
    pub(crate) fn with_members(
        mut self,
        members: Vec<Arc<crate::gfx11::code_cache::Block>>,
    ) -> Self {
        self.members = members;
        self
    }

    /// The region's member blocks, head first (empty for one block).
    pub(crate) fn members(&self) -> &[Arc<crate::gfx11::code_cache::Block>] {
        &self.members
    }

    /// The entry point; valid while `self` lives.
    pub(crate) fn func(&self) -> BlockFn {
        self.func
    }

    /// `self` with the two-wave entry point `pair` (from the same code).
    pub(crate) fn with_pair(mut self, pair: Option<PairFn>) -> Self {
        self.pair = pair;
        self
    }

    /// The two-wave entry point, if any; valid while `self` lives.
    pub(crate) fn pair(&self) -> Option<PairFn> {
        self.pair
    }

    /// Does running the translation beat interpreting the block?
    pub(crate) fn pays(&self) -> bool {
        pays(self.inlined, self.entries)
    }
}

/// Blocks shorter than this many entries stay in the interpreter unless they
/// loop on themselves or do vector ALU work. Entering and leaving a
/// translation (the wave's registers it uses go between memory and host
/// registers, and the interpreter finds the next block) costs about as much
/// as interpreting a few short scalar instructions, and such blocks are
/// mostly the branchy scalar code between loops: the Collatz kernel of
/// `cargo bench --bench end_to_end` (blocks of 3 to 7 scalar instructions)
/// ran 1.3 to 2.6 times slower with them translated than in the
/// interpreter. A vector instruction works on every lane, so even a short
/// block of them gains (the tiled matrix product of `cargo bench --bench
/// compute` lost about 5% when its short vector blocks were interpreted).
pub(crate) const MIN_TRANSLATED_ENTRIES: usize = 8;

/// Is `block` (its list for waves of that size, `wave64`) long enough, a
/// self-loop (its last entry branches to its start, so a translation runs
/// its passes without leaving), or vector ALU work, for translating it to
/// pay?
pub(crate) fn worth_translating(block: &crate::gfx11::code_cache::Block, wave64: bool) -> bool {
    use crate::gfx11::exec::fast::Fast;
    use crate::gfx11::inst::Family;
    let list = block.list(wave64);
    let self_loop = matches!(
        list.last().map(|c| c.fast),
        Some(Fast::Branch { target, .. }) if target == block.start
    );
    let vector = block.insts.iter().any(|i| {
        matches!(
            i.family,
            Family::Vop1
                | Family::Vop2
                | Family::Vop3
                | Family::Vop3sd
                | Family::Vop3p
                | Family::Vopd
        )
    });
    self_loop || vector || list.len() >= MIN_TRANSLATED_ENTRIES
}

/// The entries of `list` a translation of it runs: those up to and
/// including the first s_endpgm or s_barrier, where the wave leaves it (a
/// wave past a barrier goes on in the block that starts after it). What
/// [`pays`] weighs: counting the entries past a barrier in the middle of
/// a block left the translations of the corpus's LDS loops (a barrier
/// between their loads and stores) in the interpreter.
pub(crate) fn run_entries(list: &[crate::gfx11::code_cache::Compiled]) -> usize {
    use crate::gfx11::exec::fast::Fast;
    list.iter()
        .position(|c| matches!(c.fast, Fast::End | Fast::Barrier))
        .map_or(list.len(), |k| k + 1)
}

/// Does a translation with `inlined` of `entries` entries inline beat the
/// interpreter? A call-out costs more than the interpreter's own step of
/// the entry (the wave's registers go through memory around it), so a
/// block that is mostly call-outs (memory instructions, 64-bit and carry
/// arithmetic between them) stays in the interpreter: at least three in
/// four of its entries must run inline.
pub(crate) fn pays(inlined: usize, entries: usize) -> bool {
    4 * inlined >= 3 * entries
}

#[cfg(not(any(feature = "jit", unix)))]
compile_error!(
    "the translator needs Cranelift (feature `jit`) or a Unix host for its LLVM back end"
);
