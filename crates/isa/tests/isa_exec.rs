//! Execution tests for the gfx11 emulator (`aqueduct_isa::gfx11`): the
//! checked-in clang-19 kernels (kernels/gfx1100/*.co) run through `Dispatch`
//! against a host-Vec test memory, results checked against host computation;
//! plus hand-assembled kernels (llvm-mc-19 words) for single features.

#![allow(clippy::needless_range_loop)] // lane/element loops index several arrays

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use aqueduct_isa::gfx11::{CodeCache, Dispatch, WorkerContext};
use aqueduct_isa::{
    Access, DispatchSetup, GpuMemory, MemoryFault, ScratchBacking, WaveError, WaveErrorKind,
    WorkgroupStats,
};
use aqueduct_kfd::abi::KernelDescriptor;
use object::{Object, ObjectSegment, ObjectSymbol};

/// GPU memory made of host buffers at fake GPU addresses.
struct TestMem {
    regions: Vec<(u64, Box<[AtomicU8]>)>,
}

impl GpuMemory for TestMem {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        for (base, data) in &self.regions {
            if addr >= *base
                && addr
                    .checked_add(len)
                    .is_some_and(|e| e <= base + data.len() as u64)
            {
                return Ok(data[(addr - base) as usize].as_ptr());
            }
        }
        Err(MemoryFault {
            address: addr,
            access,
        })
    }
}

impl TestMem {
    /// A memory with the scratch backing of `setup` mapped.
    fn new() -> Self {
        let mut mem = TestMem::without_scratch();
        mem.map_zeroed(SCRATCH, (SCRATCH_WAVE_SLOTS * SCRATCH_WAVE_BYTES) as usize);
        mem
    }
    fn without_scratch() -> Self {
        TestMem {
            regions: Vec::new(),
        }
    }
    fn map(&mut self, base: u64, bytes: &[u8]) {
        self.regions
            .push((base, bytes.iter().map(|&b| AtomicU8::new(b)).collect()));
    }
    fn map_zeroed(&mut self, base: u64, len: usize) {
        self.regions
            .push((base, (0..len).map(|_| AtomicU8::new(0)).collect()));
    }
    fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let (base, data) = self
            .regions
            .iter()
            .find(|(b, d)| addr >= *b && addr < b + d.len() as u64)
            .expect("mapped");
        let o = (addr - base) as usize;
        data[o..o + len]
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect()
    }
    fn read_u32s(&self, addr: u64, n: usize) -> Vec<u32> {
        self.read(addr, 4 * n)
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn read_f32s(&self, addr: u64, n: usize) -> Vec<f32> {
        self.read_u32s(addr, n)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const CODE_BASE: u64 = 0x7000_0000_0000;
const KERNARG: u64 = 0x6000_0000_0000;
const BUF_A: u64 = 0x1000_0000_0000;
const BUF_B: u64 = 0x2000_0000_0000;
const BUF_C: u64 = 0x3000_0000_0000;
const SHARED_APERTURE: u64 = 0x1_0000_0000_0000;
const PRIVATE_APERTURE: u64 = 0x2_0000_0000_0000;
/// The scratch backing memory the tests' dispatches get: wave slots of 64
/// KiB (1 KiB per lane of a wave64), enough for the 32 waves of a
/// 1024-item wave32 workgroup.
const SCRATCH: u64 = 0x5000_0000_0000;
const SCRATCH_WAVE_BYTES: u64 = 64 * 1024;
const SCRATCH_WAVE_SLOTS: u64 = 32;

/// Load a code object's segments at CODE_BASE; returns (kd address, descriptor).
fn load_kernel(mem: &mut TestMem, name: &str) -> (u64, KernelDescriptor) {
    let path = format!(
        "{}/../../kernels/gfx1100/{name}.co",
        env!("CARGO_MANIFEST_DIR")
    );
    load_code_object(mem, &path, name)
}

/// Load the code object at `path`, kernel `name`.
fn load_code_object(mem: &mut TestMem, path: &str, name: &str) -> (u64, KernelDescriptor) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file = object::File::parse(&*bytes).expect("ELF");
    let mut image = vec![0u8; 0];
    for seg in file.segments() {
        let (addr, data) = (seg.address() as usize, seg.data().expect("segment"));
        if image.len() < addr + seg.size() as usize {
            image.resize(addr + seg.size() as usize, 0);
        }
        image[addr..addr + data.len()].copy_from_slice(data);
    }
    let kd_sym = file
        .symbols()
        .find(|s| s.name() == Ok(&format!("{name}.kd")))
        .expect("kd symbol");
    let kd_off = kd_sym.address() as usize;
    let kd = KernelDescriptor::from_bytes(image[kd_off..kd_off + 64].try_into().unwrap());
    // R_AMDGPU_RELATIVE64 (13): function-pointer tables and the like, relative to the load base.
    for (offset, rel) in file.dynamic_relocations().into_iter().flatten() {
        if let object::RelocationFlags::Elf { r_type: 13 } = rel.flags() {
            let v = CODE_BASE.wrapping_add(rel.addend() as u64);
            image[offset as usize..offset as usize + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    mem.map(CODE_BASE, &image);
    (CODE_BASE + kd_off as u64, kd)
}

/// Kernarg segment: explicit bytes, then the code object v5 hidden block.
fn kernargs(explicit: &[u8], grid: [u32; 3], wg: [u32; 3], offset: [u64; 3]) -> Vec<u8> {
    let h = explicit.len().div_ceil(8) * 8;
    let mut k = explicit.to_vec();
    k.resize(h + 256, 0);
    for d in 0..3 {
        k[h + 4 * d..h + 4 * d + 4].copy_from_slice(&(grid[d] / wg[d]).to_le_bytes());
        k[h + 12 + 2 * d..h + 14 + 2 * d].copy_from_slice(&(wg[d] as u16).to_le_bytes());
        k[h + 18 + 2 * d..h + 20 + 2 * d]
            .copy_from_slice(&((grid[d] % wg[d]) as u16).to_le_bytes());
        k[h + 40 + 8 * d..h + 48 + 8 * d].copy_from_slice(&offset[d].to_le_bytes());
    }
    let dims = grid.iter().rposition(|&g| g > 1).map_or(1, |p| p + 1) as u16;
    k[h + 64..h + 66].copy_from_slice(&dims.to_le_bytes());
    k
}

fn setup(kd_addr: u64, kd: KernelDescriptor, grid: [u32; 3], wg: [u32; 3]) -> DispatchSetup {
    DispatchSetup {
        isa: aqueduct_isa::Isa::Gfx11,
        kernel_object: kd_addr,
        descriptor: kd,
        packet_address: 0,
        queue_address: 0,
        kernarg_address: KERNARG,
        dispatch_id: 0,
        dimensions: if grid[2] > 1 {
            3
        } else if grid[1] > 1 {
            2
        } else {
            1
        },
        grid_size: grid,
        workgroup_size: wg,
        group_segment_size: kd.group_segment_fixed_size,
        private_segment_size: kd.private_segment_fixed_size,
        shared_aperture_base: SHARED_APERTURE,
        private_aperture_base: PRIVATE_APERTURE,
        scratch: ScratchBacking {
            base: SCRATCH,
            wave_bytes: SCRATCH_WAVE_BYTES,
            ..ScratchBacking::default()
        },
    }
}

/// Run every workgroup (x fastest) on one worker; sums the stats.
fn run_all(mem: &TestMem, s: DispatchSetup) -> Result<WorkgroupStats, WaveError> {
    let cache = Arc::new(CodeCache::for_isa(s.isa));
    run_all_in(mem, s, &cache)
}

/// [`run_all`] with the blocks of `cache`, which may hold some decoded
/// already.
fn run_all_in(
    mem: &TestMem,
    s: DispatchSetup,
    cache: &Arc<CodeCache>,
) -> Result<WorkgroupStats, WaveError> {
    run_all_on(mem, s, cache, &mut WorkerContext::new())
}

/// Every workgroup of the dispatch `s`, in order, on the worker `ctx`.
fn run_all_on(
    mem: &TestMem,
    s: DispatchSetup,
    cache: &Arc<CodeCache>,
    ctx: &mut WorkerContext,
) -> Result<WorkgroupStats, WaveError> {
    let d = Dispatch::new(s, cache.clone())?;
    let [cx, cy, cz] = d.workgroup_count();
    let mut total = WorkgroupStats::default();
    for z in 0..cz {
        for y in 0..cy {
            for x in 0..cx {
                let st = d.run_workgroup([x, y, z], mem, ctx)?;
                total.wave_instructions += st.wave_instructions;
                total.translated_wave_instructions += st.translated_wave_instructions;
                total.called_out_wave_instructions += st.called_out_wave_instructions;
                total.barrier_switches += st.barrier_switches;
                total.barrier_releases += st.barrier_releases;
                total.block_entries += st.block_entries;
                total.waves += st.waves;
            }
        }
    }
    Ok(total)
}

fn lcg(seed: u32, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            s
        })
        .collect()
}

#[test]
fn vector_copy_partial_groups() {
    for (n, wg) in [(1000u32, 256u32), (64, 64), (33, 32), (5000, 96)] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "vector_copy");
        let src = lcg(n, n as usize);
        mem.map(BUF_A, &u32_bytes(&src));
        mem.map_zeroed(BUF_B, 4 * n as usize + 64);
        let mut ex = Vec::new();
        ex.extend_from_slice(&BUF_A.to_le_bytes());
        ex.extend_from_slice(&BUF_B.to_le_bytes());
        ex.extend_from_slice(&n.to_le_bytes());
        let grid = [
            n.div_ceil(wg) * wg - if n % wg != 0 { wg - n % wg } else { 0 },
            1,
            1,
        ];
        mem.map(KERNARG, &kernargs(&ex, grid, [wg, 1, 1], [0; 3]));
        run_all(&mem, setup(kd_addr, kd, grid, [wg, 1, 1])).expect("runs");
        assert_eq!(mem.read_u32s(BUF_B, n as usize), src, "n={n} wg={wg}");
        assert_eq!(
            mem.read_u32s(BUF_B + 4 * n as u64, 1),
            vec![0],
            "no write past n"
        );
    }
}

#[test]
fn saxpy_matches_host_fma() {
    for (n, wg, grid) in [(1000u32, 256u32, 1024u32), (77, 32, 77), (4096, 128, 4096)] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "saxpy");
        let x: Vec<f32> = lcg(1, n as usize)
            .iter()
            .map(|v| (*v as f32) / 1e9 - 2.0)
            .collect();
        let y: Vec<f32> = lcg(2, n as usize)
            .iter()
            .map(|v| (*v as f32) / 3e9)
            .collect();
        let a = 1.7f32;
        mem.map(BUF_A, &f32_bytes(&x));
        mem.map(BUF_B, &f32_bytes(&y));
        let mut ex = Vec::new();
        ex.extend_from_slice(&a.to_le_bytes());
        ex.extend_from_slice(&[0; 4]);
        ex.extend_from_slice(&BUF_A.to_le_bytes());
        ex.extend_from_slice(&BUF_B.to_le_bytes());
        ex.extend_from_slice(&n.to_le_bytes());
        mem.map(KERNARG, &kernargs(&ex, [grid, 1, 1], [wg, 1, 1], [0; 3]));
        let st = run_all(&mem, setup(kd_addr, kd, [grid, 1, 1], [wg, 1, 1])).expect("runs");
        assert!(st.wave_instructions > 0);
        let got = mem.read_f32s(BUF_B, n as usize);
        for i in 0..n as usize {
            assert_eq!(got[i].to_bits(), a.mul_add(x[i], y[i]).to_bits(), "i={i}");
        }
    }
}

/// The wave loop's compilations (wave_loop.rs: AVX-512 and AVX2 where the
/// host has them, whichever runs by default, and the baseline) leave the
/// same bytes and count the same instructions: saxpy (full and partial
/// waves), sqrt_exp_loop (transcendentals, f32/f64) and vector_copy with
/// partial workgroups.
#[test]
fn every_wave_loop_compilation_agrees() {
    use aqueduct_isa::{WaveLoop, force_wave_loop, wave_loop};
    let run = |level: WaveLoop, kernel: &str, n: u32, wg: u32, scalars: &[u32]| {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, kernel);
        let x: Vec<f32> = lcg(n + 3, n as usize)
            .iter()
            .map(|v| (*v as f32) / 1e9 - 2.0)
            .collect();
        mem.map(BUF_A, &f32_bytes(&x));
        mem.map(BUF_B, &u32_bytes(&lcg(n + 4, n as usize)));
        let args = if kernel == "saxpy" {
            let mut ex = 1.7f32.to_le_bytes().to_vec();
            ex.extend_from_slice(&[0; 4]);
            ex.extend_from_slice(&BUF_A.to_le_bytes());
            ex.extend_from_slice(&BUF_B.to_le_bytes());
            ex.extend_from_slice(&n.to_le_bytes());
            ex
        } else {
            ptr_args(&[BUF_A, BUF_B], scalars)
        };
        mem.map(KERNARG, &kernargs(&args, [n, 1, 1], [wg, 1, 1], [0; 3]));
        force_wave_loop(Some(level));
        assert_eq!(wave_loop(), level, "runs at the forced level");
        let st = run_all(&mem, setup(kd_addr, kd, [n, 1, 1], [wg, 1, 1]));
        force_wave_loop(None);
        let st = st.expect("runs");
        (
            st.wave_instructions,
            st.waves,
            mem.read(BUF_B, 4 * n as usize),
        )
    };
    for (kernel, n, wg, scalars) in [
        ("saxpy", 1000u32, 256u32, vec![]),
        ("saxpy", 77, 32, vec![]),
        ("sqrt_exp_loop", 100, 64, vec![20, 100]),
        ("vector_copy", 5000, 96, vec![5000]),
    ] {
        // Every level the CPU has, whatever runs by default.
        let top = WaveLoop::host_best();
        let baseline = run(WaveLoop::Baseline, kernel, n, wg, &scalars);
        for level in WaveLoop::ALL.into_iter().skip(1) {
            if level <= top {
                let got = run(level, kernel, n, wg, &scalars);
                assert!(got == baseline, "{} {kernel} n={n} wg={wg}", level.name());
            }
        }
    }
}

