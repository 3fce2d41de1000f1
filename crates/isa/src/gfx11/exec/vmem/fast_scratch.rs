//! Pre-resolved SCRATCH dword loads and stores: scratch_load_b32
//! .. b128 and scratch_store_b32 .. b128 with any address mode (no address
//! register, an SGPR, a VGPR, or both) in wave32, and each 32-lane pass of
//! a wave64 ([`run_half`]). Through `step` each one
//! paid the family dispatch, the opcode's `MemKind` lookup and the size and
//! kind matches of vmem's fast path, about half of a spill or reload's cost;
//! here the width and registers are resolved once, when the block is decoded.
//!
//! Each run is vmem's `scratch_in_range` for these widths, on its helpers:
//! the same lane addresses (`scratch_uniform`, `scratch_lanes_at`), the same
//! slot (`slot_base`) and the same bound (`lanes_fit`). Where every active lane has the same aligned
//! address it moves whole rows of the interleaved layout (private_layout.rs),
//! which is what the per-lane aligned path computes there; otherwise the
//! per-lane aligned path itself. It declines (nothing done) for no active
//! lane, an unaligned address, a lane out of its segment, or a slot the
//! scratch buffer does not hold: `step` then runs the instruction and
//! reports any fault itself. Sub-dword and d16 forms are not
//! pre-resolved. Private accesses record nothing for strict coherence (they
//! never reach `GpuMemory`), so nothing else is left out.
//!
//! A wave64 pass runs the same body on its half (`w.half`, `w.exec()`),
//! as `step`'s pass does: the slot is the half's (`slot_base` through
//! `Wave::scratch_slot`) and a row interleaves the wave's 64 lanes
//! (`row_lanes`), so lane `l` of the high half is lane 32 + l of the wave
//! in each row (private_layout.rs). A pass that declines has done nothing;
//! `step_halves` then runs `step`'s pass, which faults where the
//! instruction faults, before the high pass when it is the low one.
//!
//! An observed dispatch (the sanitizer) runs [`run_observed`]: the same
//! body, which shows the observer the access just before it moves any
//! bytes, as vmem's `flat` does through observe.rs (one private-segment
//! call for the active lanes, at each lane's offset in its segment). When
//! it declines it has shown nothing: `step` then shows the access itself.
//! The two are separate monomorphisations of one body (`OBSERVED`), so the
//! unobserved one compiles as it would without the observed one.

use crate::Access;
use crate::gfx11::exec::env::Env;
use crate::gfx11::exec::observe;
use crate::gfx11::exec::vmem::mem::le_row;
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::exec::vmem::private_layout::{lane_byte, lane_byte32, row_lanes};
use crate::gfx11::exec::vmem::{
    keep_inactive, lanes_fit, scratch_lanes_at, scratch_uniform, slot_base,
};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::wave::{EXEC, LANE_BIT, LANES, Lanes, Wave};
use crate::wave_loop::with_avx2_copy;

/// A SCRATCH load or store of `dwords` (1..=4) dwords per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scratch {
    pub(crate) store: bool,
    pub(crate) dwords: u8,
    /// The loaded (dst) or stored (data) VGPR.
    pub(crate) reg: u8,
    /// The per-lane offset VGPR (SVE), None in ST mode.
    pub(crate) vaddr: Option<u8>,
    /// The SGPR added to every lane, NULL for none.
    pub(crate) saddr: u8,
    pub(crate) imm: i32,
}

impl Scratch {
    pub(crate) fn of_inst(i: &Inst) -> Option<Scratch> {
        // gfx90a's FLAT_SCRATCH check takes the general path.
        if i.family != Family::Scratch || i.dpp.is_some() || i.flags & Inst::FLAT_SCRATCH_BASE != 0
        {
            return None;
        }
        let (store, size, reg) = match mem_kind(i.op) {
            MemKind::Load(size, false, 0) => (false, size, u8::try_from(i.dst).ok()?),
            MemKind::Store(size, false) => (true, size, i.data[0]),
            _ => return None,
        };
        if !matches!(size, 4 | 8 | 12 | 16) {
            return None;
        }
        Some(Scratch {
            store,
            dwords: (size / 4) as u8,
            reg,
            vaddr: (i.flags & Inst::SVE != 0).then_some(i.addr),
            saddr: i.saddr,
            imm: i.imm,
        })
    }
}

