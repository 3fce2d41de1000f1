//! GFX9 execution (gfx942, gfx90a) of hand-written kernels (kernels.rs,
//! assembled by generate.sh from the *.s files here): the GFX9 register
//! numbering (M0, null, saddr off), SMEM offset forms, the VOP2 carry ops,
//! v_cmpx writing VCC, DPP (row and whole-wave controls, row_newbcast),
//! SDWA, LDS, loads into LDS, packed f32 (constant sources too), typed
//! buffer access, the initial wave state of each target and private
//! memory through scratch_*, each result computed on the host; the
//! cache-policy bits an observer sees; and the forms the executor refuses
//! by name.

use std::sync::Arc;

use aqueduct_isa::gfx9::Target;
use aqueduct_isa::gfx11::{CodeCache, Dispatch, WorkerContext};
use aqueduct_isa::{Isa, WaveErrorKind};
use aqueduct_kfd::abi::KernelDescriptor;

use super::*;

#[allow(dead_code)]
mod kernels {
    include!("kernels.rs");
}

mod cache_bits;
mod dpp_newbcast;
mod hi16_zero;
mod lds_dma;
mod packed_constants;
mod typed;

const TARGETS: [Target; 2] = [Target::Gfx942, Target::Gfx90a];

/// kernel_code_properties bits (AMDGPUUsage, "Kernel Descriptor").
const PRIVATE_SEGMENT_BUFFER: u16 = 1 << 0;
const DISPATCH_PTR: u16 = 1 << 1;
const QUEUE_PTR: u16 = 1 << 2;
const KERNARG_PTR: u16 = 1 << 3;
const DISPATCH_ID: u16 = 1 << 4;
const FLAT_SCRATCH_INIT: u16 = 1 << 5;
const PRIVATE_SEGMENT_SIZE: u16 = 1 << 6;
/// compute_pgm_rsrc2 bits.
const PRIVATE_SEGMENT: u32 = 1 << 0;
const WORKGROUP_ID_X: u32 = 1 << 7;
const WORKGROUP_IDS: u32 = 7 << 7;

/// Place `code` after a wave64 descriptor with `properties` enabled
/// (user SGPRs counted from them) and `rsrc2`'s system SGPRs.
fn gfx9_kernel(
    mem: &mut TestMem,
    code: &[u32],
    properties: u16,
    rsrc2: u32,
    ids: u32,
    private: u32,
) -> (u64, KernelDescriptor) {
    let user: u32 = [
        (PRIVATE_SEGMENT_BUFFER, 4),
        (DISPATCH_PTR, 2),
        (QUEUE_PTR, 2),
        (KERNARG_PTR, 2),
        (DISPATCH_ID, 2),
        (FLAT_SCRATCH_INIT, 2),
        (PRIVATE_SEGMENT_SIZE, 1),
    ]
    .iter()
    .filter(|(bit, _)| properties & bit != 0)
    .map(|(_, n)| n)
    .sum();
    let kd = KernelDescriptor {
        group_segment_fixed_size: 1024,
        private_segment_fixed_size: private,
        kernarg_size: 64,
        kernel_code_entry_byte_offset: 256,
        compute_pgm_rsrc2: rsrc2 | user << 1 | ids << 11,
        kernel_code_properties: properties,
        ..Default::default()
    };
    let mut image = bytemuck::bytes_of(&kd).to_vec();
    image.resize(256, 0);
    image.extend_from_slice(&u32_bytes(code));
    image.extend_from_slice(&[0; 64]);
    mem.map(HAND_BASE, &image);
    (HAND_BASE, kd)
}

fn gfx9_setup(target: Target, kd: KernelDescriptor, grid: [u32; 3], wg: [u32; 3]) -> DispatchSetup {
    DispatchSetup {
        isa: Isa::Gfx9(target),
        ..setup(HAND_BASE, kd, grid, wg)
    }
}

