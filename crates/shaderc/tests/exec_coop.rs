//! Cooperative matrices (`enable wgpu_cooperative_matrix;`) compiled at
//! run time and run on gfxsim's gfx1100, gfx942 and gfx90a parts: loads and stores
//! in both layouts with explicit and default strides, `coopMultiplyAdd`
//! over f32, f16 and f16 × f16 + f32 (16x16 on the matrix cores where the
//! wave is whole, counted), matrix arithmetic through variables,
//! and robust access at a buffer's end. Every result is checked exactly
//! against a host matmul of small integers, which every type here holds
//! exactly.

use aqueduct_shaderc::{Options, Source, Toolchain, compile};
use aqueduct_test_harness::shaderc::*;

fn llvm_or_skip(what: &str) -> bool {
    let found = Toolchain::available();
    if !found {
        eprintln!("{what}: skipped (clang-19 / ld.lld-19 not installed)");
    }
    found
}

/// The targets the tests run on, with their simulated parts and wave sizes.
const TARGETS: [(&str, SimPart, u32); 3] = [
    ("gfx1100", SimPart::Rx7900Xtx, 32),
    ("gfx942", SimPart::Mi300x, 64),
    ("gfx90a", SimPart::Mi210, 64),
];

/// Compile `src` for `target` and run `main` over one workgroup on `part`.
fn compile_and_run(src: &str, target: &str, part: SimPart, bindings: &[Binding]) -> Vec<Vec<u8>> {
    compile_and_count(src, target, part, bindings).0
}

/// [`compile_and_run`], also returning the matrix instructions (WMMA or
/// MFMA) the dispatch executed.
fn compile_and_count(
    src: &str,
    target: &str,
    part: SimPart,
    bindings: &[Binding],
) -> (Vec<Vec<u8>>, u64) {
    let options = Options {
        file_name: "coop.wgsl".into(),
        targets: vec![target.into()],
        ..Options::default()
    };
    let compiled = compile(Source::Wgsl(src), &options)
        .unwrap_or_else(|e| panic!("{target}: does not compile:\n{e}\n{src}"));
    let (out, counters) = run_code_object_counted(
        part,
        &compiled.code_object,
        &compiled.reflection,
        "main",
        bindings,
        [1, 1, 1],
    )
    .unwrap_or_else(|e| panic!("{target}: does not run: {e}"));
    (out, counters.classes.get(InstClass::Wmma))
}

/// A WGSL scalar type of the tests and its host encoding.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    F32,
    F16,
}

impl Elem {
    fn wgsl(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F16 => "f16",
        }
    }

    fn encode(self, values: &[f32]) -> Vec<u8> {
        match self {
            Elem::F32 => bytes_of(values),
            Elem::F16 => values
                .iter()
                .flat_map(|v| half::f16::from_f32(*v).to_bits().to_le_bytes())
                .collect(),
        }
    }

    fn decode(self, bytes: &[u8]) -> Vec<f32> {
        match self {
            Elem::F32 => f32s(bytes),
            Elem::F16 => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32())
                .collect(),
        }
    }
}

/// Where a matrix lies in memory: first element, stride, layout.
#[derive(Clone, Copy, Debug)]
struct Placement {
    first: usize,
    stride: usize,
    row_major: bool,
}

impl Placement {
    /// The array index of element (row, column).
    fn index(self, row: usize, column: usize) -> usize {
        if self.row_major {
            self.first + row * self.stride + column
        } else {
            self.first + column * self.stride + row
        }
    }

    fn load(self, n: usize, memory: &[f32]) -> Vec<Vec<f32>> {
        (0..n)
            .map(|r| (0..n).map(|c| memory[self.index(r, c)]).collect())
            .collect()
    }

    /// `coopLoad`/`coopLoadT` of `ty` at this placement.
    fn wgsl_load(self, ty: &str, array: &str) -> String {
        let f = if self.row_major {
            "coopLoadT"
        } else {
            "coopLoad"
        };
        format!("{f}<{ty}>(&{array}[{}], {}u)", self.first, self.stride)
    }

    fn wgsl_store(self, value: &str, array: &str) -> String {
        let f = if self.row_major {
            "coopStoreT"
        } else {
            "coopStore"
        };
        format!("{f}({value}, &{array}[{}], {}u);", self.first, self.stride)
    }
}