/// The translator of hot blocks (jit/, every block translated at its first
/// entry) leaves the same bytes, counts the same instructions and reports
/// the same faults as the interpreter alone: saxpy, sqrt_exp_loop
/// (transcendentals), vector_copy, reduce_lds (barriers, LDS), matmul_tiled
/// (2D, partial tiles) and oob_write (a fault report); with each back end
/// this build has (LLVM's only where clang-19 runs).
#[test]
fn the_translator_agrees_with_the_interpreter() {
    use aqueduct_isa::{JitBackend, JitMode, force_jit, force_jit_backend};
    let run = |mode: JitMode,
               kernel: &str,
               grid: [u32; 3],
               wg: [u32; 3],
               ptrs: usize,
               scalars: &[u32]| {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, kernel);
        let n = grid[0] * grid[1];
        let x: Vec<f32> = lcg(n + 3, n as usize)
            .iter()
            .map(|v| (*v as f32) / 1e9 - 2.0)
            .collect();
        mem.map(BUF_A, &f32_bytes(&x));
        mem.map(BUF_B, &u32_bytes(&lcg(n + 4, n as usize)));
        mem.map(BUF_C, &u32_bytes(&lcg(n + 5, n as usize)));
        let args = if kernel == "saxpy" {
            let mut ex = 1.7f32.to_le_bytes().to_vec();
            ex.extend_from_slice(&[0; 4]);
            ex.extend_from_slice(&BUF_A.to_le_bytes());
            ex.extend_from_slice(&BUF_B.to_le_bytes());
            ex.extend_from_slice(&n.to_le_bytes());
            ex
        } else {
            // oob_write writes through its first pointer: one mapped nowhere.
            let first = if kernel == "oob_write" {
                0xdead_0000_1230
            } else {
                BUF_A
            };
            ptr_args(&[first, BUF_B, BUF_C][..ptrs], scalars)
        };
        mem.map(KERNARG, &kernargs(&args, grid, wg, [0; 3]));
        force_jit(Some(mode));
        let st = run_all(&mem, setup(kd_addr, kd, grid, wg));
        force_jit(None);
        // Where the instructions ran (of the runs that end without a fault):
        // none translated with the translator off; with it translating every
        // block at its first entry (wave32 kernels), every one, some through
        // call-outs.
        if let Ok(s) = &st {
            let (all, translated, called_out) = (
                s.wave_instructions,
                s.translated_wave_instructions,
                s.called_out_wave_instructions,
            );
            if mode == JitMode::Off {
                assert_eq!((translated, called_out), (0, 0), "{kernel}");
            } else {
                assert_eq!(translated, all, "{kernel}: every block translated");
                assert!(
                    called_out < translated,
                    "{kernel}: {called_out} of {translated}"
                );
            }
        }
        let st = st.map(|s| (s.wave_instructions, s.waves));
        (
            st,
            mem.read(BUF_B, 4 * n as usize),
            mem.read(BUF_C, 4 * n as usize),
        )
    };
    let backends: Vec<JitBackend> = [JitBackend::Llvm, JitBackend::Cranelift]
        .into_iter()
        .filter(|b| {
            let ok = b.available();
            if !ok {
                eprintln!("skipping the {b:?} back end: not in this build or host");
            }
            ok
        })
        .collect();
    for (kernel, grid, wg, ptrs, scalars) in [
        ("saxpy", [1000u32, 1, 1], [256u32, 1, 1], 0, vec![]),
        ("saxpy", [77, 1, 1], [32, 1, 1], 0, vec![]),
        ("sqrt_exp_loop", [100, 1, 1], [64, 1, 1], 2, vec![20, 100]),
        ("vector_copy", [5000, 1, 1], [96, 1, 1], 2, vec![5000]),
        ("reduce_lds", [1024, 1, 1], [256, 1, 1], 2, vec![1000]),
        (
            "matmul_tiled",
            [32, 48, 1],
            [16, 16, 1],
            3,
            vec![37, 21, 19],
        ),
        ("oob_write", [64, 1, 1], [64, 1, 1], 1, vec![7]),
    ] {
        let off = run(JitMode::Off, kernel, grid, wg, ptrs, &scalars);
        for &backend in &backends {
            force_jit_backend(Some(backend));
            let on = run(JitMode::Always, kernel, grid, wg, ptrs, &scalars);
            force_jit_backend(None);
            assert!(
                on == off,
                "{backend:?} {kernel} {grid:?}: {:?} vs {:?}, buffers equal: {} {}",
                on.0,
                off.0,
                on.1 == off.1,
                on.2 == off.2
            );
        }
    }
    // Blocks that only compute, which the LLVM back end runs for two waves
    // at once, and through the one-wave translation where a lane of either
    // wave has a NaN result: straight-line code (straight_line.s; lanes 5,
    // 300 and 777 start as NaNs or an infinity), and a loop on itself with
    // trip counts that differ between waves, a lane that makes a NaN after
    // some passes, and a forward branch (pure_loop.s). Here, in the one
    // test that forces the mode (it is process-wide).
    let only_compute = |mode: JitMode, code: &[u32]| {
        let n = 1024;
        let mut mem = TestMem::new();
        let (kd_addr, kd) = hand_kernel(&mut mem, code, 4, 0);
        let mut x = lcg(11, n);
        (x[5], x[300], x[777]) = (0x7FC0_0001, 0xFF80_0000, 0x7F80_0001);
        mem.map(BUF_A, &u32_bytes(&x));
        mem.map_zeroed(BUF_B, 4 * n);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        force_jit(Some(mode));
        let st = run_hand(&mem, kd_addr, kd, n as u32 / 256, 256).expect("runs");
        force_jit(None);
        let counts = (st.wave_instructions, st.translated_wave_instructions);
        (counts, mem.read(BUF_A, 4 * n), mem.read(BUF_B, 4 * n))
    };
    for (name, code) in [
        ("straight_line", kernels::STRAIGHT_LINE),
        ("pure_loop", kernels::PURE_LOOP),
    ] {
        let off = only_compute(JitMode::Off, code);
        assert_eq!(off.0.1, 0);
        for &backend in &backends {
            force_jit_backend(Some(backend));
            let on = only_compute(JitMode::Always, code);
            force_jit_backend(None);
            assert_eq!(on.0.1, on.0.0, "{backend:?} {name}: every block translated");
            assert_eq!(on.0.0, off.0.0, "{backend:?} {name}: instructions");
            assert!(on.1 == off.1 && on.2 == off.2, "{backend:?} {name}");
        }
    }
    // NaNs of several payloads in blocks that only compute (nan_pair.s),
    // run for two waves at once: where the host may have chosen another
    // NaN's bits than gfxsim's rule, in a result held when EXEC is written,
    // left in a register at the end or read by an integer op, the pair
    // function hands both waves to their one-wave translations
    // (emit/deferred_nans.rs). Workgroup 0 holds no NaN; in workgroup 1
    // one lane of each wave has NaNs a and b; in workgroup 2 one lane of
    // each wave has a NaN d (waves 16-19) or e (waves 20-23); workgroup 3
    // has NaNs a and b in any lane.
    let nan_pair = |mode: JitMode| {
        let n = 1024usize;
        let mut mem = TestMem::new();
        let (kd_addr, kd) = hand_kernel(&mut mem, kernels::NAN_PAIR, 0, 0);
        let nans = [
            0x7FC0_0001u32,
            0xFFC0_1234,
            0x7F80_0005,
            0xFF80_0101,
            0x7FC4_0000,
        ];
        let r = lcg(47, 4 * n);
        let mut input: Vec<u32> = r.iter().map(|v| 0x3F80_0000 | (v >> 9)).collect();
        for wave in 8..32 {
            for lane in 0..32 {
                let i = wave * 32 + lane;
                let x = r[i] as usize;
                let pick = |k: usize| nans[(x >> (3 * k)) % nans.len()];
                match wave {
                    8..16 if lane == wave => (input[4 * i], input[4 * i + 1]) = (pick(0), pick(1)),
                    16..20 if lane == wave => input[4 * i + 2] = pick(2),
                    20..24 if lane == wave => input[4 * i + 3] = pick(3),
                    24.. => {
                        for k in 0..2 {
                            if x >> (12 + k) & 1 != 0 {
                                input[4 * i + k] = pick(k + 2);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        mem.map(BUF_A, &u32_bytes(&input));
        mem.map_zeroed(BUF_B, 32 * n);
        mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
        force_jit(Some(mode));
        let st = run_hand(&mem, kd_addr, kd, n as u32 / 256, 256).expect("runs");
        force_jit(None);
        let counts = (st.wave_instructions, st.translated_wave_instructions);
        (counts, mem.read(BUF_B, 32 * n), st.block_entries)
    };
    let off = nan_pair(JitMode::Off);
    for &backend in &backends {
        force_jit_backend(Some(backend));
        let on = nan_pair(JitMode::Always);
        force_jit_backend(None);
        assert_eq!(on.0, (off.0.0, off.0.0), "{backend:?} nan_pair: counts");
        // Each wave enters the first and the last block; 16 pairs of waves
        // enter each block between together, and those with a NaN in any
        // lane (8 in body1, 4 in body2) leave it to enter it once more
        // each, alone.
        if backend == JitBackend::Llvm {
            let (body1, body2) = (16 + 2 * 8, 16 + 2 * 4);
            assert_eq!(on.2, 32 + body1 + body2 + 32, "nan_pair: block entries");
        }
        let lanes = |b: &[u8]| -> Vec<[u32; 8]> {
            b.chunks(32)
                .map(|c| {
                    std::array::from_fn(|k| u32::from_le_bytes(c[4 * k..][..4].try_into().unwrap()))
                })
                .collect()
        };
        let (want, got) = (lanes(&off.1), lanes(&on.1));
        let wrong: Vec<usize> = (0..want.len()).filter(|&i| want[i] != got[i]).collect();
        assert!(
            wrong.is_empty(),
            "{backend:?} nan_pair: lanes {wrong:?}, first {:x?} vs {:x?}",
            want[wrong[0]],
            got[wrong[0]]
        );
    }
    // At a barrier whose next block is a member of the region, the
    // region's code goes on with the workgroup's next wave itself, and at
    // the round's last wave releases the barrier and goes on with the
    // first (gfx11/round.rs, jit/abi.rs `switch_wave`): lds_barrier.s
    // (three barriers in straight-line code, two groups of 8 waves) and
    // reduce_lds (a barrier in a loop).
    // An interpreted run first decodes the blocks past the barriers into
    // the code cache, as a hot kernel has them, so the regions made at the
    // translated run's first entries hold them.
    let switching = |kernel: &str, mode: JitMode, cache: &Arc<CodeCache>| {
        let mut mem = TestMem::new();
        let (kd_addr, kd, groups, wg, out) = if kernel == "lds_barrier" {
            let (a, kd) = hand_kernel(&mut mem, kernels::LDS_BARRIER, 1024, 0);
            mem.map_zeroed(BUF_A, 2048);
            mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
            (a, kd, 2, 256, (BUF_A, 2048))
        } else {
            let (a, kd) = load_kernel(&mut mem, kernel);
            let (n, wg) = (1000u32, 256u32);
            mem.map(BUF_A, &u32_bytes(&lcg(9, n as usize)));
            mem.map_zeroed(BUF_B, 16);
            let grid = [n.div_ceil(wg) * wg, 1, 1];
            let args = kernargs(&ptr_args(&[BUF_A, BUF_B], &[n]), grid, [wg, 1, 1], [0; 3]);
            mem.map(KERNARG, &args);
            (a, kd, n.div_ceil(wg), wg, (BUF_B, 16))
        };
        force_jit(Some(mode));
        let grid = [groups * wg, 1, 1];
        let st = run_all_in(&mem, setup(kd_addr, kd, grid, [wg, 1, 1]), cache).expect("runs");
        force_jit(None);
        (st, mem.read(out.0, out.1))
    };
    if backends.contains(&JitBackend::Llvm) {
        force_jit_backend(Some(JitBackend::Llvm));
        for (kernel, switches) in [
            ("lds_barrier", Some((2 * 3 * 8, 2 * 3))),
            ("reduce_lds", None),
        ] {
            let cache = Arc::new(CodeCache::for_isa(aqueduct_isa::Isa::Gfx11));
            let (off, want) = switching(kernel, JitMode::Off, &cache);
            let (on, got) = switching(kernel, JitMode::Always, &cache);
            assert_eq!(off.barrier_switches, 0, "{kernel}");
            assert_eq!(on.wave_instructions, off.wave_instructions, "{kernel}");
            assert_eq!(
                on.translated_wave_instructions, on.wave_instructions,
                "{kernel}"
            );
            assert!(got == want, "{kernel}: results");
            match switches {
                // Each barrier of a group: the first 7 waves go on with
                // the next; the last releases it and goes on with the first.
                Some((n, released)) => {
                    assert_eq!(on.barrier_switches, n, "{kernel}");
                    assert_eq!(on.barrier_releases, released, "{kernel}");
                }
                None => assert!(on.barrier_releases > 0, "{kernel}"),
            }
        }
        // A loop on itself that touches memory joins the region of the
        // block before it (jit/region.rs), its registers carried round in
        // phis, EXEC narrowing pass by pass (region_loop.s): each wave
        // enters the wave loop once, at the region's head, and runs the
        // loop and the block after it in the region's code. Wave64 waves
        // have regions too (region_loop_wave64.s, a barrier before the
        // loop): the first wave of a group enters at the head, the
        // region's code goes on with the next three at the barrier, the
        // last releases it and the first runs the loop to its end; each
        // of the other three then enters at the loop.
        let looping = |code: &[u32], wave64: bool, mode: JitMode, cache: &Arc<CodeCache>| {
            let (groups, wg) = (3u32, 256u32);
            let n = (groups * wg) as usize;
            let mut mem = TestMem::new();
            let (kd_addr, mut kd) = hand_kernel(&mut mem, code, 1024, 0);
            if wave64 {
                kd.kernel_code_properties &= !(1 << 10);
            }
            mem.map(BUF_A, &u32_bytes(&lcg(21, n)));
            mem.map_zeroed(BUF_B, 4 * n);
            mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
            force_jit(Some(mode));
            let setup = setup(kd_addr, kd, [groups * wg, 1, 1], [wg, 1, 1]);
            let st = run_all_in(&mem, setup, cache).expect("runs");
            force_jit(None);
            (st, mem.read(BUF_B, 4 * n))
        };
        for (name, code, wave64) in [
            ("region_loop", kernels::REGION_LOOP, false),
            ("region_loop_wave64", kernels::REGION_LOOP_WAVE64, true),
        ] {
            let cache = Arc::new(CodeCache::for_isa(aqueduct_isa::Isa::Gfx11));
            let (off, want) = looping(code, wave64, JitMode::Off, &cache);
            let (on, got) = looping(code, wave64, JitMode::Always, &cache);
            assert_eq!(on.wave_instructions, off.wave_instructions, "{name}");
            assert_eq!(
                on.translated_wave_instructions, on.wave_instructions,
                "{name}"
            );
            assert!(got == want, "{name}: results");
            let (groups, waves) = (3, u64::from(on.waves));
            let (entries, switches, releases) = if wave64 {
                (waves, waves, groups)
            } else {
                (waves, 0, 0)
            };
            assert_eq!(on.block_entries, entries, "{name}: entries");
            assert_eq!(on.barrier_switches, switches, "{name}: switches");
            assert_eq!(on.barrier_releases, releases, "{name}: releases");
        }
        // Calls and returns between members stay in the region: the
        // callee, reached by LLVM's call sequence or s_call_b64, and each
        // return point join the region the kernel's first block heads
        // (jit/region.rs `call_target`), and the calls and s_setpc_b64 go
        // on at the member their address starts (region_call.s): each wave
        // enters the wave loop once.
        {
            let cache = Arc::new(CodeCache::for_isa(aqueduct_isa::Isa::Gfx11));
            let (groups, wg) = (3u32, 256u32);
            let n = (groups * wg) as usize;
            let a = lcg(41, n);
            let calling = |mode: JitMode| {
                let mut mem = TestMem::new();
                let (kd_addr, kd) = hand_kernel(&mut mem, kernels::REGION_CALL, 0, 0);
                mem.map(BUF_A, &u32_bytes(&a));
                mem.map_zeroed(BUF_B, 4 * n);
                mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
                force_jit(Some(mode));
                let setup = setup(kd_addr, kd, [groups * wg, 1, 1], [wg, 1, 1]);
                let st = run_all_in(&mem, setup, &cache).expect("runs");
                force_jit(None);
                (st, mem.read(BUF_B, 4 * n))
            };
            let (off, want) = calling(JitMode::Off);
            let (on, got) = calling(JitMode::Always);
            let host: Vec<u8> = u32_bytes(
                &a.iter()
                    .map(|&x| {
                        let f = |v: u32| v.wrapping_add(x) ^ 0x55;
                        f(f(f(3).wrapping_add(1)))
                    })
                    .collect::<Vec<_>>(),
            );
            assert!(want == host, "region_call: interpreted results");
            assert!(got == host, "region_call: translated results");
            assert_eq!(on.wave_instructions, off.wave_instructions, "region_call");
            assert_eq!(
                on.translated_wave_instructions, on.wave_instructions,
                "region_call"
            );
            assert_eq!(
                on.block_entries,
                u64::from(on.waves),
                "region_call: entries"
            );
        }
        // A worker whose blocks looked for translations before another
        // worker made them adopts them in its next batch (jit/tier.rs
        // `Tiers::configure`): tiered, 8 waves enter each block fewer
        // times than make it hot, so only adopted translations run.
        {
            let cache = Arc::new(CodeCache::for_isa(aqueduct_isa::Isa::Gfx11));
            let n = 256u32;
            let mut mem = TestMem::new();
            let (kd_addr, kd) = load_kernel(&mut mem, "vector_copy");
            mem.map(BUF_A, &u32_bytes(&lcg(31, n as usize)));
            mem.map_zeroed(BUF_B, 4 * n as usize);
            let args = ptr_args(&[BUF_A, BUF_B], &[n]);
            mem.map(KERNARG, &kernargs(&args, [n, 1, 1], [64, 1, 1], [0; 3]));
            let (mut early, mut other) = (WorkerContext::new(), WorkerContext::new());
            let run = |mode: JitMode, ctx: &mut WorkerContext| {
                force_jit(Some(mode));
                let setup = setup(kd_addr, kd, [n, 1, 1], [64, 1, 1]);
                let st = run_all_on(&mem, setup, &cache, ctx).expect("runs");
                force_jit(None);
                assert_eq!(
                    mem.read(BUF_B, 4 * n as usize),
                    mem.read(BUF_A, 4 * n as usize)
                );
                (st.translated_wave_instructions, st.wave_instructions)
            };
            let (looked, all) = run(JitMode::Tiered, &mut early);
            assert_eq!(looked, 0, "nothing hot or made yet");
            assert_eq!(run(JitMode::Always, &mut other), (all, all));
            assert_eq!(run(JitMode::Tiered, &mut early), (all, all), "adopted");
        }
        force_jit_backend(None);
    }
}

fn ptr_args(ptrs: &[u64], vals: &[u32]) -> Vec<u8> {
    let mut ex = Vec::new();
    for p in ptrs {
        ex.extend_from_slice(&p.to_le_bytes());
    }
    for v in vals {
        ex.extend_from_slice(&v.to_le_bytes());
    }
    ex
}

#[test]
fn reduce_lds_many_barriers() {
    // 1024 items per group: 11 barriers, 32 waves interleaving.
    for (n, wg) in [(3000u32, 1024u32), (100, 32), (1000, 256)] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "reduce_lds");
        let input: Vec<u32> = lcg(7, n as usize).iter().map(|v| v >> 12).collect();
        let groups = n.div_ceil(wg);
        mem.map(BUF_A, &u32_bytes(&input));
        mem.map_zeroed(BUF_B, 4 * groups as usize);
        let grid = [groups * wg, 1, 1];
        mem.map(
            KERNARG,
            &kernargs(&ptr_args(&[BUF_A, BUF_B], &[n]), grid, [wg, 1, 1], [0; 3]),
        );
        run_all(&mem, setup(kd_addr, kd, grid, [wg, 1, 1])).expect("runs");
        let got = mem.read_u32s(BUF_B, groups as usize);
        for g in 0..groups as usize {
            let lo = g * wg as usize;
            let hi = ((g + 1) * wg as usize).min(n as usize);
            let want = input[lo..hi].iter().fold(0u32, |a, b| a.wrapping_add(*b));
            assert_eq!(got[g], want, "group {g} n={n} wg={wg}");
        }
    }
}

#[test]
fn histogram_lds_and_global_atomics() {
    for (n, wg) in [(5000u32, 256u32), (999, 64)] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "histogram");
        let data: Vec<u8> = lcg(3, n as usize).iter().map(|v| (v >> 24) as u8).collect();
        mem.map(BUF_A, &data);
        mem.map_zeroed(BUF_B, 1024);
        // The kernel reads hidden_group_size_x (OpenCL 2.0 uniform work-groups), so the grid
        // is a whole number of groups; i >= n is masked by the kernel.
        let grid = [n.div_ceil(wg) * wg, 1, 1];
        mem.map(
            KERNARG,
            &kernargs(&ptr_args(&[BUF_A, BUF_B], &[n]), grid, [wg, 1, 1], [0; 3]),
        );
        run_all(&mem, setup(kd_addr, kd, grid, [wg, 1, 1])).expect("runs");
        let mut want = vec![0u32; 256];
        for b in &data {
            want[*b as usize] += 1;
        }
        assert_eq!(mem.read_u32s(BUF_B, 256), want, "n={n} wg={wg}");
    }
}

#[test]
fn matmul_tiled_partial_tiles() {
    for (m, nn, k) in [(16u32, 16u32, 16u32), (37, 21, 19)] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "matmul_tiled");
        let a: Vec<f32> = lcg(11, (m * k) as usize)
            .iter()
            .map(|v| (v >> 20) as f32 / 512.0 - 1.0)
            .collect();
        let b: Vec<f32> = lcg(12, (k * nn) as usize)
            .iter()
            .map(|v| (v >> 20) as f32 / 512.0 - 1.0)
            .collect();
        mem.map(BUF_A, &f32_bytes(&a));
        mem.map(BUF_B, &f32_bytes(&b));
        mem.map_zeroed(BUF_C, (4 * m * nn) as usize);
        let grid = [nn.div_ceil(16) * 16, m.div_ceil(16) * 16, 1];
        mem.map(
            KERNARG,
            &kernargs(
                &ptr_args(&[BUF_A, BUF_B, BUF_C], &[m, nn, k]),
                grid,
                [16, 16, 1],
                [0; 3],
            ),
        );
        run_all(&mem, setup(kd_addr, kd, grid, [16, 16, 1])).expect("runs");
        let got = mem.read_f32s(BUF_C, (m * nn) as usize);
        for r in 0..m as usize {
            for c in 0..nn as usize {
                let mut acc = 0f32;
                for t in 0..k as usize {
                    acc = a[r * k as usize + t].mul_add(b[t * nn as usize + c], acc);
                }
                let g = got[r * nn as usize + c];
                assert!(
                    (g - acc).abs() <= 1e-4 * (1.0 + acc.abs()),
                    "C[{r}][{c}] = {g}, want {acc}"
                );
            }
        }
    }
}