fn code(target: Target, gfx942: &'static [u32], gfx90a: &'static [u32]) -> &'static [u32] {
    match target {
        Target::Gfx942 => gfx942,
        Target::Gfx90a => gfx90a,
    }
}

#[test]
fn saxpy_with_vop2_carries_and_saddr() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::SAXPY_GFX942, kernels::SAXPY_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, WORKGROUP_ID_X, 0, 0);
        let n = 1000u32;
        let x: Vec<f32> = lcg(1, n as usize)
            .iter()
            .map(|&v| (v >> 8) as f32 / 65536.0)
            .collect();
        let y: Vec<f32> = lcg(2, n as usize)
            .iter()
            .map(|&v| (v >> 8) as f32 / 4096.0)
            .collect();
        let a = -1.75f32;
        mem.map(BUF_A, &f32_bytes(&x));
        mem.map(BUF_B, &f32_bytes(&y));
        let mut args = a.to_bits().to_le_bytes().to_vec();
        args.extend_from_slice(&[0; 4]);
        args.extend_from_slice(&ptr_args(&[BUF_A, BUF_B], &[n]));
        mem.map(KERNARG, &args);
        run_all(&mem, gfx9_setup(target, kd, [n, 1, 1], [64, 1, 1])).expect("runs");
        let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();
        assert_eq!(mem.read_f32s(BUF_B, n as usize), want, "{target:?}");
    }
}

#[test]
fn m0_cmpx_carries_dpp_smem_offsets_and_lds() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::REGS_GFX942, kernels::REGS_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, WORKGROUP_ID_X, 0, 0);
        mem.map_zeroed(BUF_A, 6 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 6 * 64);
        for l in 0..64u32 {
            let row = |t: usize| out[t * 64 + l as usize];
            assert_eq!(row(0), 0x1235, "{target:?} M0 lane {l}");
            assert_eq!(
                row(1),
                if l < 40 { 9 } else { 7 },
                "{target:?} cmpx VCC lane {l}"
            );
            let (diff, borrow) = l.overflowing_sub(32);
            let wide = u64::from(l) + u64::from(borrow);
            let subb = 0u32.wrapping_sub(l).wrapping_sub(borrow as u32);
            let want = diff.wrapping_add(subb) | if wide > 0 { 0x100 } else { 0 };
            assert_eq!(row(2), want, "{target:?} carries lane {l}");
            let shifted = if l % 16 == 0 { 0 } else { l - 1 };
            assert_eq!(row(3), shifted + l, "{target:?} DPP lane {l}");
            assert_eq!(
                row(4),
                (BUF_A >> 32) as u32 + 5,
                "{target:?} SMEM/M0 lane {l}"
            );
            assert_eq!(row(5), (63 - l) ^ 0x55, "{target:?} LDS lane {l}");
        }
    }
}

#[test]
fn sdwa_selects_and_whole_wave_dpp() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::SDWA_DPP_GFX942, kernels::SDWA_DPP_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 7 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 7 * 64);
        let v2 = 0x8182_8384u32;
        for l in 0..64u32 {
            let row = |t: usize| out[t * 64 + l as usize];
            let v3 = 0x01_0101 * l;
            let sum = (v2 >> 24).wrapping_add(v3 & 0xFFFF);
            assert_eq!(row(0), 0xAAAA | sum << 16, "{target:?} SDWA word lane {l}");
            let byte = ((v2 >> 8) & 0xFF).wrapping_add(v3 & 0xFF) & 0xFF;
            let sext = if byte & 0x80 != 0 { 0xFF00_0000 } else { 0 };
            assert_eq!(row(1), sext | byte << 16, "{target:?} SDWA byte lane {l}");
            assert_eq!(row(2), l.saturating_sub(1), "{target:?} wave_shr lane {l}");
            assert_eq!(row(3), (l + 1) % 64, "{target:?} wave_rol lane {l}");
            let r = l / 16;
            let bcast15 = if r % 2 == 1 {
                1000 + 16 * r - 1 + l
            } else {
                1000 + l
            };
            assert_eq!(row(4), bcast15, "{target:?} row_bcast:15 lane {l}");
            let bcast31 = if r >= 2 { 1031 } else { 1000 + l };
            assert_eq!(row(5), bcast31, "{target:?} row_bcast:31 lane {l}");
            assert_eq!(
                row(6),
                if l < 40 { 9 } else { 7 },
                "{target:?} SDWA sdst lane {l}"
            );
        }
    }
}

