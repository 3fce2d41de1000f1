//! Pre-resolved GFX9 MUBUF private accesses: buffer_load_dword .. dwordx4
//! and buffer_store_dword .. dwordx4 through the scratch V# (offen or a
//! plain offset), as clang-19 emits for gfx90a's spills and private arrays,
//! run on one 32-lane pass ([`run`]). Through `step` each one decoded the
//! V#, built 32 lanes' indices and offsets and translated every lane's
//! every dword through the `GpuMemory` trait object (gfx9_buffer.rs); here
//! the width and registers are resolved once, when the block is decoded,
//! and a pass translates one span.
//!
//! The computation is gfx9_buffer.rs's for a private resource (AMD CDNA3
//! ISA guide, "Buffer Instructions": ADD_TID_ENABLE without idxen, no range
//! check): lane `l`'s dword `k` lies at base + soffset +
//! buffer_offset(32 * half + l, offset + 4k). The form runs the swizzled
//! resources ROCr gives scratch (ELEMENT_SIZE 4, INDEX_STRIDE 32 or 64:
//! `FillBufRsrcWord3` in ROCR-Runtime `amd_aql_queue.cpp` says 64 for wave64),
//! where that is `row + 4 * l + 4 * INDEX_STRIDE * k` with one `row` per
//! offset: every lane's dwords are whole dwords of the wave's interleaved
//! slot (private_layout.rs), never another lane's, so the order lanes move
//! in does not matter.
//!
//! It declines, having done nothing, for no active lane, a resource of
//! another kind or layout, an offset that is not a multiple of 4, or lanes
//! whose bytes are not all in one mapping whose translations have no side
//! effect (`SpanCache::plain`: strict coherence's coarse copies record
//! accesses, so their accesses keep `step`'s per-lane translations): `step`
//! then runs the pass and reports any fault itself. Bytes moved count as
//! traffic as `step`'s translations do (4 per active lane and dword).
//! Observed dispatches take `step`, which shows the observer each lane.

use crate::Access;
use crate::gfx11::exec::env::Env;
use crate::gfx11::exec::operand::{SSrc, sread};
use crate::gfx11::exec::vmem::gfx9_buffer::Resource;
use crate::gfx11::exec::vmem::mem::le_row;
use crate::gfx11::exec::vmem::mem_kind::{BufferForm, MemKind, buffer_form, mem_kind};
use crate::gfx11::inst::{Family, Inst, Src};
use crate::gfx11::wave::{LANE_BIT, LANES, Lanes, Wave};

/// [`Inst::flags`]: the decoder's lds bit (as gfx9_buffer.rs).
const LDS: u8 = 64;

/// A GFX9 MUBUF dword load or store through a private resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferScratch {
    store: bool,
    dwords: u8,
    /// The loaded or stored VGPR (vdata).
    reg: u8,
    /// The per-lane offset VGPR, None without offen.
    vaddr: Option<u8>,
    /// The first of the V#'s four SGPRs.
    srsrc: u8,
    soffset: SSrc,
    /// The instruction's offset field.
    imm: u32,
}

impl BufferScratch {
    pub(crate) fn of_inst(i: &Inst) -> Option<BufferScratch> {
        // idxen never names a private resource (gfx9_buffer.rs `kind`);
        // AGPR data runs through step's VGPR window.
        let w0 = i.words[0];
        let (offen, idxen) = ((w0 >> 12) & 1 != 0, (w0 >> 13) & 1 != 0);
        if i.family != Family::Mubuf
            || i.flags & Inst::GFX9_BUFFER == 0
            || i.flags & LDS != 0
            || i.acc != 0
            || idxen
            || i.dpp.is_some()
            || buffer_form(i.op) == BufferForm::Typed
        {
            return None;
        }
        let (store, size) = match mem_kind(i.op) {
            MemKind::Load(size, false, 0) => (false, size),
            MemKind::Store(size, false) => (true, size),
            _ => return None,
        };
        if !matches!(size, 4 | 8 | 12 | 16) {
            return None;
        }
        let soffset = match i.src[0].src {
            Src::Sgpr(r) if r < 128 => SSrc::Reg(r),
            Src::Imm(v) => SSrc::Imm(v as u32),
            _ => return None,
        };
        Some(BufferScratch {
            store,
            dwords: (size / 4) as u8,
            reg: i.data[0],
            vaddr: offen.then_some(i.addr),
            srsrc: u8::try_from(i.imm2 * 4).ok()?,
            soffset,
            imm: i.imm as u32,
        })
    }
}

