//! MIMG image instructions run through `Dispatch`: hand-built kernels (the
//! image_prologue.s / image_epilogue.s harness around MIMG words built
//! here) against linear images in the test memory, every result computed
//! on the host from the conversion rules of the RDNA3 ISA guide; and the
//! clang-19 kernel kernels/image/image_ops.ll (built by
//! kernels/image/build.sh).

use super::*;

mod atomic;
mod sample;
mod srgb;
use aqueduct_isa::gfx11::InstClass;
use aqueduct_isa::gfx11::decode::decode;
use aqueduct_isa::gfx11::disasm::disassemble;
use aqueduct_isa::gfx11::image_desc::{
    DstSel, ImageDescriptor, ImageDim, ImageFormat, NumericType,
};

const IMG: u64 = 0x4000_0000_0000;
const SENTINEL: u32 = 0xdead_beef;

const IMAGE_LOAD: u32 = 0;
const IMAGE_LOAD_MIP: u32 = 1;
const IMAGE_STORE: u32 = 6;
const IMAGE_STORE_MIP: u32 = 7;
const IMAGE_GET_RESINFO: u32 = 23;
const IMAGE_SAMPLE: u32 = 27;

/// The MIMG words of `op` (gfx11 encoding: 0b111100 [31:26], op [25:18],
/// dmask [11:8], unorm 7, dim [4:2]; vaddr [39:32], vdata [47:40], srsrc
/// [52:48] in units of four SGPRs), the T# in s[8:15].
fn mimg(op: u32, dim: ImageDim, dmask: u32, vdata: u32, vaddr: u32) -> [u32; 2] {
    let dim_field = match dim {
        ImageDim::D1 => 0,
        ImageDim::D2 => 1,
        ImageDim::D3 => 2,
        ImageDim::Cube => 3,
        ImageDim::D1Array => 4,
        ImageDim::D2Array => 5,
    };
    [
        0xF000_0080 | op << 18 | dmask << 8 | dim_field << 2,
        vaddr | vdata << 8 | 2 << 16,
    ]
}

/// Stores v[5:8] at the coordinates in v[1:4], then loads them back into
/// v[10:13].
fn store_then_load(dim: ImageDim, dmask: u32) -> Vec<u32> {
    let mut code = mimg(IMAGE_STORE, dim, dmask, 5, 1).to_vec();
    code.extend(mimg(IMAGE_LOAD, dim, dmask, 10, 1));
    code
}

struct ImageRun {
    out: Vec<[u32; 4]>,
    image: Vec<u8>,
}

/// Run the harness around `body` for one wave32 with lanes below `active`
/// enabled: the T# `desc`, `image` mapped at IMG (unmapped if empty), and
/// per lane coordinates and data.
fn run_image(
    desc: [u32; 8],
    image: &[u8],
    coords: &[[u32; 4]; 32],
    data: &[[u32; 4]; 32],
    active: u32,
    body: &[u32],
) -> Result<ImageRun, WaveError> {
    let mut mem = TestMem::new();
    let mut code = kernels::IMAGE_PROLOGUE.to_vec();
    code.extend_from_slice(body);
    code.extend_from_slice(kernels::IMAGE_EPILOGUE);
    let (kd_addr, kd) = hand_kernel(&mut mem, &code, 0, 0);
    let flat = |v: &[[u32; 4]; 32]| u32_bytes(&v.concat());
    mem.map(BUF_A, &flat(coords));
    mem.map(BUF_B, &flat(data));
    mem.map_zeroed(BUF_C, 32 * 16);
    if !image.is_empty() {
        mem.map(IMG, image);
    }
    let mut ka = u32_bytes(&desc);
    for p in [BUF_A, BUF_B, BUF_C] {
        ka.extend_from_slice(&p.to_le_bytes());
    }
    ka.extend_from_slice(&active.to_le_bytes());
    ka.resize(64, 0);
    mem.map(KERNARG, &ka);
    run_hand(&mem, kd_addr, kd, 1, 32)?;
    let out = mem
        .read_u32s(BUF_C, 32 * 4)
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    let image = if image.is_empty() {
        Vec::new()
    } else {
        mem.read(IMG, image.len())
    };
    Ok(ImageRun { out, image })
}

// ---- host conversions (RDNA3 ISA guide, "Buffer formats" / image data conversion) ----

fn mask(width: u32) -> u32 {
    if width == 32 {
        u32::MAX
    } else {
        (1 << width) - 1
    }
}

fn norm_max(f: ImageFormat, width: u32) -> f64 {
    match f.numeric() {
        NumericType::Snorm => mask(width - 1) as f64,
        _ => mask(width) as f64,
    }
}

