//! Cooperative matrix multiply-add on the matrix cores: WMMA on gfx11,
//! MFMA on gfx90a and gfx942.
//!
//! The emitted IR is the same for every target, so `emit/coop.rs` calls two
//! functions per multiply-add kind it only declares:
//! `@aqueduct.coop.mma.KIND.available(whole_waves)`, whether the
//! matrix-core path may run, and `@aqueduct.coop.mma.KIND(a, b, c)`, that
//! path. Before a module
//! is compiled for a target, [`define_for_target`] replaces those
//! declarations with the target's definitions: the matrix-core body where
//! the target has one, else `available` is false and the body unreachable
//! (the caller's generic multiply-add runs). Both are inlined and, with the
//! constant `available`, the dead side folds away.
//!
//! A matrix value holds the whole matrix in every invocation, column-major
//! (`emit/coop.rs`). The matrix-core path takes each lane's fragment of A, B
//! and C out of those vectors, runs one instruction (four for f32 on MFMA),
//! and gathers D back into every lane with `readlane`.
//!
//! Matrix instructions compute with every lane of the wave, and neither the
//! RDNA3 ISA guide (WMMA) nor the CDNA3 one ("Matrix Arithmetic
//! Instructions") says what they do under a partial EXEC (gfxsim refuses
//! MFMA there by name). So `available` is true only when every lane of the
//! wave is active; a partial wave (a workgroup smaller than a wave, say)
//! takes the generic path. When the emitter knows every workgroup is whole
//! waves (`whole_waves`), the test is constant and the generic path is
//! dead code on targets with matrix cores.
//!
//! Register layouts (16 x 16 tiles, K = 16; lane `l`, `m = l % 16`):
//! - gfx11 `v_wmma_f32_16x16x16_f16` and `v_wmma_f16_16x16x16_f16` (RDNA3
//!   ISA guide, "Wave Matrix Multiply Accumulate"; LLVM's AMDGPUUsage): A's
//!   row `m` and B's column `m` as 16 halves in lanes `m` and `m + 16`;
//!   C and D register `r` is element (2r + l / 16, m), the f16 form in the
//!   low half (op_sel 0).
//! - gfx9 `v_mfma_f32_16x16x16f16`: A[m][4g + i] and B[4g + i][m] in
//!   element `i` of lane `m + 16g`; C and D register `r` is element
//!   (4g + r, m) of lane `m + 16g`. `v_mfma_f32_16x16x4f32` has
//!   A[m][g] and B[g][m] in lane `m + 16g`, the same C and D, and runs four
//!   times over K. f16 accumulation on MFMA accumulates in f32 and rounds
//!   D once.

use std::borrow::Cow;
use std::fmt::Write;

/// A multiply-add with a matrix-core path: 16 x 16 A, B and C, A and B of
/// one scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MmaKind {
    /// f16 A and B, f32 C and D.
    F16F32,
    /// f16 A, B, C and D.
    F16F16,
    /// f32 A, B, C and D.
    F32F32,
}

/// Rows and columns of every matrix of a matrix-core multiply-add.
pub(crate) const TILE: u32 = 16;

const ALL: [MmaKind; 3] = [MmaKind::F16F32, MmaKind::F16F16, MmaKind::F32F32];

impl MmaKind {
    /// The kind for A and B of `ab_bits` and C of `c_bits` float widths.
    pub(crate) fn of(ab_bits: u8, c_bits: u8) -> Option<MmaKind> {
        match (ab_bits, c_bits) {
            (2, 4) => Some(MmaKind::F16F32),
            (2, 2) => Some(MmaKind::F16F16),
            (4, 4) => Some(MmaKind::F32F32),
            _ => None,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            MmaKind::F16F32 => "f16.f32",
            MmaKind::F16F16 => "f16.f16",
            MmaKind::F32F32 => "f32.f32",
        }
    }