#[test]
fn sqrt_exp_loop_transcendentals() {
    let n = 100u32;
    let iters = 20u32;
    let mut mem = TestMem::new();
    let (kd_addr, kd) = load_kernel(&mut mem, "sqrt_exp_loop");
    let input: Vec<f32> = lcg(5, n as usize)
        .iter()
        .map(|v| (v >> 8) as f32 / 1e6 - 8.0)
        .collect();
    mem.map(BUF_A, &f32_bytes(&input));
    mem.map_zeroed(BUF_B, 4 * n as usize);
    let grid = [n, 1, 1];
    mem.map(
        KERNARG,
        &kernargs(
            &ptr_args(&[BUF_A, BUF_B], &[iters, n]),
            grid,
            [64, 1, 1],
            [0; 3],
        ),
    );
    run_all(&mem, setup(kd_addr, kd, grid, [64, 1, 1])).expect("runs");
    let got = mem.read_f32s(BUF_B, n as usize);
    for i in 0..n as usize {
        let (mut x, mut acc) = (input[i] as f64, 0f64);
        for k in 0..iters {
            let fk = k as f64;
            acc += (x.abs() + fk).sqrt() * (-x * 0.01 * fk).exp();
            x = x * 0.5 + 1.0 / (1.0 + acc);
        }
        assert!(
            ((got[i] as f64) - acc).abs() <= 1e-4 * acc.abs().max(1.0),
            "i={i}: {} vs {acc}",
            got[i]
        );
    }
}

/// Every work-item's 3-D id, in workgroups of one wave, of several
/// waves, and of a last wave only partly live, each with partial
/// workgroups at the grid's edges: the full workgroups' waves take their
/// ids from the dispatch's table, the edge ones step them per lane.
#[test]
fn fill3d_ids_and_offsets() {
    let (w, h, d) = (13u32, 7u32, 5u32);
    let grid = [w, h, d];
    for wg in [[4u32, 4, 2], [8, 4, 2], [6, 3, 3], [13, 7, 1]] {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = load_kernel(&mut mem, "fill3d");
        mem.map(BUF_A, &u32_bytes(&vec![u32::MAX; (w * h * d) as usize]));
        mem.map(
            KERNARG,
            &kernargs(&ptr_args(&[BUF_A], &[w, h, d]), grid, wg, [0; 3]),
        );
        run_all(&mem, setup(kd_addr, kd, grid, wg)).expect("runs");
        let want: Vec<u32> = (0..w * h * d).collect();
        assert_eq!(mem.read_u32s(BUF_A, (w * h * d) as usize), want, "{wg:?}");
    }
}

#[test]
fn oob_write_faults_at_the_address() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = load_kernel(&mut mem, "oob_write");
    let target = 0xdead_0000_1230u64;
    mem.map(
        KERNARG,
        &kernargs(&ptr_args(&[target], &[7]), [64, 1, 1], [64, 1, 1], [0; 3]),
    );
    let err = run_all(&mem, setup(kd_addr, kd, [64, 1, 1], [64, 1, 1])).expect_err("must fault");
    assert_eq!(
        err.kind,
        WaveErrorKind::MemoryViolation(MemoryFault {
            address: target,
            access: Access::Write
        })
    );
    assert_eq!(err.workgroup, [0, 0, 0]);
    assert!(err.pc > CODE_BASE);
}

// ---- hand-written kernels (tests/isa_kernels/*.s, assembled by generate.sh) ----

mod kernels {
    include!("isa_kernels/kernels.rs");
}

const HAND_BASE: u64 = 0x7100_0000_0000;

/// GFX9 (gfx942, gfx90a) execution of hand-written kernels.
mod gfx9_exec;

/// Place `code` after a hand-built descriptor: kernarg pointer in s[0:1],
/// workgroup id x in s2, v0 = work-item id x, wave32.
fn hand_kernel(mem: &mut TestMem, code: &[u32], lds: u32, private: u32) -> (u64, KernelDescriptor) {
    let kd = KernelDescriptor {
        group_segment_fixed_size: lds,
        private_segment_fixed_size: private,
        kernarg_size: 64,
        kernel_code_entry_byte_offset: 256,
        compute_pgm_rsrc2: (2 << 1) | (1 << 7) | u32::from(private > 0),
        kernel_code_properties: (1 << 3) | (1 << 10),
        ..Default::default()
    };
    let mut image = bytemuck::bytes_of(&kd).to_vec();
    image.resize(256, 0);
    image.extend_from_slice(&u32_bytes(code));
    image.extend_from_slice(&[0; 64]);
    mem.map(HAND_BASE, &image);
    (HAND_BASE, kd)
}

fn run_hand(
    mem: &TestMem,
    kd_addr: u64,
    kd: KernelDescriptor,
    groups: u32,
    wg: u32,
) -> Result<WorkgroupStats, WaveError> {
    run_all(mem, setup(kd_addr, kd, [groups * wg, 1, 1], [wg, 1, 1]))
}

