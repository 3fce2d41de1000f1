//! The opcode walk: every opcode of gfx11's compute encodings
//! (`opcodes/tables.rs`) is encoded, decoded and run through the slow path
//! ([`step`]) once; an opcode the slow path answers with a plain "unsupported
//! instruction" has no execution path and fails the test, unless it is
//! listed in [`NOT_EXECUTED`] with the reason. Memory instructions run
//! against a memory with nothing mapped, so they fault: that is an execution
//! path too. The encoding families with no compute use at all (EXP,
//! LDSDIR, VINTERP) are not walked (`step.rs` refuses them whole), nor is
//! MIMG, whose executed opcodes tests/image_exec runs (exec/vmem/image.rs
//! refuses the others).

use super::{Env, NoMemory, step};
use crate::WaveErrorKind;
use crate::gfx11::decode::decode;
use crate::gfx11::opcodes::{
    DS, FLAT, GLOBAL, MTBUF, MUBUF, OpInfo, SCRATCH, SMEM, SOP1, SOP2, SOPC, SOPK, SOPP, VOP1,
    VOP2, VOP3, VOP3P, VOPC,
};
use crate::gfx11::wave::{EXEC, Wave};

/// Opcodes of the walked families that the emulator does not execute, with
/// why a compute kernel does not need them (graphics, ray tracing, driver
/// or video-codec use; LLVM emits them for compute only through their own
/// intrinsics, if at all).
const NOT_EXECUTED: &[(&str, &str)] = &[
    ("v_mullit_f32", "legacy lighting coefficient (graphics)"),
    ("s_setkill", "pixel-shader kill"),
    (
        "s_subvector_loop_begin",
        "graphics subvector loops (wave64 pixel shaders)",
    ),
    (
        "s_subvector_loop_end",
        "graphics subvector loops (wave64 pixel shaders)",
    ),
    (
        "s_atc_probe",
        "address-translation-cache probe (driver use)",
    ),
    (
        "s_atc_probe_buffer",
        "address-translation-cache probe (driver use)",
    ),
    ("ds_bvh_stack_rtn_b32", "ray-tracing traversal stack"),
    ("ds_condxchg32_rtn_b64", "graphics ordered-append exchange"),
    (
        "v_qsad_pk_u16_u8",
        "video motion-estimation SAD (codec kernels)",
    ),
    (
        "v_mqsad_pk_u16_u8",
        "video motion-estimation SAD (codec kernels)",
    ),
    (
        "v_mqsad_u32_u8",
        "video motion-estimation SAD (codec kernels)",
    ),
];

