//! End to end through aqueduct-hsa on gfxsim: every checked-in gfx1100
//! kernel dispatched for several shapes, results compared with a host
//! computation (exactly for integers).
//!
//! Shapes cover partial workgroups (grid not a multiple of the workgroup,
//! in every dimension), 1D/2D/3D grids, 1 to 1024 work-items per group,
//! LDS reductions with up to 32 waves and 11 barriers per workgroup, atomics
//! under heavy contention, global offsets, and code that needs relocations.
//! Where a kernel bounds-checks its own index, the grid is made smaller than
//! the bound it is given so that the device's grid clipping is what keeps
//! the tail untouched (sentinel values must survive).
//!
//! Data stays small (≤ ~64K work-items per test): workspace crates build at
//! opt-level 0 in the dev profile, the emulator included.

use aqueduct_test_harness::hsa_sim;

use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, read_f32, read_u32};

const SENTINEL: u32 = 0xdead_beef;

/// vector_copy for workgroups of 1..1024 items and grids that leave the last
/// group partial; `n` (the kernel's own bound) covers the whole buffer, so
/// only the grid stops the work-items past it.
#[test]
fn vector_copy_partial_workgroups_of_every_size() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let cases: &[(u32, u16)] = &[
        (1, 1),
        (37, 1),
        (1000, 32),
        (1000, 33),
        (4097, 64),
        (3000, 256),
        (5000, 1024),
        (1024, 1024),
        (100, 1024),
    ];
    let mut rng = Rng::new(1);
    for &(grid, wg) in cases {
        // The buffers extend a whole workgroup and a bit past the grid.
        let len = grid as usize + wg as usize + 7;
        let src_words = rng.u32s(len);
        let src = gpu.upload_u32(&src_words);
        let dst = gpu.filled_u32(len, SENTINEL);
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::Ptr(src.gpu_va()),
                Arg::Ptr(dst.gpu_va()),
                Arg::U32(len as u32),
            ],
            [grid, 1, 1],
            [wg, 1, 1],
        );
        gpu.run_on(&queue, &launch)
            .unwrap_or_else(|e| panic!("grid {grid} wg {wg}: {e}"));
        let out = read_u32(&dst, len);
        for (i, &v) in out.iter().enumerate() {
            let want = if i < grid as usize {
                src_words[i]
            } else {
                SENTINEL
            };
            assert_eq!(v, want, "grid {grid} wg {wg}: dst[{i}]");
        }
    }
}

/// vector_copy between VRAM buffers (coarse-grained device memory the host
/// maps), 2048 items in groups of 64.
#[test]
fn vector_copy_between_vram_buffers() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    const N: usize = 2048;
    let words = Rng::new(2).u32s(N);
    let mut src = gpu.alloc_vram(N as u64 * 4);
    hsa_sim::host_bytes_mut(&mut src).copy_from_slice(bytemuck::cast_slice(&words));
    let dst = gpu.alloc_vram(N as u64 * 4);
    gpu.run(
        &program.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    assert_eq!(read_u32(&dst, N), words);
}

/// saxpy: the kernel computes a*x+y with one fused multiply-add
/// (v_fmac_f32), so the host reference is `a.mul_add(x, y)`, bit for bit.
#[test]
fn saxpy_matches_host_fma_bit_for_bit() {
    let gpu = Gpu::new();
    let program = gpu.load("saxpy");
    let queue = gpu.queue(64);
    let mut rng = Rng::new(3);
    for &(n, wg) in &[
        (777u32, 64u16),
        (1u32, 1u16),
        (4100u32, 256u16),
        (64u32, 33u16),
    ] {
        let a = rng.f32(-3.0, 3.0);
        let x: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
        let xb = gpu.upload_f32(&x);
        let yb = gpu.upload_f32(&y);
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::F32(a),
                Arg::Ptr(xb.gpu_va()),
                Arg::Ptr(yb.gpu_va()),
                Arg::U32(n),
            ],
            [n, 1, 1],
            [wg, 1, 1],
        );
        gpu.run_on(&queue, &launch).unwrap();
        let out = read_f32(&yb, n as usize);
        for i in 0..n as usize {
            let want = a.mul_add(x[i], y[i]);
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "n {n} wg {wg}: y[{i}] = {} want {want}",
                out[i]
            );
        }
    }
}

