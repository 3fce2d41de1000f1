//! Execution tests for the gfx11 emulator (`aqueduct_gfxsim::isa`): the
//! checked-in clang-19 kernels (kernels/gfx1100/*.co) run through `Dispatch`
//! against a host-Vec test memory, results checked against host computation;
//! plus hand-assembled kernels (llvm-mc-19 words) for single features.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use aqueduct_gfxsim::isa::{
    Access, CodeCache, Dispatch, DispatchSetup, GpuMemory, MemoryFault, WaveError, WaveErrorKind,
    WorkerContext, WorkgroupStats,
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
    fn new() -> Self {
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

/// Load a code object's segments at CODE_BASE; returns (kd address, descriptor).
fn load_kernel(mem: &mut TestMem, name: &str) -> (u64, KernelDescriptor) {
    let path = format!(
        "{}/../../kernels/gfx1100/{name}.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
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
    }
}

/// Run every workgroup (x fastest) on one worker; sums the stats.
fn run_all(mem: &TestMem, s: DispatchSetup) -> Result<WorkgroupStats, WaveError> {
    let d = Dispatch::new(s, Arc::new(CodeCache::new()))?;
    let mut ctx = WorkerContext::new();
    let [cx, cy, cz] = d.workgroup_count();
    let mut total = WorkgroupStats::default();
    for z in 0..cz {
        for y in 0..cy {
            for x in 0..cx {
                let st = d.run_workgroup([x, y, z], mem, &mut ctx)?;
                total.wave_instructions += st.wave_instructions;
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

#[test]
fn fill3d_ids_and_offsets() {
    let (w, h, d) = (13u32, 7u32, 5u32);
    let wg = [4u32, 4, 2];
    let off = [0u64, 0, 0];
    let mut mem = TestMem::new();
    let (kd_addr, kd) = load_kernel(&mut mem, "fill3d");
    mem.map(BUF_A, &u32_bytes(&vec![u32::MAX; (w * h * d) as usize]));
    let grid = [w, h, d];
    mem.map(
        KERNARG,
        &kernargs(&ptr_args(&[BUF_A], &[w, h, d]), grid, wg, off),
    );
    run_all(&mem, setup(kd_addr, kd, grid, wg)).expect("runs");
    let want: Vec<u32> = (0..w * h * d).collect();
    assert_eq!(mem.read_u32s(BUF_A, (w * h * d) as usize), want);
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