/// The candidate encodings of opcode `n` of each walked family: operands
/// zero (s0, v0), scalar offsets and address registers off where the format
/// has them. VOP3 and VOP3P opcodes get one, two or three VGPR sources, or
/// SGPR sources, since some take only one kind (v_writelane's sources are
/// scalar, WMMA's are vectors) and the decoder refuses a source field an
/// opcode does not read unless it is zero; an opcode decodes if one of its
/// candidates does, and executes if one of those does.
fn encodings() -> Vec<(&'static str, Vec<Vec<[u32; 3]>>)> {
    fn each(table: &[Option<OpInfo>], f: impl Fn(u32) -> Vec<[u32; 3]>) -> Vec<Vec<[u32; 3]>> {
        table
            .iter()
            .enumerate()
            .filter(|(_, info)| info.is_some())
            .map(|(n, _)| f(n as u32))
            .collect()
    }
    const V0: [u32; 3] = [256, 256 | 256 << 9, 256 | 256 << 9 | 256 << 18];
    vec![
        ("SOP2", each(&SOP2, |n| vec![[0x8000_0000 | n << 23, 0, 0]])),
        ("SOP1", each(&SOP1, |n| vec![[0xBE80_0000 | n << 8, 0, 0]])),
        ("SOPK", each(&SOPK, |n| vec![[0xB000_0000 | n << 23, 0, 0]])),
        ("SOPC", each(&SOPC, |n| vec![[0xBF00_0000 | n << 16, 0, 0]])),
        ("SOPP", each(&SOPP, |n| vec![[0xBF80_0000 | n << 16, 0, 0]])),
        // soffset off (NULL).
        (
            "SMEM",
            each(&SMEM, |n| vec![[0xF400_0000 | n << 18, 0xF800_0000, 0]]),
        ),
        (
            "VOP1",
            each(&VOP1, |n| vec![[0x7E00_0000 | n << 9 | 256, 0, 0]]),
        ),
        ("VOP2", each(&VOP2, |n| vec![[n << 25 | 256, 0, 0]])),
        (
            "VOPC",
            each(&VOPC, |n| vec![[0x7C00_0000 | n << 17 | 256, 0, 0]]),
        ),
        (
            "VOP3",
            each(&VOP3, |n| {
                let w0 = 0xD400_0000 | n << 16;
                vec![[w0, V0[0], 0], [w0, V0[1], 0], [w0, V0[2], 0], [w0, 0, 0]]
            }),
        ),
        (
            "VOP3P",
            each(&VOP3P, |n| {
                let w0 = 0xCC00_0000 | n << 16;
                vec![[w0, V0[0], 0], [w0, V0[1], 0], [w0, V0[2], 0], [w0, 0, 0]]
            }),
        ),
        ("DS", each(&DS, |n| vec![[0xD800_0000 | n << 18, 0, 0]])),
        // FLAT's saddr field holds `off` (NULL).
        (
            "FLAT",
            each(&FLAT, |n| vec![[0xDC00_0000 | n << 18, 0x7C << 16, 0]]),
        ),
        // saddr off (NULL).
        (
            "SCRATCH",
            each(&SCRATCH, |n| vec![[0xDC01_0000 | n << 18, 0x7C << 16, 0]]),
        ),
        (
            "GLOBAL",
            each(&GLOBAL, |n| vec![[0xDC02_0000 | n << 18, 0x7C << 16, 0]]),
        ),
        (
            "MUBUF",
            each(&MUBUF, |n| vec![[0xE000_0000 | n << 18, 0, 0]]),
        ),
        (
            "MTBUF",
            each(&MTBUF, |n| vec![[0xE800_0000 | n << 15, 0, 0]]),
        ),
    ]
}

/// Does the slow path answer `inst` with a plain "unsupported instruction"
/// (no execution path)? A mnemonic with "(why)" is a recognised form with
/// operands the emulator does not model: a path exists.
fn unsupported(inst: &crate::gfx11::inst::Inst) -> bool {
    let mut wave = Wave::default();
    wave.sgpr[EXEC] = u32::MAX;
    matches!(
        execute(&mut wave, &mut vec![0u8; 65536], inst),
        Err(WaveErrorKind::IllegalInstruction { mnemonic: Some(m), .. }) if !m.contains(" (")
    )
}

/// Runs `inst` once on `wave` with `lds`, no memory and no scratch.
fn execute(
    wave: &mut Wave,
    lds: &mut [u8],
    inst: &crate::gfx11::inst::Inst,
) -> Result<super::Flow, WaveErrorKind> {
    let mut scratch = Vec::new();
    let mut env = Env {
        mem: &NoMemory,
        lds,
        scratch: &mut scratch,
        scratch_va: 0,
        scratch_wave_bytes: 0,
        scratch_wave64: false,
        scratch_per_lane: 0,
        shared_base: 0,
        private_base: 0,
        spans: &mut Default::default(),
        lds_bank_conflicts: None,
        observer: None,
    };
    step(wave, &mut env, inst)
}

#[test]
fn every_compute_opcode_has_an_execution_path() {
    let mut missing = Vec::new();
    let mut undecodable = Vec::new();
    let mut listed_but_executed = Vec::new();
    for (family, opcodes) in encodings() {
        for candidates in opcodes {
            // The opcode's name and whether some candidate executes.
            let mut seen: Option<(&str, &str, bool)> = None;
            let mut errors = Vec::new();
            for w in &candidates {
                let inst = match decode(w) {
                    Ok(inst) => inst,
                    Err(e) => {
                        errors.push(format!("{family} {w:08x?}: {e:?}"));
                        continue;
                    }
                };
                let executes = !unsupported(&inst);
                let entry = seen.get_or_insert((inst.mnemonic, inst.op.name(), false));
                entry.2 |= executes;
            }
            if seen.is_none() {
                undecodable.extend(errors);
            }
            let Some((mnemonic, name, executes)) = seen else {
                continue;
            };
            let listed = NOT_EXECUTED.iter().any(|(n, _)| *n == name);
            match (executes, listed) {
                (false, false) => missing.push(format!("{family} {mnemonic}")),
                (true, true) => listed_but_executed.push(name),
                _ => {}
            }
        }
    }
    assert!(
        undecodable.is_empty(),
        "walk encodings that do not decode:\n{}",
        undecodable.join("\n")
    );
    assert!(
        missing.is_empty(),
        "{} compute opcodes have no execution path:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(
        listed_but_executed.is_empty(),
        "executed, yet listed as not executed: {listed_but_executed:?}"
    );
}

