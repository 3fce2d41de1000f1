//! The facade's blit kernels (shaders/fill_u32.wgsl, shaders/copy_bytes.wgsl)
//! on gfxsim: every alignment of offset and size, bytes outside the range
//! untouched, words past the buffer end never written.

use aqueduct_test_harness::shaderc::*;

fn fill(buffer: &[u8], offset: u32, size: u32, pattern: u32) -> Vec<u8> {
    let params = [offset, size, pattern, 0];
    let words = (offset + size).div_ceil(4).max(1);
    let groups = words.div_ceil(256);
    run(
        "fill_u32",
        "fill_u32",
        &[(0, 0, buffer.to_vec()), (0, 1, bytes_of(&params))],
        [groups, 1, 1],
    )
    .remove(0)
}

#[test]
fn fill_u32_all_alignments() {
    let init: Vec<u8> = (0..64u32).map(|i| (i * 7 + 1) as u8).collect();
    let pattern = 0xa1b2_c3d4u32;
    for offset in 0..9u32 {
        for size in [0u32, 1, 2, 3, 4, 5, 7, 8, 13, 40] {
            let got = fill(&init, offset, size, pattern);
            let mut want = init.clone();
            for a in offset..offset + size {
                want[a as usize] = pattern.to_le_bytes()[(a % 4) as usize];
            }
            assert_eq!(got, want, "offset {offset} size {size}");
        }
    }
}

#[test]
fn fill_u32_large_range() {
    let init = vec![0u8; 4 * 1000];
    let got = fill(&init, 12, 4 * 900, 0x1234_5678);
    let words = u32s(&got);
    for (i, w) in words.iter().enumerate() {
        let want = if (3..903).contains(&i) {
            0x1234_5678
        } else {
            0
        };
        assert_eq!(*w, want, "word {i}");
    }
}

/// One workgroup of copy_bytes with params (src_offset, dst_offset, size, 0);
/// returns dst afterwards.
fn copy_bytes(src: &[u8], dst: &[u8], params: [u32; 4]) -> Vec<u8> {
    run(
        "copy_bytes",
        "copy_bytes",
        &[
            (0, 0, src.to_vec()),
            (0, 1, dst.to_vec()),
            (0, 2, bytes_of(&params)),
        ],
        [1, 1, 1],
    )
    .remove(1)
}

#[test]
fn copy_bytes_all_alignments() {
    let src: Vec<u8> = (0..64u32).map(|i| (i * 13 + 5) as u8).collect();
    let dst: Vec<u8> = (0..64u32).map(|i| (200 - i) as u8).collect();
    for src_off in 0..5u32 {
        for dst_off in 0..5u32 {
            for size in [0u32, 1, 3, 4, 6, 9, 16, 33] {
                let params = [src_off, dst_off, size, 0];
                let out = copy_bytes(&src, &dst, params);
                let mut want = dst.clone();
                for k in 0..size as usize {
                    want[dst_off as usize + k] = src[src_off as usize + k];
                }
                assert_eq!(out, want, "src {src_off} dst {dst_off} size {size}");
            }
        }
    }
}

/// One workgroup (256 invocations) over thousands of 16-byte groups: the
/// kernels' grid-stride loop covers the whole range, on the vec4 path (source
/// and destination 16-byte aligned to each other), the word path (4-aligned)
/// and the byte path, with partial groups at both ends.
#[test]
fn copy_and_fill_loop_over_ranges_larger_than_the_grid() {
    let len = 40_000usize;
    let src: Vec<u8> = (0..len as u32).map(|i| (i * 31 + 7) as u8).collect();
    let dst: Vec<u8> = (0..len as u32).map(|i| (i * 5 + 100) as u8).collect();
    for (src_off, dst_off, size) in [(36u32, 20u32, 39_000u32), (24, 8, 38_996), (7, 2, 39_001)] {
        let params = [src_off, dst_off, size, 0];
        let out = copy_bytes(&src, &dst, params);
        let mut want = dst.clone();
        let (s, d, n) = (src_off as usize, dst_off as usize, size as usize);
        want[d..d + n].copy_from_slice(&src[s..s + n]);
        assert!(out == want, "src {src_off} dst {dst_off} size {size}");
    }
    let pattern = 0x0102_0304u32;
    let params = [12u32, 39_960, pattern, 0];
    let got = run(
        "fill_u32",
        "fill_u32",
        &[(0, 0, dst.clone()), (0, 1, bytes_of(&params))],
        [1, 1, 1],
    )
    .remove(0);
    let mut want = dst.clone();
    for (a, byte) in want.iter_mut().enumerate().skip(12).take(39_960) {
        *byte = pattern.to_le_bytes()[a % 4];
    }
    assert!(got == want, "fill");
}