/// A register value to the component's raw bits, as a store converts it.
fn host_encode(f: ImageFormat, width: u32, reg: u32) -> u32 {
    let v = f32::from_bits(reg);
    match f.numeric() {
        NumericType::Unorm | NumericType::Snorm => {
            if v.is_nan() {
                return 0;
            }
            let lo = if f.numeric() == NumericType::Unorm {
                0.0
            } else {
                -1.0
            };
            let scaled = (v.clamp(lo, 1.0) as f64 * norm_max(f, width)).round_ties_even();
            (scaled as i64 as u32) & mask(width)
        }
        NumericType::Uint | NumericType::Sint => reg & mask(width),
        NumericType::Float => match width {
            32 => reg,
            16 => half::f16::from_f32(v).to_bits() as u32,
            // The nearest unsigned small float (ties to the even code).
            _ => (0..(31 << (width - 5)))
                .min_by(|&a, &b| {
                    let d = |c: u32| (small_float(c, width) as f64 - v.max(0.0) as f64).abs();
                    d(a).total_cmp(&d(b)).then((a & 1).cmp(&(b & 1)))
                })
                .expect("codes"),
        },
    }
}

/// A component's raw bits to the register value a load returns.
fn host_decode(f: ImageFormat, width: u32, raw: u32) -> u32 {
    match f.numeric() {
        NumericType::Unorm => ((raw as f64 / norm_max(f, width)) as f32).to_bits(),
        NumericType::Snorm => {
            ((sext_bits(raw, width) as f64 / norm_max(f, width)).max(-1.0) as f32).to_bits()
        }
        NumericType::Uint => raw,
        NumericType::Sint => sext_bits(raw, width) as u32,
        NumericType::Float => match width {
            32 => raw,
            16 => half::f16::from_bits(raw as u16).to_f32().to_bits(),
            _ => small_float(raw, width).to_bits(),
        },
    }
}

/// What a load returns for a missing w, or a DST_SEL of one.
fn one(f: ImageFormat) -> u32 {
    match f.numeric() {
        NumericType::Uint | NumericType::Sint => 1,
        _ => 1.0f32.to_bits(),
    }
}

/// The texel's four loaded components (format defaults for missing ones)
/// from its raw component bits.
fn host_texel(f: ImageFormat, raw: [u32; 4]) -> [u32; 4] {
    let bits = f.component_bits();
    std::array::from_fn(|c| {
        if bits[c] != 0 {
            host_decode(f, bits[c], raw[c])
        } else if c == 3 {
            one(f)
        } else {
            0
        }
    })
}

/// The host's byte offset of texel (x, y, slice): rows of the width
/// rounded up to 256 bytes, slices of `height` rows (addrlib's linear
/// layout).
fn host_offset(f: ImageFormat, width: u32, height: u32, x: u32, y: u32, slice: u32) -> usize {
    let bpt = f.bytes_per_texel() as usize;
    let row = (width as usize * bpt).next_multiple_of(256);
    (slice as usize * height as usize + y as usize) * row + x as usize * bpt
}

/// Test data for a format: floats in and a little past the format's range
/// for the normalised and float formats, raw bits for the integers.
fn sample_value(f: ImageFormat, seed: u32) -> u32 {
    let unit = (seed >> 8) as f32 / (1 << 24) as f32;
    match f.numeric() {
        NumericType::Unorm => (unit * 1.4 - 0.2).to_bits(),
        NumericType::Snorm => (unit * 2.4 - 1.2).to_bits(),
        NumericType::Uint | NumericType::Sint => seed,
        NumericType::Float => match f.component_bits()[0] {
            32 => (unit * 2000.0 - 1000.0).to_bits(),
            16 => (unit * 200.0 - 100.0).to_bits(),
            _ => (unit * 300.0).to_bits(),
        },
    }
}

/// Image extents per dimension: (width, height, depth or layers), at
/// least 32 texels so every lane has its own.
fn extents(dim: ImageDim) -> (u32, u32, u32) {
    match dim {
        ImageDim::D1 => (40, 1, 1),
        ImageDim::D2 => (7, 5, 1),
        ImageDim::D3 => (5, 3, 3),
        ImageDim::Cube => (3, 3, 6),
        ImageDim::D1Array => (9, 1, 4),
        ImageDim::D2Array => (4, 3, 3),
    }
}

/// (x, y, slice) of texel `k` of an image of `extents`, and its coordinate
/// VGPRs for `dim` (mip level 0 last).
fn lane_texel(dim: ImageDim, (w, h, _): (u32, u32, u32), k: u32) -> ((u32, u32, u32), [u32; 4]) {
    let (x, y, z) = (k % w, (k / w) % h, k / (w * h));
    let coords = match dim {
        ImageDim::D1 => [x, 0, 0, 0],
        ImageDim::D1Array => [x, z, 0, 0],
        ImageDim::D2 => [x, y, 0, 0],
        _ => [x, y, z, 0],
    };
    ((x, y, z), coords)
}

const DIMS: [ImageDim; 6] = [
    ImageDim::D1,
    ImageDim::D2,
    ImageDim::D3,
    ImageDim::Cube,
    ImageDim::D1Array,
    ImageDim::D2Array,
];