/// V_MAD_U16 / V_MAD_I16 / V_MAD_U32_U16 / V_MAD_I32_I16 against the host.
#[test]
fn sixteen_bit_mads_match_the_host() {
    use super::valu::{mad_32_16, mad_i16, mad_u16};
    let values = [0u16, 1, 2, 0x7FFF, 0x8000, 0xFFFF, 300, 0x1234];
    for &a in &values {
        for &b in &values {
            for &c in &values {
                let wide = u32::from(a) * u32::from(b) + u32::from(c);
                assert_eq!(mad_u16(a, b, c, false), wide as u16);
                assert_eq!(mad_u16(a, b, c, true), wide.min(0xFFFF) as u16);
                let s = i32::from(a as i16) * i32::from(b as i16) + i32::from(c as i16);
                assert_eq!(mad_i16(a, b, c, false), s as u16);
                assert_eq!(mad_i16(a, b, c, true), s.clamp(-32768, 32767) as i16 as u16);
                let c32 = u32::from(c) * 0x1_0001;
                let u = u64::from(a) * u64::from(b) + u64::from(c32);
                assert_eq!(mad_32_16(a, b, c32, false, false), u as u32);
                assert_eq!(
                    mad_32_16(a, b, c32, false, true),
                    u.min(u64::from(u32::MAX)) as u32
                );
                let i = i64::from(a as i16) * i64::from(b as i16) + i64::from(c32 as i32);
                assert_eq!(mad_32_16(a, b, c32, true, false), i as u32);
            }
        }
    }
    // Spot values, worked by hand: 300 * 300 + 7 = 90007 = 0x15F97.
    assert_eq!(mad_u16(300, 300, 7, false), 0x5F97);
    assert_eq!(mad_u16(300, 300, 7, true), 0xFFFF);
    // -2 * 3 + 1 = -5.
    assert_eq!(mad_i16(0xFFFE, 3, 1, false), (-5i16) as u16);
    assert_eq!(mad_i16(0x7FFF, 2, 0, true), 0x7FFF);
}

/// Runs the instruction with llvm-mc-19's encoding `bytes` (gfx1100) on a
/// wave that `setup` prepares, all lanes active, with 64 KiB of LDS.
fn run(bytes: &[u8], setup: impl FnOnce(&mut Wave)) -> (Wave, Vec<u8>) {
    let mut words = [0u32; 3];
    for (k, c) in bytes.chunks(4).enumerate() {
        words[k] = u32::from_le_bytes(c.try_into().expect("whole words"));
    }
    let inst = decode(&words).expect("decodes");
    let mut wave = Wave::default();
    wave.sgpr[EXEC] = u32::MAX;
    setup(&mut wave);
    let mut lds = vec![0u8; 65536];
    execute(&mut wave, &mut lds, &inst).expect("executes");
    (wave, lds)
}

