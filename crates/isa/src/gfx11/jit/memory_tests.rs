//! Scalar loads and FLAT and GLOBAL loads, stores and atomics in translated blocks against
//! the interpreter, over a memory whose mappings the span cache may
//! remember (`GpuMemory::plain_span`): a writable buffer and a read-only
//! one. Every register, the memory, the outcome (a fault's address and
//! instruction too) and the bytes the span cache tallied must match, from a
//! cache that starts empty (the first access misses, later ones hit) and
//! from one that already holds the buffers.

use std::cell::UnsafeCell;

use super::abi::{callout, run_translated};
use super::tests::{Backend, assert_same_run, backends, mnemonics};
use crate::gfx11::code_cache::{Block, CodeCache};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::fast::tests::{Rng, env_over};
use crate::gfx11::run_block::interpret_block_for_tests as interpret_block;
use crate::gfx11::wave::{EXEC, Wave};
use crate::{Access, GpuMemory, MemoryFault, PlainSpan, WaveLoop};

const CODE: u64 = 0x1_0000;
/// The writable buffer.
const DATA: u64 = 0x40_0000;
/// The read-only buffer, right after it (a span crossing into it holds
/// bytes of two mappings: no slot holds it whole).
const CONST: u64 = DATA + DATA_LEN as u64;
const DATA_LEN: usize = 1 << 16;
const CONST_LEN: usize = 1 << 12;

struct Memory {
    code: Vec<u8>,
    data: UnsafeCell<Vec<u8>>,
    constant: UnsafeCell<Vec<u8>>,
}

// SAFETY: each test uses its memories from one thread only.
unsafe impl Sync for Memory {}

impl Memory {
    fn host(&self, addr: u64) -> Option<(u64, u64, *mut u8, bool)> {
        // SAFETY: single-threaded test; the pointers stay inside the vectors.
        let (data, constant) = unsafe {
            (
                (*self.data.get()).as_mut_ptr(),
                (*self.constant.get()).as_mut_ptr(),
            )
        };
        if (DATA..DATA + DATA_LEN as u64).contains(&addr) {
            Some((DATA, DATA + DATA_LEN as u64, data, true))
        } else if (CONST..CONST + CONST_LEN as u64).contains(&addr) {
            Some((CONST, CONST + CONST_LEN as u64, constant, false))
        } else {
            None
        }
    }

    fn bytes(&self) -> (Vec<u8>, Vec<u8>) {
        // SAFETY: single-threaded test, no pointer from translate is live here.
        unsafe { ((*self.data.get()).clone(), (*self.constant.get()).clone()) }
    }

    fn copy(&self) -> Memory {
        let (data, constant) = self.bytes();
        Memory {
            code: self.code.clone(),
            data: UnsafeCell::new(data),
            constant: UnsafeCell::new(constant),
        }
    }
}

impl GpuMemory for Memory {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = MemoryFault {
            address: addr,
            access,
        };
        let end = addr.checked_add(len).ok_or(fault)?;
        if access == Access::Execute {
            if addr < CODE || end > CODE + self.code.len() as u64 {
                return Err(fault);
            }
            return Ok(self.code.as_ptr().wrapping_add((addr - CODE) as usize) as *mut u8);
        }
        let (start, stop, host, writable) = self.host(addr).ok_or(fault)?;
        if end > stop || (access != Access::Read && !writable) {
            return Err(fault);
        }
        Ok(host.wrapping_add((addr - start) as usize))
    }

    fn plain_span(&self, addr: u64) -> Option<PlainSpan> {
        let (start, end, host, writable) = self.host(addr)?;
        Some(PlainSpan {
            start,
            end,
            host,
            writable,
            executable: false,
        })
    }
}

/// Little-endian words of llvm-mc's `-show-encoding` bytes (gfx1100).
fn words(bytes: [u8; 8]) -> [u32; 2] {
    [0, 4].map(|k| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap()))
}

