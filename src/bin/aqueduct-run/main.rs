//! aqueduct-run: run one kernel of a code object on the default device.
//!
//! Like iree-run-module for IREE: for people who have a code object (built
//! by clang, hipcc or aqueduct-shaderc) and want to run one kernel without
//! writing a host program. Arguments are matched against the kernel's
//! metadata by name or position; every mismatch (type, size, missing or
//! unknown argument) is a clear error before anything is dispatched.

mod disasm;
mod spec;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use aqueduct::hsa::code_object::{
    ArgRef, DispatchShape, KernargBuilder, KernelArg, KernelInfo, ValueKind,
};
use aqueduct::hsa::{Allocation, PoolKind, Runtime, WaitCondition, WaitHint};
use aqueduct::{DeviceChoice, open_device};
use spec::{ArgKey, ValueSpec, parse_arg, parse_dims};

const USAGE: &str = "\
usage: aqueduct-run CODE_OBJECT --kernel NAME --grid X[,Y,Z] --workgroup X[,Y,Z] [--arg NAME_OR_INDEX=VALUE]...
                    [--device auto|sim|kfd] [--gpu N] [--repeat N] [--timeout SECONDS]
       aqueduct-run CODE_OBJECT --list
       aqueduct-run CODE_OBJECT --disasm

  CODE_OBJECT   an AMDGPU ELF code object or a (compressed) clang offload bundle
  --grid        grid size in work-items per dimension (as in an AQL packet)
  --workgroup   workgroup size per dimension
  --arg         a kernel argument, by metadata name or by position among the explicit arguments:
                  scalars      u32:7  i32:-1  u64:0x10  f32:1.5  f64:2  (u8/i8/u16/i16/i64 too)
                  input buffer @file.bin | zeros:4096 | iota-u32:1024 | f32:1,2,3
                  output       out:FILE:BYTES   (zero-filled, written to FILE after the run)
                sizes accept K/M/G suffixes (zeros:64K)
  --list        print the kernels and their arguments, then exit
  --disasm      print gfxsim's decoding of every kernel in llvm-objdump's layout (no device needed),
                to diff against llvm-objdump-19 -d --triple=amdgcn-amd-amdhsa --mcpu=gfx1100
  --repeat N    dispatch N times and report the fastest and the mean
";

struct Options {
    code_object: PathBuf,
    kernel: Option<String>,
    grid: Option<([u32; 3], u32)>,
    workgroup: Option<([u32; 3], u32)>,
    args: Vec<(ArgKey, ValueSpec)>,
    device: DeviceChoice,
    gpu: usize,
    repeat: u32,
    timeout: Duration,
    list: bool,
    disasm: bool,
}

fn parse_options(argv: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        code_object: PathBuf::new(),
        kernel: None,
        grid: None,
        workgroup: None,
        args: Vec::new(),
        device: DeviceChoice::from_env().map_err(|e| e.to_string())?,
        gpu: 0,
        repeat: 1,
        timeout: Duration::from_secs(60),
        list: false,
        disasm: false,
    };
    let mut positional = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") && f != "--arg" => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag {
            "--kernel" | "-k" => opts.kernel = Some(value("--kernel")?),
            "--grid" | "-g" => opts.grid = Some(parse_dims(&value("--grid")?, "--grid")?),
            "--workgroup" | "-w" => {
                opts.workgroup = Some(parse_dims(&value("--workgroup")?, "--workgroup")?)
            }
            "--arg" | "-a" => opts.args.push(parse_arg(&value("--arg")?)?),
            "--device" => {
                opts.device = DeviceChoice::parse(&value("--device")?).map_err(|e| e.to_string())?
            }
            "--gpu" => {
                opts.gpu = value("--gpu")?
                    .parse()
                    .map_err(|_| "--gpu takes an ordinal (0, 1, ...)")?
            }
            "--repeat" => {
                opts.repeat = value("--repeat")?
                    .parse()
                    .map_err(|_| "--repeat takes a positive integer")?;
                if opts.repeat == 0 {
                    return Err("--repeat must be at least 1".into());
                }
            }
            "--timeout" => {
                let s: f64 = value("--timeout")?
                    .parse()
                    .map_err(|_| "--timeout takes seconds")?;
                if !(s > 0.0 && s.is_finite()) {
                    return Err("--timeout must be a positive number of seconds".into());
                }
                opts.timeout = Duration::from_secs_f64(s);
            }
            "--list" => opts.list = true,
            "--disasm" => opts.disasm = true,
            "--help" | "-h" => return Err(String::new()),
            f if f.starts_with('-') && f.len() > 1 => return Err(format!("unknown option {f}")),
            _ => positional.push(a.clone()),
        }
    }
    match positional.as_slice() {
        [one] => opts.code_object = PathBuf::from(one),
        [] => return Err("missing CODE_OBJECT".into()),
        more => {
            return Err(format!(
                "expected one CODE_OBJECT, got {}: {}",
                more.len(),
                more.join(" ")
            ));
        }
    }
    Ok(opts)
}