/// Byte-wise operations and dot products against host arithmetic, lane by
/// lane over varied bytes.
#[test]
fn byte_ops_and_dots_match_the_host() {
    let a = |l: u32| 0x80FF_7F01u32.rotate_left(l) ^ (l * 0x0101_0101);
    let b = |l: u32| 0x1234_F0A5u32.wrapping_mul(l + 1);
    let c = |l: u32| l * 1000;
    let setup = |w: &mut Wave| {
        for l in 0..32 {
            w.vgpr[1][l] = a(l as u32);
            w.vgpr[2][l] = b(l as u32);
            w.vgpr[3][l] = c(l as u32);
        }
    };
    let bytes = |x: u32| x.to_le_bytes();
    // v_dot4_u32_u8 v0, v1, v2, v3
    let (w, _) = run(&[0x00, 0x40, 0x17, 0xcc, 0x01, 0x05, 0x0e, 0x1c], setup);
    for l in 0..32u32 {
        let dot: u32 = (0..4)
            .map(|k| u32::from(bytes(a(l))[k]) * u32::from(bytes(b(l))[k]))
            .sum();
        assert_eq!(
            w.vgpr[0][l as usize],
            dot.wrapping_add(c(l)),
            "dot4 u8 lane {l}"
        );
    }
    // v_dot4_i32_iu8 ... neg_lo:[1,1,0]: both sources signed.
    let (w, _) = run(&[0x00, 0x40, 0x16, 0xcc, 0x01, 0x05, 0x0e, 0x7c], setup);
    for l in 0..32u32 {
        let dot: i32 = (0..4)
            .map(|k| i32::from(bytes(a(l))[k] as i8) * i32::from(bytes(b(l))[k] as i8))
            .sum();
        assert_eq!(
            w.vgpr[0][l as usize] as i32,
            dot + c(l) as i32,
            "sudot4 lane {l}"
        );
    }
    // neg_lo:[0,1,0] clamp: src0 unsigned, src1 signed, saturating.
    let (w, _) = run(&[0x00, 0xc0, 0x16, 0xcc, 0x01, 0x05, 0x0e, 0x5c], |w| {
        setup(w);
        w.vgpr[3][0] = i32::MAX as u32;
        w.vgpr[1][0] = 0xFFFF_FFFF;
        w.vgpr[2][0] = 0x0101_0101;
    });
    assert_eq!(w.vgpr[0][0], i32::MAX as u32, "clamped");
    // v_sad_u8 / v_msad_u8 / v_lerp_u8
    let (w, _) = run(&[0x00, 0x00, 0x22, 0xd6, 0x01, 0x05, 0x0e, 0x04], setup);
    let (m, _) = run(&[0x00, 0x00, 0x39, 0xd6, 0x01, 0x05, 0x0e, 0x04], setup);
    let (lerp, _) = run(&[0x00, 0x00, 0x15, 0xd6, 0x01, 0x05, 0x0e, 0x04], setup);
    for l in 0..32u32 {
        let (x, y, z) = (bytes(a(l)), bytes(b(l)), bytes(c(l)));
        let sad: u32 = (0..4).map(|k| u32::from(x[k].abs_diff(y[k]))).sum();
        let msad: u32 = (0..4)
            .filter(|&k| y[k] != 0)
            .map(|k| u32::from(x[k].abs_diff(y[k])))
            .sum();
        let avg = u32::from_le_bytes(std::array::from_fn(|k| {
            ((u32::from(x[k]) + u32::from(y[k]) + u32::from(z[k] & 1)) >> 1) as u8
        }));
        assert_eq!(w.vgpr[0][l as usize], sad + c(l), "sad lane {l}");
        assert_eq!(m.vgpr[0][l as usize], msad + c(l), "msad lane {l}");
        assert_eq!(lerp.vgpr[0][l as usize], avg, "lerp lane {l}");
    }
    // v_med3_i16 and v_sat_pk_u8_i16
    let (w, _) = run(&[0x00, 0x00, 0x50, 0xd6, 0x01, 0x05, 0x0e, 0x04], setup);
    let (sat, _) = run(&[0x01, 0xc5, 0x00, 0x7e], setup);
    for l in 0..32u32 {
        let mut v = [a(l) as i16, b(l) as i16, c(l) as i16];
        v.sort();
        assert_eq!(w.vgpr[0][l as usize] as u16 as i16, v[1], "med3 lane {l}");
        let s = |h: u32| (h as u16 as i16).clamp(0, 255) as u32;
        assert_eq!(
            sat.vgpr[0][l as usize] & 0xFFFF,
            s(a(l)) | s(a(l) >> 16) << 8
        );
    }
}

