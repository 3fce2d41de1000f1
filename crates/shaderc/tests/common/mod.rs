//! Shared test harness: run a checked-in shader code object
//! (shaders/tests/<target>/NAME.co with NAME.reflect.json) on a simulated
//! gfx1100 through aqueduct-hsa, binding buffers by the reflection's
//! argument names, and hand back every binding's bytes after the dispatch.
//! Also a small deterministic data generator.

#![allow(dead_code)] // each test file uses a different subset

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::{Agent, Runtime, RuntimeOptions, WaitCondition, WaitHint};
use aqueduct_shaderc::Reflection;

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The repository's shaders/ folder.
pub fn shaders_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shaders")
}

/// Bytes and reflection of a checked-in shader (`"tests/arith"`).
pub fn checked_in(name: &str, target: &str) -> (Vec<u8>, Reflection) {
    let (dir, stem) = match name.rsplit_once('/') {
        Some((d, s)) => (shaders_dir().join(d), s.to_string()),
        None => (shaders_dir(), name.to_string()),
    };
    let co_path = dir.join(target).join(format!("{stem}.co"));
    let json_path = dir.join(target).join(format!("{stem}.reflect.json"));
    let co = std::fs::read(&co_path).unwrap_or_else(|e| panic!("{}: {e}", co_path.display()));
    let json = std::fs::read_to_string(&json_path)
        .unwrap_or_else(|e| panic!("{}: {e}", json_path.display()));
    let reflection = Reflection::from_json(&json).expect("reflection JSON");
    (co, reflection)
}

struct Gpu {
    rt: Arc<Runtime>,
    agent: Agent,
    _sim: Arc<SimDevice>,
}

/// One simulated GPU shared by the tests of a binary (dispatches of
/// different tests run on their own queues).
fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        let sim = SimDevice::new(SimConfig {
            threads: 2,
            ..SimConfig::default()
        })
        .expect("SimDevice::new");
        let options = RuntimeOptions {
            visible_devices: None,
            aperture_size: 4 << 30,
        };
        let rt = Runtime::with_options(sim.clone(), options).expect("Runtime::with_options");
        let agent = rt.gpu_agent(0).expect("a GPU agent").clone();
        Gpu {
            rt,
            agent,
            _sim: sim,
        }
    })
}

/// A binding's initial contents: (group, binding, bytes).
pub type Binding = (u32, u32, Vec<u8>);

/// Run entry point `entry` of the code object `co` over `workgroups`
/// groups, with `bindings` as buffers; returns the bindings' bytes after.
pub fn run_code_object(
    co: &[u8],
    reflection: &Reflection,
    entry: &str,
    bindings: &[Binding],
    workgroups: [u32; 3],
) -> Result<Vec<Vec<u8>>, String> {
    let gpu = gpu();
    let ep = reflection
        .entry_point(entry)
        .ok_or_else(|| format!("no entry point {entry}"))?;
    let exe = gpu
        .rt
        .load_executable(&gpu.agent, co)
        .map_err(|e| e.to_string())?;
    let kernel = exe.kernel(&ep.kernel).map_err(|e| e.to_string())?;
    let pool = gpu
        .rt
        .pool(&gpu.agent, PoolKind::FineSystem)
        .map_err(|e| e.to_string())?;
    let mut allocations = Vec::new();
    let mut builder = KernargBuilder::new(&kernel.info);
    for (group, binding, bytes) in bindings {
        let mut a = pool
            .allocate(bytes.len().max(4) as u64)
            .map_err(|e| e.to_string())?;
        a.as_mut_slice().ok_or("not host mapped")?[..bytes.len()].copy_from_slice(bytes);
        if let Some(b) = ep
            .bindings
            .iter()
            .find(|b| b.group == *group && b.binding == *binding)
        {
            builder
                .set_ptr(ArgRef::Name(&b.arg), a.gpu_va())
                .map_err(|e| e.to_string())?;
            if let Some(size_arg) = &b.size_arg {
                builder
                    .set_u32(ArgRef::Name(size_arg), bytes.len() as u32)
                    .map_err(|e| e.to_string())?;
            }
        }
        allocations.push(a);
    }
    for b in &ep.bindings {
        if !bindings
            .iter()
            .any(|(g, n, _)| *g == b.group && *n == b.binding)
        {
            return Err(format!("binding {}/{} not provided", b.group, b.binding));
        }
    }
    let wg = ep.workgroup_size;
    let grid = [
        workgroups[0] * wg[0],
        workgroups[1] * wg[1],
        workgroups[2] * wg[2],
    ];
    let dims = if grid[2] > 1 || wg[2] > 1 {
        3
    } else if grid[1] > 1 || wg[1] > 1 {
        2
    } else {
        1
    };
    let shape = DispatchShape::new(grid, wg, dims);
    let bytes = builder.finish(&shape).map_err(|e| e.to_string())?;
    let mut kernarg = gpu
        .rt
        .kernargs(&gpu.agent)
        .map_err(|e| e.to_string())?
        .allocate(bytes.len().max(1) as u64)
        .map_err(|e| e.to_string())?;
    kernarg.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
    let queue = gpu
        .rt
        .create_queue(&gpu.agent, 64)
        .map_err(|e| e.to_string())?;
    let done = gpu.rt.create_signal(1).map_err(|e| e.to_string())?;
    let wg16 = [wg[0] as u16, wg[1] as u16, wg[2] as u16];
    let mut dispatch = kernel.dispatch(kernarg.gpu_va(), grid, wg16);
    dispatch.completion_signal = done.handle();
    queue
        .submit_dispatch(&dispatch.to_packet().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    done.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
        .map_err(|e| e.to_string())?;
    Ok(allocations
        .iter()
        .zip(bindings)
        .map(|(a, (_, _, b))| a.as_slice().expect("host mapped")[..b.len()].to_vec())
        .collect())
}

/// Run the checked-in gfx1100 object of shader `name`.
pub fn run(name: &str, entry: &str, bindings: &[Binding], workgroups: [u32; 3]) -> Vec<Vec<u8>> {
    let (co, reflection) = checked_in(name, "gfx1100");
    run_code_object(&co, &reflection, entry, bindings, workgroups)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn i32s(bytes: &[u8]) -> Vec<i32> {
    u32s(bytes).into_iter().map(|v| v as i32).collect()
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    u32s(bytes).into_iter().map(f32::from_bits).collect()
}

pub fn bytes_of<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// A deterministic 64-bit LCG.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u32() >> 8) as f32 / (1u32 << 24) as f32)
    }

    pub fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }

    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }
}

/// |a - b| <= abs_tol + rel_tol * |b| for every element.
pub fn assert_close(got: &[f32], want: &[f32], abs_tol: f32, rel_tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= abs_tol + rel_tol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(ok, "{what}[{i}]: got {g}, want {w}");
    }
}
