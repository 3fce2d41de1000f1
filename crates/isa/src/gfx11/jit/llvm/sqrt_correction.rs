//! The correction steps of LLVM's f32 square root, found so the emitter can
//! drop them.
//!
//! LLVM's AMDGPU back end expands a correctly rounded `llvm.sqrt.f32`
//! (no `afn`) into about sixteen instructions
//! (`AMDGPUTargetLowering`/`SITargetLowering::lowerFSQRTF32`, llvm/lib/Target/AMDGPU/SIISelLowering.cpp),
//! because the hardware's v_sqrt_f32 is only faithful to 1 ULP:
//!
//! ```text
//! t  = v_mul_f32 0x4f800000, x         ; x * 2^32
//! c  = v_cmp_gt_f32 0x0f800000, x      ; x < 2^-96
//! y  = v_cndmask_b32 x, t, c           ; tiny inputs scaled up
//! s  = v_sqrt_f32 y
//! d  = v_add_nc_u32 -1, s              ; the float below s
//! u  = v_add_nc_u32 1, s               ; the float above s
//! r1 = v_fma_f32 -d, s, y
//! r2 = v_fma_f32 -u, s, y
//! p1 = v_cmp_ge_f32 0, r1
//! s1 = v_cndmask_b32 s, d, p1          ; s one below if d*s >= y
//! p2 = v_cmp_lt_f32 0, r2
//! s2 = v_cndmask_b32 s1, u, p2         ; one above if u*s < y
//! ...                                  ; scaled back, ±0 and +inf passed through
//! ```
//!
//! gfxsim's v_sqrt_f32 is the host's correctly rounded square root
//! (valu/mod.rs), so the two corrections never fire: for every one of the
//! 2^32 values of `x`, `s2` has the bits of `s` (checked exhaustively by
//! the ignored test `sqrt_corrections_never_fire_for_any_input`; a NaN `s`
//! makes both compares false). The identity needs the scaling: for
//! unscaled denormal `y` the fused residuals round to zero and a
//! correction does fire, so the match includes the first three steps with
//! their exact constants. The emitter (`Fx::inline`) then gives `s2`'s
//! register the value `s` had under the same EXEC, and LLVM drops the
//! correction steps whose results nothing else reads: two compares, two
//! fused multiply-adds, two selects and two adds of the sixteen.
//!
//! The match is on the block's dataflow, not on instruction order: every
//! register read resolves to the value an earlier instruction of the block
//! wrote, through value numbering over the instructions the match knows
//! (the compares, selects, multiplies, adds, fused multiply-adds and square
//! roots of the pattern, whatever their operands, v_mov_b32, s_mov_b32 of
//! a constant). Program control (SOPP: waits, delays) writes no register,
//! vector memory forgets the VGPRs alone, and any other instruction
//! forgets every register, so a match never spans one: in particular no
//! instruction between its first step and its last writes EXEC, and each
//! step runs under the same lanes. Wave64 lane masks fill SGPR pairs: a
//! select reads one as a compare's only where both words are that
//! compare's (GFX9's `sqrtf`, which keeps the threshold in an SGPR, runs
//! in wave64 waves).

use std::collections::HashMap;

use crate::gfx11::code_cache::Block;
use crate::gfx11::inst::{Family, Inst, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::VCC;

/// A square root whose correction steps leave it as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SqrtCorrection {
    /// Index in `Block::insts` of the v_sqrt_f32.
    pub sqrt: usize,
    /// Its destination VGPR (holding `s` right after it).
    pub row: u8,
    /// Index of the last correction step, the select writing `s2`.
    pub last: usize,
    /// The VGPR that select writes.
    pub dst: u8,
}

/// A value of the block: what an instruction computed, or what a register
/// held where the analysis lost track of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Opaque,
    Const(u32),
    /// f32 product (operands in instruction order).
    Mul(u32, u32),
    /// Ordered f32 compare `a < b` (`le`: `a <= b`).
    Cmp {
        le: bool,
        a: u32,
        b: u32,
    },
    /// Per lane `mask ? b : a`.
    Select {
        mask: u32,
        a: u32,
        b: u32,
    },
    Sqrt(u32),
    /// 32-bit integer sum.
    Add(u32, u32),
    /// `c - p * q`, fused.
    NegFma {
        p: u32,
        q: u32,
        c: u32,
    },
    /// The high word of wave64 lane mask `mask` (the SGPR after it).
    High(u32),
}

/// Value numbering of a block's registers.
struct Values {
    /// The block's wave64 list: lane masks are SGPR pairs.
    wave64: bool,
    nodes: Vec<Node>,
    /// (is a VGPR, register) -> the node it holds.
    regs: HashMap<(bool, u16), u32>,
    /// Per node, the index of the instruction that made it (None: a
    /// constant or a value from before the analysis knew the register).
    made_by: Vec<Option<usize>>,
}

impl Values {
    fn node(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        self.made_by.push(None);
        (self.nodes.len() - 1) as u32
    }

