//! The 8- and 16-bit DS loads and stores (`ds_load_u8` .. `ds_load_i16`,
//! their d16 and d16_hi forms, `ds_store_b8`/`_b16` and their d16_hi
//! forms) when every active lane's bytes lie inside the LDS allocation.
//!
//! Decoded once by [`DsSubword::of`] into the pre-resolved form
//! (`Fast::DsSubword`), which the interpreter runs here and the translator
//! inline (jit/llvm/lds_subword.rs). What it does is what lds.rs `ds`
//! does for the same instruction when no lane is out of range: each
//! active lane's byte or halfword at its address plus the offset, loaded
//! zero- or sign-extended into the whole destination dword or, for d16,
//! into one half of it (the other half kept: RDNA3 ISA guide, "LDS
//! Instructions", the `_D16` and `_D16_HI` loads); stored from the low
//! bits of the data dword or, for `_d16_hi`, from bits 16 up, lanes in
//! lane order so the highest lane wins an overlap. With a lane out of
//! range (where `ds` reads 0 and drops the write for that lane alone) or
//! no lane active, nothing is done and `step` runs the instruction.

use crate::gfx11::exec::lds::{active_addresses, place_d16};
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::inst::Inst;
use crate::gfx11::wave::{LANES, Wave};

/// An 8- or 16-bit DS load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DsSubword {
    pub load: bool,
    /// Bytes moved: 1 or 2.
    pub bytes: u8,
    /// A load sign-extends (the `i8`/`i16` forms).
    pub signed: bool,
    /// A load's place in the destination: 0 the whole dword, 1 its low
    /// half, 2 its high half (d16, d16_hi). A store's data: 0 from bit 0,
    /// 2 from bit 16 (d16_hi).
    pub d16: u8,
    /// Address VGPR.
    pub addr: u8,
    /// Destination VGPR (loads) or data VGPR (stores).
    pub reg: u8,
    /// Byte offset (offset1:offset0).
    pub offset: u32,
}

impl DsSubword {
    /// The form of `i`, or None for every other DS instruction (GDS included).
    pub(crate) fn of(i: &Inst) -> Option<DsSubword> {
        if i.flags & Inst::GDS != 0 {
            return None;
        }
        // The decoder's offset fields are 8 bits each (lds.rs `DsRows::of`).
        let (offset0, offset1) = (u8::try_from(i.imm).ok()?, u8::try_from(i.imm2).ok()?);
        let offset = offset0 as u32 | (offset1 as u32) << 8;
        let (load, bytes, signed, d16, reg) = match mem_kind(i.op) {
            MemKind::Load(bytes @ (1 | 2), signed, d16) => {
                (true, bytes, signed, d16, u8::try_from(i.dst).ok()?)
            }
            MemKind::Store(bytes @ (1 | 2), hi) => (false, bytes, false, 2 * hi as u8, i.data[0]),
            _ => return None,
        };
        Some(DsSubword {
            load,
            bytes: bytes as u8,
            signed,
            d16,
            addr: i.addr,
            reg,
            offset,
        })
    }
}

