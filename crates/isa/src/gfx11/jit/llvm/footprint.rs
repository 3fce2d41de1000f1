//! Which VGPR rows a call-out may read and write, so the emitter keeps the
//! other rows in host registers across it (`emit.rs`): only the dirty rows
//! it may read or write are stored before it, and only the rows it may
//! write are loaded again after it. SGPRs and SCC are cheap and always go
//! through memory around a call-out.
//!
//! Only forms whose every register access is known are narrowed; any other
//! entry may touch every row. The sets name what the interpreter's code for
//! the form touches (run_block.rs `run_entry`, exec/fast/mod.rs `run`).

use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::lds::DsRows;
use crate::gfx11::exec::operand::VSrc;
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::inst::Family;
use crate::gfx11::wave::NUM_VGPRS;

/// A call-out's VGPR rows (None: possibly every row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Footprint {
    pub reads: Option<Vec<u8>>,
    pub writes: Option<Vec<u8>>,
}

impl Footprint {
    const ANY: Footprint = Footprint {
        reads: None,
        writes: None,
    };

    /// May the call-out read or write row `r`?
    pub fn touches(&self, r: u8) -> bool {
        let has = |s: &Option<Vec<u8>>| s.as_ref().is_none_or(|s| s.contains(&r));
        has(&self.reads) || has(&self.writes)
    }

    /// May the call-out write row `r`?
    pub fn writes(&self, r: u8) -> bool {
        self.writes.as_ref().is_none_or(|s| s.contains(&r))
    }
}

/// The rows of 32-bit sources `srcs`.
pub(super) fn rows(srcs: &[VSrc]) -> Vec<u8> {
    srcs.iter()
        .filter_map(|s| match s {
            VSrc::Vgpr(r) => Some(*r),
            _ => None,
        })
        .collect()
}

/// The rows a compare source reads: a VGPR, and the next one (wrapping at
/// v255, as `vgpr64` does) when it is 64 bits wide.
fn rows64(s: S64, wide: bool, out: &mut Vec<u8>) {
    if let S64::Vgpr(r) = s {
        out.push(r);
        if wide {
            out.push(((r as usize + 1) % NUM_VGPRS) as u8);
        }
    }
}

/// Each dword a dword DS access moves, as (element, dword), in the
/// interpreter's order: the first element's dwords, then the second's.
pub(super) fn ds_dwords(d: &DsRows) -> impl Iterator<Item = (usize, u8)> {
    let elements = if d.two { 2 } else { 1 };
    (0..elements).flat_map(move |e| (0..d.n).map(move |j| (e, j)))
}

/// The rows a dword DS access reads (its address, then a store's data) and
/// writes (a load's destinations), in [`ds_dwords`] order, each wrapping at
/// v255 as the interpreter's row indices do.
pub(super) fn ds_rows(d: &DsRows) -> (Vec<u8>, Vec<u8>) {
    let mut reads = vec![d.addr];
    let mut writes = Vec::new();
    for (k, (e, j)) in ds_dwords(d).enumerate() {
        if d.load {
            writes.push(d.dst.wrapping_add(k as u8));
        } else {
            reads.push(d.data[e].wrapping_add(j));
        }
    }
    (reads, writes)
}

/// Is `f` a scalar-unit family? Their instructions touch SGPRs, SCC, the
/// PC and memory, never a VGPR (exec/salu, exec/vmem/mod.rs `smem`).
fn scalar(f: Family) -> bool {
    matches!(
        f,
        Family::Sop1 | Family::Sop2 | Family::Sopk | Family::Sopc | Family::Sopp | Family::Smem
    )
}

/// The rows entry `c` of `block` may read and write when it runs as a call-out.
pub(super) fn footprint(block: &Block, c: &Compiled) -> Footprint {
    match c.fast {
        // valu/fast_vcmp.rs `run`: the sources, then a lane mask to an SGPR.
        Fast::Fcmp(f) => {
            let mut reads = Vec::new();
            rows64(f.a, f.wide(0), &mut reads);
            rows64(f.b, f.wide(1), &mut reads);
            Footprint {
                reads: Some(reads),
                writes: Some(Vec::new()),
            }
        }
        // valu/fast.rs `vcmp`: 32-bit sources, a lane mask to an SGPR.
        Fast::Vcmp { a, b, .. } => Footprint {
            reads: Some(rows(&[a, b])),
            writes: Some(Vec::new()),
        },
        // valu/fast_fma32.rs: three sources, the destination row under EXEC
        // (and a lane mask to an SGPR for v_div_scale).
        Fast::Fma32(f) => Footprint {
            reads: Some(rows(&f.src)),
            writes: Some(vec![f.dst]),
        },
        // exec/lds.rs `ds_in_range` and `ds`: the address row and the
        // stores' data rows, then the loads' destination rows under EXEC.
        Fast::Ds(d) => {
            let (reads, writes) = ds_rows(&d);
            Footprint {
                reads: Some(reads),
                writes: Some(writes),
            }
        }
        // exec/lds_subword.rs and lds.rs `ds`: the address row and the
        // data row (a store) or the destination row (a load, whose d16
        // forms keep half of it), then a load's destination under EXEC.
        Fast::DsSubword(d) => Footprint {
            reads: Some(vec![d.addr, d.reg]),
            writes: Some(if d.load { vec![d.reg] } else { Vec::new() }),
        },
        // vmem/fast_scratch.rs `run_n` (and `step` of the same
        // instruction): the address row and a store's data rows, then a
        // load's destination rows under EXEC.
        Fast::Scratch(s) => {
            let regs = (0..s.dwords).map(|j| s.reg.wrapping_add(j));
            let (mut reads, writes): (Vec<u8>, Vec<u8>) = if s.store {
                (regs.collect(), Vec::new())
            } else {
                (Vec::new(), regs.collect())
            };
            reads.extend(s.vaddr);
            Footprint {
                reads: Some(reads),
                writes: Some(writes),
            }
        }
        _ if (c.index..=c.last).all(|n| scalar(block.insts[n as usize].family)) => Footprint {
            reads: Some(Vec::new()),
            writes: Some(Vec::new()),
        },
        _ => Footprint::ANY,
    }
}