with_avx2_copy! {
    /// Run `s` in a wave32 wave: true when done, false (nothing done) when it
    /// declines to `step`. Out of line (each width's body is large), so it
    /// runs its own AVX2 copy where the wave loop's level (wave_loop.rs) is
    /// AVX2 or above: the per-lane address and blend loops then take 8 lanes
    /// per vector instruction instead of SSE2's 4, with the same results.
    #[inline(never)]
    pub(crate) fn run(w: &mut Wave, env: &mut Env, s: &Scratch) -> bool => run_here
}

with_avx2_copy! {
    /// Run `s` on the current 32-lane pass of a wave64 wave (`w.half`):
    /// true when done, false (nothing done) when it declines to `step`'s
    /// pass. Unobserved dispatches only, as [`run`].
    #[inline(never)]
    pub(crate) fn run_half(w: &mut Wave, env: &mut Env, s: &Scratch) -> bool => run_half_here
}

with_avx2_copy! {
    /// [`run`] in an observed dispatch (`Env::observer` set): a run that
    /// goes ahead first shows the observer its access; one that declines
    /// shows nothing, leaving that to `step`.
    #[inline(never)]
    pub(crate) fn run_observed(w: &mut Wave, env: &mut Env, s: &Scratch, pc: u64) -> bool
        => run_observed_here
}

#[inline(always)]
fn run_here(w: &mut Wave, env: &mut Env, s: &Scratch) -> bool {
    match s.dwords {
        1 => run_n::<1, false, false>(w, env, s, 0),
        2 => run_n::<2, false, false>(w, env, s, 0),
        3 => run_n::<3, false, false>(w, env, s, 0),
        _ => run_n::<4, false, false>(w, env, s, 0),
    }
}

#[inline(always)]
fn run_half_here(w: &mut Wave, env: &mut Env, s: &Scratch) -> bool {
    match s.dwords {
        1 => run_n::<1, false, true>(w, env, s, 0),
        2 => run_n::<2, false, true>(w, env, s, 0),
        3 => run_n::<3, false, true>(w, env, s, 0),
        _ => run_n::<4, false, true>(w, env, s, 0),
    }
}

#[inline(always)]
fn run_observed_here(w: &mut Wave, env: &mut Env, s: &Scratch, pc: u64) -> bool {
    match s.dwords {
        1 => run_n::<1, true, false>(w, env, s, pc),
        2 => run_n::<2, true, false>(w, env, s, pc),
        3 => run_n::<3, true, false>(w, env, s, pc),
        _ => run_n::<4, true, false>(w, env, s, pc),
    }
}

/// Show the observer the access `s` of the instruction at `pc` is about
/// to make (`OBSERVED` only), with `uniform` its lanes' shared address.
#[inline(always)]
fn show<const N: usize, const OBSERVED: bool>(
    w: &Wave,
    env: &mut Env,
    s: &Scratch,
    pc: u64,
    uniform: u32,
) {
    if OBSERVED {
        let access = if s.store { Access::Write } else { Access::Read };
        observe::scratch(w, env, pc, s.vaddr, uniform, 4 * N as u32, access);
    }
}

