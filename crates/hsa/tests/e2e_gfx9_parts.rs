//! End to end through aqueduct-hsa on gfxsim's GFX9 parts (MI300X, gfx942;
//! an MI250X GCD, gfx90a): the runtime comes up on their topology (agent
//! ISA, CUs, wave size, XCC context-save areas), loads their code objects
//! (`kernels/gfx942`, `kernels/gfx90a`) and runs them, results compared with
//! a host computation; the MI300X spreads each dispatch over its XCCs
//! (`e2e_gfx9_parts/xcc.rs`), whose L2s strict coherence mode keeps apart
//! (`e2e_gfx9_parts/xcc_l2.rs`).

use aqueduct_gfxsim::{SimConfig, SimPart};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Program, Rng, read_f32, read_u32, wait_zero};
use aqueduct_test_support::repo;

#[path = "e2e_gfx9_parts/mfma.rs"]
mod mfma;
#[path = "e2e_gfx9_parts/packed_const.rs"]
mod packed_const;
#[path = "e2e_gfx9_parts/xcc.rs"]
mod xcc;
#[path = "e2e_gfx9_parts/xcc_l2.rs"]
mod xcc_l2;

const SENTINEL: u32 = 0xdead_beef;

fn gpu_of(part: SimPart) -> Gpu {
    Gpu::with_config(SimConfig {
        part,
        threads: 2,
        vram_size: 2 << 30,
        ..SimConfig::default()
    })
}

/// The two GFX9 parts and their code-object directories.
fn parts() -> [(SimPart, &'static str); 2] {
    [(SimPart::Mi300x, "gfx942"), (SimPart::Mi250xGcd, "gfx90a")]
}

/// `kernels/<gfx>/<file>.co`, loaded on `gpu`, and its kernel `file` (multi:
/// vector_copy).
fn load(gpu: &Gpu, gfx: &str, file: &str) -> Program {
    let kernel = if file == "multi" { "vector_copy" } else { file };
    gpu.load_bytes(&repo::kernel(&format!("{gfx}/{file}.co")), kernel)
        .unwrap_or_else(|e| panic!("loading {gfx}/{file}.co: {e}"))
}

#[test]
fn mi300x_agent() {
    let gpu = gpu_of(SimPart::Mi300x);
    assert_eq!(gpu.agent.name, "gfx942");
    assert_eq!(
        gpu.agent.isa_name.as_deref(),
        Some("amdgcn-amd-amdhsa--gfx942")
    );
    assert_eq!(gpu.agent.compute_unit_count, 304);
    assert_eq!(gpu.agent.wavefront_size, 64);
    assert_eq!(gpu.agent.max_waves_per_cu, 32);
    assert_eq!(gpu.agent.lds_size, 64 << 10);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(8));
}

#[test]
fn mi250x_gcd_agent() {
    let gpu = gpu_of(SimPart::Mi250xGcd);
    assert_eq!(gpu.agent.name, "gfx90a");
    assert_eq!(gpu.agent.compute_unit_count, 110);
    assert_eq!(gpu.agent.wavefront_size, 64);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(1));
}

/// histogram_global: one global atomic add per byte (a skewed input puts
/// most of them on one address), grids ending in partial workgroups.
#[test]
fn histogram_global_counts_every_byte() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = gpu
            .load_bytes(
                &repo::kernel(&format!("{gfx}/histogram_global.co")),
                "histogram_global",
            )
            .unwrap_or_else(|e| panic!("{gfx}: {e}"));
        let queue = gpu.queue(64);
        let mut rng = Rng::new(5);
        let data: Vec<u8> = (0..3000)
            .map(|_| {
                let r = rng.u32();
                if r.is_multiple_of(4) {
                    7
                } else {
                    (r >> 8) as u8
                }
            })
            .collect();
        for wg in [64u16, 256, 100] {
            let input = gpu.upload(&data);
            // The last word is past the bins: it must stay 0.
            let bins = gpu.filled_u32(257, 0);
            let n = data.len() as u32;
            let launch = gpu.launch(
                &program.kernel,
                &[
                    Arg::Ptr(input.gpu_va()),
                    Arg::Ptr(bins.gpu_va()),
                    Arg::U32(n),
                ],
                [n, 1, 1],
                [wg, 1, 1],
            );
            gpu.run_on(&queue, &launch)
                .unwrap_or_else(|e| panic!("{gfx} wg {wg}: {e}"));
            assert_eq!(read_u32(&bins, 257), byte_counts(&data), "{gfx} wg {wg}");
        }
    }
}

