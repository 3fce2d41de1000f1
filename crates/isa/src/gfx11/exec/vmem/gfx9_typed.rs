//! GFX9 (gfx90a, gfx942) typed buffer access: MTBUF's `tbuffer_*` and
//! MUBUF's `buffer_*_format_*`. GFX9 names an element's layout and
//! conversion with two fields, DATA_FORMAT and NUM_FORMAT: the
//! instruction's dfmt (word 0 [22:19]) and nfmt ([25:23]) for MTBUF, the
//! V#'s DATA_FORMAT (dword 3 [18:15]) and NUM_FORMAT ([14:12]) for MUBUF
//! (AMD CDNA3 ISA guide, "Buffer Resource" and "Data formats"; Mesa
//! `src/amd/common/sid.h` SQ_BUF_RSRC_WORD3 and BUF_DATA_FORMAT_* /
//! BUF_NUM_FORMAT_*). gfx11's unified format is the same pair under one
//! code: LLVM names each unified format `BUF_FMT_<data>_<num>` after the
//! GFX9 pair it stands for (AMDGPUAsmUtils.cpp, the unified format table),
//! so a pair runs as the unified format of the same name and shares its
//! conversions (vmem/mtbuf.rs). A pair with no unified format (8-bit FLOAT,
//! 32-bit UNORM, the reserved codes) is refused as unmodelled.
//!
//! Addressing and range checks are GFX9's (vmem/gfx9_buffer.rs), per
//! element, all or nothing: a raw buffer's element is in range when it
//! ends at or below NUM_RECORDS and out of range when it starts at or past
//! it; one straddling NUM_RECORDS, a swizzled resource and a private
//! (ADD_TID_ENABLE) resource have no rule the guide gives for typed
//! elements and are refused.

use std::sync::OnceLock;

use crate::Access;
use crate::gfx9::disasm::{DFMT, NFMT};
use crate::gfx11::decode::BufferFormat;
use crate::gfx11::exec::env::sread;
use crate::gfx11::exec::env::{Env, ExecResult, unmodelled};
use crate::gfx11::exec::observe;
use crate::gfx11::exec::vmem::gfx9_buffer::{Kind, Resource, kind, lane_fields};
use crate::gfx11::exec::vmem::mtbuf::{is_store, typed_lanes};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::Segment;

/// The unified format of the GFX9 pair (`data`, `num`), or None.
pub(crate) fn unified(data: u32, num: u32) -> Option<BufferFormat> {
    static TABLE: OnceLock<[[u8; 8]; 16]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0u8; 8]; 16];
        for (d, row) in t.iter_mut().enumerate() {
            for (n, code) in row.iter_mut().enumerate() {
                let name = format!("BUF_FMT_{}_{}", DFMT[d], NFMT[n]);
                *code = (1..64u8)
                    .find(|&c| BufferFormat::from_code(c).is_some_and(|f| f.name() == name))
                    .unwrap_or(0);
            }
        }
        t
    });
    BufferFormat::from_code(table[(data & 15) as usize][(num & 7) as usize])
}

/// A GFX9 typed buffer load or store over the current 32 lanes.
pub(crate) fn typed(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let srsrc = i.imm2 as usize * 4;
    let d: [u32; 4] = std::array::from_fn(|k| w.sgpr.get(srsrc + k).copied().unwrap_or(0));
    let w0 = i.words[0];
    let (data, num) = if i.family == Family::Mtbuf {
        ((w0 >> 19) & 15, (w0 >> 23) & 7)
    } else {
        ((d[3] >> 15) & 15, (d[3] >> 12) & 7)
    };
    let Some(fmt) = unified(data, num) else {
        let pair = format!(
            "BUF_DATA_FORMAT_{}, BUF_NUM_FORMAT_{}",
            DFMT[data as usize], NFMT[num as usize]
        );
        return Err(unmodelled(i, &pair));
    };
    let res = Resource::decode(d);
    let idxen = (w0 >> 13) & 1 != 0;
    let kind = match kind(&res, idxen) {
        Some(k @ (Kind::Raw | Kind::Structured)) if !res.swizzle => k,
        _ => {
            return Err(unmodelled(
                i,
                "typed access to a private or swizzled buffer",
            ));
        }
    };
    let soffset = u64::from(sread(w, env, i, 0)?);
    let base = res.base.wrapping_add(soffset);
    let (index, offset) = lane_fields(w, i, &res);
    let bytes = u64::from(fmt.bytes());
    let exec = w.exec();
    let mut at = [None; LANES];
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let inside = match kind {
            Kind::Raw if offset[l] < res.num_records && offset[l] + bytes > res.num_records => {
                return Err(unmodelled(i, "typed element straddling NUM_RECORDS"));
            }
            Kind::Raw => offset[l] < res.num_records,
            _ => index[l] < res.num_records,
        };
        if inside {
            at[l] = Some(base.wrapping_add(res.buffer_offset(index[l], offset[l])));
        }
    }
    if env.observer.is_some() {
        let access = if is_store(i) {
            Access::Write
        } else {
            Access::Read
        };
        let addrs = at.map(|a| a.unwrap_or(0));
        let shown = (0..LANES)
            .filter(|&l| at[l].is_some())
            .fold(0u32, |m, l| m | 1 << l);
        let sc1 = i.flags & Inst::SC1 != 0;
        observe::per_lane(
            w,
            env,
            observe::Shown { access, sc1 },
            &[Segment::Global; LANES],
            &addrs,
            &[bytes; LANES],
            shown,
        );
    }
    typed_lanes(w, env, i, fmt, d[3] & 0xFFF, |l| at[l])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx9_pairs_map_to_the_unified_formats_of_their_names() {
        let name = |d, n| unified(d, n).map(|f| f.name());
        assert_eq!(name(4, 7).as_deref(), Some("BUF_FMT_32_FLOAT"));
        assert_eq!(name(10, 0).as_deref(), Some("BUF_FMT_8_8_8_8_UNORM"));
        assert_eq!(name(6, 7).as_deref(), Some("BUF_FMT_10_11_11_FLOAT"));
        assert_eq!(name(9, 5).as_deref(), Some("BUF_FMT_2_10_10_10_SINT"));
        // No unified format: 8-bit float, 32-bit unorm, invalid, reserved.
        assert_eq!(name(1, 7), None);
        assert_eq!(name(4, 0), None);
        assert_eq!(name(0, 4), None);
        assert_eq!(name(15, 4), None);
        assert_eq!(name(4, 6), None);
        // Every unified format (1..=63) is some GFX9 pair.
        let mut reached: Vec<String> = (0..16)
            .flat_map(|d| (0..8).filter_map(move |n| unified(d, n).map(|f| f.name())))
            .collect();
        reached.sort();
        reached.dedup();
        assert_eq!(reached.len(), 63);
    }
}