/// Run `b` on the current 32 lanes (`w.half`, `w.exec()`): true when done,
/// false (nothing done) when it declines to `step`'s pass.
#[inline(never)]
pub(crate) fn run(w: &mut Wave, env: &mut Env, b: &BufferScratch) -> bool {
    match b.dwords {
        1 => run_n::<1>(w, env, b),
        2 => run_n::<2>(w, env, b),
        3 => run_n::<3>(w, env, b),
        _ => run_n::<4>(w, env, b),
    }
}

#[inline(always)]
fn run_n<const N: usize>(w: &mut Wave, env: &mut Env, b: &BufferScratch) -> bool {
    let exec = w.exec();
    if exec == 0 {
        return false;
    }
    let d: [u32; 4] =
        std::array::from_fn(|k| w.sgpr.get(b.srsrc as usize + k).copied().unwrap_or(0));
    let res = Resource::decode(d);
    if !res.add_tid || !res.swizzle || res.element_size != 4 || res.index_stride < 32 {
        return false;
    }
    let is = res.index_stride;
    // The half's first lane id; its 32 lanes share one INDEX_STRIDE block.
    let tid0 = (LANES * w.half) as u64;
    let base = res
        .base
        .wrapping_add(u64::from(sread(w, b.soffset)))
        .wrapping_add(res.buffer_offset(tid0, 0));
    // Lane l's dword k is at `start(o) + 4 * l + 4 * is * k` for its offset o
    // (aligned: buffer_offset(t, o) = (t / is * stride + o) * is + t % is * 4).
    let start = |o: u64| base.wrapping_add(o * is);
    let offsets: Lanes = match b.vaddr {
        Some(v) => w.vgpr[v as usize],
        None => [0; LANES],
    };
    let (mut lo, mut hi, mut uniform) = (u64::MAX, 0u64, true);
    let first = offsets[exec.trailing_zeros() as usize];
    for l in 0..LANES {
        if exec & LANE_BIT[l] == 0 {
            continue;
        }
        let o = u64::from(b.imm) + u64::from(offsets[l]);
        if o % 4 != 0 {
            return false;
        }
        uniform &= offsets[l] == first;
        let a = start(o).wrapping_add(4 * l as u64);
        lo = lo.min(a);
        hi = hi.max(a);
    }
    let Some(end) = hi.checked_add(4 * is * (N as u64 - 1) + 4) else {
        return false;
    };
    let access = if b.store { Access::Write } else { Access::Read };
    let Some(host) = env.spans.plain(env.mem, lo, end - lo, access) else {
        return false;
    };
    env.spans
        .tally
        .add(access, 4 * N as u64 * u64::from(exec.count_ones()));
    // SAFETY: [lo, end) lies in one live plain mapping (`plain`); every
    // address below is an active lane's dword inside it.
    let at = |a: u64| unsafe { host.add((a - lo) as usize) };
    let row_step = 4 * is;
    if uniform && exec == u32::MAX {
        // One offset for every lane: dword k of the 32 lanes is one row.
        let row0 = start(u64::from(b.imm) + u64::from(first));
        for k in 0..N {
            let p = at(row0 + row_step * k as u64) as *mut Lanes;
            if b.store {
                // SAFETY: the 32 lanes' dwords k, contiguous; unaligned write.
                unsafe { p.write_unaligned(le_row(w.vgpr[(b.reg as usize + k) & 255])) };
            } else {
                // SAFETY: as the store; unaligned read.
                let vals = le_row(unsafe { p.read_unaligned() });
                w.write_vgpr(b.reg as usize + k, &vals, exec);
            }
        }
        return true;
    }
    let lane_at = |l: usize, k: usize| {
        let o = u64::from(b.imm) + u64::from(offsets[l]);
        at(start(o) + 4 * l as u64 + row_step * k as u64) as *mut u32
    };
    if b.store {
        for l in (0..LANES).filter(|&l| exec & LANE_BIT[l] != 0) {
            for k in 0..N {
                let v = w.vgpr[(b.reg as usize + k) & 255][l];
                // SAFETY: an active lane's dword (see `at`); unaligned write.
                unsafe { lane_at(l, k).write_unaligned(v.to_le()) };
            }
        }
    } else {
        let mut rows = [[0u32; LANES]; N];
        for l in (0..LANES).filter(|&l| exec & LANE_BIT[l] != 0) {
            for (k, row) in rows.iter_mut().enumerate() {
                // SAFETY: an active lane's dword (see `at`); unaligned read.
                row[l] = u32::from_le(unsafe { lane_at(l, k).read_unaligned() });
            }
        }
        for (k, row) in rows.iter().enumerate() {
            w.write_vgpr(b.reg as usize + k, row, exec);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx9::Target;
    use crate::gfx9::decode::decode;
    use crate::gfx9::exec_form::normalise;
    use crate::gfx11::exec::fast::{Fast, compile, run_wave64_memory};
    use crate::gfx11::exec::valu::wave64::high_pass;
    use crate::gfx11::exec::{ExecResult, step};
    use crate::gfx11::wave::EXEC;
    use crate::{GpuMemory, MemoryFault, PlainSpan};
    use aqueduct_test_support::Rng;

    /// llvm-mc-19 `-mcpu=gfx90a` encodings: the dword forms clang emits for
    /// private memory (offen or a plain offset, soffset 0 or an SGPR), then
    /// forms never pre-resolved (sub-dword, idxen).
    const FORMS: &[(&str, [u8; 8])] = &[
        (
            "buffer_load_dword v5, v2, s[0:3], 0 offen",
            [0x00, 0x10, 0x50, 0xe0, 0x02, 0x05, 0x00, 0x80],
        ),
        (
            "buffer_load_dword v5, off, s[0:3], 0 offset:8",
            [0x08, 0x00, 0x50, 0xe0, 0x00, 0x05, 0x00, 0x80],
        ),
        (
            "buffer_load_dwordx2 v[6:7], v2, s[0:3], s4 offen offset:4",
            [0x04, 0x10, 0x54, 0xe0, 0x02, 0x06, 0x00, 0x04],
        ),
        (
            "buffer_load_dwordx3 v[6:8], off, s[0:3], s4 offset:12",
            [0x0c, 0x00, 0x58, 0xe0, 0x00, 0x06, 0x00, 0x04],
        ),
        (
            "buffer_load_dwordx4 v[6:9], v2, s[0:3], 0 offen offset:16",
            [0x10, 0x10, 0x5c, 0xe0, 0x02, 0x06, 0x00, 0x80],
        ),
        (
            "buffer_load_dwordx2 v[2:3], v2, s[0:3], s4 offen",
            [0x00, 0x10, 0x54, 0xe0, 0x02, 0x02, 0x00, 0x04],
        ),
        (
            "buffer_store_dword v20, v2, s[0:3], 0 offen",
            [0x00, 0x10, 0x70, 0xe0, 0x02, 0x14, 0x00, 0x80],
        ),
        (
            "buffer_store_dword v20, off, s[0:3], s4 offset:4",
            [0x04, 0x00, 0x70, 0xe0, 0x00, 0x14, 0x00, 0x04],
        ),
        (
            "buffer_store_dwordx2 v[20:21], v2, s[0:3], 0 offen offset:8",
            [0x08, 0x10, 0x74, 0xe0, 0x02, 0x14, 0x00, 0x80],
        ),
        (
            "buffer_store_dwordx3 v[20:22], off, s[0:3], 0 offset:16",
            [0x10, 0x00, 0x78, 0xe0, 0x00, 0x14, 0x00, 0x80],
        ),
        (
            "buffer_store_dwordx4 v[20:23], v2, s[0:3], s4 offen",
            [0x00, 0x10, 0x7c, 0xe0, 0x02, 0x14, 0x00, 0x04],
        ),
        (
            "buffer_load_ubyte v5, v2, s[0:3], 0 offen",
            [0x00, 0x10, 0x40, 0xe0, 0x02, 0x05, 0x00, 0x80],
        ),
        (
            "buffer_store_short v20, off, s[0:3], 0 offset:6",
            [0x06, 0x00, 0x68, 0xe0, 0x00, 0x14, 0x00, 0x80],
        ),
        (
            "buffer_load_dword v5, v2, s[0:3], 0 idxen",
            [0x00, 0x20, 0x50, 0xe0, 0x02, 0x05, 0x00, 0x80],
        ),
    ];

    /// Private bytes per lane of the test's wave slots.
    const PER_LANE: u64 = 48;
    /// One wave64's slot: 64 lanes' private bytes, interleaved.
    const SLOT: u64 = 64 * PER_LANE;
    /// Three mappings of two slots each: plain read/write, plain read-only,
    /// and one whose translations record accesses (as strict coherence's
    /// coarse copies do: no plain span). Everything else faults.
    const PLAIN: u64 = 0x10_0000;
    const READ_ONLY: u64 = 0x20_0000;
    const RECORDING: u64 = 0x30_0000;
    const LEN: u64 = 2 * SLOT;

    /// The three mappings' bytes.
    struct Memory {
        bytes: [Vec<u8>; 3],
    }

    impl Memory {
        /// The mapping holding `addr`: (start, bytes, writable, plain).
        fn mapping(&self, addr: u64) -> Option<(u64, *mut u8, bool, bool)> {
            [
                (PLAIN, true, true),
                (READ_ONLY, false, true),
                (RECORDING, true, false),
            ]
            .into_iter()
            .enumerate()
            .find(|(_, (start, ..))| (*start..start + LEN).contains(&addr))
            .map(|(k, (start, writable, plain))| {
                (start, self.bytes[k].as_ptr() as *mut u8, writable, plain)
            })
        }
    }

    // SAFETY: the tests run one wave at a time on each memory.
    unsafe impl Sync for Memory {}

    impl GpuMemory for Memory {
        fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            let fault = MemoryFault {
                address: addr,
                access,
            };
            let (start, host, writable, _) = self.mapping(addr).ok_or(fault)?;
            if len > start + LEN - addr || (access != Access::Read && !writable) {
                return Err(fault);
            }
            Ok(host.wrapping_add((addr - start) as usize))
        }

        fn plain_span(&self, addr: u64) -> Option<PlainSpan> {
            let (start, host, writable, plain) = self.mapping(addr)?;
            plain.then_some(PlainSpan {
                start,
                end: start + LEN,
                host,
                writable,
                executable: false,
            })
        }
    }

    fn env(mem: &Memory) -> Env<'_> {
        crate::gfx11::exec::fast::tests::env_over(mem, &mut [], &mut [])
    }

    fn inst(bytes: [u8; 8]) -> Inst {
        let words = [
            u32::from_le_bytes(bytes[..4].try_into().unwrap()),
            u32::from_le_bytes(bytes[4..].try_into().unwrap()),
        ];
        normalise(Target::Gfx90a, decode(Target::Gfx90a, &words).unwrap()).unwrap()
    }

    /// The V#'s word 3 as ROCr writes gfx9's scratch resource
    /// (`FillBufRsrcWord3`): ELEMENT_SIZE 4, INDEX_STRIDE 64, ADD_TID_ENABLE.
    const ROCR_WORD3: u32 = 1 << 19 | 3 << 21 | 1 << 23;

    /// Resource variants: (word 1's high bits, word 3), ROCr's first; the
    /// others (INDEX_STRIDE 32; ELEMENT_SIZE 8; INDEX_STRIDE 8; unswizzled
    /// with a stride; no ADD_TID_ENABLE, a raw buffer) run, or decline to
    /// `step`, as the slow path computes them.
    const RESOURCES: [(u32, u32); 6] = [
        (1 << 31, ROCR_WORD3),
        (1 << 31, 1 << 19 | 2 << 21 | 1 << 23),
        (1 << 31 | 16 << 16, 2 << 19 | 3 << 21 | 1 << 23),
        (1 << 31 | 4 << 16, 1 << 19 | 1 << 23),
        (4 << 16, 1 << 23),
        (1 << 31, 1 << 19 | 3 << 21),
    ];

    /// Lane `l`'s offset VGPR in a half's `case`.
    fn lane_offset(case: &str, l: u32, rng: &mut Rng) -> u32 {
        match case {
            "scattered" => 4 * ((l * 7 + 3) % 9),
            "unaligned" if l == 5 => 6,
            "past the slot" if l == 9 => 2 * SLOT as u32,
            "past 2^32" if l == 3 => 0xFFFF_FFFC,
            "random" => 4 * rng.below(8) as u32,
            _ => 12,
        }
    }

    const CASES: [&str; 8] = [
        "one offset",
        "scattered",
        "partial exec",
        "no lanes",
        "unaligned",
        "past the slot",
        "past 2^32",
        "random",
    ];

    fn exec(case: &str) -> u32 {
        match case {
            "partial exec" => 0xFFFF_7FF5,
            "no lanes" => 0,
            _ => u32::MAX,
        }
    }

    /// Round `round`'s wave64 wave and memory for `i`: random registers and
    /// bytes, a resource variant, a base in one of the mappings (its first
    /// or second slot, or near its end) or in none, and each half's case.
    fn case(round: usize, rng: &mut Rng) -> (Wave, Memory, String) {
        let mut w = Wave {
            index: 1,
            wave64: true,
            ..Wave::default()
        };
        for file in [&mut w.vgpr, &mut w.vgpr_hi] {
            for row in file.iter_mut() {
                for v in row.iter_mut() {
                    *v = rng.u32();
                }
            }
        }
        let (lo, hi) = (CASES[rng.index(CASES.len())], CASES[rng.index(CASES.len())]);
        (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (exec(lo), exec(hi));
        for l in 0..LANES {
            w.vgpr[2][l] = lane_offset(lo, l as u32, rng);
            w.vgpr_hi[2][l] = lane_offset(hi, l as u32, rng);
        }
        // Mostly ROCr's resource over the plain mapping.
        let (d1, d3) = if round.is_multiple_of(3) {
            RESOURCES[rng.index(RESOURCES.len())]
        } else {
            RESOURCES[0]
        };
        let start = match rng.below(8) {
            0 => READ_ONLY,
            1 => RECORDING,
            2 => 0x40_0000,
            _ => PLAIN,
        };
        let base = start + if rng.below(6) == 0 { LEN - 8 * 64 } else { 0 };
        w.sgpr[..4].copy_from_slice(&[base as u32, (base >> 32) as u32 | d1, rng.u32() % 512, d3]);
        // soffset: the wave's slot (the first or the second).
        w.sgpr[4] = SLOT as u32 * rng.below(2) as u32;
        let bytes = std::array::from_fn(|_| (0..LEN).map(|_| rng.u32() as u8).collect());
        let ctx = format!(
            "low {lo}, high {hi}, base {base:#x}, d1 {d1:#x}, d3 {d3:#x}, s4 {:#x}",
            w.sgpr[4]
        );
        (w, Memory { bytes }, ctx)
    }

    /// Every form through `run_wave64_memory` (each 32-lane pass through
    /// [`run`], or `step`'s pass where it declines) against `step` on the
    /// whole wave: the same result (a fault in the low pass ends the
    /// instruction before the high pass), registers and bytes of every
    /// mapping, across resource variants, plain, read-only, recording and
    /// unmapped bases, and each half's case (one offset, scattered, partial
    /// or empty EXEC, unaligned, a lane past the mapping or past 2^32). A
    /// pass that declines has changed nothing; both outcomes occur often
    /// (most cases are built to decline); the dword forms get a form, the others
    /// none. Planted bug: under ROCr's resource a high pass run as the low
    /// one (lane ids without ADD_TID's 32) moves other bytes, and the
    /// comparison sees it.
    #[test]
    fn mubuf_scratch_forms_match_step() {
        let mut rng = Rng::new(90);
        let (mut taken, mut declined, mut faults, mut caught) = (0, 0, 0, 0);
        for (text, bytes) in FORMS {
            let i = inst(*bytes);
            let form = compile(&i, 0);
            let dword = !["ubyte", "short", "idxen"].iter().any(|s| text.contains(s));
            assert_eq!(
                matches!(form, Fast::BufferScratch(_)),
                dword,
                "{text}: {form:?}"
            );
            if !dword {
                continue;
            }
            let Fast::BufferScratch(ref b) = form else {
                unreachable!()
            };
            for round in 0..150 {
                let (w, mem, ctx) = case(round, &mut rng);
                let ctx = format!("{text}: round {round}: {ctx}");

                let (mut want_w, want_m) = (
                    w.clone(),
                    Memory {
                        bytes: mem.bytes.clone(),
                    },
                );
                let want: ExecResult = step(&mut want_w, &mut env(&want_m), &i);
                faults += want.is_err() as usize;

                let (mut got_w, got_m) = (
                    w.clone(),
                    Memory {
                        bytes: mem.bytes.clone(),
                    },
                );
                let got = run_wave64_memory(&mut got_w, &mut env(&got_m), &form, &i);
                assert_eq!(got, Some(want.clone()), "{ctx}");
                assert!(got_w.vgpr == want_w.vgpr, "{ctx}: lanes 0..31");
                assert!(got_w.vgpr_hi == want_w.vgpr_hi, "{ctx}: lanes 32..63");
                assert!(got_w.sgpr == want_w.sgpr, "{ctx}: SGPRs");
                assert!(got_m.bytes == want_m.bytes, "{ctx}: memory");

                for high in [false, true] {
                    let (mut pw, pm) = (
                        w.clone(),
                        Memory {
                            bytes: mem.bytes.clone(),
                        },
                    );
                    let e = &mut env(&pm);
                    let ran = if high {
                        high_pass(&mut pw, false, |pw| run(pw, e, b))
                    } else {
                        run(&mut pw, e, b)
                    };
                    if ran {
                        taken += 1;
                    } else {
                        declined += 1;
                        assert!(
                            pw.vgpr == w.vgpr && pw.vgpr_hi == w.vgpr_hi && pm.bytes == mem.bytes,
                            "{ctx}: pass {high} declined after a change"
                        );
                    }
                }

                // The planted bug: the high pass with w.half left 0 (under
                // ROCr's resource, where the halves' lanes own other bytes).
                if want.is_ok() && w.sgpr[EXEC + 1] != 0 && w.sgpr[3] == ROCR_WORD3 {
                    let (mut bw, bm) = (
                        w.clone(),
                        Memory {
                            bytes: mem.bytes.clone(),
                        },
                    );
                    let e = &mut env(&bm);
                    let mut ran = run(&mut bw, e, b);
                    std::mem::swap(&mut bw.vgpr, &mut bw.vgpr_hi);
                    ran &= run(&mut bw, e, b);
                    std::mem::swap(&mut bw.vgpr, &mut bw.vgpr_hi);
                    if ran {
                        let same = bw.vgpr == want_w.vgpr
                            && bw.vgpr_hi == want_w.vgpr_hi
                            && bm.bytes == want_m.bytes;
                        assert!(!same, "{ctx}: planted bug not seen");
                        caught += 1;
                    }
                }
            }
        }
        assert!(
            taken > 600 && declined > 600 && faults > 300 && caught > 200,
            "taken {taken}, declined {declined}, faults {faults}, caught {caught}"
        );
    }
}