/// `a * b + c` on the host, rows of columns.
fn host_multiply_add(a: &[Vec<f32>], b: &[Vec<f32>], c: &[Vec<f32>]) -> Vec<Vec<f32>> {
    let n = a.len();
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| c[i][j] + (0..n).map(|k| a[i][k] * b[k][j]).sum::<f32>())
                .collect()
        })
        .collect()
}

/// Small integers in [-3, 3]: every product sum of a 16-deep matmul stays
/// exact in f16.
fn small_ints(seed: u64, n: usize) -> Vec<f32> {
    Rng::new(seed)
        .f32s(n, -3.49, 3.49)
        .into_iter()
        .map(f32::round)
        .collect()
}

/// One multiply-add case: the A/B and C scalar types, the size, and where
/// A, B, C and the two stored results lie.
/// `coopMultiplyAdd` of `n` x `n` matrices over one workgroup of
/// `invocations`, checked against the host on every target.
fn check_multiply_add(n: usize, ab: Elem, c_elem: Elem, a_row_major: bool, invocations: u32) {
    // A and B share one buffer with strides wider than the matrix; C uses
    // the default stride; D is stored once column-major with the default
    // stride and once row-major with a wider one.
    let a_at = Placement {
        first: 3,
        stride: n + 2,
        row_major: a_row_major,
    };
    let b_at = Placement {
        first: 3 + n * (n + 2) + 5,
        stride: n + 1,
        row_major: !a_row_major,
    };
    let c_at = Placement {
        first: 0,
        stride: n,
        row_major: false,
    };
    let d_at = Placement {
        first: 0,
        stride: n,
        row_major: false,
    };
    let dt_at = Placement {
        first: n * n,
        stride: n + 3,
        row_major: true,
    };
    let ab_len = b_at.first + n * (n + 1) + 4;
    let out_len = dt_at.first + n * (n + 3);
    let ab_values = small_ints(7 + n as u64, ab_len);
    let c_values = small_ints(11 + n as u64, n * n);

    let (t_ab, t_c) = (ab.wgsl(), c_elem.wgsl());
    let enable_f16 = if ab == Elem::F16 || c_elem == Elem::F16 {
        "enable f16;\n"
    } else {
        ""
    };
    let a_ty = format!("coop_mat{n}x{n}<{t_ab}, A>");
    let b_ty = format!("coop_mat{n}x{n}<{t_ab}, B>");
    let c_ty = format!("coop_mat{n}x{n}<{t_c}, C>");
    let src = format!(
        "{enable_f16}enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> ab: array<{t_ab}>;
@group(0) @binding(1) var<storage, read> cin: array<{t_c}>;
@group(0) @binding(2) var<storage, read_write> out: array<{t_c}>;
@compute @workgroup_size({invocations})
fn main() {{
    let a = {};
    let b = {};
    let c = coopLoad<{c_ty}>(&cin[0]);
    let d = coopMultiplyAdd(a, b, c);
    coopStore(d, &out[0]);
    {}
}}
",
        a_at.wgsl_load(&a_ty, "ab"),
        b_at.wgsl_load(&b_ty, "ab"),
        dt_at.wgsl_store("d", "out"),
    );
    let want = host_multiply_add(
        &a_at.load(n, &ab_values),
        &b_at.load(n, &ab_values),
        &c_at.load(n, &c_values),
    );
    let sentinel = -100.0;
    for (target, part, wave) in TARGETS {
        let (out, matrix_instructions) = compile_and_count(
            &src,
            target,
            part,
            &[
                (0, 0, ab.encode(&ab_values)),
                (0, 1, c_elem.encode(&c_values)),
                (0, 2, c_elem.encode(&vec![sentinel; out_len])),
            ],
        );
        let got = c_elem.decode(&out[2]);
        let mut expected = vec![sentinel; out_len];
        for (r, row) in want.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                expected[d_at.index(r, c)] = *v;
                expected[dt_at.index(r, c)] = *v;
            }
        }
        assert_eq!(
            got, expected,
            "{target}: {n}x{n} {t_ab} x {t_ab} + {t_c}, A row-major: {a_row_major}"
        );
        // 16x16 runs on the matrix cores when whole waves run it: one
        // WMMA or MFMA a wave, four 16x16x4 MFMAs for f32 (gfx11 has no
        // f32 WMMA); anything else runs as each invocation's own FMAs.
        let per_wave = match (n, target, ab) {
            (16, "gfx1100", Elem::F32) => 0,
            (16, "gfx1100", _) => 1,
            (16, _, Elem::F32) => 4,
            (16, _, _) => 1,
            _ => 0,
        };
        let whole_waves = invocations.is_multiple_of(wave);
        let want_matrix = if whole_waves {
            per_wave * u64::from(invocations / wave)
        } else {
            0
        };
        assert_eq!(
            matrix_instructions, want_matrix,
            "{target}: matrix instructions of a {n}x{n} {t_ab} x {t_ab} + {t_c} \
             over {invocations} invocations"
        );
    }
}