    fn ab_ty(self) -> &'static str {
        match self {
            MmaKind::F16F32 | MmaKind::F16F16 => "half",
            MmaKind::F32F32 => "float",
        }
    }

    fn c_ty(self) -> &'static str {
        match self {
            MmaKind::F16F16 => "half",
            MmaKind::F16F32 | MmaKind::F32F32 => "float",
        }
    }

    /// `@name` of the matrix-core multiply-add.
    pub(crate) fn function(self) -> String {
        format!("@aqueduct.coop.mma.{}", self.suffix())
    }

    /// `@name` of the test whether it may run.
    pub(crate) fn available(self) -> String {
        format!("@aqueduct.coop.mma.{}.available", self.suffix())
    }

    /// The declaration the emitter writes for the multiply-add.
    pub(crate) fn declare_function(self) -> String {
        let n = TILE * TILE;
        format!(
            "declare <{n} x {c}> {}(<{n} x {ab}>, <{n} x {ab}>, <{n} x {c}>)",
            self.function(),
            ab = self.ab_ty(),
            c = self.c_ty()
        )
    }

    /// The declaration the emitter writes for the availability test; its
    /// argument says that every wave is known to have all lanes active.
    pub(crate) fn declare_available(self) -> String {
        format!("declare i1 {}(i1)", self.available())
    }
}

/// The matrix instruction family of a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// gfx11 (wave32 here): WMMA with f16 inputs.
    Wmma,
    /// gfx90a and gfx942 (wave64): MFMA.
    Mfma,
}

fn family(target: &str) -> Option<Family> {
    match target {
        "gfx90a" | "gfx942" => Some(Family::Mfma),
        // gfx12's WMMA has another register layout, gfx10 none.
        t if t.starts_with("gfx11") => Some(Family::Wmma),
        _ => None,
    }
}

/// Whether `target` runs `kind` on its matrix cores.
pub(crate) fn has_matrix_path(kind: MmaKind, target: &str) -> bool {
    match family(target) {
        Some(Family::Mfma) => true,
        Some(Family::Wmma) => kind != MmaKind::F32F32,
        None => false,
    }
}

/// `ir` with the cooperative matrix helpers it declares defined for
/// `target` (borrowed unchanged when it declares none).
pub(crate) fn define_for_target<'a>(ir: &'a str, target: &str) -> Cow<'a, str> {
    let used: Vec<MmaKind> = ALL
        .into_iter()
        .filter(|k| ir.contains(&k.declare_available()))
        .collect();
    if used.is_empty() {
        return Cow::Borrowed(ir);
    }
    let helpers: Vec<String> = used
        .iter()
        .flat_map(|k| [k.declare_available(), k.declare_function()])
        .collect();
    let mut out = String::with_capacity(ir.len() + 64 * 1024);
    for line in ir.lines() {
        if !helpers.iter().any(|h| h == line) {
            out.push_str(line);
            out.push('\n');
        }
    }
    let mut intrinsics = std::collections::BTreeSet::new();
    for kind in used {
        match family(target).filter(|_| has_matrix_path(kind, target)) {
            Some(f) => define_matrix_path(&mut out, &mut intrinsics, kind, f),
            None => define_unavailable(&mut out, kind),
        }
    }
    for declaration in intrinsics {
        // Intrinsics the module may already declare are declared once.
        if !ir.lines().any(|l| l == declaration) {
            out.push_str(declaration);
            out.push('\n');
        }
    }
    Cow::Owned(out)
}

/// `available` false and the body unreachable: the generic path runs.
fn define_unavailable(out: &mut String, kind: MmaKind) {
    let n = TILE * TILE;
    let _ = writeln!(
        out,
        "\ndefine internal i1 {}(i1 %whole_waves) alwaysinline {{\n  ret i1 false\n}}",
        kind.available()
    );
    let _ = writeln!(
        out,
        "\ndefine internal <{n} x {c}> {}(<{n} x {ab}> %a, <{n} x {ab}> %b, <{n} x {c}> %c) \
         alwaysinline {{\n  unreachable\n}}",
        kind.function(),
        ab = kind.ab_ty(),
        c = kind.c_ty()
    );
}

