//! Decoded-instruction cache: code is decoded once per address, in basic
//! blocks (a run of instructions up to a branch / s_endpgm / an undecodable
//! word), shared by every wave, workgroup and host thread of every dispatch
//! that uses this cache. Workers keep a private map of the blocks they used,
//! revalidated by a generation counter that `invalidate` bumps when it
//! removes a block.
//!
//! Each block also carries its instructions' pre-resolved forms (`exec::fast`),
//! chosen once here, with their offsets: the per-instruction loop reads that
//! dense array and touches the full `Inst` only for instructions that take the
//! general path. Instructions whose form is `Fast::Nop` (waits, ALU delay
//! hints, ...) have no entry there at all: they change nothing, and each
//! entry's index into `insts` keeps the count of executed instructions exact.
//!
//! A cache decodes one instruction set, the device's ([`Isa`]): GFX9 words
//! go through the GFX9 decoder and then `gfx9::exec_form`, which renumbers
//! their registers to the executor's (gfx11) numbering, so the executor
//! itself never asks which family it runs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::decode::{DecodeError, decode};
use super::exec::fast::{Fast, compile, fuse};
use super::inst::Inst;
use super::inst_class::{ClassRow, prefix_rows};
use crate::{Access, GpuMemory, Isa, MemoryFault};

/// Most instructions decoded into one block.
const MAX_BLOCK: usize = 128;

/// What follows the last instruction of a block that does not end in a branch.
#[derive(Clone, Debug)]
pub(crate) enum Tail {
    /// Continue at the next address (a new block).
    Continue,
    /// The word at the next address does not decode.
    Illegal(DecodeError),
    /// The next address cannot be fetched.
    Fault(MemoryFault),
}

/// One instruction of a block as the per-instruction loop sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Compiled {
    pub fast: Fast,
    /// Index of the instruction in `Block::insts` (below `MAX_BLOCK`).
    pub index: u8,
    /// Index of the last instruction the entry runs: `index`, or the second
    /// of a fused pair (exec/valu/fast_pair.rs; only no-ops lie between).
    pub last: u8,
    /// Byte offset of the instruction from the block start.
    pub offset: u16,
    /// Length in bytes.
    pub len: u8,
}

#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub start: u64,
    /// Address just past the last decoded instruction.
    pub end: u64,
    pub insts: Vec<Inst>,
    /// The pre-resolved form and placement of every instruction of `insts`
    /// but the no-ops, in order, with fusable pairs fused: what wave32 waves run.
    pub compiled: Vec<Compiled>,
    /// The same without fused pairs (one entry per instruction): what wave64
    /// waves run (a fused pair has no wave64 run).
    pub compiled64: Vec<Compiled>,
    /// Prefix sums of the instructions' classes (row k: `insts[..=k]`),
    /// what a counting dispatch adds when a wave leaves the block after
    /// instruction k (inst_class.rs).
    pub classes: Vec<ClassRow>,
    pub tail: Tail,
    /// A wave32 wave stops before this block until the workgroup's other
    /// waves have reached a barrier, the end or such a block, and then runs
    /// it together with a wave at the same block (dispatch.rs
    /// `run_sync_blocks`): [`sync_block`].
    pub sync: bool,
}

impl Block {
    /// The list a wave of this size runs: `compiled` (wave32) or
    /// `compiled64` (wave64).
    #[inline(always)]
    pub fn list(&self, wave64: bool) -> &[Compiled] {
        if wave64 {
            &self.compiled64
        } else {
            &self.compiled
        }
    }
}

/// Decoded code, keyed by block start address. Send + Sync.
#[derive(Debug, Default)]
pub struct CodeCache {
    /// The instruction set every block is decoded as.
    isa: Isa,
    blocks: RwLock<HashMap<u64, Arc<Block>>>,
    generation: AtomicU64,
    /// Translations of hot blocks (jit/), shared by every worker.
    #[cfg(feature = "llvm-jit")]
    translations: super::jit::Shared,
}

impl CodeCache {
    /// A cache of gfx11 code.
    pub fn new() -> CodeCache {
        CodeCache::default()
    }

    /// A cache of `isa` code.
    pub fn for_isa(isa: Isa) -> CodeCache {
        CodeCache {
            isa,
            ..CodeCache::default()
        }
    }

