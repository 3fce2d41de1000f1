//! sRGB image loads (`8_8_8_8_SRGB`, FORMAT 66): x, y and z decode through
//! the sRGB EOTF computed on the host, w stays linear, and the BGRA
//! DST_SEL swizzles after the decode; stores through an sRGB T# are
//! refused.

use super::*;

fn eotf(k: u8) -> f32 {
    let c = f64::from(k) / 255.0;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

#[test]
fn srgb_loads_decode_colour_and_keep_alpha_linear() {
    let bytes: Vec<u8> = lcg(77, 64).iter().map(|v| (v >> 24) as u8).collect();
    let coords: [[u32; 4]; 32] = std::array::from_fn(|l| [l as u32 % 16, 0, 0, 0]);
    let data = [[0u32; 4]; 32];
    for f in [ImageFormat::Rgba8UnormSrgb, ImageFormat::Bgra8UnormSrgb] {
        let desc = ImageDescriptor::linear(IMG, f, ImageDim::D1, 16, 1, 1);
        let mut image = bytes.clone();
        image.resize(256, 0);
        let load = mimg(IMAGE_LOAD, ImageDim::D1, 0xF, 10, 1);
        let run = run_image(desc.encode().unwrap(), &image, &coords, &data, 32, &load).unwrap();
        for l in 0..32 {
            let b = &image[4 * (l % 16)..4 * (l % 16) + 4];
            let rgb = if f.is_bgra() {
                [b[2], b[1], b[0]]
            } else {
                [b[0], b[1], b[2]]
            };
            let want = [
                eotf(rgb[0]),
                eotf(rgb[1]),
                eotf(rgb[2]),
                f32::from(b[3]) / 255.0,
            ];
            let got = run.out[l].map(f32::from_bits);
            for c in 0..4 {
                assert!(
                    (got[c] - want[c]).abs() <= 1e-6,
                    "{f:?} lane {l} component {c}: {} vs {}",
                    got[c],
                    want[c]
                );
            }
        }
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
                if m.starts_with("image_store (store through")),
            "{err:?}"
        );
    }
}