/// A buffer argument: its memory and, for outputs, where it goes.
struct BufferArg {
    allocation: Allocation,
    output: Option<(PathBuf, u64)>,
}

fn describe(arg: &KernelArg) -> String {
    let name = arg.name.as_deref().unwrap_or("<unnamed>");
    match &arg.type_name {
        Some(t) => format!("{name}: {t} ({:?}, {} bytes)", arg.value_kind, arg.size),
        None => format!("{name}: {:?}, {} bytes", arg.value_kind, arg.size),
    }
}

fn explicit_args(info: &KernelInfo) -> Vec<&KernelArg> {
    info.args
        .iter()
        .filter(|a| !a.value_kind.is_hidden())
        .collect()
}

fn list_kernels(kernels: &[KernelInfo]) {
    for k in kernels {
        println!("{}", k.name);
        for (i, a) in explicit_args(k).iter().enumerate() {
            println!("  {i}: {}", describe(a));
        }
    }
}

/// Match every `--arg` to exactly one explicit argument.
fn match_args<'k>(
    info: &'k KernelInfo,
    given: &[(ArgKey, ValueSpec)],
) -> Result<Vec<(usize, &'k KernelArg, ValueSpec)>, String> {
    let explicit = explicit_args(info);
    let names: Vec<String> = explicit
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{i}:{}", describe(a)))
        .collect();
    let mut slots: Vec<Option<ValueSpec>> = vec![None; explicit.len()];
    for (key, value) in given {
        let index = match key {
            ArgKey::Index(i) if *i < explicit.len() => *i,
            ArgKey::Index(i) => {
                return Err(format!(
                    "kernel {} has {} explicit arguments; there is no argument {i} (arguments: {})",
                    info.name,
                    explicit.len(),
                    names.join(", ")
                ));
            }
            ArgKey::Name(n) => explicit
                .iter()
                .position(|a| a.name.as_deref() == Some(n))
                .ok_or_else(|| {
                    format!(
                        "kernel {} has no argument named {n:?} (arguments: {})",
                        info.name,
                        names.join(", ")
                    )
                })?,
        };
        if slots[index].is_some() {
            return Err(format!(
                "argument {} is given twice",
                describe(explicit[index])
            ));
        }
        slots[index] = Some(value.clone());
    }
    let mut out = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        let value = slot
            .ok_or_else(|| format!("missing --arg for argument {i} ({})", describe(explicit[i])))?;
        out.push((i, explicit[i], value));
    }
    Ok(out)
}