/// Run `d` on the current 32 lanes under `exec` when every active lane's
/// bytes lie in `lds`: true when done, false (nothing done) otherwise.
#[inline(always)]
pub(crate) fn ds_subword_in_range(w: &mut Wave, lds: &mut [u8], d: &DsSubword, exec: u32) -> bool {
    if exec == 0 {
        return false;
    }
    // The highest active address bounds every lane's bytes (the offset is
    // below 2^16, so the sum does not wrap); the OR of the addresses, an
    // upper bound of it, usually decides alone (lds.rs `ds_in_range`).
    let (addr, bound) = active_addresses(&w.vgpr[d.addr as usize], exec);
    let (offset, bytes) = (d.offset as usize, d.bytes as usize);
    if bound as usize + offset + bytes > lds.len()
        && *addr.iter().max().unwrap_or(&0) as usize + offset + bytes > lds.len()
    {
        return false;
    }
    let reg = d.reg as usize;
    let active = (0..LANES).filter(|l| exec >> l & 1 != 0);
    if d.load {
        let mut row = w.vgpr[reg];
        for l in active {
            let a = addr[l] as usize + offset;
            let v = match (bytes, d.signed) {
                (1, false) => lds[a] as u32,
                (1, true) => lds[a] as i8 as i32 as u32,
                (_, false) => u16::from_le_bytes([lds[a], lds[a + 1]]) as u32,
                (_, true) => i16::from_le_bytes([lds[a], lds[a + 1]]) as i32 as u32,
            };
            row[l] = place_d16(row[l], v, d.d16);
        }
        w.vgpr[reg] = row;
    } else {
        let shift = if d.d16 == 2 { 16 } else { 0 };
        for l in active {
            let a = addr[l] as usize + offset;
            let v = w.vgpr[reg][l] >> shift;
            lds[a] = v as u8;
            if bytes == 2 {
                lds[a + 1] = (v >> 8) as u8;
            }
        }
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::gfx11::exec::env::Flow;
    use crate::gfx11::exec::fast::{Fast, compile, run};
    use crate::gfx11::exec::lds::tests::env;
    use crate::gfx11::exec::step;
    use crate::gfx11::exec::test_inst as inst;
    use crate::gfx11::wave::EXEC;

    /// An 8- or 16-bit DS form as llvm-mc-19 encodes it for gfx1100.
    pub(crate) struct SubwordForm {
        pub text: &'static str,
        pub bytes: [u8; 8],
        pub load: bool,
        pub size: usize,
        pub signed: bool,
        /// 0, 1 (low half) or 2 (high half), as [`DsSubword::d16`].
        pub d16: u8,
        pub offset: u64,
    }

    const fn form(
        text: &'static str,
        bytes: [u8; 8],
        (load, size, signed, d16): (bool, usize, bool, u8),
        offset: u64,
    ) -> SubwordForm {
        SubwordForm {
            text,
            bytes,
            load,
            size,
            signed,
            d16,
            offset,
        }
    }

    /// Loads into v10 from v2, stores of v3 at v2.
    pub(crate) const SUBWORD_FORMS: &[SubwordForm] = &[
        form(
            "ds_load_u8 v10, v2 offset:3",
            [0x03, 0x00, 0xe8, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, false, 0),
            3,
        ),
        form(
            "ds_load_i8 v10, v2 offset:7",
            [0x07, 0x00, 0xe4, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, true, 0),
            7,
        ),
        form(
            "ds_load_u16 v10, v2 offset:2",
            [0x02, 0x00, 0xf0, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            (true, 2, false, 0),
            2,
        ),
        form(
            "ds_load_i16 v10, v2 offset:1001",
            [0xe9, 0x03, 0xec, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            (true, 2, true, 0),
            1001,
        ),
        form(
            "ds_load_u8_d16 v10, v2 offset:5",
            [0x05, 0x00, 0x88, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, false, 1),
            5,
        ),
        form(
            "ds_load_u8_d16_hi v10, v2",
            [0x00, 0x00, 0x8c, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, false, 2),
            0,
        ),
        form(
            "ds_load_i8_d16 v10, v2 offset:9",
            [0x09, 0x00, 0x90, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, true, 1),
            9,
        ),
        form(
            "ds_load_i8_d16_hi v10, v2 offset:1",
            [0x01, 0x00, 0x94, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 1, true, 2),
            1,
        ),
        form(
            "ds_load_u16_d16 v10, v2 offset:6",
            [0x06, 0x00, 0x98, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 2, false, 1),
            6,
        ),
        form(
            "ds_load_u16_d16_hi v10, v2 offset:258",
            [0x02, 0x01, 0x9c, 0xda, 0x02, 0x00, 0x00, 0x0a],
            (true, 2, false, 2),
            258,
        ),
        form(
            "ds_store_b8 v2, v3 offset:5",
            [0x05, 0x00, 0x78, 0xd8, 0x02, 0x03, 0x00, 0x00],
            (false, 1, false, 0),
            5,
        ),
        form(
            "ds_store_b16 v2, v3 offset:2",
            [0x02, 0x00, 0x7c, 0xd8, 0x02, 0x03, 0x00, 0x00],
            (false, 2, false, 0),
            2,
        ),
        form(
            "ds_store_b8_d16_hi v2, v3 offset:11",
            [0x0b, 0x00, 0x80, 0xda, 0x02, 0x03, 0x00, 0x00],
            (false, 1, false, 2),
            11,
        ),
        form(
            "ds_store_b16_d16_hi v2, v3 offset:300",
            [0x2c, 0x01, 0x84, 0xda, 0x02, 0x03, 0x00, 0x00],
            (false, 2, false, 2),
            300,
        ),
    ];

    /// What the ISA guide says `f` does, lane by lane in lane order, each
    /// lane's bytes read as 0 and dropped when they leave `lds`.
    fn model(f: &SubwordForm, w: &mut Wave, lds: &mut [u8], exec: u32) {
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            let a = w.vgpr[2][l] as u64 + f.offset;
            let inside = a + f.size as u64 <= lds.len() as u64;
            let a = a as usize;
            if f.load {
                let mut v = 0u32;
                if inside {
                    for k in 0..f.size {
                        v |= (lds[a + k] as u32) << (8 * k);
                    }
                }
                if f.signed {
                    let bits = 8 * f.size as u32;
                    v = (((v << (32 - bits)) as i32) >> (32 - bits)) as u32;
                }
                let old = w.vgpr[10][l];
                w.vgpr[10][l] = match f.d16 {
                    1 => (old & 0xFFFF_0000) | (v & 0xFFFF),
                    2 => (old & 0xFFFF) | (v << 16),
                    _ => v,
                };
            } else if inside {
                let v = w.vgpr[3][l] >> (8 * f.d16 as u32);
                for k in 0..f.size {
                    lds[a + k] = (v >> (8 * k)) as u8;
                }
            }
        }
    }

    /// Each form through its pre-resolved form (falling back to `step` as
    /// the wave loop does) and through `step` alone matches the model:
    /// random registers, addresses in a small window (overlapping lanes,
    /// any alignment), full, random, one-lane and empty EXEC, one lane near
    /// the end inside, straddling it, or far out.
    #[test]
    fn subword_forms_match_the_model() {
        const LDS_BYTES: usize = 2048;
        let mut rng = aqueduct_test_support::Rng::new(0x5EED_0B17_E5D5_0001);
        let mut taken = 0;
        for f in SUBWORD_FORMS {
            let i = inst(f.bytes);
            let d = DsSubword::of(&i).expect("a subword form");
            assert_eq!(
                (d.load, d.bytes as usize, d.signed, d.d16, d.offset as u64),
                (f.load, f.size, f.signed, f.d16, f.offset),
                "{}",
                f.text
            );
            let form = compile(&i, 0);
            assert_eq!(form, Fast::DsSubword(d), "{}", f.text);
            for round in 0..16 {
                let mut w = Wave::default();
                for (r, row) in w.vgpr.iter_mut().enumerate() {
                    for (l, v) in row.iter_mut().enumerate() {
                        *v = (rng.u64() as u32) ^ (r << 8 | l) as u32;
                    }
                }
                for l in 0..LANES {
                    w.vgpr[2][l] = (rng.u64() % 96) as u32;
                }
                let exec = match round % 4 {
                    0 => u32::MAX,
                    1 => rng.u64() as u32,
                    2 => 1 << (rng.u64() % LANES as u64),
                    _ => 0,
                };
                let lane = (rng.u64() % LANES as u64) as usize;
                let end = (LDS_BYTES as u64 - f.offset) as u32;
                let outside = match round / 4 {
                    // Exactly at the end, inside.
                    1 => {
                        w.vgpr[2][lane] = end - f.size as u32;
                        false
                    }
                    // Straddling the end (a halfword's second byte outside) or past it.
                    2 => {
                        w.vgpr[2][lane] = end - 1;
                        f.size == 2
                    }
                    3 => {
                        w.vgpr[2][lane] = u32::MAX - 1;
                        true
                    }
                    _ => false,
                };
                let exec = exec
                    | if round / 4 > 0 && exec != 0 {
                        1 << lane
                    } else {
                        0
                    };
                w.sgpr[EXEC] = exec;
                let init: Vec<u8> = (0..LDS_BYTES).map(|_| rng.u64() as u8).collect();
                let (mut want_w, mut want_lds) = (w.clone(), init.clone());
                model(f, &mut want_w, &mut want_lds, exec);

                let (mut pre_w, mut pre_lds) = (w.clone(), init.clone());
                let mut pre_env = env(&mut pre_lds);
                let fast = match run(&mut pre_w, &mut pre_env, &form) {
                    Some(flow) => {
                        assert_eq!(flow, Flow::Next);
                        true
                    }
                    None => {
                        assert_eq!(step(&mut pre_w, &mut pre_env, &i), Ok(Flow::Next));
                        false
                    }
                };
                let in_range = exec != 0 && !outside;
                assert_eq!(fast, in_range, "{}: round {round}", f.text);
                taken += fast as u32;
                assert!(pre_lds == want_lds, "{}: LDS, round {round}", f.text);
                assert_eq!(pre_w.vgpr, want_w.vgpr, "{}: VGPRs, round {round}", f.text);

                let mut lds = init.clone();
                assert_eq!(step(&mut w, &mut env(&mut lds), &i), Ok(Flow::Next));
                assert!(lds == want_lds, "{}: step's LDS, round {round}", f.text);
                assert_eq!(w.vgpr, want_w.vgpr, "{}: step's VGPRs", f.text);
            }
        }
        assert!(taken > 5 * SUBWORD_FORMS.len() as u32, "{taken} in range");
    }
}