const BALLOT: &str = "declare i64 @llvm.amdgcn.ballot.i64(i1)";
const MBCNT_LO: &str = "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)";
const MBCNT_HI: &str = "declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)";
const READLANE: &str = "declare i32 @llvm.amdgcn.readlane.i32(i32, i32)";
const WMMA_F32: &str = "declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half>, <16 x half>, <8 x float>)";
const WMMA_F16: &str = "declare <16 x half> @llvm.amdgcn.wmma.f16.16x16x16.f16.v16f16.v16f16(<16 x half>, <16 x half>, <16 x half>, i1 immarg)";
const MFMA_F16: &str = "declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32 immarg, i32 immarg, i32 immarg)";
const MFMA_F32: &str = "declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32 immarg, i32 immarg, i32 immarg)";

/// IR text of one function body, with numbered temporaries.
struct Body {
    text: String,
    next: u32,
}

impl Body {
    fn def(&mut self, rhs: &str) -> String {
        self.next += 1;
        let name = format!("%v{}", self.next);
        let _ = writeln!(self.text, "  {name} = {rhs}");
        name
    }

    /// A `<count x ty>` vector of `elements` (operand texts).
    fn vector(&mut self, ty: &str, elements: &[String]) -> String {
        let vty = format!("<{} x {ty}>", elements.len());
        let mut acc = "poison".to_string();
        for (i, e) in elements.iter().enumerate() {
            acc = self.def(&format!("insertelement {vty} {acc}, {ty} {e}, i32 {i}"));
        }
        acc
    }

    /// A private copy of `value`, a whole matrix of `ty` elements: an
    /// extract at a per-lane index compiles to a compare and select for
    /// each of the 256 elements, a load from the copy to one access.
    fn private(&mut self, ty: &str, value: &str) -> String {
        let vty = format!("<{} x {ty}>", TILE * TILE);
        let p = self.def(&format!("alloca {vty}, align 4, addrspace(5)"));
        let _ = writeln!(self.text, "  store {vty} {value}, ptr addrspace(5) {p}");
        p
    }

    /// `index * 16 + offset` and `offset` are both IR i32 operands.
    fn index(&mut self, scaled: &str, offset: &str) -> String {
        let times = self.def(&format!("shl i32 {scaled}, 4"));
        self.def(&format!("add i32 {times}, {offset}"))
    }

    /// Element `index` of the private copy `matrix`.
    fn load(&mut self, ty: &str, matrix: &str, index: &str) -> String {
        let p = self.def(&format!(
            "getelementptr inbounds {ty}, ptr addrspace(5) {matrix}, i32 {index}"
        ));
        self.def(&format!("load {ty}, ptr addrspace(5) {p}"))
    }

    /// `value + constant`.
    fn plus(&mut self, value: &str, constant: u32) -> String {
        self.def(&format!("add i32 {value}, {constant}"))
    }

    /// `value` (an f32 or f16 operand of type `ty`) of lane `lane`.
    fn readlane(&mut self, ty: &str, value: &str, lane: u32) -> String {
        let word = match ty {
            "float" => self.def(&format!("bitcast float {value} to i32")),
            _ => {
                let bits = self.def(&format!("bitcast half {value} to i16"));
                self.def(&format!("zext i16 {bits} to i32"))
            }
        };
        let read = self.def(&format!(
            "call i32 @llvm.amdgcn.readlane.i32(i32 {word}, i32 {lane})"
        ));
        match ty {
            "float" => self.def(&format!("bitcast i32 {read} to float")),
            _ => {
                let bits = self.def(&format!("trunc i32 {read} to i16"));
                self.def(&format!("bitcast i16 {bits} to half"))
            }
        }
    }
}

