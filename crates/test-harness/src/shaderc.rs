//! aqueduct-shaderc's test harness: run a checked-in shader code object
//! (shaders/tests/<target>/NAME.co with NAME.reflect.json) on a simulated
//! gfx1100 (or another simulated part) through aqueduct-hsa, binding buffers by the reflection's
//! argument names, and hand back every binding's bytes after the dispatch.
//! Test data and comparisons come from aqueduct-test-support.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub use aqueduct_gfxsim::{DispatchCounters, InstClass, SimPart};
use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::{Agent, Runtime, RuntimeOptions, WaitCondition, WaitHint};
use aqueduct_shaderc::Reflection;
pub use aqueduct_test_support::bytes::{bytes_of, f32s, i32s, u32s};
pub use aqueduct_test_support::{Rng, assert_close};

pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The repository's shaders/ folder.
pub fn shaders_dir() -> PathBuf {
    aqueduct_test_support::repo::root().join("shaders")
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
    sim: Arc<SimDevice>,
}

/// One simulated GPU of each part, shared by the tests of a binary
/// (dispatches of different tests run on their own queues).
fn gpu(part: SimPart) -> &'static Gpu {
    static GPUS: OnceLock<Mutex<Vec<(SimPart, &'static Gpu)>>> = OnceLock::new();
    let mut gpus = GPUS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, g)) = gpus.iter().find(|(p, _)| *p == part) {
        return g;
    }
    let sim = SimDevice::new(SimConfig {
        threads: 2,
        ..SimConfig::with_part(part)
    })
    .expect("SimDevice::new");
    let options = RuntimeOptions {
        visible_devices: None,
        aperture_size: 4 << 30,
    };
    let rt = Runtime::with_options(sim.clone(), options).expect("Runtime::with_options");
    let agent = rt.gpu_agent(0).expect("a GPU agent").clone();
    let g: &'static Gpu = Box::leak(Box::new(Gpu { rt, agent, sim }));
    gpus.push((part, g));
    g
}

/// A binding's initial contents: (group, binding, bytes).
pub type Binding = (u32, u32, Vec<u8>);

/// Run entry point `entry` of the code object `co` over `workgroups`
/// groups on a simulated gfx1100, with `bindings` as buffers; returns the
/// bindings' bytes after.
pub fn run_code_object(
    co: &[u8],
    reflection: &Reflection,
    entry: &str,
    bindings: &[Binding],
    workgroups: [u32; 3],
) -> Result<Vec<Vec<u8>>, String> {
    run_code_object_on(
        SimPart::Rx7900Xtx,
        co,
        reflection,
        entry,
        bindings,
        workgroups,
    )
}

/// [`run_code_object`] on a simulated `part` (its code object must be
/// for that part's target).
pub fn run_code_object_on(
    part: SimPart,
    co: &[u8],
    reflection: &Reflection,
    entry: &str,
    bindings: &[Binding],
    workgroups: [u32; 3],
) -> Result<Vec<Vec<u8>>, String> {
    dispatch(part, co, reflection, entry, bindings, workgroups, false).map(|(out, _)| out)
}

/// [`run_code_object_on`], also returning gfxsim's counters of the
/// dispatch (wave instructions by class).
pub fn run_code_object_counted(
    part: SimPart,
    co: &[u8],
    reflection: &Reflection,
    entry: &str,
    bindings: &[Binding],
    workgroups: [u32; 3],
) -> Result<(Vec<Vec<u8>>, DispatchCounters), String> {
    let (out, counters) = dispatch(part, co, reflection, entry, bindings, workgroups, true)?;
    Ok((
        out,
        counters.ok_or("gfxsim kept no counters of the dispatch")?,
    ))
}

fn dispatch(
    part: SimPart,
    co: &[u8],
    reflection: &Reflection,
    entry: &str,
    bindings: &[Binding],
    workgroups: [u32; 3],
    counted: bool,
) -> Result<(Vec<Vec<u8>>, Option<DispatchCounters>), String> {
    let gpu = gpu(part);
    if counted {
        // Device-wide and left on: other tests' dispatches are counted too,
        // and their records are never fetched (gfxsim drops the oldest).
        gpu.sim.set_dispatch_counters(true);
    }
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
    let counters = counted
        .then(|| gpu.sim.dispatch_counters(done.handle()))
        .flatten();
    let out = allocations
        .iter()
        .zip(bindings)
        .map(|(a, (_, _, b))| a.as_slice().expect("host mapped")[..b.len()].to_vec())
        .collect();
    Ok((out, counters))
}

/// Run the checked-in gfx1100 object of shader `name`.
pub fn run(name: &str, entry: &str, bindings: &[Binding], workgroups: [u32; 3]) -> Vec<Vec<u8>> {
    let (co, reflection) = checked_in(name, "gfx1100");
    run_code_object(&co, &reflection, entry, bindings, workgroups)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}