#[test]
fn initial_wave_state_of_each_target() {
    const PACKET: u64 = 0x4000_0000_1000;
    const QUEUE: u64 = 0x4000_0000_2000;
    const RESOURCE: [u32; 4] = [0x1111_0000, 0x2222_0000, 0x3333_0000, 0x4444_0000];
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(
            target,
            kernels::INIT_STATE_GFX942,
            kernels::INIT_STATE_GFX90A,
        );
        // gfx942 has architected flat scratch: no flat scratch init.
        let fsi = if target == Target::Gfx90a {
            FLAT_SCRATCH_INIT
        } else {
            0
        };
        let props = PRIVATE_SEGMENT_BUFFER
            | DISPATCH_PTR
            | QUEUE_PTR
            | KERNARG_PTR
            | DISPATCH_ID
            | fsi
            | PRIVATE_SEGMENT_SIZE;
        let rsrc2 = PRIVATE_SEGMENT | WORKGROUP_IDS;
        let (_, kd) = gfx9_kernel(&mut mem, k, props, rsrc2, 2, 16);
        mem.map_zeroed(BUF_A, 4 * 512);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        let mut s = gfx9_setup(target, kd, [16, 16, 2], [16, 8, 2]);
        s.packet_address = PACKET;
        s.queue_address = QUEUE;
        s.dispatch_id = 7;
        s.private_segment_size = 16;
        s.scratch.resource = RESOURCE;
        let d = Dispatch::new(s, Arc::new(CodeCache::for_isa(Isa::Gfx9(target)))).expect("valid");
        let st = d
            .run_workgroup([0, 1, 0], &mem, &mut WorkerContext::new())
            .expect("runs");
        assert_eq!(st.waves, 4);
        let out = mem.read_u32s(BUF_A, 512);
        let lo = |v: u64| v as u32;
        let hi = |v: u64| (v >> 32) as u32;
        for wave in 0..4u32 {
            let mut want = match target {
                Target::Gfx90a => RESOURCE.to_vec(),
                Target::Gfx942 => vec![0; 4],
            };
            want.extend([
                lo(PACKET),
                hi(PACKET),
                lo(QUEUE),
                hi(QUEUE),
                lo(KERNARG),
                hi(KERNARG),
            ]);
            want.extend([7, 0]);
            if target == Target::Gfx90a {
                want.extend([lo(SCRATCH), hi(SCRATCH)]);
            }
            // Private segment size, workgroup ids (0, 1, 0), then the wave's
            // private segment byte offset (gfx90a: its scratch wave slot).
            want.extend([16, 0, 1, 0]);
            want.push(match target {
                Target::Gfx90a => wave * SCRATCH_WAVE_BYTES as u32,
                Target::Gfx942 => 0,
            });
            want.resize(19, 0);
            want.extend([u32::MAX, u32::MAX]);
            let base = wave as usize * 32;
            assert_eq!(
                &out[base..base + 21],
                &want[..],
                "{target:?} wave {wave} SGPRs"
            );
            for l in 0..64u32 {
                let flat = wave * 64 + l;
                let (x, y, z) = (flat % 16, flat / 16 % 8, flat / 128);
                assert_eq!(
                    out[256 + flat as usize],
                    x | y << 10 | z << 20,
                    "{target:?} v0 of work-item {flat}"
                );
            }
        }
    }
}