/// `s` of `N` dwords on the current 32 lanes; `W64`: a wave64's pass,
/// whose rows interleave `row_lanes` lanes (the wave32 run's 32 a constant).
#[inline(always)]
fn run_n<const N: usize, const OBSERVED: bool, const W64: bool>(
    w: &mut Wave,
    env: &mut Env,
    s: &Scratch,
    pc: u64,
) -> bool {
    let exec = if W64 { w.exec() } else { w.sgpr[EXEC] };
    if exec == 0 {
        return false;
    }
    let row = if W64 {
        row_lanes(env.scratch_wave64)
    } else {
        LANES
    };
    let size = 4 * N;
    let per = env.scratch_per_lane;
    let Some(base) = slot_base(env, w) else {
        return false;
    };
    let uniform = scratch_uniform(w, s.saddr, s.imm);
    let Some(vaddr) = s.vaddr else {
        if !uniform.is_multiple_of(4) || uniform as usize + size > per {
            return false;
        }
        show::<N, OBSERVED>(w, env, s, pc, uniform);
        rows::<N>(w, s, exec, base, row, uniform);
        return true;
    };
    let (active, bound, differ) = scratch_lanes_at(&w.vgpr[vaddr as usize], uniform, exec);
    if bound % 4 != 0 {
        return false;
    }
    if differ == 0 {
        // Every active lane at one address (= bound, = the maximum).
        if bound as usize + size > per {
            return false;
        }
        show::<N, OBSERVED>(w, env, s, pc, uniform);
        rows::<N>(w, s, exec, base, row, bound);
        return true;
    }
    if !lanes_fit(&active, bound, size, per) {
        return false;
    }
    show::<N, OBSERVED>(w, env, s, pc, uniform);
    lanes::<N>(w, s, exec, base, row, &active);
    true
}

/// Every lane's `N` dwords at aligned `addr` of the half at `base`, in rows
/// of `row_lanes` lanes (the caller checked `addr + 4 * N <= per`): dword `k` of
/// the 32 lanes is one contiguous row.
#[inline(always)]
fn rows<const N: usize>(
    w: &mut Wave,
    s: &Scratch,
    exec: u32,
    base: *mut u8,
    row_lanes: usize,
    addr: u32,
) {
    // SAFETY: addr + 4 * k + 4 <= per, so the row's LANES dwords lie inside the half's span (private_layout::half_span), which slot_base checked.
    let row = |k: usize| unsafe {
        base.add(lane_byte(row_lanes, 0, addr as usize + 4 * k)) as *mut Lanes
    };
    for k in 0..N {
        if s.store {
            let mut mem = le_row(w.vgpr[(s.reg as usize + k) & 255]);
            if exec != u32::MAX {
                // SAFETY: as `row`; unaligned read.
                keep_inactive(&mut mem, &unsafe { row(k).read_unaligned() }, exec);
            }
            // SAFETY: as `row`; unaligned write.
            unsafe { row(k).write_unaligned(mem) };
        } else {
            // SAFETY: as `row`; unaligned read.
            let vals = le_row(unsafe { row(k).read_unaligned() });
            w.write_vgpr(s.reg as usize + k, &vals, exec);
        }
    }
}