/// reduce_lds: per-workgroup wrapping u32 sums through an LDS tree. With
/// 1024 items a workgroup has 32 waves and passes 11 barriers; the data
/// ends inside the last group (items past n load 0).
#[test]
fn reduce_lds_sums_each_workgroup() {
    let gpu = Gpu::new();
    let program = gpu.load("reduce_lds");
    let queue = gpu.queue(64);
    let mut rng = Rng::new(4);
    for &(groups, wg, tail) in &[
        (6u32, 1024u32, 300u32),
        (9, 256, 17),
        (4, 32, 0),
        (3, 64, 63),
    ] {
        let grid = groups * wg;
        let n = if tail == 0 { grid } else { grid - wg + tail };
        let data = rng.u32s(n as usize);
        let input = gpu.upload_u32(&data);
        let out = gpu.filled_u32(groups as usize + 1, SENTINEL);
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::Ptr(input.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(n),
            ],
            [grid, 1, 1],
            [wg as u16, 1, 1],
        );
        gpu.run_on(&queue, &launch).unwrap();
        let mut want: Vec<u32> = data
            .chunks(wg as usize)
            .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
            .collect();
        want.push(SENTINEL);
        assert_eq!(read_u32(&out, groups as usize + 1), want, "wg {wg}");
    }
    // The device ran exactly the workgroups of the four grids.
    assert_eq!(gpu.sim.stats().workgroups, 6 + 9 + 4 + 3);
}

fn host_histogram(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; 256];
    for &b in data {
        bins[b as usize] += 1;
    }
    bins
}

/// Byte streams for the histogram tests: uniform, skewed (most bytes hit
/// one bin), and all in one bin (every work-item contends on one address).
fn histogram_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = Rng::new(5);
    let uniform: Vec<u8> = (0..10_000).map(|_| rng.u32() as u8).collect();
    let skewed: Vec<u8> = (0..12_345)
        .map(|_| {
            let r = rng.u32();
            if r % 10 < 9 { 7 } else { (r >> 8) as u8 }
        })
        .collect();
    let single = vec![0xffu8; 8192];
    vec![("uniform", uniform), ("skewed", skewed), ("single", single)]
}

/// Run `kernel` over every input for each workgroup size and compare with
/// the host. `whole_groups`: the grid is rounded up to whole workgroups (the
/// LDS kernel strides its 256 bins over WGSIZE_X(), which is the full group
/// size even in a partial last group, so with a partial group its few
/// work-items would skip bins; the kernel's own `i < n` check handles the
/// tail instead). Otherwise the grid is exactly n and the last group partial.
fn check_histogram(kernel: &str, shapes: &[u16], whole_groups: bool) {
    let gpu = Gpu::new();
    let program = gpu.load(kernel);
    let queue = gpu.queue(64);
    for (what, data) in histogram_inputs() {
        for &wg in shapes {
            let input = gpu.upload(&data);
            // The last word is past the bins: it must stay 0.
            let bins = gpu.filled_u32(257, 0);
            let n = data.len() as u32;
            let grid = if whole_groups {
                n.next_multiple_of(wg as u32)
            } else {
                n
            };
            let launch = gpu.launch(
                &program.kernel,
                &[
                    Arg::Ptr(input.gpu_va()),
                    Arg::Ptr(bins.gpu_va()),
                    Arg::U32(n),
                ],
                [grid, 1, 1],
                [wg, 1, 1],
            );
            gpu.run_on(&queue, &launch).unwrap();
            let mut want = host_histogram(&data);
            want.push(0);
            assert_eq!(
                read_u32(&bins, 257),
                want,
                "{kernel} {what} n {n} grid {grid} wg {wg}"
            );
        }
    }
}

/// histogram: LDS-private bins, then global atomics; workgroup sizes below
/// and above the 256 bins and odd ones, data ending inside the last group.
#[test]
fn histogram_lds_counts_every_byte() {
    check_histogram("histogram", &[256, 1024, 33, 64], true);
}

/// histogram_global: one global atomic per byte, so the skewed and single-
/// bin inputs put thousands of atomics on one address; partial last groups.
#[test]
fn histogram_global_atomics_under_contention() {
    check_histogram("histogram_global", &[64, 1024, 100], false);
}