#[test]
fn private_memory_through_scratch_instructions() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let (k, props) = match target {
            Target::Gfx90a => (kernels::SCRATCH_GFX90A, KERNARG_PTR | FLAT_SCRATCH_INIT),
            Target::Gfx942 => (kernels::SCRATCH_GFX942, KERNARG_PTR),
        };
        let (_, kd) = gfx9_kernel(&mut mem, k, props, PRIVATE_SEGMENT | WORKGROUP_ID_X, 0, 32);
        mem.map_zeroed(BUF_A, 4 * 128);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_all(&mem, gfx9_setup(target, kd, [128, 1, 1], [128, 1, 1])).expect("runs");
        let want: Vec<u32> = (0..128).map(|l| (3 * l) | (l << 16)).collect();
        assert_eq!(mem.read_u32s(BUF_A, 128), want, "{target:?}");
    }
}

/// Forms the executor does not model stop the wave at their first word as
/// an illegal instruction naming the form and why.
#[test]
fn unmodelled_gfx9_forms_are_illegal_instructions() {
    let cases = [
        (
            [kernels::TBUFFER_GFX942, kernels::TBUFFER_GFX90A],
            "tbuffer_load_format_x",
            "BUF_DATA_FORMAT_8, BUF_NUM_FORMAT_FLOAT",
        ),
        (
            [kernels::DPP64_GFX942, kernels::DPP64_GFX90A],
            "v_cvt_f32_f64",
            "DP ALU DPP control other than row_newbcast",
        ),
        (
            [kernels::DPP64_DST_GFX942, kernels::DPP64_DST_GFX90A],
            "v_cvt_f64_f32",
            "DP ALU DPP control other than row_newbcast",
        ),
        (
            [kernels::SCRATCH_LDS_GFX942, kernels::SCRATCH_LDS_GFX90A],
            "scratch_load",
            "scratch load into LDS",
        ),
    ];
    for (kernel, name, why) in cases {
        for target in TARGETS {
            assert_refused_at(target, code(target, kernel[0], kernel[1]), 0, name, why);
        }
    }
}

/// Run the one-wave hand kernel `k` on `target` and check that the wave
/// stops at its word `at` as an illegal instruction whose name starts with
/// `name` and says `why`.
fn assert_refused_at(target: Target, k: &[u32], at: usize, name: &str, why: &str) {
    let mut mem = TestMem::new();
    let (_, kd) = gfx9_kernel(&mut mem, k, 0, 0, 0, 0);
    let e = run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).unwrap_err();
    match e.kind {
        WaveErrorKind::IllegalInstruction { words, mnemonic } => {
            assert_eq!(words, k[at..at + 2].to_vec(), "{target:?}");
            let m = mnemonic.expect("named");
            assert!(m.starts_with(name), "{m}");
            assert!(m.contains(why), "{m}");
        }
        other => panic!("{target:?}: {other:?}"),
    }
    assert_eq!(e.pc, HAND_BASE + 256 + 4 * at as u64);
}