/// Lane `l`'s `N` dwords at aligned `addrs[l]` (0 for the inactive lanes)
/// of the half at `base`, in rows of `row_lanes` lanes, each of which the caller
/// checked fits the lane's segment; dword `k` of a lane sits `4 * row_lanes * k`
/// bytes after its first.
#[inline(always)]
fn lanes<const N: usize>(
    w: &mut Wave,
    s: &Scratch,
    exec: u32,
    base: *mut u8,
    row_lanes: usize,
    addrs: &Lanes,
) {
    let mut offs = [0u32; LANES];
    for l in 0..LANES {
        offs[l] = lane_byte32(row_lanes as u32, l as u32, addrs[l]);
    }
    // SAFETY: lane l's access lies inside its segment, so inside the half's span (the caller's check); dword k at + 4 * row_lanes * k.
    let at = move |l: usize, k: usize| unsafe { base.add(offs[l] as usize + 4 * row_lanes * k) };
    if s.store {
        // SAFETY: as `at`; unaligned write.
        let put = |l: usize, k: usize, v: u32| unsafe {
            (at(l, k) as *mut u32).write_unaligned(v.to_le())
        };
        for k in 0..N {
            let row = w.vgpr[(s.reg as usize + k) & 255];
            // Two loops, so that the common all-lanes case tests no EXEC bits.
            if exec == u32::MAX {
                for l in 0..LANES {
                    put(l, k, row[l]);
                }
            } else {
                for l in 0..LANES {
                    if exec & LANE_BIT[l] != 0 {
                        put(l, k, row[l]);
                    }
                }
            }
        }
    } else {
        let mut rows = [[0u32; LANES]; N];
        for (k, row) in rows.iter_mut().enumerate() {
            for l in 0..LANES {
                // SAFETY: as `at`; unaligned read.
                row[l] = u32::from_le(unsafe { (at(l, k) as *const u32).read_unaligned() });
            }
        }
        for (k, row) in rows.iter().enumerate() {
            w.write_vgpr(s.reg as usize + k, row, exec);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::exec::fast::{Fast, compile, run as fast_run, run_with_pc};
    use crate::gfx11::exec::valu::wave64::high_pass;
    use crate::gfx11::exec::{ExecResult, NoMemory, slot_bytes, step, test_inst};
    use crate::gfx11::wave::NULL;
    use crate::observer::{LaneAccesses, Segment, WaveSync, WorkgroupObserver};

    const PER_LANE: usize = 48;

    /// llvm-mc-19 encodings: the dword forms in every address mode, then
    /// sub-dword and d16 forms (never pre-resolved).
    const FORMS: &[(&str, [u8; 8])] = &[
        (
            "scratch_load_b32 v10, off, s4 offset:8",
            [0x08, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x04, 0x0a],
        ),
        (
            "scratch_load_b32 v10, off, off offset:12",
            [0x0c, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a],
        ),
        (
            "scratch_load_b32 v10, v2, off",
            [0x00, 0x00, 0x51, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
        ),
        (
            "scratch_load_b32 v10, v2, s4 offset:-4",
            [0xfc, 0x1f, 0x51, 0xdc, 0x02, 0x00, 0x84, 0x0a],
        ),
        (
            "scratch_load_b64 v[10:11], off, s4 offset:16",
            [0x10, 0x00, 0x55, 0xdc, 0x00, 0x00, 0x04, 0x0a],
        ),
        (
            "scratch_load_b64 v[2:3], v2, off offset:8",
            [0x08, 0x00, 0x55, 0xdc, 0x02, 0x00, 0xfc, 0x02],
        ),
        (
            "scratch_load_b96 v[10:12], v2, off offset:4",
            [0x04, 0x00, 0x59, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
        ),
        (
            "scratch_load_b128 v[10:13], off, off offset:20",
            [0x14, 0x00, 0x5d, 0xdc, 0x00, 0x00, 0x7c, 0x0a],
        ),
        (
            "scratch_load_b128 v[10:13], v2, s4",
            [0x00, 0x00, 0x5d, 0xdc, 0x02, 0x00, 0x84, 0x0a],
        ),
        (
            "scratch_store_b32 off, v20, s4 offset:8",
            [0x08, 0x00, 0x69, 0xdc, 0x00, 0x14, 0x04, 0x00],
        ),
        (
            "scratch_store_b32 off, v20, off offset:4",
            [0x04, 0x00, 0x69, 0xdc, 0x00, 0x14, 0x7c, 0x00],
        ),
        (
            "scratch_store_b32 v2, v20, off",
            [0x00, 0x00, 0x69, 0xdc, 0x02, 0x14, 0xfc, 0x00],
        ),
        (
            "scratch_store_b32 v2, v20, s4 offset:-4",
            [0xfc, 0x1f, 0x69, 0xdc, 0x02, 0x14, 0x84, 0x00],
        ),
        (
            "scratch_store_b64 off, v[20:21], s4 offset:16",
            [0x10, 0x00, 0x6d, 0xdc, 0x00, 0x14, 0x04, 0x00],
        ),
        (
            "scratch_store_b64 v2, v[20:21], off offset:8",
            [0x08, 0x00, 0x6d, 0xdc, 0x02, 0x14, 0xfc, 0x00],
        ),
        (
            "scratch_store_b96 off, v[20:22], off offset:4",
            [0x04, 0x00, 0x71, 0xdc, 0x00, 0x14, 0x7c, 0x00],
        ),
        (
            "scratch_store_b128 v2, v[20:23], off",
            [0x00, 0x00, 0x75, 0xdc, 0x02, 0x14, 0xfc, 0x00],
        ),
        (
            "scratch_store_b128 off, v[20:23], s4 offset:12",
            [0x0c, 0x00, 0x75, 0xdc, 0x00, 0x14, 0x04, 0x00],
        ),
        (
            "scratch_load_u8 v10, v2, off offset:3",
            [0x03, 0x00, 0x41, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
        ),
        (
            "scratch_load_d16_hi_b16 v10, off, s4",
            [0x00, 0x00, 0x8d, 0xdc, 0x00, 0x00, 0x04, 0x0a],
        ),
        (
            "scratch_store_b16 off, v20, s4 offset:6",
            [0x06, 0x00, 0x65, 0xdc, 0x00, 0x14, 0x04, 0x00],
        ),
        (
            "scratch_store_d16_hi_b8 v2, v20, off",
            [0x00, 0x00, 0x91, 0xdc, 0x02, 0x14, 0xfc, 0x00],
        ),
    ];

    fn env<'a>(scratch: &'a mut [u8], lds: &'a mut [u8]) -> Env<'a> {
        Env {
            mem: &NoMemory,
            lds,
            scratch,
            scratch_va: 0,
            scratch_wave_bytes: slot_bytes(PER_LANE),
            scratch_wave64: false,
            scratch_per_lane: PER_LANE,
            shared_base: 0,
            private_base: 0x7000_0000_0000_0000,
            // A test environment owns its cache: a few hundred bytes, leaked.
            spans: Box::leak(Box::default()),
            lds_bank_conflicts: None,
            observer: None,
        }
    }

    /// A xorshift64 stream.
    fn rng() -> impl FnMut() -> u64 {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Round `round`'s wave and scratch bytes for `i`: random registers,
    /// EXEC masks, scratch bytes and addresses (one address for every lane,
    /// per-lane aligned ones, unaligned ones, lanes out of their segment or
    /// past 2^31), in wave slot 1 or 2.
    fn random_case(i: &Inst, round: usize, next: &mut impl FnMut() -> u64) -> (Wave, Vec<u8>) {
        let mut w = Wave {
            index: if round % 37 == 36 { 2 } else { 1 },
            ..Wave::default()
        };
        w.sgpr[EXEC] = match round % 5 {
            0 | 1 => u32::MAX,
            2 => next() as u32,
            3 => 1 << (next() % 32),
            _ if round % 10 == 4 => 0,
            _ => next() as u32 & next() as u32,
        };
        for (r, row) in w.vgpr.iter_mut().enumerate() {
            for (l, v) in row.iter_mut().enumerate() {
                *v = (next() as u32) ^ (r << 8 | l) as u32;
            }
        }
        // Addresses: mostly in range and aligned, one lane (or all)
        // moved out of range or off alignment now and then.
        let pick = |x: u64| -> u32 {
            match x % 16 {
                0 => (x >> 8) as u32,
                1 => PER_LANE as u32 - (x >> 8) as u32 % 8,
                2 => 0x8000_0000 | ((x >> 8) as u32 % 64),
                3 => 1 + 4 * ((x >> 8) as u32 % 10),
                4 | 5 => 2 + 4 * ((x >> 8) as u32 % 10),
                _ => 4 * ((x >> 8) as u32 % 10),
            }
        };
        let target = pick(next());
        let uniform_lanes = round.is_multiple_of(3);
        w.sgpr[4] = if round.is_multiple_of(4) {
            pick(next())
        } else {
            4 * (next() % 4) as u32
        };
        let base = w.sgpr[4].wrapping_add(i.imm as u32);
        let base = if i.saddr as usize != NULL {
            base
        } else {
            i.imm as u32
        };
        for l in 0..LANES {
            let a = if uniform_lanes && !next().is_multiple_of(64) {
                target
            } else if next().is_multiple_of(8) {
                pick(next())
            } else {
                4 * (next() % 10) as u32
            };
            w.vgpr[2][l] = a.wrapping_sub(base);
        }
        if round.is_multiple_of(7) && i.flags & Inst::SVE == 0 {
            w.sgpr[4] = pick(next());
        }
        let init: Vec<u8> = (0..3 * LANES * PER_LANE).map(|_| next() as u8).collect();
        (w, init)
    }

    /// Every form, through its pre-resolved run (and `step` where that
    /// declines, as the wave loop does) and through `step` alone, on random
    /// registers, EXEC masks, scratch bytes and addresses: one address for
    /// every lane, per-lane aligned ones, unaligned ones, lanes out of their
    /// segment or past 2^31, in wave slots 1 and 2. The two give the same
    /// result, registers and scratch bytes; a form that declines has changed
    /// nothing; both outcomes occur, the pre-resolved one most often.
    #[test]
    fn pre_resolved_scratch_matches_step() {
        let mut next = rng();
        let mut lds = vec![0u8; 4];
        let (mut taken, mut declined) = (0, 0);
        for (text, bytes) in FORMS {
            let i = test_inst(*bytes);
            assert_eq!(&i.mnemonic, &text.split(' ').next().unwrap(), "{text}");
            let form = compile(&i, 0);
            let dword = matches!(form, Fast::Scratch(_));
            let sub_dword = ["_u8", "_b16", "_d16", "_b8"]
                .iter()
                .any(|s| text.contains(s));
            assert_eq!(dword, !sub_dword, "{text}: {form:?}");
            for round in 0..400 {
                let (w, init) = random_case(&i, round, &mut next);

                let (mut want_w, mut want_s) = (w.clone(), init.clone());
                let want: ExecResult = step(&mut want_w, &mut env(&mut want_s, &mut lds), &i);

                let ctx = format!("{text}: round {round}, exec {:#x}", w.sgpr[EXEC]);
                let (mut got_w, mut got_s) = (w.clone(), init.clone());
                let e = &mut env(&mut got_s, &mut lds);
                let (got, fast) = match fast_run(&mut got_w, e, &form) {
                    Some(flow) => (Ok(flow), true),
                    None => {
                        assert!(
                            got_w.vgpr == w.vgpr && got_w.sgpr == w.sgpr && *e.scratch == init[..],
                            "{ctx}: declined after a change"
                        );
                        (step(&mut got_w, e, &i), false)
                    }
                };
                assert_eq!(got, want, "{ctx}");
                assert!(got_w.vgpr == want_w.vgpr, "{ctx}: VGPRs");
                assert!(got_w.sgpr == want_w.sgpr, "{ctx}: SGPRs");
                assert!(got_s == want_s, "{ctx}: scratch bytes");
                if fast {
                    taken += 1;
                    assert!(dword, "{ctx}");
                } else if dword {
                    declined += 1;
                }
            }
        }
        // Both outcomes are exercised, and the common case runs pre-resolved.
        assert!(
            taken > 3000 && declined > 500,
            "taken {taken}, declined {declined}"
        );
    }

    /// Lane `l`'s private address in a wave64 half's `case`.
    fn half_addr(case: &str, l: usize) -> u32 {
        match case {
            "one address" | "partial exec" | "no lanes" => 12,
            "scattered" => 4 * ((l as u32 * 7 + 3) % 9),
            "unaligned" => 2 + 4 * (l as u32 % 5),
            "out of range" if l == 9 => PER_LANE as u32 - 4,
            "past 2^31" if l == 3 => 0x8000_0004,
            _ => 4 * (l as u32 % 6),
        }
    }

    /// Wave64 SCRATCH dword forms through `run_wave64_memory` (each 32-lane
    /// pass through `run_half`, or `step`'s pass where it declines) against
    /// `step` on the whole wave, for every pairing of the halves' cases (one
    /// address, scattered, partial or empty EXEC, unaligned, a lane out of
    /// its segment or past 2^31) in a scratch buffer holding the wave's slot
    /// or one 4 bytes short of it: the same result (a fault in the low pass
    /// ends the instruction before the high one), registers and scratch
    /// bytes, with rows of the wave's 64 lanes (private_layout.rs). A pass
    /// that declines has changed nothing, and the in-range passes run here.
    #[test]
    fn wave64_scratch_forms_match_step() {
        use crate::gfx11::exec::fast::run_wave64_memory;
        const CASES: [&str; 7] = [
            "one address",
            "scattered",
            "partial exec",
            "no lanes",
            "unaligned",
            "out of range",
            "past 2^31",
        ];
        let exec = |case: &str| match case {
            "partial exec" => 0xFFFF_7FF5,
            "no lanes" => 0,
            _ => u32::MAX,
        };
        let wave_bytes = 2 * slot_bytes(PER_LANE);
        fn wave_env<'a>(s: &'a mut [u8], lds: &'a mut [u8]) -> Env<'a> {
            Env {
                scratch_wave64: true,
                scratch_wave_bytes: 2 * slot_bytes(PER_LANE),
                ..env(s, lds)
            }
        }
        let mut next = rng();
        let mut lds = vec![0u8; 4];
        let (mut taken, mut declined, mut faults) = (0, 0, 0);
        for (text, bytes) in FORMS
            .iter()
            .filter(|(_, b)| matches!(compile(&test_inst(*b), 0), Fast::Scratch(_)))
        {
            let i = test_inst(*bytes);
            let form = compile(&i, 0);
            let sve = i.flags & Inst::SVE != 0;
            let has_saddr = i.saddr as usize != NULL;
            for short in [false, true] {
                for lo in CASES {
                    for hi in CASES {
                        let ctx = format!("{text}: low {lo}, high {hi}, short {short}");
                        let mut w = Wave {
                            index: 1,
                            wave64: true,
                            ..Wave::default()
                        };
                        for file in [&mut w.vgpr, &mut w.vgpr_hi] {
                            for row in file.iter_mut() {
                                for v in row.iter_mut() {
                                    *v = next() as u32;
                                }
                            }
                        }
                        (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (exec(lo), exec(hi));
                        // ST mode: one address for the wave, the low case's.
                        let st = half_addr(lo, 0);
                        w.sgpr[4] = if sve {
                            4
                        } else {
                            st.wrapping_sub(i.imm as u32)
                        };
                        let base = if has_saddr { w.sgpr[4] } else { 0 }.wrapping_add(i.imm as u32);
                        for l in 0..LANES {
                            w.vgpr[2][l] = half_addr(lo, l).wrapping_sub(base);
                            w.vgpr_hi[2][l] = half_addr(hi, l).wrapping_sub(base);
                        }
                        let len = 2 * wave_bytes - 4 * short as usize;
                        let init: Vec<u8> = (0..len).map(|_| next() as u8).collect();

                        let (mut want_w, mut want_s) = (w.clone(), init.clone());
                        let want = step(&mut want_w, &mut wave_env(&mut want_s, &mut lds), &i);
                        faults += want.is_err() as usize;

                        let (mut got_w, mut got_s) = (w.clone(), init.clone());
                        let got = run_wave64_memory(
                            &mut got_w,
                            &mut wave_env(&mut got_s, &mut lds),
                            &form,
                            &i,
                        );
                        assert_eq!(got, Some(want.clone()), "{ctx}");
                        assert!(got_w.vgpr == want_w.vgpr, "{ctx}: lanes 0..31");
                        assert!(got_w.vgpr_hi == want_w.vgpr_hi, "{ctx}: lanes 32..63");
                        assert!(got_w.sgpr == want_w.sgpr, "{ctx}: SGPRs");
                        assert!(got_s == want_s, "{ctx}: scratch bytes");

                        // Each pass alone: done, or declined having changed nothing.
                        let Fast::Scratch(ref s) = form else {
                            unreachable!()
                        };
                        for high in [false, true] {
                            let (mut pw, mut ps) = (w.clone(), init.clone());
                            let e = &mut wave_env(&mut ps, &mut lds);
                            let ran = if high {
                                high_pass(&mut pw, false, |pw| run_half(pw, e, s))
                            } else {
                                run_half(&mut pw, e, s)
                            };
                            if ran {
                                taken += 1;
                            } else {
                                declined += 1;
                                assert!(
                                    pw.vgpr == w.vgpr && pw.vgpr_hi == w.vgpr_hi && ps == init,
                                    "{ctx}: pass {high} declined after a change"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(
            taken > 800 && declined > 800 && faults > 300,
            "taken {taken}, declined {declined}, faults {faults}"
        );
    }

    /// One access an observer was shown, its lane addresses copied.
    type Shown = (u64, u32, u32, Segment, Access, u32, u32, [u64; LANES], bool);

    /// An observer that keeps what it is shown.
    #[derive(Default)]
    struct Recorder(Vec<Shown>);

    impl WorkgroupObserver for Recorder {
        fn access(&mut self, a: &LaneAccesses<'_>) {
            self.0.push((
                a.pc,
                a.wave,
                a.first_lane,
                a.segment,
                a.access,
                a.size,
                a.exec,
                *a.addrs,
                a.scalar,
            ));
        }

        fn barrier_released(&mut self, _: &[WaveSync]) {}

        fn finish(&mut self) {}
    }

    /// In an observed dispatch every dword form, run as the wave loop runs
    /// it (pre-resolved, given its address, with `step` where that
    /// declines), shows the observer exactly what `step` alone shows it
    /// (one private-segment access per instruction, at each lane's offset
    /// in its segment, read before a load overwrites its address VGPR) and
    /// gives the same result, registers and scratch bytes. The pre-resolved
    /// run is taken most of the time, so a dropped observation fails here.
    #[test]
    fn observed_pre_resolved_scratch_shows_what_step_shows() {
        const PC: u64 = 0x1_2340;
        let mut next = rng();
        let mut lds = vec![0u8; 4];
        let (mut taken, mut declined) = (0, 0);
        for (text, bytes) in FORMS
            .iter()
            .filter(|(_, b)| matches!(compile(&test_inst(*b), 0), Fast::Scratch(_)))
        {
            let i = test_inst(*bytes);
            let form = compile(&i, 0);
            for round in 0..150 {
                let (w, init) = random_case(&i, round, &mut next);
                let ctx = format!("{text}: round {round}, exec {:#x}", w.sgpr[EXEC]);

                let (mut want_w, mut want_s) = (w.clone(), init.clone());
                want_w.pc = PC;
                let mut want_seen = Recorder::default();
                let mut e = env(&mut want_s, &mut lds);
                e.observer = Some(&mut want_seen);
                let want: ExecResult = step(&mut want_w, &mut e, &i);

                // A stale `w.pc`, as the pre-resolved forms leave it: the
                // address shown must come from the wave loop's.
                let (mut got_w, mut got_s) = (w.clone(), init.clone());
                let mut got_seen = Recorder::default();
                let mut e = env(&mut got_s, &mut lds);
                e.observer = Some(&mut got_seen);
                let got = match run_with_pc(&mut got_w, &mut e, &form, PC) {
                    Some(flow) => {
                        taken += 1;
                        Ok(flow)
                    }
                    None => {
                        declined += 1;
                        got_w.pc = PC;
                        step(&mut got_w, &mut e, &i)
                    }
                };
                assert_eq!(got, want, "{ctx}");
                assert_eq!(got_seen.0, want_seen.0, "{ctx}: shown");
                assert!(got_w.vgpr == want_w.vgpr, "{ctx}: VGPRs");
                assert!(got_s == want_s, "{ctx}: scratch bytes");
            }
        }
        assert!(
            taken > 1500 && declined > 200,
            "taken {taken}, declined {declined}"
        );
    }
}