    /// The instruction set this cache decodes.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Forget decoded code overlapping `[start, start+len)` (the driver calls
    /// this when code memory is rewritten or unmapped).
    pub fn invalidate(&self, start: u64, len: u64) {
        let end = start.saturating_add(len);
        let mut map = self.blocks.write().unwrap_or_else(|e| e.into_inner());
        let before = map.len();
        map.retain(|_, b| b.end.max(b.start + 4) <= start || b.start >= end);
        // Workers' private block maps hold only blocks of this map, so they
        // stay valid unless a block left it (unmapping a data buffer, the
        // common case, then costs them nothing).
        if map.len() != before {
            // Under the map's lock, as `translation`/`keep_translation` read it.
            #[cfg(feature = "llvm-jit")]
            self.translations.forget(start, end);
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The slot of `backend`'s translation of `block`, shared by every
    /// worker whose blocks came from generation `generation` (a private
    /// one if that is stale), and whether it is new: the caller then makes
    /// the translation. `span` is the code it covers (the block, or a
    /// region's members: jit/region.rs): rewriting any of it forgets it.
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn translation_slot(
        &self,
        block: &Block,
        span: (u64, u64),
        generation: u64,
        backend: super::jit::JitBackend,
        wave64: bool,
    ) -> (std::sync::Arc<super::jit::Slot>, bool) {
        self.with_translations(generation, |t| t.slot(block.start, span, backend, wave64))
            .unwrap_or_else(|| (std::sync::Arc::default(), true))
    }

    /// `f` of the shared translations, under the block map's lock, if the
    /// cache is still at `generation` (they are of the blocks decoded then).
    #[cfg(feature = "llvm-jit")]
    fn with_translations<R>(
        &self,
        generation: u64,
        f: impl FnOnce(&super::jit::Shared) -> R,
    ) -> Option<R> {
        let _map = self.blocks.read().unwrap_or_else(|e| e.into_inner());
        (self.generation() == generation).then(|| f(&self.translations))
    }

    /// Record the region `members` (head first, for waves of that size
    /// (`wave64`), covering `span`), whose translation `slot` holds, as the
    /// region of each member block that is in none yet for that size, if
    /// the cache is still at `generation`.
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn join_region(
        &self,
        members: &[std::sync::Arc<Block>],
        span: (u64, u64),
        generation: u64,
        backend: super::jit::JitBackend,
        wave64: bool,
        slot: &std::sync::Arc<super::jit::Slot>,
    ) {
        let starts: Vec<u64> = members.iter().map(|b| b.start).collect();
        self.with_translations(generation, |t| t.join(&starts, span, backend, wave64, slot));
    }

    /// The slot of the translation headed by `block` (the block alone, or
    /// a region) for waves of that size, if one was made or is being made
    /// and the cache is still at `generation`.
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn existing_translation(
        &self,
        block: &Block,
        generation: u64,
        backend: super::jit::JitBackend,
        wave64: bool,
    ) -> Option<std::sync::Arc<super::jit::Slot>> {
        self.with_translations(generation, |t| t.existing(block.start, backend, wave64))?
    }

    /// The slot of the region for waves of that size (`wave64`) that has
    /// `block` as a member other than its head, and its index there, if
    /// the cache is still at `generation`.
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn region_of(
        &self,
        block: &Block,
        generation: u64,
        backend: super::jit::JitBackend,
        wave64: bool,
    ) -> Option<(std::sync::Arc<super::jit::Slot>, u32)> {
        self.with_translations(generation, |t| t.region_of(block.start, backend, wave64))?
    }

    /// The block starting at `pc` if it is decoded at generation
    /// `generation` (nothing is decoded here).
    #[cfg(feature = "llvm-jit")]
    pub(crate) fn decoded(&self, pc: u64, generation: u64) -> Option<Arc<Block>> {
        let map = self.blocks.read().unwrap_or_else(|e| e.into_inner());
        if self.generation() != generation {
            return None;
        }
        map.get(&pc).cloned()
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The block starting at `pc`, decoding it on first use.
    pub(crate) fn block(&self, pc: u64, mem: &dyn GpuMemory) -> Arc<Block> {
        if let Some(b) = self
            .blocks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&pc)
        {
            return b.clone();
        }
        let b = Arc::new(decode_block(self.isa, pc, mem));
        self.blocks
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(pc)
            .or_insert(b)
            .clone()
    }
}

fn fetch(pc: u64, mem: &dyn GpuMemory) -> Result<([u32; 4], usize), MemoryFault> {
    let mut last = None;
    for n in [4usize, 3, 2, 1] {
        match mem.translate(pc, 4 * n as u64, Access::Execute) {
            Ok(p) => {
                let mut w = [0u32; 4];
                for (k, slot) in w.iter_mut().enumerate().take(n) {
                    let mut b = [0u8; 4];
                    // SAFETY: translate returned a pointer valid for 4*n bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(p.add(4 * k) as *const u8, b.as_mut_ptr(), 4)
                    };
                    *slot = u32::from_le_bytes(b);
                }
                return Ok((w, n));
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or(MemoryFault {
        address: pc,
        access: Access::Execute,
    }))
}

/// Decode one instruction of `isa` into the executor's form.
fn decode_for(isa: Isa, words: &[u32]) -> Result<Inst, DecodeError> {
    match isa {
        Isa::Gfx11 => decode(words),
        Isa::Gfx9(target) => {
            crate::gfx9::exec_form::normalise(target, crate::gfx9::decode::decode(target, words)?)
        }
    }
}

fn decode_block(isa: Isa, start: u64, mem: &dyn GpuMemory) -> Block {
    let mut insts = Vec::new();
    let mut compiled = Vec::new();
    let mut pc = start;
    let tail = loop {
        if insts.len() >= MAX_BLOCK {
            break Tail::Continue;
        }
        let (words, n) = match fetch(pc, mem) {
            Ok(x) => x,
            Err(f) => break Tail::Fault(f),
        };
        match decode_for(isa, &words[..n]) {
            Ok(inst) => {
                let fast = compile(&inst, pc);
                if fast != Fast::Nop {
                    compiled.push(Compiled {
                        fast,
                        index: insts.len() as u8,
                        last: insts.len() as u8,
                        // MAX_BLOCK instructions of at most 4 dwords: offsets stay below 2 KiB.
                        offset: (pc - start) as u16,
                        len: 4 * inst.len,
                    });
                }
                pc += 4 * inst.len as u64;
                let ends = inst.ends_block();
                insts.push(inst);
                if ends {
                    break Tail::Continue;
                }
            }
            Err(e) => break Tail::Illegal(e),
        }
    };
    let compiled32 = fuse_pairs(&compiled);
    let sync = matches!(tail, Tail::Continue) && sync_block(&insts, &compiled32);
    Block {
        start,
        end: pc,
        classes: prefix_rows(&insts),
        insts,
        compiled: compiled32,
        compiled64: compiled,
        tail,
        sync,
    }
}

/// Entries a block needs for [`Block::sync`]: below it, the rounds of the
/// workgroup's waves cost more than running two waves at once saves.
const MIN_SYNC_ENTRIES: usize = 16;

/// Is a block of `insts` (the wave32 list `list`) one that only computes:
/// at least [`MIN_SYNC_ENTRIES`] entries, each of vector or scalar ALU
/// instructions (registers in, registers out: no memory, no message; the
/// scalar ALU forms that set the PC are SOP1 and excluded) but the last,
/// which may be a branch (s_branch, s_cbranch_*)? Running such a block for
/// several waves in one call (jit/llvm/emit/pair.rs), each leaving by its
/// own branch, is running it for each in turn.
fn sync_block(insts: &[Inst], list: &[Compiled]) -> bool {
    use super::inst::Family::*;
    let pure = |i: &Inst| {
        matches!(
            i.family,
            Vop1 | Vop2 | Vopc | Vop3 | Vop3sd | Vop3p | Vopd | Sop2 | Sopc
        )
    };
    let body = match list.last() {
        Some(c) if matches!(c.fast, Fast::Branch { .. }) => &list[..list.len() - 1],
        _ => list,
    };
    list.len() >= MIN_SYNC_ENTRIES
        && body
            .iter()
            .all(|c| pure(&insts[c.index as usize]) && pure(&insts[c.last as usize]))
}

/// `list` with each pair of consecutive entries that `fast::fuse`
/// accepts replaced by the fused entry (consecutive entries have only
/// no-ops between them).
fn fuse_pairs(list: &[Compiled]) -> Vec<Compiled> {
    let mut out: Vec<Compiled> = Vec::with_capacity(list.len());
    for c in list {
        if let Some(prev) = out.last_mut()
            && prev.index == prev.last
            && let Some(fast) = fuse(&prev.fast, &c.fast)
        {
            prev.fast = fast;
            prev.last = c.last;
            continue;
        }
        out.push(*c);
    }
    out
}