/// MUBUF through GFX9 V#s: the swizzled private layout ROCr's scratch
/// descriptor gives (checked in memory, not only read back), sub-dword
/// forms, and a raw buffer's range check dropping stores and zeroing loads.
#[test]
fn mubuf_private_swizzle_and_raw_range_checks() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::MUBUF_GFX942, kernels::MUBUF_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 5 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A, SCRATCH], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_u32s(BUF_A, 5 * 64);
        let slot = mem.read_u32s(SCRATCH + 512, 3 * 64);
        for l in 0..64u32 {
            let v = 1000 + l;
            let row = |t: usize| out[t * 64 + l as usize];
            assert_eq!(row(0), v, "{target:?} dword lane {l}");
            assert_eq!(row(1), v & 0xFFFF, "{target:?} ushort lane {l}");
            assert_eq!(
                row(2),
                v as u8 as i8 as i32 as u32,
                "{target:?} sbyte lane {l}"
            );
            assert_eq!(
                row(3),
                if l < 32 { v } else { 0 },
                "{target:?} raw store lane {l}"
            );
            assert_eq!(
                row(4),
                if l < 16 { v } else { 0 },
                "{target:?} raw load lane {l}"
            );
            // Offset 4 is dword 1 of each lane: 256 + 4 * lane; offset 10
            // the high half of dword 2.
            assert_eq!(
                slot[64 + l as usize],
                v,
                "{target:?} swizzled dword lane {l}"
            );
            assert_eq!(
                slot[128 + l as usize],
                (v & 0xFFFF) << 16,
                "{target:?} swizzled short lane {l}"
            );
        }
    }
}

/// gfx90a's scratch instructions address from FLAT_SCRATCH: left unset by
/// the kernel it is not the wave's slot, which is refused, not ignored.
#[test]
fn gfx90a_scratch_without_flat_scratch_is_refused() {
    let mut mem = TestMem::new();
    let k = kernels::NO_FLAT_SCRATCH_GFX90A;
    let (_, kd) = gfx9_kernel(&mut mem, k, FLAT_SCRATCH_INIT, PRIVATE_SEGMENT, 0, 16);
    let s = gfx9_setup(Target::Gfx90a, kd, [64, 1, 1], [64, 1, 1]);
    let e = run_all(&mem, s).unwrap_err();
    match e.kind {
        WaveErrorKind::IllegalInstruction { mnemonic, .. } => {
            let m = mnemonic.expect("named");
            assert!(m.starts_with("scratch_store_dword"), "{m}");
            assert!(m.contains("FLAT_SCRATCH"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.pc, HAND_BASE + 256 + 4);
}

/// v_pk_fma/mul/add_f32 with op_sel, op_sel_hi, neg_lo, neg_hi, clamp and
/// an SGPR-pair source, against the host's f32 arithmetic.
#[test]
fn packed_f32_selects_negates_and_clamps() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::PK_F32_GFX942, kernels::PK_F32_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        let input: Vec<f32> = lcg(7, 3 * 128)
            .iter()
            .map(|&v| (v >> 8) as f32 / 4_194_304.0 - 2.0)
            .collect();
        mem.map(BUF_B, &f32_bytes(&input));
        mem.map_zeroed(BUF_A, 4 * 4 * 128);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).expect("runs");
        let out = mem.read_f32s(BUF_A, 4 * 128);
        let clamp = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        for l in 0..64 {
            let pair = |t: usize| [input[t * 128 + 2 * l], input[t * 128 + 2 * l + 1]];
            let (a, b, c) = (pair(0), pair(1), pair(2));
            let want = [
                [a[0].mul_add(b[0], c[0]), a[1].mul_add(b[1], c[1])],
                [-a[1] * b[0], a[0] * b[1]],
                [clamp(a[0] + b[0]), clamp(a[1] - b[1])],
                [a[0].mul_add(b[0], 4.0), (-a[1]).mul_add(b[1], -4.0)],
            ];
            for (t, w) in want.iter().enumerate() {
                let got = [out[t * 128 + 2 * l], out[t * 128 + 2 * l + 1]];
                assert_eq!(
                    got.map(f32::to_bits),
                    w.map(f32::to_bits),
                    "{target:?} test {t} lane {l}: {got:?} vs {w:?}"
                );
            }
        }
    }
}

/// A descriptor whose wave allocates 16 registers with the AGPRs from
/// register 8 on (RSRC1 granule count 1, RSRC3 ACCUM_OFFSET field 1).
fn with_agprs(mut kd: KernelDescriptor) -> KernelDescriptor {
    kd.compute_pgm_rsrc1 = 1;
    kd.compute_pgm_rsrc3 = 1;
    kd
}

