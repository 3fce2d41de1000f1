//! Image atomics (`image_atomic_*`) on r32uint and r32sint images: every
//! operation over a wave whose lanes collide on texels and reach past the
//! image, with and without GLC; the pre-op values and the final texels are
//! computed on the host by applying the lanes in lane order. Refusals name
//! the instruction.

use super::*;

// gfx11 MIMG opcodes (LLVM `MIMGInstructions.td`, gfx11 column).
const SWAP: u32 = 10;
const CMPSWAP: u32 = 11;
const ADD: u32 = 12;
const SUB: u32 = 13;
const SMIN: u32 = 14;
const UMIN: u32 = 15;
const SMAX: u32 = 16;
const UMAX: u32 = 17;
const AND: u32 = 18;
const OR: u32 = 19;
const XOR: u32 = 20;
const INC: u32 = 21;
const DEC: u32 = 22;

/// `v_mov_b32 v10, v5` and `v_mov_b32 v11, v6` (llvm-mc-19 -mcpu=gfx1100):
/// the atomic's data (and compare value) into its data VGPRs v[10:11].
const DATA_TO_V10: [u32; 2] = [0x7E14_0305, 0x7E16_0306];

const GLC: u32 = 1 << 14;

/// The new texel value of `op` on `old` (RDNA3 ISA guide, image atomics:
/// the same operations as the buffer atomics).
fn apply(op: u32, old: u32, src: u32, cmp: u32) -> u32 {
    match op {
        SWAP => src,
        CMPSWAP => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        ADD => old.wrapping_add(src),
        SUB => old.wrapping_sub(src),
        SMIN => (old as i32).min(src as i32) as u32,
        UMIN => old.min(src),
        SMAX => (old as i32).max(src as i32) as u32,
        UMAX => old.max(src),
        AND => old & src,
        OR => old | src,
        XOR => old ^ src,
        INC => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        DEC => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        _ => unreachable!("opcode {op}"),
    }
}

const W: u32 = 8;
const H: u32 = 3;

#[test]
fn image_atomics_apply_in_lane_order_and_return_the_old_texel() {
    let ops = [
        SWAP, CMPSWAP, ADD, SUB, SMIN, UMIN, SMAX, UMAX, AND, OR, XOR, INC, DEC,
    ];
    for (n, op) in ops.into_iter().enumerate() {
        for (format, glc) in [
            (ImageFormat::R32Uint, true),
            (ImageFormat::R32Sint, n % 2 == 0),
        ] {
            let desc = ImageDescriptor::linear(IMG, format, ImageDim::D2, W, H, 1);
            let size = aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize;
            let row = (size / H as usize) / 4;
            // Small values, some negative as i32, so min/max, inc/dec and
            // cmpswap meet both outcomes.
            let init: Vec<u32> = lcg(n as u32 + 3, size / 4)
                .iter()
                .map(|v| (v >> 28).wrapping_sub(4))
                .collect();
            let seeds = lcg(n as u32 + 40, 64);
            // Lanes pair up on texels (lane l and l + 16 share one); lanes
            // 30 and 31 are past the right and bottom edges.
            let coords: [[u32; 4]; 32] = std::array::from_fn(|l| match l {
                30 => [W, 0, 0, 0],
                31 => [0, H, 0, 0],
                _ => [(l % 16) as u32 % W, (l % 16) as u32 / W, 0, 0],
            });
            let data: [[u32; 4]; 32] = std::array::from_fn(|l| {
                let src = (seeds[2 * l] >> 28).wrapping_sub(6);
                // cmpswap compares with the texel's first value half the time.
                let (x, y) = (coords[l][0], coords[l][1]);
                let cmp = if l % 2 == 0 && x < W && y < H {
                    init[y as usize * row + x as usize]
                } else {
                    seeds[2 * l + 1] >> 29
                };
                [src, cmp, 0, 0]
            });
            let dmask = if op == CMPSWAP { 0x3 } else { 0x1 };
            let mut code = DATA_TO_V10.to_vec();
            let mut atomic = mimg(op, ImageDim::D2, dmask, 10, 1);
            if glc {
                atomic[0] |= GLC;
            }
            code.extend(atomic);
            let run = run_image(
                desc.encode().unwrap(),
                &u32_bytes(&init),
                &coords,
                &data,
                32,
                &code,
            )
            .unwrap_or_else(|e| panic!("op {op} {format:?}: {e:?}"));
            let mut texels = init.clone();
            for l in 0..32 {
                let [x, y, ..] = coords[l];
                let old = if x < W && y < H {
                    let t = &mut texels[y as usize * row + x as usize];
                    let old = *t;
                    *t = apply(op, old, data[l][0], data[l][1]);
                    old
                } else {
                    0
                };
                // GLC returns the old value in v10; without it v10 keeps
                // the source and v11 the compare value either way.
                let v10 = if glc { old } else { data[l][0] };
                assert_eq!(
                    run.out[l],
                    [v10, data[l][1], SENTINEL, SENTINEL],
                    "op {op} {format:?} glc {glc} lane {l}"
                );
            }
            let got: Vec<u32> = run
                .image
                .chunks(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            assert_eq!(got, texels, "op {op} {format:?} texels");
        }
    }
}

#[test]
fn image_atomics_refuse_other_formats_and_dmasks() {
    let coords = [[0u32; 4]; 32];
    let data = [[1u32; 4]; 32];
    let refusal = |format: ImageFormat, dmask: u32| {
        let desc = ImageDescriptor::linear(IMG, format, ImageDim::D1, 4, 1, 1);
        let err = run_image(
            desc.encode().unwrap(),
            &[0; 256],
            &coords,
            &data,
            32,
            &mimg(ADD, ImageDim::D1, dmask, 5, 1),
        )
        .err()
        .expect("refused");
        match err.kind {
            WaveErrorKind::IllegalInstruction {
                mnemonic: Some(m), ..
            } => m,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        refusal(ImageFormat::R32Float, 1),
        "image_atomic_add (an image atomic on a format other than r32uint or r32sint)"
    );
    assert_eq!(
        refusal(ImageFormat::R32Uint, 0x3),
        "image_atomic_add (an image atomic DMASK other than 0x1 (0x3 for cmpswap))"
    );
}
