//! SCRATCH loads and stores in translated blocks against the interpreter:
//! every register, the scratch bytes and the outcome (a fault's address
//! and instruction too) must match, for lanes at one address and at their
//! own, aligned or not, inside their private segment or past it, in a slot
//! the scratch buffer holds and in one it does not, under EXEC masks from
//! none to all.

use super::abi::{callout, run_translated};
use super::tests::{Backend, assert_same_run, backends, mnemonics};
use crate::gfx11::code_cache::{Block, CodeCache};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::fast::tests::{Rng, env_over};
use crate::gfx11::exec::vmem::private_layout::slot_bytes;
use crate::gfx11::run_block::interpret_block_for_tests as interpret_block;
use crate::gfx11::wave::{EXEC, Wave};
use crate::{Access, GpuMemory, MemoryFault, PlainSpan, WaveLoop};

const CODE: u64 = 0x1_0000;
/// Private bytes per lane.
const PER_LANE: usize = 96;
/// Wave slots the scratch buffer holds (a wave of index 2 has none).
const SLOTS: usize = 2;

/// The block's code, and no other memory.
struct Code(Vec<u8>);

impl GpuMemory for Code {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = MemoryFault {
            address: addr,
            access,
        };
        let end = addr.checked_add(len).ok_or(fault)?;
        if access != Access::Execute || addr < CODE || end > CODE + self.0.len() as u64 {
            return Err(fault);
        }
        Ok(self.0.as_ptr().wrapping_add((addr - CODE) as usize) as *mut u8)
    }

    fn plain_span(&self, _addr: u64) -> Option<PlainSpan> {
        None
    }
}

/// The forms under test: llvm-mc-19 `-mcpu=gfx1100 -show-encoding` of the
/// text.
const FORMS: [(&str, [u8; 8]); 10] = [
    (
        "scratch_load_b32 v10, off, off offset:16",
        [0x10, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a],
    ),
    (
        "scratch_load_b64 v[10:11], v2, off offset:8",
        [0x08, 0x00, 0x55, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
    ),
    (
        "scratch_load_b96 v[10:12], v2, s6 offset:4",
        [0x04, 0x00, 0x59, 0xdc, 0x02, 0x00, 0x86, 0x0a],
    ),
    (
        "scratch_load_b128 v[10:13], off, s6",
        [0x00, 0x00, 0x5d, 0xdc, 0x00, 0x00, 0x06, 0x0a],
    ),
    (
        "scratch_store_b32 off, v6, off offset:12",
        [0x0c, 0x00, 0x69, 0xdc, 0x00, 0x06, 0x7c, 0x00],
    ),
    (
        "scratch_store_b64 v2, v[6:7], off",
        [0x00, 0x00, 0x6d, 0xdc, 0x02, 0x06, 0xfc, 0x00],
    ),
    (
        "scratch_store_b96 off, v[6:8], s6 offset:-4",
        [0xfc, 0x1f, 0x71, 0xdc, 0x00, 0x06, 0x06, 0x00],
    ),
    (
        "scratch_store_b128 v2, v[6:9], s6 offset:16",
        [0x10, 0x00, 0x75, 0xdc, 0x02, 0x06, 0x86, 0x00],
    ),
    (
        "scratch_load_b32 v2, v2, off",
        [0x00, 0x00, 0x51, 0xdc, 0x02, 0x00, 0xfc, 0x02],
    ),
    (
        "scratch_store_b32 v2, v2, off offset:4",
        [0x04, 0x00, 0x69, 0xdc, 0x02, 0x02, 0xfc, 0x00],
    ),
];

/// Where a case's lanes point (v2, the SVE forms' offset; s6, the saddr
/// forms' base).
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// Every lane at one aligned address.
    Same,
    /// Each lane at its own aligned address.
    Spread,
    /// One lane unaligned.
    Unaligned,
    /// One lane past its private segment.
    Past,
    /// s6 wraps the sum around 2^32 back into the segment.
    Wrapping,
    /// The wave's slot is past the end of the scratch buffer.
    NoSlot,
}

const LAYOUTS: [Layout; 6] = [
    Layout::Same,
    Layout::Spread,
    Layout::Unaligned,
    Layout::Past,
    Layout::Wrapping,
    Layout::NoSlot,
];

/// A wave whose v2 and s6 address its private segment as `layout` says.
fn wave(rng: &mut Rng, layout: Layout) -> Wave {
    let mut w = rng.wave();
    w.index = match layout {
        Layout::NoSlot => SLOTS as u32,
        _ => rng.below(SLOTS as u32),
    };
    w.sgpr[6] = match layout {
        Layout::Wrapping => 0u32.wrapping_sub(16),
        _ => 4 * rng.below(8),
    };
    let one = 4 * rng.below(12);
    // All 64 lanes: a wave64 wave's high lanes follow the same layout.
    for l in 0..64 {
        let a = match layout {
            Layout::Same | Layout::NoSlot => one,
            Layout::Wrapping => 16 + one,
            _ => 4 * rng.below(12),
        };
        w.set_lane(2, l, a);
    }
    // One lane of each half out of line.
    for lane in [rng.below(32), 32 + rng.below(32)] {
        let lane = lane as usize;
        let a = if lane < 32 {
            w.vgpr[2][lane]
        } else {
            w.vgpr_hi[2][lane - 32]
        };
        match layout {
            Layout::Unaligned => w.set_lane(2, lane, a + 1 + rng.below(3)),
            Layout::Past => w.set_lane(2, lane, PER_LANE as u32 + 4 * rng.below(4)),
            _ => {}
        }
    }
    w
}