#[test]
fn agpr_moves_and_memory_data() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(target, kernels::AGPR_GFX942, kernels::AGPR_GFX90A);
        let (_, kd) = gfx9_kernel(&mut mem, k, KERNARG_PTR, 0, 0, 0);
        mem.map_zeroed(BUF_A, 4 * 256);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        let s = gfx9_setup(target, with_agprs(kd), [64, 1, 1], [64, 1, 1]);
        run_all(&mem, s).expect("runs");
        let out = mem.read_u32s(BUF_A, 4 * 64);
        for l in 0..64u32 {
            let row = |t: usize| out[t * 64 + l as usize];
            assert_eq!(row(0), 107 + l, "{target:?} moves lane {l}");
            assert_eq!(row(2), 3 * l + 1, "{target:?} global lane {l}");
            let r = 63 - l;
            assert_eq!(row(3), ((r ^ 0x5a) | r << 8) + l, "{target:?} LDS lane {l}");
        }
    }
}

/// The default test descriptor allocates 8 registers with ACCUM_OFFSET 4:
/// a0..a3. Naming a4 is an error, not a register of some other file.
#[test]
fn an_agpr_past_the_allocation_is_refused() {
    for target in TARGETS {
        let mut mem = TestMem::new();
        let k = code(
            target,
            kernels::AGPR_RANGE_GFX942,
            kernels::AGPR_RANGE_GFX90A,
        );
        let (_, kd) = gfx9_kernel(&mut mem, k, 0, 0, 0, 0);
        let e = run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).unwrap_err();
        match e.kind {
            WaveErrorKind::IllegalInstruction { mnemonic, .. } => {
                let m = mnemonic.expect("named");
                assert!(m.starts_with("v_accvgpr_write_b32"), "{m}");
                assert!(m.contains("beyond the wave's 4 AGPRs"), "{m}");
            }
            other => panic!("{target:?}: {other:?}"),
        }
        assert_eq!(e.pc, HAND_BASE + 256 + 8, "{target:?}");
    }
}

/// Matrix ops whose result the ISA guide leaves undefined stop the wave
/// with an illegal instruction naming the op and the reason (gfx942's f64
/// ops with BLGP do run, as negations: crates/hsa/tests/e2e_gfx9_parts).
#[test]
fn undocumented_matrix_ops_are_refused_by_name() {
    let cases: [(Target, &[u32], &str, &str); 8] = [
        (
            Target::Gfx942,
            kernels::MFMA_PARTIAL_EXEC_GFX942,
            "v_mfma_f32_4x4x1_16b_f32",
            "partial EXEC",
        ),
        (
            Target::Gfx90a,
            kernels::MFMA_PARTIAL_EXEC_GFX90A,
            "v_mfma_f32_4x4x1f32",
            "partial EXEC",
        ),
        (
            Target::Gfx942,
            kernels::MFMA_CONST_C_GFX942,
            "v_mfma_f32_4x4x1_16b_f32",
            "C = 0",
        ),
        (
            Target::Gfx90a,
            kernels::MFMA_CONST_C_GFX90A,
            "v_mfma_f32_4x4x1f32",
            "C = 0",
        ),
        (
            Target::Gfx942,
            kernels::MFMA_CBSZ_RANGE_GFX942,
            "v_mfma_f32_16x16x1_4b_f32",
            "block range",
        ),
        (
            Target::Gfx90a,
            kernels::MFMA_CBSZ_RANGE_GFX90A,
            "v_mfma_f32_16x16x1f32",
            "block range",
        ),
        (
            Target::Gfx90a,
            kernels::MFMA_F64_BLGP_GFX90A,
            "v_mfma_f64_4x4x4f64",
            "BLGP on a gfx90a f64",
        ),
        (
            Target::Gfx942,
            kernels::MFMA_SMFMAC_GFX942,
            "v_smfmac_f32_16x16x32_f16",
            "not increasing",
        ),
    ];
    for (target, k, op, why) in cases {
        let mut mem = TestMem::new();
        let (_, kd) = gfx9_kernel(&mut mem, k, 0, 0, 0, 0);
        let e = run_all(&mem, gfx9_setup(target, kd, [64, 1, 1], [64, 1, 1])).unwrap_err();
        match e.kind {
            WaveErrorKind::IllegalInstruction { mnemonic, .. } => {
                let m = mnemonic.expect("named");
                assert!(m.starts_with(op) && m.contains(why), "{target:?}: {m}");
            }
            other => panic!("{target:?} {op}: {other:?}"),
        }
    }
}

