//! The opcode walk: every opcode of gfx11's compute encodings
//! (`opcodes/tables.rs`) is encoded, decoded and run through the slow path
//! ([`step`]) once; an opcode the slow path answers with a plain "unsupported
//! instruction" has no execution path and fails the test, unless it is
//! listed in [`NOT_EXECUTED`] with the reason. Memory instructions run
//! against a memory with nothing mapped, so they fault: that is an execution
//! path too. The encoding families with no compute use at all (MIMG,
//! EXP, LDSDIR, VINTERP) are not walked (`step.rs` refuses them whole).

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
    ("v_cubeid_f32", "cube map face selection (image sampling)"),
    ("v_cubesc_f32", "cube map face selection (image sampling)"),
    ("v_cubetc_f32", "cube map face selection (image sampling)"),
    ("v_cubema_f32", "cube map face selection (image sampling)"),
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
    let (mut lds, mut scratch) = (vec![0u8; 65536], Vec::new());
    let mut env = Env {
        mem: &NoMemory,
        lds: &mut lds,
        scratch: &mut scratch,
        scratch_va: 0,
        scratch_wave_bytes: 0,
        scratch_wave64: false,
        scratch_per_lane: 0,
        shared_base: 0,
        private_base: 0,
        spans: Default::default(),
    };
    matches!(
        step(&mut wave, &mut env, inst),
        Err(WaveErrorKind::IllegalInstruction { mnemonic: Some(m), .. }) if !m.contains(" (")
    )
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