/// vector_copy with partial last workgroups (the grid, not the kernel's
/// bound, stops the tail) and saxpy against the host's fused multiply-add,
/// bit for bit.
#[test]
fn vector_copy_and_saxpy() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let copy = load(&gpu, gfx, "vector_copy");
        let saxpy = load(&gpu, gfx, "saxpy");
        let queue = gpu.queue(64);
        let mut rng = Rng::new(1);
        for (grid, wg) in [(1000u32, 64u16), (37, 1), (700, 256), (130, 33)] {
            let len = grid as usize + wg as usize + 7;
            let words = rng.u32s(len);
            let src = gpu.upload_u32(&words);
            let dst = gpu.filled_u32(len, SENTINEL);
            let launch = gpu.launch(
                &copy.kernel,
                &[
                    Arg::Ptr(src.gpu_va()),
                    Arg::Ptr(dst.gpu_va()),
                    Arg::U32(len as u32),
                ],
                [grid, 1, 1],
                [wg, 1, 1],
            );
            gpu.run_on(&queue, &launch)
                .unwrap_or_else(|e| panic!("{gfx} vector_copy {grid}/{wg}: {e}"));
            let mut want = words[..grid as usize].to_vec();
            want.resize(len, SENTINEL);
            assert_eq!(read_u32(&dst, len), want, "{gfx} vector_copy {grid}/{wg}");
        }
        for (n, wg) in [(777u32, 64u16), (1, 1), (2100, 256), (64, 33)] {
            let a = rng.f32(-3.0, 3.0);
            let x: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let (xb, yb) = (gpu.upload_f32(&x), gpu.upload_f32(&y));
            let launch = gpu.launch(
                &saxpy.kernel,
                &[
                    Arg::F32(a),
                    Arg::Ptr(xb.gpu_va()),
                    Arg::Ptr(yb.gpu_va()),
                    Arg::U32(n),
                ],
                [n, 1, 1],
                [wg, 1, 1],
            );
            gpu.run_on(&queue, &launch)
                .unwrap_or_else(|e| panic!("{gfx} saxpy {n}/{wg}: {e}"));
            let want: Vec<u32> = x
                .iter()
                .zip(&y)
                .map(|(x, y)| a.mul_add(*x, *y).to_bits())
                .collect();
            let got: Vec<u32> = read_f32(&yb, n as usize)
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(got, want, "{gfx} saxpy {n}/{wg}");
        }
    }
}

/// reduce_lds: per-workgroup wrapping sums through an LDS tree with
/// barriers (16 waves in a 1024-item workgroup), the data ending inside the
/// last group.
#[test]
fn reduce_lds_sums_each_workgroup() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "reduce_lds");
        let queue = gpu.queue(64);
        let mut rng = Rng::new(4);
        for (groups, wg, tail) in [(2u32, 1024u32, 300u32), (5, 256, 17), (3, 64, 63)] {
            let grid = groups * wg;
            let n = grid - wg + tail;
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
            gpu.run_on(&queue, &launch)
                .unwrap_or_else(|e| panic!("{gfx} wg {wg}: {e}"));
            let mut want: Vec<u32> = data
                .chunks(wg as usize)
                .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
                .collect();
            want.push(SENTINEL);
            assert_eq!(read_u32(&out, groups as usize + 1), want, "{gfx} wg {wg}");
        }
    }
}

/// histogram: LDS bins per workgroup, then global atomics.
#[test]
fn histogram_lds_counts_every_byte() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "histogram");
        let mut rng = Rng::new(9);
        let data: Vec<u8> = (0..5000).map(|_| rng.u32() as u8).collect();
        for wg in [256u16, 64] {
            let input = gpu.upload(&data);
            let bins = gpu.filled_u32(257, 0);
            let n = data.len() as u32;
            gpu.run(
                &program.kernel,
                &[
                    Arg::Ptr(input.gpu_va()),
                    Arg::Ptr(bins.gpu_va()),
                    Arg::U32(n),
                ],
                [n.next_multiple_of(wg as u32), 1, 1],
                [wg, 1, 1],
            )
            .unwrap_or_else(|e| panic!("{gfx} wg {wg}: {e}"));
            assert_eq!(read_u32(&bins, 257), byte_counts(&data), "{gfx} wg {wg}");
        }
    }
}