#[test]
fn a_dispatch_must_match_its_code_cache() {
    let mut mem = TestMem::new();
    let (_, kd) = gfx9_kernel(&mut mem, kernels::SAXPY_GFX942, KERNARG_PTR, 0, 0, 0);
    let s = gfx9_setup(Target::Gfx942, kd, [64, 1, 1], [64, 1, 1]);
    let e = Dispatch::new(s, Arc::new(CodeCache::new())).unwrap_err();
    assert!(
        matches!(e.kind, WaveErrorKind::InvalidDescriptor(_)),
        "{e:?}"
    );
}

/// gfx942's HW_REG_XCC_ID reads the XCC the dispatch's spread gives each
/// workgroup (x fastest, round-robin from the queue's start), one XCC reads
/// 0; gfx90a has no such register.
#[test]
fn xcc_id_reads_the_workgroups_xcc() {
    use aqueduct_isa::XccSpread;
    let groups = 21u32;
    for (xccs, start) in [(8u32, 0u32), (8, 3), (1, 0)] {
        let mut mem = TestMem::new();
        let (_, kd) = gfx9_kernel(
            &mut mem,
            kernels::XCC_ID_GFX942,
            KERNARG_PTR,
            WORKGROUP_ID_X,
            0,
            0,
        );
        mem.map(BUF_A, &vec![0xff; groups as usize * 8]);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        let s = gfx9_setup(Target::Gfx942, kd, [groups * 64, 1, 1], [64, 1, 1]);
        let d = Dispatch::new(s, Arc::new(CodeCache::for_isa(Isa::Gfx9(Target::Gfx942))))
            .expect("dispatch")
            .with_xcc_spread(XccSpread::new(xccs, 1, start));
        let mut ctx = WorkerContext::new();
        // Out of order: the XCC follows the workgroup, not the run order.
        for x in (0..groups).rev() {
            d.run_workgroup([x, 0, 0], &mem, &mut ctx).expect("runs");
        }
        let got = mem.read_u32s(BUF_A, groups as usize * 2);
        for g in 0..groups {
            // Logical id g % xccs runs on XCC (g - start) mod xccs.
            let want = (g % xccs + xccs - start % xccs) % xccs;
            let pair = [got[2 * g as usize], got[2 * g as usize + 1]];
            assert_eq!(pair, [want, want], "{xccs} XCCs from {start}: group {g}");
        }
    }
    let mut mem = TestMem::new();
    let (_, kd) = gfx9_kernel(
        &mut mem,
        kernels::XCC_ID_GFX90A,
        KERNARG_PTR,
        WORKGROUP_ID_X,
        0,
        0,
    );
    mem.map(BUF_A, &[0; 8]);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let e = run_all(&mem, gfx9_setup(Target::Gfx90a, kd, [64, 1, 1], [64, 1, 1])).unwrap_err();
    match e.kind {
        WaveErrorKind::IllegalInstruction { mnemonic, .. } => {
            let m = mnemonic.expect("named");
            assert!(
                m.starts_with("s_getreg_b32") && m.contains("hwreg(20)"),
                "{m}"
            );
        }
        other => panic!("gfx90a XCC_ID: {other:?}"),
    }
}