/// matmul_tiled against a host product with the kernel's own arithmetic
/// (f32 fused multiply-adds, k in increasing order), for sizes that are
/// not multiples of the 16x16 tile.
#[test]
fn matmul_tiled_odd_sizes_match_host_fma_order() {
    let gpu = Gpu::new();
    let program = gpu.load("matmul_tiled");
    let queue = gpu.queue(64);
    let mut rng = Rng::new(6);
    for &(m, n, k) in &[
        (16u32, 16u32, 16u32),
        (37, 23, 45),
        (1, 1, 1),
        (17, 50, 3),
        (5, 33, 64),
    ] {
        let a: Vec<f32> = (0..m * k).map(|_| rng.f32(-2.0, 2.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.f32(-2.0, 2.0)).collect();
        let ab = gpu.upload_f32(&a);
        let bb = gpu.upload_f32(&b);
        let cb = gpu.filled_u32((m * n) as usize + 1, SENTINEL);
        let grid = [n.div_ceil(16) * 16, m.div_ceil(16) * 16, 1];
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::Ptr(ab.gpu_va()),
                Arg::Ptr(bb.gpu_va()),
                Arg::Ptr(cb.gpu_va()),
                Arg::U32(m),
                Arg::U32(n),
                Arg::U32(k),
            ],
            grid,
            [16, 16, 1],
        );
        gpu.run_on(&queue, &launch).unwrap();
        let c = read_u32(&cb, (m * n) as usize + 1);
        for row in 0..m as usize {
            for col in 0..n as usize {
                let mut acc = 0.0f32;
                for kk in 0..k as usize {
                    acc = a[row * k as usize + kk].mul_add(b[kk * n as usize + col], acc);
                }
                let got = f32::from_bits(c[row * n as usize + col]);
                assert_eq!(
                    got.to_bits(),
                    acc.to_bits(),
                    "{m}x{n}x{k}: C[{row}][{col}] = {got}, host {acc}"
                );
            }
        }
        assert_eq!(c[(m * n) as usize], SENTINEL, "{m}x{n}x{k}: past C");
    }
}

/// The host version of sqrt_exp_loop, in f32 (the kernel's precision).
fn sqrt_exp_loop_host(x0: f32, iters: u32) -> f32 {
    let mut x = x0;
    let mut acc = 0.0f32;
    for k in 0..iters {
        let fk = k as f32;
        acc += (x.abs() + fk).sqrt() * (-x * 0.01 * fk).exp();
        x = x * 0.5 + 1.0 / (1.0 + acc);
    }
    acc
}

/// sqrt_exp_loop against the host in f32. The two need not agree bit for
/// bit: the emulator computes v_exp_f32/v_sqrt_f32/v_rcp_f32 correctly
/// rounded (through f64), but the compiled kernel builds expf from v_exp_f32
/// with its own range reduction (a few ULP), and 1/x is v_rcp_f32 (OpenCL
/// allows 2.5 ULP), while the host's libm expf and division differ by up
/// to ~1 ULP; over 24 dependent rounds that stays well below a relative
/// 1e-5 (~84 ULP of f32), and a wrong instruction is off by far more.
#[test]
fn sqrt_exp_loop_matches_host_f32_within_relative_1e5() {
    let gpu = Gpu::new();
    let program = gpu.load("sqrt_exp_loop");
    const N: u32 = 1000;
    const ITERS: u32 = 24;
    let mut rng = Rng::new(7);
    let input: Vec<f32> = (0..N).map(|_| rng.f32(-50.0, 50.0)).collect();
    let inb = gpu.upload_f32(&input);
    let outb = gpu.filled_u32(N as usize, SENTINEL);
    gpu.run(
        &program.kernel,
        &[
            Arg::Ptr(inb.gpu_va()),
            Arg::Ptr(outb.gpu_va()),
            Arg::U32(ITERS),
            Arg::U32(N),
        ],
        [N, 1, 1],
        [128, 1, 1],
    )
    .unwrap();
    let out = read_f32(&outb, N as usize);
    let mut worst = 0.0f64;
    for i in 0..N as usize {
        let want = sqrt_exp_loop_host(input[i], ITERS);
        assert!(
            want.is_finite() && want > 0.0,
            "host reference {want} for {}",
            input[i]
        );
        let rel = ((out[i] - want) / want).abs() as f64;
        worst = worst.max(rel);
        assert!(
            rel <= 1e-5,
            "out[{i}] = {} vs host {want} (x0 = {}, relative error {rel:e})",
            out[i],
            input[i]
        );
    }
    eprintln!("sqrt_exp_loop: worst relative difference from host f32: {worst:e}");
}