/// matmul_tiled against a host product in the kernel's order (f32 fused
/// multiply-adds, k increasing), sizes not multiples of the 16x16 tile.
#[test]
fn matmul_tiled_matches_host_fma_order() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "matmul_tiled");
        let mut rng = Rng::new(6);
        for (m, n, k) in [(37u32, 23u32, 45u32), (1, 1, 1), (5, 33, 16)] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.f32(-2.0, 2.0)).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rng.f32(-2.0, 2.0)).collect();
            let (ab, bb) = (gpu.upload_f32(&a), gpu.upload_f32(&b));
            let cb = gpu.filled_u32((m * n) as usize + 1, SENTINEL);
            gpu.run(
                &program.kernel,
                &[
                    Arg::Ptr(ab.gpu_va()),
                    Arg::Ptr(bb.gpu_va()),
                    Arg::Ptr(cb.gpu_va()),
                    Arg::U32(m),
                    Arg::U32(n),
                    Arg::U32(k),
                ],
                [n.div_ceil(16) * 16, m.div_ceil(16) * 16, 1],
                [16, 16, 1],
            )
            .unwrap_or_else(|e| panic!("{gfx} {m}x{n}x{k}: {e}"));
            let c = read_u32(&cb, (m * n) as usize + 1);
            for row in 0..m as usize {
                for col in 0..n as usize {
                    let mut acc = 0.0f32;
                    for kk in 0..k as usize {
                        acc = a[row * k as usize + kk].mul_add(b[kk * n as usize + col], acc);
                    }
                    assert_eq!(
                        c[row * n as usize + col],
                        acc.to_bits(),
                        "{gfx} {m}x{n}x{k}: C[{row}][{col}]"
                    );
                }
            }
            assert_eq!(c[(m * n) as usize], SENTINEL, "{gfx} {m}x{n}x{k}: past C");
        }
    }
}

/// fill2d and fill3d: 2D and 3D workgroups that do not divide the grid,
/// global offsets; cells outside the grid keep their sentinel.
#[test]
fn fill2d_and_fill3d_partial_groups_and_offsets() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let fill2d = load(&gpu, gfx, "fill2d");
        let fill3d = load(&gpu, gfx, "fill3d");
        const W: u32 = 37;
        const H: u32 = 29;
        for (grid, wg) in [([W - 3, H - 2], [16u16, 4u16]), ([5, 3], [2, 1])] {
            let out = gpu.filled_u32((W * H) as usize, SENTINEL);
            gpu.run(
                &fill2d.kernel,
                &[Arg::Ptr(out.gpu_va()), Arg::U32(W), Arg::U32(H)],
                [grid[0], grid[1], 1],
                [wg[0], wg[1], 1],
            )
            .unwrap_or_else(|e| panic!("{gfx} fill2d {grid:?}: {e}"));
            let got = read_u32(&out, (W * H) as usize);
            for y in 0..H {
                for x in 0..W {
                    let i = (x + y * W) as usize;
                    let want = if x < grid[0] && y < grid[1] {
                        i as u32
                    } else {
                        SENTINEL
                    };
                    assert_eq!(got[i], want, "{gfx} fill2d {grid:?} {wg:?}: ({x}, {y})");
                }
            }
        }
        const D: u32 = 5;
        let (w, h) = (13u32, 7u32);
        for (grid, wg, offset) in [
            ([w - 2, h - 1, D - 1], [8u16, 2u16, 2u16], [2u64, 1, 1]),
            ([6, 6, 2], [16, 8, 8], [3, 0, 2]),
        ] {
            let out = gpu.filled_u32((w * h * D) as usize, SENTINEL);
            let launch = gpu.launch_with_offset(
                &fill3d.kernel,
                &[
                    Arg::Ptr(out.gpu_va()),
                    Arg::U32(w),
                    Arg::U32(h),
                    Arg::U32(D),
                ],
                grid,
                wg,
                offset,
            );
            gpu.run_on(&gpu.queue(64), &launch)
                .unwrap_or_else(|e| panic!("{gfx} fill3d {grid:?}: {e}"));
            let got = read_u32(&out, (w * h * D) as usize);
            for z in 0..D {
                for y in 0..h {
                    for x in 0..w {
                        let i = (x + y * w + z * w * h) as usize;
                        let inside = [x, y, z]
                            .iter()
                            .zip(offset.iter().zip(grid.iter()))
                            .all(|(&c, (&o, &g))| c as u64 >= o && (c as u64) < o + g as u64);
                        let want = if inside { i as u32 } else { SENTINEL };
                        assert_eq!(
                            got[i], want,
                            "{gfx} fill3d {grid:?} {offset:?}: ({x},{y},{z})"
                        );
                    }
                }
            }
        }
    }
}