/// The matrix-core definitions of `kind` for `family`.
fn define_matrix_path(
    out: &mut String,
    intrinsics: &mut std::collections::BTreeSet<&'static str>,
    kind: MmaKind,
    family: Family,
) {
    let n = TILE * TILE;
    let full_wave = match family {
        Family::Wmma => "4294967295",
        Family::Mfma => "-1",
    };
    intrinsics.insert(BALLOT);
    intrinsics.insert(MBCNT_LO);
    intrinsics.insert(READLANE);
    let _ = writeln!(
        out,
        "\ndefine internal i1 {}(i1 %whole_waves) alwaysinline convergent {{\n  \
         %active = call i64 @llvm.amdgcn.ballot.i64(i1 true)\n  \
         %full = icmp eq i64 %active, {full_wave}\n  \
         %run = or i1 %whole_waves, %full\n  ret i1 %run\n}}",
        kind.available()
    );
    let (ab, c) = (kind.ab_ty(), kind.c_ty());
    let mut body = Body {
        text: String::new(),
        next: 0,
    };
    let lo = body.def("call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)");
    let lane = match family {
        Family::Wmma => lo,
        Family::Mfma => {
            intrinsics.insert(MBCNT_HI);
            body.def(&format!("call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 {lo})"))
        }
    };
    // Lane l holds row or column m = l % 16 of group g = l / 16; element
    // (row, column) of a whole matrix is at 16 column + row.
    let m = body.def(&format!("and i32 {lane}, 15"));
    let g = body.def(&format!("lshr i32 {lane}, 4"));
    let (pa, pb, pc) = (
        body.private(ab, "%a"),
        body.private(ab, "%b"),
        body.private(c, "%c"),
    );
    let d: Vec<String> = match family {
        Family::Wmma => {
            // A's (m, k), B's (k, m), C's (2r + g, m).
            let a: Vec<String> = (0..TILE)
                .map(|k| {
                    let at = body.plus(&m, TILE * k);
                    body.load(ab, &pa, &at)
                })
                .collect();
            let a = body.vector(ab, &a);
            let b_first = body.index(&m, "0");
            let b: Vec<String> = (0..TILE)
                .map(|k| {
                    let at = body.plus(&b_first, k);
                    body.load(ab, &pb, &at)
                })
                .collect();
            let b = body.vector(ab, &b);
            let c_first = body.index(&m, &g);
            let c_elems: Vec<String> = (0..8)
                .map(|r| {
                    let at = body.plus(&c_first, 2 * r);
                    body.load(c, &pc, &at)
                })
                .collect();
            if kind == MmaKind::F16F16 {
                intrinsics.insert(WMMA_F16);
                // The low half of each register: elements 0, 2, .., 14.
                let spread: Vec<String> = (0..16)
                    .map(|i| {
                        if i % 2 == 0 {
                            c_elems[i / 2].clone()
                        } else {
                            "poison".into()
                        }
                    })
                    .collect();
                let cv = body.vector("half", &spread);
                let dv = body.def(&format!(
                    "call <16 x half> @llvm.amdgcn.wmma.f16.16x16x16.f16.v16f16.v16f16(\
                     <16 x half> {a}, <16 x half> {b}, <16 x half> {cv}, i1 false)"
                ));
                (0..8)
                    .map(|r| body.def(&format!("extractelement <16 x half> {dv}, i32 {}", 2 * r)))
                    .collect()
            } else {
                intrinsics.insert(WMMA_F32);
                let cv = body.vector("float", &c_elems);
                let dv = body.def(&format!(
                    "call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(\
                     <16 x half> {a}, <16 x half> {b}, <8 x float> {cv})"
                ));
                (0..8)
                    .map(|r| body.def(&format!("extractelement <8 x float> {dv}, i32 {r}")))
                    .collect()
            }
        }
        Family::Mfma => {
            // C's (4g + r, m); B's (4g + i, m) start at the same place.
            let g4 = body.def(&format!("shl i32 {g}, 2"));
            let c_first = body.index(&m, &g4);
            let mut c_elems: Vec<String> = (0..4)
                .map(|r| {
                    let at = body.plus(&c_first, r);
                    body.load(c, &pc, &at)
                })
                .collect();
            if c == "half" {
                c_elems = c_elems
                    .iter()
                    .map(|e| body.def(&format!("fpext half {e} to float")))
                    .collect();
            }
            let mut acc = body.vector("float", &c_elems);
            if ab == "half" {
                intrinsics.insert(MFMA_F16);
                // A's (m, 4g + i) at 16 (4g + i) + m.
                let a_first = body.index(&g4, &m);
                let a: Vec<String> = (0..4)
                    .map(|i| {
                        let at = body.plus(&a_first, TILE * i);
                        body.load(ab, &pa, &at)
                    })
                    .collect();
                let a = body.vector(ab, &a);
                let b: Vec<String> = (0..4)
                    .map(|i| {
                        let at = body.plus(&c_first, i);
                        body.load(ab, &pb, &at)
                    })
                    .collect();
                let b = body.vector(ab, &b);
                acc = body.def(&format!(
                    "call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> {a}, \
                     <4 x half> {b}, <4 x float> {acc}, i32 0, i32 0, i32 0)"
                ));
            } else {
                intrinsics.insert(MFMA_F32);
                let a_first = body.index(&g, &m);
                let b_first = body.index(&m, &g);
                for step in 0..4 {
                    // K = 4 step + g: A's (m, k) at 16k + m, B's (k, m) at 16m + k.
                    let a_at = body.plus(&a_first, TILE * 4 * step);
                    let a = body.load("float", &pa, &a_at);
                    let b_at = body.plus(&b_first, 4 * step);
                    let b = body.load("float", &pb, &b_at);
                    acc = body.def(&format!(
                        "call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float {a}, \
                         float {b}, <4 x float> {acc}, i32 0, i32 0, i32 0)"
                    ));
                }
            }
            (0..4)
                .map(|r| {
                    let e = body.def(&format!("extractelement <4 x float> {acc}, i32 {r}"));
                    if c == "half" {
                        body.def(&format!("fptrunc float {e} to half"))
                    } else {
                        e
                    }
                })
                .collect()
        }
    };
    // Every lane gathers D: element (row, column) from the register and
    // lane that hold it.
    let mut whole = Vec::with_capacity(n as usize);
    for column in 0..TILE {
        for row in 0..TILE {
            let (register, lane) = match family {
                Family::Wmma => (row / 2, column + TILE * (row % 2)),
                Family::Mfma => (row % 4, column + TILE * (row / 4)),
            };
            whole.push(body.readlane(c, &d[register as usize], lane));
        }
    }
    let result = body.vector(c, &whole);
    let _ = writeln!(
        out,
        "\ndefine internal <{n} x {c}> {}(<{n} x {ab}> %a, <{n} x {ab}> %b, <{n} x {c}> %c) \
         alwaysinline convergent {{\n{}  ret <{n} x {c}> {result}\n}}",
        kind.function(),
        body.text
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ir_without_cooperative_matrices_is_unchanged() {
        let ir = "define void @f() {\n  ret void\n}\n";
        assert!(matches!(define_for_target(ir, "gfx1100"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_target_gets_a_definition_and_no_declaration() {
        for kind in ALL {
            let ir = format!(
                "{}\n{}\n{}\n",
                kind.declare_available(),
                kind.declare_function(),
                READLANE
            );
            for target in crate::toolchain::KNOWN_TARGETS {
                let out = define_for_target(&ir, target);
                assert!(!out.contains(&kind.declare_function()), "{target}");
                assert!(!out.contains(&kind.declare_available()), "{target}");
                assert!(out.contains(&format!("define internal i1 {}(i1", kind.available())));
                let matrix = out.contains("@llvm.amdgcn.wmma") || out.contains("@llvm.amdgcn.mfma");
                assert_eq!(
                    matrix,
                    has_matrix_path(kind, target),
                    "{kind:?} on {target}"
                );
                // An intrinsic the module declared is not declared twice.
                assert_eq!(out.matches(READLANE).count(), 1, "{target}");
            }
        }
    }
}