fn run(opts: Options) -> Result<(), String> {
    let bytes = std::fs::read(&opts.code_object)
        .map_err(|e| format!("cannot read {}: {e}", opts.code_object.display()))?;
    if opts.disasm {
        print!("{}", disasm::disassemble_code_object(&bytes)?);
        return Ok(());
    }
    let device = open_device(opts.device).map_err(|e| e.to_string())?;
    let runtime = Runtime::new(device).map_err(|e| format!("runtime init failed: {e}"))?;
    let agent = runtime.gpu_agent(opts.gpu).map_err(|e| e.to_string())?;
    let executable = runtime
        .load_executable(agent, &bytes)
        .map_err(|e| e.to_string())?;
    if opts.list {
        list_kernels(executable.kernels());
        return Ok(());
    }
    let kernel_name = match &opts.kernel {
        Some(k) => k.clone(),
        None => match executable.kernels() {
            [only] => only.name.clone(),
            ks => {
                let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
                return Err(format!(
                    "--kernel is required; the code object has: {}",
                    names.join(", ")
                ));
            }
        },
    };
    let kernel = executable.kernel(&kernel_name).map_err(|e| e.to_string())?;
    let (grid, grid_dims) = opts.grid.ok_or("--grid is required")?;
    let (workgroup, wg_dims) = opts.workgroup.ok_or("--workgroup is required")?;
    let dims = grid_dims.max(wg_dims);
    let wg_items: u64 = workgroup.iter().map(|&w| w as u64).product();
    let max_wg = kernel.info.max_flat_workgroup_size.max(1) as u64;
    if wg_items > max_wg.min(agent.max_workgroup_size as u64) {
        return Err(format!(
            "workgroup {workgroup:?} has {wg_items} work-items; kernel {} allows at most {}",
            kernel.info.name,
            max_wg.min(agent.max_workgroup_size as u64)
        ));
    }
    if let Some(reqd) = kernel.info.reqd_workgroup_size
        && reqd != workgroup
    {
        return Err(format!(
            "kernel {} requires workgroup size {reqd:?}, not {workgroup:?}",
            kernel.info.name
        ));
    }

    let matched = match_args(&kernel.info, &opts.args)?;
    let pool = runtime
        .pool(agent, PoolKind::FineSystem)
        .map_err(|e| e.to_string())?;
    let mut builder = KernargBuilder::new(&kernel.info);
    let mut buffers: Vec<BufferArg> = Vec::new();
    for (index, arg, value) in matched {
        let what = describe(arg);
        match &arg.value_kind {
            ValueKind::ByValue => {
                let ValueSpec::Typed { ty, values, count } = &value else {
                    return Err(format!(
                        "argument {index} ({what}) is passed by value: give a scalar like u32:7"
                    ));
                };
                if *count != 1 {
                    return Err(format!(
                        "argument {index} ({what}) is one value, not a list of {count}"
                    ));
                }
                if values.len() != arg.size as usize {
                    return Err(format!(
                        "argument {index} ({what}) is {} bytes; {ty:?} is {} bytes",
                        arg.size,
                        values.len()
                    ));
                }
                builder
                    .set(ArgRef::Index(index), values)
                    .map_err(|e| e.to_string())?;
            }
            ValueKind::GlobalBuffer => {
                let init = value
                    .buffer_bytes()
                    .map_err(|e| format!("argument {index} ({what}): {e}"))?;
                // A zero-byte buffer still needs an address the kernel may hold.
                let mut allocation = pool
                    .allocate(init.len().max(4) as u64)
                    .map_err(|e| format!("argument {index}: {e}"))?;
                allocation
                    .as_mut_slice()
                    .ok_or("buffer memory is not host mapped")?[..init.len()]
                    .copy_from_slice(&init);
                builder
                    .set_ptr(ArgRef::Index(index), allocation.gpu_va())
                    .map_err(|e| e.to_string())?;
                let output = match value {
                    ValueSpec::Output { path, bytes } => Some((path, bytes)),
                    _ => None,
                };
                buffers.push(BufferArg { allocation, output });
            }
            other => {
                return Err(format!(
                    "argument {index} ({what}) has value kind {other:?}, which aqueduct-run cannot supply"
                ));
            }
        }
    }
    let shape = DispatchShape::new(grid, workgroup, dims);
    let kernarg_bytes = builder.finish(&shape).map_err(|e| e.to_string())?;
    let mut kernargs = runtime
        .kernargs(agent)
        .and_then(|k| k.allocate(kernarg_bytes.len().max(16) as u64))
        .map_err(|e| e.to_string())?;
    kernargs.as_mut_slice()[..kernarg_bytes.len()].copy_from_slice(&kernarg_bytes);

    let queue = runtime.create_queue(agent, 64).map_err(|e| e.to_string())?;
    let wg16 =
        |w: u32| u16::try_from(w).map_err(|_| format!("workgroup dimension {w} exceeds 1024"));
    let mut dispatch = kernel.dispatch(
        kernargs.gpu_va(),
        grid,
        [
            wg16(workgroup[0])?,
            wg16(workgroup[1])?,
            wg16(workgroup[2])?,
        ],
    );
    dispatch.dimensions = dims as u8;
    let signal = runtime.create_signal(1).map_err(|e| e.to_string())?;
    dispatch.completion_signal = signal.handle();
    let packet = dispatch.to_packet().map_err(|e| e.to_string())?;

    let mut times = Vec::new();
    for _ in 0..opts.repeat {
        signal.store(1, aqueduct::hsa::MemoryOrder::Release);
        let start = Instant::now();
        queue.submit_dispatch(&packet).map_err(|e| e.to_string())?;
        signal
            .wait(WaitCondition::Eq, 0, Some(opts.timeout), WaitHint::Blocked)
            .map_err(|e| format!("kernel {} failed: {e}", kernel.info.name))?;
        times.push(start.elapsed());
    }

    for b in &buffers {
        if let Some((path, bytes)) = &b.output {
            let data = &b
                .allocation
                .as_slice()
                .ok_or("output buffer is not host mapped")?[..*bytes as usize];
            std::fs::write(path, data)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    let best = times.iter().min().copied().unwrap_or_default();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "{} on {} ({}): grid {:?} workgroup {:?}",
        kernel.info.name,
        agent.name,
        runtime.device().backend_name(),
        &grid[..dims as usize],
        &workgroup[..dims as usize]
    );
    if times.len() == 1 {
        println!("dispatch time: {:.3} ms", best.as_secs_f64() * 1e3);
    } else {
        println!(
            "dispatch time over {} runs: best {:.3} ms, mean {:.3} ms",
            times.len(),
            best.as_secs_f64() * 1e3,
            mean.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_options(&argv) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