/// lookup_table reads its table through a pointer the loader relocated.
#[test]
fn lookup_table_reads_through_the_relocated_pointer() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "lookup_table");
        const N: u32 = 300;
        let idx = Rng::new(8).u32s(N as usize);
        let idxb = gpu.upload_u32(&idx);
        let out = gpu.filled_u32(N as usize, SENTINEL);
        gpu.run(
            &program.kernel,
            &[Arg::Ptr(idxb.gpu_va()), Arg::Ptr(out.gpu_va()), Arg::U32(N)],
            [N, 1, 1],
            [64, 1, 1],
        )
        .unwrap_or_else(|e| panic!("{gfx}: {e}"));
        let want: Vec<u32> = idx.iter().map(|&i| 12 + (i & 3)).collect();
        assert_eq!(read_u32(&out, N as usize), want, "{gfx}");
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

/// sqrt_exp_loop against the host in f32 within a relative 1e-5, the
/// bound e2e_kernels.rs explains for gfx1100 (the kernel's expf and 1/x
/// are a few ULP from the host's; a wrong instruction is off by far more).
#[test]
fn sqrt_exp_loop_matches_host_f32_within_relative_1e5() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "sqrt_exp_loop");
        const N: u32 = 300;
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
        .unwrap_or_else(|e| panic!("{gfx}: {e}"));
        let out = read_f32(&outb, N as usize);
        for i in 0..N as usize {
            let want = sqrt_exp_loop_host(input[i], ITERS);
            let rel = ((out[i] - want) / want).abs();
            assert!(
                rel <= 1e-5,
                "{gfx} out[{i}] = {} vs host {want} (x0 = {})",
                out[i],
                input[i]
            );
        }
    }
}

/// vector_copy and saxpy linked into one code object (multi.co) run from
/// one executable.
#[test]
fn kernels_of_a_multi_kernel_object() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let copy = load(&gpu, gfx, "multi");
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
        .unwrap_or_else(|e| panic!("{gfx}: {e}"));
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
        .unwrap_or_else(|e| panic!("{gfx}: {e}"));
        // y = 2*x + x = 1.5 * i, exact in f32.
        let want: Vec<f32> = (0..N).map(|i| i as f32 * 1.5).collect();
        assert_eq!(read_f32(&y, N as usize), want, "{gfx}");
    }
}

/// write_timestamp stores s_memrealtime's tick (moved into a VGPR pair by
/// v_pk_mov_b32 with op_sel on gfx90a): it lies between the profiled
/// dispatch's start and end ticks.
#[test]
fn write_timestamp_lies_within_its_profiled_dispatch() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = load(&gpu, gfx, "write_timestamp");
        let queue = gpu.queue(64);
        queue.set_profiling(true);
        let out = gpu.filled_u32(4, 0);
        let launch = gpu.launch(
            &program.kernel,
            &[Arg::Ptr(out.gpu_va()), Arg::U32(1)],
            [1, 1, 1],
            [1, 1, 1],
        );
        let done = gpu.signal(1);
        let mut d = launch.dispatch;
        d.completion_signal = done.handle();
        queue
            .submit_dispatch(&d.to_packet().expect("packet"))
            .expect("submit");
        wait_zero(&done).unwrap_or_else(|e| panic!("{gfx}: {e}"));
        let words = read_u32(&out, 4);
        assert_eq!(&words[..2], &[0, 0], "{gfx}: index 0 untouched");
        let tick = u64::from(words[2]) | u64::from(words[3]) << 32;
        let (start, end) = done.dispatch_ticks().expect("timestamps");
        assert!(
            start <= tick && tick <= end,
            "{gfx}: {start} <= {tick} <= {end}"
        );
    }
}

#[test]
fn gfx1100_code_does_not_load_on_a_gfx942_agent() {
    let gpu = gpu_of(SimPart::Mi300x);
    let err = gpu
        .load_bytes(&repo::kernel("gfx1100/saxpy.co"), "saxpy")
        .err()
        .expect("gfx1100 code on a gfx942 agent");
    assert!(err.to_string().contains("gfx942"), "{err}");
}

/// How many times each byte value occurs in `data`, in 257 bins (the
/// histogram kernels' bins plus one that no byte reaches).
fn byte_counts(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; 257];
    for &b in data {
        bins[b as usize] += 1;
    }
    bins
}
