//! Bit manipulation and packing builtins on gfxsim vs host.

use aqueduct_test_harness::shaderc::*;

fn first_leading_signed(v: i32) -> u32 {
    let x = if v < 0 { !v } else { v };
    if x == 0 {
        u32::MAX
    } else {
        31 - x.leading_zeros()
    }
}

#[test]
fn bit_counting() {
    let mut x = vec![0u32, 1, 0x8000_0000, u32::MAX, 0x0f0f_0000, 0xffff_fffe];
    x.extend(Rng::new(41).u32s(32 - x.len()));
    let out = run(
        "tests/bits_count",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 28])],
        [1, 1, 1],
    );
    let got = u32s(&out[1]);
    for (i, &v) in x.iter().enumerate() {
        let want = [
            v.count_ones(),
            v.reverse_bits(),
            v.leading_zeros(),
            v.trailing_zeros(),
            if v == 0 {
                u32::MAX
            } else {
                31 - v.leading_zeros()
            },
            first_leading_signed(v as i32),
            if v == 0 { u32::MAX } else { v.trailing_zeros() },
        ];
        assert_eq!(&got[i * 7..i * 7 + 7], &want, "bits of {v:#x}");
    }
}

fn extract_u(v: u32, off: u32, cnt: u32) -> u32 {
    let o = off.min(32);
    let c = cnt.min(32 - o);
    if c == 0 {
        0
    } else {
        ((u64::from(v) >> o) & ((1u64 << c) - 1)) as u32
    }
}

fn extract_s(v: u32, off: u32, cnt: u32) -> u32 {
    let o = off.min(32);
    let c = cnt.min(32 - o);
    if c == 0 {
        return 0;
    }
    let field = extract_u(v, o, c);
    let shift = 32 - c;
    (((field << shift) as i32) >> shift) as u32
}

fn insert(v: u32, nb: u32, off: u32, cnt: u32) -> u32 {
    let o = off.min(32);
    let c = cnt.min(32 - o);
    let mask = if c == 0 {
        0
    } else {
        (((1u64 << c) - 1) << o) as u32
    };
    (v & !mask) | ((((u64::from(nb)) << o) as u32) & mask)
}

#[test]
fn extract_and_insert_bits() {
    let mut rng = Rng::new(42);
    let mut reqs = Vec::new();
    let fixed = [
        (0, 8),
        (4, 4),
        (28, 8),
        (31, 1),
        (0, 32),
        (0, 0),
        (33, 3),
        (16, 40),
        (32, 0),
        (5, 27),
    ];
    for i in 0..32 {
        let (off, cnt) = if i < fixed.len() {
            fixed[i]
        } else {
            (rng.u32() % 36, rng.u32() % 36)
        };
        reqs.extend([rng.u32(), rng.u32(), off, cnt]);
    }
    let out = run(
        "tests/bits_fields",
        "main",
        &[(0, 0, bytes_of(&reqs)), (0, 1, vec![0; 32 * 16])],
        [1, 1, 1],
    );
    let got = u32s(&out[1]);
    for i in 0..32 {
        let [v, nb, off, cnt] = [
            reqs[4 * i],
            reqs[4 * i + 1],
            reqs[4 * i + 2],
            reqs[4 * i + 3],
        ];
        let want = [
            extract_u(v, off, cnt),
            extract_s(v, off, cnt),
            insert(v, nb, off, cnt),
            extract_u(nb, off, cnt),
        ];
        assert_eq!(
            &got[i * 4..i * 4 + 4],
            &want,
            "v={v:#x} nb={nb:#x} off={off} cnt={cnt}"
        );
    }
}

fn pack_norm(v: &[f32], scale: f32, lo: f32, bits: u32) -> u32 {
    v.iter().enumerate().fold(0, |acc, (i, &x)| {
        let q = (0.5 + scale * x.clamp(lo, 1.0)).floor() as i32 as u32;
        acc | ((q & ((1 << bits) - 1)) << (i as u32 * bits))
    })
}

#[test]
fn pack_and_unpack() {
    let mut f = Rng::new(43).f32s(64, -1.3, 1.3);
    f[0] = 0.5;
    f[1] = -0.5;
    let w = Rng::new(44).u32s(16);
    let out = run(
        "tests/pack_unpack",
        "main",
        &[
            (0, 0, bytes_of(&f)),
            (0, 1, bytes_of(&w)),
            (0, 2, vec![0; 16 * 40]),
            (0, 3, vec![0; 16 * 48]),
            (0, 4, vec![0; 16 * 32]),
        ],
        [1, 1, 1],
    );
    let packed = u32s(&out[2]);
    let unpacked = f32s(&out[3]);
    let ints = i32s(&out[4]);
    for i in 0..16 {
        let v = &f[i * 4..i * 4 + 4];
        let u = w[i];
        let iv = [i as i32 * 50 - 300, -1, 127, 200];
        let h = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
        let lanes = |vals: [i32; 4]| {
            vals.iter()
                .enumerate()
                .fold(0u32, |a, (k, &x)| a | ((x as u32 & 0xff) << (8 * k)))
        };
        let bytes_s: Vec<i32> = (0..4)
            .map(|k| ((u >> (8 * k)) as u8) as i8 as i32)
            .collect();
        let bytes_u: Vec<i32> = (0..4).map(|k| ((u >> (8 * k)) & 0xff) as i32).collect();
        let other = 0x01ff_02feu32;
        let os: Vec<i32> = (0..4)
            .map(|k| ((other >> (8 * k)) as u8) as i8 as i32)
            .collect();
        let ou: Vec<i32> = (0..4).map(|k| ((other >> (8 * k)) & 0xff) as i32).collect();
        let dot_s: i32 = (0..4).map(|k| bytes_s[k] * os[k]).sum();
        let dot_u: i32 = (0..4).map(|k| bytes_u[k] * ou[k]).sum();
        let want = [
            pack_norm(v, 127.0, -1.0, 8),
            pack_norm(v, 255.0, 0.0, 8),
            pack_norm(&v[..2], 32767.0, -1.0, 16),
            pack_norm(&v[2..], 65535.0, 0.0, 16),
            h(v[0]) | (h(v[1]) << 16),
            lanes(iv),
            lanes(iv),
            lanes(iv.map(|x| x.clamp(-128, 127))),
            lanes(iv.map(|x| (x as u32).min(255) as i32)),
            (dot_s as u32) ^ (dot_u as u32),
        ];
        assert_eq!(&packed[i * 10..i * 10 + 10], &want, "packing {i}");
        let un: Vec<f32> = (0..4)
            .map(|k| (bytes_s[k] as f32 / 127.0).max(-1.0))
            .collect();
        let uu: Vec<f32> = (0..4).map(|k| bytes_u[k] as f32 / 255.0).collect();
        let s16 = |k: u32| (((u >> (16 * k)) as u16 as i16) as f32 / 32767.0).max(-1.0);
        let u16v = |k: u32| ((u >> (16 * k)) & 0xffff) as f32 / 65535.0;
        let mut want_f = un.clone();
        want_f.extend(&uu);
        want_f.extend([s16(0), s16(1), u16v(0), u16v(1)]);
        assert_close(
            &unpacked[i * 12..i * 12 + 12],
            &want_f,
            1e-6,
            1e-6,
            &format!("unpacking {u:#x}"),
        );
        let mut want_i = bytes_s.clone();
        want_i.extend(&bytes_u);
        assert_eq!(&ints[i * 8..i * 8 + 8], &want_i[..], "unpack4xI8/U8 {u:#x}");
    }
}