#[test]
fn multiply_add_f32_8x8() {
    if !llvm_or_skip("coop f32 8x8") {
        return;
    }
    check_multiply_add(8, Elem::F32, Elem::F32, false, 64);
    check_multiply_add(8, Elem::F32, Elem::F32, true, 64);
}

#[test]
fn multiply_add_f32_16x16() {
    if !llvm_or_skip("coop f32 16x16") {
        return;
    }
    check_multiply_add(16, Elem::F32, Elem::F32, true, 64);
}

#[test]
fn multiply_add_f16_8x8() {
    if !llvm_or_skip("coop f16 8x8") {
        return;
    }
    check_multiply_add(8, Elem::F16, Elem::F16, false, 64);
}

#[test]
fn multiply_add_f16_16x16() {
    if !llvm_or_skip("coop f16 16x16") {
        return;
    }
    // One layout: the 8x8 cases cover both, and a 16x16 case costs seconds
    // of LLVM and gfxsim time per target.
    check_multiply_add(16, Elem::F16, Elem::F16, false, 64);
}

#[test]
fn multiply_add_f16_into_f32_16x16() {
    if !llvm_or_skip("coop f16 x f16 + f32 16x16") {
        return;
    }
    check_multiply_add(16, Elem::F16, Elem::F32, false, 64);
}

#[test]
fn multiply_add_of_a_partial_wave_16x16() {
    if !llvm_or_skip("coop f16 x f16 + f32 16x16, 16 invocations") {
        return;
    }
    // Fewer invocations than a wave: the matrix cores need every lane, so
    // the generic multiply-add runs.
    check_multiply_add(16, Elem::F16, Elem::F32, true, 16);
}

#[test]
fn multiply_add_f16_into_f32_8x8() {
    if !llvm_or_skip("coop f16 x f16 + f32 8x8") {
        return;
    }
    check_multiply_add(8, Elem::F16, Elem::F32, true, 64);
}

/// Matrices kept in private and function variables, passed through a
/// helper function, loaded from workgroup memory, and combined with `+`,
/// `-` and a scalar `*`: `d = 2 * (a * b + c) - c + c` with `a` read
/// row-major from workgroup memory.
#[test]
fn matrices_through_variables_functions_and_workgroup_memory() {
    if !llvm_or_skip("coop variables") {
        return;
    }
    let src = "
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
var<workgroup> tile: array<f32, 64>;
var<private> a: coop_mat8x8<f32, A>;

fn step(x: coop_mat8x8<f32, A>, y: coop_mat8x8<f32, B>, z: coop_mat8x8<f32, C>) -> coop_mat8x8<f32, C> {
    return coopMultiplyAdd(x, y, z) * 2f;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    tile[i] = inp[i];
    workgroupBarrier();
    a = coopLoadT<coop_mat8x8<f32, A>>(&tile[0]);
    var b = coopLoad<coop_mat8x8<f32, B>>(&inp[64]);
    var c: coop_mat8x8<f32, C>;
    c = coopLoad<coop_mat8x8<f32, C>>(&inp[128]);
    var d = step(a, b, c);
    d = d - c + c;
    coopStore(d, &out[0]);
}
";
    let values = small_ints(31, 192);
    let at = |first, row_major| Placement {
        first,
        stride: 8,
        row_major,
    };
    let (a, b, c) = (
        at(0, true).load(8, &values),
        at(64, false).load(8, &values),
        at(128, false).load(8, &values),
    );
    let d = host_multiply_add(&a, &b, &c);
    let mut want = vec![0.0f32; 64];
    for (r, row) in d.iter().enumerate() {
        for (col, v) in row.iter().enumerate() {
            want[at(0, false).index(r, col)] = 2.0 * v;
        }
    }
    for (target, part, _) in TARGETS {
        let out = compile_and_run(
            src,
            target,
            part,
            &[(0, 0, bytes_of(&values)), (0, 1, vec![0; 64 * 4])],
        );
        assert_eq!(f32s(&out[1]), want, "{target}");
    }
}