    fn reg(&mut self, key: (bool, u16)) -> u32 {
        if let Some(&n) = self.regs.get(&key) {
            return n;
        }
        let n = self.node(Node::Opaque);
        self.regs.insert(key, n);
        n
    }

    /// Source `k` of `i` as a node (None: not a plain register or constant).
    fn src(&mut self, i: &Inst, k: usize) -> Option<u32> {
        match i.src[k].src {
            Src::Vgpr(r) => Some(self.reg((true, u16::from(r)))),
            Src::Sgpr(r) => Some(self.reg((false, u16::from(r)))),
            Src::Imm(v) => Some(self.node(Node::Const(v as u32))),
            _ => None,
        }
    }

    fn write(&mut self, key: (bool, u16), n: Node, at: usize) {
        let id = self.node(n);
        self.made_by[id as usize] = Some(at);
        self.regs.insert(key, id);
    }

    /// Follow instruction `at` of the block.
    fn step(&mut self, i: &Inst, at: usize) {
        match i.family {
            // Program control (waits, delays, priorities) writes no register.
            Family::Sopp => return,
            // Vector memory writes VGPRs alone (its data or its result).
            Family::Global
            | Family::Flat
            | Family::Scratch
            | Family::Ds
            | Family::Mubuf
            | Family::Mtbuf => {
                self.regs.retain(|&(vgpr, _), _| !vgpr);
                return;
            }
            // A constant into an SGPR (GFX9 code keeps the threshold in one).
            Family::Sop1 if i.op == Op::SMovB32 && i.dst < VCC as u16 => {
                if let Src::Imm(v) = i.src[0].src {
                    self.write((false, i.dst), Node::Const(v as u32), at);
                    return;
                }
            }
            _ => {}
        }
        let plain = i.dpp.is_none()
            && i.sdwa.is_none()
            && i.dual.is_none()
            && i.mai.is_none()
            && !i.mods.clamp
            && i.mods.omod == 0
            && i.mods.abs == 0
            && i.mods.opsel == 0;
        let vector = matches!(i.family, Family::Vop1 | Family::Vop2 | Family::Vop3);
        let dst = (true, i.dst);
        let made = if !plain {
            None
        } else {
            match i.op {
                Op::VMulF32 if vector && i.mods.neg == 0 => {
                    let (a, b) = (self.src(i, 0), self.src(i, 1));
                    a.zip(b).map(|(a, b)| (dst, Node::Mul(a, b)))
                }
                Op::VSqrtF32 if vector && i.mods.neg == 0 => {
                    self.src(i, 0).map(|a| (dst, Node::Sqrt(a)))
                }
                Op::VAddNcU32 if vector && i.mods.neg == 0 => {
                    let (a, b) = (self.src(i, 0), self.src(i, 1));
                    a.zip(b).map(|(a, b)| (dst, Node::Add(a, b)))
                }
                Op::VFmaF32 if i.family == Family::Vop3 && matches!(i.mods.neg, 1 | 2) => {
                    let (p, q, c) = (self.src(i, 0), self.src(i, 1), self.src(i, 2));
                    match (p, q, c) {
                        (Some(p), Some(q), Some(c)) => Some((dst, Node::NegFma { p, q, c })),
                        _ => None,
                    }
                }
                Op::VCndmaskB32 if vector && i.mods.neg == 0 => {
                    let mask = match (i.family, i.src[2].src) {
                        (Family::Vop3, Src::Sgpr(r)) => Some(self.mask((false, u16::from(r)))),
                        (Family::Vop3, _) => self.src(i, 2),
                        _ => Some(self.mask((false, VCC as u16))),
                    };
                    let (a, b) = (self.src(i, 0), self.src(i, 1));
                    match (mask, a, b) {
                        (Some(mask), Some(a), Some(b)) => Some((dst, Node::Select { mask, a, b })),
                        _ => None,
                    }
                }
                Op::VCmpGtF32 | Op::VCmpLtF32 | Op::VCmpGeF32 | Op::VCmpLeF32
                    if i.mods.neg == 0 =>
                {
                    // VOPC writes VCC; VOP3 its SGPR (but EXEC, which
                    // would change the lanes, or what is no SGPR).
                    let sgpr = match i.family {
                        Family::Vopc => Some(VCC as u16),
                        Family::Vop3 if i.dst <= VCC as u16 => Some(i.dst),
                        _ => None,
                    };
                    let (a, b) = (self.src(i, 0), self.src(i, 1));
                    match (sgpr, a, b) {
                        (Some(s), Some(a), Some(b)) => {
                            let node = match i.op {
                                Op::VCmpGtF32 => Node::Cmp {
                                    le: false,
                                    a: b,
                                    b: a,
                                },
                                Op::VCmpLtF32 => Node::Cmp { le: false, a, b },
                                Op::VCmpGeF32 => Node::Cmp {
                                    le: true,
                                    a: b,
                                    b: a,
                                },
                                _ => Node::Cmp { le: true, a, b },
                            };
                            Some(((false, s), node))
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        // v_mov_b32: its destination holds what its source held (GFX9 code
        // moves the class test's mask into a VGPR between the steps).
        if plain
            && vector
            && i.op == Op::VMovB32
            && i.mods.neg == 0
            && let Some(n) = self.src(i, 0)
        {
            self.regs.insert(dst, n);
            return;
        }
        match made {
            Some(((false, r), node)) if self.wave64 => {
                // A wave64 lane mask fills an SGPR pair.
                self.write((false, r), node, at);
                let id = self.regs[&(false, r)];
                self.write((false, r + 1), Node::High(id), at);
            }
            Some((key, node)) => self.write(key, node, at),
            // Anything else: what it wrote is unknown here.
            None => self.regs.clear(),
        }
    }

    /// The lane mask in the SGPR at `key`: in wave64 a whole one only when
    /// the next SGPR holds its high word, else a value of its own.
    fn mask(&mut self, key: (bool, u16)) -> u32 {
        let low = self.reg(key);
        if !self.wave64 {
            return low;
        }
        let high = self.reg((key.0, key.1 + 1));
        if self.nodes[high as usize] == Node::High(low) {
            low
        } else {
            self.node(Node::Opaque)
        }
    }

    fn is_const(&self, n: u32, v: u32) -> bool {
        self.nodes[n as usize] == Node::Const(v)
    }

    /// `a + k` or `k + a` for constant `k`.
    fn plus(&self, n: u32, k: u32, a: u32) -> bool {
        match self.nodes[n as usize] {
            Node::Add(x, y) => (x == a && self.is_const(y, k)) || (y == a && self.is_const(x, k)),
            _ => false,
        }
    }

    /// `c - x * y` with {x, y} = {p, q}.
    fn residual(&self, n: u32, p: u32, q: u32, c: u32) -> bool {
        match self.nodes[n as usize] {
            Node::NegFma { p: x, q: y, c: z } => {
                z == c && ((x == p && y == q) || (x == q && y == p))
            }
            _ => false,
        }
    }

    /// Is `y` the scaled input `x < 2^-96 ? x * 2^32 : x`?
    fn scaled(&self, y: u32) -> bool {
        let Node::Select { mask, a: x, b: t } = self.nodes[y as usize] else {
            return false;
        };
        let product = match self.nodes[t as usize] {
            Node::Mul(p, q) => {
                (q == x && self.is_const(p, 0x4F80_0000))
                    || (p == x && self.is_const(q, 0x4F80_0000))
            }
            _ => false,
        };
        let tiny = match self.nodes[mask as usize] {
            Node::Cmp { le: false, a, b } => a == x && self.is_const(b, 0x0F80_0000),
            _ => false,
        };
        product && tiny
    }

    /// Is node `s2` (made by instruction `last`, a select) the corrected
    /// square root? Then its correction.
    fn correction(&self, s2: u32, insts: &[Inst]) -> Option<SqrtCorrection> {
        let Node::Select {
            mask: p2,
            a: s1,
            b: u,
        } = self.nodes[s2 as usize]
        else {
            return None;
        };
        let Node::Select {
            mask: p1,
            a: s,
            b: d,
        } = self.nodes[s1 as usize]
        else {
            return None;
        };
        let Node::Sqrt(y) = self.nodes[s as usize] else {
            return None;
        };
        let Node::Cmp {
            le: true,
            a: r1,
            b: zero1,
        } = self.nodes[p1 as usize]
        else {
            return None;
        };
        let Node::Cmp {
            le: false,
            a: zero2,
            b: r2,
        } = self.nodes[p2 as usize]
        else {
            return None;
        };
        let ok = self.scaled(y)
            && self.plus(d, u32::MAX, s)
            && self.plus(u, 1, s)
            && self.is_const(zero1, 0)
            && self.is_const(zero2, 0)
            && self.residual(r1, d, s, y)
            && self.residual(r2, u, s, y);
        if !ok {
            return None;
        }
        let (sqrt, last) = (self.made_by[s as usize]?, self.made_by[s2 as usize]?);
        Some(SqrtCorrection {
            sqrt,
            row: insts[sqrt].dst as u8,
            last,
            dst: insts[last].dst as u8,
        })
    }
}

/// The square roots of `block` whose correction steps the emitter may
/// drop, in order of their last step, for the wave size's list of entries.
pub(crate) fn sqrt_corrections(block: &Block, wave64: bool) -> Vec<SqrtCorrection> {
    let mut values = Values {
        wave64,
        nodes: Vec::new(),
        regs: HashMap::new(),
        made_by: Vec::new(),
    };
    let mut found = Vec::new();
    for c in block.list(wave64) {
        // A fused pair's two instructions (only no-ops lie between).
        let both = [c.index as usize, c.last as usize];
        let run = if c.last != c.index {
            &both[..]
        } else {
            &both[..1]
        };
        for &at in run {
            let i = &block.insts[at];
            values.step(i, at);
            if i.op == Op::VCndmaskB32
                && let Some(&n) = values.regs.get(&(true, i.dst))
                && values.made_by[n as usize] == Some(at)
                && let Some(fix) = values.correction(n, &block.insts)
            {
                found.push(fix);
            }
        }
    }
    found
}