/// The SOP1 64-bit bit operations and the DS counters and masked OR.
#[test]
fn scalar_bits_and_lds_counters_match_the_host() {
    // s_bitreplicate_b64_b32 s[0:1], s2
    let (w, _) = run(&[0x02, 0x14, 0x80, 0xbe], |w| w.sgpr[2] = 0x8000_0005);
    assert_eq!(w.sgpr64(0), 0xC000_0000_0000_0033);
    // s_quadmask_b64 s[0:1], s[2:3]
    let (w, _) = run(&[0x02, 0x1b, 0x80, 0xbe], |w| {
        w.set_sgpr64(2, 0x1000_0000_0000_0F01)
    });
    assert_eq!(w.sgpr64(0), 0x8000 | 0b101);
    assert!(w.scc);
    // ds_append v0 with 20 active lanes: the counter at M0 grows by 20 and
    // every active lane reads the old value.
    let (w, lds) = run(&[0x00, 0x00, 0xf8, 0xd8, 0x00, 0x00, 0x00, 0x00], |w| {
        w.sgpr[EXEC] = (1 << 20) - 1;
        w.sgpr[crate::gfx11::wave::M0] = 64;
    });
    assert_eq!(u32::from_le_bytes(lds[64..68].try_into().unwrap()), 20);
    assert!(w.vgpr[0][..20].iter().all(|&v| v == 0));
    // ds_mskor_rtn_b32 v0, v1, v2, v3: MEM = (MEM & ~v2) | v3, v0 = old.
    let (w, lds) = run(&[0x00, 0x00, 0xb0, 0xd8, 0x01, 0x02, 0x03, 0x00], |w| {
        w.sgpr[EXEC] = 1;
        w.vgpr[1][0] = 8;
        w.vgpr[2][0] = 0x0000_FF00;
        w.vgpr[3][0] = 0x0000_1200;
    });
    assert_eq!(w.vgpr[0][0], 0);
    assert_eq!(u32::from_le_bytes(lds[8..12].try_into().unwrap()), 0x1200);
}

/// The packed f16 float ops clamp each half to [0, 1] (a NaN to 0) under
/// VOP3P's clamp bit, and leave their results alone without it.
#[test]
fn packed_f16_float_ops_clamp_to_the_unit_interval() {
    use half::f16;
    let h = |v: f32| f16::from_f32(v).to_bits() as u32;
    let nan = 0x7E00u32;
    // Per lane: (v1, v2, v3) halves, low then high.
    let cases: [[(u32, u32); 3]; 4] = [
        [(h(0.75), h(-0.5)), (h(0.75), h(0.25)), (h(0.5), h(0.5))],
        [(h(0.25), h(3.0)), (h(0.25), h(0.5)), (h(-4.0), h(0.0))],
        [(nan, h(1.0)), (h(1.0), nan), (h(0.0), h(0.0))],
        [(h(-2.0), h(0.125)), (h(-3.0), h(0.5)), (h(0.25), h(2.0))],
    ];
    let setup = |w: &mut Wave| {
        for l in 0..32 {
            let c = cases[l % cases.len()];
            for (k, (lo, hi)) in c.iter().enumerate() {
                w.vgpr[k + 1][l] = lo | hi << 16;
            }
        }
    };
    let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let half_of = |x: u32, k: u32| f16::from_bits((x >> (16 * k)) as u16).to_f32();
    // llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding; the clamp bit
    // is bit 15 of the first word.
    type Op3 = fn(f32, f32, f32) -> f32;
    let ops: [(&str, [u8; 8], Op3); 4] = [
        (
            "v_pk_add_f16",
            [0x00, 0xc0, 0x0f, 0xcc, 0x01, 0x05, 0x02, 0x18],
            |a, b, _| a + b,
        ),
        (
            "v_pk_mul_f16",
            [0x00, 0xc0, 0x10, 0xcc, 0x01, 0x05, 0x02, 0x18],
            |a, b, _| a * b,
        ),
        (
            "v_pk_max_f16",
            [0x00, 0xc0, 0x12, 0xcc, 0x01, 0x05, 0x02, 0x18],
            |a, b, _| {
                if a.is_nan() {
                    b
                } else if b.is_nan() {
                    a
                } else {
                    a.max(b)
                }
            },
        ),
        (
            "v_pk_fma_f16",
            [0x00, 0xc0, 0x0e, 0xcc, 0x01, 0x05, 0x0e, 0x1c],
            |a, b, c| (a as f64 * b as f64 + c as f64) as f32,
        ),
    ];
    for (name, bytes, op) in ops {
        for clamp in [true, false] {
            let mut bytes = bytes;
            if !clamp {
                bytes[1] &= !0x80;
            }
            let (w, _) = run(&bytes, setup);
            for l in 0..32 {
                let c = cases[l % cases.len()];
                for k in 0..2u32 {
                    let src = |j: usize| half_of(c[j].0 | c[j].1 << 16, k);
                    let exact = op(src(0), src(1), src(2));
                    let want = if clamp { unit(exact) } else { exact };
                    let got = half_of(w.vgpr[0][l], k);
                    let same = got == f16::from_f32(want).to_f32() || got.is_nan() && want.is_nan();
                    assert!(
                        same,
                        "{name} clamp {clamp} lane {l} half {k}: {got} for {want}"
                    );
                }
            }
        }
    }
}