#[test]
fn scalar_alu_branches_and_carries() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::SCALAR, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 25);
    let want: [u32; 24] = [
        0,
        1,
        1,
        55,
        0x10,
        0xffff_fff0,
        0x12,
        0xffff_ffff,
        8,
        23,
        8,
        (-42i32) as u32,
        3,
        0xffff_ffff,
        3,
        0xf800_0000,
        16,
        (-5i32) as u32,
        (-5i32) as u32,
        0xffff_ff80,
        7,
        0xf0,
        0xffff_ffff,
        8,
    ];
    assert_eq!(&out[..24], &want[..]);
    // s_getpc_b64 returns the address of the next instruction.
    let pc = out[24] as u64 | (HAND_BASE & !0xFFFF_FFFF);
    let idx = ((pc - HAND_BASE - 256) / 4) as usize - 1;
    let inst = aqueduct_isa::gfx11::decode::decode(&kernels::SCALAR[idx..]).expect("decodes");
    assert_eq!(inst.mnemonic, "s_getpc_b64");
}

fn ulps(a: f32, b: f32) -> u32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn valu_f32_int_f64_conversions_transcendentals() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::VALU, 0, 0);
    let xf: Vec<f32> = (0..32).map(|l| (l as f32 - 10.3) * 0.37).collect();
    let xi = lcg(9, 32);
    let xd: Vec<f64> = (0..32).map(|l| l as f64 * 1.25 - 3.0).collect();
    mem.map_zeroed(BUF_A, 4 * 32 * 32);
    mem.map(BUF_B, &f32_bytes(&xf));
    mem.map(BUF_C, &u32_bytes(&xi));
    let d_bytes: Vec<u8> = xd.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.map(BUF_C + 0x1000_0000, &d_bytes);
    mem.map(
        KERNARG,
        &ptr_args(&[BUF_A, BUF_B, BUF_C, BUF_C + 0x1000_0000], &[]),
    );
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 32);
    let r = |k: usize, l: usize| out[k * 32 + l];
    let rf = |k: usize, l: usize| f32::from_bits(out[k * 32 + l]);
    for l in 0..32 {
        let (x, i, d) = (xf[l], xi[l], xd[l]);
        assert_eq!(rf(0, l), x + 1.5, "add lane {l}");
        assert_eq!(rf(1, l), (-x).mul_add(x.abs(), 2.0), "fma mods lane {l}");
        assert!(ulps(rf(2, l), x.abs().sqrt()) <= 1, "sqrt lane {l}");
        assert!(ulps(rf(3, l), 1.0 / x) <= 1, "rcp lane {l}");
        assert!(ulps(rf(4, l), x.exp2()) <= 1, "exp lane {l}");
        assert!(
            (rf(5, l) - x.abs().log2()).abs() <= 1e-6 * x.abs().log2().abs().max(1.0),
            "log lane {l}"
        );
        let t = x as f64 * std::f64::consts::TAU;
        assert!((rf(6, l) as f64 - t.sin()).abs() < 2e-6, "sin lane {l}");
        assert!((rf(7, l) as f64 - t.cos()).abs() < 2e-6, "cos lane {l}");
        assert_eq!(r(8, l), x as i32 as u32, "cvt_i32 lane {l}");
        assert_eq!(rf(9, l), i as i32 as f32, "cvt_f32_i32 lane {l}");
        assert_eq!(
            r(10, l),
            ((i as u64 * 0x9e37_79b9u64) >> 32) as u32,
            "mul_hi lane {l}"
        );
        let mad = (i as u64 * i as u64).wrapping_add(d.to_bits());
        assert_eq!(
            (r(11, l), r(12, l)),
            (mad as u32, (mad >> 32) as u32),
            "mad_u64 lane {l}"
        );
        assert_eq!(r(13, l), (i >> 5) & 0x7f, "bfe lane {l}");
        let both = (i as u64) << 32 | 0x1122_3344;
        let byte = |n: u32| ((both >> (8 * n)) & 0xff) as u32;
        assert_eq!(
            r(14, l),
            byte(1) | byte(5) << 8 | byte(3) << 16 | byte(7) << 24,
            "perm lane {l}"
        );
        assert_eq!(
            r(15, l),
            ((((i as u64) << 32) | 0xdead_beef) >> 12) as u32,
            "alignbit lane {l}"
        );
        let f = ((d + 0.5) * d).mul_add(-2.0, d);
        assert_eq!(
            r(16, l) as u64 | (r(17, l) as u64) << 32,
            f.to_bits(),
            "f64 lane {l}"
        );
        assert_eq!(rf(18, l), i as i32 as f64 as f32, "cvt f64 lane {l}");
        assert_eq!(rf(19, l), x * 8.0, "ldexp lane {l}");
        let e = if x == 0.0 {
            0
        } else {
            x.abs().log2().floor() as i32 + 1
        };
        assert_eq!(rf(20, l), x / 2f32.powi(e), "frexp mant lane {l}");
        assert_eq!(r(21, l) as i32, e, "frexp exp lane {l}");
        assert_eq!(r(22, l), l as u32, "mbcnt lane {l}");
        assert_eq!(rf(23, l), half::f16::from_f32(x).to_f32(), "f16 lane {l}");
        assert_eq!(r(24, l), xi[5], "readlane lane {l}");
        assert_eq!(
            rf(25, l),
            (x * 2.0 * 2.0).clamp(0.0, 1.0),
            "omod clamp lane {l}"
        );
        assert_eq!(r(26, l), (i ^ 0xff).wrapping_add(l as u32), "xad lane {l}");
        // v_mad_u64_u32's carry-out (an SGPR destination, not null).
        let wide = (i as u128 * i as u128) + d.to_bits() as u128;
        assert_eq!(r(27, l), (wide >> 64) as u32, "mad_u64 carry lane {l}");
    }
    // The inputs give carries on some lanes and none on others.
    let carries = (0..32).filter(|&l| r(27, l) == 1).count();
    assert!(
        0 < carries && carries < 32,
        "mad_u64 carries on {carries} lanes"
    );
}

#[test]
fn lds_barrier_eight_waves() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::LDS_BARRIER, 1024, 0);
    mem.map_zeroed(BUF_A, 2048);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let st = run_hand(&mem, kd_addr, kd, 2, 256).expect("runs");
    assert_eq!(st.waves, 16);
    let out = mem.read_u32s(BUF_A, 512);
    let lds = |j: usize| 3 * (255 - j as u32) + 1;
    for lid in 0..256 {
        assert_eq!(out[lid], lds((lid + 32) & 255), "exchange lid {lid}");
        let j = lid & 63;
        assert_eq!(
            out[256 + lid],
            lds(j + 64) + lds(j + 192),
            "2addr stride64 lid {lid}"
        );
    }
}

#[test]
fn global_and_lds_atomics() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::ATOMICS, 16, 0);
    mem.map_zeroed(BUF_A, 64);
    mem.map_zeroed(BUF_B, 4 * 256);
    mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
    run_hand(&mem, kd_addr, kd, 4, 64).expect("runs");
    let out = mem.read_u32s(BUF_A, 6);
    assert_eq!(out[0], 256);
    assert_eq!(out[1], 255);
    assert_eq!(out[2], 0u32.wrapping_sub(512));
    assert_eq!(out[3], u32::MAX);
    assert!((1..=256).contains(&out[4]), "cmpswap winner {}", out[4]);
    assert_eq!(out[5], 256);
    let mut olds = mem.read_u32s(BUF_B, 256);
    olds.sort_unstable();
    assert_eq!(
        olds,
        (0..256).collect::<Vec<u32>>(),
        "returned old values are a permutation"
    );
}

#[test]
fn exec_masking_carries_vopd_scratch_flat_private() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::EXEC_MASK, 0, 256);
    mem.map_zeroed(BUF_A, 4 * 32 * 8);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 8);
    for l in 0..32u32 {
        let r = |k: usize| out[k * 32 + l as usize];
        assert_eq!(r(0), (l < 16) as u32, "cmpx lane {l}");
        assert_eq!(r(1), if l > 20 { 7 } else { 5 }, "cndmask lane {l}");
        let v = ((l as u64) << 32 | ((l << 28) as u64)) + 0x2000_0000;
        assert_eq!((r(2), r(3)), (v as u32, (v >> 32) as u32), "carry lane {l}");
        assert_eq!(
            r(4),
            (f32::from_bits(l) + f32::from_bits(l)).to_bits(),
            "vopd x lane {l}"
        );
        assert_eq!(r(5), 3, "vopd y reads old v5, lane {l}");
        assert_eq!(r(6), 100 + l, "scratch lane {l}");
        assert_eq!(r(7), 1000 + l, "flat private aperture lane {l}");
    }
}

/// Private memory lives in the scratch backing memory, in the wave slot the
/// worker was given: exec_mask.s leaves 1000 + l at lane l's private
/// address 16 + 4l, which is dword row 4 + l of the slot, lane l's column
/// (AMDGPUUsage "Private Segment": the dwords of a wave's lanes interleave).
#[test]
fn private_memory_lives_in_the_wave_slot_of_the_backing_memory() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::EXEC_MASK, 0, 256);
    mem.map_zeroed(BUF_A, 4 * 32 * 8);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let d = Dispatch::new(
        setup(kd_addr, kd, [32, 1, 1], [32, 1, 1]),
        Arc::new(CodeCache::new()),
    )
    .unwrap();
    let mut ctx = WorkerContext::new();
    ctx.set_scratch_wave_slot(3);
    d.run_workgroup([0, 0, 0], &mem, &mut ctx).expect("runs");
    let slot = SCRATCH + 3 * SCRATCH_WAVE_BYTES;
    for l in 0..32u64 {
        let at = slot + (4 + l) * 32 * 4 + 4 * l;
        assert_eq!(mem.read_u32s(at, 1)[0], 1000 + l as u32, "lane {l}");
    }
    // Slots 0..3 belong to other workers: untouched.
    assert!(
        mem.read(SCRATCH, (3 * SCRATCH_WAVE_BYTES) as usize)
            .iter()
            .all(|&b| b == 0)
    );
}

/// Backing memory that is not mapped faults at the first private access,
/// at the lane's address in the backing memory.
#[test]
fn unmapped_scratch_backing_faults_at_the_first_private_access() {
    let mut mem = TestMem::without_scratch();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::EXEC_MASK, 0, 256);
    mem.map_zeroed(BUF_A, 4 * 32 * 8);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let e = run_hand(&mem, kd_addr, kd, 1, 32).unwrap_err();
    // Lane 0 stores first, at private address 16: dword row 4 of slot 0.
    assert_eq!(
        e.kind,
        WaveErrorKind::MemoryViolation(MemoryFault {
            address: SCRATCH + 4 * 32 * 4,
            access: Access::Write,
        })
    );
    // A kernel without private memory needs no backing memory.
    let mut mem = TestMem::without_scratch();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::SCALAR, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("no scratch needed");
}

/// A wave whose private memory does not fit the wave slots is refused.
#[test]
fn wave_slots_smaller_than_a_wave_s_private_memory_are_refused() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::EXEC_MASK, 0, 256);
    let mut s = setup(kd_addr, kd, [32, 1, 1], [32, 1, 1]);
    s.scratch.wave_bytes = 256 * 32 - 4;
    let e = Dispatch::new(s, Arc::new(CodeCache::new())).unwrap_err();
    assert!(matches!(e.kind, WaveErrorKind::InvalidDescriptor(_)), "{e}");
}

#[test]
fn unimplemented_and_undecodable_instructions() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::ILLEGAL, 0, 0);
    mem.map(KERNARG, &[0; 64]);
    let err = run_hand(&mem, kd_addr, kd, 1, 32).expect_err("illegal");
    assert_eq!(err.pc, HAND_BASE + 256 + 8);
    match err.kind {
        WaveErrorKind::IllegalInstruction { words, mnemonic } => {
            assert_eq!(mnemonic.as_deref(), Some("v_mullit_f32"));
            assert_eq!(words, kernels::ILLEGAL[2..4].to_vec());
        }
        other => panic!("{other:?}"),
    }
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, &[0xBF80_0000, 0xFFFF_FFFF], 0, 0);
    mem.map(KERNARG, &[0; 64]);
    let err = run_hand(&mem, kd_addr, kd, 1, 32).expect_err("undecodable");
    assert_eq!(err.pc, HAND_BASE + 256 + 4);
    assert!(
        matches!(
            err.kind,
            WaveErrorKind::IllegalInstruction { mnemonic: None, .. }
        ),
        "{:?}",
        err.kind
    );
}

/// Collatz steps from n to 1.
fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n & 1 != 0 { 3 * n + 1 } else { n / 2 };
        steps += 1;
    }
    steps
}