/// fill2d over W x H with 2D workgroups that do not divide the grid; the
/// grid is smaller than W x H in both dimensions, so cells outside it keep
/// their sentinel only if the device clips partial groups.
#[test]
fn fill2d_partial_groups_in_both_dimensions() {
    let gpu = Gpu::new();
    let program = gpu.load("fill2d");
    let queue = gpu.queue(64);
    const W: u32 = 37;
    const H: u32 = 29;
    for &(grid, wg) in &[
        ([W, H], [8u16, 8u16]),
        ([W - 3, H - 2], [16, 4]),
        ([W - 1, H], [1, 1]),
        ([W, H - 5], [32, 32]),
        ([5, 3], [2, 1]),
    ] {
        let out = gpu.filled_u32((W * H) as usize, SENTINEL);
        let launch = gpu.launch(
            &program.kernel,
            &[Arg::Ptr(out.gpu_va()), Arg::U32(W), Arg::U32(H)],
            [grid[0], grid[1], 1],
            [wg[0], wg[1], 1],
        );
        assert_eq!(launch.dispatch.dimensions, 2);
        gpu.run_on(&queue, &launch).unwrap();
        let got = read_u32(&out, (W * H) as usize);
        for y in 0..H {
            for x in 0..W {
                let i = (x + y * W) as usize;
                let want = if x < grid[0] && y < grid[1] {
                    i as u32
                } else {
                    SENTINEL
                };
                assert_eq!(got[i], want, "grid {grid:?} wg {wg:?}: ({x}, {y})");
            }
        }
    }
}

/// fill3d with 3D workgroups and the hidden global offsets: the grid starts
/// at `offset`, so exactly the cells from there to the grid's end change.
#[test]
fn fill3d_partial_groups_and_global_offsets() {
    let gpu = Gpu::new();
    let program = gpu.load("fill3d");
    let queue = gpu.queue(64);
    const W: u32 = 13;
    const H: u32 = 7;
    const D: u32 = 5;
    for &(grid, wg, offset) in &[
        ([W, H, D], [4u16, 4u16, 4u16], [0u64, 0, 0]),
        ([W - 2, H - 1, D - 1], [8, 2, 2], [2, 1, 1]),
        ([W, H, D], [1, 1, 1], [0, 0, 0]),
        ([6, 6, 2], [16, 8, 8], [3, 0, 2]),
        ([W, H, D], [13, 7, 5], [0, 0, 0]),
    ] {
        let out = gpu.filled_u32((W * H * D) as usize, SENTINEL);
        let launch = gpu.launch_with_offset(
            &program.kernel,
            &[
                Arg::Ptr(out.gpu_va()),
                Arg::U32(W),
                Arg::U32(H),
                Arg::U32(D),
            ],
            grid,
            wg,
            offset,
        );
        assert_eq!(launch.dispatch.dimensions, 3);
        gpu.run_on(&queue, &launch).unwrap();
        let got = read_u32(&out, (W * H * D) as usize);
        for z in 0..D {
            for y in 0..H {
                for x in 0..W {
                    let i = (x + y * W + z * W * H) as usize;
                    let inside = [x, y, z]
                        .iter()
                        .zip(offset.iter().zip(grid.iter()))
                        .all(|(&c, (&o, &g))| c as u64 >= o && (c as u64) < o + g as u64);
                    let want = if inside { i as u32 } else { SENTINEL };
                    assert_eq!(
                        got[i], want,
                        "grid {grid:?} wg {wg:?} offset {offset:?}: ({x},{y},{z})"
                    );
                }
            }
        }
    }
}

/// lookup_table reads its table through a pointer the loader relocated.
#[test]
fn lookup_table_reads_through_the_relocated_pointer() {
    let gpu = Gpu::new();
    let program = gpu.load("lookup_table");
    const N: u32 = 500;
    let idx = Rng::new(8).u32s(N as usize);
    let idxb = gpu.upload_u32(&idx);
    let out = gpu.filled_u32(N as usize, SENTINEL);
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(idxb.gpu_va()), Arg::Ptr(out.gpu_va()), Arg::U32(N)],
        [N, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    let want: Vec<u32> = idx.iter().map(|&i| 12 + (i & 3)).collect();
    assert_eq!(read_u32(&out, N as usize), want);
}

/// Two kernels of one linked code object (multi.co) run from one executable.
#[test]
fn kernels_of_a_multi_kernel_object() {
    let gpu = Gpu::new();
    let bytes = hsa_sim::kernel_file("multi.co");
    let copy = gpu.load_bytes(&bytes, "vector_copy").unwrap();
    let saxpy = copy.exe.kernel("saxpy").unwrap();
    const N: u32 = 300;
    let src_words: Vec<u32> = (0..N).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let src = gpu.upload_u32(&src_words);
    let y = gpu.filled_u32(N as usize, 0);
    gpu.run(
        &copy.kernel,
        &[Arg::Ptr(src.gpu_va()), Arg::Ptr(y.gpu_va()), Arg::U32(N)],
        [N, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    gpu.run(
        &saxpy,
        &[
            Arg::F32(2.0),
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(y.gpu_va()),
            Arg::U32(N),
        ],
        [N, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    // y = 2*x + x = 1.5 * i, exact in f32.
    let got = read_f32(&y, N as usize);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, i as f32 * 1.5, "y[{i}]");
    }
}
