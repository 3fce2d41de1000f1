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