#[test]
fn wave64_clang_ballot_reduction_scan_atomics() {
    // wg 256: four full waves; wg 100: a full wave and one with 36 live lanes (exec_hi = 0xf).
    for (groups, wg) in [(3u32, 256u32), (4, 100)] {
        let mut mem = TestMem::new();
        let path = format!("{}/tests/isa_kernels/wave64.co", env!("CARGO_MANIFEST_DIR"));
        let (kd_addr, kd) = load_code_object(&mut mem, &path, "wave64");
        assert!(!kd.enable_wavefront_size32(), "built for wave64");
        let n = (groups * wg) as usize;
        let input = lcg(77 + wg, n);
        mem.map(BUF_A, &u32_bytes(&input));
        mem.map_zeroed(BUF_B, 4 * 8 * n);
        mem.map_zeroed(BUF_C, 8);
        mem.map(
            KERNARG,
            &kernargs(
                &ptr_args(&[BUF_A, BUF_B, BUF_C], &[wg]),
                [n as u32, 1, 1],
                [wg, 1, 1],
                [0; 3],
            ),
        );
        let stats = run_all(&mem, setup(kd_addr, kd, [n as u32, 1, 1], [wg, 1, 1])).expect("runs");
        assert_eq!(
            stats.waves,
            groups * wg.div_ceil(64),
            "ceil(size/64) waves per group"
        );
        let out = mem.read_u32s(BUF_B, 8 * n);
        for g in 0..groups as usize {
            let gbase = g * wg as usize;
            let group = &input[gbase..gbase + wg as usize];
            for wave in 0..(wg as usize).div_ceil(64) {
                let wbase = wave * 64;
                let live = (wg as usize - wbase).min(64);
                let x = |j: usize| group[wbase + j];
                let ballot = (0..live)
                    .filter(|&j| x(j) & 1 != 0)
                    .fold(0u64, |m, j| m | 1 << j);
                // ds_bpermute butterflies inside each 32-lane half; inactive sources read 0.
                let mut sum: Vec<u32> = (0..64)
                    .map(|j| if j < live { x(j) & 0xffff } else { 0 })
                    .collect();
                for off in [1usize, 2, 4, 8, 16] {
                    sum = (0..64)
                        .map(|j| {
                            if j < live {
                                sum[j].wrapping_add(sum[j ^ off])
                            } else {
                                0
                            }
                        })
                        .collect();
                }
                let first6 = (0..live).find(|&j| x(j) & 6 == 6).map(x);
                for j in 0..live {
                    let lid = wbase + j;
                    let i = gbase + lid;
                    let r = |k: usize| out[i * 8 + k];
                    let ctx = format!("wg {wg} group {g} lane {lid}");
                    assert_eq!(r(0), ballot as u32, "ballot lo {ctx}");
                    assert_eq!(r(1), (ballot >> 32) as u32, "ballot hi {ctx}");
                    let rank = (ballot & ((1u64 << j) - 1)).count_ones();
                    assert_eq!(r(2), rank | (j as u32) << 16, "mbcnt {ctx}");
                    let joined = sum[j]
                        .wrapping_add(sum[0] << 16)
                        .wrapping_add(sum[33] << 20);
                    assert_eq!(r(3), joined, "half reductions + readlane {ctx}");
                    let want_first = if x(j) & 6 == 6 {
                        first6.unwrap()
                    } else {
                        0xdead
                    };
                    assert_eq!(r(4), want_first, "readfirstlane {ctx}");
                    assert_eq!(r(5), collatz_steps(x(j) % 97 + 1), "divergent loop {ctx}");
                    let scan: u32 = group[..=lid].iter().map(|v| v & 0xff).sum();
                    assert_eq!(r(6), scan, "LDS scan {ctx}");
                    let odd = group.iter().filter(|v| *v & 1 != 0).count() as u32;
                    assert_eq!(r(7), odd, "LDS atomic {ctx}");
                }
            }
        }
        let c = mem.read_u32s(BUF_C, 2);
        assert_eq!(
            c[0],
            input.iter().map(|v| v & 0xff).sum::<u32>(),
            "global atomic add"
        );
        assert_eq!(c[1], *input.iter().max().unwrap(), "global atomic max");
    }
}

#[test]
fn wave64_masks_carries_exec_and_lane_crossing() {
    let mut mem = TestMem::new();
    let (kd_addr, mut kd) = hand_kernel(&mut mem, kernels::WAVE64_MASKS, 0, 16);
    kd.kernel_code_properties &= !(1 << 10); // enable_wavefront_size32 = 0: wave64
    mem.map_zeroed(BUF_A, 4 * 64 * 19);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let stats = run_hand(&mem, kd_addr, kd, 1, 64).expect("runs");
    assert_eq!(stats.waves, 1, "64 work-items are one wave64 wave");
    let out = mem.read_u32s(BUF_A, 64 * 19);
    for l in 0..64u32 {
        let r = |k: usize| out[k * 64 + l as usize];
        assert_eq!(
            r(0),
            if l >= 40 { 2 } else { 1 },
            "v_cmp vcc + cndmask lane {l}"
        );
        assert_eq!(
            r(1),
            if l & 1 != 0 { 6 } else { 5 },
            "e64 cmp s[8:9] lane {l}"
        );
        assert_eq!(r(2), l.wrapping_sub(1), "add_co lane {l}");
        assert_eq!(
            r(3),
            if l >= 1 { 0 } else { u32::MAX },
            "addc carry-in lane {l}"
        );
        assert_eq!(r(4), if l < 48 { 7 } else { 0 }, "saveexec lane {l}");
        assert_eq!(
            r(5),
            if (36..48).contains(&l) { 9 } else { 0 },
            "cmpx lane {l}"
        );
        assert_eq!(r(6), l / 2, "mbcnt of odd lanes lane {l}");
        let wl = match l {
            45 => 150, // readlane 50 of lane*3
            3 => 108,  // readfirstlane under exec = lanes 36..47
            _ => 0,
        };
        assert_eq!(r(7), wl, "readlane/writelane/readfirstlane lane {l}");
        assert_eq!(
            r(8),
            if l < 32 { 1 } else { 2 },
            "vccz/execz on 64 bits lane {l}"
        );
        assert_eq!(r(9), 0, "vcc_lo of lanes >= 40");
        assert_eq!(r(10), 0xFFFF_FF00, "vcc_hi of lanes >= 40");
        assert_eq!(r(11), 0xFFFF_FFFE, "carry-out lo");
        assert_eq!(r(12), 0xFFFF_FFFF, "carry-out hi");
        assert_eq!(r(13), 0, "exec_lo after cmpx");
        assert_eq!(r(14), 0xFFF0, "exec_hi after cmpx");
        // v_cmp_gt_u32_e64 s[20:21], v0, s20 with s20 = 40: both halves compare with 40.
        assert_eq!(r(15), 0, "mask lo of lanes > 40");
        assert_eq!(
            r(16),
            0xFFFF_FE00,
            "mask hi of lanes > 40 (high pass reads the old s20)"
        );
        assert_eq!(
            r(17),
            (l ^ 32) * 3,
            "v_permlane64 swaps the halves, lane {l}"
        );
        assert_eq!(r(18), l + 500, "private slot of lane {l}");
    }
    // A 40-item wave64 group: one wave, exec_hi = 0xff, and the high half does nothing.
    let mut mem = TestMem::new();
    let (kd_addr, mut kd) = hand_kernel(&mut mem, kernels::WAVE64_MASKS, 0, 16);
    kd.kernel_code_properties &= !(1 << 10);
    mem.map_zeroed(BUF_A, 4 * 64 * 19);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 40).expect("runs");
    let out = mem.read_u32s(BUF_A, 64 * 19);
    assert_eq!(out[39], 1);
    assert_eq!(
        out[40], 0,
        "lane 40 was inactive for v_cndmask (fresh VGPRs are 0)"
    );
    // exec = lanes 0..39: with exec_lo = 0, exec_hi = 0xff keeps execz false.
    assert_eq!(out[8 * 64 + 5], 1, "lanes 0..31 off for the execz step");
    assert_eq!(out[8 * 64 + 35], 2, "not execz while exec_hi = 0xff");
    assert_eq!(
        out[8 * 64 + 40],
        0,
        "lane 40 never active before the stores"
    );
    assert_eq!(out[6 * 64 + 39], 19, "mbcnt: odd lanes below 39");
}

#[test]
fn clang_o0_calls_recursion_and_function_pointers() {
    let mut mem = TestMem::new();
    let path = format!("{}/tests/isa_kernels/calls.co", env!("CARGO_MANIFEST_DIR"));
    let (kd_addr, kd) = load_code_object(&mut mem, &path, "calls");
    let n = 96usize;
    let input = lcg(5, n);
    mem.map(BUF_A, &u32_bytes(&input));
    mem.map_zeroed(BUF_B, 4 * 4 * n);
    mem.map(
        KERNARG,
        &kernargs(
            &ptr_args(&[BUF_A, BUF_B], &[]),
            [n as u32, 1, 1],
            [64, 1, 1],
            [0; 3],
        ),
    );
    // uses_dynamic_stack (recursion): the runtime sizes scratch beyond the fixed 128 bytes.
    let mut st = setup(kd_addr, kd, [n as u32, 1, 1], [64, 1, 1]);
    st.private_segment_size = 1024;
    run_all(&mem, st).expect("runs");
    let out = mem.read_u32s(BUF_B, 4 * n);
    let mix = |a: u32, b: u32| a.wrapping_mul(31).wrapping_add(b ^ 0x5bd1_e995);
    let fact = |k: u32| (1..=k.max(1)).fold(1u32, |p, v| p.wrapping_mul(v));
    for i in 0..n {
        let (x, iu) = (input[i], i as u32);
        assert_eq!(out[i * 4], mix(x, iu), "call {i}");
        assert_eq!(
            out[i * 4 + 1],
            mix(x, x).wrapping_add(mix(x.wrapping_add(1), 7)),
            "nested calls {i}"
        );
        assert_eq!(out[i * 4 + 2], fact(x % 10), "recursion {i}");
        let b = iu + 5;
        let want = match x % 3 {
            0 => x.wrapping_add(b),
            1 => x ^ b,
            _ => x.wrapping_mul(b),
        };
        assert_eq!(out[i * 4 + 3], want, "indirect call {i}");
    }
}

#[test]
fn shader_cycles_sethalt_and_unmodelled_messages() {
    use aqueduct_isa::realtime::realtime_ticks;
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::HWREGS, 0, 0);
    mem.map_zeroed(BUF_A, 12);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let before = realtime_ticks();
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let after = realtime_ticks();
    let out = mem.read_u32s(BUF_A, 3);
    // SHADER_CYCLES = low 20 bits of 25 x REALTIME, read within the host bracket.
    let in_bracket = |v: u32, field: fn(u64) -> u32| (before..=after).any(|t| field(t * 25) == v);
    assert!(
        in_bracket(out[0], |c| (c & 0xF_FFFF) as u32),
        "cycles {:#x}",
        out[0]
    );
    assert!(
        in_bracket(out[1], |c| ((c >> 4) & 0xFF) as u32),
        "cycles[11:4] {:#x}",
        out[1]
    );
    assert!(
        in_bracket(out[2], |c| (c & 0xF_FFFF) as u32),
        "cycles after {:#x}",
        out[2]
    );

    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::SETHALT, 0, 0);
    mem.map(KERNARG, &[0; 16]);
    let err = run_hand(&mem, kd_addr, kd, 1, 32).expect_err("halts");
    assert_eq!(err.kind, WaveErrorKind::Halt);
    assert_eq!(err.pc, kd_addr + 256 + 8, "pc of s_sethalt");
    assert!(err.to_string().contains("s_sethalt at pc"), "{err}");

    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::DOORBELL, 0, 0);
    mem.map(KERNARG, &[0; 16]);
    let err = run_hand(&mem, kd_addr, kd, 1, 32).expect_err("unmodelled");
    assert!(err.to_string().contains("MSG_RTN_GET_DOORBELL"), "{err}");
    assert!(matches!(err.kind, WaveErrorKind::IllegalInstruction { .. }));
}

#[test]
fn mubuf_resources_range_checks_and_atomics() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::MUBUF, 0, 0);
    let input = lcg(91, 64);
    let mut out_init = vec![0u8; 0x2010];
    out_init[0x1000..0x1080].fill(0xAA);
    mem.map(BUF_A, &out_init);
    mem.map(BUF_B, &u32_bytes(&input));
    mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 16 * 32);
    let bytes = u32_bytes(&input);
    let half = |h: usize| u16::from_le_bytes([bytes[2 * h], bytes[2 * h + 1]]) as u32;
    for l in 0..32usize {
        let r = |k: usize| out[k * 32 + l];
        let or0 = |ok: bool, v: u32| if ok { v } else { 0 };
        assert_eq!(
            r(0),
            or0(l * 4 + 4 <= 40, input[l]),
            "raw b32 at the end, lane {l}"
        );
        for q in 0..4 {
            let ok = l * 4 + 4 * q + 4 <= 40;
            assert_eq!(
                r(1 + q),
                or0(ok, input.get(l + q).copied().unwrap_or(0)),
                "b128 dword {q} lane {l}"
            );
        }
        assert_eq!(
            r(5),
            or0(l + 10 <= 40, bytes[l + 9] as i8 as i32 as u32),
            "i8 lane {l}"
        );
        assert_eq!(
            r(6),
            0x1234 | or0(l * 2 + 2 <= 40, half(l)) << 16,
            "d16_hi lane {l}"
        );
        assert_eq!(
            r(7),
            or0(l * 4 + 4 <= 40, input[l + 1]),
            "soffset outside the check, lane {l}"
        );
        assert_eq!(
            r(8),
            or0(l < 5, input[2 * l + 1]),
            "structured oob 0, lane {l}"
        );
        assert_eq!(r(9), 0, "offset + 4 > stride under oob 0, lane {l}");
        assert_eq!(
            r(10),
            or0(l < 5, input[(2 * l + 2) % 64]),
            "structured oob 1, lane {l}"
        );
        assert_eq!(r(11), 0, "oob 2 with num_records 0, lane {l}");
        assert_eq!(
            r(12),
            input[2 * l + 1],
            "oob 2 with num_records 1 checks nothing, lane {l}"
        );
        assert_eq!(r(13), input[3], "stride 0 with idxen, lane {l}");
        assert_eq!(r(14), input[l], "add_tid, lane {l}");
        let want_old = if l & 3 == 3 { 0 } else { (l / 4) as u32 };
        assert_eq!(r(15), want_old, "atomic add glc return, lane {l}");
    }
    let stored = mem.read_u32s(BUF_A + 0x1000, 32);
    for l in 0..32u32 {
        let want = if l < 16 { l + 100 } else { 0xAAAA_AAAA };
        assert_eq!(
            stored[l as usize], want,
            "store lane {l} (dropped past num_records)"
        );
    }
    assert_eq!(
        mem.read_u32s(BUF_A + 0x2000, 4),
        [8, 8, 8, 0],
        "atomic counters"
    );
}

/// Run kernel `name` of wmma.co once (one wave32 workgroup) on A, B, C; returns D's bytes.
fn run_wmma(name: &str, a: &[u8], b: &[u8], c: &[u8], d_len: usize) -> Vec<u8> {
    let mut mem = TestMem::new();
    let path = format!("{}/tests/isa_kernels/wmma.co", env!("CARGO_MANIFEST_DIR"));
    let (kd_addr, kd) = load_code_object(&mut mem, &path, name);
    mem.map(BUF_A, a);
    mem.map(BUF_B, b);
    mem.map(BUF_C, c);
    mem.map_zeroed(BUF_C + 0x10000, d_len);
    mem.map(
        KERNARG,
        &kernargs(
            &ptr_args(&[BUF_A, BUF_B, BUF_C, BUF_C + 0x10000], &[]),
            [32, 1, 1],
            [32, 1, 1],
            [0; 3],
        ),
    );
    run_all(&mem, setup(kd_addr, kd, [32, 1, 1], [32, 1, 1])).expect("runs");
    mem.read(BUF_C + 0x10000, d_len)
}