/// The forms under test: llvm-mc-19 `-mcpu=gfx1100 -show-encoding` of the
/// text, and the bytes per lane (0: a scalar load).
const FORMS: [(&str, [u8; 8], u32); 28] = [
    (
        "global_load_b32 v10, v2, s[4:5] offset:16",
        [0x10, 0x00, 0x52, 0xdc, 0x02, 0x00, 0x04, 0x0a],
        4,
    ),
    (
        "global_load_b64 v[10:11], v2, s[4:5] offset:-8",
        [0xf8, 0x1f, 0x56, 0xdc, 0x02, 0x00, 0x04, 0x0a],
        8,
    ),
    (
        "global_load_b96 v[10:12], v[2:3], off offset:4",
        [0x04, 0x00, 0x5a, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        12,
    ),
    (
        "global_load_b128 v[10:13], v[2:3], off",
        [0x00, 0x00, 0x5e, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        16,
    ),
    (
        "global_store_b32 v2, v6, s[4:5] offset:12",
        [0x0c, 0x00, 0x6a, 0xdc, 0x02, 0x06, 0x04, 0x00],
        4,
    ),
    (
        "global_store_b64 v[2:3], v[6:7], off offset:-4",
        [0xfc, 0x1f, 0x6e, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        8,
    ),
    (
        "global_store_b96 v2, v[6:8], s[4:5]",
        [0x00, 0x00, 0x72, 0xdc, 0x02, 0x06, 0x04, 0x00],
        12,
    ),
    (
        "global_store_b128 v[2:3], v[6:9], off offset:32",
        [0x20, 0x00, 0x76, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        16,
    ),
    (
        "global_load_b64 v[2:3], v[2:3], off",
        [0x00, 0x00, 0x56, 0xdc, 0x02, 0x00, 0x7c, 0x02],
        8,
    ),
    (
        "global_load_b32 v3, v2, s[4:5]",
        [0x00, 0x00, 0x52, 0xdc, 0x02, 0x00, 0x04, 0x03],
        4,
    ),
    (
        "flat_load_b32 v10, v[2:3] offset:8",
        [0x08, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        4,
    ),
    (
        "flat_load_b128 v[10:13], v[2:3]",
        [0x00, 0x00, 0x5c, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        16,
    ),
    (
        "flat_store_b32 v[2:3], v6 offset:4",
        [0x04, 0x00, 0x68, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        4,
    ),
    (
        "flat_store_b64 v[2:3], v[6:7]",
        [0x00, 0x00, 0x6c, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        8,
    ),
    (
        "global_load_u8 v10, v2, s[4:5] offset:3",
        [0x03, 0x00, 0x42, 0xdc, 0x02, 0x00, 0x04, 0x0a],
        1,
    ),
    (
        "global_load_i16 v10, v[2:3], off offset:-2",
        [0xfe, 0x1f, 0x4e, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        2,
    ),
    (
        "global_load_d16_hi_b16 v10, v[2:3], off offset:32",
        [0x20, 0x00, 0x8e, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        2,
    ),
    (
        "global_load_d16_i8 v10, v2, s[4:5]",
        [0x00, 0x00, 0x7e, 0xdc, 0x02, 0x00, 0x04, 0x0a],
        1,
    ),
    (
        "flat_load_d16_b16 v10, v[2:3] offset:2",
        [0x02, 0x00, 0x80, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
        2,
    ),
    (
        "global_store_b8 v2, v6, s[4:5] offset:1",
        [0x01, 0x00, 0x62, 0xdc, 0x02, 0x06, 0x04, 0x00],
        1,
    ),
    (
        "global_store_d16_hi_b16 v[2:3], v6, off offset:-4",
        [0xfc, 0x1f, 0x96, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        2,
    ),
    (
        "flat_store_b16 v[2:3], v6",
        [0x00, 0x00, 0x64, 0xdc, 0x02, 0x06, 0x7c, 0x00],
        2,
    ),
    (
        "s_load_b32 s8, s[4:5], 0x10",
        [0x02, 0x02, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xf8],
        0,
    ),
    (
        "s_load_b64 s[8:9], s[4:5], s6 offset:0x4",
        [0x02, 0x02, 0x04, 0xf4, 0x04, 0x00, 0x00, 0x0c],
        0,
    ),
    (
        "s_load_b128 s[8:11], s[4:5], -0x8",
        [0x02, 0x02, 0x08, 0xf4, 0xf8, 0xff, 0x1f, 0xf8],
        0,
    ),
    (
        "s_load_b256 s[8:15], s[4:5], 0x3",
        [0x02, 0x02, 0x0c, 0xf4, 0x03, 0x00, 0x00, 0xf8],
        0,
    ),
    (
        "s_load_b64 s[4:5], s[4:5], 0x0",
        [0x02, 0x01, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8],
        0,
    ),
    (
        "s_load_b512 s[16:31], s[4:5], null offset:0x40",
        [0x02, 0x04, 0x10, 0xf4, 0x40, 0x00, 0x00, 0xf8],
        0,
    ),
];

/// Where a case's addresses point.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// Lane `l` at `base + l * size`: the coalesced case.
    Contiguous,
    /// Random addresses in the writable buffer.
    Scattered,
    /// Every lane at one address (overlapping stores).
    Same,
    /// Unaligned addresses one after the other.
    Unaligned,
    /// The read-only buffer (stores fault there).
    ReadOnly,
    /// Lanes on both sides of the writable buffer's end.
    Straddling,
    /// Far outside every buffer (a fault).
    Outside,
    /// One after the other, but one lane's high word is the LDS or the
    /// private aperture's (FLAT then goes lane by lane; for GLOBAL the
    /// lanes' high words differ, so no one base holds them all).
    Aperture,
    /// One after the other from just below 2^64, the later lanes' addresses
    /// wrapping past it to the bottom of memory (a fault).
    Wrapping,
    /// One after the other from an aligned start, one lane's address moved
    /// 1 to 3 bytes on (an atomic's lanes then are not all aligned).
    OneMisaligned,
}

const LAYOUTS: [Layout; 10] = [
    Layout::Contiguous,
    Layout::Scattered,
    Layout::Same,
    Layout::Unaligned,
    Layout::ReadOnly,
    Layout::Straddling,
    Layout::Outside,
    Layout::Aperture,
    Layout::Wrapping,
    Layout::OneMisaligned,
];

/// FLAT's apertures in the tests' environment.
const SHARED_BASE: u64 = 1 << 32;
const PRIVATE_BASE: u64 = 2 << 32;

/// A wave whose s[4:5], s6 and v2/v3 address the buffers as `layout` says
/// (in all 64 lanes: a wave64 wave's high rows continue the layout).
fn wave(rng: &mut Rng, layout: Layout, size: u64) -> Wave {
    let mut w = rng.wave();
    let (base, step) = match layout {
        Layout::Contiguous => (DATA + 64 * rng.below(64) as u64, size),
        Layout::Scattered => (DATA + 64, 0),
        Layout::Same => (DATA + 4 * rng.below(1024) as u64, 0),
        Layout::Unaligned => (DATA + 64 + 1 + rng.below(3) as u64, size),
        Layout::ReadOnly => (CONST + 64, size),
        Layout::Straddling => (CONST - 16 * size, size),
        Layout::Outside => (0x7000_0000_0000, size),
        Layout::Aperture => (DATA + 64, size),
        Layout::Wrapping => (0u64.wrapping_sub(8 * size), size),
        Layout::OneMisaligned => (DATA + 64 * rng.below(64) as u64, size),
    };
    // The scalar loads and the saddr forms read s[4:5] (+ s6), the others
    // the pair v[2:3]; v2 alone is the saddr forms' 32-bit offset.
    w.sgpr[4] = base as u32;
    w.sgpr[5] = (base >> 32) as u32;
    w.sgpr[6] = 4 * rng.below(16);
    let moved = rng.below(64) as u64;
    let nudge = 1 + rng.below(3) as u64;
    for l in 0..64u64 {
        let off = match layout {
            Layout::Scattered => 4 * rng.below(DATA_LEN as u32 / 8) as u64,
            Layout::OneMisaligned if l == moved => l * step + nudge,
            _ => l * step,
        };
        let a = base.wrapping_add(off);
        // saddr forms: v2 is the offset from s[4:5]; pair forms: v[2:3]
        // is the address. One wave serves one form, so set what it reads.
        w.set_lane(2, l as usize, off as u32);
        w.set_lane(3, l as usize, (a >> 32) as u32);
        w.set_lane(4, l as usize, a as u32);
    }
    if let Layout::Aperture = layout {
        let aperture = [SHARED_BASE, PRIVATE_BASE][rng.below(2) as usize];
        w.set_lane(3, rng.below(64) as usize, (aperture >> 32) as u32);
    }
    w
}

/// Run `block` from `w0` over a copy of `mem0` both ways (`t` its
/// translation for `w0`'s wave size), the span cache first filled with both
/// buffers when `warm`, and compare everything.
fn compare(
    t: &super::translation::Translation,
    block: &Block,
    mem0: &Memory,
    w0: &Wave,
    warm: bool,
    level: WaveLoop,
) {
    let run = |jit: bool| {
        let mem = mem0.copy();
        let mut w = w0.clone();
        let (r, tally) = {
            let mut env = env_over(&mem, &mut [], &mut []);
            (env.shared_base, env.private_base) = (SHARED_BASE, PRIVATE_BASE);
            if warm {
                for a in [DATA, CONST] {
                    assert!(env.spans.plain(&mem, a, 1, Access::Read).is_some());
                }
            }
            let r = if jit {
                // SAFETY: `t` translates `block` for `w`'s size and lives
                // across the call.
                unsafe {
                    run_translated(t.func(), callout(level), &mut w, &mut env, block, 0, &mut 0).0
                }
            } else {
                interpret_block(&mut w, &mut env, block, block.list(w0.wave64))
            };
            (r, env.spans.tally.take())
        };
        (r, w, mem.bytes(), tally)
    };
    let (want, slow, bytes_slow, tally_slow) = run(false);
    let (got, quick, bytes_quick, tally_quick) = run(true);
    let what = format!(
        "{} (EXEC {:#x}:{:#x}, wave64 {}, warm {warm})",
        mnemonics(block),
        w0.sgpr[EXEC + 1],
        w0.sgpr[EXEC],
        w0.wave64
    );
    assert_same_run(&what, (&got, &quick), (&want, &slow));
    assert!(quick.vgpr_hi == slow.vgpr_hi, "{what}: lanes 32..63");
    assert!(bytes_quick == bytes_slow, "{what}: memory");
    assert_eq!(tally_quick, tally_slow, "{what}: bytes tallied");
}

/// One block per form and layout: the access (after a write of its
/// address row now and then, before a second access now and then), its
/// wave, EXEC masks and wave-loop level.
type Case = (std::sync::Arc<Block>, Memory, Wave, [u32; 6], WaveLoop);

/// The case of `block` in `mem` from wave `w`, the `v`th of its form: run
/// at the baseline wave-loop level or the host's best in turn, under the
/// EXEC masks of every memory test (all lanes, random, none, one, the two
/// ends, random again).
fn case(block: std::sync::Arc<Block>, mem: Memory, w: Wave, v: usize, rng: &mut Rng) -> Case {
    let level = if v.is_multiple_of(2) {
        WaveLoop::Baseline
    } else {
        WaveLoop::host_best()
    };
    let lane = rng.below(32);
    let execs = [u32::MAX, rng.value(), 0, 1 << lane, 0x8000_0001, rng.next()];
    (block, mem, w, execs, level)
}

fn cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases = Vec::new();
    for (n, &(text, bytes, size)) in FORMS.iter().enumerate() {
        for (v, &layout) in LAYOUTS.iter().enumerate() {
            let mut code: Vec<u32> = Vec::new();
            if v % 2 == 1 {
                // v_mov_b32 v2, v2: the address row written just before.
                code.push(0x7E04_0302);
            }
            // The pair forms address through v[2:3]: v2 holds the low word.
            if size != 0 && bytes[6] == 0x7c {
                code.push(0x7E04_0304); // v_mov_b32 v2, v4
            }
            code.extend(words(bytes));
            if v % 3 == 0 {
                // A second access, which hits what the first one remembered.
                code.extend(words(FORMS[(n + v) % FORMS.len()].1));
            }
            code.push(0xBFB0_0000); // s_endpgm
            let mem = Memory {
                code: code.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new((0..DATA_LEN).map(|i| (i * 7 + n) as u8).collect()),
                constant: UnsafeCell::new((0..CONST_LEN).map(|i| (i * 13 + v) as u8).collect()),
            };
            let block = CodeCache::new().block(CODE, &mem);
            assert!(
                block
                    .compiled
                    .iter()
                    .any(|c| matches!(c.fast, Fast::SLoad { .. } | Fast::Coalesced(_))),
                "{text}: no scalar or coalesced form"
            );
            // A scalar load's layout steps as a dword access's does.
            let step = if size == 0 { 4 } else { size };
            let w = wave(rng, layout, step as u64);
            cases.push(case(block, mem, w, v, rng));
        }
    }
    cases
}

#[test]
fn scalar_and_global_accesses_match_the_interpreter() {
    let mut rng = Rng::new(0x61_0BA1_5CA1_A4ED);
    let cases = cases(&mut rng);
    check_wave32(&cases);
}

/// The same accesses in wave64 waves: each global access runs inline pass
/// by pass (llvm/wave64.rs), a pass the inline code leaves to the
/// interpreter through a call-out of that pass alone; the EXEC pairs have
/// either half full, empty, one lane or random, so one pass may hit the
/// span cache while the other misses or faults.
#[cfg(unix)]
#[test]
fn wave64_global_accesses_match_the_interpreter() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut rng = Rng::new(0x3C6E_F372_FE94_F82B);
    let cases = cases(&mut rng);
    check_wave64(every_other(cases), &mut rng);
}

/// The 32- and 64-bit integer atomics, csub and the float add the LLVM
/// back end inlines (llvm/atomic.rs): llvm-mc-19 `-mcpu=gfx1100
/// -show-encoding` of the text.
const ATOMICS: [(&str, [u8; 8]); 37] = [
    (
        "global_atomic_add_u32 v10, v2, v6, s[4:5] offset:16 glc",
        [0x10, 0x40, 0xd6, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_sub_u32 v2, v6, s[4:5] offset:-4",
        [0xfc, 0x1f, 0xda, 0xdc, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_cmpswap_b32 v10, v[2:3], v[6:7], off glc",
        [0x00, 0x40, 0xd2, 0xdc, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_cmpswap_b32 v2, v[6:7], s[4:5]",
        [0x00, 0x00, 0xd2, 0xdc, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_min_i32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xe2, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_max_i32 v10, v[2:3], v6, off glc",
        [0x00, 0x40, 0xea, 0xdc, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_min_u32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xe6, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_max_u32 v2, v6, s[4:5]",
        [0x00, 0x00, 0xee, 0xdc, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_and_b32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xf2, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_or_b32 v10, v[2:3], v6, off offset:8 glc",
        [0x08, 0x40, 0xf6, 0xdc, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_xor_b32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xfa, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_swap_b32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xce, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_inc_u32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xfe, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_dec_u32 v10, v[2:3], v6, off glc",
        [0x00, 0x40, 0x02, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "flat_atomic_add_u32 v10, v[2:3], v6 glc",
        [0x00, 0x40, 0xd4, 0xdc, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "flat_atomic_cmpswap_b32 v10, v[2:3], v[6:7] glc",
        [0x00, 0x40, 0xd0, 0xdc, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_add_u64 v[10:11], v2, v[6:7], s[4:5] offset:16 glc",
        [0x10, 0x40, 0x0e, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_cmpswap_b64 v[10:11], v[2:3], v[6:9], off glc",
        [0x00, 0x40, 0x0a, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_cmpswap_b64 v2, v[6:9], s[4:5]",
        [0x00, 0x00, 0x0a, 0xdd, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_min_i64 v2, v[6:7], s[4:5]",
        [0x00, 0x00, 0x16, 0xdd, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_max_u64 v[10:11], v[2:3], v[6:7], off glc",
        [0x00, 0x40, 0x22, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_xor_b64 v[10:11], v2, v[6:7], s[4:5] glc",
        [0x00, 0x40, 0x2e, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_dec_u64 v[10:11], v2, v[6:7], s[4:5] glc",
        [0x00, 0x40, 0x36, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "flat_atomic_inc_u64 v[10:11], v[2:3], v[6:7] glc",
        [0x00, 0x40, 0x30, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "flat_atomic_cmpswap_b64 v[10:11], v[2:3], v[6:9] glc",
        [0x00, 0x40, 0x08, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_add_f32 v10, v2, v6, s[4:5] offset:16 glc",
        [0x10, 0x40, 0x5a, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_add_f32 v[2:3], v6, off",
        [0x00, 0x00, 0x5a, 0xdd, 0x02, 0x06, 0x7c, 0x00],
    ),
    (
        "flat_atomic_add_f32 v10, v[2:3], v6 glc",
        [0x00, 0x40, 0x58, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_csub_u32 v10, v2, v6, s[4:5] glc",
        [0x00, 0x40, 0xde, 0xdc, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_add_u32 v2, v6, s[4:5]",
        [0x00, 0x00, 0xd6, 0xdc, 0x02, 0x06, 0x04, 0x00],
    ),
    (
        "global_atomic_sub_u64 v[10:11], v2, v[6:7], s[4:5] glc",
        [0x00, 0x40, 0x12, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_and_b64 v[10:11], v[2:3], v[6:7], off glc",
        [0x00, 0x40, 0x26, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_min_f32 v10, v2, v6, s[4:5] offset:16 glc",
        [0x10, 0x40, 0x46, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
    (
        "global_atomic_max_f32 v[2:3], v6, off",
        [0x00, 0x00, 0x4a, 0xdd, 0x02, 0x06, 0x7c, 0x00],
    ),
    (
        "flat_atomic_max_f32 v10, v[2:3], v6 glc",
        [0x00, 0x40, 0x48, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "flat_atomic_min_f32 v10, v[2:3], v6 glc",
        [0x00, 0x40, 0x44, 0xdd, 0x02, 0x06, 0x7c, 0x0a],
    ),
    (
        "global_atomic_min_u64 v[10:11], v2, v[6:7], s[4:5] glc",
        [0x00, 0x40, 0x1a, 0xdd, 0x02, 0x06, 0x04, 0x0a],
    ),
];

/// Each atomic in every layout (all lanes at one address, colliding
/// scattered lanes, unaligned, read-only, straddling, outside, an
/// aperture lane), twice in a row now and then, from data that is small
/// (inc and dec wrap; denormal floats), random, NaNs, infinities and zeros
/// of both signs for the float add, minimum and maximum (NaNs and zeros in
/// memory too), or the memory's word (cmpswap succeeds),
/// under the EXEC masks of the loads and stores: every register, the
/// memory, the outcome and the bytes tallied match the interpreter, and
/// every entry runs inline.
#[test]
fn global_atomics_match_the_interpreter() {
    let mut rng = Rng::new(0x0A70_41C5_0FC0_FFEE);
    let cases = atomic_cases(&mut rng);
    check_wave32(&cases);
}

/// The same atomics in wave64 waves: each 32-lane pass runs inline as a
/// wave32 atomic over that half (llvm/wave64.rs), as the interpreter's
/// `run_wave64_memory` runs it, a pass the inline code leaves to the
/// interpreter through a call-out of that pass alone; the EXEC pairs mix
/// full, empty, one-lane and random halves.
#[cfg(unix)]
#[test]
fn wave64_global_atomics_match_the_interpreter() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut rng = Rng::new(0x5EED_0A70_6464_B00C);
    let cases = atomic_cases(&mut rng);
    check_wave64(every_other(cases), &mut rng);
}

/// One block per atomic and layout (see [`global_atomics_match_the_interpreter`]),
/// its wave's 64 lanes set up alike.
fn atomic_cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n, &(text, bytes)) in ATOMICS.iter().enumerate() {
        for (v, &layout) in LAYOUTS.iter().enumerate() {
            let mut code: Vec<u32> = Vec::new();
            // The pair forms address through v[2:3]: v2 holds the low word.
            if bytes[6] == 0x7c {
                code.push(0x7E04_0304); // v_mov_b32 v2, v4
            }
            code.extend(words(bytes));
            if v % 3 == 0 {
                code.extend(words(bytes));
            }
            code.push(0xBFB0_0000); // s_endpgm
            let mut data: Vec<u8> = (0..DATA_LEN).map(|i| (i * 7 + n) as u8).collect();
            if text.contains("_f32") {
                // A signalling NaN in every fifth word: a NaN old value;
                // zeros of both signs in others (the minimum and maximum
                // keep memory's where the data is the other zero).
                for (k, word) in data.chunks_exact_mut(4).enumerate() {
                    match k % 5 {
                        0 => word.copy_from_slice(&(0x7FA0_0000 | k as u32).to_le_bytes()),
                        3 => word.copy_from_slice(&(((k as u32) & 8) << 28).to_le_bytes()),
                        _ => {}
                    }
                }
            }
            let wide = text.contains("64");
            let mut w = wave(rng, layout, if wide { 8 } else { 4 });
            let lane = |w: &Wave, r: usize, l: usize| {
                if l < 32 {
                    w.vgpr[r][l]
                } else {
                    w.vgpr_hi[r][l - 32]
                }
            };
            for l in 0..64 {
                let at = if bytes[6] == 0x7c {
                    (lane(&w, 3, l) as u64) << 32 | lane(&w, 4, l) as u64
                } else {
                    (w.sgpr[4] as u64 | (w.sgpr[5] as u64) << 32)
                        .wrapping_add(lane(&w, 2, l) as u64)
                };
                // The memory's word (or qword) as the compare value,
                // small data (inc and dec wrap) or the random registers.
                let len = if wide { 8 } else { 4 };
                let word = at
                    .checked_sub(DATA)
                    .and_then(|o| data.get(o as usize..o as usize + len))
                    .map(|b| {
                        b.chunks(4)
                            .map(|d| u32::from_le_bytes(d.try_into().unwrap()))
                    });
                match (l % 3, word) {
                    (0, Some(words)) => {
                        for (k, word) in words.enumerate() {
                            w.set_lane(if wide { 8 + k } else { 7 }, l, word);
                        }
                    }
                    (1, _) => {
                        w.set_lane(6, l, rng.below(8));
                        if wide {
                            w.set_lane(7, l, 0);
                        }
                    }
                    _ => {}
                }
                // Signalling and quiet NaNs of both signs and the two
                // infinities as the float add's data: its NaN rule, the
                // quieting and inf - inf.
                if text.contains("_f32") && l % 5 == 2 {
                    let special = [0x7F80_0001 + l as u32, 0xFFC0_0000 | l as u32, 0x7F80_0000];
                    w.set_lane(6, l, *special.get(l / 5 % 4).unwrap_or(&0xFF80_0000));
                }
                // Zeros of both signs as data.
                if text.contains("_f32") && l % 7 == 4 {
                    w.set_lane(6, l, (l as u32 & 1) << 31);
                }
            }
            let mem = Memory {
                code: code.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new(data),
                constant: UnsafeCell::new((0..CONST_LEN).map(|i| (i * 13 + v) as u8).collect()),
            };
            let block = CodeCache::new().block(CODE, &mem);
            assert!(
                block
                    .compiled
                    .iter()
                    .any(|c| matches!(c.fast, Fast::GlobalAtomic(_))),
                "{text}: no atomic form"
            );
            cases.push(case(block, mem, w, v, rng));
        }
    }
    cases
}

/// Run each case's block (every entry inline) in wave32 waves under each of
/// its EXEC masks, translated and interpreted, from a cold and a warm span
/// cache, and compare everything.
fn check_wave32(cases: &[Case]) {
    for backend in backends() {
        if !matches!(backend, Backend::Llvm) {
            continue;
        }
        let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
        let ts = backend.translate(&blocks);
        for ((block, mem, w, execs, level), t) in cases.iter().zip(&ts) {
            let mut w = w.clone();
            for &exec in execs {
                w.sgpr[EXEC] = exec;
                for warm in [false, true] {
                    compare(t, block, mem, &w, warm, *level);
                }
            }
            assert_eq!(t.inlined, block.compiled.len(), "every entry inline");
        }
    }
}

/// Half the form and layout pairs of `cases` (each form with every other
/// layout, the next form with the rest): a wave64 module is twice the size.
#[cfg(unix)]
fn every_other(cases: Vec<Case>) -> Vec<Case> {
    cases
        .into_iter()
        .enumerate()
        .filter(|(k, _)| (k / LAYOUTS.len() + k % LAYOUTS.len()).is_multiple_of(2))
        .map(|(_, c)| c)
        .collect()
}

/// [`check_wave32`] in wave64 waves, under EXEC pairs of the case's masks
/// (each with a random other one, both ways round).
#[cfg(unix)]
fn check_wave64(cases: Vec<Case>, rng: &mut Rng) {
    let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
    let ts = super::llvm::translate_all(&blocks, true).expect("the blocks translate");
    for ((block, mem, w, execs, level), t) in cases.iter().zip(&ts) {
        let mut w = w.clone();
        w.wave64 = true;
        for (k, &lo) in execs.iter().enumerate() {
            let hi = execs[(k + 1 + rng.below(5) as usize) % execs.len()];
            for pair in [(lo, hi), (hi, lo)] {
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = pair;
                for warm in [false, true] {
                    compare(t, block, mem, &w, warm, *level);
                }
            }
        }
        assert_eq!(t.inlined, block.compiled64.len(), "every entry inline");
    }
}

/// gfx11 MUBUF loads and stores of raw bytes without an index, which the
/// LLVM back end inlines (llvm/buffer.rs): llvm-mc-19 `-mcpu=gfx1100
/// -show-encoding` of the text.
const BUFFERS: [(&str, [u8; 8]); 15] = [
    (
        "buffer_load_b32 v10, v2, s[8:11], s6 offen offset:16",
        [0x10, 0x00, 0x50, 0xe0, 0x02, 0x0a, 0x42, 0x06],
    ),
    (
        "buffer_load_b64 v[10:11], v2, s[8:11], 0 offen",
        [0x00, 0x00, 0x54, 0xe0, 0x02, 0x0a, 0x42, 0x80],
    ),
    (
        "buffer_load_b128 v[10:13], v2, s[8:11], 4 offen offset:8",
        [0x08, 0x00, 0x5c, 0xe0, 0x02, 0x0a, 0x42, 0x84],
    ),
    (
        "buffer_load_b32 v10, off, s[8:11], s6 offset:4",
        [0x04, 0x00, 0x50, 0xe0, 0x00, 0x0a, 0x02, 0x06],
    ),
    (
        "buffer_load_b96 v[10:12], v2, s[8:11], -1 offen",
        [0x00, 0x00, 0x58, 0xe0, 0x02, 0x0a, 0x42, 0xc1],
    ),
    (
        "buffer_store_b32 v6, v2, s[8:11], s6 offen offset:12",
        [0x0c, 0x00, 0x68, 0xe0, 0x02, 0x06, 0x42, 0x06],
    ),
    (
        "buffer_store_b96 v[6:8], v2, s[8:11], 0 offen",
        [0x00, 0x00, 0x70, 0xe0, 0x02, 0x06, 0x42, 0x80],
    ),
    (
        "buffer_store_b64 v[6:7], v2, s[8:11], 64 offen offset:4",
        [0x04, 0x00, 0x6c, 0xe0, 0x02, 0x06, 0x42, 0xc0],
    ),
    (
        "buffer_store_b128 v[6:9], off, s[8:11], s6 offset:32",
        [0x20, 0x00, 0x74, 0xe0, 0x00, 0x06, 0x02, 0x06],
    ),
    (
        "buffer_load_u8 v10, v2, s[8:11], 0 offen offset:3",
        [0x03, 0x00, 0x40, 0xe0, 0x02, 0x0a, 0x42, 0x80],
    ),
    (
        "buffer_load_i16 v10, v2, s[8:11], s6 offen",
        [0x00, 0x00, 0x4c, 0xe0, 0x02, 0x0a, 0x42, 0x06],
    ),
    (
        "buffer_load_d16_hi_b16 v10, v2, s[8:11], 0 offen offset:2",
        [0x02, 0x00, 0x8c, 0xe0, 0x02, 0x0a, 0x42, 0x80],
    ),
    (
        "buffer_store_b16 v6, v2, s[8:11], 0 offen",
        [0x00, 0x00, 0x64, 0xe0, 0x02, 0x06, 0x42, 0x80],
    ),
    (
        "buffer_store_d16_hi_b16 v6, v2, s[8:11], s6 offen",
        [0x00, 0x00, 0x94, 0xe0, 0x02, 0x06, 0x42, 0x06],
    ),
    (
        "buffer_load_b32 v2, v2, s[8:11], null offen",
        [0x00, 0x00, 0x50, 0xe0, 0x02, 0x02, 0x42, 0x7c],
    ),
];

/// Each raw buffer access in every layout (its base in the resource, v2
/// each lane's offset), twice in a row now and then, through resources
/// whose num_records holds every lane, some, or none, under each
/// oob_select and random strides, now and then swizzled or with add_tid
/// (the call-out, where the interpreter refuses or indexes by lane), under
/// the EXEC masks of the loads and stores: every register, the memory, the
/// outcome and the bytes tallied match the interpreter, and every entry
/// runs inline.
#[test]
fn raw_buffer_accesses_match_the_interpreter() {
    let mut rng = Rng::new(0xB0FF_E4ED_0A11_57A7);
    check_wave32(&buffer_cases(&mut rng));
}

/// The same accesses in wave64 waves: each 32-lane pass runs inline as a
/// wave32 access over that half (llvm/wave64.rs), as the interpreter runs
/// a wave64 buffer access pass by pass; the EXEC pairs mix full, empty,
/// one-lane and random halves.
#[cfg(unix)]
#[test]
fn wave64_raw_buffer_accesses_match_the_interpreter() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut rng = Rng::new(0x64B0_FFE4_ED0A_1157);
    let cases = buffer_cases(&mut rng);
    check_wave64(every_other(cases), &mut rng);
}

/// One block per raw buffer access and layout (see
/// [`raw_buffer_accesses_match_the_interpreter`]), its wave's 64 lanes set
/// up alike.
fn buffer_cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n, &(text, bytes)) in BUFFERS.iter().enumerate() {
        let size = match text.split_whitespace().next() {
            Some(op) if op.ends_with("b128") => 16,
            Some(op) if op.ends_with("b96") => 12,
            Some(op) if op.ends_with("b64") => 8,
            Some(op) if op.ends_with("8") => 1,
            Some(op) if op.ends_with("16") => 2,
            _ => 4,
        };
        for (v, &layout) in LAYOUTS.iter().enumerate() {
            let mut code: Vec<u32> = words(bytes).to_vec();
            if v % 3 == 0 {
                code.extend(words(BUFFERS[(n + v) % BUFFERS.len()].1));
            }
            code.push(0xBFB0_0000); // s_endpgm
            let mem = Memory {
                code: code.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new((0..DATA_LEN).map(|i| (i * 7 + n) as u8).collect()),
                constant: UnsafeCell::new((0..CONST_LEN).map(|i| (i * 13 + v) as u8).collect()),
            };
            let block = CodeCache::new().block(CODE, &mem);
            assert!(
                block.compiled.iter().all(|c| {
                    let i = &block.insts[c.index as usize];
                    matches!(c.fast, Fast::End)
                        || crate::gfx11::exec::vmem::mubuf::RawBuffer::of_inst(i).is_some()
                }),
                "{text}: not a raw buffer access"
            );
            let mut w = wave(rng, layout, size);
            let base = w.sgpr[4] as u64 | (w.sgpr[5] as u64) << 32;
            // About the 32 lanes' reach, and num_records holding none,
            // some or all of them.
            let reach = 32 * size as u32 + 48;
            let records = match rng.below(5) {
                0 => 0,
                1 => rng.below(reach),
                2 => rng.next(),
                _ => u32::MAX,
            };
            let stride = match rng.below(3) {
                0 => 0x3FFF,
                1 => rng.below(1 << 14),
                _ => 16,
            };
            let (swizzle, add_tid) = (rng.below(8) == 0, rng.below(8) == 0);
            w.sgpr[8] = base as u32;
            w.sgpr[9] = (base >> 32) as u32 & 0xFFFF | stride << 16 | (swizzle as u32) << 30;
            w.sgpr[10] = records;
            w.sgpr[11] = 0x0001_6FAC | rng.below(4) << 28 | (add_tid as u32) << 23;
            cases.push(case(block, mem, w, v, rng));
        }
    }
    cases
}