/// Run `block` from `w0` over a copy of `scratch0` both ways (`t` its
/// translation) and compare everything.
fn compare(
    t: &super::translation::Translation,
    block: &Block,
    code: &Code,
    scratch0: &[u8],
    w0: &Wave,
    level: WaveLoop,
) {
    let run = |jit: bool| {
        let mut scratch = scratch0.to_vec();
        let mut w = w0.clone();
        let r = {
            let mut env = env_over(code, &mut [], &mut scratch);
            env.scratch_wave64 = w0.wave64;
            env.scratch_wave_bytes = slot_bytes(PER_LANE) << w0.wave64 as u32;
            env.scratch_per_lane = PER_LANE;
            if jit {
                // SAFETY: `t` translates `block` for `w`'s size and lives
                // across the call.
                unsafe {
                    run_translated(t.func(), callout(level), &mut w, &mut env, block, 0, &mut 0).0
                }
            } else {
                interpret_block(&mut w, &mut env, block, block.list(w0.wave64))
            }
        };
        (r, w, scratch)
    };
    let (want, slow, bytes_slow) = run(false);
    let (got, quick, bytes_quick) = run(true);
    let what = format!(
        "{} (EXEC {:#x}:{:#x}, wave {}, wave64 {})",
        mnemonics(block),
        w0.sgpr[EXEC + 1],
        w0.sgpr[EXEC],
        w0.index,
        w0.wave64
    );
    assert_same_run(&what, (&got, &quick), (&want, &slow));
    assert!(quick.vgpr_hi == slow.vgpr_hi, "{what}: lanes 32..63");
    assert!(bytes_quick == bytes_slow, "{what}: scratch");
}

#[test]
fn scratch_accesses_match_the_interpreter() {
    let mut rng = Rng::new(0x5C2A_7C40_FF5E_7001);
    let mut cases = Vec::new();
    for (n, &(text, bytes)) in FORMS.iter().enumerate() {
        for (v, &layout) in LAYOUTS.iter().enumerate() {
            let mut words: Vec<u32> = Vec::new();
            if v % 2 == 1 {
                // v_mov_b32 v2, v2: the address row written just before.
                words.push(0x7E04_0302);
            }
            words.extend([0, 4].map(|k| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap())));
            if v % 3 == 0 {
                // A second access: a load after a store sees what it stored.
                let other = FORMS[(n + 4 + v) % FORMS.len()].1;
                words.extend(
                    [0, 4].map(|k| u32::from_le_bytes(other[k..k + 4].try_into().unwrap())),
                );
            }
            words.push(0xBFB0_0000); // s_endpgm
            let code = Code(words.iter().flat_map(|w| w.to_le_bytes()).collect());
            let block = CodeCache::new().block(CODE, &code);
            assert!(
                block
                    .compiled
                    .iter()
                    .any(|c| matches!(c.fast, Fast::Scratch(_))),
                "{text}: no scratch form"
            );
            let w = wave(&mut rng, layout);
            let lane = rng.below(32);
            let level = if v % 2 == 0 {
                WaveLoop::Baseline
            } else {
                WaveLoop::host_best()
            };
            let execs = [u32::MAX, rng.value(), 0, 1 << lane, 0x8000_0001, rng.next()];
            cases.push((block, code, w, execs, level));
        }
    }
    // Room for SLOTS wave64 waves (twice a wave32 wave's slot each).
    let scratch: Vec<u8> = (0..2 * SLOTS * slot_bytes(PER_LANE))
        .map(|_| rng.next() as u8)
        .collect();
    for backend in backends() {
        if !matches!(backend, Backend::Llvm) {
            continue;
        }
        let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
        let ts = backend.translate(&blocks);
        for ((block, code, w, execs, level), t) in cases.iter().zip(&ts) {
            let mut w = w.clone();
            for &exec in execs {
                w.sgpr[EXEC] = exec;
                compare(t, block, code, &scratch, &w, *level);
            }
            assert_eq!(t.inlined, block.compiled.len(), "every entry inline");
        }
    }
    // Wave64 (LLVM): each access pass by pass, each half in its own slot.
    if !super::llvm::available() {
        return;
    }
    let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
    let ts = super::llvm::translate_all(&blocks, true).expect("the blocks translate");
    for ((block, code, w, execs, level), t) in cases.iter().zip(&ts) {
        let mut w = w.clone();
        w.wave64 = true;
        for (k, &lo) in execs.iter().enumerate() {
            (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, execs[(k + 3) % execs.len()]);
            compare(t, block, code, &scratch, &w, *level);
        }
        assert_eq!(t.inlined, block.compiled64.len(), "every entry inline");
    }
}