/// Elements past a buffer's end follow WGSL's robust access rules: a load
/// reads the array's last element, a store is dropped.
#[test]
fn elements_past_the_end_are_clamped_or_dropped() {
    if !llvm_or_skip("coop bounds") {
        return;
    }
    let src = "
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(32)
fn main() {
    let m = coopLoad<coop_mat8x8<f32, C>>(&inp[8]);
    coopStore(m, &out[4]);
}
";
    let values: Vec<f32> = (0..40).map(|v| v as f32).collect();
    let (load_at, store_at) = (at_stride_8(8), at_stride_8(4));
    let sentinel = -1.0;
    let mut want = vec![sentinel; 50];
    for r in 0..8 {
        for c in 0..8 {
            let value = values[load_at.index(r, c).min(values.len() - 1)];
            if let Some(slot) = want.get_mut(store_at.index(r, c)) {
                *slot = value;
            }
        }
    }
    for (target, part, _) in TARGETS {
        let out = compile_and_run(
            src,
            target,
            part,
            &[(0, 0, bytes_of(&values)), (0, 1, bytes_of(&[sentinel; 50]))],
        );
        assert_eq!(f32s(&out[1]), want, "{target}");
    }
}

fn at_stride_8(first: usize) -> Placement {
    Placement {
        first,
        stride: 8,
        row_major: false,
    }
}

/// The shape of naga's own cooperative-matrix test input (private and
/// function matrices, a load at an offset, a multiply-add stored back,
/// a matrix assigned to a variable) compiles for every target.
#[test]
fn naga_style_input_compiles_for_every_target() {
    if !llvm_or_skip("coop naga input") {
        return;
    }
    let src = "
enable wgpu_cooperative_matrix;

var<private> a: coop_mat8x8<f32, A>;
var<private> b: coop_mat8x8<f32, B>;
@group(0) @binding(0)
var<storage, read_write> ext: array<f32>;

@compute @workgroup_size(8, 8, 1)
fn main() {
    var c = coopLoad<coop_mat8x8<f32, C>>(&ext[4]);
    var d = coopMultiplyAdd(a, b, c);
    coopStore(d, &ext[0]);
    c = d;
}
";
    let options = Options {
        targets: vec!["gfx1100".into(), "gfx942".into(), "gfx90a".into()],
        ..Options::default()
    };
    let compiled = compile(Source::Wgsl(src), &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compiled.reflection.entry_points.len(), 1);
}

/// What is not lowered is refused with `CooperativeMatrices` and a
/// construct naming it: a pointer that is no array element, and a
/// multiply-add whose sizes do not chain.
#[test]
fn unlowered_forms_are_refused_by_name() {
    let cases = [
        (
            "
enable wgpu_cooperative_matrix;
var<private> v: vec4<f32>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(32)
fn main() {
    let m = coopLoad<coop_mat8x8<f32, C>>(&v);
    coopStore(m, &out[0]);
}
",
            "not an array element",
        ),
        (
            "
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(32)
fn main() {
    let a = coopLoad<coop_mat8x8<f32, A>>(&out[0]);
    let b = coopLoad<coop_mat16x16<f32, B>>(&out[0]);
    let c = coopLoad<coop_mat8x8<f32, C>>(&out[0]);
    coopStore(coopMultiplyAdd(a, b, c), &out[0]);
}
",
            "a 8x8 A, a 16x16 B and a 8x8 C",
        ),
    ];
    for (src, want) in cases {
        match aqueduct_shaderc::translate(Source::Wgsl(src), &Options::default()) {
            Err(aqueduct_shaderc::CompileError::Unsupported {
                kind, construct, ..
            }) => {
                assert_eq!(kind, aqueduct_shaderc::UnsupportedKind::CooperativeMatrices);
                assert!(construct.contains(want), "{construct}");
            }
            other => panic!(
                "expected Unsupported, got {:?}",
                other.map(|t| t.reflection)
            ),
        }
    }
}