#[test]
fn store_then_load_round_trips_every_dim_and_format() {
    use ImageFormat::*;
    let formats = [
        R8Unorm,
        R8Snorm,
        Rg8Uint,
        Rgba8Sint,
        R16Float,
        Rg16Unorm,
        Rgba16Snorm,
        Rgba16Uint,
        R32Float,
        Rg32Sint,
        Rgba32Float,
        Rg11b10Ufloat,
        Rgb10a2Unorm,
        Rgb10a2Uint,
        Rgba8Unorm,
        Rgba16Float,
    ];
    let mut checked = 0;
    for (n, dim) in DIMS.into_iter().enumerate() {
        for (m, f) in formats.into_iter().enumerate() {
            let ext = extents(dim);
            let desc = ImageDescriptor::linear(IMG, f, dim, ext.0, ext.1, ext.2);
            let size = aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize;
            let seeds = lcg((n * 100 + m) as u32 + 1, 32 * 4);
            let mut coords = [[0u32; 4]; 32];
            let mut data = [[0u32; 4]; 32];
            let mut texels = Vec::new();
            for l in 0..32 {
                let (t, c) = lane_texel(dim, ext, l as u32);
                coords[l] = c;
                data[l] = std::array::from_fn(|k| sample_value(f, seeds[4 * l + k]));
                texels.push(t);
            }
            let run = run_image(
                desc.encode().unwrap(),
                &vec![0; size],
                &coords,
                &data,
                32,
                &store_then_load(dim, 0xF),
            )
            .unwrap_or_else(|e| panic!("{dim:?} {f:?}: {e:?}"));
            let bits = f.component_bits();
            let bpt = f.bytes_per_texel() as usize;
            for l in 0..32 {
                let raw: [u32; 4] = std::array::from_fn(|c| {
                    if bits[c] == 0 {
                        0
                    } else {
                        host_encode(f, bits[c], data[l][c])
                    }
                });
                // The texel's bytes at the host's offset.
                let (x, y, z) = texels[l];
                let at = host_offset(f, ext.0, ext.1, x, y, z);
                let mut packed = 0u128;
                let mut shift = 0;
                for c in 0..4 {
                    packed |= (raw[c] as u128) << shift;
                    shift += bits[c];
                }
                assert_eq!(
                    &run.image[at..at + bpt],
                    &packed.to_le_bytes()[..bpt],
                    "{dim:?} {f:?} lane {l} memory"
                );
                assert_eq!(
                    run.out[l],
                    host_texel(f, raw),
                    "{dim:?} {f:?} lane {l} data {:08x?}",
                    data[l]
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 16 * 32);
}

#[test]
fn dmask_packs_components_and_dst_sel_swizzles_loads() {
    // BGRA: memory bytes b, g, r, a; dmask 0b1011 returns x, y and w.
    let f = ImageFormat::Bgra8Unorm;
    let desc = ImageDescriptor::linear(IMG, f, ImageDim::D2, 32, 1, 1);
    let mut image = vec![0u8; 256];
    for l in 0..32 {
        image[4 * l..4 * l + 4].copy_from_slice(&[l as u8, 100, 200, 255 - l as u8]);
    }
    let coords: [[u32; 4]; 32] = std::array::from_fn(|l| [l as u32, 0, 0, 0]);
    let data = [[0; 4]; 32];
    let load = mimg(IMAGE_LOAD, ImageDim::D2, 0b1011, 10, 1);
    let run = run_image(desc.encode().unwrap(), &image, &coords, &data, 32, &load).unwrap();
    let unorm = |b: u8| (b as f32 / 255.0).to_bits();
    for l in 0..32 {
        // x reads memory z (byte 2), y reads y, w reads w.
        assert_eq!(
            run.out[l],
            [unorm(200), unorm(100), unorm(255 - l as u8), SENTINEL],
            "lane {l}"
        );
    }
    // A T# with DST_SEL 1, 0, X, X over R32 uint.
    let mut d = ImageDescriptor::linear(IMG, ImageFormat::R32Uint, ImageDim::D1, 32, 1, 1);
    d.dst_sel = [DstSel::One, DstSel::Zero, DstSel::X, DstSel::X];
    let image: Vec<u8> = u32_bytes(&lcg(9, 64));
    let run = run_image(
        d.encode().unwrap(),
        &image,
        &coords,
        &data,
        32,
        &mimg(IMAGE_LOAD, ImageDim::D1, 0xF, 10, 1),
    )
    .unwrap();
    let words = lcg(9, 64);
    for l in 0..32 {
        assert_eq!(run.out[l], [1, 0, words[l], words[l]], "lane {l}");
    }
    // A store with dmask 0b0101 writes x and z from v5 and v6 and keeps y and w.
    let f = ImageFormat::Rgba8Uint;
    let desc = ImageDescriptor::linear(IMG, f, ImageDim::D1, 32, 1, 1);
    let image = vec![0x77u8; 256];
    let data: [[u32; 4]; 32] = std::array::from_fn(|l| [l as u32, 0x100 + l as u32, 9, 9]);
    let store = mimg(IMAGE_STORE, ImageDim::D1, 0b0101, 5, 1);
    let run = run_image(desc.encode().unwrap(), &image, &coords, &data, 32, &store).unwrap();
    for l in 0..32 {
        assert_eq!(
            &run.image[4 * l..4 * l + 4],
            &[l as u8, 0x77, l as u8, 0x77],
            "lane {l}"
        );
    }
    // A store through the BGRA swizzle is refused, naming the instruction.
    let desc = ImageDescriptor::linear(IMG, ImageFormat::Bgra8Unorm, ImageDim::D1, 32, 1, 1);
    let err = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &data,
        32,
        &mimg(IMAGE_STORE, ImageDim::D1, 0xF, 5, 1),
    )
    .err()
    .expect("refused");
    assert!(
        matches!(&err.kind, WaveErrorKind::IllegalInstruction { mnemonic: Some(m), .. }
            if m == "image_store (store through a swizzled T#)"),
        "{err:?}"
    );
}

#[test]
fn resinfo_reports_the_view_per_level() {
    for dim in DIMS {
        let (w, h, d) = extents(dim);
        let mut desc = ImageDescriptor::linear(IMG, ImageFormat::R32Float, dim, w, h, d);
        if dim.is_layered() {
            // A view of the last two layers.
            desc.base_array = d - 2;
            desc.depth = 2;
        }
        // Lane l asks for level l % 3.
        let coords: [[u32; 4]; 32] = std::array::from_fn(|l| [l as u32 % 3, 0, 0, 0]);
        let run = run_image(
            desc.encode().unwrap(),
            &[],
            &coords,
            &[[0; 4]; 32],
            32,
            &mimg(IMAGE_GET_RESINFO, dim, 0xF, 10, 1),
        )
        .unwrap();
        let want_level0 = match dim {
            ImageDim::D1 => [w, 1, 1, 1],
            ImageDim::D1Array => [w, 2, 1, 1],
            ImageDim::D2 => [w, h, 1, 1],
            ImageDim::D3 => [w, h, d, 1],
            ImageDim::Cube | ImageDim::D2Array => [w, h, 2, 1],
        };
        for l in 0..32 {
            let want = if l % 3 == 0 {
                want_level0
            } else {
                [0, 0, 0, 1]
            };
            assert_eq!(run.out[l], want, "{dim:?} lane {l}");
        }
        // dmask 0b1001 packs width and the level count into v10, v11.
        let run = run_image(
            desc.encode().unwrap(),
            &[],
            &[[0; 4]; 32],
            &[[0; 4]; 32],
            32,
            &mimg(IMAGE_GET_RESINFO, dim, 0b1001, 10, 1),
        )
        .unwrap();
        assert_eq!(run.out[0], [w, 1, SENTINEL, SENTINEL], "{dim:?}");
    }
}

#[test]
fn out_of_range_loads_read_zero_and_stores_are_dropped() {
    let f = ImageFormat::Rg16Uint;
    let desc = ImageDescriptor::linear(IMG, f, ImageDim::D2Array, 4, 2, 2);
    let size = aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize;
    let image: Vec<u8> = (0..size).map(|k| k as u8 | 1).collect();
    // Lanes 0..4 in range; the others past x, y, layer, or at level 1.
    let coords: [[u32; 4]; 32] = std::array::from_fn(|l| match l {
        0..4 => [l as u32, 1, 1, 0],
        4..8 => [4, 0, 0, 0],
        8..12 => [0, 2, 0, 0],
        12..16 => [0, 0, 2, 0],
        16..20 => [0, 0, 0, 1],
        _ => [u32::MAX, 0, 0, 0],
    });
    let data: [[u32; 4]; 32] = std::array::from_fn(|l| [0xAAAA, 0xBBBB, l as u32, 0]);
    let code = [
        mimg(IMAGE_STORE_MIP, ImageDim::D2Array, 0x3, 5, 1),
        mimg(IMAGE_LOAD_MIP, ImageDim::D2Array, 0xF, 10, 1),
    ]
    .concat();
    let run = run_image(desc.encode().unwrap(), &image, &coords, &data, 32, &code).unwrap();
    let mut want_image = image.clone();
    for l in 0..4 {
        let at = host_offset(f, 4, 2, l, 1, 1);
        want_image[at..at + 4].copy_from_slice(&[0xAA, 0xAA, 0xBB, 0xBB]);
    }
    assert_eq!(run.image, want_image, "only the in-range lanes store");
    for l in 0..32 {
        let want = if l < 4 {
            [0xAAAA, 0xBBBB, 0, 1]
        } else {
            // Zero bits, converted: missing z reads 0, missing w one.
            [0, 0, 0, 1]
        };
        assert_eq!(run.out[l], want, "lane {l}");
    }
}

#[test]
fn exec_masked_lanes_neither_load_nor_store() {
    let f = ImageFormat::R32Uint;
    let desc = ImageDescriptor::linear(IMG, f, ImageDim::D1, 32, 1, 1);
    let coords: [[u32; 4]; 32] = std::array::from_fn(|l| [l as u32, 0, 0, 0]);
    let data: [[u32; 4]; 32] = std::array::from_fn(|l| [1000 + l as u32, 0, 0, 0]);
    let run = run_image(
        desc.encode().unwrap(),
        &[0; 256],
        &coords,
        &data,
        5,
        &store_then_load(ImageDim::D1, 0x1),
    )
    .unwrap();
    let stored = u32_bytes(
        &(0..32)
            .map(|l| if l < 5 { 1000 + l } else { 0 })
            .collect::<Vec<_>>(),
    );
    assert_eq!(&run.image[..128], &stored[..]);
    for l in 0..32 {
        let x = if l < 5 { 1000 + l as u32 } else { SENTINEL };
        assert_eq!(run.out[l], [x, SENTINEL, SENTINEL, SENTINEL], "lane {l}");
    }
}

#[test]
fn an_unmapped_image_faults_at_the_texel_address() {
    let f = ImageFormat::Rgba32Float;
    let desc = ImageDescriptor::linear(IMG, f, ImageDim::D2, 8, 8, 1);
    // Lane 0 reads texel (3, 2): row pitch 16 texels of 16 bytes.
    let coords: [[u32; 4]; 32] = std::array::from_fn(|l| [3 + l as u32 % 4, 2, 0, 0]);
    for (op, access) in [(IMAGE_LOAD, Access::Read), (IMAGE_STORE, Access::Write)] {
        let err = run_image(
            desc.encode().unwrap(),
            &[],
            &coords,
            &[[0; 4]; 32],
            32,
            &mimg(
                op,
                ImageDim::D2,
                0xF,
                if op == IMAGE_LOAD { 10 } else { 5 },
                1,
            ),
        )
        .err()
        .expect("faults");
        assert_eq!(
            err.kind,
            WaveErrorKind::MemoryViolation(MemoryFault {
                address: IMG + (2 * 16 + 3) * 16,
                access
            })
        );
        assert_eq!(
            err.pc,
            HAND_BASE + 256 + 4 * kernels::IMAGE_PROLOGUE.len() as u64
        );
    }
}

#[test]
fn unmodelled_image_forms_are_named() {
    let desc = ImageDescriptor::linear(IMG, ImageFormat::R32Uint, ImageDim::D2, 4, 4, 1);
    let load = mimg(IMAGE_LOAD, ImageDim::D2, 0xF, 10, 1);
    let cases: Vec<([u32; 2], [u32; 8], &str)> = vec![
        (
            [load[0] | 1 << 17, load[1]],
            desc.encode().unwrap(),
            "image_load (d16)",
        ),
        (
            [load[0], load[1] | 1 << 22],
            desc.encode().unwrap(),
            "image_load (lwe)",
        ),
        (
            [load[0], load[1] | 1 << 21],
            desc.encode().unwrap(),
            "image_load (tfe)",
        ),
        (
            mimg(IMAGE_LOAD, ImageDim::D3, 0xF, 10, 1),
            desc.encode().unwrap(),
            "image_load (instruction dim does not match the T# TYPE)",
        ),
        (
            load,
            {
                let mut w = desc.encode().unwrap();
                w[3] |= 9 << 20;
                w
            },
            "image_load (image descriptor SW_MODE 9 is a tiled layout; only SW_LINEAR (0) is modelled)",
        ),
        (
            [
                mimg(IMAGE_SAMPLE, ImageDim::D2, 0xF, 10, 1)[0],
                mimg(IMAGE_SAMPLE, ImageDim::D2, 0xF, 10, 1)[1] | 4 << 26,
            ],
            desc.encode().unwrap(),
            "image_sample",
        ),
    ];
    for (words, tsharp, name) in cases {
        let err = run_image(tsharp, &[0; 256], &[[0; 4]; 32], &[[0; 4]; 32], 32, &words)
            .err()
            .unwrap_or_else(|| panic!("{name}: ran"));
        match err.kind {
            WaveErrorKind::IllegalInstruction { words: w, mnemonic } => {
                assert_eq!(mnemonic.as_deref(), Some(name));
                assert_eq!(w, words.to_vec(), "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

// ---- A16: 16-bit address components, two per VGPR ----

/// `mimg` with A16 set.
fn mimg_a16(op: u32, dim: ImageDim, dmask: u32, vdata: u32, vaddr: u32) -> [u32; 2] {
    let [w0, w1] = mimg(op, dim, dmask, vdata, vaddr);
    [w0 | 1 << 16, w1]
}

/// `mimg_a16` in the NSA encoding (bit 0): the address VGPRs are `slots`,
/// the first in vaddr, the others in the third dword's bytes.
fn mimg_a16_nsa(op: u32, dim: ImageDim, dmask: u32, vdata: u32, slots: &[u32]) -> [u32; 3] {
    let [w0, w1] = mimg_a16(op, dim, dmask, vdata, slots[0]);
    let nsa = slots[1..]
        .iter()
        .enumerate()
        .fold(0, |acc, (k, &r)| acc | r << (8 * k));
    [w0 | 1, w1, nsa]
}

/// What an odd component count leaves in the last VGPR's high half: the
/// instruction ignores it.
const UNUSED_HALF: u32 = 0xA5A5;

/// 16-bit address components packed two per dword, low half first.
fn pack_a16(components: &[u32]) -> Vec<u32> {
    components
        .chunks(2)
        .map(|p| {
            assert!(p.iter().all(|&c| c <= 0xFFFF), "{p:?}");
            p[0] | p.get(1).copied().unwrap_or(UNUSED_HALF) << 16
        })
        .collect()
}

/// Every dim's `image_store`/`image_load` and `_mip` pair in A16 form, with
/// consecutive and NSA addresses, against host results: odd component
/// counts (1D; 2D with a level; 3D, cube and 2D arrays without) leave a
/// high half the instruction must ignore, the registers past the packed
/// ones hold all ones, and the NSA forms name the packed registers in
/// reverse. Every fifth lane of the `_mip` forms asks for level 1, past
/// the view: its store is dropped and its load reads zero bits.
#[test]
fn a16_store_then_load_every_dim_form_and_encoding() {
    let f = ImageFormat::Rgba32Uint;
    let mut checked = 0;
    for dim in DIMS {
        let coords_n = match dim {
            ImageDim::D1 => 1,
            ImageDim::D2 | ImageDim::D1Array => 2,
            _ => 3,
        };
        for mip in [false, true] {
            let n = coords_n + mip as usize;
            let dwords = n.div_ceil(2);
            for nsa in [false, true] {
                if nsa && dwords < 2 {
                    continue;
                }
                let what = format!("{dim:?} mip {mip} nsa {nsa}");
                let ext = extents(dim);
                let desc = ImageDescriptor::linear(IMG, f, dim, ext.0, ext.1, ext.2);
                let size = aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize;
                let image = vec![0x5Au8; size];
                let words = lcg(dim as u32 * 4 + 2 * mip as u32 + nsa as u32 + 1, 32 * 4);
                let mut regs = [[u32::MAX; 4]; 32];
                let mut data = [[0u32; 4]; 32];
                let mut texels = Vec::new();
                for l in 0..32 {
                    let (t, c) = lane_texel(dim, ext, l as u32);
                    let level = (mip && l % 5 == 4) as u32;
                    let mut components = c[..coords_n].to_vec();
                    if mip {
                        components.push(level);
                    }
                    for (j, dword) in pack_a16(&components).into_iter().enumerate() {
                        let reg = if nsa { dwords - 1 - j } else { j };
                        regs[l][reg] = dword;
                    }
                    data[l] = std::array::from_fn(|k| words[4 * l + k]);
                    texels.push((level == 0).then_some(t));
                }
                let (store_op, load_op) = if mip {
                    (IMAGE_STORE_MIP, IMAGE_LOAD_MIP)
                } else {
                    (IMAGE_STORE, IMAGE_LOAD)
                };
                // v1.. hold the packed dwords; NSA lists them last first.
                let code = if nsa {
                    let slots: Vec<u32> = (1..=dwords as u32).rev().collect();
                    [
                        mimg_a16_nsa(store_op, dim, 0xF, 5, &slots).to_vec(),
                        mimg_a16_nsa(load_op, dim, 0xF, 10, &slots).to_vec(),
                    ]
                    .concat()
                } else {
                    [
                        mimg_a16(store_op, dim, 0xF, 5, 1),
                        mimg_a16(load_op, dim, 0xF, 10, 1),
                    ]
                    .concat()
                };
                let run = run_image(desc.encode().unwrap(), &image, &regs, &data, 32, &code)
                    .unwrap_or_else(|e| panic!("{what}: {e:?}"));
                let mut want_image = image.clone();
                for l in 0..32 {
                    if let Some((x, y, z)) = texels[l] {
                        let at = host_offset(f, ext.0, ext.1, x, y, z);
                        want_image[at..at + 16].copy_from_slice(&u32_bytes(&data[l]));
                        assert_eq!(run.out[l], data[l], "{what} lane {l}");
                    } else {
                        // Zero bits of a four-component format.
                        assert_eq!(run.out[l], [0; 4], "{what} lane {l}");
                    }
                    checked += 1;
                }
                assert!(run.image == want_image, "{what}: image differs");
            }
        }
    }
    // 6 dims x 2 forms consecutive, and NSA for the 8 with two dwords.
    assert_eq!(checked, (12 + 8) * 32);
}

/// `image_get_resinfo` with A16 reads the level from the low half of its
/// address VGPR.
#[test]
fn a16_resinfo_reads_the_level_from_the_low_half() {
    for dim in DIMS {
        let (w, h, d) = extents(dim);
        let desc = ImageDescriptor::linear(IMG, ImageFormat::R32Float, dim, w, h, d);
        let regs: [[u32; 4]; 32] =
            std::array::from_fn(|l| [pack_a16(&[l as u32 % 3])[0], u32::MAX, 0, 0]);
        let run = run_image(
            desc.encode().unwrap(),
            &[],
            &regs,
            &[[0; 4]; 32],
            32,
            &mimg_a16(IMAGE_GET_RESINFO, dim, 0xF, 10, 1),
        )
        .unwrap();
        let level0 = match dim {
            ImageDim::D1 => [w, 1, 1, 1],
            ImageDim::D1Array => [w, d, 1, 1],
            ImageDim::D2 => [w, h, 1, 1],
            _ => [w, h, d, 1],
        };
        for l in 0..32 {
            let want = if l % 3 == 0 { level0 } else { [0, 0, 0, 1] };
            assert_eq!(run.out[l], want, "{dim:?} lane {l}");
        }
    }
}

/// The A16 words the tests above execute decode and print as
/// llvm-objdump-19 prints them (`llvm-objdump-19 -d
/// --triple=amdgcn-amd-amdhsa --mcpu=gfx1100` of the words wrapped by
/// `llvm-objcopy-19 -I binary`); the decoder sizes vaddr by the packed
/// dword count.
#[test]
fn a16_forms_disassemble_as_llvm_objdump() {
    use ImageDim::*;
    let cases: [(Vec<u32>, &str); 14] = [
        (
            mimg_a16(IMAGE_LOAD, D1, 0xF, 10, 1).to_vec(),
            "image_load v[10:13], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D unorm a16",
        ),
        (
            mimg_a16(IMAGE_LOAD_MIP, D1, 0xF, 10, 1).to_vec(),
            "image_load_mip v[10:13], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D unorm a16",
        ),
        (
            mimg_a16(IMAGE_LOAD, D2, 0xF, 10, 1).to_vec(),
            "image_load v[10:13], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16",
        ),
        (
            mimg_a16(IMAGE_LOAD_MIP, D2, 0xF, 10, 1).to_vec(),
            "image_load_mip v[10:13], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16",
        ),
        (
            mimg_a16(IMAGE_STORE, D3, 0xF, 5, 1).to_vec(),
            "image_store v[5:8], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D unorm a16",
        ),
        (
            mimg_a16(IMAGE_STORE_MIP, Cube, 0xF, 5, 1).to_vec(),
            "image_store_mip v[5:8], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_CUBE unorm a16",
        ),
        (
            mimg_a16(IMAGE_STORE, D1Array, 0x3, 5, 1).to_vec(),
            "image_store v[5:6], v1, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D_ARRAY unorm a16",
        ),
        (
            mimg_a16(IMAGE_LOAD_MIP, D2Array, 0xF, 10, 1).to_vec(),
            "image_load_mip v[10:13], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm a16",
        ),
        (
            mimg_a16(IMAGE_GET_RESINFO, D2, 0xF, 10, 1).to_vec(),
            "image_get_resinfo v[10:13], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16",
        ),
        (
            mimg_a16(IMAGE_GET_RESINFO, D3, 0x9, 10, 1).to_vec(),
            "image_get_resinfo v[10:11], v1, s[8:15] dmask:0x9 dim:SQ_RSRC_IMG_3D unorm a16",
        ),
        (
            mimg_a16_nsa(IMAGE_LOAD_MIP, D2Array, 0xF, 10, &[2, 1]).to_vec(),
            "image_load_mip v[10:13], [v2, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm a16",
        ),
        (
            mimg_a16_nsa(IMAGE_STORE, D3, 0xF, 5, &[2, 1]).to_vec(),
            "image_store v[5:8], [v2, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D unorm a16",
        ),
        (
            mimg_a16_nsa(IMAGE_LOAD_MIP, D1Array, 0x1, 10, &[2, 1]).to_vec(),
            "image_load_mip v10, [v2, v1], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D_ARRAY unorm a16",
        ),
        (
            mimg_a16_nsa(IMAGE_STORE_MIP, D2, 0xF, 5, &[2, 1]).to_vec(),
            "image_store_mip v[5:8], [v2, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm a16",
        ),
    ];
    for (words, want) in cases {
        let i = decode(&words).expect("decodes");
        assert_eq!(i.len as usize, words.len(), "{want}");
        assert_eq!(disassemble(&i), want);
    }
}

/// The clang-19 kernel's image instructions, decoded and printed as
/// llvm-objdump-19 prints them (`llvm-objdump-19 -d --mcpu=gfx1100
/// kernels/image/gfx1100/image_ops.co`), and counted as VMEM loads and
/// stores by the per-dispatch counters.
#[test]
fn executed_forms_disassemble_as_llvm_objdump() {
    for (words, want) in [
        (
            &[0xF000_0F84u32, 0x0004_0200][..],
            "image_load v[2:5], v[0:1], s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        ),
        (
            &[0xF05C_0F84, 0x0004_060A][..],
            "image_get_resinfo v[6:9], v10, s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        ),
        (
            &[0xF018_0F84, 0x0006_0200][..],
            "image_store v[2:5], v[0:1], s[24:31] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        ),
        (
            &[0xF000_0195, 0x0000_0200, 0x0000_0101][..],
            "image_load v2, [v0, v1, v1], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        ),
    ] {
        let i = decode(words).expect("decodes");
        assert_eq!(i.len as usize, words.len(), "{want}");
        assert_eq!(disassemble(&i), want);
        let class = if want.starts_with("image_store") {
            InstClass::VmemStore
        } else {
            InstClass::VmemLoad
        };
        assert_eq!(InstClass::of(&i), class, "{want}");
    }
}

#[test]
fn clang_image_kernel_loads_stores_and_queries() {
    let mut mem = TestMem::new();
    let path = format!(
        "{}/../../kernels/image/gfx1100/image_ops.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let (kd_addr, kd) = load_code_object(&mut mem, &path, "image_ops");
    let (w, h) = (32u32, 4u32);
    let src_base = IMG;
    let dst_base = IMG + 0x10_0000;
    let lay_base = IMG + 0x20_0000;
    let src = ImageDescriptor::linear(src_base, ImageFormat::Rgba8Unorm, ImageDim::D2, w, h, 1);
    let dst = ImageDescriptor::linear(dst_base, ImageFormat::Rgba16Float, ImageDim::D2, w, h, 1);
    let lay = ImageDescriptor::linear(lay_base, ImageFormat::R32Float, ImageDim::D2Array, w, h, h);
    // Rows of 256 bytes (64 RGBA8 or R32 texels, 32 RGBA16F ones).
    let src_bytes: Vec<u8> = lcg(5, (64 * h) as usize)
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let lay_vals: Vec<f32> = lcg(6, (64 * h * h) as usize)
        .iter()
        .map(|&v| v as f32 / 7.0)
        .collect();
    mem.map(src_base, &src_bytes);
    mem.map_zeroed(dst_base, (w * h * 8) as usize);
    mem.map(lay_base, &f32_bytes(&lay_vals));
    mem.map_zeroed(BUF_A, 16);
    mem.map_zeroed(BUF_B, (4 * w * h) as usize);
    let mut ex = Vec::new();
    for d in [src, dst, lay] {
        ex.extend_from_slice(&u32_bytes(&d.encode().unwrap()));
    }
    ex.extend_from_slice(&BUF_A.to_le_bytes());
    ex.extend_from_slice(&BUF_B.to_le_bytes());
    let grid = [w * h, 1, 1];
    mem.map(KERNARG, &kernargs(&ex, grid, [w, 1, 1], [0; 3]));
    run_all(&mem, setup(kd_addr, kd, grid, [w, 1, 1])).expect("runs");
    assert_eq!(mem.read_u32s(BUF_A, 4), vec![w, h, 1, 1], "resinfo");
    let dst_bytes = mem.read(dst_base, (w * h * 8) as usize);
    let out = mem.read_f32s(BUF_B, (w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let t = (y * w + x) as usize;
            let s = host_offset(ImageFormat::Rgba8Unorm, w, h, x, y, 0);
            let d = host_offset(ImageFormat::Rgba16Float, w, h, x, y, 0);
            for c in 0..4 {
                let v = src_bytes[s + c] as f32 / 255.0 * 2.0;
                let got = u16::from_le_bytes([dst_bytes[d + 2 * c], dst_bytes[d + 2 * c + 1]]);
                assert_eq!(
                    got,
                    half::f16::from_f32(v).to_bits(),
                    "({x}, {y}) component {c}"
                );
            }
            // Layer y of the array, texel (x, y).
            let want = lay_vals[host_offset(ImageFormat::R32Float, w, h, x, y, y) / 4];
            assert_eq!(out[t], want, "layered ({x}, {y})");
        }
    }
}

/// kernels/image/gfx1100/image_ops.co is what kernels/image/build.sh makes
/// of its source, where clang-19 and ld.lld-19 are installed.
#[test]
fn checked_in_image_kernel_matches_a_fresh_build() {
    let present = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !present("clang-19") || !present("ld.lld-19") {
        eprintln!("clang-19 or ld.lld-19 missing: the image kernel's freshness is not checked");
        return;
    }
    let dir = format!("{}/../../kernels/image", env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("aqueduct-image-kernels-{}", std::process::id()));
    let status = std::process::Command::new(format!("{dir}/build.sh"))
        .arg(&out)
        .status()
        .expect("build.sh runs");
    assert!(status.success(), "build.sh: {status}");
    let fresh = std::fs::read(out.join("gfx1100/image_ops.co")).expect("built");
    let _ = std::fs::remove_dir_all(&out);
    let checked_in = std::fs::read(format!("{dir}/gfx1100/image_ops.co")).expect("checked in");
    assert!(
        fresh == checked_in,
        "kernels/image/gfx1100/image_ops.co is stale: rerun kernels/image/build.sh"
    );
}