#[test]
fn wmma_f16_iu8_iu4_against_host_matmul() {
    use half::f16;
    let r = lcg(404, 4 * 256);
    // Values whose products and sums are exact in the output type.
    let a: Vec<f32> = (0..256)
        .map(|k| ((r[k] >> 8) % 33) as f32 / 8.0 - 2.0)
        .collect();
    let b: Vec<f32> = (0..256)
        .map(|k| ((r[256 + k] >> 8) % 33) as f32 / 8.0 - 2.0)
        .collect();
    let c: Vec<f32> = (0..256)
        .map(|k| ((r[512 + k] >> 8) % 1024) as f32 / 64.0 - 8.0)
        .collect();
    let h = |v: &[f32]| -> Vec<u8> {
        v.iter()
            .flat_map(|x| f16::from_f32(*x).to_le_bytes())
            .collect()
    };
    let matmul = |c: &[f32]| -> Vec<f32> {
        (0..256)
            .map(|e| {
                c[e] + (0..16)
                    .map(|k| a[e / 16 * 16 + k] * b[k * 16 + e % 16])
                    .sum::<f32>()
            })
            .collect()
    };
    let d = run_wmma("wmma_f32_f16", &h(&a), &h(&b), &f32_bytes(&c), 1024);
    let want = matmul(&c);
    for e in 0..256 {
        let got = f32::from_le_bytes(d[4 * e..4 * e + 4].try_into().unwrap());
        assert_eq!(got, want[e], "f32 D[{}][{}]", e / 16, e % 16);
    }
    // f16 result and f16 C in the high halves (op_sel).
    let c16: Vec<f32> = c.iter().map(|v| (v * 4.0).round() / 4.0).collect();
    let d = run_wmma("wmma_f16_hi", &h(&a), &h(&b), &h(&c16), 512);
    let want = matmul(&c16);
    for e in 0..256 {
        let got = f16::from_le_bytes([d[2 * e], d[2 * e + 1]]);
        assert_eq!(got, f16::from_f32(want[e]), "f16 D[{}][{}]", e / 16, e % 16);
    }
    // iu8: A signed, B unsigned, i32 C, wrapping sum. A row-major, B stored column-major (4 bytes per uint).
    let a8: Vec<i8> = (0..256).map(|k| r[k] as i8).collect();
    let b8: Vec<u8> = (0..256).map(|k| (r[256 + k] >> 8) as u8).collect(); // b8[n*16 + k] = B[k][n]
    let ci: Vec<i32> = (0..256).map(|k| r[512 + k] as i32 >> 4).collect();
    let bytes_i8: Vec<u8> = a8.iter().map(|v| *v as u8).collect();
    let ci_bytes: Vec<u8> = ci.iter().flat_map(|v| v.to_le_bytes()).collect();
    let d = run_wmma("wmma_iu8", &bytes_i8, &b8, &ci_bytes, 1024);
    for e in 0..256 {
        let (m, n) = (e / 16, e % 16);
        let dot: i32 = (0..16)
            .map(|k| a8[m * 16 + k] as i32 * b8[n * 16 + k] as i32)
            .sum();
        let got = i32::from_le_bytes(d[4 * e..4 * e + 4].try_into().unwrap());
        assert_eq!(got, ci[e].wrapping_add(dot), "iu8 D[{m}][{n}]");
    }
    // iu4: both signed, clamp: C near the i32 limits saturates.
    let nib = |v: u32, k: usize| ((v >> (4 * k)) << 28) as i32 >> 28;
    let a4: Vec<u32> = r[..32].to_vec(); // row m: words 2m, 2m+1
    let b4: Vec<u32> = r[256..288].to_vec(); // column n: words 2n, 2n+1
    let c4: Vec<i32> = (0..256)
        .map(|e| {
            if e % 2 == 0 {
                i32::MAX - 50
            } else {
                i32::MIN + 50
            }
        })
        .collect();
    let c4_bytes: Vec<u8> = c4.iter().flat_map(|v| v.to_le_bytes()).collect();
    let d = run_wmma(
        "wmma_iu4_clamp",
        &u32_bytes(&a4),
        &u32_bytes(&b4),
        &c4_bytes,
        1024,
    );
    let mut clamped = 0;
    for e in 0..256 {
        let (m, n) = (e / 16, e % 16);
        let dot: i64 = (0..16)
            .map(|k| nib(a4[2 * m + k / 8], k % 8) as i64 * nib(b4[2 * n + k / 8], k % 8) as i64)
            .sum();
        let exact = c4[e] as i64 + dot;
        let want = exact.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        clamped += (want as i64 != exact) as u32;
        let got = i32::from_le_bytes(d[4 * e..4 * e + 4].try_into().unwrap());
        assert_eq!(got, want, "iu4 clamp D[{m}][{n}]");
    }
    assert!(
        clamped > 20,
        "the data exercises the clamp ({clamped} saturated)"
    );
}

#[test]
fn ds_swizzle_quad_perm_and_bitmask_modes() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::SWIZZLE, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32 * 7);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 7);
    let v = |lane: usize| lane as u32 * 3 + 1;
    for l in 0..32usize {
        let r = |k: usize| out[k * 32 + l];
        assert_eq!(
            r(0),
            v((l & !3) | [1, 2, 3, 0][l & 3]),
            "quad_perm lane {l}"
        );
        // "01pip" (bits 4..0): force 0, force 1, preserve, invert, preserve.
        let bm = 0b01000 | (l & 0b100) | (!l & 0b10) | (l & 1);
        assert_eq!(r(1), v(bm), "bitmask_perm lane {l}");
        assert_eq!(r(2), v(l ^ 16), "swap 16 lane {l}");
        assert_eq!(r(3), v(l ^ 7), "reverse 8 lane {l}");
        assert_eq!(r(4), v((l & !7) | 5), "broadcast 8,5 lane {l}");
        assert_eq!(r(5), v(l | 3), "offset 0xffff lane {l}");
        let partial = if l < 16 { 0 } else { 77 };
        assert_eq!(
            r(6),
            partial,
            "inactive sources read 0, inactive lanes kept, lane {l}"
        );
    }
}

#[test]
fn fmac_f16_low_and_high_halves() {
    use half::f16;
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::FMAC_F16, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 64);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 64);
    let third = f16::from_bits(0x3555).to_f64();
    for l in 0..32 {
        let lo = f16::from_f64(l as f64 * third + 0.5);
        assert_eq!(out[l] as u16, lo.to_bits(), "e32 lane {l}");
        let hi = f16::from_f64(-(l as f64) * third + 1.0);
        assert_eq!(
            (out[32 + l] >> 16) as u16,
            hi.to_bits(),
            "e64 op_sel hi lane {l}"
        );
        assert_eq!(
            out[32 + l] & 0xFFFF,
            0x3800,
            "e64 keeps the low half, lane {l}"
        );
    }
}

#[test]
fn movrel_vgpr_indexing_by_m0() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::MOVREL, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 128);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 128);
    for l in 0..32u32 {
        let r = |k: usize| out[k * 32 + l as usize];
        assert_eq!(r(0), l + 30, "movrels v6 = v[2 + 2], lane {l}");
        assert_eq!(r(1), l + 20, "movreld v[5 + 2] = v3, lane {l}");
        assert_eq!(r(2), l + 30, "movrelsd v[7 + 1] = v[3 + 1], lane {l}");
        assert_eq!(r(3), l + 40, "movrelsd_2 v[7 + 2] = v[3 + 2], lane {l}");
    }
}

#[test]
fn dpp_and_permlane_lane_movement() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::DPP, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32 * 7);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 7);
    for l in 0..32u32 {
        let r = |k: usize| out[k * 32 + l as usize];
        let i = l & 15;
        assert_eq!(r(0), if i == 0 { 100 } else { l - 1 }, "row_shr lane {l}");
        assert_eq!(r(1), (l ^ 1) + l, "row_xmask lane {l}");
        assert_eq!(r(2), (l & !3) | (3 - (l & 3)), "quad_perm lane {l}");
        assert_eq!(r(3), (l & !7) | (7 - (l & 7)), "dpp8 lane {l}");
        assert_eq!(
            r(4),
            if i == 15 { 0 } else { l + 1 },
            "row_shl bound_ctrl lane {l}"
        );
        assert_eq!(r(5), l ^ 16, "permlanex16 lane {l}");
        assert_eq!(
            r(6),
            if l >= 16 { (l & !15) + 15 - i } else { 7 },
            "row_mirror row_mask lane {l}"
        );
    }
}

#[test]
fn clang_division_and_sqrt_sequences() {
    let mut mem = TestMem::new();
    let path = format!("{}/tests/isa_kernels/div.co", env!("CARGO_MANIFEST_DIR"));
    let (kd_addr, kd) = load_code_object(&mut mem, &path, "div");
    let n = 128usize;
    let r = lcg(21, 4 * n);
    let mut a: Vec<f32> = (0..n)
        .map(|k| f32::from_bits(r[k] & 0x7FFF_FFFF) * if k % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let mut b: Vec<f32> = (0..n)
        .map(|k| f32::from_bits((r[n + k] % 0x7F00_0000) | 0x0080_0000))
        .collect();
    // Hand-picked cases that take the scaling paths and the special-value fixups.
    let special = [
        (1.0e-38f32, 3.0e38f32),
        (3.0e38, 1.0e-30),
        (1.0e-45, 7.0),
        (5.0, 0.0),
        (0.0, 0.0),
        (f32::INFINITY, 2.0),
        (1.0, f32::INFINITY),
        (-7.5, 2.5),
        (1.0, 3.0),
        (2.0e-40, 3.0e-41),
    ];
    for (k, (x, y)) in special.iter().enumerate() {
        a[k] = *x;
        b[k] = *y;
    }
    let da: Vec<f64> = (0..n)
        .map(|k| {
            f64::from_bits(((r[k] as u64) << 32 | r[2 * n + k] as u64) & 0x7FEF_FFFF_FFFF_FFFF)
        })
        .collect();
    let db: Vec<f64> = (0..n)
        .map(|k| {
            f64::from_bits(
                (((r[3 * n + k] as u64) << 29 | r[k] as u64) % 0x7FE0_0000_0000_0000)
                    | 0x0010_0000_0000_0000,
            )
        })
        .collect();
    let ia: Vec<i32> = (0..n).map(|k| r[2 * n + k] as i32).collect();
    let ib: Vec<i32> = (0..n)
        .map(|k| ((r[3 * n + k] >> (k % 31)) as i32).max(1) * if k % 2 == 0 { 1 } else { -1 })
        .collect();
    let bufs: Vec<u64> = (0..12)
        .map(|k| 0x4000_0000_0000 + (k as u64) * 0x10_0000)
        .collect();
    mem.map(bufs[0], &f32_bytes(&a));
    mem.map(bufs[1], &f32_bytes(&b));
    mem.map_zeroed(bufs[2], 4 * n);
    mem.map(
        bufs[3],
        &da.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    mem.map(
        bufs[4],
        &db.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    mem.map_zeroed(bufs[5], 8 * n);
    mem.map(
        bufs[6],
        &ia.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    mem.map(
        bufs[7],
        &ib.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    );
    mem.map_zeroed(bufs[8], 4 * n);
    mem.map_zeroed(bufs[9], 4 * n);
    mem.map_zeroed(bufs[10], 4 * n);
    mem.map_zeroed(bufs[11], 8 * n);
    mem.map(
        KERNARG,
        &kernargs(&ptr_args(&bufs, &[]), [n as u32, 1, 1], [64, 1, 1], [0; 3]),
    );
    run_all(&mem, setup(kd_addr, kd, [n as u32, 1, 1], [64, 1, 1])).expect("runs");
    let out = mem.read_f32s(bufs[2], n);
    let f64s = |addr: u64| -> Vec<f64> {
        mem.read(addr, 8 * n)
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let dout = f64s(bufs[5]);
    let iout = mem.read_u32s(bufs[8], n);
    let uout = mem.read_u32s(bufs[9], n);
    let sq = mem.read_f32s(bufs[10], n);
    let dsq = f64s(bufs[11]);
    for k in 0..n {
        let want = a[k] / b[k];
        assert!(
            out[k].to_bits() == want.to_bits() || (out[k].is_nan() && want.is_nan()),
            "f32 {} / {} = {} want {want}",
            a[k],
            b[k],
            out[k]
        );
        assert_eq!(
            dout[k].to_bits(),
            (da[k] / db[k]).to_bits(),
            "f64 {} / {}",
            da[k],
            db[k]
        );
        let (x, y) = (ia[k], ib[k]);
        assert_eq!(
            iout[k] as i32,
            x.wrapping_div(y)
                .wrapping_add(1000i32.wrapping_mul(x.wrapping_rem(y))),
            "int {x} / {y}"
        );
        assert_eq!(uout[k], x as u32 / y as u32, "uint {x} / {y}");
        let s = (a[k] * a[k]).sqrt();
        assert!(
            sq[k].to_bits() == s.to_bits() || (sq[k].is_nan() && s.is_nan()),
            "sqrtf({}) = {} want {s}",
            a[k] * a[k],
            sq[k]
        );
        let ds = (da[k] * da[k] + 1.0).sqrt();
        assert!(
            ulps64(dsq[k], ds) <= 1,
            "sqrt({}) = {} want {ds}",
            da[k] * da[k] + 1.0,
            dsq[k]
        );
    }
}

fn ulps64(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    (a.to_bits() as i128 - b.to_bits() as i128).unsigned_abs() as u64
}

#[test]
fn clang_feature_mix() {
    let mut mem = TestMem::new();
    let path = format!(
        "{}/tests/isa_kernels/features.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let (kd_addr, kd) = load_code_object(&mut mem, &path, "features");
    let n = 128usize;
    let input = lcg(33, n);
    mem.map(BUF_A, &u32_bytes(&input));
    mem.map_zeroed(BUF_B, 4 * 8 * n);
    mem.map_zeroed(BUF_C, 4);
    mem.map(BUF_C + 0x1000, &i32::MAX.to_le_bytes());
    mem.map(
        KERNARG,
        &kernargs(
            &ptr_args(&[BUF_A, BUF_B, BUF_C, BUF_C + 0x1000], &[]),
            [n as u32, 1, 1],
            [64, 1, 1],
            [0; 3],
        ),
    );
    run_all(&mem, setup(kd_addr, kd, [n as u32, 1, 1], [64, 1, 1])).expect("runs");
    let out = mem.read_u32s(BUF_B, 8 * n);
    for i in 0..n {
        let x = input[i];
        let r = |k: usize| out[i * 8 + k];
        let w = (x as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((x as u64) << 40);
        assert_eq!(r(0), (w >> 32) as u32 ^ w as u32, "u64 math {i}");
        assert_eq!(
            r(1),
            x.count_ones()
                + (x | 1).leading_zeros() * 100
                + (x | 0x8000_0000).trailing_zeros() * 10000,
            "bits {i}"
        );
        let h = half::f16::from_f32((x & 0xffff) as f32 / 4096.0);
        let h2 = f16_rounded_once(h.to_f64() * h.to_f64() + 0.5);
        assert_eq!(r(2), h2.to_bits() as u32, "half {i}");
        let p = |k: u32| x.wrapping_mul(k + 1);
        assert_eq!(
            r(3),
            p(x & 15).wrapping_add(p((x >> 4) & 15)),
            "private array {i}"
        );
        let wave = i / 32 * 32;
        let sum: u32 = (wave..wave + 32).map(|j| input[j] & 0xff).sum();
        assert_eq!(r(4), sum, "bpermute reduction {i}");
        let sw = match x % 5 {
            0 => x.wrapping_add(7),
            1 => x.wrapping_mul(3),
            2 => x ^ 0x55aa,
            3 => x >> 3,
            _ => !x,
        };
        assert_eq!(r(5), sw, "switch {i}");
        let sx = x as i32 as i64;
        assert_eq!(
            r(6),
            (((sx * sx) >> 17) as u32).wrapping_add((sx / 7) as u32),
            "i64 {i}"
        );
        assert_eq!(
            r(7),
            (((x as u64 * 0xdead_beef) >> 32) as u32).wrapping_add(x.rotate_left(13)),
            "mul_hi rotate {i}"
        );
    }
    let fsum: f32 = input.iter().map(|x| (x & 0xf) as f32).sum();
    assert_eq!(mem.read_f32s(BUF_C, 1)[0], fsum, "float atomic add");
    let imin = input.iter().map(|&x| x as i32).min().unwrap();
    assert_eq!(
        mem.read_u32s(BUF_C + 0x1000, 1)[0] as i32,
        imin,
        "atomic min"
    );
}

#[test]
fn flat_shared_aperture_and_packed_math() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::FLAT_LDS, 256, 0);
    mem.map_zeroed(BUF_A, 4 * 32 * 7);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 7);
    let f16 = |v: f32| half::f16::from_f32(v);
    for l in 0..32u32 {
        let r = |k: usize| out[k * 32 + l as usize];
        assert_eq!(r(0), 0x500 + l, "flat store -> ds load, lane {l}");
        assert_eq!(r(1), 0x77, "ds store -> flat load, lane {l}");
        assert_eq!(r(2), 0x77, "flat atomic returns the old value, lane {l}");
        assert_eq!(r(3), 0x77 + l, "flat atomic on LDS, lane {l}");
        let (lo, hi) = (f16(l as f32), f16(l as f32 + 1.0));
        let pk = |a: half::f16, b: half::f16| a.to_bits() as u32 | (b.to_bits() as u32) << 16;
        assert_eq!(
            r(4),
            pk(
                f16(lo.to_f32() * lo.to_f32()),
                f16(hi.to_f32() * hi.to_f32())
            ),
            "pk_mul lane {l}"
        );
        let bits = pk(lo, hi);
        let add16 = |x: u32, s: u32| ((x >> s) as u16).wrapping_add(1) as u32;
        assert_eq!(
            r(5),
            add16(bits, 0) | add16(bits, 16) << 16,
            "pk_add_u16 lane {l}"
        );
        // op_sel:[1,0,0] op_sel_hi:[0,1,1]: low = hi*lo + lo, high = lo*hi + hi.
        let fma = |a: half::f16, b: half::f16, c: half::f16| {
            f16_rounded_once(a.to_f64() * b.to_f64() + c.to_f64())
        };
        assert_eq!(
            r(6),
            pk(fma(hi, lo, lo), fma(lo, hi, hi)),
            "pk_fma op_sel lane {l}"
        );
    }
}

#[test]
fn code_cache_invalidation() {
    // v_mov_b32 v1, 5 ; global_store_b32 v0(=0 offset), v1, s[4:5] after loading the pointer.
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::SCALAR, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let code = Arc::new(CodeCache::new());
    let s = setup(kd_addr, kd, [32, 1, 1], [32, 1, 1]);
    let mut ctx = WorkerContext::new();
    Dispatch::new(s.clone(), code.clone())
        .unwrap()
        .run_workgroup([0, 0, 0], &mem, &mut ctx)
        .unwrap();
    assert_eq!(mem.read_u32s(BUF_A + 12, 1)[0], 55);
    // Patch the loop bound (s_cmp_le_i32 s14, 10 -> 20): its inline constant is in the first dword.
    let idx = kernels::SCALAR
        .iter()
        .position(|w| *w == 0xBF05_8A0E)
        .expect("s_cmp_le_i32 s14, 10");
    let addr = HAND_BASE + 256 + 4 * idx as u64;
    let p = mem.translate(addr, 4, Access::Write).unwrap();
    // SAFETY: p points at 4 mapped bytes of the test memory.
    unsafe { std::ptr::write_unaligned(p as *mut u32, 0xBF05_940E) };
    Dispatch::new(s.clone(), code.clone())
        .unwrap()
        .run_workgroup([0, 0, 0], &mem, &mut ctx)
        .unwrap();
    assert_eq!(
        mem.read_u32s(BUF_A + 12, 1)[0],
        55,
        "stale decoded code until invalidated"
    );
    code.invalidate(addr, 4);
    Dispatch::new(s, code.clone())
        .unwrap()
        .run_workgroup([0, 0, 0], &mem, &mut ctx)
        .unwrap();
    assert_eq!(
        mem.read_u32s(BUF_A + 12, 1)[0],
        210,
        "sum 1..20 after invalidation"
    );
}

/// Host IEEE-mode max (RDNA3 v_max_*): a NaN operand yields the other one,
/// and -0 orders below +0.
fn host_max(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, _) => b,
        (_, true) => a,
        _ if a == 0.0 && b == 0.0 => f32::from_bits(a.to_bits() & b.to_bits()),
        _ => a.max(b),
    }
}

/// Host IEEE-mode min: see [`host_max`].
fn host_min(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, _) => b,
        (_, true) => a,
        _ if a == 0.0 && b == 0.0 => f32::from_bits(a.to_bits() | b.to_bits()),
        _ => a.min(b),
    }
}

/// Bit-exact float comparison where any NaN matches any NaN.
fn same_f32(got: u32, want: f32) -> bool {
    (want.is_nan() && f32::from_bits(got).is_nan()) || got == want.to_bits()
}

#[test]
fn fused_maxmin_minmax() {
    const N: usize = 2048;
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -3.75,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x0000_0123), // denormal
        1e30,
        -1e-30,
    ];
    // Every (a, b, c) triple of specials (1728), then raw random words.
    let rnd = lcg(77, 3 * N);
    let n_s = specials.len();
    let pick = |g: usize, k: usize| -> u32 {
        if g < n_s * n_s * n_s {
            let idx = [g % n_s, (g / n_s) % n_s, g / (n_s * n_s)];
            specials[idx[k]].to_bits()
        } else {
            rnd[3 * g + k]
        }
    };
    let [a, b, c]: [Vec<u32>; 3] = std::array::from_fn(|k| (0..N).map(|g| pick(g, k)).collect());
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::MAXMIN, 0, 0);
    mem.map_zeroed(BUF_A, 4 * N * 12);
    mem.map(BUF_B, &u32_bytes(&a));
    mem.map(BUF_C, &u32_bytes(&b));
    mem.map(BUF_C + 0x1000_0000, &u32_bytes(&c));
    mem.map(
        KERNARG,
        &ptr_args(&[BUF_A, BUF_B, BUF_C, BUF_C + 0x1000_0000], &[]),
    );
    run_hand(&mem, kd_addr, kd, (N / 32) as u32, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, N * 12);
    let r = |k: usize, g: usize| out[k * N + g];
    let clamp = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let h = |bits: u32| half::f16::from_bits(bits as u16).to_f32();
    let to_h = |x: f32| half::f16::from_f32(x);
    for g in 0..N {
        let (fa, fb, fc) = (
            f32::from_bits(a[g]),
            f32::from_bits(b[g]),
            f32::from_bits(c[g]),
        );
        let ctx = format!("g {g}: {fa:e} {fb:e} {fc:e}");
        let want = host_min(host_max(fa, fb), fc);
        assert!(same_f32(r(0, g), want), "maxmin_f32 {ctx}: {:#x}", r(0, g));
        let want = host_max(host_min(fa, fb), fc);
        assert!(same_f32(r(1, g), want), "minmax_f32 {ctx}: {:#x}", r(1, g));
        let want = clamp(host_min(host_max(-fa, fb.abs()), fc));
        assert!(same_f32(r(2, g), want), "maxmin_f32 mods {ctx}");
        let want = host_max(host_min(fa, fb), -fc) * 2.0;
        assert!(same_f32(r(3, g), want), "minmax_f32 mul:2 {ctx}");
        let (ia, ib, ic) = (a[g] as i32, b[g] as i32, c[g] as i32);
        assert_eq!(r(4, g) as i32, ia.max(ib).min(ic), "maxmin_i32 {g}");
        assert_eq!(r(5, g) as i32, ia.min(ib).max(ic), "minmax_i32 {g}");
        assert_eq!(r(6, g), a[g].max(b[g]).min(c[g]), "maxmin_u32 {g}");
        assert_eq!(r(7, g), a[g].min(b[g]).max(c[g]), "minmax_u32 {g}");
        let (la, lb, lc) = (h(a[g]), h(b[g]), h(c[g]));
        let (ha, hb, hc) = (h(a[g] >> 16), h(b[g] >> 16), h(c[g] >> 16));
        let f16_cases = [
            (8, to_h(host_min(host_max(la, lb), lc)), "maxmin_f16"),
            (9, to_h(host_max(host_min(la, lb), lc)), "minmax_f16"),
            (
                10,
                to_h(host_min(host_max(-ha, hb), hc.abs())),
                "maxmin_f16 mods",
            ),
            (
                11,
                to_h(clamp(host_max(host_min(ha, -hb), hc))),
                "minmax_f16 clamp",
            ),
        ];
        for (k, want, what) in f16_cases {
            let got = r(k, g);
            assert_eq!(got >> 16, 0, "{what} {g}: high half kept");
            let ok = (want.is_nan() && half::f16::from_bits(got as u16).is_nan())
                || got as u16 == want.to_bits();
            assert!(ok, "{what} {g}: got {got:#x} want {:#x}", want.to_bits());
        }
    }
}

#[test]
fn sendmsg_rtn_realtime_tma_tba() {
    // Two dispatches 20 ms apart (host sleep) inside a host-timed bracket:
    // REALTIME must advance at 100 MHz of wall time and never go backwards.
    let run_once = || {
        let mut mem = TestMem::new();
        let (kd_addr, kd) = hand_kernel(&mut mem, kernels::REALTIME, 0, 0);
        mem.map_zeroed(BUF_A, 4 * 9);
        mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
        run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
        mem.read_u32s(BUF_A, 9)
    };
    let t0 = std::time::Instant::now();
    let first = run_once();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = run_once();
    let bracket_ticks = t0.elapsed().as_nanos() as u64 / 10;
    let mut reads = Vec::new();
    for out in [&first, &second] {
        let r0 = out[0] as u64 | (out[1] as u64) << 32;
        let r1 = out[3] as u64 | (out[4] as u64) << 32;
        assert!(r0 <= r1, "monotonic within a wave: {r0} {r1}");
        // The b32 read sits between the two b64 reads: its low word too.
        assert!(
            out[2].wrapping_sub(r0 as u32) as u64 <= r1 - r0,
            "b32 read {} between {r0} and {r1}",
            out[2]
        );
        assert_eq!(&out[5..9], &[0, 0, 0, 0], "TMA and TBA are null");
        reads.push((r0, r1));
    }
    let (first_r, second_r) = (reads[0].1, reads[1].0);
    let dt = second_r - first_r;
    assert!(
        dt >= 2_000_000,
        "20 ms sleep is >= 2e6 ticks at 100 MHz: {dt}"
    );
    assert!(
        dt <= bracket_ticks + 1,
        "{dt} ticks exceed the host bracket of {bracket_ticks}"
    );
}

/// An unsigned small float (11 bits: 6-bit mantissa, 10 bits: 5) as f32,
/// from its definition: 2^(e-15) * (1 + m/2^mbits), denormals 2^-14 * m/2^mbits.
fn small_float(raw: u32, width: u32) -> f32 {
    let mbits = width - 5;
    let (e, m) = (raw >> mbits, raw & ((1 << mbits) - 1));
    let frac = m as f32 / (1u32 << mbits) as f32;
    match e {
        0 => frac * 2f32.powi(-14),
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + frac) * 2f32.powi(e as i32 - 15),
    }
}

fn sext_bits(v: u32, width: u32) -> i32 {
    ((v << (32 - width)) as i32) >> (32 - width)
}

#[test]
fn mtbuf_formats_dst_sel_mubuf_literal_soffset_vop3p_dpp() {
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::MTBUF, 0, 0);
    let input = lcg(77, 64);
    mem.map_zeroed(BUF_A, 0x1400);
    mem.map(BUF_B, &u32_bytes(&input));
    mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 20 * 32);
    for l in 0..32usize {
        let r = |k: usize| out[k * 32 + l];
        let rf = |k: usize| f32::from_bits(r(k));
        // Lanes 16.. are past num_records (64 bytes): zero bits.
        let d = if l < 16 { input[l] } else { 0 };
        let byte = |c: u32| (d >> (8 * c)) & 0xFF;
        for c in 0..4 {
            assert_eq!(
                rf(c as usize),
                byte(c) as f32 / 255.0,
                "8_8_8_8 unorm {c}, lane {l}"
            );
        }
        for c in 0..2 {
            let v = sext_bits(d >> (16 * c), 16) as f32 / 32767.0;
            assert_eq!(rf(4 + c as usize), v.max(-1.0), "16_16 snorm {c}, lane {l}");
        }
        let packed = [(d & 0x7FF, 11), ((d >> 11) & 0x7FF, 11), (d >> 22, 10)];
        for (c, (raw, width)) in packed.into_iter().enumerate() {
            let want = small_float(raw, width);
            let got = rf(6 + c);
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "10_11_11 float {c}, lane {l}: {got} vs {want}"
            );
        }
        assert_eq!(rf(9), 1.0, "missing w reads 1.0, lane {l}");
        assert_eq!(
            r(10) as i32,
            sext_bits(d, 10),
            "2_10_10_10 sint x, lane {l}"
        );
        assert_eq!(
            r(11) as i32,
            sext_bits(d >> 30, 2),
            "2_10_10_10 sint w, lane {l}"
        );
        let sscaled = |c: u32| half::f16::from_f32(sext_bits(byte(c), 8) as f32).to_bits() as u32;
        assert_eq!(
            r(12),
            sscaled(0) | sscaled(1) << 16,
            "d16 sscaled xy, lane {l}"
        );
        assert_eq!(r(13), sscaled(2), "d16 sscaled z, lane {l}");
        assert_eq!(
            [r(14), r(15), r(16), r(17)],
            [byte(3), byte(2), 1, 0],
            "dst_sel w,z,1,0, lane {l}"
        );
        let lit = if l < 16 { input[25 + l] } else { 0 };
        assert_eq!(r(18), lit, "MUBUF literal soffset, lane {l}");
        let dot = if l % 16 == 15 {
            7.0
        } else {
            2.0 * (l + 1) as f32 + 3.5
        };
        assert_eq!(rf(19), dot, "v_dot2_f32_f16 row_shl:1, lane {l}");
    }
    let stores = mem.read_u32s(BUF_A + 0x1000, 0x300 / 4);
    for l in 0..32usize {
        let x = ((l as f32 * 0.0625 - 1.0) * 127.0).round_ties_even() as i8 as u8 as u32;
        let want = x | 127 << 8 | 0x81 << 16;
        assert_eq!(
            stores[l], want,
            "8_8_8_8 snorm store (2.0, -2.0, NaN), lane {l}"
        );
        assert_eq!(
            stores[64 + l],
            0xC500_3C00,
            "d16 16_16 float store, lane {l}"
        );
        // x = (l+1)/2 exactly: exponent from the leading bit of n = l+1.
        let n = l as u32 + 1;
        let e2 = 31 - n.leading_zeros();
        let x = (e2 + 14) << 6 | ((n - (1 << e2)) << 6 >> e2);
        let y = 15 << 6 | 32;
        let z = 21 << 5 | 18;
        assert_eq!(
            stores[128 + l],
            x | y << 11 | z << 22,
            "10_11_11 float store, lane {l}"
        );
    }
}

/// ds_bpermute_b32 / ds_permute_b32 in wave64 address lanes within the
/// issuing lane's 32-lane half (address bits [6:2] select the lane, modulo
/// 32). Evidence: AMD's LLPC compiler lowers a full-wave64 subgroupShuffle on
/// gfx11 to v_permlane64_b32 plus two ds_bpermute_b32 (its lit tests,
/// GPUOpen-Drivers/llpc), and Mesa's ACO emulates a wave64 bpermute on gfx10+
/// with a half swap and two bpermutes; neither would be needed if the
/// instruction crossed halves. (The RDNA3 ISA guide's own wording could not
/// be located through the reference search.)
#[test]
fn wave64_bpermute_and_permute_stay_in_each_half() {
    let mut mem = TestMem::new();
    let (kd_addr, mut kd) = hand_kernel(&mut mem, kernels::WAVE64_BPERMUTE, 0, 0);
    kd.kernel_code_properties &= !(1 << 10); // wave64
    mem.map_zeroed(BUF_A, 4 * 64 * 3);
    mem.map(KERNARG, &ptr_args(&[BUF_A], &[]));
    let stats = run_hand(&mem, kd_addr, kd, 1, 64).expect("runs");
    assert_eq!(stats.waves, 1);
    let out = mem.read_u32s(BUF_A, 64 * 3);
    let active = |l: usize| !(40..48).contains(&l);
    let value = |src: usize| if active(src) { 100 * src as u32 } else { 0 };
    for l in 0..64usize {
        let base = l / 32 * 32;
        let r = |k: usize| out[k * 64 + l];
        let reversed = base + 31 - l % 32;
        let want = |src: usize| if active(l) { value(src) } else { 7 };
        assert_eq!(r(0), want(reversed), "bpermute lane {l}");
        assert_eq!(r(1), want(reversed), "permute lane {l}");
        assert_eq!(
            r(2),
            want(base + (32 - l % 32) % 32),
            "bpermute offset:4 lane {l}"
        );
    }
}

/// Image and export instructions (never in compute kernels) stop the wave
/// with a typed IllegalInstruction naming the instruction: `image_sample
/// v[0:3], v[0:1], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D` (MIMG is
/// named by the decoder, not decoded) and `exp mrt0 v0, v0, v0, v0 done`.
#[test]
fn image_and_export_instructions_are_named_illegal() {
    for (words, name) in [
        ([0xF06C_0F04u32, 0x0800_0000], "image_sample"),
        ([0xF800_080F, 0x0000_0000], "exp"),
    ] {
        let mut mem = TestMem::new();
        let code = [words[0], words[1], 0xBFB0_0000];
        let (kd_addr, kd) = hand_kernel(&mut mem, &code, 0, 0);
        mem.map(KERNARG, &[0; 64]);
        let err = run_hand(&mem, kd_addr, kd, 1, 32).expect_err(name);
        assert_eq!(err.pc, HAND_BASE + 256, "{name}");
        match err.kind {
            WaveErrorKind::IllegalInstruction { words: w, mnemonic } => {
                assert_eq!(mnemonic.as_deref(), Some(name));
                assert_eq!(w, words.to_vec(), "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn cvt_16bit_int_and_normalized_f16_conversions() {
    use half::f16;
    // Low halves: integers around the f16 rounding/saturation edges, then f16
    // patterns (1, -1, 0.5, -2.4, 15, 65504, +-inf, NaN, -0, denormal...).
    let pats: [u16; 32] = [
        0, 1, 255, 1000, 2049, 2051, 32767, 32768, 65535, 65504, 65519, 65520, 0xFFFE, 0x8001,
        0x3C00, 0xBC00, 0x3800, 0xC0CD, 0x4B80, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x8000,
        0x0001, 0x5A00, 0xDA00, 0x7A00, 0xFA00, 0x3BFF, 0xB3FF,
    ];
    let input: Vec<u32> = pats.iter().map(|&p| 0x5A5A_0000 | p as u32).collect();
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::CVT16, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32 * 11);
    mem.map(BUF_B, &u32_bytes(&input));
    mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 11);
    for (l, &p) in pats.iter().enumerate() {
        let h = f16::from_bits(p).to_f32();
        let block = |k: usize| out[32 * k + l];
        assert_eq!(
            block(0) as u16,
            f16::from_f32(p as f32).to_bits(),
            "f16_u16 {p:#x}"
        );
        let from_i16 = f16::from_f32(p as i16 as f32);
        assert_eq!(block(1) as u16, from_i16.to_bits(), "f16_i16 {p:#x}");
        assert_eq!(block(2) as u16, h as u16, "u16_f16 {p:#x}");
        assert_eq!(block(3) as u16, h as i16 as u16, "i16_f16 {p:#x}");
        assert_eq!(block(4), p as i16 as i32 as u32, "i32_i16 {p:#x}");
        assert_eq!(block(5), p as u32, "u32_u16 {p:#x}");
        let clamped = f16::from_f32((p as i16 as f32).clamp(0.0, 1.0));
        assert_eq!(
            block(6) & 0xFFFF,
            clamped.to_bits() as u32,
            "f16_i16 clamp {p:#x}"
        );
    }
    // Normalized: clamp, scale, round to nearest even, NaN -> 0.
    let norm = |p: u16, signed: bool| -> u16 {
        let x = f16::from_bits(p).to_f64();
        match (x.is_nan(), signed) {
            (true, _) => 0,
            (false, true) => (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16,
            (false, false) => (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16,
        }
    };
    for (l, &p) in pats.iter().enumerate() {
        let block = |k: usize| out[32 * k + l];
        assert_eq!(block(7), norm(p, true) as u32, "norm_i16 {p:#x}");
        assert_eq!(block(8), norm(p, false) as u32, "norm_u16 {p:#x}");
        let pk_i = norm(p, true) as u32 | (norm(p ^ 0x8000, true) as u32) << 16;
        assert_eq!(block(9), pk_i, "pk_norm_i16 {p:#x}");
        let pk_u = norm(p, false) as u32 | (norm(0x5A5A, false) as u32) << 16;
        assert_eq!(block(10), pk_u, "pk_norm_u16 {p:#x}");
    }
    // 0.5 and -0.5 are ties: 16383.5 rounds to even.
    assert_eq!(out[32 * 7 + 16], 16384);
    assert_eq!(out[32 * 9 + 16] >> 16, (-16384i16) as u16 as u32);
    // The e32 16-bit results leave their register's high half as it was.
    assert!((0..4).all(|k| (0..32).all(|l| out[32 * k + l] >> 16 == 0)));
    assert!((0..32).all(|l| out[32 * 6 + l] >> 16 == 0x1234));
}

#[test]
fn cvt_pk_32bit_to_16bit_halves() {
    // Read as f32 and as i32: normalized ties and edges, saturation of both
    // kinds, NaN, infinities, truncation toward zero.
    let vals: [f32; 16] = [
        0.0,
        0.5,
        -0.25,
        1.0,
        1.5,
        -3.7,
        32767.5,
        40000.0,
        70000.9,
        -40000.0,
        f32::NAN,
        f32::INFINITY,
        1e-30,
        0.999_99,
        65535.9,
        -0.0,
    ];
    let ints: [i32; 16] = [
        0,
        1,
        -1,
        32767,
        32768,
        -32768,
        -32769,
        65535,
        65536,
        70000,
        -70000,
        i32::MAX,
        i32::MIN,
        12345,
        -12345,
        0x7FFF_0000,
    ];
    let input: Vec<u32> = vals
        .iter()
        .map(|f| f.to_bits())
        .chain(ints.iter().map(|&i| i as u32))
        .collect();
    let mut mem = TestMem::new();
    let (kd_addr, kd) = hand_kernel(&mut mem, kernels::CVT_PK32, 0, 0);
    mem.map_zeroed(BUF_A, 4 * 32 * 6);
    mem.map(BUF_B, &u32_bytes(&input));
    mem.map(KERNARG, &ptr_args(&[BUF_A, BUF_B], &[]));
    run_hand(&mem, kd_addr, kd, 1, 32).expect("runs");
    let out = mem.read_u32s(BUF_A, 32 * 6);
    let norm = |x: f32, signed: bool| -> u32 {
        let x = x as f64;
        let v = match (x.is_nan(), signed) {
            (true, _) => 0,
            (false, true) => (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16,
            (false, false) => (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16,
        };
        v as u32
    };
    let pack = |lo: u32, hi: u32| lo | hi << 16;
    for (l, &w) in input.iter().enumerate() {
        let (x, y) = (f32::from_bits(w), f32::from_bits(w ^ 0x8000_0000));
        let (a, b) = (w as i32, (w ^ 0x8000_0000) as i32);
        let block = |k: usize| out[32 * k + l];
        assert_eq!(
            block(0),
            pack(norm(x, true), norm(y, true)),
            "pk_norm_i16 {w:#x}"
        );
        assert_eq!(
            block(1),
            pack(norm(x, false), norm(y, false)),
            "pk_norm_u16 {w:#x}"
        );
        let i16s = |f: f32| f as i16 as u16 as u32;
        assert_eq!(block(2), pack(i16s(x), i16s(y)), "pk_i16_f32 {w:#x}");
        assert_eq!(
            block(3),
            pack(x as u16 as u32, y as u16 as u32),
            "pk_u16_f32 {w:#x}"
        );
        let sat_i = |v: i32| v.clamp(-32768, 32767) as i16 as u16 as u32;
        assert_eq!(block(4), pack(sat_i(a), sat_i(b)), "pk_i16_i32 {w:#x}");
        let sat_u = |v: i32| (v as u32).min(0xFFFF);
        assert_eq!(block(5), pack(sat_u(a), sat_u(b)), "pk_u16_u32 {w:#x}");
    }
    // Spot values: 0.5 -> 16384 (tie to even), -3.7 -> -3, 70000 -> 0xffff.
    assert_eq!(out[1] & 0xFFFF, 16384);
    assert_eq!(out[32 * 2 + 5] & 0xFFFF, (-3i16) as u16 as u32);
    assert_eq!(out[32 * 5 + 16 + 9] & 0xFFFF, 0xFFFF);
}

// ---- image instructions (tests/image_exec) ----

mod image_exec;

/// The f16 nearest to `x` (exact in f64, finite, within f16's range), ties
/// to even: `half`'s conversion rounds through f32 on F16C hosts, so its
/// result and its two neighbours are compared by distance to `x` (exact in
/// f64 for the few-bit values these tests make).
fn f16_rounded_once(x: f64) -> half::f16 {
    let h = half::f16::from_f64(x);
    let near = |b: u16| half::f16::from_bits(b);
    let candidates = [h.to_bits().wrapping_sub(1), h.to_bits(), h.to_bits() + 1];
    let mut best = h;
    for b in candidates {
        let c = near(b);
        if c.is_nan() || c.is_infinite() {
            continue;
        }
        let (d, dbest) = ((c.to_f64() - x).abs(), (best.to_f64() - x).abs());
        if d < dbest || (d == dbest && b & 1 == 0) {
            best = c;
        }
    }
    best
}
